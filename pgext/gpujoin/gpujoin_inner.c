/*-------------------------------------------------------------------------
 *
 * gpujoin_inner.c
 *		GpuJoin's inner side: each depth's inner plan is run once per
 *		execution and its tuples kept, with one key row per tuple (the key
 *		slots the device hashes, gpujoin_slots.c).  Row i of a depth is its
 *		i-th kept tuple: that index is all the device returns.
 *
 * One block per depth, in local memory or, in a parallel plan, in the
 * query's DSA:
 *		uint64 offsets[nrows] | MinimalTuples (MAXALIGNed) | key rows
 *		(16-byte aligned, nrows * row_size)
 * In a parallel plan the participants build the blocks together
 * (gpujoin_inner_parallel.c) and all of them use that one copy, so an
 * index means the same row to every participant.
 *
 * The node runs on the CPU (cpu_reason) when a depth holds a key value
 * the device cannot hold, or is larger than pg_strom.gpujoin_max_inner_size;
 * the tuples are kept all the same, since the CPU join reads them.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "pgstat.h"
#include "portability/instr_time.h"
#include "utils/memutils.h"

#include "core/pg_strom.h"
#include "gpujoin/gpujoin.h"

#define KEY_ROWS_ALIGN	16

/* the values of depth d's slots: its keys, then its payload columns */
static void
eval_inner_slots(GpuJoinState *gjs, int d, Datum *values, bool *isnull)
{
	ExprContext *econtext = gjs->task->css.ss.ps.ps_ExprContext;
	int			nkeys = list_length(gjs->info->depths[d].inner_keys);
	int			k;

	econtext->ecxt_innertuple = gjs->inner_slot[d];
	for (k = 0; k < nkeys; k++)
		values[k] = ExecEvalExpr(gjs->inner_key_state[d][k], econtext, &isnull[k]);
	for (k = 0; k < gjs->npayload[d]; k++)
		values[nkeys + k] = slot_getattr(gjs->inner_slot[d],
										 gjs->payload_resno[d][k],
										 &isnull[nkeys + k]);
}

/*
 * Runs depth d's inner plan ps (the node's own, or in an inner group the
 * owner's copy of it): its tuples, each key's longest text (or
 * inner->cpu_reason).
 */
void
gpujoin_collect_tuples(GpuJoinState *gjs, int d, PlanState *ps,
					   GpuJoinInnerTuples *it, uint32 *longest)
{
	GpuJoinInner *inner = &gjs->inner[d];
	ExprContext *econtext = gjs->task->css.ss.ps.ps_ExprContext;
	Datum		values[GPUJOIN_MAX_SLOTS];
	bool		isnull[GPUJOIN_MAX_SLOTS];

	for (;;)
	{
		TupleTableSlot *slot = ExecProcNode(ps);
		MemoryContext oldcxt;
		MinimalTuple mt;
		int			k;

		if (TupIsNull(slot))
			break;
		CHECK_FOR_INTERRUPTS();
		if (it->ntuples == PG_INT32_MAX)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("GpuJoin: inner relation of depth %d has more than %d rows",
							d + 1, PG_INT32_MAX)));
		oldcxt = MemoryContextSwitchTo(it->cxt);
		mt = ExecCopySlotMinimalTuple(slot);
		MemoryContextSwitchTo(oldcxt);
		if (it->ntuples == it->cap)
		{
			it->cap = Max(1024, it->cap * 2);
			it->tuples = it->tuples ?
				repalloc_huge(it->tuples, sizeof(MinimalTuple) * it->cap) :
				MemoryContextAllocHuge(it->cxt, sizeof(MinimalTuple) * it->cap);
		}
		it->tuples[it->ntuples++] = mt;
		it->tuple_bytes += MAXALIGN(mt->t_len);

		if (inner->cpu_reason[0] != '\0')
			continue;
		ResetExprContext(econtext);
		ExecStoreMinimalTuple(mt, gjs->inner_slot[d], false);
		eval_inner_slots(gjs, d, values, isnull);
		for (k = 0; k < inner->nslots; k++)
		{
			uint32		len;
			const char *why;

			if (isnull[k])
				continue;
			if (!gpujoin_slot_length(inner->key_xtype[k], values[k], &len, &why))
			{
				snprintf(inner->cpu_reason, sizeof(inner->cpu_reason),
						 "depth %d: %s", d + 1, why);
				break;
			}
			longest[k] = Max(longest[k], len);
		}
		ExecClearTuple(gjs->inner_slot[d]);
	}
}

/* each key's slot: offsets in key order, widths by type */
void
gpujoin_layout_slots(GpuJoinInner *inner, const uint32 *longest)
{
	uint32		off = 0;
	int			k;

	for (k = 0; k < inner->nslots; k++)
	{
		int			xt = inner->key_xtype[k];
		uint32		width = 16;

		if (xt == XPU_TYPE_NUMERIC)
			width = 32;
		else if (xt == XPU_TYPE_TEXT || xt == XPU_TYPE_VARCHAR ||
				 xt == XPU_TYPE_BPCHAR)
			width = gpujoin_text_slot_width(longest[k]);
		inner->key_offset[k] = off;
		inner->key_width[k] = width;
		off += width;
	}
	inner->row_size = Max(16, TYPEALIGN(16, off));
}

