/*-------------------------------------------------------------------------
 *
 * gpuscan_exec.c
 *		Executor of GpuScan: the GPU pipeline and the CPU path.
 *
 * GPU path.  At the first call the node connects to the GPU service of the
 * first device, sends the OpenSession message the code generator builds
 * and waits for its Success.  Then it creates one shared chunk buffer (a
 * memfd) per in-flight slot and attaches each with ATTACH_BUFFER, so chunks
 * are built straight into memory the service has mapped and pinned and a
 * TaskExec carries only its header; if the service refuses (an older one
 * answers Error and closes), the node opens a new connection and session
 * and sends the pages inline instead.  Then it keeps up to
 * Min(pg_strom.max_async_tasks, 3) chunks in flight (TaskExec, request id =
 * chunk id) and emits the rows of each Success reply from the page copies
 * it kept.  RECHECK rows go through ExecQual of the device quals, so
 * PostgreSQL itself raises any error they cause.  At the end it sends
 * TaskFinal and closes the connection.
 *
 * CPU path.  When the service is not ready, the connection fails, the
 * transport breaks mid-query, or the service answers with an error that
 * says the device cannot do the work (no memory, device error, not
 * supported), the node carries on without the GPU, provided
 * pg_strom.cpu_fallback is on: the same chunk builder, and every visible
 * tuple goes through ExecQual of the device quals, exactly the RECHECK
 * path.  Chunks already sent but not answered are evaluated from the page
 * copies still held, so no row is lost or returned twice.  With
 * pg_strom.cpu_fallback off the query fails with an explanation instead.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/xact.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/lwlock.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "codegen/codegen.h"
#include "core/pg_strom.h"
#include "gpuscan/gpuscan.h"


/* ----------------------------------------------------------------
 * switching to the CPU
 * ----------------------------------------------------------------
 */
void
gpuscan_use_cpu(GpuScanState *gss, const char *reason)
{
	/*
	 * GpuPreAgg: rows the device accumulated (ours, or in a parallel plan
	 * another participant's) come back only with the last TaskFinal of the
	 * plan; without the service they are gone, and carrying on would lose
	 * them.
	 */
	if (gss->device_aggregates)
	{
		bool		device_used = gss->chunk_sent;

		if (gss->shared)
		{
			SpinLockAcquire(&gss->shared->mutex);
			device_used |= gss->shared->device_used;
			SpinLockRelease(&gss->shared->mutex);
		}
		if (device_used)
			ereport(ERROR,
					(errcode(ERRCODE_CONNECTION_FAILURE),
					 errmsg("GPU service failed during GpuPreAgg on \"%s\"",
							RelationGetRelationName(gss->rel)),
					 errdetail("%s. Rows already aggregated on the GPU are lost, so the query cannot continue on the CPU.",
							   reason)));
	}
	if (!pgstrom_cpu_fallback_enabled)
		ereport(ERROR,
				(errcode(ERRCODE_CONNECTION_FAILURE),
				 errmsg("GPU service is not available"),
				 errdetail("%s on \"%s\": %s",
						   gpuscan_node_name(gss), RelationGetRelationName(gss->rel), reason),
				 errhint("Set pg_strom.cpu_fallback = on to evaluate %s on the CPU when the GPU service cannot be used.", gpuscan_node_name(gss))));

	ereport(DEBUG1,
			(errmsg_internal("%s on \"%s\" runs on the CPU: %s",
							 gpuscan_node_name(gss), RelationGetRelationName(gss->rel), reason)));
	if (gss->conn)
	{
		pgstrom_gpu_close(gss->conn);
		gss->conn = NULL;
	}
	if (gss->cpu_reason[0] == '\0')
		strlcpy(gss->cpu_reason, reason, sizeof(gss->cpu_reason));
	gss->mode = GPUSCAN_MODE_CPU;
}

