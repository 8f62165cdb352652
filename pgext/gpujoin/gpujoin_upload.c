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
 * The state a Success reply to a piece of depth d gives (taking the
 * depth's figures when it is loaded); res is freed.
 */
static int
piece_state(GpuJoinState *gjs, int d, PgStromMsgHeader *res)
{
	PgStromMsgJoinInnerReply reply;

	if (res->tag != PGSTROM_MSG_SUCCESS ||
		res->length < sizeof(PgStromMsgHeader) + sizeof(reply))
	{
		pfree(res);
		gpu_task_protocol_violation(gjs->task, "not a Success reply to JoinInner");
	}
	memcpy(&reply, (char *) res + sizeof(PgStromMsgHeader), sizeof(reply));
	pfree(res);
	if (reply.state == PGSTROM_JOIN_INNER_LOADED)
	{
		gjs->build_ns[d] = reply.build_ns;
		gjs->device_bytes[d] = reply.bytes;
	}
	return (int) reply.state;
}

/*
 * Reads the reply to the piece of depth d sent as request_id: the state,
 * or -1 when the node went to the CPU.
 */
static int
read_piece_reply(GpuJoinState *gjs, int d, uint32 request_id)
{
	PgStromMsgHeader *res = gpu_task_recv(gjs->task, "JoinInner");

	if (res == NULL)
		return -1;
	if (res->request_id != request_id)
	{
		pfree(res);
		gpu_task_protocol_violation(gjs->task, "not a Success reply to JoinInner");
	}
	return piece_state(gjs, d, res);
}

/*
 * A reply to one of the first pieces: its state is noted and res freed, or
 * an Error kept for after OpenSession's reply (true); or it answers none of
 * them (false, res kept).
 */
static bool
take_first_piece_reply(GpuJoinState *gjs, PgStromMsgHeader *res)
{
	int			d;

	for (d = 0; d < gjs->info->ndepths; d++)
	{
		if (gjs->first_piece_id[d] != 0 && res->request_id == gjs->first_piece_id[d])
		{
			gjs->first_piece_id[d] = 0;
			if (res->tag == PGSTROM_MSG_ERROR)
			{
				if (gjs->first_piece_error == NULL)
					gjs->first_piece_error = res;
				else
					pfree(res);
				gjs->first_piece_state[d] = -1;
			}
			else
				gjs->first_piece_state[d] = piece_state(gjs, d, res);
			return true;
		}
	}
	return false;
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
		state = read_piece_reply(gjs, d, request_id);
	}
}

/*
 * Every depth's first piece, sent before any reply is read, right behind
 * OpenSession (the runtime's session_sent op): the service answers them
 * once the session is prepared, one after another, without waiting for
 * us.  A session whose depths are loaded already (every leaf of a
 * partitioned outer side but the first) so needs one round trip to start,
 * not one for OpenSession and one a depth.  The service keeps each depth's
 * load apart, so this session may be the loader of several.
 */
void
gpujoin_send_first_pieces(GpuJoinState *gjs)
{
	int			d;

	gjs->first_pieces_sent = false;
	if (gjs->first_piece_error)
		pfree(gjs->first_piece_error);
	gjs->first_piece_error = NULL;
	for (d = 0; d < gjs->info->ndepths; d++)
	{
		gjs->first_piece_id[d] = send_piece(gjs, d, 0, first_piece_rows(gjs, d));
		if (gjs->first_piece_id[d] == 0)
			return;
	}
	gjs->first_pieces_sent = true;
}

/* a reply before OpenSession's (the runtime's early_reply op) */
bool
gpujoin_first_piece_early(GpuJoinState *gjs, PgStromMsgHeader *msg)
{
	return gjs->first_pieces_sent && take_first_piece_reply(gjs, msg);
}

void
gpujoin_send_inner_first(GpuTaskState *gts)
{
	gpujoin_send_first_pieces((GpuJoinState *) gts);
}

bool
gpujoin_inner_early_reply(GpuTaskState *gts, PgStromMsgHeader *msg)
{
	return gpujoin_first_piece_early((GpuJoinState *) gts, msg);
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
	int			d;

	if (!gjs->first_pieces_sent)
	{
		gpujoin_send_first_pieces(gjs);
		if (!gjs->first_pieces_sent)
			return;
	}
	gjs->first_pieces_sent = false;
	if (gjs->first_piece_error)
	{
		PgStromMsgHeader *err = gjs->first_piece_error;

		gjs->first_piece_error = NULL;
		gpu_task_error_reply(gjs->task, err, "JoinInner");
		return;
	}
	for (d = 0; d < gjs->info->ndepths; d++)
	{
		PgStromMsgHeader *res;

		while (gjs->first_piece_id[d] != 0)
		{
			res = gpu_task_recv(gjs->task, "JoinInner");
			if (res == NULL)
				return;
			if (!take_first_piece_reply(gjs, res))
			{
				pfree(res);
				gpu_task_protocol_violation(gjs->task, "not a Success reply to JoinInner");
			}
		}
	}
	for (d = 0; d < gjs->info->ndepths; d++)
	{
		if (!finish_depth(gjs, d, gjs->first_piece_state[d]))
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