/* depth d's slot types, before its tuples are collected */
void
gpujoin_init_inner(GpuJoinState *gjs, int d)
{
	GpuJoinInner *inner = &gjs->inner[d];
	ListCell   *lc;
	int			k = 0;

	memset(inner, 0, sizeof(GpuJoinInner));
	inner->nkeys = list_length(gjs->info->depths[d].inner_keys);
	foreach(lc, gjs->info->depths[d].inner_keys)
		inner->key_xtype[k++] = gpujoin_key_xtype(exprType(lfirst(lc)));
	for (k = 0; k < gjs->npayload[d]; k++)
		inner->key_xtype[inner->nkeys + k] = gjs->payload_xtype[d][k];
	inner->nslots = inner->nkeys + gjs->npayload[d];
}

/*
 * The block of depth d for nrows rows whose tuples take tuple_bytes (the
 * slots laid out already): sets inner->bytes, key_rows_off and, above
 * pg_strom.gpujoin_max_inner_size, cpu_reason; returns the bytes to
 * allocate (no key rows for the CPU join).
 */
Size
gpujoin_block_size(GpuJoinInner *inner, int d, Size tuple_bytes)
{
	Size		tuples_off = MAXALIGN(sizeof(uint64) * (Size) inner->nrows);
	Size		keys_off = TYPEALIGN(KEY_ROWS_ALIGN, tuples_off + tuple_bytes);
	Size		total = keys_off + (Size) inner->nrows * inner->row_size;

	inner->bytes = total;
	inner->key_rows_off = keys_off;
	if (inner->cpu_reason[0] == '\0' &&
		total > (Size) pgstrom_gpujoin_max_inner_size_kb * 1024)
		snprintf(inner->cpu_reason, sizeof(inner->cpu_reason),
				 "depth %d: %zu bytes of inner rows, above pg_strom.gpujoin_max_inner_size",
				 d + 1, total);
	if (inner->cpu_reason[0] != '\0')
		return Max(keys_off, 16);
	return Max(total, 16);
}

/* points depth d's inner at its block */
void
gpujoin_point_inner(GpuJoinInner *inner, char *blob)
{
	inner->tuple_offsets = (uint64 *) blob;
	inner->tuples_base = blob + MAXALIGN(sizeof(uint64) * (Size) inner->nrows);
	inner->key_rows = blob + inner->key_rows_off;
}

/*
 * Writes the collected tuples it of depth d as rows first_row... of its
 * block (pointed at already), their tuples from tuple_pos, and their key
 * rows unless the depth goes to the CPU.
 */
void
gpujoin_fill_rows(GpuJoinState *gjs, int d, GpuJoinInnerTuples *it,
				  uint32 first_row, Size tuple_pos)
{
	GpuJoinInner *inner = &gjs->inner[d];
	ExprContext *econtext = gjs->task->css.ss.ps.ps_ExprContext;
	Size		pos = tuple_pos;
	uint32		i;

	Assert((uint64) first_row + it->ntuples <= inner->nrows);
	for (i = 0; i < it->ntuples; i++)
	{
		MinimalTuple mt = it->tuples[i];

		inner->tuple_offsets[first_row + i] = pos;
		memcpy(inner->tuples_base + pos, mt, mt->t_len);
		pos += MAXALIGN(mt->t_len);
	}
	if (inner->cpu_reason[0] != '\0' || it->ntuples == 0)
		return;
	memset(inner->key_rows + (Size) first_row * inner->row_size, 0,
		   (Size) it->ntuples * inner->row_size);
	for (i = first_row; i < first_row + it->ntuples; i++)
	{
		char	   *row = inner->key_rows + (Size) i * inner->row_size;
		Datum		values[GPUJOIN_MAX_SLOTS];
		bool		isnull[GPUJOIN_MAX_SLOTS];
		int			k;

		ResetExprContext(econtext);
		gpujoin_inner_tuple(gjs, d, i);
		eval_inner_slots(gjs, d, values, isnull);
		for (k = 0; k < inner->nslots; k++)
			gpujoin_encode_slot(row + inner->key_offset[k], inner->key_width[k],
								inner->key_xtype[k], values[k], isnull[k]);
	}
	ExecClearTuple(gjs->inner_slot[d]);
}

/* a collection of depth d's tuples, in a context of its own */
void
gpujoin_start_tuples(GpuJoinInnerTuples *it)
{
	memset(it, 0, sizeof(GpuJoinInnerTuples));
	it->cxt = AllocSetContextCreate(CurrentMemoryContext, "GpuJoin inner build",
									ALLOCSET_DEFAULT_SIZES);
}

