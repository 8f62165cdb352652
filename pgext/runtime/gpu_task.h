/*-------------------------------------------------------------------------
 *
 * gpu_task.h
 *		The executor runtime shared by every GPU node (GpuScan, GpuPreAgg,
 *		and the nodes to come).
 *
 * A node's CustomScanState begins with a GpuTaskState and hands the
 * runtime a GpuTaskOps table.  The runtime does everything that does not
 * depend on what the node computes:
 *
 *	task_state.c	begin, end, rescan
 *	task_start.c	service readiness, connection, OpenSession, shared
 *					chunk buffers
 *	task_source.c	the blocks to scan, chunk size, the data path
 *	task_pages.c	one page into a chunk: pinned (zero-copy) or copied,
 *					MVCC resolved on the CPU
 *	task_direct.c	blocks the service reads from the relation's files
 *					(direct read): which, their chunks' read reports, and
 *					the bounced blocks read again through shared buffers
 *	task_chunk.c	chunk buffers, building, release
 *	task_pipeline.c	in-flight window, TaskExec replies, TaskFinal, the
 *					row loop (gpu_task_next_tuple)
 *	task_rows.c		forming tuples from a chunk: the device's positions,
 *					or every visible tuple through the device quals
 *	task_fallback.c	the CPU-fallback policy and the service's errors
 *	task_parallel.c	DSM, block distribution, shared counters
 *	task_kept.c		nodes whose rows stay on the device until TaskFinal:
 *					which participant collects them, and the CPU redo of
 *					a participant's blocks when they are lost
 *	task_explain.c	EXPLAIN helpers
 *
 * The node supplies, through GpuTaskOps, its OpenSession message, how it
 * forms rows from a chunk the device answered and from one evaluated on
 * the CPU, and what it does at the end of the scan (TaskFinal replies).
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGSTROM_GPU_TASK_H
#define PGSTROM_GPU_TASK_H

#include "access/parallel.h"
#include "access/relscan.h"
#include "commands/explain.h"
#include "datatype/timestamp.h"
#include "lib/stringinfo.h"
#include "nodes/execnodes.h"
#include "nodes/extensible.h"
#include "storage/block.h"
#include "storage/buf.h"
#include "storage/condition_variable.h"
#include "storage/bufpage.h"
#include "storage/spin.h"
#include "utils/snapshot.h"

#include "client/gpu_client.h"
#include "compat/pg_compat.h"
#include "pg_strom_proto.h"
#include "pg_strom_xpu.h"

#define GPU_TASK_CHUNK_MAX_BLOCKS	4096	/* 32MB of 8kB pages */
#define GPU_TASK_VM_WINDOW		1024	/* blocks whose visibility one lock reads */
#define GPU_TASK_MAX_INFLIGHT		3
#define GPU_TASK_REASON_LEN			256
#define GPU_TASK_NODE_COUNTERS		4
#define GPU_TASK_MIN_ZERO_COPY_BLOCKS	16
#define GPU_TASK_CHUNKS_PER_PARTICIPANT	4	/* a parallel scan's fair share */
#define GPU_TASK_MIN_SHARED_CHUNK_BLOCKS	64

/* ----------------------------------------------------------------
 * counters (EXPLAIN ANALYZE)
 * ----------------------------------------------------------------
 */
typedef struct GpuTaskCounters
{
	uint64		nchunks;		/* chunks built */
	uint64		npages;			/* heap pages read */
	uint64		npages_zero_copy;	/* of which left in shared buffers */
	uint64		nrows_in;		/* visible tuples examined */
	uint64		nrows_out;		/* rows the node's scan produced */
	uint64		nrecheck;		/* RECHECK rows evaluated on the CPU */
	uint64		gpu_time_ns;	/* reported by the service */
	uint64		npages_redone;	/* pages evaluated again on the CPU after
								 * the device lost their rows */
	uint64		npages_direct;	/* sent by number (direct read), bounced
								 * ones included; npages counts each block
								 * once, a bounced one when read again */
	uint64		npages_bounced;	/* of those, sent back by the service and
								 * read through shared buffers */
	uint64		npages_cached;	/* of the direct ones, served from the
								 * device page cache */
	uint64		npruned;		/* scans of a partition that its quals'
								 * parameters pruned (task_prune.c) */
	uint64		nempty_inner;	/* scans not run: a join depth that must
								 * match has no inner rows */
	uint64		nkeys_pruned;	/* scans of a partition not run: no row of
								 * it can match a depth's inner keys */
	uint64		node[GPU_TASK_NODE_COUNTERS];	/* the node's own, summed
												 * like the others */
} GpuTaskCounters;

