/*-------------------------------------------------------------------------
 *
 * gpujoin_inner_parallel.c
 *		GpuJoin's inner rows in a parallel plan, built by the participants
 *		together into one block per depth in the query's DSA, which every
 *		participant then reads (and the service loads once per device).
 *
 * As Parallel Hash builds its table (nodeHash.c), a Barrier orders the
 * build in phases:
 *	COLLECT		each participant attached runs the inner plan of every
 *				partial depth (a Parallel Seq Scan hands each its blocks) and
 *				of the serial depths it claims (one runner each), keeping
 *				the tuples in local memory; it publishes its share (rows,
 *				tuple bytes, each key's longest value, a key the device
 *				cannot hold) and is given its place among the depth's rows;
 *	ALLOCATE	the one elected lays each depth out (the key slots as wide
 *				as the longest value of any share), applies
 *				pg_strom.gpujoin_max_inner_size to the total and allocates
 *				the blocks;
 *	FILL		each participant copies its tuples and encodes its key rows
 *				into its place;
 *	DONE		the blocks are read-only; everyone points at them.
 * A participant that attaches late (a worker started after the others
 * finished collecting, the leader) has no share: it waits for the phase
 * it found to end, or, at DONE, just reads the blocks.  The same rows and
 * the same layout in every participant make the device's row indexes, and
 * the choice of the CPU, the same everywhere.
 *
 * A participant that raises during the build sets build_failed and
 * detaches, so that the barrier does not wait for it; the others see the
 * flag at their next phase and raise too, after a wait that lets the
 * failed participant's own error reach the client first (check_build_failed).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/parallel.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/latch.h"
#include "utils/memutils.h"

#include "core/pg_strom.h"
#include "gpujoin/gpujoin.h"

/*
 * How long a participant that sees another's failure waits before it
 * raises its own error: the leader for the failed worker's error to
 * arrive, a worker for the leader to end the query (the failed worker's
 * error, or the leader's own, aborts it and terminates the workers).
 */
#define LEADER_FAILURE_WAIT_MS	1000
#define WORKER_FAILURE_WAIT_MS	10000
#define FAILURE_WAIT_STEP_MS	10

/* this participant's share of one depth */
typedef struct ParticipantShare
{
	bool		ran;			/* this participant ran the inner plan */
	GpuJoinInnerTuples it;
	uint32		first_row;		/* its place among the depth's rows */
	Size		tuple_pos;		/* and among its tuples */
} ParticipantShare;

void
gpujoin_init_build_barrier(GpuJoinShared *js)
{
	BarrierInit(&js->build_barrier, 0);
}

/* raises if a participant failed during the build */
static void
check_build_failed(GpuJoinShared *js)
{
	bool		failed;
	int			wait_ms = (IsParallelWorker() ? WORKER_FAILURE_WAIT_MS
						   : LEADER_FAILURE_WAIT_MS);
	int			waited;

	SpinLockAcquire(&js->mutex);
	failed = js->build_failed;
	SpinLockRelease(&js->mutex);
	if (!failed)
		return;

	/*
	 * The error worth showing is the failed participant's: a worker's
	 * reaches the leader as a parallel message, thrown at the leader's next
	 * CHECK_FOR_INTERRUPTS; an error of this participant's own would compete
	 * with it.  So wait a while, then raise (nothing waits for ever).
	 */
	for (waited = 0; waited < wait_ms; waited += FAILURE_WAIT_STEP_MS)
	{
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 FAILURE_WAIT_STEP_MS, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	ereport(ERROR,
			(errcode(ERRCODE_INTERNAL_ERROR),
			 errmsg("GpuJoin: another participant failed while building the inner rows")));
}

/* true when this participant is the one to run serial depth d */
static bool
claim_serial_depth(GpuJoinShared *js, int d)
{
	GpuJoinSharedDepth *sd = &js->depth[d];
	bool		mine;

	SpinLockAcquire(&js->mutex);
	mine = !sd->serial_claimed;
	sd->serial_claimed = true;
	SpinLockRelease(&js->mutex);
	return mine;
}

/* adds this participant's share of depth d to the depth's totals */
static void
publish_share(GpuJoinState *gjs, int d, ParticipantShare *share,
			  const uint32 *longest)
{
	GpuJoinShared *js = gjs->build_js;
	GpuJoinSharedDepth *sd = &js->depth[d];
	const char *why = gjs->inner[d].cpu_reason;
	bool		too_many;
	int			k;

	SpinLockAcquire(&js->mutex);
	too_many = ((uint64) sd->inner.nrows + share->it.ntuples > PG_INT32_MAX);
	if (!too_many)
	{
		share->first_row = sd->inner.nrows;
		share->tuple_pos = sd->tuple_bytes;
		sd->inner.nrows += share->it.ntuples;
		sd->tuple_bytes += share->it.tuple_bytes;
		for (k = 0; k < GPUJOIN_MAX_SLOTS; k++)
			sd->longest[k] = Max(sd->longest[k], longest[k]);
		if (why[0] != '\0' && sd->inner.cpu_reason[0] == '\0')
			strlcpy(sd->inner.cpu_reason, why, sizeof(sd->inner.cpu_reason));
		sd->nbuilders++;
	}
	SpinLockRelease(&js->mutex);
	if (too_many)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("GpuJoin: inner relation of depth %d has more than %d rows",
						d + 1, PG_INT32_MAX)));
}

