/*-------------------------------------------------------------------------
 *
 * gpujoin_cpu.c
 *		The CPU hash join of GpuJoin: RECHECK rows of the device, chunks
 *		evaluated on the CPU, and the whole node when the device cannot be
 *		used.  It joins the outer tuple in gjs->outer_slot against the very
 *		inner tuples the device has (gpujoin_inner.c).
 *
 * Each depth gets a hash index over its rows (gpujoin_cpu_hash.c), built
 * the first time a row needs it, with the equality operator's own hash
 * functions, and the operator itself for equality, so matches are
 * PostgreSQL's.  A key NULL on either side matches nothing.
 *
 * Every key is an outer-table expression, so a depth's matches do not
 * depend on the other depths: without residual quals an outer row's output
 * is the product of each depth's choices, as the device enumerates them
 * (docs/internals/join-kernels.md):
 *	INNER	every match (none: no row)
 *	LEFT	every match, or one NO_INNER when there is none
 *	SEMI	one NO_INNER when there is a match (none: no row)
 *	ANTI	one NO_INNER when there is none (a match: no row)
 * A depth's residual quals read the choices of the depths before it, so
 * the combinations are walked in the same order, depth by depth: a match
 * whose quals are not true is skipped, and a LEFT depth whose matches all
 * fail for the choices before it takes one NO_INNER instead, as
 * PostgreSQL's LEFT join NULL-extends a row that no inner row joins.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/executor.h"
#include "miscadmin.h"
#include "utils/datum.h"
#include "utils/memutils.h"

#include "gpujoin/gpujoin.h"

/* inner row `row` of depth d equals the outer keys */
static bool
row_matches(GpuJoinState *gjs, int d, uint32 row, const Datum *ovalues)
{
	ExprContext *econtext = gjs->task->css.ss.ps.ps_ExprContext;
	int			nkeys = list_length(gjs->info->depths[d].inner_keys);
	int			k;

	gpujoin_inner_tuple(gjs, d, row);
	econtext->ecxt_innertuple = gjs->inner_slot[d];
	for (k = 0; k < nkeys; k++)
	{
		bool		isnull;
		Datum		ivalue = ExecEvalExpr(gjs->inner_key_state[d][k], econtext, &isnull);

		if (isnull ||
			!DatumGetBool(FunctionCall2Coll(&gjs->eq_fn[d][k], gjs->collid[d][k],
											ovalues[k], ivalue)))
			return false;
	}
	return true;
}

/*
 * Depth d's choices for the outer row (its keys already evaluated): false
 * when the depth ends the row.
 */
static bool
depth_choices(GpuJoinState *gjs, int d, const Datum *ovalues, const bool *onull)
{
	GpuJoinCpuRow *cr = &gjs->cpu_row;
	GpuJoinCpuHash *h = &gjs->cpu_hash[d];
	JoinType	jt = gjs->info->depths[d].join_type;
	uint32		cap = 16;
	uint32		n = 0;
	uint32		hash;
	uint32		link;

	cr->choices[d] = palloc(sizeof(uint32) * cap);
	if (gjs->inner[d].nrows > 0 &&
		gpujoin_hash_keys(gjs, d, gjs->outer_hash_fn[d], ovalues, onull, &hash))
	{
		if (h->buckets == NULL)
			gpujoin_cpu_hash_build(gjs, d);
		for (link = pg_atomic_read_u32(&h->buckets[hash & (h->nbuckets - 1)]);
			 link != 0;
			 link = h->next[link - 1])
		{
			uint32		row = link - 1;

			CHECK_FOR_INTERRUPTS();
			if (h->hashes[row] != hash || !row_matches(gjs, d, row, ovalues))
				continue;
			if (n == cap)
			{
				cap *= 2;
				cr->choices[d] = repalloc_huge(cr->choices[d], sizeof(uint32) * cap);
			}
			cr->choices[d][n++] = row;
			if (jt == JOIN_SEMI || jt == JOIN_ANTI)
				break;
		}
	}
	switch (jt)
	{
		case JOIN_INNER:
			break;
		case JOIN_LEFT:
			if (n == 0)
				cr->choices[d][n++] = GPUJOIN_NO_INNER;
			break;
		case JOIN_SEMI:
			if (n > 0)
				cr->choices[d][0] = GPUJOIN_NO_INNER;
			break;
		case JOIN_ANTI:
			n = (n == 0) ? 1 : 0;
			cr->choices[d][0] = GPUJOIN_NO_INNER;
			break;
		default:
			elog(ERROR, "GpuJoin: join type %d", (int) jt);
	}
	cr->nchoices[d] = n;
	cr->pos[d] = 0;
	cr->null_extended[d] = false;
	return n > 0;
}

/*
 * The residual quals of depths first..upto over the outer row and rows
 * (each depth's choice; NO_INNER past upto), the INNER depths' only with
 * inner_only.  A depth whose choice is NO_INNER has no match to check.
 */