/*
 * DSM of a parallel GPU node: this struct, then the parallel table scan
 * descriptor at GPU_TASK_SHARED_PSCAN_OFFSET.
 */
typedef struct GpuTaskShared
{
	uint64		plan_id;		/* the same for every participant */
	int			nparticipants;	/* planned workers and the leader */
	slock_t		mutex;			/* protects the fields below */
	GpuTaskCounters counters;	/* sum over all participants */
	char		cpu_reason[GPU_TASK_REASON_LEN];	/* first CPU path reason */
	char		copy_reason[GPU_TASK_REASON_LEN];	/* first page copy reason */

	/* device_keeps_rows nodes (task_kept.c) */
	int			nactive;		/* participants whose session may hold
								 * rows of the plan, not finished */
	bool		closed;			/* the last of them collects: later
								 * sessions must not add rows */
	bool		collect_done;	/* the collector is through */
	int			delivered_pid;	/* the service that delivered the rows
								 * whole, 0 if none did */
	bool		tainted;		/* a participant lost or left its session:
								 * the plan's rows are not delivered */
	ConditionVariable collect_cv;	/* broadcast with collect_done */
} GpuTaskShared;

#define GPU_TASK_SHARED_PSCAN_OFFSET	MAXALIGN(sizeof(GpuTaskShared))

/* ----------------------------------------------------------------
 * chunks
 * ----------------------------------------------------------------
 */
/*
 * A chunk's page copies live either in the TaskExec message itself (inline:
 * buffer_id 0, pages = buf + pages_offset) or in a shared buffer attached to
 * the connection (buffer_id = slot + 1, pages = the buffer's mapping at
 * offset 0, buf holds only the header and the XpuChunk).  Either way the
 * copies stay put until gpu_task_release_chunk(), i.e. until every row of
 * the chunk was emitted (or the chunk is dropped by cleanup), so the tuples
 * returned keep pointing at valid memory.
 *
 * The device's answer to a chunk is one or more replies (SUCCESS_HALFWAY,
 * then SUCCESS), each an XpuChunkResult and its items; the chunk is emitted
 * once the SUCCESS arrived, its items read in reply order through
 * gpu_task_chunk_next_item().
 */
typedef struct GpuTaskChunk
{
	uint32		request_id;		/* also its chunk_id; 0 when not sent */
	uint32		nblocks;
	uint32		capacity;		/* blocks the buffer can hold */
	char	   *buf;			/* the TaskExec message, built in place */
	size_t		buf_len;		/* bytes of the message as sent */
	BlockNumber *blknos;		/* real block number of each page */
	uint32		buffer_id;		/* 0: inline; XPU_BUFFER_SHARED: zero-copy */

	/* zero-copy: pinned shared buffers, and what the device may read */
	bool		zero_copy;
	Buffer	   *buffers;		/* [capacity], pinned while in the chunk */
	XpuPageRef *refs;			/* [capacity], inside buf */

	/* copies: the page images, in buf */
	char	   *pages;

	/*
	 * direct read (task_direct.c): blknos go by number; a page is read
	 * through the buffer manager only when the backend needs it (rows to
	 * form, the CPU path), one at a time, into direct_buffer
	 */
	bool		direct;
	bool		report_seen;	/* the read report came (first reply) */
	bool	   *bounced;		/* [capacity]: the service sent it back */
	bool	   *not_cached;		/* [capacity]: of those, as not cached */
	bool		cache_only;		/* XPU_DIRECT_CACHE_ONLY */
	uint64	   *stamps;			/* [capacity]: visibility-map stamps, when
								 * the scan uses the page cache */
	uint32		nbounced;
	Buffer		direct_buffer;	/* pinned page of block direct_bidx */
	uint32		direct_bidx;
	XpuPageRef	direct_ref;		/* its visible tuples, as pin_page's */
	struct GpuTaskState *owner;	/* the scan, for reading pages */

	/* the device's replies */
	List	   *replies;		/* PgStromMsgHeader *, in arrival order */
	uint64		nitems;			/* items over all replies */
	uint64		reply_bytes;	/* bytes of the replies kept */

	/* emitting */
	bool		cpu_mode;		/* rows come from ops->cpu_next_row */
	int			cur_reply;		/* GPU mode: reply being read */
	uint32		next_item;		/* GPU mode: its next item */
	uint32		cur_block;		/* CPU mode: page index in the chunk */
	OffsetNumber cur_offset;	/* CPU mode: last offset returned */
} GpuTaskChunk;

