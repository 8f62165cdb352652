/*-------------------------------------------------------------------------
 *
 * task_parallel.c
 *		Parallel GPU nodes: DSM, block distribution, shared state and
 *		instrumentation.
 *
 * The DSM segment of a parallel GPU node holds a GpuTaskShared and,
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
#include "miscadmin.h"
#include "utils/snapmgr.h"

#include "core/pg_strom.h"
#include "runtime/gpu_task.h"

/*
 * The query-buffer key of the service: the same for every participant of
 * one execution of this plan node, and nothing any other process can
 * derive.  A query buffer (a GpuJoin's inner tables, a GpuPreAgg's device
 * table) is found by this key alone, so the key is the secret that lets a
 * session attach to or collect it: 64 random bits made by the leader (or
 * the serial backend) and handed to its workers through the DSM.  Every
 * execution gets a new one, so two executions in one backend (a rescan, a
 * function running the same query twice, two open cursors) never share a
 * buffer.
 */
uint64
gpu_task_make_plan_id(GpuTaskState *gts)
{
	if (gts->shared)
		return gts->shared->plan_id;
	return gpu_task_random_plan_id();
}

uint64
gpu_task_random_plan_id(void)
{
	uint64		key = 0;

	/* 0 is what a zeroed (never set) key would read */
	while (key == 0)
	{
		if (!pg_strong_random(&key, sizeof(key)))
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("could not generate a random query buffer key for a GPU node")));
	}
	return key;
}

/* the parallel scan descriptor that follows GpuTaskShared in the DSM */
static void
attach_shared(GpuTaskState *gts, void *coordinate)
{
	gts->shared = (GpuTaskShared *) coordinate;
	gts->pscan = (ParallelBlockTableScanDesc)
		((char *) coordinate + GPU_TASK_SHARED_PSCAN_OFFSET);
	gts->pscan_inited = false;
}

Size
gpu_task_estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	GpuTaskState *gts = (GpuTaskState *) node;

	return add_size(GPU_TASK_SHARED_PSCAN_OFFSET,
					table_parallelscan_estimate(gts->rel,
												node->ss.ps.state->es_snapshot));
}

void
gpu_task_initialize_dsm(CustomScanState *node, ParallelContext *pcxt,
					   void *coordinate)
{
	GpuTaskState *gts = (GpuTaskState *) node;
	GpuTaskShared *shared = (GpuTaskShared *) coordinate;

	memset(shared, 0, sizeof(GpuTaskShared));
	SpinLockInit(&shared->mutex);
	ConditionVariableInit(&shared->collect_cv);
	gts->shared = NULL;
	shared->plan_id = gpu_task_make_plan_id(gts);
	shared->nparticipants = pcxt->nworkers + 1;

	attach_shared(gts, coordinate);
	table_parallelscan_initialize(gts->rel, (ParallelTableScanDesc) gts->pscan,
								  node->ss.ps.state->es_snapshot);
	/* the leader scans with its own snapshot, which is the one serialized */
	gts->snapshot = node->ss.ps.state->es_snapshot;
}

void
gpu_task_reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt,
						 void *coordinate)
{
	GpuTaskState *gts = (GpuTaskState *) node;
	GpuTaskShared *shared = (GpuTaskShared *) coordinate;
	uint64		plan_id;

	attach_shared(gts, coordinate);
	table_parallelscan_reinitialize(gts->rel, (ParallelTableScanDesc) gts->pscan);
	/* made before the spinlock: making it may raise an error */
	plan_id = gpu_task_random_plan_id();
	/* the workers of the new run join new query buffers */
	SpinLockAcquire(&shared->mutex);
	shared->plan_id = plan_id;
	shared->nactive = 0;
	shared->closed = false;
	shared->collect_done = false;
	shared->delivered_pid = 0;
	shared->tainted = false;
	SpinLockRelease(&shared->mutex);
}

