/*-------------------------------------------------------------------------
 *
 * gpujoin_upload.c
 *		GpuJoin's inner rows to the service: PGSTROM_MSG_JOIN_INNER after
 *		OpenSession (the runtime's session_opened op), every depth in pieces
 *		of at most PGSTROM_JOIN_INNER_MAX_PIECE bytes of key rows.
 *
 * The service keeps each depth once per plan and device: the first piece
 * of a depth answers LOADED when another session of the plan (a parallel
 * participant) loaded it already.  While one is loading it the answer is
 * BUSY (the service may first hold the piece a little while the loader
 * runs its last piece, and answer LOADED when it is done), and the same
 * first piece is sent again after a short sleep, for at most
 * pg_strom.gpu_task_timeout.  Transport failures and Error
 * replies go through the runtime's CPU-fallback policy, like any other
 * request.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "pgstat.h"
#include "portability/instr_time.h"
#include "storage/latch.h"
#include "utils/memutils.h"

#include "core/pg_strom.h"
#include "gpujoin/gpujoin.h"

#define GPUJOIN_BUSY_SLEEP_MS	1
/*
 * The first piece of a depth asks for it: every participant sends one, and
 * all but the loader are answered LOADED without their rows being used, or
 * BUSY while the loader is still sending, and then ask again.  Whole 64 MB
 * first pieces sent all of the depth's rows from every participant (17 x
 * 7 MB for an SSB customer side), each read in full by the service before
 * it answered.  So the first piece is small and only the loader sends the
 * rest; the service holds a first piece only while the loader runs its
 * last one.
 */
#define GPUJOIN_FIRST_PIECE_BYTES	8192

/* one piece of depth d's rows as a message (palloc'd) */
static PgStromMsgHeader *
build_piece(GpuJoinState *gjs, int d, uint32 first_row, uint32 piece_rows)
{
	GpuJoinInner *inner = &gjs->inner[d];
	Size		rows_off = TYPEALIGN(16, sizeof(PgStromMsgHeader) + sizeof(PgStromMsgJoinInner));
	Size		len = rows_off + (Size) piece_rows * inner->row_size;
	char	   *buf = MemoryContextAllocHuge(CurrentMemoryContext, len);
	PgStromMsgHeader *hdr = (PgStromMsgHeader *) buf;
	PgStromMsgJoinInner *ji = (PgStromMsgJoinInner *) (buf + sizeof(PgStromMsgHeader));

	memset(buf, 0, rows_off);
	hdr->magic = PGSTROM_MSG_MAGIC;
	hdr->tag = PGSTROM_MSG_JOIN_INNER;
	hdr->length = (uint32) len;
	/* the rows' key on the device: the node's plan_id or its group's */
	ji->plan_id = gjs->inner_key != 0 ? gjs->inner_key : gjs->task->plan_id;
	ji->depth = d;
	ji->row_size = inner->row_size;
	ji->nrows = inner->nrows;
	ji->first_row = first_row;
	ji->piece_rows = piece_rows;
	ji->rows_offset = (uint32) rows_off;
	if (piece_rows > 0)
		memcpy(buf + rows_off, inner->key_rows + (Size) first_row * inner->row_size,
			   (Size) piece_rows * inner->row_size);
	return hdr;
}

/*
 * Sends one piece: its request id, or 0 (request ids start at 1) when the
 * node went to the CPU.
 */
static uint32
send_piece(GpuJoinState *gjs, int d, uint32 first_row, uint32 piece_rows)
{
	GpuTaskState *gts = gjs->task;
	char		errbuf[GPU_TASK_REASON_LEN];
	PgStromMsgHeader *msg = build_piece(gjs, d, first_row, piece_rows);
	uint32		request_id = gts->next_request_id++;
	bool		sent;

	msg->request_id = request_id;
	sent = pgstrom_gpu_send(gts->conn, msg, msg->length, errbuf, sizeof(errbuf));
	pfree(msg);
	if (!sent)
	{
		gpu_task_transport_failed(gts, errbuf, "JoinInner");
		return 0;
	}
	return request_id;
}

/*
 * Reads the reply to one of the pieces sent as request_id[0..n-1], for
 * depths depth[0..n-1]: the state, or -1 when the node went to the CPU;
 * *which is its index.  Replies to pieces of different depths may come in
 * any order.
 */
static int
read_piece_reply(GpuJoinState *gjs, const uint32 *request_id,
				 const int *depth, int n, int *which)
{
	GpuTaskState *gts = gjs->task;
	PgStromMsgJoinInnerReply reply;
	PgStromMsgHeader *res;
	int			i;

	res = gpu_task_recv(gts, "JoinInner");
	if (res == NULL)
		return -1;
	for (i = 0; i < n; i++)
	{
		if (request_id[i] != 0 && res->request_id == request_id[i])
			break;
	}
	if (i == n || res->tag != PGSTROM_MSG_SUCCESS ||
		res->length < sizeof(PgStromMsgHeader) + sizeof(reply))
	{
		pfree(res);
		gpu_task_protocol_violation(gts, "not a Success reply to JoinInner");
	}
	memcpy(&reply, (char *) res + sizeof(PgStromMsgHeader), sizeof(reply));
	pfree(res);
	if (reply.state == PGSTROM_JOIN_INNER_LOADED)
	{
		gjs->build_ns[depth[i]] = reply.build_ns;
		gjs->device_bytes[depth[i]] = reply.bytes;
	}
	*which = i;
	return (int) reply.state;
}

