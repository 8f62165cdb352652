/*-------------------------------------------------------------------------
 *
 * task_start.c
 *		Start of a GPU node: GPU or CPU.
 *
 * At the first row the node connects to the GPU service of the first
 * device, sends the OpenSession message its ops build (and, without
 * waiting, what the node sends with it: GpuJoin's first inner pieces) and
 * waits for its Success.  It also notes whether the device registered
 * PostgreSQL's shared buffers, which the data path depends on
 * (task_source.c).
 * Anything that keeps the service from being used sends the node to the
 * CPU (task_fallback.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "storage/bufmgr.h"
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
	if (gts->ops->session_sent)
	{
		gts->ops->session_sent(gts);
		if (gts->mode == GPU_TASK_MODE_CPU)
			return false;
	}

	/*
	 * Replies to what the node sent with OpenSession, an Error included,
	 * go to the node: OpenSession's own reply is acted on first, as when
	 * the node sent nothing before it came.
	 */
	for (;;)
	{
		reply = pgstrom_gpu_recv(gts->conn, errbuf, sizeof(errbuf));
		if (reply == NULL)
		{
			gpu_task_use_cpu(gts, errbuf);
			return false;
		}
		if (reply->request_id == PGSTROM_SESSION_REQUEST_ID)
			break;
		/* a reply the node takes is its own to free */
		if (gts->ops->early_reply != NULL && gts->ops->early_reply(gts, reply))
			continue;
		/* an Error of the connection's (a refused connection, say) */
		if (reply->tag == PGSTROM_MSG_ERROR)
			break;
		pfree(reply);
		gpu_task_protocol_violation(gts, "a reply to an unknown request before OpenSession's");
	}
	if (reply->tag == PGSTROM_MSG_ERROR)
	{
		gpu_task_error_reply(gts, reply, "OpenSession");
		return false;
	}
	if (reply->tag != PGSTROM_MSG_SUCCESS)
	{
		pfree(reply);
		gpu_task_protocol_violation(gts, "not a Success reply to OpenSession");
	}
	pfree(reply);
	return true;
}

void
gpu_task_start(GpuTaskState *gts)
{
	PgStromServiceShared *ss = pgstrom_service_shared;
	PgStromServiceState state;
	int			device = -1;
	char		errbuf[GPU_TASK_REASON_LEN];
	uint64		shared_bytes = (uint64) NBuffers * BLCKSZ;

	gts->next_request_id = PGSTROM_SESSION_REQUEST_ID + 1;
	if (ss == NULL)
	{
		gpu_task_use_cpu(gts, "pg_strom is not loaded via shared_preload_libraries");
		return;
	}
	LWLockAcquire(ss->lock, LW_SHARED);
	state = ss->state;
	if (ss->devices.ndevices > 0)
	{
		PgStromDeviceInfo *dev = &ss->devices.devices[0];

		device = dev->index;
		gts->device_page_cache = (dev->page_cache_bytes > 0);
		gts->device_registered = (dev->shared_registered == shared_bytes);
		strlcpy(gts->device_reason, dev->shared_reason,
				sizeof(gts->device_reason));
		if (!gts->device_registered && gts->device_reason[0] == '\0')
			snprintf(gts->device_reason, sizeof(gts->device_reason),
					 "%llu of %llu bytes registered",
					 (unsigned long long) dev->shared_registered,
					 (unsigned long long) shared_bytes);
	}
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
	/*
	 * A late participant of a plan being collected: every other one finished
	 * its scan, so no block is left for this one, and nothing is worth
	 * telling EXPLAIN.  (A session opened meanwhile is refused the same way.)
	 */
	if (gts->ops->device_keeps_rows && gpu_task_kept_closed(gts))
	{
		gpu_task_kept_leave(gts);
		return;
	}
	if (!open_session(gts, device))
		return;
	if (gts->ops->session_opened)
	{
		gts->ops->session_opened(gts);
		if (gts->mode == GPU_TASK_MODE_CPU)
			return;
	}
	if (gts->ops->device_keeps_rows && !gpu_task_kept_register(gts))
	{
		gpu_task_kept_leave(gts);
		return;
	}
	gts->mode = GPU_TASK_MODE_GPU;
}
