/*
 * xpu_join.h
 *
 * GpuJoin's probe side: an outer row that passed the outer quals is joined
 * with every depth in turn, and each combination of matches is written to
 * the output as a record (see "Output" below).  One outer row may have any
 * number of combinations, so the walk over them is a cursor
 * (XpuJoinCursor): when the output buffer is full the row stops, its
 * cursor is handed back to the service, and a later launch continues it
 * where it stopped.  Every combination is written exactly once.
 *
 * The per-row steps are XPU_FUNC helpers (atomics become plain operations
 * on the host), so kernels/test/test_join.cu and the host executor run the
 * same code serially; the CUDA kernels are at the end.
 */
#ifndef XPU_JOIN_H
#define XPU_JOIN_H

#include "xpu_atomic.h"
#include "xpu_heap.h"
#include "xpu_eval.h"
#include "xpu_join_desc.h"
#include "xpu_join_hash.h"

/*
 * Output: records of 1 + ndepths uint32_t, XPU_JOIN_NO_INNER, and the
 * cursor (XpuJoinCursor, XPU_JOIN_CUR_*) of a row that found the output
 * full are in pg_strom_xpu.h, section "GpuJoin".
 */

/* an outer row's probe keys, hashed once per depth */
typedef struct xpu_join_probe
{
	uint32_t	hash[XPU_JOIN_MAX_DEPTHS];
	bool		nullkey[XPU_JOIN_MAX_DEPTHS];	/* matches nothing */
} xpu_join_probe;

XPU_FUNC void
xpu_join_prepare(const xpu_join *jn, const xpu_datum *slots, xpu_join_probe *pr)
{
	int			d;

	for (d = 0; d < (int) jn->ndepths; d++)
		pr->hash[d] = xpu_join_outer_hash(&jn->depths[d], slots, &pr->nullkey[d]);
}

/*
 * xpu_join_no_combination - true when an outer row (its outer stage
 * evaluated) can have no combination at all: at some INNER or SEMI depth
 * its key is NULL or matches no inner row.  Every depth's keys are outer
 * columns, so this needs no choice of another depth; it is necessary for
 * a combination whatever the residual quals decide, so a row it rejects
 * would fold nothing and emit nothing.  LEFT and ANTI depths never reject
 * (an ANTI match may still fail its residual qual).
 */
/* an INNER or SEMI depth: a row without a match there has no continuation */
XPU_FUNC bool
xpu_join_depth_needs_match(const xpu_join_depth *jd)
{
	return jd->join_type == XPU_JOIN_INNER || jd->join_type == XPU_JOIN_SEMI;
}

XPU_FUNC bool
xpu_join_no_combination(const xpu_join *jn, const xpu_join_inner *inners,
						const xpu_datum *slots)
{
	int			d;

	for (d = 0; d < (int) jn->ndepths; d++)
	{
		const xpu_join_depth *jd = &jn->depths[d];
		bool		nullkey;
		uint32_t	hash;

		if (!xpu_join_depth_needs_match(jd))
			continue;
		hash = xpu_join_outer_hash(jd, slots, &nullkey);
		if (nullkey || xpu_join_probe_first(jd, &inners[d], slots, hash) == XPU_JOIN_NONE)
			return true;
	}
	return false;
}

/* whether xpu_join_no_combination can ever reject a row of this join */
XPU_FUNC bool
xpu_join_can_reject(const xpu_join *jn)
{
	int			d;

	for (d = 0; d < (int) jn->ndepths; d++)
	{
		if (xpu_join_depth_needs_match(&jn->depths[d]))
			return true;
	}
	return false;
}

/*
 * xpu_join_first - the first choice at depth d: an inner row, NO_INNER
 * (LEFT without a match, SEMI with one, ANTI without one), or NONE when
 * the outer row has no continuation at this depth.
 */
