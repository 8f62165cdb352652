/*-------------------------------------------------------------------------
 *
 * task_state.c
 *		Begin, end and rescan of GPU nodes.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/executor.h"
#include "storage/bufmgr.h"
#include "utils/snapmgr.h"

#include "core/pg_strom.h"
#include "service/service_state.h"
#include "runtime/gpu_task.h"

/*
 * The runtime's part of BeginCustomScan; the node sets dev_quals and
 * dev_qual_state itself, since it knows which slot they read.
 */
void
gpu_task_begin(GpuTaskState *gts, const GpuTaskOps *ops, EState *estate)
{
	int			max_async;

	Assert(ops->build_session && ops->gpu_next_row && ops->cpu_next_row &&
		   ops->item_size > 0);
	gts->ops = ops;
	gts->rel = gts->css.ss.ss_currentRelation;
	gts->snapshot = estate->es_snapshot;
	gts->mode = GPU_TASK_MODE_INIT;

	max_async = pgstrom_max_async_tasks;
	if (pgstrom_service_shared != NULL)
		max_async = (int) pg_atomic_read_u32(&pgstrom_service_shared->max_async_tasks);
	gts->max_inflight = Max(1, Min(max_async, GPU_TASK_MAX_INFLIGHT));
}

/* drop the connection and every chunk; the scan can start over */
static void
cleanup(GpuTaskState *gts)
{
	ListCell   *lc;

	if (gts->css.ss.ss_ScanTupleSlot)
		ExecClearTuple(gts->css.ss.ss_ScanTupleSlot);
	if (gts->conn)
	{
		pgstrom_gpu_close(gts->conn);
		gts->conn = NULL;
	}
	if (gts->current)
	{
		gpu_task_release_chunk(gts, gts->current);
		gts->current = NULL;
	}
	foreach(lc, gts->inflight)
		gpu_task_release_chunk(gts, (GpuTaskChunk *) lfirst(lc));
	list_free(gts->inflight);
	gts->inflight = NIL;
	gpu_task_drop_open_chunks(gts);
	gpu_task_direct_end(gts);
}

void
gpu_task_end(GpuTaskState *gts)
{
	cleanup(gts);
	gpu_task_publish_counters(gts);
	gpu_task_free_chunks(gts);
	if (gts->strategy)
	{
		FreeAccessStrategy(gts->strategy);
		gts->strategy = NULL;
	}
	if (gts->snapshot_registered)
	{
		UnregisterSnapshot(gts->snapshot);
		gts->snapshot_registered = false;
	}
}

/*
 * Start over: the next row starts a new session with a new plan_id, so
 * that query buffers of the last run (if they still exist) are not joined.
 */
void
gpu_task_rescan(GpuTaskState *gts)
{
	cleanup(gts);
	gpu_task_source_reset(gts);
	gpu_task_kept_reset(gts);
	gts->mode = GPU_TASK_MODE_INIT;
	gts->prune_checked = false;
	gts->empty_inner = false;
}