void
gpuscan_protocol_violation(GpuScanState *gss, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROTOCOL_VIOLATION),
			 errmsg("%s on \"%s\": unexpected reply from the GPU service: %s",
					gpuscan_node_name(gss), RelationGetRelationName(gss->rel), what),
			 gss->conn ? errcontext("GPU service at \"%s\"",
									pgstrom_gpu_conn_path(gss->conn)) : 0));
}

/*
 * An Error reply.  Device trouble (out of memory, device error, a request
 * the service does not implement) continues on the CPU when allowed;
 * anything else is a bug somewhere and is raised.
 */
void
gpuscan_error_reply(GpuScanState *gss, PgStromMsgHeader *msg, const char *during)
{
	PgStromMsgError err;
	bool		recoverable;
	char		path[MAXPGPATH];

	if (msg->length < sizeof(PgStromMsgHeader) + sizeof(PgStromMsgError))
	{
		pfree(msg);
		gpuscan_protocol_violation(gss, "truncated error reply");
	}
	memcpy(&err, (char *) msg + sizeof(PgStromMsgHeader), sizeof(err));
	pfree(msg);
	err.filename[sizeof(err.filename) - 1] = '\0';
	err.funcname[sizeof(err.funcname) - 1] = '\0';
	err.message[sizeof(err.message) - 1] = '\0';

	recoverable = (err.code == PGSTROM_ERR_NO_MEMORY ||
				   err.code == PGSTROM_ERR_DEVICE ||
				   err.code == PGSTROM_ERR_UNSUPPORTED);
	if (recoverable && pgstrom_cpu_fallback_enabled)
	{
		char		reason[GPUSCAN_REASON_LEN];

		snprintf(reason, sizeof(reason), "GPU service error during %s: %s",
				 during, err.message);
		gpuscan_use_cpu(gss, reason);
		return;
	}

	strlcpy(path, gss->conn ? pgstrom_gpu_conn_path(gss->conn) : "?",
			sizeof(path));
	ereport(ERROR,
			(errcode(pgstrom_service_errcode(err.code)),
			 errmsg("%s", err.message),
			 recoverable ?
			 errhint("Set pg_strom.cpu_fallback = on to evaluate %s on the CPU when the GPU cannot.", gpuscan_node_name(gss)) : 0,
			 errcontext("GPU service at \"%s\", %s:%d (%s), during %s",
						path, err.filename, err.lineno, err.funcname,
						during)));
}

/*
 * The transport failed.  An Error reply the service sent before it closed
 * the connection explains more than the socket error, so it is handled
 * first (it may raise); answers that arrived are dropped, their chunks stay
 * in flight and are evaluated on the CPU.
 */
static void
gpuscan_transport_failed(GpuScanState *gss, const char *reason, const char *during)
{
	char		errbuf[GPUSCAN_REASON_LEN];
	PgStromMsgHeader *msg;

	while (gss->conn != NULL &&
		   (msg = pgstrom_gpu_recv(gss->conn, errbuf, sizeof(errbuf))) != NULL)
	{
		if (msg->tag == PGSTROM_MSG_ERROR)
		{
			gpuscan_error_reply(gss, msg, during);
			if (gss->mode == GPUSCAN_MODE_CPU)
				return;
		}
		else
			pfree(msg);
	}
	gpuscan_use_cpu(gss, reason);
}

/* ----------------------------------------------------------------
 * start: GPU or CPU
 * ----------------------------------------------------------------
 */

/*
 * Connects to the service and opens the session.  False when the scan went
 * to the CPU instead (or, with pg_strom.cpu_fallback off, it raised).
 */
