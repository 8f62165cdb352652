/*
 * pg_strom_proto.h
 *
 * Wire protocol between backends and the GPU service on
 *     PGDATA/.pg_strom.<postmaster pid>.gpu<N>.sock
 *
 * Every message begins with PgStromMsgHeader; length covers the whole
 * message.  Offsets inside a payload are relative to the message start.
 * The service validates every offset and length against the message length
 * before use; a bad message gets an Error reply and the connection is closed.
 */
#ifndef PG_STROM_PROTO_H
#define PG_STROM_PROTO_H

#include <stdint.h>

#define PGSTROM_MSG_MAGIC			0x5047534dU	/* "PGSM" */
#define PGSTROM_MSG_MAX_LENGTH		(1U << 30)	/* 1GB: a chunk plus slack */

typedef enum PgStromMsgTag
{
	/* requests */
	PGSTROM_MSG_OPEN_SESSION = 1,
	PGSTROM_MSG_TASK_EXEC = 2,
	PGSTROM_MSG_TASK_FINAL = 3,
	PGSTROM_MSG_STATUS = 4,		/* no payload */
	/* 5 was ATTACH_BUFFER (memfd chunk buffers, removed): never reuse */
	PGSTROM_MSG_LINK_PROBE = 6,	/* payload: PgStromMsgLinkProbe */
	PGSTROM_MSG_JOIN_INNER = 7,	/* payload: PgStromMsgJoinInner */
	/* replies */
	PGSTROM_MSG_SUCCESS = 64,
	PGSTROM_MSG_SUCCESS_HALFWAY = 65,	/* partial results, more follow */
	PGSTROM_MSG_ERROR = 66		/* payload: PgStromMsgError */
} PgStromMsgTag;

/*
 * Replies to one request share its request_id.  A request is answered by
 * zero or more SUCCESS_HALFWAY messages and then exactly one SUCCESS or
 * ERROR, which ends it; the payload of a SUCCESS_HALFWAY is the node kind's
 * (see pg_strom_xpu.h):
 *	TaskExec	each reply (HALFWAY or SUCCESS) is an XpuChunkResult and
 *				its items; a node may split one chunk's results over
 *				several replies
 *	TaskFinal	HALFWAY replies carry what the node kept on the device
 *				until the end (GpuPreAgg: XpuPreAggGroups + entries); the
 *				closing SUCCESS has no payload
 * Other requests are answered by one SUCCESS or ERROR.
 *
 * TaskFinal's header may carry PGSTROM_FINAL_COLLECT: the node sends what
 * the plan kept on the device now, although other sessions of the plan
 * still hold it (they are idle: the backend's participants agreed that
 * this one collects, see runtime/task_kept.c); afterwards the plan holds
 * nothing, and a session that joins it later is refused.  Without the
 * flag the session's last holder gets it.  Every other header has flags 0.
 */
#define PGSTROM_FINAL_COLLECT		0x0001
#define PGSTROM_SESSION_REQUEST_ID	1	/* OpenSession's; tasks count up
										 * from here */

typedef struct PgStromMsgHeader
{
	uint32_t	magic;			/* PGSTROM_MSG_MAGIC */
	uint16_t	tag;			/* PgStromMsgTag */
	uint16_t	flags;			/* 0, but TaskFinal may carry
								 * PGSTROM_FINAL_COLLECT */
	uint32_t	length;			/* whole message, header included */
	uint32_t	request_id;		/* echoed in the reply */
} PgStromMsgHeader;

/* error codes carried by PgStromMsgError.code */
#define PGSTROM_ERR_PROTOCOL		1	/* malformed message */
#define PGSTROM_ERR_UNSUPPORTED		2	/* known tag, not implemented yet */
#define PGSTROM_ERR_NO_MEMORY		3
#define PGSTROM_ERR_DEVICE			4
#define PGSTROM_ERR_INTERNAL		5

typedef struct PgStromMsgError
{
	int32_t		code;
	int32_t		lineno;
	char		filename[64];
	char		funcname[64];
	char		message[512];
} PgStromMsgError;

/* reply payload of PGSTROM_MSG_STATUS (tag PGSTROM_MSG_SUCCESS) */
typedef struct PgStromMsgStatusReply
{
	int32_t		device_index;
	uint32_t	workers;
	uint32_t	connections;
	uint32_t	queued;
	uint64_t	pool_used;
	uint64_t	pool_total;
	uint64_t	pool_limit;
	uint64_t	requests_served;
} PgStromMsgStatusReply;

/*
 * PGSTROM_MSG_LINK_PROBE: the service measures the host-to-device and
 * device-to-host bandwidth of its device with pinned host memory (the path
 * chunks take), so a benchmark can relate its figures to the link.  The
 * request carries the bytes per copy (1MB..1GB, a multiple of 1MB) and the
 * number of timed copies per direction (1..64), after one untimed warm-up
 * copy each way.  Reply: tag SUCCESS with PgStromMsgLinkProbeReply, or an
 * Error (e.g. PGSTROM_ERR_NO_MEMORY when the pool cannot spare the bytes).
 */