/* ----------------------------------------------------------------
 * the node's operations
 * ----------------------------------------------------------------
 */
typedef struct GpuTaskState GpuTaskState;

/*
 * Where one participant's scan spent its time (task_timeline.c): moments
 * as timestamps, and the time spent filling chunks and waiting for the
 * service.  Logged at DEBUG1 when the scan ends.
 */
typedef struct GpuTaskTimeline
{
	TimestampTz begun;			/* first call of the scan */
	TimestampTz opened;			/* session open (GPU mode) */
	TimestampTz first_sent;		/* first chunk sent */
	TimestampTz last_answer;	/* last chunk answer received */
	int64		build_us;		/* filling chunks (pages, pins) */
	int64		wait_us;		/* blocked on the service's replies */
	uint32		nwaits;
} GpuTaskTimeline;

typedef struct GpuTaskOps
{
	/*
	 * The OpenSession message (request id PGSTROM_SESSION_REQUEST_ID), or
	 * NULL with *cpu_reason set when the node has nothing for the device.
	 */
	StringInfo	(*build_session) (GpuTaskState *gts, const char **cpu_reason);

	/*
	 * NULL, or requests the node sends right behind OpenSession, before its
	 * reply (the service runs them once the session is prepared): GpuJoin's
	 * first inner pieces.  It may send the node to the CPU.
	 */
	void		(*session_sent) (GpuTaskState *gts);

	/*
	 * A reply to one of session_sent's requests that came before
	 * OpenSession's (replies may come in any order), an Error included,
	 * which the node acts on only once OpenSession succeeded: the node
	 * takes it and frees it (true), or it is a protocol violation.
	 */
	bool		(*early_reply) (GpuTaskState *gts, PgStromMsgHeader *msg);

	/*
	 * NULL, or what the node sends after OpenSession succeeded and before
	 * the first chunk (GpuJoin's inner rows).  It may send the node to the
	 * CPU (gpu_task_use_cpu or the runtime's reply helpers).
	 */
	void		(*session_opened) (GpuTaskState *gts);

	/*
	 * Items of the TaskExec replies: bytes per item, and at most how many
	 * items a chunk may return per tuple of its pages (0: no bound).
	 */
	uint32		item_size;
	uint32		max_items_per_tuple;

	/*
	 * The next row of a chunk, in slot; false when the chunk is exhausted.
	 * gpu_next_row reads the device's items, cpu_next_row evaluates the
	 * chunk here (the service was not available, or lost).
	 */
	bool		(*gpu_next_row) (GpuTaskState *gts, GpuTaskChunk *chunk,
								 TupleTableSlot *slot);
	bool		(*cpu_next_row) (GpuTaskState *gts, GpuTaskChunk *chunk,
								 TupleTableSlot *slot);

	/*
	 * End of the scan with the connection still open: TaskFinal and what
	 * the node reads of its replies (gpu_task_send_final and
	 * gpu_task_read_final).  NULL: TaskFinal, its Success, close.
	 */
	void		(*finish) (GpuTaskState *gts);

	/*
	 * Rows the device accepts stay on the device until TaskFinal (the
	 * plan's participants share them): task_kept.c decides who collects
	 * them, and when the service is lost first, each participant redoes the
	 * blocks of its answered chunks on the CPU.  discard_kept then drops
	 * what the node made of those chunks' replies (RECHECK rows, groups
	 * received), so nothing is counted twice.  finish, called with
	 * gts->collecting set, must read the whole TaskFinal reply before the
	 * node emits anything.
	 */
	bool		device_keeps_rows;
	void		(*discard_kept) (GpuTaskState *gts);
} GpuTaskOps;