static bool
gpuscan_open_session(GpuScanState *gss, int device)
{
	char		errbuf[GPUSCAN_REASON_LEN];
	CustomScan *cscan = (CustomScan *) gss->css.ss.ps.plan;
	StringInfo	session;
	PgStromMsgHeader *reply;

	gss->conn = pgstrom_gpu_connect(device,
									gss->css.ss.ps.state->es_query_cxt,
									errbuf, sizeof(errbuf));
	if (gss->conn == NULL)
	{
		gpuscan_use_cpu(gss, errbuf);
		return false;
	}

	if (gss->build_session)
		session = gss->build_session(gss);
	else
		session = pgstrom_build_gpuscan_session(gss->dev_quals,
												cscan->scan.scanrelid,
												gss->rel,
												gss->css.ss.ps.ps_ExprContext,
												gss->plan_id,
												PGSTROM_SESSION_REQUEST_ID);
	if (!pgstrom_gpu_send(gss->conn, session->data, session->len,
						  errbuf, sizeof(errbuf)))
	{
		gpuscan_transport_failed(gss, errbuf, "OpenSession");
		return false;
	}
	pfree(session->data);
	pfree(session);

	reply = pgstrom_gpu_recv(gss->conn, errbuf, sizeof(errbuf));
	if (reply == NULL)
	{
		gpuscan_use_cpu(gss, errbuf);
		return false;
	}
	if (reply->tag == PGSTROM_MSG_ERROR)
	{
		gpuscan_error_reply(gss, reply, "OpenSession");
		return false;
	}
	if (reply->tag != PGSTROM_MSG_SUCCESS ||
		reply->request_id != PGSTROM_SESSION_REQUEST_ID)
	{
		pfree(reply);
		gpuscan_protocol_violation(gss, "not a Success reply to OpenSession");
	}
	pfree(reply);
	return true;
}

typedef enum
{
	ATTACH_OK,					/* every slot has its shared buffer */
	ATTACH_LOCAL_FAILURE,		/* no buffer could be made: inline, same
								 * connection */
	ATTACH_REFUSED,				/* the service answered Error: inline, on a
								 * new connection */
	ATTACH_CPU					/* the transport failed: the scan went to
								 * the CPU */
} GpuScanAttachResult;

/*
 * Creates one shared chunk buffer per in-flight slot and attaches it to the
 * connection as buffer_id slot + 1, one request at a time.  On anything but
 * ATTACH_OK no buffer is left (gss->nbuffers is 0), so chunks are built
 * inline as before.
 */
static GpuScanAttachResult
gpuscan_attach_buffers(GpuScanState *gss)
{
	char		errbuf[GPUSCAN_REASON_LEN];
	Size		size;
	int			nslots = gss->max_inflight;
	int			i;

	Assert(gss->nbuffers == 0 && gss->nbuffers_used == 0);
	StaticAssertStmt(GPUSCAN_MAX_INFLIGHT <= XPU_MAX_BUFFERS_PER_CONNECTION,
					 "more in-flight slots than buffers per connection");
	nslots = Min(nslots, GPUSCAN_MAX_INFLIGHT);
	size = (Size) gpuscan_chunk_capacity(gss) * BLCKSZ;

	for (i = 0; i < nslots; i++)
	{
		GpuSharedBuffer *buf = pgstrom_gpu_buffer_create(size, errbuf,
														 sizeof(errbuf));

		if (buf == NULL)
		{
			ereport(DEBUG1,
					(errmsg_internal("%s on \"%s\" sends pages inline: %s",
									 gpuscan_node_name(gss), RelationGetRelationName(gss->rel),
									 errbuf)));
			gpuscan_release_buffers(gss);
			return ATTACH_LOCAL_FAILURE;
		}
		gss->buffers[gss->nbuffers++] = buf;
	}

	for (i = 0; i < gss->nbuffers; i++)
	{
		uint32		request_id = gss->next_request_id++;
		PgStromMsgHeader *reply;

		if (!pgstrom_gpu_buffer_attach(gss->conn, gss->buffers[i],
									   (uint32) (i + 1), request_id,
									   errbuf, sizeof(errbuf)))
		{
			gpuscan_release_buffers(gss);
			gpuscan_use_cpu(gss, errbuf);
			return ATTACH_CPU;
		}
		reply = pgstrom_gpu_recv(gss->conn, errbuf, sizeof(errbuf));
		if (reply == NULL)
		{
			gpuscan_release_buffers(gss);
			gpuscan_use_cpu(gss, errbuf);
			return ATTACH_CPU;
		}
		if (reply->tag == PGSTROM_MSG_ERROR)
		{
			const char *what = "truncated error reply";

			if (reply->length >= sizeof(PgStromMsgHeader) + sizeof(PgStromMsgError))
			{
				PgStromMsgError *err = (PgStromMsgError *)
					((char *) reply + sizeof(PgStromMsgHeader));

				err->message[sizeof(err->message) - 1] = '\0';
				what = err->message;
			}
			ereport(DEBUG1,
					(errmsg_internal("%s on \"%s\" sends pages inline: the GPU service refused shared buffer %d: %s",
									 gpuscan_node_name(gss), RelationGetRelationName(gss->rel),
									 i + 1, what)));
			pfree(reply);
			gpuscan_release_buffers(gss);
			return ATTACH_REFUSED;
		}
		if (reply->tag != PGSTROM_MSG_SUCCESS ||
			reply->request_id != request_id)
		{
			pfree(reply);
			gpuscan_protocol_violation(gss, "not a Success reply to AttachBuffer");
		}
		pfree(reply);
	}
	ereport(DEBUG1,
			(errmsg_internal("%s on \"%s\" attached %d shared chunk buffers of %zu bytes",
							 gpuscan_node_name(gss), RelationGetRelationName(gss->rel),
							 gss->nbuffers, size)));
	return ATTACH_OK;
}

