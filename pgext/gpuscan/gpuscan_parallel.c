/*-------------------------------------------------------------------------
 *
 * gpuscan_parallel.c
 *		Parallel GpuScan: DSM, block distribution, shared instrumentation.
 *
 * The DSM segment of a parallel GpuScan holds a GpuScanSharedState and,
 * after it, a heap parallel scan descriptor set up exactly as a parallel
 * sequential scan does (table_parallelscan_initialize, which also
 * serializes the snapshot).  Every participant, the leader included, takes
 * blocks from it with table_block_parallelscan_nextpage, so every block
 * goes to exactly one of them.
 *
 * Each participant adds its counters to the shared sum when its scan ends
 * and when it shuts down; the leader copies the sum at shutdown, before the
 * DSM goes away, for EXPLAIN ANALYZE.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/tableam.h"
#include "access/xact.h"
#include "common/hashfn.h"
#include "miscadmin.h"
#include "utils/snapmgr.h"

#include "core/pg_strom.h"
#include "gpuscan/gpuscan.h"

/*
 * The query-buffer key of the service: the same for every participant of
 * one execution of this plan node.
 */
static uint64 plan_id_counter = 0;

uint64
gpuscan_make_plan_id(GpuScanState *gss)
{
	uint64		h;

	if (gss->shared)
		return gss->shared->plan_id;
	h = hash_bytes_uint32_extended((uint32) MyProcPid,
								   (uint64) GetCurrentStatementStartTimestamp());
	h = hash_combine64(h, (uint64) gss->css.ss.ps.plan->plan_node_id);
	h = hash_combine64(h, (uint64) GetCurrentTransactionStartTimestamp());
	/*
	 * Two executions in one backend (a rescan, a function running the same
	 * query twice in one statement, two open cursors) must never share a
	 * GpuPreAgg device table: every call gets a new id.
	 */
	h = hash_combine64(h, ++plan_id_counter);
	return h;
}

Size
gpuscan_estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	GpuScanState *gss = (GpuScanState *) node;

	return add_size(GPUSCAN_SHARED_PSCAN_OFFSET,
					table_parallelscan_estimate(gss->rel,
												node->ss.ps.state->es_snapshot));
}

void
gpuscan_initialize_dsm(CustomScanState *node, ParallelContext *pcxt,
					   void *coordinate)
{
	GpuScanState *gss = (GpuScanState *) node;
	GpuScanSharedState *shared = (GpuScanSharedState *) coordinate;
	ParallelTableScanDesc pscan;

	memset(shared, 0, sizeof(GpuScanSharedState));
	SpinLockInit(&shared->mutex);
	gss->shared = NULL;
	shared->plan_id = gpuscan_make_plan_id(gss);

	pscan = (ParallelTableScanDesc) ((char *) coordinate +
									 GPUSCAN_SHARED_PSCAN_OFFSET);
	table_parallelscan_initialize(gss->rel, pscan,
								  node->ss.ps.state->es_snapshot);
	gss->shared = shared;
	gss->pscan = (ParallelBlockTableScanDesc) pscan;
	gss->pscan_inited = false;
	/* the leader scans with its own snapshot, which is the one serialized */
	gss->snapshot = node->ss.ps.state->es_snapshot;
}

void
gpuscan_reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt,
						 void *coordinate)
{
	GpuScanState *gss = (GpuScanState *) node;
	ParallelTableScanDesc pscan;

	pscan = (ParallelTableScanDesc) ((char *) coordinate +
									 GPUSCAN_SHARED_PSCAN_OFFSET);
	table_parallelscan_reinitialize(gss->rel, pscan);
	gss->pscan_inited = false;
}

void
gpuscan_initialize_worker(CustomScanState *node, shm_toc *toc,
						  void *coordinate)
{
	GpuScanState *gss = (GpuScanState *) node;
	ParallelTableScanDesc pscan;

	pscan = (ParallelTableScanDesc) ((char *) coordinate +
									 GPUSCAN_SHARED_PSCAN_OFFSET);
	gss->shared = (GpuScanSharedState *) coordinate;
	gss->pscan = (ParallelBlockTableScanDesc) pscan;
	gss->pscan_inited = false;

	/* as table_beginscan_parallel() */
	if (!pscan->phs_snapshot_any)
	{
		gss->snapshot = RestoreSnapshot((char *) pscan + pscan->phs_snapshot_off);
		gss->snapshot = RegisterSnapshot(gss->snapshot);
		gss->snapshot_registered = true;
	}
	else
		gss->snapshot = SnapshotAny;
}

static void
counters_add(GpuScanCounters *dst, const GpuScanCounters *a,
			 const GpuScanCounters *b, int sign)
{
	dst->nchunks += sign * (int64) (a->nchunks - b->nchunks);
	dst->npages += sign * (int64) (a->npages - b->npages);
	dst->nrows_in += sign * (int64) (a->nrows_in - b->nrows_in);
	dst->nrows_out += sign * (int64) (a->nrows_out - b->nrows_out);
	dst->nrecheck += sign * (int64) (a->nrecheck - b->nrecheck);
	dst->gpu_time_ns += sign * (int64) (a->gpu_time_ns - b->gpu_time_ns);
	dst->ngroups_gpu += sign * (int64) (a->ngroups_gpu - b->ngroups_gpu);
	dst->ngroups_cpu += sign * (int64) (a->ngroups_cpu - b->ngroups_cpu);
	dst->ngrowths += sign * (int64) (a->ngrowths - b->ngrowths);
	dst->nflushes += sign * (int64) (a->nflushes - b->nflushes);
}

/* adds what this participant counted since the last call to the sum */
void
gpuscan_publish_counters(GpuScanState *gss)
{
	GpuScanSharedState *shared = gss->shared;

	if (shared == NULL)
		return;
	SpinLockAcquire(&shared->mutex);
	counters_add(&shared->counters, &gss->counters, &gss->published, 1);
	if (gss->cpu_reason[0] != '\0' && !gss->reason_published)
	{
		if (shared->cpu_reason[0] == '\0')
			strlcpy(shared->cpu_reason, gss->cpu_reason,
					sizeof(shared->cpu_reason));
		gss->reason_published = true;
	}
	SpinLockRelease(&shared->mutex);
	gss->published = gss->counters;
}

void
gpuscan_shutdown(CustomScanState *node)
{
	GpuScanState *gss = (GpuScanState *) node;
	GpuScanSharedState *shared = gss->shared;

	if (shared == NULL)
		return;
	gpuscan_publish_counters(gss);
	if (!IsParallelWorker())
	{
		/* the DSM is about to go away: keep the sum for EXPLAIN */
		SpinLockAcquire(&shared->mutex);
		gss->totals = shared->counters;
		if (gss->cpu_reason[0] == '\0' && shared->cpu_reason[0] != '\0')
			strlcpy(gss->cpu_reason, shared->cpu_reason,
					sizeof(gss->cpu_reason));
		SpinLockRelease(&shared->mutex);
		gss->have_totals = true;
	}
	gss->shared = NULL;
	gss->pscan = NULL;
}
