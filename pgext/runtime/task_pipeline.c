/*-------------------------------------------------------------------------
 *
 * task_pipeline.c
 *		The chunk pipeline of GPU nodes and their row loop.
 *
 * In GPU mode the node keeps up to Min(pg_strom.max_async_tasks, 3) chunks
 * in flight (TaskExec, request id = chunk id).  Each chunk is answered by
 * zero or more SUCCESS_HALFWAY replies and a SUCCESS, all kept on the
 * chunk; then its rows are emitted by the node's gpu_next_row, from the
 * page copies the backend kept.  In CPU mode, and for chunks that were in
 * flight when the service was lost, the node's cpu_next_row evaluates the
 * chunk here.  At the end of the scan the node finishes its session
 * (ops->finish, or TaskFinal and close) and publishes its counters.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/executor.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

#include "core/pg_strom.h"
#include "runtime/gpu_task.h"

static GpuTaskChunk *
find_inflight(GpuTaskState *gts, uint32 request_id)
{
	ListCell   *lc;

	foreach(lc, gts->inflight)
	{
		GpuTaskChunk *chunk = lfirst(lc);

		if (chunk->request_id == request_id)
			return chunk;
	}
	return NULL;
}

/*
 * One reply to a TaskExec: checked against the chunk and kept on it.  A
 * SUCCESS ends the chunk's answer; it is then no longer in flight and
 * becomes the chunk being emitted.
 */
static void
accept_chunk_reply(GpuTaskState *gts, PgStromMsgHeader *msg)
{
	const GpuTaskOps *ops = gts->ops;
	bool		last = (msg->tag == PGSTROM_MSG_SUCCESS);
	GpuTaskChunk *chunk;
	XpuChunkResult *res;
	MemoryContext oldcxt;

	chunk = find_inflight(gts, msg->request_id);
	if (chunk == NULL)
	{
		pfree(msg);
		gpu_task_protocol_violation(gts, "reply to an unknown request");
	}
	if (chunk->direct && !chunk->report_seen)
	{
		/* a direct-read chunk's answer starts with its read report */
		gpu_task_direct_report(gts, chunk, msg);
		return;
	}
	if (!last && ops->max_items_per_tuple == 0 &&
		chunk->reply_bytes + msg->length > (uint64) pgstrom_gpujoin_max_chunk_result_kb * 1024)
	{
		char		reason[GPU_TASK_REASON_LEN];

		/*
		 * A chunk's rows are emitted once its whole answer is here, so an
		 * answer without a bound (a join that fans out) would take any
		 * amount of this backend's memory.  The chunks in flight are
		 * evaluated on the CPU instead, from the pages still held, which
		 * emits rows as it makes them.
		 */
		pfree(msg);
		snprintf(reason, sizeof(reason),
				 "the GPU's answer to one chunk exceeds pg_strom.gpujoin_max_chunk_result (%d kB)",
				 pgstrom_gpujoin_max_chunk_result_kb);
		gpu_task_use_cpu(gts, reason);
		return;
	}
	if (last)
	{
		/* whatever happens next, the chunk is no longer in flight */
		gts->inflight = list_delete_ptr(gts->inflight, chunk);
		gts->current = chunk;
		chunk->cpu_mode = false;
		if (chunk->direct)
			gpu_task_direct_answered(gts, chunk);
		if (ops->device_keeps_rows)
			gpu_task_kept_note_answer(gts, chunk);
	}
	oldcxt = MemoryContextSwitchTo(gts->css.ss.ps.state->es_query_cxt);
	chunk->replies = lappend(chunk->replies, msg);
	chunk->reply_bytes += msg->length;
	MemoryContextSwitchTo(oldcxt);

	if (msg->length < sizeof(PgStromMsgHeader) + sizeof(XpuChunkResult))
		gpu_task_protocol_violation(gts, "truncated chunk result");
	res = (XpuChunkResult *) ((char *) msg + sizeof(PgStromMsgHeader));
	chunk->nitems += res->nitems;
	if (res->chunk_id != chunk->request_id ||
		(ops->max_items_per_tuple > 0 &&
		 chunk->nitems > (uint64) chunk->nblocks * XPU_MAX_TUPLES_PER_PAGE *
		 ops->max_items_per_tuple) ||
		(uint64) msg->length != sizeof(PgStromMsgHeader) + sizeof(XpuChunkResult) +
		(uint64) res->nitems * ops->item_size)
		gpu_task_protocol_violation(gts, "malformed chunk result");

	gts->counters.nrows_in += res->ntuples;
	gts->counters.gpu_time_ns += res->gpu_time_ns;
}