/* ----------------------------------------------------------------
 * executor state
 * ----------------------------------------------------------------
 */
typedef enum GpuTaskDataPath
{
	GPU_TASK_PATH_UNDECIDED = 0,	/* before the first chunk */
	GPU_TASK_PATH_ZERO_COPY,	/* chunks name pinned shared buffers */
	GPU_TASK_PATH_COPY			/* chunks carry page copies */
} GpuTaskDataPath;

typedef enum GpuTaskMode
{
	GPU_TASK_MODE_INIT = 0,		/* not started */
	GPU_TASK_MODE_GPU,			/* chunks go to the GPU service */
	GPU_TASK_MODE_CPU			/* chunks are evaluated here */
} GpuTaskMode;

struct GpuTaskState
{
	CustomScanState css;
	const GpuTaskOps *ops;

	/* device quals, plain expressions, and ExecInitQual of them */
	List	   *dev_quals;
	ExprState  *dev_qual_state;

	/* scan */
	Relation	rel;
	Snapshot	snapshot;
	bool		snapshot_registered;	/* worker: restored from the DSM */
	BufferAccessStrategy strategy;
	BlockNumber nblocks;		/* non-parallel: blocks at scan start */
	BlockNumber next_blkno;		/* non-parallel: next block to read */
	uint32		chunk_fill_limit;	/* a chunk goes out at this many blocks */
	bool		source_done;	/* no more blocks */
	bool		started;		/* scan begun (PredicateLockRelation...) */
	bool		prune_checked;	/* task_prune.c, once per scan */
	bool		pruned;			/* the partition holds no row for the quals */
	bool		empty_inner;	/* the node's join can return no row: the
								 * scan is not run (gpujoin_skip_if_empty) */

	/* parallel */
	GpuTaskShared *shared;		/* NULL unless parallel */
	ParallelBlockTableScanDesc pscan;
	ParallelBlockTableScanWorkerData pscan_work;
	bool		pscan_inited;

	/* data path, decided before the first chunk (task_source.c) */
	GpuTaskDataPath zero_copy;
	bool		device_registered;	/* the device registered every shared
									 * buffer */
	char		device_reason[GPU_TASK_REASON_LEN];	/* why it did not */
	bool		device_page_cache;	/* the device keeps a page cache */
	char		copy_reason[GPU_TASK_REASON_LEN];	/* why pages are copied */

	/* direct read (task_direct.c) */
	bool		direct_read;	/* blocks may go by number in this scan */
	Buffer		vmbuffer;		/* visibility map page, kept pinned */

	/*
	 * Device page cache (task_direct.c): the all-visible bits of a window
	 * of blocks and their map page's LSN, read under one share lock of
	 * that page.
	 */
	bool		page_cache;		/* direct blocks carry stamps */
	bool		cache_first;	/* until a block is not cached: send
								 * all-visible blocks cache-only, without
								 * the buffer mapping lookup */
	BlockNumber vm_win_first;	/* window [first, first + n) */
	uint32		vm_win_n;
	uint64		vm_win_stamp;
	bool		vm_win_visible[GPU_TASK_VM_WINDOW];
	GpuTaskChunk *open_pages;	/* chunk being filled with pages */
	GpuTaskChunk *open_direct;	/* chunk being filled with block numbers */
	BlockNumber *bounce;		/* blocks to read through shared buffers */
	uint32		nbounce;
	uint32		bounce_next;
	uint32		bounce_cap;
	bool		block_bounced;	/* the last block came from bounce */
	BlockNumber *uncached;		/* blocks a cache-only chunk sent back, to
								 * decide again the ordinary way */
	uint32		nuncached;
	uint32		uncached_next;
	uint32		uncached_cap;

	/* GPU service */
	GpuTaskMode mode;
	GpuServiceConn *conn;
	uint64		plan_id;
	uint32		next_request_id;
	int			max_inflight;
	List	   *inflight;		/* GpuTaskChunk sent, not answered; FIFO */
	List	   *free_chunks;	/* buffers to reuse */

