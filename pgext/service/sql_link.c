/*-------------------------------------------------------------------------
 *
 * sql_link.c
 *		pgstrom.gpu_link_bandwidth(): the host-to-device and device-to-host
 *		bandwidth of every GPU, measured by the GPU service.
 *
 * For each device the service state lists, the backend connects to the
 * device's socket and sends a PGSTROM_MSG_LINK_PROBE request; the service
 * copies size_mb megabytes between pinned host memory and device memory
 * from its pool, once untimed and then `copies` times in each direction,
 * and answers the wall time of the timed copies.  GB/s are 10^9 bytes per
 * second.  The probe takes device memory and occupies the link, so the SQL
 * script revokes EXECUTE from PUBLIC: superusers, and roles they GRANT it
 * to, may run it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "storage/lwlock.h"
#include "utils/tuplestore.h"

#include "core/pg_strom.h"
#include "service/service_state.h"
#include "client/gpu_client.h"

PG_FUNCTION_INFO_V1(pgstrom_gpu_link_bandwidth);

#define GPU_LINK_BANDWIDTH_COLS		5
#define LINK_PROBE_REQUEST_ID		1
#define LINK_PROBE_MAX_SIZE_MB	(PGSTROM_LINK_PROBE_MAX_BYTES / PGSTROM_LINK_PROBE_UNIT)
#define LINK_PROBE_MAX_COPIES	PGSTROM_LINK_PROBE_MAX_COPIES

/* what the service state says about the devices */
typedef struct LinkProbeTargets
{
	PgStromServiceState state;
	char		reason[PGSTROM_REASON_LEN];
	int			ndevices;
	int32		devices[PGSTROM_MAX_DEVICES];
} LinkProbeTargets;

static void
read_targets(LinkProbeTargets *t)
{
	PgStromServiceShared *ss = pgstrom_service_shared;
	int			i;

	if (ss == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("pg_strom must be loaded via shared_preload_libraries")));

	LWLockAcquire(ss->lock, LW_SHARED);
	t->state = ss->state;
	strlcpy(t->reason, ss->reason, sizeof(t->reason));
	t->ndevices = Min(ss->devices.ndevices, PGSTROM_MAX_DEVICES);
	for (i = 0; i < t->ndevices; i++)
		t->devices[i] = ss->devices.devices[i].index;
	LWLockRelease(ss->lock);
}

static void
link_not_available(int32 device, const char *reason)
{
	ereport(ERROR,
			(errcode(ERRCODE_CONNECTION_FAILURE),
			 errmsg("GPU service is not available"),
			 errdetail("Link probe of GPU %d: %s.", device, reason)));
}

static void
link_protocol_violation(int32 device, const char *path, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROTOCOL_VIOLATION),
			 errmsg("unexpected reply from the GPU service: %s", what),
			 errcontext("GPU service at \"%s\", link probe of GPU %d",
						path, device)));
}

/* raises the Error reply msg; the connection is closed first */
static void
link_error_reply(GpuServiceConn *conn, int32 device, PgStromMsgHeader *msg)
{
	PgStromMsgError err;
	char		path[MAXPGPATH];

	strlcpy(path, pgstrom_gpu_conn_path(conn), sizeof(path));
	pgstrom_gpu_close(conn);
	if (msg->length < sizeof(PgStromMsgHeader) + sizeof(PgStromMsgError))
		link_protocol_violation(device, path, "truncated error reply");
	memcpy(&err, (char *) msg + sizeof(PgStromMsgHeader), sizeof(err));
	pfree(msg);
	err.filename[sizeof(err.filename) - 1] = '\0';
	err.funcname[sizeof(err.funcname) - 1] = '\0';
	err.message[sizeof(err.message) - 1] = '\0';

	ereport(ERROR,
			(errcode(pgstrom_service_errcode(err.code)),
			 errmsg("%s", err.message),
			 err.code == PGSTROM_ERR_NO_MEMORY ?
			 errhint("Try a smaller size_mb, or again when the GPU is less busy.") : 0,
			 errcontext("GPU service at \"%s\", %s:%d (%s), during the link probe of GPU %d",
						path, err.filename, err.lineno, err.funcname, device)));
}

/*
 * Probes one device; the reply is checked against the request before it
 * is returned in *out.
 */