/* depth d of a serial plan: run, lay out, keep in local memory */
static void
build_depth(GpuJoinState *gjs, int d)
{
	GpuJoinInner *inner = &gjs->inner[d];
	GpuJoinInnerTuples it;
	uint32		longest[GPUJOIN_MAX_SLOTS];
	char	   *blob;

	gpujoin_start_tuples(&it);
	memset(longest, 0, sizeof(longest));
	gpujoin_init_inner(gjs, d);
	gpujoin_collect_tuples(gjs, d, gjs->inner_ps[d], &it, longest);
	inner->nrows = it.ntuples;
	gpujoin_layout_slots(inner, longest);
	blob = MemoryContextAllocHuge(gjs->inner_cxt,
								  gpujoin_block_size(inner, d, it.tuple_bytes));
	gpujoin_point_inner(inner, blob);
	gpujoin_fill_rows(gjs, d, &it, 0, 0);
	MemoryContextDelete(it.cxt);
}

/*
 * The inner plans run in the query's context: what they allocate (a scan
 * descriptor) must outlive a rescan that resets inner_cxt.  The leaves of
 * a partitioned outer side build once for all (gpujoin_inner_group.c).
 */
void
gpujoin_build_inner(GpuJoinState *gjs)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(gjs->task->css.ss.ps.state->es_query_cxt);
	instr_time	start,
				elapsed;
	uint64		ns;
	int			d;

	INSTR_TIME_SET_CURRENT(start);
	if (gjs->jshared)
	{
		gjs->build_js = gpujoin_group_build_shared(gjs);
		gpujoin_build_parallel(gjs);
	}
	else if (!gpujoin_group_borrow(gjs))
	{
		gpujoin_group_rewind_plans(gjs);
		for (d = 0; d < gjs->info->ndepths; d++)
			build_depth(gjs, d);
		gpujoin_group_lend(gjs);
	}
	MemoryContextSwitchTo(oldcxt);
	gjs->inner_built = true;
	gjs->inner_key = gpujoin_group_inner_key(gjs);

	INSTR_TIME_SET_CURRENT(elapsed);
	INSTR_TIME_SUBTRACT(elapsed, start);
	ns = (uint64) INSTR_TIME_GET_MICROSEC(elapsed) * 1000;
	gjs->host_build_ns = Max(gjs->host_build_ns, ns);
	if (gjs->jshared)
	{
		SpinLockAcquire(&gjs->jshared->mutex);
		gjs->jshared->host_build_ns = Max(gjs->jshared->host_build_ns, ns);
		SpinLockRelease(&gjs->jshared->mutex);
	}
}

/*
 * Before the scan: an INNER or SEMI depth without inner rows matches no
 * outer row, so the scan gts would run (the join's own, or the fused
 * GpuPreAgg's) is not run at all, as PostgreSQL's hash join skips its
 * outer side over an empty hash table.  Every participant of a parallel
 * plan has the same rows, so all of them skip.  Likewise a partition whose
 * rows no inner key can match (gpujoin_prune.c).
 */
void
gpujoin_skip_if_empty(GpuJoinState *gjs, GpuTaskState *gts)
{
	int			d;

	if (gts->mode != GPU_TASK_MODE_INIT || gts->empty_inner)
		return;
	for (d = 0; d < gjs->info->ndepths; d++)
	{
		JoinType	jt = gjs->info->depths[d].join_type;

		if (gjs->inner[d].nrows == 0 && (jt == JOIN_INNER || jt == JOIN_SEMI))
		{
			gts->empty_inner = true;
			gts->counters.nempty_inner++;
			return;
		}
	}
	if (gpujoin_keys_exclude_partition(gjs, gts->rel))
	{
		gts->empty_inner = true;
		gts->counters.nkeys_pruned++;
	}
}

/* forgets the inner rows and CPU hashes (a rescan that rebuilds them) */
void
gpujoin_release_inner(GpuJoinState *gjs)
{
	int			d;

	for (d = 0; d < gjs->info->ndepths; d++)
		ExecClearTuple(gjs->inner_slot[d]);
	MemoryContextReset(gjs->inner_cxt);
	memset(gjs->inner, 0, sizeof(gjs->inner));
	memset(gjs->cpu_hash, 0, sizeof(gjs->cpu_hash));
	gjs->inner_built = false;
	gjs->inner_key = 0;
}

/* inner row `row` of depth d, in the depth's inner slot */
void
gpujoin_inner_tuple(GpuJoinState *gjs, int depth, uint32 row)
{
	GpuJoinInner *inner = &gjs->inner[depth];

	Assert(row < inner->nrows);
	ExecStoreMinimalTuple((MinimalTuple) (inner->tuples_base +
										  inner->tuple_offsets[row]),
						  gjs->inner_slot[depth], false);
}

/* why the device cannot take the inner rows, NULL if it can */
const char *
gpujoin_inner_cpu_reason(GpuJoinState *gjs)
{
	int			d;

	for (d = 0; d < gjs->info->ndepths; d++)
	{
		if (gjs->inner[d].cpu_reason[0] != '\0')
			return gjs->inner[d].cpu_reason;
	}
	return NULL;
}
