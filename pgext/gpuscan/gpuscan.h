/*-------------------------------------------------------------------------
 *
 * gpuscan.h
 *		Declarations shared by the gpuscan_*.c files and gpu_client.c.
 *
 * GpuScan evaluates the supported WHERE clauses of a heap scan on the GPU.
 * The backend reads the heap pages, resolves MVCC on the CPU, ships the
 * page copies to the GPU service in chunks (TaskExec) and gets back the
 * positions of the rows that passed, or that the GPU could not decide
 * (RECHECK).  It forms the tuples itself from the copies it kept.
 *
 * Files:
 *	gpuscan_path.c		planner hook, costs, paths
 *	gpuscan_plan.c		CustomPath -> CustomScan, method tables
 *	gpuscan_exec.c		executor: GPU pipeline and the CPU path
 *	gpuscan_chunk.c		block source and chunk building (MVCC)
 *	gpuscan_parallel.c	DSM and shared instrumentation
 *	gpuscan_explain.c	EXPLAIN output
 *	gpu_client.c		socket client of the GPU service
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGSTROM_GPUSCAN_H
#define PGSTROM_GPUSCAN_H

#include "access/relscan.h"
#include "access/parallel.h"
#include "commands/explain.h"
#include "lib/stringinfo.h"
#include "nodes/execnodes.h"
#include "nodes/extensible.h"
#include "nodes/pathnodes.h"
#include "storage/block.h"
#include "storage/spin.h"
#include "utils/snapshot.h"

#include "client/gpu_client.h"
#include "pg_strom_proto.h"
#include "pg_strom_xpu.h"

#define GPUSCAN_NAME				"GpuScan"
#define GPUSCAN_MAX_DEVICE_QUALS	8
#define GPUSCAN_CHUNK_MAX_BLOCKS	4096	/* 32MB of 8kB pages */
#define GPUSCAN_MAX_INFLIGHT		3
#define GPUSCAN_REASON_LEN			256

/* ----------------------------------------------------------------
 * counters (EXPLAIN ANALYZE)
 * ----------------------------------------------------------------
 */
typedef struct GpuScanCounters
{
	uint64		nchunks;		/* chunks built */
	uint64		npages;			/* heap pages read */
	uint64		nrows_in;		/* visible tuples examined */
	uint64		nrows_out;		/* tuples that passed the device quals */
	uint64		nrecheck;		/* RECHECK rows evaluated on the CPU */
	uint64		gpu_time_ns;	/* reported by the service */
	/* GpuPreAgg only (zero for GpuScan) */
	uint64		ngroups_gpu;	/* group entries the device returned */
	uint64		ngroups_cpu;	/* groups accumulated on the CPU */
	uint64		ngrowths;		/* device table growths */
	uint64		nflushes;		/* CPU groups emitted early (hash_mem full) */
} GpuScanCounters;

/*
 * DSM of a parallel GpuScan: this struct, then the parallel table scan
 * descriptor at GPUSCAN_SHARED_PSCAN_OFFSET.
 */
typedef struct GpuScanSharedState
{
	uint64		plan_id;		/* the same for every participant */
	slock_t		mutex;			/* protects the fields below */
	GpuScanCounters counters;	/* sum over all participants */
	int			nparticipants;	/* that published counters */
	bool		device_used;	/* GpuPreAgg: some participant sent a chunk,
								 * so the device holds rows of this plan_id */
	char		cpu_reason[GPUSCAN_REASON_LEN];	/* first CPU path reason */
} GpuScanSharedState;

#define GPUSCAN_SHARED_PSCAN_OFFSET		MAXALIGN(sizeof(GpuScanSharedState))

/* ----------------------------------------------------------------
 * chunks
 * ----------------------------------------------------------------
 */