static void
gpuscan_start(GpuScanState *gss)
{
	PgStromServiceShared *ss = pgstrom_service_shared;
	PgStromServiceState state;
	int			device = -1;
	char		errbuf[GPUSCAN_REASON_LEN];

	gss->next_request_id = PGSTROM_SESSION_REQUEST_ID + 1;
	if (ss == NULL)
	{
		gpuscan_use_cpu(gss, "pg_strom is not loaded via shared_preload_libraries");
		return;
	}
	LWLockAcquire(ss->lock, LW_SHARED);
	state = ss->state;
	if (ss->devices.ndevices > 0)
		device = ss->devices.devices[0].index;
	LWLockRelease(ss->lock);

	if (state != PGSTROM_SERVICE_READY)
	{
		snprintf(errbuf, sizeof(errbuf), "service not ready: %s",
				 pgstrom_service_state_name(state));
		gpuscan_use_cpu(gss, errbuf);
		return;
	}
	if (device < 0)
	{
		gpuscan_use_cpu(gss, "service reports no GPU device");
		return;
	}
	if (gss->dev_quals == NIL && !gss->device_aggregates)
	{
		gpuscan_use_cpu(gss, "no device quals");
		return;
	}

	gss->plan_id = gpuscan_make_plan_id(gss);
	if (!gpuscan_open_session(gss, device))
		return;

	/*
	 * Shared chunk buffers skip two host copies, but the service pins each
	 * buffer when it is attached, once per scan and backend; measured on an
	 * H200 that made a 16-worker scan slower (1.0 s) than inline chunks
	 * (0.49 s), so they stay off until buffers outlive a scan.
	 */
	if (!pgstrom_shared_chunk_buffers)
	{
		gss->mode = GPUSCAN_MODE_GPU;
		return;
	}
	switch (gpuscan_attach_buffers(gss))
	{
		case ATTACH_OK:
		case ATTACH_LOCAL_FAILURE:
			break;
		case ATTACH_CPU:
			return;
		case ATTACH_REFUSED:

			/*
			 * The service may have closed the connection after its Error
			 * (an older service does), and buffers it did attach stay
			 * pinned while the connection lives: start over on a new one
			 * with the pages inline.
			 */
			pgstrom_gpu_close(gss->conn);
			gss->conn = NULL;
			if (!gpuscan_open_session(gss, device))
				return;
			break;
	}
	gss->mode = GPUSCAN_MODE_GPU;
}

/* ----------------------------------------------------------------
 * emitting rows
 * ----------------------------------------------------------------
 */
