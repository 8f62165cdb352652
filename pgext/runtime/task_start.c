/*-------------------------------------------------------------------------
 *
 * task_start.c
 *		Start of a GPU node: GPU or CPU.
 *
 * At the first row the node connects to the GPU service of the first
 * device, sends the OpenSession message its ops build and waits for its
 * Success.  With pg_strom.shared_chunk_buffers it then creates one shared
 * chunk buffer (a memfd) per in-flight slot and attaches each with
 * ATTACH_BUFFER, so chunks are built straight into memory the service has
 * mapped and pinned and a TaskExec carries only its header; if the service
 * refuses (an older one answers Error and closes), the node opens a new
 * connection and session and sends the pages inline instead.  Anything
 * that keeps the service from being used sends the node to the CPU
 * (task_fallback.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "storage/lwlock.h"
#include "utils/rel.h"

#include "core/pg_strom.h"
#include "service/service_state.h"
#include "runtime/gpu_task.h"

/*
 * Connects to the service and opens the session.  False when the node went
 * to the CPU instead (or, with pg_strom.cpu_fallback off, it raised).
 */
static bool
open_session(GpuTaskState *gts, int device)
{
	char		errbuf[GPU_TASK_REASON_LEN];
	StringInfo	session;
	const char *cpu_reason = "the node has no work for the GPU";
	PgStromMsgHeader *reply;

	session = gts->ops->build_session(gts, &cpu_reason);
	if (session == NULL)
	{
		gpu_task_use_cpu(gts, cpu_reason);
		return false;
	}
	gts->conn = pgstrom_gpu_connect(device,
									gts->css.ss.ps.state->es_query_cxt,
									errbuf, sizeof(errbuf));
	if (gts->conn == NULL)
	{
		gpu_task_use_cpu(gts, errbuf);
		return false;
	}
	if (!pgstrom_gpu_send(gts->conn, session->data, session->len,
						  errbuf, sizeof(errbuf)))
	{
		gpu_task_transport_failed(gts, errbuf, "OpenSession");
		return false;
	}
	pfree(session->data);
	pfree(session);

	reply = pgstrom_gpu_recv(gts->conn, errbuf, sizeof(errbuf));
	if (reply == NULL)
	{
		gpu_task_use_cpu(gts, errbuf);
		return false;
	}
	if (reply->tag == PGSTROM_MSG_ERROR)
	{
		gpu_task_error_reply(gts, reply, "OpenSession");
		return false;
	}
	if (reply->tag != PGSTROM_MSG_SUCCESS ||
		reply->request_id != PGSTROM_SESSION_REQUEST_ID)
	{
		pfree(reply);
		gpu_task_protocol_violation(gts, "not a Success reply to OpenSession");
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
	ATTACH_CPU					/* the transport failed: the node went to
								 * the CPU */
} GpuTaskAttachResult;

/*
 * Creates one shared chunk buffer per in-flight slot and attaches it to the
 * connection as buffer_id slot + 1, one request at a time.  On anything but
 * ATTACH_OK no buffer is left (gts->nbuffers is 0), so chunks are built
 * inline.
 */
static GpuTaskAttachResult
attach_buffers(GpuTaskState *gts)
{
	char		errbuf[GPU_TASK_REASON_LEN];
	Size		size;
	int			nslots = gts->max_inflight;
	int			i;

	Assert(gts->nbuffers == 0 && gts->nbuffers_used == 0);
	StaticAssertStmt(GPU_TASK_MAX_INFLIGHT <= XPU_MAX_BUFFERS_PER_CONNECTION,
					 "more in-flight slots than buffers per connection");
	nslots = Min(nslots, GPU_TASK_MAX_INFLIGHT);
	size = (Size) gpu_task_chunk_capacity(gts) * BLCKSZ;

	for (i = 0; i < nslots; i++)
	{
		GpuSharedBuffer *buf = pgstrom_gpu_buffer_create(size, errbuf,
														 sizeof(errbuf));

		if (buf == NULL)
		{
			ereport(DEBUG1,
					(errmsg_internal("%s on \"%s\" sends pages inline: %s",
									 gpu_task_node_name(gts), RelationGetRelationName(gts->rel),
									 errbuf)));
			gpu_task_release_buffers(gts);
			return ATTACH_LOCAL_FAILURE;
		}
		gts->buffers[gts->nbuffers++] = buf;
	}

	for (i = 0; i < gts->nbuffers; i++)
	{
		uint32		request_id = gts->next_request_id++;
		PgStromMsgHeader *reply;

		if (!pgstrom_gpu_buffer_attach(gts->conn, gts->buffers[i],
									   (uint32) (i + 1), request_id,
									   errbuf, sizeof(errbuf)))
		{
			gpu_task_release_buffers(gts);
			gpu_task_use_cpu(gts, errbuf);
			return ATTACH_CPU;
		}
		reply = pgstrom_gpu_recv(gts->conn, errbuf, sizeof(errbuf));
		if (reply == NULL)
		{
			gpu_task_release_buffers(gts);
			gpu_task_use_cpu(gts, errbuf);
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
									 gpu_task_node_name(gts), RelationGetRelationName(gts->rel),
									 i + 1, what)));
			pfree(reply);
			gpu_task_release_buffers(gts);
			return ATTACH_REFUSED;
		}
		if (reply->tag != PGSTROM_MSG_SUCCESS ||
			reply->request_id != request_id)
		{
			pfree(reply);
			gpu_task_protocol_violation(gts, "not a Success reply to AttachBuffer");
		}
		pfree(reply);
	}
	ereport(DEBUG1,
			(errmsg_internal("%s on \"%s\" attached %d shared chunk buffers of %zu bytes",
							 gpu_task_node_name(gts), RelationGetRelationName(gts->rel),
							 gts->nbuffers, size)));
	return ATTACH_OK;
}

void
gpu_task_start(GpuTaskState *gts)
{
	PgStromServiceShared *ss = pgstrom_service_shared;
	PgStromServiceState state;
	int			device = -1;
	char		errbuf[GPU_TASK_REASON_LEN];

	gts->next_request_id = PGSTROM_SESSION_REQUEST_ID + 1;
	if (ss == NULL)
	{
		gpu_task_use_cpu(gts, "pg_strom is not loaded via shared_preload_libraries");
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
		gpu_task_use_cpu(gts, errbuf);
		return;
	}
	if (device < 0)
	{
		gpu_task_use_cpu(gts, "service reports no GPU device");
		return;
	}

	gts->plan_id = gpu_task_make_plan_id(gts);
	if (!open_session(gts, device))
		return;

	/*
	 * Shared chunk buffers skip two host copies, but the service pins each
	 * buffer when it is attached, once per scan and backend; measured on an
	 * H200 that made a 16-worker scan slower (1.0 s) than inline chunks
	 * (0.49 s), so they stay off until buffers outlive a scan.
	 */
	if (!pgstrom_shared_chunk_buffers)
	{
		gts->mode = GPU_TASK_MODE_GPU;
		return;
	}
	switch (attach_buffers(gts))
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
			pgstrom_gpu_close(gts->conn);
			gts->conn = NULL;
			if (!open_session(gts, device))
				return;
			break;
	}
	gts->mode = GPU_TASK_MODE_GPU;
}