/*
 * A chunk's page copies live either in the TaskExec message itself (inline:
 * buffer_id 0, pages = buf + pages_offset) or in a shared buffer attached to
 * the connection (buffer_id = slot + 1, pages = the buffer's mapping at
 * offset 0, buf holds only the header and the XpuChunk).  Either way the
 * copies stay put until gpuscan_release_chunk(), i.e. until the reply has
 * arrived and every row of the chunk was emitted (or the chunk is dropped
 * by cleanup), so the tuples returned keep pointing at valid memory.
 */
typedef struct GpuScanChunk
{
	uint32		request_id;		/* also its chunk_id; 0 when not sent */
	uint32		nblocks;
	uint32		capacity;		/* blocks the buffer can hold */
	char	   *buf;			/* the TaskExec message, built in place */
	size_t		buf_len;		/* bytes of the message as sent */
	char	   *pages;			/* the page copies */
	BlockNumber *blknos;		/* real block number of each page copy */
	uint32		buffer_id;		/* 0: inline; N: gss->buffers[N - 1] */

	/* emitting */
	bool		cpu_mode;		/* every visible tuple goes through ExecQual */
	PgStromMsgHeader *reply;	/* the Success reply (GPU mode) */
	uint32	   *items;			/* entries in the reply */
	uint32		nitems;
	uint32		next_item;
	uint32		cur_block;		/* CPU mode: page index in the chunk */
	OffsetNumber cur_offset;	/* CPU mode: last offset returned */
} GpuScanChunk;

/* ----------------------------------------------------------------
 * executor state
 * ----------------------------------------------------------------
 */
typedef enum GpuScanMode
{
	GPUSCAN_MODE_INIT = 0,		/* not started */
	GPUSCAN_MODE_GPU,			/* chunks go to the GPU service */
	GPUSCAN_MODE_CPU			/* chunks are evaluated here */
} GpuScanMode;

typedef struct GpuScanState GpuScanState;

struct GpuScanState
{
	CustomScanState css;

	/*
	 * GpuPreAgg reuses this machinery (its state embeds a GpuScanState
	 * first) and plugs in here; all NULL/false for a GpuScan.
	 *	build_session	the OpenSession message (else the GpuScan one)
	 *	finish_session	TaskFinal and its replies (else a plain TaskFinal)
	 *	device_aggregates  rows that pass on the device stay there: replies
	 *		carry RECHECK rows only, and once a chunk was sent, what the
	 *		device accumulated cannot be redone on the CPU, so losing the
	 *		service is an ERROR rather than a fallback
	 */
	StringInfo	(*build_session) (GpuScanState *gss);
	void		(*finish_session) (GpuScanState *gss);
	bool		device_aggregates;
	bool		chunk_sent;		/* device_aggregates: a TaskExec went out */

	/* from the plan */
	List	   *dev_quals;		/* device quals, plain expressions */
	ExprState  *dev_qual_state;	/* ExecInitQual of dev_quals */

	/* scan */
	Relation	rel;
	Snapshot	snapshot;
	bool		snapshot_registered;	/* worker: restored from the DSM */
	BufferAccessStrategy strategy;
	BlockNumber nblocks;		/* non-parallel: blocks at scan start */
	BlockNumber next_blkno;		/* non-parallel: next block to read */
	bool		source_done;	/* no more blocks */
	bool		started;		/* scan begun (PredicateLockRelation...) */

	/* parallel */
	GpuScanSharedState *shared;	/* NULL unless parallel */
	ParallelBlockTableScanDesc pscan;
	ParallelBlockTableScanWorkerData pscan_work;
	bool		pscan_inited;

	/* GPU service */
	GpuScanMode mode;
	GpuServiceConn *conn;
	uint64		plan_id;
	uint32		next_request_id;
	int			max_inflight;
	List	   *inflight;		/* GpuScanChunk sent, not answered; FIFO */
	List	   *free_chunks;	/* buffers to reuse */

	/*
	 * Shared chunk buffers of this scan, one per in-flight slot, attached to
	 * the current connection; nbuffers is 0 in inline mode.  Each chunk
	 * created while nbuffers_used < nbuffers takes the next one for good.
	 */
	GpuSharedBuffer *buffers[GPUSCAN_MAX_INFLIGHT];
	int			nbuffers;
	int			nbuffers_used;
	GpuScanChunk *current;		/* chunk being emitted */
	HeapTupleData tuple;		/* the tuple stored in the scan slot */