	GpuTaskChunk *current;		/* chunk being emitted */
	HeapTupleData tuple;		/* the tuple stored in the scan slot */

	/* instrumentation */
	GpuTaskCounters counters;	/* this participant */
	GpuTaskCounters published;	/* part of counters already in shared */
	GpuTaskCounters totals;		/* leader: all participants, for EXPLAIN */
	bool		have_totals;
	bool		reason_published;
	bool		copy_reason_published;
	char		cpu_reason[GPU_TASK_REASON_LEN];	/* "" unless CPU path */
	GpuTaskTimeline timeline;	/* this participant's, for DEBUG1 */

	/* device_keeps_rows (task_kept.c) */
	bool		kept_registered;	/* counted in the plan's active sessions */
	int			kept_service_pid;	/* the service holding our rows */
	bool		kept_lost;		/* the service went with rows of ours */
	bool		kept_settled;	/* left the plan's active sessions */
	bool		collecting;		/* finish() collects the plan's rows */
	bool		redoing;		/* the blocks come from redo_blocks */
	BlockNumber *redo_blocks;	/* blocks of answered chunks */
	uint32		nredo;
	uint32		redo_cap;
	uint32		redo_next;
};

/* the node the user sees in EXPLAIN: messages name it */
static inline const char *
gpu_task_node_name(GpuTaskState *gts)
{
	return gts->css.methods->CustomName;
}

/* task_state.c */
extern void gpu_task_begin(GpuTaskState *gts, const GpuTaskOps *ops,
						   EState *estate);
extern void gpu_task_end(GpuTaskState *gts);
extern void gpu_task_rescan(GpuTaskState *gts);

/* task_timeline.c */
extern void gpu_task_timeline_begin(GpuTaskState *gts);
extern void gpu_task_timeline_opened(GpuTaskState *gts);
extern void gpu_task_timeline_sent(GpuTaskState *gts, TimestampTz start);
extern void gpu_task_timeline_replied(GpuTaskState *gts, TimestampTz start,
									  bool last);
extern void gpu_task_timeline_log(GpuTaskState *gts);

/* task_start.c */
extern void gpu_task_start(GpuTaskState *gts);

/* task_pipeline.c */
extern bool gpu_task_next_tuple(GpuTaskState *gts, TupleTableSlot *slot);
extern uint32 gpu_task_send_final(GpuTaskState *gts, uint16 flags,
								  char *errbuf, size_t errlen);
extern PgStromMsgHeader *gpu_task_read_final(GpuTaskState *gts,
											 uint32 final_request_id);

/* task_rows.c */
extern bool gpu_task_chunk_next_item(GpuTaskState *gts, GpuTaskChunk *chunk,
									 const char **item);
extern bool gpu_task_position_next_row(GpuTaskState *gts, GpuTaskChunk *chunk,
									   TupleTableSlot *slot,
									   bool recheck_only);
extern bool gpu_task_qual_next_row(GpuTaskState *gts, GpuTaskChunk *chunk,
								   TupleTableSlot *slot);
extern void gpu_task_store_tuple(GpuTaskState *gts, TupleTableSlot *slot,
								 GpuTaskChunk *chunk, uint32 bidx,
								 OffsetNumber off);

/* task_prune.c */
extern bool gpu_task_partition_pruned(GpuTaskState *gts);

/* task_source.c */
extern void gpu_task_source_begin(GpuTaskState *gts);
extern void gpu_task_source_reset(GpuTaskState *gts);
extern BlockNumber gpu_task_next_block(GpuTaskState *gts);
extern uint32 gpu_task_chunk_capacity(GpuTaskState *gts);

/* task_pages.c */
extern bool gpu_task_load_page(GpuTaskState *gts, GpuTaskChunk *chunk,
							   BlockNumber blkno, uint64 stamp);
extern Page gpu_task_chunk_page(GpuTaskChunk *chunk, uint32 bidx);
extern bool gpu_task_chunk_tuple_visible(GpuTaskState *gts, GpuTaskChunk *chunk,
										 uint32 bidx, OffsetNumber off);
extern void gpu_task_check_chunk_pages(GpuTaskState *gts, GpuTaskChunk *chunk);
extern OffsetNumber gpu_task_chunk_lines(GpuTaskChunk *chunk, uint32 bidx);