void
gpu_task_initialize_worker(CustomScanState *node, shm_toc *toc,
						  void *coordinate)
{
	GpuTaskState *gts = (GpuTaskState *) node;
	ParallelTableScanDesc pscan;

	attach_shared(gts, coordinate);
	pscan = (ParallelTableScanDesc) gts->pscan;

	/* as table_beginscan_parallel() */
	if (!pscan->phs_snapshot_any)
	{
		gts->snapshot = RestoreSnapshot((char *) pscan + pscan->phs_snapshot_off);
		gts->snapshot = RegisterSnapshot(gts->snapshot);
		gts->snapshot_registered = true;
	}
	else
		gts->snapshot = SnapshotAny;
}

static void
counters_add(GpuTaskCounters *dst, const GpuTaskCounters *a,
			 const GpuTaskCounters *b, int sign)
{
	int			i;

	dst->nchunks += sign * (int64) (a->nchunks - b->nchunks);
	dst->npages += sign * (int64) (a->npages - b->npages);
	dst->npages_zero_copy += sign * (int64) (a->npages_zero_copy - b->npages_zero_copy);
	dst->nrows_in += sign * (int64) (a->nrows_in - b->nrows_in);
	dst->nrows_out += sign * (int64) (a->nrows_out - b->nrows_out);
	dst->nrecheck += sign * (int64) (a->nrecheck - b->nrecheck);
	dst->gpu_time_ns += sign * (int64) (a->gpu_time_ns - b->gpu_time_ns);
	dst->npages_redone += sign * (int64) (a->npages_redone - b->npages_redone);
	dst->npages_direct += sign * (int64) (a->npages_direct - b->npages_direct);
	dst->npages_bounced += sign * (int64) (a->npages_bounced - b->npages_bounced);
	dst->npages_cached += sign * (int64) (a->npages_cached - b->npages_cached);
	dst->npruned += sign * (int64) (a->npruned - b->npruned);
	dst->nempty_inner += sign * (int64) (a->nempty_inner - b->nempty_inner);
	dst->nkeys_pruned += sign * (int64) (a->nkeys_pruned - b->nkeys_pruned);
	for (i = 0; i < GPU_TASK_NODE_COUNTERS; i++)
		dst->node[i] += sign * (int64) (a->node[i] - b->node[i]);
}

/* the first participant's reason is the one EXPLAIN shows */
static void
publish_reason(char *shared_reason, const char *reason, bool *published)
{
	if (reason[0] == '\0' || *published)
		return;
	if (shared_reason[0] == '\0')
		strlcpy(shared_reason, reason, GPU_TASK_REASON_LEN);
	*published = true;
}

/* adds what this participant counted since the last call to the sum */
void
gpu_task_publish_counters(GpuTaskState *gts)
{
	GpuTaskShared *shared = gts->shared;

	if (shared == NULL)
		return;
	SpinLockAcquire(&shared->mutex);
	counters_add(&shared->counters, &gts->counters, &gts->published, 1);
	publish_reason(shared->cpu_reason, gts->cpu_reason,
				   &gts->reason_published);
	publish_reason(shared->copy_reason, gts->copy_reason,
				   &gts->copy_reason_published);
	SpinLockRelease(&shared->mutex);
	gts->published = gts->counters;
}

void
gpu_task_shutdown(CustomScanState *node)
{
	GpuTaskState *gts = (GpuTaskState *) node;
	GpuTaskShared *shared = gts->shared;

	if (shared == NULL)
		return;
	gpu_task_publish_counters(gts);
	if (!IsParallelWorker())
	{
		/* the DSM is about to go away: keep the sum for EXPLAIN */
		SpinLockAcquire(&shared->mutex);
		gts->totals = shared->counters;
		if (gts->cpu_reason[0] == '\0')
			strlcpy(gts->cpu_reason, shared->cpu_reason,
					sizeof(gts->cpu_reason));
		if (gts->copy_reason[0] == '\0')
			strlcpy(gts->copy_reason, shared->copy_reason,
					sizeof(gts->copy_reason));
		SpinLockRelease(&shared->mutex);
		gts->have_totals = true;
	}
	gts->shared = NULL;
	gts->pscan = NULL;
}