#define PGSTROM_LINK_PROBE_UNIT			(1U << 20)	/* bytes: a multiple of 1MB */
#define PGSTROM_LINK_PROBE_MAX_BYTES	(1U << 30)
#define PGSTROM_LINK_PROBE_MAX_COPIES	64

typedef struct PgStromMsgLinkProbe
{
	uint64_t	bytes;
	uint32_t	copies;
	uint32_t	reserved;		/* 0 */
} PgStromMsgLinkProbe;

typedef struct PgStromMsgLinkProbeReply
{
	int32_t		device_index;
	uint32_t	copies;
	uint64_t	bytes;			/* per copy */
	uint64_t	h2d_ns;			/* wall time of all timed host-to-device copies */
	uint64_t	d2h_ns;			/* wall time of all timed device-to-host copies */
} PgStromMsgLinkProbeReply;

/*
 * PGSTROM_MSG_JOIN_INNER: one piece of a GpuJoin depth's inner rows
 * (XpuJoinDesc, pg_strom_xpu.h).  Sent on a connection after its GPUJOIN
 * OpenSession succeeded and before its first TaskExec, once per depth, in
 * pieces of at most PGSTROM_JOIN_INNER_MAX_PIECE bytes of rows.  The
 * service keeps a depth's inner buffer per (key, depth, device), shared by
 * every session of that key on that device and freed when the last
 * session referencing it closes.  The key is the session's
 * XpuJoinDesc.inner_key, or its plan_id where that is 0, and the piece's
 * plan_id field must name it.
 *
 * A piece with first_row 0 asks for the depth: if it is loaded the reply
 * is LOADED at once (nothing copied; the session takes a reference); if
 * another live session is loading it, BUSY (send the same first piece
 * again later; while the loader runs its last piece the service may hold
 * the request up to 20 ms and answer LOADED the moment the depth is
 * built, or take this session as the loader if that load failed);
 * otherwise this session becomes its loader and the piece
 * is taken.  nrows and row_size must match an existing entry.  A loader's
 * pieces are consecutive (first_row = rows so far); the last one
 * (first_row + piece_rows = nrows; nrows 0 is one empty piece) uploads
 * the rows and builds the index: a bad row is an Error
 * (PGSTROM_ERR_PROTOCOL) and the entry is dropped.  If the loader's
 * session closes mid-load the entry is dropped and a waiting session's
 * next first piece makes it the loader.  TaskExec before every depth is
 * LOADED (and referenced by the session) is a protocol error: send it
 * after the LOADED replies have been read.  The service takes a
 * connection's pieces in the order they arrive, so a loader (one that got
 * MORE) may send its next pieces before reading their replies.  The reply
 * is SUCCESS with PgStromMsgJoinInnerReply, or an Error.  Message layout:
 * rows_offset is a multiple of 16 past the fixed part (so at least 64),
 * and the message ends with the rows (padding to 16 bytes allowed); an
 * empty depth is one piece with nrows = piece_rows = 0.
 */
#define PGSTROM_JOIN_INNER_MAX_PIECE	(64U << 20)	/* bytes of rows per piece */

typedef struct PgStromMsgJoinInner
{
	uint64_t	plan_id;		/* = the session's plan_id */
	uint32_t	depth;			/* 0 .. ndepths-1 of the session */
	uint32_t	row_size;		/* = XpuJoinDepth.row_size of that depth */
	uint32_t	nrows;			/* rows of the whole depth, 0 .. 2^31-1 */
	uint32_t	first_row;		/* row index of this piece's first row */
	uint32_t	piece_rows;		/* rows in this piece: piece_rows * row_size
								 * bytes follow at rows_offset */
	uint32_t	rows_offset;	/* from the message start, 16-byte aligned */
	uint32_t	flags;			/* 0 */
	uint32_t	reserved;		/* 0 */
} PgStromMsgJoinInner;

#define PGSTROM_JOIN_INNER_MORE		0	/* piece taken, send the next one */
#define PGSTROM_JOIN_INNER_LOADED	1	/* the depth is loaded and built (by
										 * this piece, or already by another
										 * session of the plan): send no more
										 * pieces of this depth */
#define PGSTROM_JOIN_INNER_BUSY		2	/* another session of the plan is
										 * loading this depth now: send the
										 * same first piece again later */

typedef struct PgStromMsgJoinInnerReply	/* SUCCESS payload */
{
	uint32_t	state;			/* PGSTROM_JOIN_INNER_* */
	uint32_t	reserved;
	uint64_t	build_ns;		/* LOADED by the last piece: upload + build */
	uint64_t	bytes;			/* device bytes of the depth's inner buffer */
} PgStromMsgJoinInnerReply;

#endif							/* PG_STROM_PROTO_H */