/* the rows of depth d's first piece */
static uint32
first_piece_rows(GpuJoinState *gjs, int d)
{
	GpuJoinInner *inner = &gjs->inner[d];
	uint32		max_rows = Max(1, PGSTROM_JOIN_INNER_MAX_PIECE / inner->row_size);

	return Min(inner->nrows,
			   Max(1, Min(max_rows, GPUJOIN_FIRST_PIECE_BYTES / inner->row_size)));
}

/*
 * Depth d, whose first piece was answered with state: loads the rest when
 * this session is the loader (MORE), or asks again while another one loads
 * it (BUSY).  False when the node went to the CPU.
 */
static bool
finish_depth(GpuJoinState *gjs, int d, int state)
{
	GpuJoinInner *inner = &gjs->inner[d];
	uint32		max_rows = Max(1, PGSTROM_JOIN_INNER_MAX_PIECE / inner->row_size);
	uint32		first_row = 0;
	uint32		piece_rows = first_piece_rows(gjs, d);
	instr_time	start,
				now;

	INSTR_TIME_SET_CURRENT(start);
	for (;;)
	{
		uint32		request_id;
		int			which;

		switch (state)
		{
			case -1:
				return false;
			case PGSTROM_JOIN_INNER_LOADED:
				return true;
			case PGSTROM_JOIN_INNER_MORE:
				first_row += piece_rows;
				if (piece_rows == 0 || first_row >= inner->nrows)
					gpu_task_protocol_violation(gjs->task, "JoinInner asked for rows past the depth's last");
				piece_rows = Min(inner->nrows - first_row, max_rows);
				break;
			case PGSTROM_JOIN_INNER_BUSY:
				if (first_row != 0)
					gpu_task_protocol_violation(gjs->task, "JoinInner answered busy to a loader");
				INSTR_TIME_SET_CURRENT(now);
				INSTR_TIME_SUBTRACT(now, start);
				if (pgstrom_gpu_task_timeout_ms > 0 &&
					INSTR_TIME_GET_MILLISEC(now) > pgstrom_gpu_task_timeout_ms)
				{
					gpu_task_use_cpu(gjs->task, "timed out waiting for another participant to load the inner rows");
					return false;
				}
				(void) WaitLatch(MyLatch,
								 WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
								 GPUJOIN_BUSY_SLEEP_MS, PG_WAIT_EXTENSION);
				ResetLatch(MyLatch);
				CHECK_FOR_INTERRUPTS();
				break;
			default:
				gpu_task_protocol_violation(gjs->task, "unknown JoinInner state");
		}
		request_id = send_piece(gjs, d, first_row, piece_rows);
		if (request_id == 0)
			return false;
		state = read_piece_reply(gjs, &request_id, &d, 1, &which);
	}
}

void
gpujoin_upload_inner(GpuTaskState *gts)
{
	gpujoin_upload_depths((GpuJoinState *) gts);
}

/* every depth's rows to the service, after OpenSession of gjs->task */
void
gpujoin_upload_depths(GpuJoinState *gjs)
{
	uint32		request_id[GPUJOIN_MAX_DEPTHS];
	int			depths[GPUJOIN_MAX_DEPTHS];
	int			state[GPUJOIN_MAX_DEPTHS];
	int			d;

	/*
	 * Every depth's first piece goes out before any reply is read: the
	 * service answers them one after another without waiting for us, and
	 * a session whose depths are loaded already (every leaf of a
	 * partitioned outer side but the first) needs one round trip, not one
	 * a depth.  The service keeps each depth's load apart, so this session
	 * may be the loader of several.
	 */
	for (d = 0; d < gjs->info->ndepths; d++)
	{
		depths[d] = d;
		request_id[d] = send_piece(gjs, d, 0, first_piece_rows(gjs, d));
		if (request_id[d] == 0)
			return;
	}
	for (d = 0; d < gjs->info->ndepths; d++)
	{
		int			which;
		int			st = read_piece_reply(gjs, request_id, depths, gjs->info->ndepths, &which);

		if (st < 0)
			return;
		state[which] = st;
		request_id[which] = 0;	/* answered */
	}
	for (d = 0; d < gjs->info->ndepths; d++)
	{
		if (!finish_depth(gjs, d, state[d]))
			return;
	}
	/* the participants' figures meet in the DSM for EXPLAIN */
	if (gjs->jshared)
	{
		SpinLockAcquire(&gjs->jshared->mutex);
		for (d = 0; d < gjs->info->ndepths; d++)
		{
			gjs->jshared->build_ns[d] = Max(gjs->jshared->build_ns[d], gjs->build_ns[d]);
			gjs->jshared->device_bytes[d] = Max(gjs->jshared->device_bytes[d],
												gjs->device_bytes[d]);
		}
		SpinLockRelease(&gjs->jshared->mutex);
	}
}