static inline void
store_tuple(GpuScanState *gss, TupleTableSlot *slot, GpuScanChunk *chunk,
			uint32 bidx, OffsetNumber off)
{
	Page		page = (Page) (chunk->pages + (Size) bidx * BLCKSZ);
	ItemId		lp = PageGetItemId(page, off);
	HeapTuple	tuple = &gss->tuple;

	tuple->t_data = (HeapTupleHeader) PageGetItem(page, lp);
	tuple->t_len = ItemIdGetLength(lp);
	ItemPointerSet(&tuple->t_self, chunk->blknos[bidx], off);
	tuple->t_tableOid = RelationGetRelid(gss->rel);
	ExecStoreHeapTuple(tuple, slot, false);
}

static inline bool
eval_dev_quals(GpuScanState *gss, TupleTableSlot *slot)
{
	ExprContext *econtext = gss->css.ss.ps.ps_ExprContext;

	ResetExprContext(econtext);
	econtext->ecxt_scantuple = slot;
	return ExecQual(gss->dev_qual_state, econtext);
}

/*
 * The next row of the chunk that passes the device quals, in the scan
 * slot; false when the chunk is exhausted.
 */
static bool
emit_from_chunk(GpuScanState *gss, GpuScanChunk *chunk, TupleTableSlot *slot)
{
	if (chunk->cpu_mode)
	{
		while (chunk->cur_block < chunk->nblocks)
		{
			Page		page = (Page) (chunk->pages +
									  (Size) chunk->cur_block * BLCKSZ);
			OffsetNumber maxoff = PageGetMaxOffsetNumber(page);

			while (chunk->cur_offset < maxoff)
			{
				OffsetNumber off = ++chunk->cur_offset;

				if (!ItemIdIsNormal(PageGetItemId(page, off)))
					continue;
				store_tuple(gss, slot, chunk, chunk->cur_block, off);
				gss->counters.nrows_in++;
				if (eval_dev_quals(gss, slot))
				{
					gss->counters.nrows_out++;
					return true;
				}
			}
			chunk->cur_block++;
			chunk->cur_offset = InvalidOffsetNumber;
		}
		return false;
	}

	while (chunk->next_item < chunk->nitems)
	{
		uint32		entry = chunk->items[chunk->next_item++];
		bool		recheck = (entry & XPU_ITEM_RECHECK) != 0;
		uint32		bidx = (entry & ~XPU_ITEM_RECHECK) >> XPU_ITEM_BLOCK_SHIFT;
		OffsetNumber off = (OffsetNumber) (entry & XPU_ITEM_OFFSET_MASK);
		Page		page;

		if (bidx >= chunk->nblocks)
			gpuscan_protocol_violation(gss, "row position outside the chunk");
		page = (Page) (chunk->pages + (Size) bidx * BLCKSZ);
		if (off < FirstOffsetNumber || off > PageGetMaxOffsetNumber(page) ||
			!ItemIdIsNormal(PageGetItemId(page, off)))
			gpuscan_protocol_violation(gss, "row position that is not a visible tuple");

		if (!recheck && gss->device_aggregates)
			gpuscan_protocol_violation(gss, "a row that is not marked recheck in an aggregation reply");
		store_tuple(gss, slot, chunk, bidx, off);
		if (recheck)
		{
			if (!pgstrom_cpu_fallback_enabled)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("%s on \"%s\": the GPU could not evaluate a row and CPU fallback is disabled",
								gpuscan_node_name(gss), RelationGetRelationName(gss->rel)),
						 errdetail("Row (%u,%u) needs its device quals evaluated on the CPU.",
								   chunk->blknos[bidx], (unsigned) off),
						 errhint("Set pg_strom.cpu_fallback = on.")));
			gss->counters.nrecheck++;
			if (!eval_dev_quals(gss, slot))
				continue;
		}
		gss->counters.nrows_out++;
		return true;
	}
	return false;
}

/* ----------------------------------------------------------------
 * the GPU pipeline
 * ----------------------------------------------------------------
 */
static GpuScanChunk *
take_inflight(GpuScanState *gss, uint32 request_id)
{
	ListCell   *lc;

	foreach(lc, gss->inflight)
	{
		GpuScanChunk *chunk = lfirst(lc);

		if (chunk->request_id == request_id)
		{
			gss->inflight = foreach_delete_current(gss->inflight, lc);
			return chunk;
		}
	}
	return NULL;
}

