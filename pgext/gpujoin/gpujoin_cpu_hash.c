/*-------------------------------------------------------------------------
 *
 * gpujoin_cpu_hash.c
 *		The hash index of one depth's inner rows for the CPU hash join
 *		(gpujoin_cpu.c), built the first time a row needs it.
 *
 * Keys are hashed with the equality operator's own hash functions
 * (get_op_hash_functions, as nodeHash does); a row with a NULL key is in
 * no chain.
 *
 * In a parallel plan every participant reads the same inner rows from the
 * query's DSA (gpujoin_inner_parallel.c), so the index is built there
 * once, by the participants together, as Parallel Hash inserts into its
 * shared table: the first to need it allocates it, and each that needs it
 * claims batches of rows until none is left, inserts them with a
 * compare-and-swap on the bucket's head, and waits until every claimed
 * batch is in.  A participant that claimed a batch finishes it before it
 * waits for anything, so no wait depends on one that is waiting; one that
 * fails aborts the query, which ends the others' waits.  When the DSA has
 * no room for the index, each participant builds its own, as in a serial
 * plan.  The order of a chain is then not row order: nothing depends on
 * it (an outer row's matches are a set, and SEMI/ANTI need any one).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "utils/memutils.h"

#include "gpujoin/gpujoin.h"

/* rows a participant claims at a time */
#define CPU_HASH_BATCH_ROWS		8192

/* hash of the keys, false if one is NULL */
bool
gpujoin_hash_keys(GpuJoinState *gjs, int d, FmgrInfo *fns, const Datum *values,
				  const bool *isnull, uint32 *hash)
{
	int			nkeys = list_length(gjs->info->depths[d].inner_keys);
	uint32		h = 0;
	int			k;

	for (k = 0; k < nkeys; k++)
	{
		if (isnull[k])
			return false;
		h = hash_combine(h, DatumGetUInt32(FunctionCall1Coll(&fns[k], gjs->collid[d][k],
															 values[k])));
	}
	*hash = h;
	return true;
}

void
gpujoin_eval_keys(GpuJoinState *gjs, ExprState **states, int nkeys,
				  Datum *values, bool *isnull)
{
	ExprContext *econtext = gjs->task->css.ss.ps.ps_ExprContext;
	int			k;

	for (k = 0; k < nkeys; k++)
		values[k] = ExecEvalExpr(states[k], econtext, &isnull[k]);
}

/* the hash of inner row `row` of depth d, false if a key is NULL */
static bool
inner_row_hash(GpuJoinState *gjs, int d, uint32 row, uint32 *hash)
{
	ExprContext *econtext = gjs->task->css.ss.ps.ps_ExprContext;
	int			nkeys = list_length(gjs->info->depths[d].inner_keys);
	Datum		values[GPUJOIN_MAX_KEYS];
	bool		isnull[GPUJOIN_MAX_KEYS];

	ResetExprContext(econtext);
	gpujoin_inner_tuple(gjs, d, row);
	econtext->ecxt_innertuple = gjs->inner_slot[d];
	gpujoin_eval_keys(gjs, gjs->inner_key_state[d], nkeys, values, isnull);
	return gpujoin_hash_keys(gjs, d, gjs->inner_hash_fn[d], values, isnull, hash);
}

static uint32
bucket_count(uint32 nrows)
{
	uint32		nbuckets = 1;

	while (nbuckets < nrows && nbuckets < (1U << 30))
		nbuckets <<= 1;
	return nbuckets;
}

/* bytes of an index: the buckets, then next[] and hashes[] */
static Size
index_size(uint32 nbuckets, uint32 nrows)
{
	return MAXALIGN(sizeof(pg_atomic_uint32) * (Size) nbuckets) +
		2 * MAXALIGN(sizeof(uint32) * (Size) Max(nrows, 1));
}