XPU_FUNC uint32_t
xpu_join_first(const xpu_join *jn, const xpu_join_inner *inners, const xpu_datum *slots,
			   const xpu_join_probe *pr, int d)
{
	const xpu_join_depth *jd = &jn->depths[d];
	uint32_t	r = pr->nullkey[d] ? XPU_JOIN_NONE :
		xpu_join_probe_first(jd, &inners[d], slots, pr->hash[d]);

	switch (jd->join_type)
	{
		case XPU_JOIN_LEFT:
			return r != XPU_JOIN_NONE ? r : XPU_JOIN_NO_INNER;
		case XPU_JOIN_SEMI:
			return r != XPU_JOIN_NONE ? XPU_JOIN_NO_INNER : XPU_JOIN_NONE;
		case XPU_JOIN_ANTI:
			return r == XPU_JOIN_NONE ? XPU_JOIN_NO_INNER : XPU_JOIN_NONE;
		default:
			return r;
	}
}

/*
 * xpu_join_advance - the choice after `cur` at depth d, or NONE.  NO_INNER
 * is always the only choice; a matched row is followed by the next match
 * (a LEFT row that had matches never adds a NULL-extended one).
 */
XPU_FUNC uint32_t
xpu_join_advance(const xpu_join *jn, const xpu_join_inner *inners, const xpu_datum *slots,
				 const xpu_join_probe *pr, int d, uint32_t cur)
{
	if (cur == XPU_JOIN_NO_INNER)
		return XPU_JOIN_NONE;
	return xpu_join_probe_next(&jn->depths[d], &inners[d], slots, pr->hash[d], cur);
}

/*
 * xpu_join_next - move the cursor to the outer row's next combination;
 * false when there is none (state DONE).  Combinations come in
 * lexicographic order of (depth 0's choice, depth 1's, ...), each depth's
 * matches in chain order, so "the one after pos" is well defined and a
 * cursor resumes exactly where it stopped.
 */
XPU_FUNC bool
xpu_join_next(const xpu_join *jn, const xpu_join_inner *inners, const xpu_datum *slots,
			  const xpu_join_probe *pr, XpuJoinCursor *cur)
{
	int			last = (int) jn->ndepths - 1;
	int			d;
	bool		descend;

	if (cur->state == XPU_JOIN_CUR_DONE)
		return false;
	if (cur->state == XPU_JOIN_CUR_PENDING)
	{
		cur->state = XPU_JOIN_CUR_EMITTED;
		return true;
	}
	descend = cur->state == XPU_JOIN_CUR_FRESH;
	d = descend ? 0 : last;
	for (;;)
	{
		uint32_t	c = descend ? xpu_join_first(jn, inners, slots, pr, d) :
			xpu_join_advance(jn, inners, slots, pr, d, cur->pos[d]);

		if (c == XPU_JOIN_NONE)
		{
			if (d == 0)
			{
				cur->state = XPU_JOIN_CUR_DONE;
				return false;
			}
			d--;
			descend = false;
			continue;
		}
		cur->pos[d] = c;
		if (d == last)
		{
			cur->state = XPU_JOIN_CUR_EMITTED;
			return true;
		}
		d++;
		descend = true;
	}
}

/*
 * xpu_join_cursor_valid - a resumed cursor is one xpu_join_next could
 * have left for this outer row: a known state, and every position a
 * choice its depth makes for this row (a matching row below nrows;
 * NO_INNER for SEMI with a match, ANTI and LEFT without one).  Checked
 * because it came back through the service.
 */