static void
accept_success(GpuScanState *gss, PgStromMsgHeader *msg)
{
	GpuScanChunk *chunk;
	XpuChunkResult *res;

	chunk = take_inflight(gss, msg->request_id);
	if (chunk == NULL)
	{
		pfree(msg);
		gpuscan_protocol_violation(gss, "reply to an unknown request");
	}
	/* whatever happens next, the chunk is no longer in flight */
	gss->current = chunk;
	chunk->cpu_mode = false;
	if (msg->length < sizeof(PgStromMsgHeader) + sizeof(XpuChunkResult))
		gpuscan_protocol_violation(gss, "truncated chunk result");
	res = (XpuChunkResult *) ((char *) msg + sizeof(PgStromMsgHeader));
	if (res->chunk_id != chunk->request_id ||
		res->nitems > chunk->nblocks * XPU_MAX_TUPLES_PER_PAGE ||
		(uint64) msg->length != sizeof(PgStromMsgHeader) + sizeof(XpuChunkResult) +
		(uint64) res->nitems * sizeof(uint32))
		gpuscan_protocol_violation(gss, "malformed chunk result");

	chunk->reply = msg;
	chunk->items = (uint32 *) ((char *) res + sizeof(XpuChunkResult));
	chunk->nitems = res->nitems;
	chunk->next_item = 0;
	gss->counters.nrows_in += res->ntuples;
	gss->counters.gpu_time_ns += res->gpu_time_ns;
}

/*
 * Fills the pipeline and takes one reply.  On return, gss->current is a
 * chunk to emit, or the mode changed to CPU, or there is nothing left.
 */
static void
gpu_step(GpuScanState *gss)
{
	char		errbuf[GPUSCAN_REASON_LEN];
	PgStromMsgHeader *msg;

	while (list_length(gss->inflight) < gss->max_inflight && !gss->source_done)
	{
		GpuScanChunk *chunk = gpuscan_build_chunk(gss);
		PgStromMsgHeader *hdr;
		XpuChunk   *xchunk;

		if (chunk == NULL)
			break;
		chunk->request_id = gss->next_request_id++;
		hdr = (PgStromMsgHeader *) chunk->buf;
		hdr->request_id = chunk->request_id;
		xchunk = (XpuChunk *) (chunk->buf + sizeof(PgStromMsgHeader));
		xchunk->chunk_id = chunk->request_id;
		/* in flight from now on: kept until answered or done on the CPU */
		gss->inflight = lappend(gss->inflight, chunk);
		if (gss->device_aggregates && !gss->chunk_sent)
		{
			/* before the send: a partial message may be taken, too */
			gss->chunk_sent = true;
			if (gss->shared)
			{
				SpinLockAcquire(&gss->shared->mutex);
				gss->shared->device_used = true;
				SpinLockRelease(&gss->shared->mutex);
			}
		}
		if (!pgstrom_gpu_send(gss->conn, chunk->buf, chunk->buf_len,
							  errbuf, sizeof(errbuf)))
		{
			gpuscan_transport_failed(gss, errbuf, "TaskExec");
			return;
		}
	}
	if (gss->inflight == NIL)
		return;

	msg = pgstrom_gpu_recv(gss->conn, errbuf, sizeof(errbuf));
	if (msg == NULL)
	{
		gpuscan_use_cpu(gss, errbuf);
		return;
	}
	switch (msg->tag)
	{
		case PGSTROM_MSG_SUCCESS:
			accept_success(gss, msg);
			break;
		case PGSTROM_MSG_ERROR:
			gpuscan_error_reply(gss, msg, "TaskExec");
			break;
		default:
			pfree(msg);
			gpuscan_protocol_violation(gss, "unexpected message tag");
	}
}

/*
 * Sends TaskFinal on gss's connection: its request id, or 0 (request ids
 * start at 1) when the send failed, with the reason in errbuf.
 */