/*
 * COLLECT: this participant's shares of every depth.  The participants of
 * an inner group's build (gpujoin_inner_group.c) come from different
 * leaves' nodes, each with its own copy of the inner plans: a partial
 * depth is run from the owner's copy (which every participant has
 * initialized, and whose parallel scan hands each its blocks), never from
 * a participant's own, which would return every row again.
 */
static void
collect_shares(GpuJoinState *gjs, ParticipantShare *shares)
{
	bool		grouped = (gjs->build_js->group_owner != 0);
	int			d;

	for (d = 0; d < gjs->info->ndepths; d++)
	{
		ParticipantShare *share = &shares[d];
		uint32		longest[GPUJOIN_MAX_SLOTS];
		PlanState  *source = gjs->inner_ps[d];

		if (!gjs->info->depths[d].inner_partial)
		{
			if (!claim_serial_depth(gjs->build_js, d))
				continue;
		}
		else if (grouped)
			source = gpujoin_group_owner_inner(gjs, d);
		memset(longest, 0, sizeof(longest));
		gpujoin_start_tuples(&share->it);
		share->ran = true;
		gpujoin_collect_tuples(gjs, d, source, &share->it, longest);
		publish_share(gjs, d, share, longest);
	}
}

/* ALLOCATE (the elected participant): each depth's layout and block */
static void
allocate_blocks(GpuJoinState *gjs)
{
	GpuJoinShared *js = gjs->build_js;
	int			d;

	for (d = 0; d < gjs->info->ndepths; d++)
	{
		GpuJoinSharedDepth *sd = &js->depth[d];
		GpuJoinInner *inner = &sd->inner;
		GpuJoinInner *types = &gjs->inner[d];
		Size		size;

		/* the slot types are the plan's: as any participant set them */
		inner->nkeys = types->nkeys;
		inner->nslots = types->nslots;
		memcpy(inner->key_xtype, types->key_xtype, sizeof(inner->key_xtype));
		gpujoin_layout_slots(inner, sd->longest);
		size = gpujoin_block_size(inner, d, sd->tuple_bytes);
		sd->blob = dsa_allocate_extended(gjs->dsa, size, DSA_ALLOC_HUGE);
	}
	SpinLockAcquire(&js->mutex);
	js->laid_out = true;
	SpinLockRelease(&js->mutex);
}

/* every depth's final layout, pointed at its block in this process */
static void
point_at_blocks(GpuJoinState *gjs)
{
	GpuJoinShared *js = gjs->build_js;
	int			d;

	for (d = 0; d < gjs->info->ndepths; d++)
	{
		gjs->inner[d] = js->depth[d].inner;
		gpujoin_point_inner(&gjs->inner[d],
							dsa_get_address(gjs->dsa, js->depth[d].blob));
	}
}

/* FILL: this participant's shares into their places */
static void
fill_shares(GpuJoinState *gjs, ParticipantShare *shares)
{
	int			d;

	for (d = 0; d < gjs->info->ndepths; d++)
	{
		ParticipantShare *share = &shares[d];

		if (!share->ran)
			continue;
		gpujoin_fill_rows(gjs, d, &share->it, share->first_row,
						  share->tuple_pos);
		MemoryContextDelete(share->it.cxt);
		share->ran = false;
	}
}

/*
 * The barrier's phases from the one this participant found; every wait is
 * followed by a look at build_failed.
 */
static void
run_phases(GpuJoinState *gjs, int phase, ParticipantShare *shares)
{
	GpuJoinShared *js = gjs->build_js;
	Barrier    *barrier = &js->build_barrier;
	int			d;

	check_build_failed(js);
	for (d = 0; d < gjs->info->ndepths; d++)
		gpujoin_init_inner(gjs, d);

	if (phase == GPUJOIN_PHASE_COLLECT)
	{
		bool		elected;

		collect_shares(gjs, shares);
		elected = BarrierArriveAndWait(barrier, PG_WAIT_EXTENSION);
		check_build_failed(js);
		if (elected)
			allocate_blocks(gjs);
		phase = GPUJOIN_PHASE_ALLOCATE;
	}
	if (phase == GPUJOIN_PHASE_ALLOCATE)
	{
		BarrierArriveAndWait(barrier, PG_WAIT_EXTENSION);
		check_build_failed(js);
		phase = GPUJOIN_PHASE_FILL;
	}
	if (phase == GPUJOIN_PHASE_FILL)
	{
		point_at_blocks(gjs);
		fill_shares(gjs, shares);
		BarrierArriveAndWait(barrier, PG_WAIT_EXTENSION);
		check_build_failed(js);
	}
	point_at_blocks(gjs);
}

/*
 * The inner rows of a parallel plan, built with the other participants
 * that get here (see the head of this file).
 */
void
gpujoin_build_parallel(GpuJoinState *gjs)
{
	GpuJoinShared *js = gjs->build_js;
	ParticipantShare shares[GPUJOIN_MAX_DEPTHS];
	volatile bool attached = false;

	if (gjs->dsa == NULL)
		elog(ERROR, "GpuJoin: no dynamic shared memory area in a parallel plan");
	memset(shares, 0, sizeof(shares));
	PG_TRY();
	{
		int			phase = BarrierAttach(&js->build_barrier);

		attached = true;
		run_phases(gjs, phase, shares);
		BarrierDetach(&js->build_barrier);
		attached = false;
	}
	PG_CATCH();
	{
		if (attached)
		{
			SpinLockAcquire(&js->mutex);
			js->build_failed = true;
			SpinLockRelease(&js->mutex);
			BarrierDetach(&js->build_barrier);
		}
		PG_RE_THROW();
	}
	PG_END_TRY();
}