XPU_FUNC bool
xpu_join_cursor_valid(const xpu_join *jn, const xpu_join_inner *inners, const xpu_datum *slots,
					  const xpu_join_probe *pr, const XpuJoinCursor *cur)
{
	int			d;

	if (cur->state == XPU_JOIN_CUR_FRESH)
		return true;
	if (cur->state != XPU_JOIN_CUR_PENDING && cur->state != XPU_JOIN_CUR_EMITTED)
		return false;
	for (d = 0; d < (int) jn->ndepths; d++)
	{
		const xpu_join_depth *jd = &jn->depths[d];
		uint32_t	p = cur->pos[d];

		if (p == XPU_JOIN_NO_INNER)
		{
			/* NO_INNER is a choice only where xpu_join_first makes it */
			bool		matched = !pr->nullkey[d] &&
				xpu_join_probe_first(jd, &inners[d], slots, pr->hash[d]) != XPU_JOIN_NONE;

			if (jd->join_type == XPU_JOIN_INNER)
				return false;
			/* or where a LEFT depth's qual rejected every match */
			if (jd->join_type == XPU_JOIN_LEFT && jn->quals[d] >= 0)
				continue;
			if (matched != (jd->join_type == XPU_JOIN_SEMI))
				return false;
		}
		else if (jd->join_type == XPU_JOIN_SEMI || jd->join_type == XPU_JOIN_ANTI ||
				 pr->nullkey[d] ||
				 !xpu_join_row_matches(jd, &inners[d], slots, pr->hash[d], p))
			return false;
	}
	return true;
}

/*
 * The walk over an outer row's combinations in a session with an inner
 * stage (a fused one, or a GpuJoin with residual quals): the order of
 * xpu_join_next (lexicographic over the depths' choices, each
 * depth's matches in chain order), but every choice at depth d also
 * evaluates the per-combination nodes of stage d (xpu_join.stage_end)
 * with depth d's INNER_VARs filled, and a depth's residual qual drops the
 * matches for which it is not true.  A LEFT depth NULL-extends (its
 * INNER_VARs NULL) when no match passes.  So when a combination is
 * returned, every node after the root holds that combination's value.
 */
typedef struct xpu_join_walk
{
	xpu_join_probe pr;
	uint32_t	pos[XPU_JOIN_MAX_DEPTHS];
	int			state;			/* XPU_JOIN_CUR_FRESH, _EMITTED or _DONE */
} xpu_join_walk;

/*
 * fill stage d's INNER_VARs (depth d's from row r, NO_INNER: NULL; those
 * of lower depths from their choices) and evaluate stage d (-1: the nodes
 * after the root that read no inner row)
 */
XPU_FUNC int
xpu_join_walk_eval(const xpu_program *prog, const xpu_join *jn, const xpu_join_inner *inners,
				   const uint32_t *pos, int d, uint32_t r, xpu_datum *slots)
{
	int			first = d < 0 ? (int) prog->root + 1 : (int) jn->stage_end[d];
	int			end = (int) jn->stage_end[d + 1];
	int			i;

	for (i = first; i < end; i++)
	{
		const XpuNode *n = &prog->nodes[i];

		if (n->opcode == XPU_OP_INNER_VAR)
		{
			const XpuJoinCol *col = &jn->cols[n->aux];
			/* a column of depth d, or (placed after a deeper node) of a
			 * depth whose choice is made already */
			uint32_t	row = col->depth == d ? r : pos[col->depth];

			if (row == XPU_JOIN_NO_INNER)
			{
				slots[i].isnull = 1;
				slots[i].scale = 0;
				slots[i].v.num = 0;
			}
			else
				xpu_join_slot_datum(col->inner_xtype,
									xpu_join_inner_row(&inners[col->depth], row) + col->offset,
									&slots[i]);
		}
	}
	if (first < end)
		return xpu_eval_nodes(prog, slots, first, end - 1);
	return XPU_ROW_MATCH;
}

/*
 * xpu_join_walk_next - move to the row's next combination: XPU_ROW_MATCH
 * with the slots evaluated, XPU_ROW_NOMATCH when there is none, or
 * XPU_ROW_RECHECK when a node of the stage (a qual, a key, an argument)
 * cannot be evaluated for a combination or a match it looked at.
 */