/* task_buffer_order.c */
extern void gpu_task_order_by_buffer(GpuTaskChunk *chunk);

/* task_direct.c */
extern void gpu_task_direct_begin(GpuTaskState *gts);
extern bool gpu_task_block_goes_direct(GpuTaskState *gts, BlockNumber blkno,
									   uint64 *stamp);
extern void gpu_task_stamp_ref(GpuTaskState *gts, XpuPageRef *ref,
							   BlockNumber blkno, uint64 stamp);
extern void gpu_task_direct_fill(GpuTaskState *gts, GpuTaskChunk *chunk);
extern void gpu_task_direct_report(GpuTaskState *gts, GpuTaskChunk *chunk,
								   PgStromMsgHeader *msg);
extern void gpu_task_direct_answered(GpuTaskState *gts, GpuTaskChunk *chunk);
extern void gpu_task_direct_unpin(GpuTaskChunk *chunk);
extern void gpu_task_direct_end(GpuTaskState *gts);
extern void gpu_task_direct_explain(GpuTaskState *gts,
									const GpuTaskCounters *c,
									ExplainState *es);

/* task_chunk.c */
extern GpuTaskChunk *gpu_task_build_chunk(GpuTaskState *gts);
extern bool gpu_task_source_exhausted(GpuTaskState *gts);
extern void gpu_task_drop_open_chunks(GpuTaskState *gts);
extern void gpu_task_chunk_drop_replies(GpuTaskChunk *chunk);
extern void gpu_task_release_chunk(GpuTaskState *gts, GpuTaskChunk *chunk);
extern void gpu_task_free_chunks(GpuTaskState *gts);

/* task_fallback.c */
extern void gpu_task_use_cpu(GpuTaskState *gts, const char *reason);
pg_noreturn extern void gpu_task_protocol_violation(GpuTaskState *gts,
													const char *what);
extern void gpu_task_error_reply(GpuTaskState *gts, PgStromMsgHeader *msg,
								 const char *during);
extern void gpu_task_transport_failed(GpuTaskState *gts, const char *reason,
									  const char *during);
extern PgStromMsgHeader *gpu_task_recv(GpuTaskState *gts, const char *during);

/* task_parallel.c: CustomExecMethods of every GPU node */
extern uint64 gpu_task_make_plan_id(GpuTaskState *gts);
extern uint64 gpu_task_random_plan_id(void);
extern Size gpu_task_estimate_dsm(CustomScanState *node, ParallelContext *pcxt);
extern void gpu_task_initialize_dsm(CustomScanState *node,
									ParallelContext *pcxt, void *coordinate);
extern void gpu_task_reinitialize_dsm(CustomScanState *node,
									  ParallelContext *pcxt, void *coordinate);
extern void gpu_task_initialize_worker(CustomScanState *node, shm_toc *toc,
									   void *coordinate);
extern void gpu_task_shutdown(CustomScanState *node);
extern void gpu_task_publish_counters(GpuTaskState *gts);

/* task_kept.c */
extern bool gpu_task_kept_register(GpuTaskState *gts);
extern bool gpu_task_kept_closed(GpuTaskState *gts);
extern void gpu_task_kept_note_answer(GpuTaskState *gts, GpuTaskChunk *chunk);
extern void gpu_task_kept_rows_lost(GpuTaskState *gts);
extern void gpu_task_kept_leave(GpuTaskState *gts);
extern bool gpu_task_kept_settle(GpuTaskState *gts);
extern BlockNumber gpu_task_kept_next_redo_block(GpuTaskState *gts);
extern void gpu_task_kept_reset(GpuTaskState *gts);

/* task_explain.c */
typedef struct GpuExplainCounter
{
	const char *label;
	uint64		value;
} GpuExplainCounter;

extern const GpuTaskCounters *gpu_task_explain_totals(GpuTaskState *gts);
extern void gpu_task_explain_counters(GpuTaskState *gts,
									  const GpuExplainCounter *items,
									  int nitems, ExplainState *es);
extern void gpu_task_explain_quals(GpuTaskState *gts, const char *label,
								   List *quals, List *ancestors,
								   ExplainState *es);

#endif							/* PGSTROM_GPU_TASK_H */