uint32
gpuscan_send_task_final(GpuScanState *gss, char *errbuf, size_t errlen)
{
	PgStromMsgHeader hdr;

	memset(&hdr, 0, sizeof(hdr));
	hdr.magic = PGSTROM_MSG_MAGIC;
	hdr.tag = PGSTROM_MSG_TASK_FINAL;
	hdr.length = sizeof(hdr);
	hdr.request_id = gss->next_request_id++;
	if (!pgstrom_gpu_send(gss->conn, &hdr, sizeof(hdr), errbuf, errlen))
		return 0;
	return hdr.request_id;
}

/* TaskFinal and close; problems here cannot change the result any more */
static void
gpu_finish(GpuScanState *gss)
{
	PgStromMsgHeader *reply;
	char		errbuf[GPUSCAN_REASON_LEN];

	if (gss->conn == NULL)
		return;
	if (gpuscan_send_task_final(gss, errbuf, sizeof(errbuf)) != 0)
	{
		reply = pgstrom_gpu_recv(gss->conn, errbuf, sizeof(errbuf));
		if (reply == NULL)
			elog(DEBUG1, "GpuScan: no reply to TaskFinal: %s", errbuf);
		else
		{
			if (reply->tag != PGSTROM_MSG_SUCCESS)
				elog(DEBUG1, "GpuScan: TaskFinal answered with tag %u",
					 (unsigned) reply->tag);
			pfree(reply);
		}
	}
	pgstrom_gpu_close(gss->conn);
	gss->conn = NULL;
}

/* ----------------------------------------------------------------
 * the access method for ExecScan
 * ----------------------------------------------------------------
 */
/*
 * The next row that passes the device quals, stored in slot (a heap-tuple
 * slot over the relation's descriptor): false at the end of the scan, after
 * TaskFinal.  With device_aggregates, these are the rows the CPU must
 * aggregate.
 */
bool
gpuscan_next_tuple(GpuScanState *gss, TupleTableSlot *slot)
{
	MemoryContext oldcxt;

	oldcxt = MemoryContextSwitchTo(gss->css.ss.ps.state->es_query_cxt);
	if (gss->mode == GPUSCAN_MODE_INIT)
		gpuscan_start(gss);

	for (;;)
	{
		if (gss->current)
		{
			if (emit_from_chunk(gss, gss->current, slot))
			{
				MemoryContextSwitchTo(oldcxt);
				return true;
			}
			/* the slot must not point into a buffer that is reused */
			ExecClearTuple(slot);
			gpuscan_release_chunk(gss, gss->current);
			gss->current = NULL;
		}

		if (gss->mode == GPUSCAN_MODE_GPU)
		{
			gpu_step(gss);
			if (gss->mode == GPUSCAN_MODE_GPU && gss->current == NULL &&
				gss->inflight == NIL)
				break;			/* every chunk answered and emitted */
		}
		else if (gss->inflight != NIL)
		{
			/* sent but never answered: evaluate the kept copy here */
			gss->current = linitial(gss->inflight);
			gss->inflight = list_delete_first(gss->inflight);
			gss->current->cpu_mode = true;
			gss->current->cur_block = 0;
			gss->current->cur_offset = InvalidOffsetNumber;
		}
		else
		{
			GpuScanChunk *chunk = gpuscan_build_chunk(gss);

			if (chunk == NULL)
				break;
			chunk->cpu_mode = true;
			gss->current = chunk;
		}
	}

	/* end of scan */
	if (gss->finish_session)
		gss->finish_session(gss);
	else
		gpu_finish(gss);
	gpuscan_publish_counters(gss);
	MemoryContextSwitchTo(oldcxt);
	ExecClearTuple(slot);
	return false;
}

static TupleTableSlot *
gpuscan_next(ScanState *node)
{
	GpuScanState *gss = (GpuScanState *) node;
	TupleTableSlot *slot = node->ss_ScanTupleSlot;

	if (gpuscan_next_tuple(gss, slot))
		return slot;
	return ExecClearTuple(slot);
}