XPU_NOINLINE int
xpu_join_walk_next(const xpu_program *prog, const xpu_join *jn, const xpu_join_inner *inners,
				   xpu_datum *slots, xpu_join_walk *w)
{
	int			last = (int) jn->ndepths - 1;
	int			d;
	bool		descend;

	if (w->state == XPU_JOIN_CUR_DONE)
		return XPU_ROW_NOMATCH;
	if (w->state == XPU_JOIN_CUR_FRESH)
	{
		xpu_join_prepare(jn, slots, &w->pr);
		/*
		 * The nodes after the root that read no inner row: once, with or
		 * without quals (the combination loop below starts at stage 0, so
		 * without quals nothing else would evaluate them: a group key such
		 * as outer_col % 5 kept the previous row's value).
		 */
		if (xpu_join_walk_eval(prog, jn, inners, w->pos, -1, 0, slots) != XPU_ROW_MATCH)
			return XPU_ROW_RECHECK;
		d = 0;
		descend = true;
	}
	else
	{
		d = last;
		descend = false;
	}
	for (;;)
	{
		const xpu_join_depth *jd = &jn->depths[d];
		uint32_t	c;

		if (jd->join_type == XPU_JOIN_SEMI || jd->join_type == XPU_JOIN_ANTI)
			c = descend ? xpu_join_first(jn, inners, slots, &w->pr, d) : XPU_JOIN_NONE;
		else
		{
			if (descend)
				c = w->pr.nullkey[d] ? XPU_JOIN_NONE :
					xpu_join_probe_first(jd, &inners[d], slots, w->pr.hash[d]);
			else
				c = w->pos[d] == XPU_JOIN_NO_INNER ? XPU_JOIN_NO_INNER :
					xpu_join_probe_next(jd, &inners[d], slots, w->pr.hash[d], w->pos[d]);
			/* the next match that passes the depth's qual */
			while (c != XPU_JOIN_NONE && c != XPU_JOIN_NO_INNER && d <= jn->eager_depth)
			{
				if (xpu_join_walk_eval(prog, jn, inners, w->pos, d, c, slots) != XPU_ROW_MATCH)
					return XPU_ROW_RECHECK;
				if (jn->quals[d] < 0 ||
					(!slots[jn->quals[d]].isnull && slots[jn->quals[d]].v.i64 != 0))
					break;
				c = xpu_join_probe_next(jd, &inners[d], slots, w->pr.hash[d], c);
			}
			if (c == XPU_JOIN_NO_INNER)
				c = XPU_JOIN_NONE;		/* after the NULL-extended choice */
			else if (c == XPU_JOIN_NONE && jd->join_type == XPU_JOIN_LEFT && descend)
			{
				/*
				 * Descending, every match was looked at and none passed (a
				 * choice that passed would have been taken): once,
				 * NULL-extended.  Advancing, a match was taken before.
				 */
				c = XPU_JOIN_NO_INNER;
				if (d <= jn->eager_depth &&
					xpu_join_walk_eval(prog, jn, inners, w->pos, d, c, slots) != XPU_ROW_MATCH)
					return XPU_ROW_RECHECK;
			}
		}
		if (c == XPU_JOIN_NONE)
		{
			if (d == 0)
			{
				w->state = XPU_JOIN_CUR_DONE;
				return XPU_ROW_NOMATCH;
			}
			d--;
			descend = false;
			continue;
		}
		w->pos[d] = c;
		if (d == last)
		{
			int			k;

			w->state = XPU_JOIN_CUR_EMITTED;
			/* the stages no qual needed (-1 too without quals): only for
			 * whole combinations */
			for (k = jn->eager_depth < 0 ? -1 : jn->eager_depth + 1; k <= last; k++)
			{
				if (xpu_join_walk_eval(prog, jn, inners, w->pos, k,
									   k < 0 ? 0 : w->pos[k], slots) != XPU_ROW_MATCH)
					return XPU_ROW_RECHECK;
			}
			return XPU_ROW_MATCH;
		}
		d++;
		descend = true;
	}
}

/* reserve one output record: its index, or capacity when the output is full */
XPU_FUNC uint32_t
xpu_join_reserve(uint32_t *nout, uint32_t capacity)
{
	uint32_t	k;

	/* once full, stay full without pushing the counter further */
	if (xpu_ld_cg_u32(nout) >= capacity)
		return capacity;
	k = xpu_atomic_add_u32(nout, 1);
	return k < capacity ? k : capacity;
}

