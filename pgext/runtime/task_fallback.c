/*-------------------------------------------------------------------------
 *
 * task_fallback.c
 *		The CPU-fallback policy of GPU nodes, and the service's errors.
 *
 * When the service is not ready, the connection fails, the transport
 * breaks mid-query, or the service answers with an error that says the
 * device cannot do the work (no memory, device error, not supported), the
 * node carries on without the GPU, provided pg_strom.cpu_fallback is on:
 * the same chunk builder, and every chunk goes through the node's
 * cpu_next_row.  Chunks already sent but not answered are evaluated from
 * the page copies still held, so no row is lost or returned twice.  With
 * pg_strom.cpu_fallback off the query fails with an explanation instead.
 *
 * A node whose rows stay on the device until TaskFinal (device_keeps_rows)
 * carries on too: the blocks of its answered chunks are evaluated again on
 * the CPU at the end of its scan (task_kept.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/rel.h"

#include "core/pg_strom.h"
#include "runtime/gpu_task.h"

void
gpu_task_use_cpu(GpuTaskState *gts, const char *reason)
{
	if (gts->ops->device_keeps_rows && gts->kept_registered &&
		!pgstrom_cpu_fallback_enabled)
		ereport(ERROR,
				(errcode(ERRCODE_CONNECTION_FAILURE),
				 errmsg("GPU service failed during %s on \"%s\"",
						gpu_task_node_name(gts), RelationGetRelationName(gts->rel)),
				 errdetail("%s.", reason),
				 errhint("Set pg_strom.cpu_fallback = on to evaluate again on the CPU the rows the GPU had.")));
	if (gts->ops->device_keeps_rows)
	{
		if (!gts->kept_registered && gpu_task_kept_closed(gts))
		{
			/*
			 * A late participant of a plan being collected (its session may
			 * have been refused for that): every block was handed out, no
			 * row is left for it, and nothing is worth telling EXPLAIN.
			 */
			gpu_task_kept_leave(gts);
			return;
		}
		gpu_task_kept_rows_lost(gts);
	}
	if (!pgstrom_cpu_fallback_enabled)
		ereport(ERROR,
				(errcode(ERRCODE_CONNECTION_FAILURE),
				 errmsg("GPU service is not available"),
				 errdetail("%s on \"%s\": %s",
						   gpu_task_node_name(gts), RelationGetRelationName(gts->rel), reason),
				 errhint("Set pg_strom.cpu_fallback = on to evaluate %s on the CPU when the GPU service cannot be used.", gpu_task_node_name(gts))));

	ereport(DEBUG1,
			(errmsg_internal("%s on \"%s\" runs on the CPU: %s",
							 gpu_task_node_name(gts), RelationGetRelationName(gts->rel), reason)));
	if (gts->conn)
	{
		pgstrom_gpu_close(gts->conn);
		gts->conn = NULL;
	}
	if (gts->cpu_reason[0] == '\0')
		strlcpy(gts->cpu_reason, reason, sizeof(gts->cpu_reason));
	gts->mode = GPU_TASK_MODE_CPU;
}

void
gpu_task_protocol_violation(GpuTaskState *gts, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROTOCOL_VIOLATION),
			 errmsg("%s on \"%s\": unexpected reply from the GPU service: %s",
					gpu_task_node_name(gts), RelationGetRelationName(gts->rel), what),
			 gts->conn ? errcontext("GPU service at \"%s\"",
									pgstrom_gpu_conn_path(gts->conn)) : 0));
	pg_unreachable();
}

/*
 * The service refused a request as malformed.  If it was a chunk, the
 * device may have found a corrupt page that the CPU did not look into
 * when the chunk was built: that is reported as data corruption (this
 * raises), not as a protocol error.
 */
static void
check_refused_chunk(GpuTaskState *gts, uint32 request_id)
{
	ListCell   *lc;

	foreach(lc, gts->inflight)
	{
		GpuTaskChunk *chunk = (GpuTaskChunk *) lfirst(lc);

		if (chunk->request_id == request_id)
		{
			gpu_task_check_chunk_pages(gts, chunk);
			return;
		}
	}
}

/*
 * An Error reply.  Device trouble (out of memory, device error, a request
 * the service does not implement) continues on the CPU when allowed;
 * anything else is a bug somewhere and is raised.
 */
void
gpu_task_error_reply(GpuTaskState *gts, PgStromMsgHeader *msg, const char *during)
{
	PgStromMsgError err;
	bool		recoverable;
	char		path[MAXPGPATH];
	uint32		request_id = msg->request_id;

	if (msg->length < sizeof(PgStromMsgHeader) + sizeof(PgStromMsgError))
	{
		pfree(msg);
		gpu_task_protocol_violation(gts, "truncated error reply");
	}
	memcpy(&err, (char *) msg + sizeof(PgStromMsgHeader), sizeof(err));
	pfree(msg);
	if (err.code == PGSTROM_ERR_PROTOCOL)
		check_refused_chunk(gts, request_id);
	err.filename[sizeof(err.filename) - 1] = '\0';
	err.funcname[sizeof(err.funcname) - 1] = '\0';
	err.message[sizeof(err.message) - 1] = '\0';

	recoverable = (err.code == PGSTROM_ERR_NO_MEMORY ||
				   err.code == PGSTROM_ERR_DEVICE ||
				   err.code == PGSTROM_ERR_UNSUPPORTED);
	if (recoverable && pgstrom_cpu_fallback_enabled)
	{
		char		reason[GPU_TASK_REASON_LEN];

		snprintf(reason, sizeof(reason), "GPU service error during %s: %s",
				 during, err.message);
		gpu_task_use_cpu(gts, reason);
		return;
	}

	strlcpy(path, gts->conn ? pgstrom_gpu_conn_path(gts->conn) : "?",
			sizeof(path));
	ereport(ERROR,
			(errcode(pgstrom_service_errcode(err.code)),
			 errmsg("%s", err.message),
			 recoverable ?
			 errhint("Set pg_strom.cpu_fallback = on to evaluate %s on the CPU when the GPU cannot.", gpu_task_node_name(gts)) : 0,
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
void
gpu_task_transport_failed(GpuTaskState *gts, const char *reason, const char *during)
{
	char		errbuf[GPU_TASK_REASON_LEN];
	PgStromMsgHeader *msg;

	while (gts->conn != NULL &&
		   (msg = pgstrom_gpu_recv(gts->conn, errbuf, sizeof(errbuf))) != NULL)
	{
		if (msg->tag == PGSTROM_MSG_ERROR)
		{
			gpu_task_error_reply(gts, msg, during);
			if (gts->mode == GPU_TASK_MODE_CPU)
				return;
		}
		else
			pfree(msg);
	}
	gpu_task_use_cpu(gts, reason);
}

/*
 * The next message from the service, or NULL when there is none to act on:
 * a broken transport and an Error reply are settled here by the fallback
 * policy (the node went to the CPU, or this raised).
 */
PgStromMsgHeader *
gpu_task_recv(GpuTaskState *gts, const char *during)
{
	char		errbuf[GPU_TASK_REASON_LEN];
	PgStromMsgHeader *msg = pgstrom_gpu_recv(gts->conn, errbuf, sizeof(errbuf));

	if (msg == NULL)
	{
		gpu_task_use_cpu(gts, errbuf);
		return NULL;
	}
	if (msg->tag == PGSTROM_MSG_ERROR)
	{
		gpu_task_error_reply(gts, msg, during);
		return NULL;
	}
	return msg;
}