static void
probe_device(int32 device, uint64 bytes, uint32 copies,
			 PgStromMsgLinkProbeReply *out)
{
	char		errbuf[PGSTROM_REASON_LEN];
	char		msg[sizeof(PgStromMsgHeader) + sizeof(PgStromMsgLinkProbe)];
	PgStromMsgHeader hdr;
	PgStromMsgLinkProbe probe;
	PgStromMsgHeader *reply;
	GpuServiceConn *conn;
	char		path[MAXPGPATH];
	const char *bad = NULL;

	conn = pgstrom_gpu_connect(device, CurrentMemoryContext,
							   errbuf, sizeof(errbuf));
	if (conn == NULL)
		link_not_available(device, errbuf);

	memset(&hdr, 0, sizeof(hdr));
	hdr.magic = PGSTROM_MSG_MAGIC;
	hdr.tag = PGSTROM_MSG_LINK_PROBE;
	hdr.length = sizeof(msg);
	hdr.request_id = LINK_PROBE_REQUEST_ID;
	memset(&probe, 0, sizeof(probe));
	probe.bytes = bytes;
	probe.copies = copies;
	memcpy(msg, &hdr, sizeof(hdr));
	memcpy(msg + sizeof(hdr), &probe, sizeof(probe));

	/*
	 * A failed send leaves the connection failed; the receive then returns
	 * an Error reply the service sent before it closed, or the reason.
	 */
	(void) pgstrom_gpu_send(conn, msg, sizeof(msg), errbuf, sizeof(errbuf));
	reply = pgstrom_gpu_recv(conn, errbuf, sizeof(errbuf));
	if (reply == NULL)
	{
		pgstrom_gpu_close(conn);
		link_not_available(device, errbuf);
	}
	if (reply->tag == PGSTROM_MSG_ERROR)
		link_error_reply(conn, device, reply);

	if (reply->tag != PGSTROM_MSG_SUCCESS)
		bad = psprintf("message tag %u, want Success", (unsigned) reply->tag);
	else if (reply->request_id != LINK_PROBE_REQUEST_ID)
		bad = psprintf("reply to request %u, want %u",
					   reply->request_id, LINK_PROBE_REQUEST_ID);
	else if (reply->length != sizeof(PgStromMsgHeader) + sizeof(PgStromMsgLinkProbeReply))
		bad = psprintf("link probe reply of %u bytes, want %zu", reply->length,
					   sizeof(PgStromMsgHeader) + sizeof(PgStromMsgLinkProbeReply));
	else
	{
		memcpy(out, (char *) reply + sizeof(PgStromMsgHeader), sizeof(*out));
		if (out->device_index != device || out->bytes != bytes ||
			out->copies != copies)
			bad = psprintf("reply for GPU %d, %llu bytes x %u copies",
						   out->device_index,
						   (unsigned long long) out->bytes, out->copies);
		else if (out->h2d_ns == 0 || out->d2h_ns == 0)
			bad = "a copy time of 0 ns";
	}
	pfree(reply);
	strlcpy(path, pgstrom_gpu_conn_path(conn), sizeof(path));
	pgstrom_gpu_close(conn);
	if (bad != NULL)
		link_protocol_violation(device, path, bad);
}

Datum
pgstrom_gpu_link_bandwidth(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int32		size_mb = PG_GETARG_INT32(0);
	int32		copies = PG_GETARG_INT32(1);
	LinkProbeTargets targets;
	uint64		bytes;
	int			i;

	if (size_mb < 1 || size_mb > LINK_PROBE_MAX_SIZE_MB)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("size_mb must be between 1 and %d, got %d",
						LINK_PROBE_MAX_SIZE_MB, size_mb)));
	if (copies < 1 || copies > LINK_PROBE_MAX_COPIES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("copies must be between 1 and %d, got %d",
						LINK_PROBE_MAX_COPIES, copies)));
	bytes = (uint64) size_mb << 20;

	read_targets(&targets);
	if (targets.state != PGSTROM_SERVICE_READY)
		ereport(ERROR,
				(errcode(ERRCODE_CONNECTION_FAILURE),
				 errmsg("GPU service is not available"),
				 targets.reason[0] != '\0' ?
				 errdetail("The service state is %s: %s.",
						   pgstrom_service_state_name(targets.state),
						   targets.reason) :
				 errdetail("The service state is %s.",
						   pgstrom_service_state_name(targets.state))));
	if (targets.ndevices == 0)
		ereport(ERROR,
				(errcode(ERRCODE_CONNECTION_FAILURE),
				 errmsg("GPU service is not available"),
				 errdetail("The service reports no GPU device.")));

	InitMaterializedSRF(fcinfo, 0);
	for (i = 0; i < targets.ndevices; i++)
	{
		PgStromMsgLinkProbeReply r;
		Datum		values[GPU_LINK_BANDWIDTH_COLS];
		bool		nulls[GPU_LINK_BANDWIDTH_COLS];
		double		total = (double) bytes * (double) copies;

		probe_device(targets.devices[i], bytes, (uint32) copies, &r);
		memset(nulls, 0, sizeof(nulls));
		values[0] = Int32GetDatum(r.device_index);
		values[1] = Int64GetDatum((int64) r.bytes);
		values[2] = Int32GetDatum((int32) r.copies);
		/* bytes per ns = 10^9 bytes per second = GB/s */
		values[3] = Float8GetDatum(total / (double) r.h2d_ns);
		values[4] = Float8GetDatum(total / (double) r.d2h_ns);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc,
							 values, nulls);
	}
	return (Datum) 0;
}