/*
 * write one record of item: the inner rows pos (NULL: NO_INNER at every
 * depth); false when the output is full
 */
XPU_FUNC bool
xpu_join_write(const xpu_join *jn, uint32_t item, const uint32_t *pos,
			   uint32_t *out, uint32_t capacity, uint32_t *nout)
{
	uint32_t	k = xpu_join_reserve(nout, capacity);
	uint32_t   *rec;
	int			d;

	if (k >= capacity)
		return false;
	rec = out + (size_t) k * (1 + jn->ndepths);
	rec[0] = item;
	for (d = 0; d < (int) jn->ndepths; d++)
		rec[1 + d] = pos ? pos[d] : XPU_JOIN_NO_INNER;
	return true;
}

/* outcome of xpu_join_row */
#define XPU_JOIN_ROW_DONE		0
#define XPU_JOIN_ROW_SUSPENDED	1

/*
 * xpu_join_row - write the outer row's combinations from its cursor on
 * (slots evaluated, the qual true, cursor checked).  Returns
 * XPU_JOIN_ROW_SUSPENDED with the cursor PENDING when the output filled
 * before the row was done; *nwritten counts its records.  out holds
 * capacity records of 1 + ndepths words; *nout is the launch's count.
 */
XPU_FUNC int
xpu_join_row(const xpu_join *jn, const xpu_join_inner *inners, const xpu_datum *slots,
			 const xpu_join_probe *pr, XpuJoinCursor *cur,
			 uint32_t *out, uint32_t capacity, uint32_t *nout, uint32_t *nwritten)
{
	while (xpu_join_next(jn, inners, slots, pr, cur))
	{
		if (!xpu_join_write(jn, cur->item, cur->pos, out, capacity, nout))
		{
			cur->state = XPU_JOIN_CUR_PENDING;
			return XPU_JOIN_ROW_SUSPENDED;
		}
		(*nwritten)++;
	}
	return XPU_JOIN_ROW_DONE;
}

/*
 * xpu_join_recheck - write the RECHECK record of an outer row whose quals
 * or keys the device cannot evaluate (the backend joins it on the CPU);
 * false when the output is full (the row suspends FRESH and is evaluated
 * again when resumed).
 */
XPU_FUNC bool
xpu_join_recheck(const xpu_join *jn, uint32_t item, uint32_t *out, uint32_t capacity,
				 uint32_t *nout)
{
	return xpu_join_write(jn, item | XPU_ITEM_RECHECK, (const uint32_t *) 0, out, capacity,
						  nout);
}

/* outcome of xpu_join_tuple beyond XPU_JOIN_ROW_* */
#define XPU_JOIN_ROW_BAD		2		/* a resumed cursor that cannot be */

/*
 * xpu_join_walk_resume - the walk of a resumed cursor (its combination
 * pos is one the walk had chosen): the slots of every stage a qual needs
 * evaluated again for that combination, as the walk left them.
 */
XPU_FUNC int
xpu_join_walk_resume(const xpu_program *prog, const xpu_join *jn, const xpu_join_inner *inners,
					 xpu_datum *slots, const XpuJoinCursor *cur, xpu_join_walk *w)
{
	int			d;

	xpu_join_prepare(jn, slots, &w->pr);
	for (d = 0; d < (int) jn->ndepths; d++)
		w->pos[d] = cur->pos[d];
	w->state = XPU_JOIN_CUR_EMITTED;
	if (xpu_join_walk_eval(prog, jn, inners, w->pos, -1, 0, slots) != XPU_ROW_MATCH)
		return XPU_ROW_RECHECK;
	for (d = 0; d <= jn->eager_depth && d < (int) jn->ndepths; d++)
	{
		if (xpu_join_walk_eval(prog, jn, inners, w->pos, d, w->pos[d], slots) != XPU_ROW_MATCH)
			return XPU_ROW_RECHECK;
	}
	return XPU_ROW_MATCH;
}