/*
 * Fills the pipeline and takes one reply.  On return, gts->current is a
 * chunk to emit, or the mode changed to CPU, or there is nothing left, or
 * a chunk got part of its answer (the caller comes back).
 */
static void
gpu_step(GpuTaskState *gts)
{
	char		errbuf[GPU_TASK_REASON_LEN];
	PgStromMsgHeader *msg;
	TimestampTz wait_start;

	while (list_length(gts->inflight) < gts->max_inflight &&
		   !gpu_task_source_exhausted(gts))
	{
		TimestampTz build_start = GetCurrentTimestamp();
		GpuTaskChunk *chunk = gpu_task_build_chunk(gts);
		PgStromMsgHeader *hdr;
		XpuChunk   *xchunk;

		if (chunk == NULL)
			break;
		chunk->request_id = gts->next_request_id++;
		hdr = (PgStromMsgHeader *) chunk->buf;
		hdr->request_id = chunk->request_id;
		xchunk = (XpuChunk *) (chunk->buf + sizeof(PgStromMsgHeader));
		xchunk->chunk_id = chunk->request_id;
		/* in flight from now on: kept until answered or done on the CPU */
		gts->inflight = lappend(gts->inflight, chunk);
		if (!pgstrom_gpu_send(gts->conn, chunk->buf, chunk->buf_len,
							  errbuf, sizeof(errbuf)))
		{
			gpu_task_transport_failed(gts, errbuf, "TaskExec");
			return;
		}
		gpu_task_timeline_sent(gts, build_start);
	}
	if (gts->inflight == NIL)
		return;

	wait_start = GetCurrentTimestamp();
	msg = gpu_task_recv(gts, "TaskExec");
	if (msg == NULL)
		return;
	gpu_task_timeline_replied(gts, wait_start, msg->tag == PGSTROM_MSG_SUCCESS);
	switch (msg->tag)
	{
		case PGSTROM_MSG_SUCCESS:
		case PGSTROM_MSG_SUCCESS_HALFWAY:
			accept_chunk_reply(gts, msg);
			break;
		default:
			pfree(msg);
			gpu_task_protocol_violation(gts, "unexpected message tag");
	}
}

/*
 * Sends TaskFinal (flags: 0 or PGSTROM_FINAL_COLLECT) on gts's connection:
 * its request id, or 0 (request ids start at 1) when the send failed, with
 * the reason in errbuf.
 */
uint32
gpu_task_send_final(GpuTaskState *gts, uint16 flags, char *errbuf, size_t errlen)
{
	PgStromMsgHeader hdr;

	memset(&hdr, 0, sizeof(hdr));
	hdr.magic = PGSTROM_MSG_MAGIC;
	hdr.tag = PGSTROM_MSG_TASK_FINAL;
	hdr.flags = flags;
	hdr.length = sizeof(hdr);
	hdr.request_id = gts->next_request_id++;
	if (!pgstrom_gpu_send(gts->conn, &hdr, sizeof(hdr), errbuf, errlen))
		return 0;
	return hdr.request_id;
}

/*
 * The next reply to TaskFinal: a SUCCESS_HALFWAY message, which the caller
 * now owns, or NULL once the SUCCESS that ends the reply came (the
 * connection is then closed and the counters published) or the node went
 * to the CPU (for a node whose rows were on the device: they are redone,
 * see task_kept.c).
 */
PgStromMsgHeader *
gpu_task_read_final(GpuTaskState *gts, uint32 final_request_id)
{
	PgStromMsgHeader *msg;

	if (gts->conn == NULL)
		return NULL;
	msg = gpu_task_recv(gts, "TaskFinal");
	if (msg == NULL)
		return NULL;
	if (msg->request_id != final_request_id)
	{
		pfree(msg);
		gpu_task_protocol_violation(gts, "reply to an unknown request");
	}
	if (msg->tag == PGSTROM_MSG_SUCCESS_HALFWAY)
		return msg;
	if (msg->tag != PGSTROM_MSG_SUCCESS)
	{
		pfree(msg);
		gpu_task_protocol_violation(gts, "unexpected reply to TaskFinal");
	}
	pfree(msg);
	pgstrom_gpu_close(gts->conn);
	gts->conn = NULL;
	gpu_task_publish_counters(gts);
	return NULL;
}

