/*-------------------------------------------------------------------------
 *
 * gpujoin_inner.c
 *		GpuJoin's inner side: each depth's inner plan is run once per
 *		execution and its tuples kept, with one key row per tuple (the key
 *		slots the device hashes, gpujoin_slots.c).  Row i of a depth is its
 *		inner plan's i-th tuple: that index is all the device returns.
 *
 * One block per depth, in local memory or, in a parallel plan, in the
 * query's DSA:
 *		uint64 offsets[nrows] | MinimalTuples (MAXALIGNed) | key rows
 *		(16-byte aligned, nrows * row_size)
 * In a parallel plan the first participant that gets here builds every
 * depth while the others wait on a condition variable, and all of them use
 * that one copy, so an index means the same row to every participant.
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
#include "utils/memutils.h"

#include "core/pg_strom.h"
#include "gpujoin/gpujoin.h"

#define KEY_ROWS_ALIGN	16

/* the inner plan's tuples of one depth, as the first pass keeps them */
typedef struct InnerTuples
{
	MemoryContext cxt;			/* the copies, until laid out */
	MinimalTuple *tuples;
	uint32		ntuples;
	uint32		cap;
	Size		tuple_bytes;
} InnerTuples;

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

/* runs depth d's inner plan: its tuples, each key's longest text */
static void
collect_tuples(GpuJoinState *gjs, int d, InnerTuples *it, uint32 *longest)
{
	PlanState  *ps = gjs->inner_ps[d];
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
static void
layout_slots(GpuJoinInner *inner, const uint32 *longest)
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

/*
 * Lays depth d's block out at blob (nrows offsets, tuples, key rows) and
 * points inner at it.
 */
static void
fill_block(GpuJoinState *gjs, int d, InnerTuples *it, char *blob,
		   Size tuples_off, Size keys_off)
{
	GpuJoinInner *inner = &gjs->inner[d];
	ExprContext *econtext = gjs->task->css.ss.ps.ps_ExprContext;
	Size		pos = 0;
	uint32		i;

	inner->tuple_offsets = (uint64 *) blob;
	inner->tuples_base = blob + tuples_off;
	inner->key_rows = blob + keys_off;
	inner->key_rows_off = keys_off;
	for (i = 0; i < it->ntuples; i++)
	{
		MinimalTuple mt = it->tuples[i];

		inner->tuple_offsets[i] = pos;
		memcpy(inner->tuples_base + pos, mt, mt->t_len);
		pos += MAXALIGN(mt->t_len);
	}
	if (inner->cpu_reason[0] != '\0')
		return;
	memset(inner->key_rows, 0, (Size) inner->nrows * inner->row_size);
	for (i = 0; i < inner->nrows; i++)
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

/* depth d: run, lay out, copy into local memory or (parallel) the DSA */
static void
build_depth(GpuJoinState *gjs, int d, dsa_pointer *dp)
{
	GpuJoinInner *inner = &gjs->inner[d];
	GpuJoinDepthInfo *dinfo = &gjs->info->depths[d];
	InnerTuples it;
	uint32		longest[GPUJOIN_MAX_SLOTS];
	Size		tuples_off,
				keys_off,
				total;
	char	   *blob;
	ListCell   *lc;
	int			k = 0;

	memset(&it, 0, sizeof(it));
	it.cxt = AllocSetContextCreate(CurrentMemoryContext, "GpuJoin inner build",
								   ALLOCSET_DEFAULT_SIZES);
	memset(longest, 0, sizeof(longest));
	memset(inner, 0, sizeof(GpuJoinInner));
	inner->nkeys = list_length(dinfo->inner_keys);
	foreach(lc, dinfo->inner_keys)
		inner->key_xtype[k++] = gpujoin_key_xtype(exprType(lfirst(lc)));
	for (k = 0; k < gjs->npayload[d]; k++)
		inner->key_xtype[inner->nkeys + k] = gjs->payload_xtype[d][k];
	inner->nslots = inner->nkeys + gjs->npayload[d];

	collect_tuples(gjs, d, &it, longest);
	inner->nrows = it.ntuples;
	layout_slots(inner, longest);

	tuples_off = MAXALIGN(sizeof(uint64) * (Size) it.ntuples);
	keys_off = TYPEALIGN(KEY_ROWS_ALIGN, tuples_off + it.tuple_bytes);
	total = keys_off + (Size) it.ntuples * inner->row_size;
	inner->bytes = total;
	if (inner->cpu_reason[0] == '\0' &&
		total > (Size) pgstrom_gpujoin_max_inner_size_kb * 1024)
		snprintf(inner->cpu_reason, sizeof(inner->cpu_reason),
				 "depth %d: %zu bytes of inner rows, above pg_strom.gpujoin_max_inner_size",
				 d + 1, total);
	/* the CPU join needs no key rows */
	if (inner->cpu_reason[0] != '\0')
		total = keys_off;

	if (dp != NULL)
	{
		*dp = dsa_allocate_extended(gjs->dsa, Max(total, 16), DSA_ALLOC_HUGE);
		blob = dsa_get_address(gjs->dsa, *dp);
	}
	else
		blob = MemoryContextAllocHuge(gjs->inner_cxt, Max(total, 16));
	fill_block(gjs, d, &it, blob, tuples_off, keys_off);
	MemoryContextDelete(it.cxt);
}

/* a waiting participant takes the builder's blocks */
static void
attach_shared_inner(GpuJoinState *gjs)
{
	GpuJoinShared *js = gjs->jshared;
	int			d;

	for (d = 0; d < gjs->info->ndepths; d++)
	{
		GpuJoinInner *inner = &gjs->inner[d];
		char	   *blob = dsa_get_address(gjs->dsa, js->blob[d]);
		Size		tuples_off = MAXALIGN(sizeof(uint64) * (Size) js->inner[d].nrows);

		*inner = js->inner[d];
		inner->tuple_offsets = (uint64 *) blob;
		inner->tuples_base = blob + tuples_off;
		inner->key_rows = blob + js->inner[d].key_rows_off;
	}
}

static void
build_parallel(GpuJoinState *gjs)
{
	GpuJoinShared *js = gjs->jshared;
	bool		builder = false;
	int			d;

	if (gjs->dsa == NULL)
		elog(ERROR, "GpuJoin: no dynamic shared memory area in a parallel plan");
	SpinLockAcquire(&js->mutex);
	if (js->build_state == GPUJOIN_BUILD_NONE)
	{
		js->build_state = GPUJOIN_BUILD_RUNNING;
		builder = true;
	}
	SpinLockRelease(&js->mutex);

	if (builder)
	{
		PG_TRY();
		{
			for (d = 0; d < gjs->info->ndepths; d++)
			{
				GpuJoinInner *inner = &gjs->inner[d];

				build_depth(gjs, d, &js->blob[d]);
				js->inner[d] = *inner;
				/* pointers mean nothing to the others: they attach */
				js->inner[d].key_rows = NULL;
				js->inner[d].tuple_offsets = NULL;
				js->inner[d].tuples_base = NULL;
			}
		}
		PG_CATCH();
		{
			SpinLockAcquire(&js->mutex);
			js->build_state = GPUJOIN_BUILD_FAILED;
			SpinLockRelease(&js->mutex);
			ConditionVariableBroadcast(&js->build_cv);
			PG_RE_THROW();
		}
		PG_END_TRY();
		SpinLockAcquire(&js->mutex);
		js->build_state = GPUJOIN_BUILD_DONE;
		SpinLockRelease(&js->mutex);
		ConditionVariableBroadcast(&js->build_cv);
		return;
	}

	ConditionVariablePrepareToSleep(&js->build_cv);
	for (;;)
	{
		int			state;

		SpinLockAcquire(&js->mutex);
		state = js->build_state;
		SpinLockRelease(&js->mutex);
		if (state == GPUJOIN_BUILD_DONE)
			break;
		if (state == GPUJOIN_BUILD_FAILED)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("GpuJoin: the participant that built the inner rows failed")));
		ConditionVariableSleep(&js->build_cv, PG_WAIT_IPC);
	}
	ConditionVariableCancelSleep();
	attach_shared_inner(gjs);
}

/*
 * The inner plans run in the query's context: what they allocate (a scan
 * descriptor) must outlive a rescan that resets inner_cxt.
 */
void
gpujoin_build_inner(GpuJoinState *gjs)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(gjs->task->css.ss.ps.state->es_query_cxt);
	int			d;

	if (gjs->jshared)
		build_parallel(gjs);
	else
	{
		for (d = 0; d < gjs->info->ndepths; d++)
			build_depth(gjs, d, NULL);
	}
	MemoryContextSwitchTo(oldcxt);
	gjs->inner_built = true;
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