/*
 * xpu_join_row_quals - xpu_join_row of a session with residual quals
 * (xpu_join.eager_depth >= 0), whose combinations the walk makes.  A row
 * is wholly RECHECK or wholly written: a fresh row is first walked
 * without writing, and a node that cannot be evaluated for some
 * combination (or rejected match) makes it RECHECK; then it is walked
 * again, writing.  A resumed one was walked whole before it suspended.
 */
XPU_FUNC int
xpu_join_row_quals(const xpu_program *prog, const xpu_join *jn, const xpu_join_inner *inners,
				   xpu_datum *slots, XpuJoinCursor *cur,
				   uint32_t *out, uint32_t capacity, uint32_t *nout,
				   uint32_t *nwritten, uint32_t *nrecheck)
{
	xpu_join_walk w;
	int			res;
	int			d;

	if (cur->state == XPU_JOIN_CUR_FRESH)
	{
		w.state = XPU_JOIN_CUR_FRESH;
		do
			res = xpu_join_walk_next(prog, jn, inners, slots, &w);
		while (res == XPU_ROW_MATCH);
		if (res == XPU_ROW_RECHECK)
		{
			if (!xpu_join_recheck(jn, cur->item, out, capacity, nout))
				return XPU_JOIN_ROW_SUSPENDED;
			(*nrecheck)++;
			(*nwritten)++;
			return XPU_JOIN_ROW_DONE;
		}
		w.state = XPU_JOIN_CUR_FRESH;
	}
	else
	{
		if (xpu_join_walk_resume(prog, jn, inners, slots, cur, &w) != XPU_ROW_MATCH)
			return XPU_JOIN_ROW_BAD;
		if (cur->state == XPU_JOIN_CUR_PENDING)
		{
			if (!xpu_join_write(jn, cur->item, w.pos, out, capacity, nout))
				return XPU_JOIN_ROW_SUSPENDED;
			(*nwritten)++;
			cur->state = XPU_JOIN_CUR_EMITTED;
		}
	}
	for (;;)
	{
		res = xpu_join_walk_next(prog, jn, inners, slots, &w);
		if (res == XPU_ROW_NOMATCH)
		{
			cur->state = XPU_JOIN_CUR_DONE;
			return XPU_JOIN_ROW_DONE;
		}
		/* the same walk passed whole before, or the cursor was not its own */
		if (res != XPU_ROW_MATCH)
			return XPU_JOIN_ROW_BAD;
		if (!xpu_join_write(jn, cur->item, w.pos, out, capacity, nout))
		{
			cur->state = XPU_JOIN_CUR_PENDING;
			for (d = 0; d < (int) jn->ndepths; d++)
				cur->pos[d] = w.pos[d];
			return XPU_JOIN_ROW_SUSPENDED;
		}
		(*nwritten)++;
	}
}

/*
 * xpu_join_tuple - one outer tuple from its cursor (FRESH for a first
 * visit): evaluate the program, then write its RECHECK record or its
 * combinations.  Counts the records written and the rechecks.  The kernel
 * and the host executor both go through here.
 */
XPU_FUNC int
xpu_join_tuple(const xpu_program *prog, const xpu_join *jn, const xpu_join_inner *inners,
			   const char *tup, int32_t tuplen, xpu_datum *slots, XpuJoinCursor *cur,
			   uint32_t *out, uint32_t capacity, uint32_t *nout,
			   uint32_t *nwritten, uint32_t *nrecheck)
{
	xpu_join_probe pr;
	int			res = xpu_eval_tuple(prog, tup, tuplen, slots);

	if (res == XPU_ROW_RECHECK)
	{
		if (cur->state != XPU_JOIN_CUR_FRESH)
			return XPU_JOIN_ROW_BAD;
		if (!xpu_join_recheck(jn, cur->item, out, capacity, nout))
			return XPU_JOIN_ROW_SUSPENDED;
		(*nrecheck)++;
		(*nwritten)++;
		return XPU_JOIN_ROW_DONE;
	}
	if (res != XPU_ROW_MATCH)
		return cur->state == XPU_JOIN_CUR_FRESH ? XPU_JOIN_ROW_DONE : XPU_JOIN_ROW_BAD;
	xpu_join_prepare(jn, slots, &pr);
	if (!xpu_join_cursor_valid(jn, inners, slots, &pr, cur))
		return XPU_JOIN_ROW_BAD;
	if (jn->eager_depth >= 0)
		return xpu_join_row_quals(prog, jn, inners, slots, cur, out, capacity, nout,
								  nwritten, nrecheck);
	return xpu_join_row(jn, inners, slots, &pr, cur, out, capacity, nout, nwritten);
}