	/* instrumentation */
	GpuScanCounters counters;	/* this participant */
	GpuScanCounters published;	/* part of counters already in shared */
	GpuScanCounters totals;		/* leader: all participants, for EXPLAIN */
	bool		have_totals;
	bool		reason_published;
	char		cpu_reason[GPUSCAN_REASON_LEN];	/* "" unless CPU path */
};

/* gpuscan_path.c */
extern void pgstrom_init_gpuscan(void);
extern bool gpuscan_service_ready(void);
extern bool gpuscan_relation_is_plain_heap(RangeTblEntry *rte);
extern double gpuscan_parallel_divisor(int parallel_workers);

/* gpuscan_plan.c */
extern CustomPathMethods gpuscan_path_methods;
extern CustomScanMethods gpuscan_plan_methods;
extern CustomExecMethods gpuscan_exec_methods;
extern void pgstrom_init_gpuscan_plan(void);

/* "GpuScan" or "GpuPreAgg": messages name the node the user sees in EXPLAIN */
static inline const char *
gpuscan_node_name(GpuScanState *gss)
{
	return gss->css.methods->CustomName;
}

/* gpuscan_exec.c */
extern int	pgstrom_service_errcode(int32 code);
extern uint32 gpuscan_send_task_final(GpuScanState *gss, char *errbuf,
									  size_t errlen);
extern void gpuscan_begin(CustomScanState *node, EState *estate, int eflags);
extern TupleTableSlot *gpuscan_exec(CustomScanState *node);
extern void gpuscan_end(CustomScanState *node);
extern void gpuscan_rescan(CustomScanState *node);
extern void gpuscan_begin_common(GpuScanState *gss, EState *estate);
extern void gpuscan_use_cpu(GpuScanState *gss, const char *reason);
extern bool gpuscan_next_tuple(GpuScanState *gss, TupleTableSlot *slot);
extern void gpuscan_protocol_violation(GpuScanState *gss, const char *what);
extern void gpuscan_error_reply(GpuScanState *gss, PgStromMsgHeader *msg,
								const char *during);

/* gpuscan_chunk.c */
extern void gpuscan_source_begin(GpuScanState *gss);
extern void gpuscan_source_reset(GpuScanState *gss);
extern uint32 gpuscan_chunk_capacity(GpuScanState *gss);
extern GpuScanChunk *gpuscan_build_chunk(GpuScanState *gss);
extern void gpuscan_release_chunk(GpuScanState *gss, GpuScanChunk *chunk);
extern void gpuscan_free_chunks(GpuScanState *gss, bool shared_only);
extern void gpuscan_release_buffers(GpuScanState *gss);

/* gpuscan_parallel.c */
extern Size gpuscan_estimate_dsm(CustomScanState *node, ParallelContext *pcxt);
extern void gpuscan_initialize_dsm(CustomScanState *node, ParallelContext *pcxt,
								   void *coordinate);
extern void gpuscan_reinitialize_dsm(CustomScanState *node,
									 ParallelContext *pcxt, void *coordinate);
extern void gpuscan_initialize_worker(CustomScanState *node, shm_toc *toc,
									  void *coordinate);
extern void gpuscan_shutdown(CustomScanState *node);
extern void gpuscan_publish_counters(GpuScanState *gss);
extern uint64 gpuscan_make_plan_id(GpuScanState *gss);

/* gpuscan_explain.c */
typedef struct GpuExplainCounter
{
	const char *label;
	uint64		value;
} GpuExplainCounter;

extern void gpuscan_explain(CustomScanState *node, List *ancestors,
							ExplainState *es);
extern void gpuscan_explain_counters(GpuScanState *gss, const GpuScanCounters *c,
									 const GpuExplainCounter *items, int nitems,
									 ExplainState *es);

#endif							/* PGSTROM_GPUSCAN_H */