static bool
gpuscan_recheck(ScanState *node, TupleTableSlot *slot)
{
	GpuScanState *gss = (GpuScanState *) node;
	ExprContext *econtext = node->ps.ps_ExprContext;

	econtext->ecxt_scantuple = slot;
	return ExecQual(gss->dev_qual_state, econtext);
}

/* ----------------------------------------------------------------
 * CustomExecMethods
 * ----------------------------------------------------------------
 */
void
gpuscan_begin(CustomScanState *node, EState *estate, int eflags)
{
	GpuScanState *gss = (GpuScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;

	gss->rel = node->ss.ss_currentRelation;

#if PG_VERSION_NUM < 160000

	/*
	 * ExecInitCustomScan of PostgreSQL 15 made the scan slot virtual and
	 * compiled the host quals and the projection for that: the expression
	 * compiler drops the deforming step for a virtual slot.  Replace the
	 * slot with a heap-tuple one and compile both again.
	 */
	ExecInitScanTupleSlot(estate, &node->ss, RelationGetDescr(gss->rel),
						  &TTSOpsHeapTuple);
	ExecAssignScanProjectionInfoWithVarno(&node->ss, cscan->scan.scanrelid);
	node->ss.ps.qual = ExecInitQual(cscan->scan.plan.qual, &node->ss.ps);
#endif

	gss->dev_quals = cscan->custom_exprs;
	gss->dev_qual_state = ExecInitQual(cscan->custom_exprs, &node->ss.ps);
	gpuscan_begin_common(gss, estate);
}

/* the part of BeginCustomScan that GpuPreAgg shares */
void
gpuscan_begin_common(GpuScanState *gss, EState *estate)
{
	int			max_async;

	gss->rel = gss->css.ss.ss_currentRelation;
	gss->snapshot = estate->es_snapshot;
	gss->mode = GPUSCAN_MODE_INIT;

	max_async = pgstrom_max_async_tasks;
	if (pgstrom_service_shared != NULL)
		max_async = (int) pg_atomic_read_u32(&pgstrom_service_shared->max_async_tasks);
	gss->max_inflight = Max(1, Min(max_async, GPUSCAN_MAX_INFLIGHT));
}

TupleTableSlot *
gpuscan_exec(CustomScanState *node)
{
	return ExecScan(&node->ss, gpuscan_next, gpuscan_recheck);
}

/* drop the connection and every chunk; the scan can start over */
static void
gpuscan_cleanup(GpuScanState *gss)
{
	ListCell   *lc;

	if (gss->css.ss.ss_ScanTupleSlot)
		ExecClearTuple(gss->css.ss.ss_ScanTupleSlot);
	if (gss->conn)
	{
		pgstrom_gpu_close(gss->conn);
		gss->conn = NULL;
	}
	if (gss->current)
	{
		gpuscan_release_chunk(gss, gss->current);
		gss->current = NULL;
	}
	foreach(lc, gss->inflight)
		gpuscan_release_chunk(gss, (GpuScanChunk *) lfirst(lc));
	list_free(gss->inflight);
	gss->inflight = NIL;
}

void
gpuscan_end(CustomScanState *node)
{
	GpuScanState *gss = (GpuScanState *) node;

	gpuscan_cleanup(gss);
	gpuscan_publish_counters(gss);
	gpuscan_free_chunks(gss, false);
	gpuscan_release_buffers(gss);
	if (gss->strategy)
	{
		FreeAccessStrategy(gss->strategy);
		gss->strategy = NULL;
	}
	if (gss->snapshot_registered)
	{
		UnregisterSnapshot(gss->snapshot);
		gss->snapshot_registered = false;
	}
}

void
gpuscan_rescan(CustomScanState *node)
{
	GpuScanState *gss = (GpuScanState *) node;

	gpuscan_cleanup(gss);
	/* the buffers were attached to the closed connection: a new start makes new ones */
	gpuscan_free_chunks(gss, true);
	gpuscan_release_buffers(gss);
	gpuscan_source_reset(gss);
	gss->mode = GPUSCAN_MODE_INIT;
}