/* a fresh cursor of item */
XPU_FUNC void
xpu_join_cursor_init(XpuJoinCursor *cur, uint32_t item)
{
	int			d;

	cur->item = item;
	cur->state = XPU_JOIN_CUR_FRESH;
	for (d = 0; d < XPU_JOIN_MAX_DEPTHS; d++)
		cur->pos[d] = 0;
}

#ifdef __CUDACC__

/* the GpuJoin kernels' signatures and counters: pg_strom_xpu.h */

/* thread 0 loads and checks the program, the descriptor and the buffers */
__device__ static bool
xpu_join_setup_block(const char *session, XpuJoinInner *const *hdrs,
					 xpu_program *prog, xpu_join *jn, xpu_join_inner *inners,
					 int *s_status, uint32_t *counters)
{
	if (threadIdx.x == 0)
	{
		int			st = xpu_join_setup_serial(session, prog, jn);

		if (st == XPU_STATUS_OK)
			st = xpu_join_inners_open(jn, hdrs, inners);
		*s_status = st;
		if (st != XPU_STATUS_OK)
			xpu_set_status(counters, (uint32_t) st);
	}
	__syncthreads();
	return *s_status == XPU_STATUS_OK;
}

extern "C" __global__ void
kern_gpujoin_build(const char *session, uint32_t depth, XpuJoinInner *inner,
				   uint32_t *counters)
{
	__shared__ xpu_program prog;
	__shared__ xpu_join jn;
	__shared__ xpu_join_inner in;
	__shared__ int s_status;
	uint32_t	r;

	if (threadIdx.x == 0)
	{
		/* a fused GpuPreAgg's inner depths are built alike */
		uint32_t	kind = xpu_load_u32(session + sizeof(PgStromMsgHeader) + 4);
		int			st = xpu_join_setup_serial_kind(session, &prog, &jn,
													kind == XPU_KIND_GPUJOIN_PREAGG ?
													kind : XPU_KIND_GPUJOIN);

		if (st == XPU_STATUS_OK &&
			(depth >= jn.ndepths || !xpu_join_inner_open(inner, &jn.depths[depth], depth, &in)))
			st = XPU_STATUS_BAD_INNER;
		s_status = st;
		if (st != XPU_STATUS_OK)
			xpu_set_status(counters, (uint32_t) st);
	}
	__syncthreads();
	if (s_status != XPU_STATUS_OK)
		return;
	for (r = blockIdx.x * blockDim.x + threadIdx.x; r < in.nrows; r += gridDim.x * blockDim.x)
	{
		int			res = !xpu_join_payload_valid(&jn, depth, xpu_join_inner_row(&in, r)) ? -1 :
			xpu_join_build_row(&jn.depths[depth], &in, r);

		atomicAdd(&counters[XPU_COUNTER_NTUPLES], 1);
		if (res > 0)
			atomicAdd(&counters[XPU_COUNTER_NITEMS], 1);
		else if (res < 0)
			xpu_set_status(counters, XPU_STATUS_BAD_INNER);
	}
}

