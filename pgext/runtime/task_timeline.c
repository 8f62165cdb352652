/*-------------------------------------------------------------------------
 *
 * task_timeline.c
 *		Where one participant's GPU scan spent its time.
 *
 * A scan on the zero-copy path is bounded by whichever is slower: the
 * backends pinning pages into chunks, or the service and the link answering
 * them.  Totals cannot tell which, nor how long the start (workers
 * launched, session opened) and the end (the last answers, the final
 * collection) take; so each participant notes when it reached each step,
 * relative to the statement's start (parallel workers share the leader's),
 * and how long it spent filling chunks and blocked on replies.  The clock
 * is read per chunk, never per page.  The line is logged at DEBUG1 when the
 * scan ends.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/parallel.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

#include "runtime/gpu_task.h"

/* milliseconds from the statement's start to t, or -1 when t is unset */
static double
since_statement(TimestampTz t)
{
	if (t == 0)
		return -1.0;
	return (double) (t - GetCurrentStatementStartTimestamp()) / 1000.0;
}

void
gpu_task_timeline_begin(GpuTaskState *gts)
{
	memset(&gts->timeline, 0, sizeof(GpuTaskTimeline));
	gts->timeline.begun = GetCurrentTimestamp();
}

/* the scan's session is open (GPU mode) */
void
gpu_task_timeline_opened(GpuTaskState *gts)
{
	gts->timeline.opened = GetCurrentTimestamp();
}

/* a chunk went out after filling it took since start */
void
gpu_task_timeline_sent(GpuTaskState *gts, TimestampTz start)
{
	TimestampTz now = GetCurrentTimestamp();

	gts->timeline.build_us += now - start;
	if (gts->timeline.first_sent == 0)
		gts->timeline.first_sent = now;
}

/* a reply arrived after waiting since start; last: it ended a chunk */
void
gpu_task_timeline_replied(GpuTaskState *gts, TimestampTz start, bool last)
{
	TimestampTz now = GetCurrentTimestamp();

	gts->timeline.wait_us += now - start;
	gts->timeline.nwaits++;
	if (last)
		gts->timeline.last_answer = now;
}

void
gpu_task_timeline_log(GpuTaskState *gts)
{
	const GpuTaskTimeline *tl = &gts->timeline;

	if (tl->begun == 0 || !message_level_is_interesting(DEBUG1))
		return;
	elog(DEBUG1, "%s on \"%s\" timeline, %s %d: began %.1f ms after the statement, session open %.1f, first chunk sent %.1f, last answer %.1f, end %.1f; filling chunks %.1f ms, waiting %.1f ms in %u waits; " UINT64_FORMAT " pages in " UINT64_FORMAT " chunks",
		 gpu_task_node_name(gts), RelationGetRelationName(gts->rel),
		 IsParallelWorker() ? "worker" : "leader", MyProcPid,
		 since_statement(tl->begun), since_statement(tl->opened),
		 since_statement(tl->first_sent), since_statement(tl->last_answer),
		 since_statement(GetCurrentTimestamp()),
		 (double) tl->build_us / 1000.0, (double) tl->wait_us / 1000.0,
		 tl->nwaits, gts->counters.npages, gts->counters.nchunks);
}