/* h's arrays in the index at base, its buckets empty when init */
static void
point_index(GpuJoinCpuHash *h, char *base, uint32 nbuckets, uint32 nrows,
			bool init)
{
	uint32		b;

	h->buckets = (pg_atomic_uint32 *) base;
	base += MAXALIGN(sizeof(pg_atomic_uint32) * (Size) nbuckets);
	h->next = (uint32 *) base;
	base += MAXALIGN(sizeof(uint32) * (Size) Max(nrows, 1));
	h->hashes = (uint32 *) base;
	if (init)
	{
		for (b = 0; b < nbuckets; b++)
			pg_atomic_init_u32(&h->buckets[b], 0);
	}
	h->nbuckets = nbuckets;
}

/* local memory: the rows pushed in reverse, so chains list them in order */
static void
build_local(GpuJoinState *gjs, int d)
{
	GpuJoinCpuHash *h = &gjs->cpu_hash[d];
	uint32		nrows = gjs->inner[d].nrows;
	uint32		nbuckets = bucket_count(nrows);
	uint32		i;

	point_index(h, MemoryContextAllocHuge(gjs->inner_cxt, index_size(nbuckets, nrows)),
				nbuckets, nrows, true);
	for (i = nrows; i-- > 0;)
	{
		pg_atomic_uint32 *bucket;
		uint32		hash;

		CHECK_FOR_INTERRUPTS();
		if (!inner_row_hash(gjs, d, i, &hash))
			continue;
		bucket = &h->buckets[hash & (nbuckets - 1)];
		h->hashes[i] = hash;
		h->next[i] = pg_atomic_read_u32(bucket);
		pg_atomic_write_u32(bucket, i + 1);
	}
	ExecClearTuple(gjs->inner_slot[d]);
}

/* inserts rows first..last - 1 into the shared index h */
static void
insert_batch(GpuJoinState *gjs, int d, GpuJoinCpuHash *h, uint32 first,
			 uint32 last)
{
	uint32		i;

	for (i = first; i < last; i++)
	{
		pg_atomic_uint32 *bucket;
		uint32		head;
		uint32		hash;

		CHECK_FOR_INTERRUPTS();
		if (!inner_row_hash(gjs, d, i, &hash))
			continue;
		bucket = &h->buckets[hash & (h->nbuckets - 1)];
		h->hashes[i] = hash;
		head = pg_atomic_read_u32(bucket);
		do
		{
			h->next[i] = head;
		} while (!pg_atomic_compare_exchange_u32(bucket, &head, i + 1));
	}
}

/* the state of sh once it is no longer ALLOCATING */
static int
wait_allocated(GpuJoinShared *js, GpuJoinSharedCpuHash *sh)
{
	int			state;

	ConditionVariablePrepareToSleep(&sh->cv);
	for (;;)
	{
		SpinLockAcquire(&js->mutex);
		state = sh->state;
		SpinLockRelease(&js->mutex);
		if (state != GPUJOIN_CPU_HASH_ALLOCATING)
			break;
		ConditionVariableSleep(&sh->cv, PG_WAIT_EXTENSION);
	}
	ConditionVariableCancelSleep();
	return state;
}

/* the elected participant: the index in the DSA, or LOCAL without room */
static int
allocate_shared(GpuJoinState *gjs, int d, GpuJoinSharedCpuHash *sh)
{
	GpuJoinShared *js = gjs->build_js;
	uint32		nrows = gjs->inner[d].nrows;
	uint32		nbuckets = bucket_count(nrows);
	dsa_pointer index;
	int			state = GPUJOIN_CPU_HASH_LOCAL;

	index = dsa_allocate_extended(gjs->dsa, index_size(nbuckets, nrows),
								  DSA_ALLOC_HUGE | DSA_ALLOC_NO_OOM);
	if (DsaPointerIsValid(index))
	{
		GpuJoinCpuHash h;

		point_index(&h, dsa_get_address(gjs->dsa, index), nbuckets, nrows, true);
		state = GPUJOIN_CPU_HASH_BUILDING;
	}
	SpinLockAcquire(&js->mutex);
	sh->index = index;
	sh->nbuckets = nbuckets;
	sh->state = state;
	SpinLockRelease(&js->mutex);
	ConditionVariableBroadcast(&sh->cv);
	return state;
}