/* one tuple of a launch, from its cursor: write its records or suspend it */
__device__ static void
xpu_join_kernel_tuple(const xpu_program *prog, const xpu_join *jn, const xpu_join_inner *inners,
					  const char *tup, int32_t tuplen, xpu_datum *slots, XpuJoinCursor *cur,
					  uint32_t *out, uint32_t capacity, XpuJoinCursor *suspend,
					  uint32_t *counters)
{
	uint32_t	nwritten = 0;
	uint32_t	nrecheck = 0;
	int			res = xpu_join_tuple(prog, jn, inners, tup, tuplen, slots, cur,
									 out, capacity, &counters[XPU_COUNTER_NITEMS],
									 &nwritten, &nrecheck);

	if (res == XPU_JOIN_ROW_SUSPENDED)
		suspend[atomicAdd(&counters[XPU_JOIN_COUNTER_NSUSPEND], 1)] = *cur;
	else if (res == XPU_JOIN_ROW_BAD)
		xpu_set_status(counters, XPU_STATUS_BAD_PAGE);
	if (nrecheck > 0)
		atomicAdd(&counters[XPU_COUNTER_NRECHECK], nrecheck);
}

extern "C" __global__ void __launch_bounds__(XPU_GPUSCAN_THREADS, 2)
kern_gpujoin_block(const char *session, const char *pages, uint32_t nblocks,
				   const XpuJoinCursor *resume, uint32_t nresume,
				   XpuJoinInner *inner0, XpuJoinInner *inner1,
				   XpuJoinInner *inner2, XpuJoinInner *inner3,
				   uint32_t *out, uint32_t capacity,
				   XpuJoinCursor *suspend, uint32_t *counters)
{
	__shared__ xpu_program prog;
	__shared__ xpu_join jn;
	__shared__ xpu_join_inner inners[XPU_JOIN_MAX_DEPTHS];
	__shared__ int s_status;
	XpuJoinInner *hdrs[XPU_JOIN_MAX_DEPTHS] = {inner0, inner1, inner2, inner3};
	xpu_datum	slots[XPU_GPUSCAN_MAX_SLOTS];
	XpuJoinCursor cur;
	const char *tup;
	int32_t		tuplen;

	if (resume == NULL ? blockIdx.x >= nblocks :
		(uint64_t) blockIdx.x * blockDim.x >= nresume)
		return;
	if (!xpu_join_setup_block(session, hdrs, &prog, &jn, inners, &s_status, counters))
		return;
	if (resume == NULL)
	{
		const char *page = pages + (size_t) blockIdx.x * XPU_BLCKSZ;
		int			n = xpu_page_checked_nitems(page);
		int			i;

		if (n < 0)
		{
			if (threadIdx.x == 0)
				xpu_set_status(counters, XPU_STATUS_BAD_PAGE);
			return;
		}
		/* a page holds up to 291 line pointers: more than the threads */
		for (i = threadIdx.x; i < n; i += blockDim.x)
		{
			uint32_t	lp = xpu_load_u32(page + XPU_SIZE_OF_PAGE_HEADER + 4 * i);

			if (xpu_lp_flags(lp) != XPU_LP_NORMAL)
				continue;
			atomicAdd(&counters[XPU_COUNTER_NTUPLES], 1);
			xpu_join_cursor_init(&cur, (blockIdx.x << XPU_ITEM_BLOCK_SHIFT) | (uint32_t) (i + 1));
			xpu_join_kernel_tuple(&prog, &jn, inners, page + xpu_lp_off(lp),
								  (int32_t) xpu_lp_len(lp), slots, &cur,
								  out, capacity, suspend, counters);
		}
	}
	else
	{
		uint32_t	k = blockIdx.x * blockDim.x + threadIdx.x;

		if (k >= nresume)
			return;
		cur = resume[k];
		if (!xpu_item_tuple(pages, nblocks, cur.item, &tup, &tuplen))
		{
			xpu_set_status(counters, XPU_STATUS_BAD_PAGE);
			return;
		}
		xpu_join_kernel_tuple(&prog, &jn, inners, tup, tuplen, slots, &cur,
							  out, capacity, suspend, counters);
	}
}

#endif							/* __CUDACC__ */

#endif							/* XPU_JOIN_H */