bool
gpujoin_row_quals_pass(GpuJoinState *gjs, const uint32 *rows, int first,
					   int upto, bool inner_only)
{
	ExprContext *econtext = gjs->task->css.ss.ps.ps_ExprContext;
	uint32		formed[GPUJOIN_MAX_DEPTHS];
	bool		is_formed = false;
	int			d;

	for (d = first; d <= upto; d++)
	{
		ExprState  *state = gjs->row_qual_state[d];

		if (state == NULL || rows[d] == GPUJOIN_NO_INNER ||
			(inner_only && gjs->info->depths[d].join_type != JOIN_INNER))
			continue;
		if (!is_formed)
		{
			int			i;

			for (i = 0; i < gjs->info->ndepths; i++)
				formed[i] = i <= upto ? rows[i] : GPUJOIN_NO_INNER;
			gpujoin_form_row(gjs, formed, gjs->row_slot);
			is_formed = true;
		}
		econtext->ecxt_scantuple = gjs->row_slot;
		if (!ExecQual(state, econtext))
			return false;
	}
	return true;
}

/*
 * Depth d's next choice for the combination being walked (its first when
 * descend): true with it in cr->rows[d], false when the depth has no more
 * for the choices before it.
 */
static bool
next_choice(GpuJoinState *gjs, int d, bool descend)
{
	GpuJoinCpuRow *cr = &gjs->cpu_row;
	uint32		i;

	if (!descend && cr->null_extended[d])
		return false;
	for (i = descend ? 0 : cr->pos[d] + 1; i < cr->nchoices[d]; i++)
	{
		cr->rows[d] = cr->choices[d][i];
		if (gpujoin_row_quals_pass(gjs, cr->rows, d, d, false))
		{
			cr->pos[d] = i;
			cr->null_extended[d] = false;
			return true;
		}
	}
	/* a LEFT depth with matches, none of which passed: NULL-extended once */
	if (descend && gjs->info->depths[d].join_type == JOIN_LEFT &&
		cr->nchoices[d] > 0)
	{
		cr->rows[d] = GPUJOIN_NO_INNER;
		cr->null_extended[d] = true;
		return true;
	}
	return false;
}

/*
 * Starts joining the outer tuple in gjs->outer_slot: false when it
 * produces no row.
 */
bool
gpujoin_cpu_start_row(GpuJoinState *gjs)
{
	ExprContext *econtext = gjs->task->css.ss.ps.ps_ExprContext;
	GpuJoinCpuRow *cr = &gjs->cpu_row;
	MemoryContext oldcxt;
	int			d;

	MemoryContextReset(gjs->row_cxt);
	cr->active = false;
	oldcxt = MemoryContextSwitchTo(gjs->row_cxt);
	for (d = 0; d < gjs->info->ndepths; d++)
	{
		int			nkeys = list_length(gjs->info->depths[d].outer_keys);
		Datum		values[GPUJOIN_MAX_KEYS];
		bool		isnull[GPUJOIN_MAX_KEYS];
		bool		ok;
		int			k;

		econtext->ecxt_scantuple = gjs->outer_slot;
		gpujoin_eval_keys(gjs, gjs->outer_key_state[d], nkeys, values, isnull);
		/* the inner walk below reuses econtext: keep the values here */
		for (k = 0; k < nkeys; k++)
		{
			if (!isnull[k])
				values[k] = datumCopy(values[k], gjs->outer_key_byval[d][k],
									  gjs->outer_key_typlen[d][k]);
		}
		ok = depth_choices(gjs, d, values, isnull);
		if (!ok)
		{
			MemoryContextSwitchTo(oldcxt);
			return false;
		}
	}
	MemoryContextSwitchTo(oldcxt);
	cr->active = true;
	cr->fresh = true;
	return true;
}

/*
 * The next combination of the row being joined: rows[d] per depth, the
 * last depth varying fastest, as on the device.
 */
bool
gpujoin_cpu_next_combination(GpuJoinState *gjs, uint32 *rows)
{
	GpuJoinCpuRow *cr = &gjs->cpu_row;
	int			last = gjs->info->ndepths - 1;
	bool		descend = cr->fresh;
	int			d = descend ? 0 : last;

	if (!cr->active)
		return false;
	cr->fresh = false;
	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		if (!next_choice(gjs, d, descend))
		{
			if (d == 0)
			{
				cr->active = false;
				return false;
			}
			d--;
			descend = false;
			continue;
		}
		if (d == last)
			break;
		d++;
		descend = true;
	}
	memcpy(rows, cr->rows, sizeof(uint32) * (last + 1));
	return true;
}

void
gpujoin_cpu_reset(GpuJoinState *gjs)
{
	gjs->cpu_row.active = false;
	MemoryContextReset(gjs->row_cxt);
}