/*
 * TaskFinal and close, for a node that keeps nothing on the device: every
 * row was emitted already, so problems here cannot change the result.
 */
static void
finish_plain(GpuTaskState *gts)
{
	char		errbuf[GPU_TASK_REASON_LEN];
	uint32		request_id = gpu_task_send_final(gts, 0, errbuf, sizeof(errbuf));
	PgStromMsgHeader *reply;

	if (request_id == 0)
		elog(DEBUG1, "%s: TaskFinal not sent: %s", gpu_task_node_name(gts), errbuf);
	while (request_id != 0)
	{
		reply = pgstrom_gpu_recv(gts->conn, errbuf, sizeof(errbuf));
		if (reply == NULL)
		{
			elog(DEBUG1, "%s: no reply to TaskFinal: %s",
				 gpu_task_node_name(gts), errbuf);
			break;
		}
		if (reply->tag != PGSTROM_MSG_SUCCESS)
			elog(DEBUG1, "%s: TaskFinal answered with tag %u",
				 gpu_task_node_name(gts), (unsigned) reply->tag);
		if (reply->tag != PGSTROM_MSG_SUCCESS_HALFWAY)
			request_id = 0;
		pfree(reply);
	}
	pgstrom_gpu_close(gts->conn);
	gts->conn = NULL;
}

/* the chunk sent but never answered: evaluate the kept copy here */
static void
take_unanswered_chunk(GpuTaskState *gts)
{
	GpuTaskChunk *chunk = linitial(gts->inflight);

	gts->inflight = list_delete_first(gts->inflight);
	gpu_task_chunk_drop_replies(chunk);
	chunk->cpu_mode = true;
	chunk->cur_block = 0;
	chunk->cur_offset = InvalidOffsetNumber;
	gts->current = chunk;
}

/*
 * The next row of the node's scan, in slot (a heap-tuple slot over the
 * relation's descriptor): false at the end of the scan, after the session
 * was finished.
 */
bool
gpu_task_next_tuple(GpuTaskState *gts, TupleTableSlot *slot)
{
	const GpuTaskOps *ops = gts->ops;
	MemoryContext oldcxt;

	if (gts->mode == GPU_TASK_MODE_INIT &&
		(gts->empty_inner || gpu_task_partition_pruned(gts)))
		return false;
	oldcxt = MemoryContextSwitchTo(gts->css.ss.ps.state->es_query_cxt);
	if (gts->mode == GPU_TASK_MODE_INIT)
	{
		gpu_task_timeline_begin(gts);
		gpu_task_start(gts);
		gpu_task_timeline_opened(gts);
	}

	for (;;)
	{
		GpuTaskChunk *chunk = gts->current;

		if (chunk)
		{
			if (chunk->cpu_mode ? ops->cpu_next_row(gts, chunk, slot)
				: ops->gpu_next_row(gts, chunk, slot))
			{
				MemoryContextSwitchTo(oldcxt);
				return true;
			}
			/* the slot must not point into a buffer that is reused */
			ExecClearTuple(slot);
			gpu_task_release_chunk(gts, chunk);
			gts->current = NULL;
		}

		if (gts->mode == GPU_TASK_MODE_GPU)
		{
			gpu_step(gts);
			if (gts->mode == GPU_TASK_MODE_GPU && gts->current == NULL &&
				gts->inflight == NIL)
			{
				/* every chunk answered and emitted */
				if (ops->device_keeps_rows && gpu_task_kept_settle(gts))
					continue;
				break;
			}
		}
		else if (gts->inflight != NIL)
			take_unanswered_chunk(gts);
		else
		{
			chunk = gpu_task_build_chunk(gts);
			if (chunk == NULL)
			{
				/* the rows the device kept: collected, or redone here */
				if (ops->device_keeps_rows && gpu_task_kept_settle(gts))
					continue;
				break;
			}
			chunk->cpu_mode = true;
			gts->current = chunk;
		}
	}

	/* end of scan (device_keeps_rows nodes finished in the settling) */
	if (gts->conn != NULL)
	{
		if (ops->finish && !ops->device_keeps_rows)
			ops->finish(gts);
		else
			finish_plain(gts);
	}
	gpu_task_publish_counters(gts);
	gpu_task_timeline_log(gts);
	MemoryContextSwitchTo(oldcxt);
	ExecClearTuple(slot);
	return false;
}