/* this participant's part of the shared build, and the wait for the rest */
static void
build_shared(GpuJoinState *gjs, int d)
{
	GpuJoinShared *js = gjs->build_js;
	GpuJoinSharedCpuHash *sh = &js->depth[d].cpu_hash;
	GpuJoinCpuHash *h = &gjs->cpu_hash[d];
	uint64		nrows = gjs->inner[d].nrows;
	bool		elected;
	int			state;

	SpinLockAcquire(&js->mutex);
	elected = (sh->state == GPUJOIN_CPU_HASH_NONE);
	if (elected)
		sh->state = GPUJOIN_CPU_HASH_ALLOCATING;
	sh->users++;
	SpinLockRelease(&js->mutex);
	state = elected ? allocate_shared(gjs, d, sh) : wait_allocated(js, sh);
	if (state == GPUJOIN_CPU_HASH_LOCAL)
	{
		build_local(gjs, d);
		return;
	}
	point_index(h, dsa_get_address(gjs->dsa, sh->index), sh->nbuckets,
				(uint32) nrows, false);

	for (;;)
	{
		uint64		first = pg_atomic_fetch_add_u64(&sh->next_row, CPU_HASH_BATCH_ROWS);
		uint64		last = Min(first + CPU_HASH_BATCH_ROWS, nrows);

		if (first >= nrows)
			break;
		insert_batch(gjs, d, h, (uint32) first, (uint32) last);
		if (pg_atomic_add_fetch_u64(&sh->rows_done, last - first) == nrows)
			ConditionVariableBroadcast(&sh->cv);
	}
	ExecClearTuple(gjs->inner_slot[d]);

	ConditionVariablePrepareToSleep(&sh->cv);
	while (pg_atomic_read_u64(&sh->rows_done) < nrows)
		ConditionVariableSleep(&sh->cv, PG_WAIT_EXTENSION);
	ConditionVariableCancelSleep();
	/* the other participants' next[] and hashes[] before reading them */
	pg_read_barrier();
}

/*
 * Depth d's index in gjs->cpu_hash[d]: shared when the rows are the
 * parallel plan's shared block.
 */
void
gpujoin_cpu_hash_build(GpuJoinState *gjs, int d)
{
	if (gjs->jshared != NULL && gjs->build_js != NULL && gjs->inner[d].nrows > 0)
		build_shared(gjs, d);
	else
		build_local(gjs, d);
}

/* every depth's shared index state, empty (js zeroed before) */
void
gpujoin_init_shared_cpu_hashes(GpuJoinShared *js)
{
	int			d;

	for (d = 0; d < GPUJOIN_MAX_DEPTHS; d++)
	{
		GpuJoinSharedCpuHash *sh = &js->depth[d].cpu_hash;

		sh->state = GPUJOIN_CPU_HASH_NONE;
		sh->index = InvalidDsaPointer;
		sh->users = 0;
		pg_atomic_init_u64(&sh->next_row, 0);
		pg_atomic_init_u64(&sh->rows_done, 0);
		ConditionVariableInit(&sh->cv);
	}
}

/* frees the shared indexes of js (no participant runs) */
void
gpujoin_free_shared_cpu_hashes(GpuJoinState *gjs, GpuJoinShared *js)
{
	int			d;

	for (d = 0; d < GPUJOIN_MAX_DEPTHS; d++)
	{
		GpuJoinSharedCpuHash *sh = &js->depth[d].cpu_hash;

		if (DsaPointerIsValid(sh->index))
			dsa_free(gjs->dsa, sh->index);
		sh->index = InvalidDsaPointer;
	}
}
