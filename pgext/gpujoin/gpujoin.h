/*-------------------------------------------------------------------------
 *
 * gpujoin.h
 *		GpuJoin: hash joins of a heap table (the outer side, scanned the
 *		GpuScan way) with 1 to GPUJOIN_MAX_DEPTHS inner relations, probed on
 *		the GPU.
 *
 * The backend runs PostgreSQL's plans of the inner relations, keeps their
 * tuples and sends each depth's join keys as normalized key slots
 * (docs/internals/join-kernels.md); the device returns, per outer tuple, records that
 * name the matched inner rows by index, and the backend forms every row
 * from its own data.  Whatever the device cannot do runs on the CPU
 * against the very same inner tuples.
 *
 * Files:
 *	gpujoin_path.c		set_join_pathlist_hook, which joins qualify, costs
 *	gpujoin_remember.c	the cheapest GpuJoin paths per join relation, kept
 *						from add_path's pruning for the next depth
 *	gpujoin_plan.c		CustomPath -> CustomScan, the plan's private list,
 *						method tables
 *	gpujoin_inner.c		running the inner plans and keeping their tuples
 *						and key rows (local memory, or DSA in parallel plans)
 *	gpujoin_inner_parallel.c	the participants of a parallel plan building
 *						the inner rows together (a Barrier's phases)
 *	gpujoin_inner_group.c	one build of the inner rows for the leaves'
 *						nodes of a partitioned outer side
 *	gpujoin_partition.c	the leaves' paths of a partitioned outer side
 *	gpujoin_slots.c		the key slot encoder (XpuGroupKey slot format)
 *	gpujoin_cpu.c		the CPU hash join: RECHECK rows and CPU chunks
 *	gpujoin_cpu_hash.c	its hash index per depth, shared by the
 *						participants of a parallel plan
 *	gpujoin_codegen.c	the OpenSession message (program + XpuJoinDesc)
 *	gpujoin_payload.c	inner columns on the device: payload slots, the
 *						expressions that read them, residual quals
 *	gpujoin_upload.c	PGSTROM_MSG_JOIN_INNER after OpenSession
 *	gpujoin_exec.c		executor: runtime ops, forming rows, rescan, DSM
 *	gpujoin_explain.c	EXPLAIN
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGSTROM_GPUJOIN_H
#define PGSTROM_GPUJOIN_H

#include "nodes/extensible.h"
#include "nodes/pathnodes.h"
#include "storage/shm_toc.h"
#include "port/atomics.h"
#include "storage/barrier.h"
#include "storage/condition_variable.h"
#include "utils/dsa.h"

#include "runtime/gpu_task.h"

#define GPUJOIN_NAME				"GpuJoin"
#define GPUJOIN_MAX_DEPTHS			XPU_JOIN_MAX_DEPTHS
#define GPUJOIN_MAX_KEYS			XPU_JOIN_MAX_KEYS	/* per depth */
/* bytes of a text key: 8 + this is the widest slot */
#define GPUJOIN_MAX_TEXT_KEY		(XPU_JOIN_MAX_TEXT_KEY - 8)
#define GPUJOIN_NO_INNER			XPU_JOIN_NO_INNER
/* payload columns (a fused GpuPreAgg's inner columns) of all depths */
#define GPUJOIN_MAX_PAYLOAD			XPU_JOIN_MAX_COLS
/* slots of one inner row: its keys, then its payload columns */
#define GPUJOIN_MAX_SLOTS			(GPUJOIN_MAX_KEYS + GPUJOIN_MAX_PAYLOAD)

/*
 * The service's work per outer page for the records a GpuJoin returns
 * (collecting and replying them chunk by chunk), in tuples at
 * cpu_tuple_cost: on the H200 at SSB scale factor 20 the service spent
 * 1.4-1.6 core-us a page under a plain GpuJoin and 0.2-0.4 under the fused
 * GpuPreAgg, which returns no records (the backend's 2 core-us a page are
 * GPU_BACKEND_PAGE_TUPLES, planner/gpu_paths.h).
 */
#define GPUJOIN_RECORDS_PAGE_TUPLES	24.0

/* one depth of the plan (from custom_private) */
typedef struct GpuJoinDepthInfo
{
	JoinType	join_type;		/* JOIN_INNER, _LEFT, _SEMI, _ANTI */
	List	   *outer_keys;		/* Exprs over the outer relation */
	List	   *inner_keys;		/* Exprs over the inner plan's output
								 * (Vars with varno INNER_VAR) */
	List	   *key_opnos;		/* Oid of each key's equality operator */
	List	   *key_collids;	/* its input collation */
	double		plan_rows;		/* the planner's inner rows (all shares) */
	bool		inner_partial;	/* the inner plan is partial: in a parallel
								 * plan each participant runs it and loads
								 * its share */
	/*
	 * Residual join quals (INNER and LEFT depths): the join's other
	 * clauses, implicitly ANDed, over the planner's Vars (EXPLAIN of a
	 * fused node, the fused path's columns), and the same over the join
	 * row, Var(INDEX_VAR, k + 1) for its column k (what the executor and
	 * the device evaluate).  A LEFT depth NULL-extends an outer row whose
	 * key matches all fail them.
	 */
	List	   *join_quals;
	List	   *row_quals;
} GpuJoinDepthInfo;

typedef struct GpuJoinInfo
{
	Index		outer_relid;	/* the planner's range table index */
	List	   *dev_quals;		/* outer quals the device evaluates */
	List	   *host_quals;		/* outer quals the CPU evaluates */
	int			ndepths;
	GpuJoinDepthInfo depths[GPUJOIN_MAX_DEPTHS];
	/* each column of custom_scan_tlist: 0 the outer, d + 1 inner depth d */
	List	   *col_source;
	List	   *col_attno;		/* heap attno, or resno of the inner plan */
	/*
	 * The leaves' nodes of one partitioned outer side have the same inner
	 * plans and the same nonzero inner_group: they build the inner rows
	 * once per query (gpujoin_inner_group.c).  0: the node builds its own.
	 */
	int			inner_group;
} GpuJoinInfo;

/* the inner rows of one depth, built once per execution */
typedef struct GpuJoinInner
{
	uint32		nrows;
	uint32		row_size;		/* bytes of one key row */
	uint32		nkeys;
	uint32		nslots;			/* nkeys, then the payload columns */
	int16		key_xtype[GPUJOIN_MAX_SLOTS];	/* the inner slots' types */
	uint32		key_offset[GPUJOIN_MAX_SLOTS];
	uint32		key_width[GPUJOIN_MAX_SLOTS];
	uint64		bytes;			/* tuples and key rows together */
	uint64	   *tuple_offsets;	/* [nrows] from tuples_base */
	char	   *tuples_base;	/* MinimalTuples, MAXALIGNed */
	char	   *key_rows;		/* nrows * row_size */
	Size		key_rows_off;	/* of key_rows in the depth's block */
	char		cpu_reason[GPU_TASK_REASON_LEN];	/* "" unless the device
													 * cannot take it */
} GpuJoinInner;

/*
 * The CPU hash index of one depth, built only when needed: in local memory,
 * or in a parallel plan once in the query's DSA for every participant
 * (atomic bucket heads, so that several can insert at once).
 */
typedef struct GpuJoinCpuHash
{
	uint32		nbuckets;		/* a power of two */
	pg_atomic_uint32 *buckets;	/* first row + 1, 0: empty */
	uint32	   *next;			/* [nrows] next row + 1 */
	uint32	   *hashes;			/* [nrows] */
} GpuJoinCpuHash;

/* state of one outer row joined on the CPU: each depth's choices */
typedef struct GpuJoinCpuRow
{
	bool		active;
	bool		fresh;			/* no combination returned yet */
	uint32	   *choices[GPUJOIN_MAX_DEPTHS];
	uint32		nchoices[GPUJOIN_MAX_DEPTHS];
	uint32		pos[GPUJOIN_MAX_DEPTHS];	/* index into choices */
	bool		null_extended[GPUJOIN_MAX_DEPTHS];	/* a LEFT depth whose
													 * matches all failed
													 * its qual */
	uint32		rows[GPUJOIN_MAX_DEPTHS];	/* the current combination */
} GpuJoinCpuRow;

/*
 * The shared CPU hash index of one depth (gpujoin_cpu_hash.c): the first
 * participant to need it allocates it, then every participant that needs
 * it claims batches of rows and inserts them, and waits for the others'.
 */
#define GPUJOIN_CPU_HASH_NONE		0
#define GPUJOIN_CPU_HASH_ALLOCATING	1
#define GPUJOIN_CPU_HASH_BUILDING	2	/* ready once rows_done = nrows */
#define GPUJOIN_CPU_HASH_LOCAL		3	/* no room in the DSA: each its own */

typedef struct GpuJoinSharedCpuHash
{
	int			state;			/* GPUJOIN_CPU_HASH_*, under the mutex */
	uint32		nbuckets;
	dsa_pointer index;			/* buckets, next, hashes */
	pg_atomic_uint64 next_row;	/* the first row no participant claimed */
	pg_atomic_uint64 rows_done; /* rows inserted (or with a NULL key) */
	int			users;			/* participants that built or read it */
	ConditionVariable cv;		/* state or rows_done reached its end */
} GpuJoinSharedCpuHash;

/*
 * One depth's build in a parallel plan.  Each participant that runs the
 * depth's inner plan (every one for a partial inner, the one that claims it
 * for a serial inner) publishes its share here, and is given its place in
 * the depth's rows: first_row = nrows, tuple_pos = tuple_bytes, before
 * they grow by its share.
 */
typedef struct GpuJoinSharedDepth
{
	bool		serial_claimed;	/* a serial inner: its one runner is chosen */
	int			nbuilders;		/* participants that ran the inner plan */
	uint32		longest[GPUJOIN_MAX_SLOTS];	/* over every share */
	uint64		tuple_bytes;	/* MAXALIGNed tuples of the shares so far */
	dsa_pointer blob;			/* the depth's block, once allocated */
	GpuJoinInner inner;			/* nrows, the layout and cpu_reason;
								 * pointers not valid here */
	GpuJoinSharedCpuHash cpu_hash;
} GpuJoinSharedDepth;

/* what the participants of a parallel plan share, after the runtime's */
typedef struct GpuJoinShared
{
	slock_t		mutex;
	bool		build_failed;	/* a participant raised during the build */
	bool		laid_out;		/* depth[].inner holds the final figures */
	Barrier		build_barrier;	/* GPUJOIN_PHASE_* */
	GpuJoinSharedDepth depth[GPUJOIN_MAX_DEPTHS];
	uint64		build_ns[GPUJOIN_MAX_DEPTHS];	/* from the service */
	uint64		device_bytes[GPUJOIN_MAX_DEPTHS];
	uint64		host_build_ns;	/* the longest a participant spent in a
								 * build, waits included */
	int			group_owner;	/* the plan_node_id whose GpuJoinShared
								 * builds the inner group's rows, 0: none */
	uint64		group_inner_key;	/* the owner's: the key of the group's
									 * rows on the device */
} GpuJoinShared;

/*
 * A parallel plan's DSM: GpuJoinShared, then the runtime's part (whose size
 * is known only where it is estimated).
 */
#define GPUJOIN_RUNTIME_DSM(coordinate) \
	((void *) ((char *) (coordinate) + MAXALIGN(sizeof(GpuJoinShared))))

/*
 * Phases of build_barrier (gpujoin_inner_parallel.c): participants run the
 * inner plans and publish their shares; one allocates each depth's block; each
 * fills its share of it; then the rows are read-only.  One who attaches
 * late joins the phase it finds, with no share of its own.
 */
#define GPUJOIN_PHASE_COLLECT	0
#define GPUJOIN_PHASE_ALLOCATE	1
#define GPUJOIN_PHASE_FILL		2
#define GPUJOIN_PHASE_DONE		3

typedef struct GpuJoinState
{
	GpuTaskState gts;
	/*
	 * The node that scans: &gts for GpuJoin itself, the GpuPreAgg's state
	 * when the join is fused under it (only the inner machinery of this
	 * struct is used then, gts is not).
	 */
	GpuTaskState *task;
	GpuTaskOps	ops;			/* item_size depends on ndepths */
	GpuJoinInfo *info;
	int			ncols;
	int		   *col_source;
	AttrNumber *col_attno;

	/* outer */
	TupleTableSlot *outer_slot;	/* heap tuple of the outer relation */
	ExprState  *host_qual_state;
	ExprState  *outer_key_state[GPUJOIN_MAX_DEPTHS][GPUJOIN_MAX_KEYS];
	int16		outer_key_typlen[GPUJOIN_MAX_DEPTHS][GPUJOIN_MAX_KEYS];
	bool		outer_key_byval[GPUJOIN_MAX_DEPTHS][GPUJOIN_MAX_KEYS];

	/* inner */
	PlanState  *inner_ps[GPUJOIN_MAX_DEPTHS];
	List	   *inner_plans;	/* the node's own plans, one per depth */
	/* the group's node whose inner plans these are, NULL: the node's own */
	struct GpuJoinState *inner_plans_host;
	TupleTableSlot *inner_slot[GPUJOIN_MAX_DEPTHS];
	ExprState  *inner_key_state[GPUJOIN_MAX_DEPTHS][GPUJOIN_MAX_KEYS];
	FmgrInfo	eq_fn[GPUJOIN_MAX_DEPTHS][GPUJOIN_MAX_KEYS];
	FmgrInfo	outer_hash_fn[GPUJOIN_MAX_DEPTHS][GPUJOIN_MAX_KEYS];
	FmgrInfo	inner_hash_fn[GPUJOIN_MAX_DEPTHS][GPUJOIN_MAX_KEYS];
	Oid			collid[GPUJOIN_MAX_DEPTHS][GPUJOIN_MAX_KEYS];
	bool		inner_built;
	GpuJoinInner inner[GPUJOIN_MAX_DEPTHS];
	/*
	 * Each depth's first piece: its request id until answered, its state,
	 * and the first Error that answered one before OpenSession's reply.
	 */
	bool		first_pieces_sent;
	uint32		first_piece_id[GPUJOIN_MAX_DEPTHS];
	int			first_piece_state[GPUJOIN_MAX_DEPTHS];
	PgStromMsgHeader *first_piece_error;
	GpuJoinCpuHash cpu_hash[GPUJOIN_MAX_DEPTHS];
	MemoryContext inner_cxt;	/* serial: the rows; always: CPU hashes */
	uint64		build_ns[GPUJOIN_MAX_DEPTHS];	/* from the service */
	uint64		device_bytes[GPUJOIN_MAX_DEPTHS];

	/*
	 * The build's figures across participants (parallel plans), for
	 * EXPLAIN: a participant's own inner[] may be unset or its share only.
	 */
	uint64		host_build_ns;	/* the longest build of the inner rows here
								 * (parallel: in any participant) */
	bool		shared_figures;
	uint64		shared_rows[GPUJOIN_MAX_DEPTHS];
	uint64		shared_bytes[GPUJOIN_MAX_DEPTHS];
	int			shared_builders[GPUJOIN_MAX_DEPTHS];
	int			shared_cpu_hash[GPUJOIN_MAX_DEPTHS];	/* GPUJOIN_CPU_HASH_* */
	int			shared_cpu_hash_users[GPUJOIN_MAX_DEPTHS];

	/*
	 * Payload columns of each depth (set before the build by a fused
	 * GpuPreAgg): the inner plan's resno and device type of each, encoded
	 * after the key slots.
	 */
	int			npayload[GPUJOIN_MAX_DEPTHS];
	AttrNumber	payload_resno[GPUJOIN_MAX_DEPTHS][GPUJOIN_MAX_PAYLOAD];
	int16		payload_xtype[GPUJOIN_MAX_DEPTHS][GPUJOIN_MAX_PAYLOAD];

	/* parallel */
	GpuJoinShared *jshared;
	dsa_area   *dsa;
	shm_toc    *toc;			/* the parallel query's, to find the group
								 * owner's GpuJoinShared */
	GpuJoinShared *build_js;	/* whose build makes the inner rows: jshared
								 * or the inner group owner's */
	uint64		inner_key;		/* the inner rows' key on the device
								 * (XpuJoinDesc.inner_key), 0: plan_id */

	/* the row being joined on the CPU, and its chunk position */
	GpuJoinCpuRow cpu_row;
	MemoryContext row_cxt;

	/*
	 * Residual join quals: each depth's over the join row in row_slot
	 * (NULL: none).  A plain GpuJoin's device does not evaluate them: an
	 * INNER depth's filter its records, and an outer row with a match at
	 * a LEFT depth that has quals is joined on the CPU, once per chunk
	 * (cpu_joined: a bit per tuple of the chunk).
	 */
	TupleTableSlot *row_slot;
	ExprState  *row_qual_state[GPUJOIN_MAX_DEPTHS];
	bool		has_row_quals;
	bool		left_row_quals;
	/*
	 * A plain GpuJoin's device evaluates them when it can (quals_device:
	 * their inner columns are payload columns, qual_payload, and the
	 * device takes the expressions), and did in the session in use
	 * (quals_on_device).
	 */
	bool	   *qual_payload;
	bool		quals_device;
	bool		quals_on_device;
	bits8	   *cpu_joined;
	Size		cpu_joined_bytes;
} GpuJoinState;

/* GpuJoin's own counters (GpuTaskCounters.node) */
#define GPUJOIN_COUNTER_CPU_JOINED	0	/* outer rows joined on the CPU for
										 * a LEFT depth's residual quals */

/* gpujoin_path.c */
extern void pgstrom_init_gpujoin(void);
extern bool is_gpujoin_path(Path *path);
extern bool gpujoin_outer_is_appendrel(PlannerInfo *root, Index relid);

/* gpujoin_partition.c: per-leaf copies of a path over a partitioned outer */
extern List *gpujoin_template_items(const GpuJoinInfo *tinfo);
extern Path *gpujoin_cheapest_partial_inner(RelOptInfo *innerrel);
extern List *gpujoin_partial_inners(List *inner_paths, List **join_private);
extern CustomPath *gpujoin_leaf_path(PlannerInfo *root,
									 const CustomPath *template,
									 RelOptInfo *outer, RelOptInfo *leaf,
									 List *join_items, int inner_group,
									 bool builds_inner, char **reason);
extern void gpujoin_add_partition_paths(PlannerInfo *root, RelOptInfo *joinrel,
										const CustomPath *template);
extern Cost gpujoin_records_cost(RelOptInfo *outer, int parallel_workers);

/* gpujoin_remember.c */
extern void gpujoin_remember_path(PlannerInfo *root, RelOptInfo *joinrel,
								  CustomPath *cpath);
extern List *gpujoin_paths_of(PlannerInfo *root, RelOptInfo *rel,
							  bool partial);
extern void pgstrom_init_gpujoin_remember(void);

/* gpujoin_plan.c */
extern CustomPathMethods gpujoin_path_methods;
extern CustomScanMethods gpujoin_plan_methods;
extern CustomExecMethods gpujoin_exec_methods;
extern List *gpujoin_info_to_list(const GpuJoinInfo *info);
extern GpuJoinInfo *gpujoin_info_from_list(List *private);
extern void gpujoin_plan_columns(GpuJoinInfo *info, List *vars,
								 List *custom_plans);
extern void gpujoin_plan_row_quals(GpuJoinInfo *info, List *vars);
extern List *gpujoin_quals_vars(const GpuJoinInfo *info);
extern List *gpujoin_plan_keys(GpuJoinInfo *info, List *custom_plans);
extern void pgstrom_init_gpujoin_plan(void);

/* gpujoin_slots.c */
extern int	gpujoin_key_xtype(Oid typid);
extern bool gpujoin_types_joinable(int outer_xtype, int inner_xtype);
extern uint32 gpujoin_text_slot_width(uint32 longest);
extern bool gpujoin_slot_length(int xtype, Datum value, uint32 *text_len,
								const char **why);
extern void gpujoin_encode_slot(char *slot, uint32 width, int xtype,
								Datum value, bool isnull);

/* the inner plan's tuples of one depth, as a participant collects them */
typedef struct GpuJoinInnerTuples
{
	MemoryContext cxt;			/* the copies, until laid out */
	MinimalTuple *tuples;
	uint32		ntuples;
	uint32		cap;
	Size		tuple_bytes;	/* MAXALIGNed */
} GpuJoinInnerTuples;

/* gpujoin_inner.c */
extern void gpujoin_build_inner(GpuJoinState *gjs);
extern void gpujoin_skip_if_empty(GpuJoinState *gjs, GpuTaskState *gts);
extern bool gpujoin_keys_exclude_partition(GpuJoinState *gjs, Relation rel);
extern void gpujoin_init_inner(GpuJoinState *gjs, int d);
extern void gpujoin_start_tuples(GpuJoinInnerTuples *it);
extern void gpujoin_collect_tuples(GpuJoinState *gjs, int d, PlanState *ps,
								   GpuJoinInnerTuples *it, uint32 *longest);
extern void gpujoin_layout_slots(GpuJoinInner *inner, const uint32 *longest);
extern Size gpujoin_block_size(GpuJoinInner *inner, int d, Size tuple_bytes);
extern void gpujoin_point_inner(GpuJoinInner *inner, char *blob);
extern void gpujoin_fill_rows(GpuJoinState *gjs, int d, GpuJoinInnerTuples *it,
							  uint32 first_row, Size tuple_pos);
extern void gpujoin_release_inner(GpuJoinState *gjs);
extern void gpujoin_inner_tuple(GpuJoinState *gjs, int depth, uint32 row);
extern const char *gpujoin_inner_cpu_reason(GpuJoinState *gjs);

/* gpujoin_inner_group.c */
extern int	gpujoin_next_inner_group(void);
extern void gpujoin_group_initialize_dsm(GpuJoinState *gjs);
extern void gpujoin_group_attach(GpuJoinState *gjs);
extern PlanState *gpujoin_group_owner_inner(GpuJoinState *gjs, int d);
extern GpuJoinState *gpujoin_group_plans_host(GpuJoinState *gjs);
extern void gpujoin_group_rewind_plans(GpuJoinState *gjs);
extern GpuJoinShared *gpujoin_group_build_shared(GpuJoinState *gjs);
extern bool gpujoin_group_borrow(GpuJoinState *gjs);
extern void gpujoin_group_lend(GpuJoinState *gjs);
extern uint64 gpujoin_group_inner_key(GpuJoinState *gjs);

/* the smallest and largest non-null inner key of one depth (gpujoin_prune.c) */
typedef struct GpuJoinKeyRange
{
	Node	   *inner_key;		/* the key's expression; NULL: not known */
	Oid			opno;			/* its equality operator */
	bool		found;			/* false: every key is null */
	Datum		min;
	Datum		max;
} GpuJoinKeyRange;
extern GpuJoinKeyRange *gpujoin_group_key_range(GpuJoinState *gjs, int d, int k);
extern void gpujoin_group_reset(GpuJoinState *gjs);

/* gpujoin_inner_parallel.c */
extern void gpujoin_build_parallel(GpuJoinState *gjs);
extern void gpujoin_init_build_barrier(GpuJoinShared *js);

/* gpujoin_cpu.c */
extern bool gpujoin_cpu_start_row(GpuJoinState *gjs);
extern bool gpujoin_cpu_next_combination(GpuJoinState *gjs, uint32 *rows);
extern bool gpujoin_row_quals_pass(GpuJoinState *gjs, const uint32 *rows,
								   int first, int upto, bool inner_only);
extern void gpujoin_cpu_reset(GpuJoinState *gjs);

/* gpujoin_cpu_hash.c */
extern void gpujoin_eval_keys(GpuJoinState *gjs, ExprState **states, int nkeys,
							  Datum *values, bool *isnull);
extern bool gpujoin_hash_keys(GpuJoinState *gjs, int d, FmgrInfo *fns,
							  const Datum *values, const bool *isnull,
							  uint32 *hash);
extern void gpujoin_cpu_hash_build(GpuJoinState *gjs, int d);
extern void gpujoin_init_shared_cpu_hashes(GpuJoinShared *js);
extern void gpujoin_free_shared_cpu_hashes(GpuJoinState *gjs,
										   GpuJoinShared *js);

/* gpujoin_codegen.c: the program's nodes of the join */
typedef struct GpuJoinNodes
{
	int			key_node[GPUJOIN_MAX_DEPTHS][GPUJOIN_MAX_KEYS];
	int			key_xtype[GPUJOIN_MAX_DEPTHS][GPUJOIN_MAX_KEYS];
	int			root;
	int			qual_node[GPUJOIN_MAX_DEPTHS];	/* fused: -1 none */
	bool		has_quals;
} GpuJoinNodes;

struct CgContext;
extern bool gpujoin_emit_program(struct CgContext *ctx, const GpuJoinInfo *info,
								 GpuJoinNodes *jn);
extern size_t gpujoin_append_desc(StringInfo buf, GpuJoinState *gjs,
								  const GpuJoinNodes *jn,
								  const XpuJoinCol *cols, int ncols);
extern bool gpujoin_slot_encodable(int xtype);
extern bool gpujoin_codegen_check(const GpuJoinInfo *info, Index scanrelid,
								  char **reason);
extern StringInfo gpujoin_build_session(GpuJoinState *gjs,
										const char **cpu_reason);

/* gpujoin_payload.c */
typedef struct GpuJoinRowMap
{
	GpuJoinState *gjs;
	Index		scanrelid;
	int		   *col_index;		/* per join row column: its XpuJoinCol, -1 */
	XpuJoinCol	cols[GPUJOIN_MAX_PAYLOAD];
	int			ncols;
} GpuJoinRowMap;

extern bool gpujoin_set_payload(GpuJoinState *gjs, TupleDesc desc,
								const bool *wanted);
extern void gpujoin_row_map(GpuJoinState *gjs, Index scanrelid,
							const bool *wanted, bool with_layout,
							GpuJoinRowMap *map);
extern Node *gpujoin_row_map_expr(Node *node, GpuJoinRowMap *map);
extern bool gpujoin_emit_outer_vars(struct CgContext *ctx, List *exprs,
									Index scanrelid);
extern bool gpujoin_emit_row_quals(struct CgContext *ctx, List **quals,
								   int ndepths, GpuJoinNodes *jn);
extern bool *gpujoin_qual_columns(GpuJoinState *gjs);
extern bool gpujoin_emit_program_quals(struct CgContext *ctx, GpuJoinState *gjs,
									   GpuJoinRowMap *map, GpuJoinNodes *jn);
extern bool gpujoin_plan_device_quals(GpuJoinState *gjs, TupleDesc desc,
									  Index scanrelid);

/* gpujoin_upload.c */
extern void gpujoin_send_first_pieces(GpuJoinState *gjs);
extern bool gpujoin_first_piece_early(GpuJoinState *gjs, PgStromMsgHeader *msg);
extern void gpujoin_send_inner_first(GpuTaskState *gts);
extern bool gpujoin_inner_early_reply(GpuTaskState *gts, PgStromMsgHeader *msg);
extern void gpujoin_upload_inner(GpuTaskState *gts);
extern void gpujoin_upload_depths(GpuJoinState *gjs);

/* gpujoin_exec.c */
extern Node *gpujoin_create_state(CustomScan *cscan);
extern void gpujoin_init_join(GpuJoinState *gjs, GpuJoinInfo *info,
							  List *inner_plans, TupleTableSlot *outer_slot,
							  EState *estate, int eflags);
extern void gpujoin_init_row_quals(GpuJoinState *gjs, TupleTableSlot *row_slot);
extern void gpujoin_form_row(GpuJoinState *gjs, const uint32 *rows,
							 TupleTableSlot *slot);
extern void gpujoin_fix_outer_varnos(GpuJoinInfo *info, Index scanrelid);
extern void gpujoin_end_join(GpuJoinState *gjs);
extern void gpujoin_rescan_join(GpuJoinState *gjs, Bitmapset *chgParam);
extern void gpujoin_attach_shared(GpuJoinState *gjs, void *coordinate,
								  shm_toc *toc, bool initialize);
extern void gpujoin_reset_shared(GpuJoinState *gjs);
extern void gpujoin_copy_shared_figures(GpuJoinState *gjs);

/* gpujoin_explain.c */
extern void gpujoin_explain(CustomScanState *node, List *ancestors,
							ExplainState *es);
extern void gpujoin_explain_depth(GpuJoinState *gjs, int d, List *keys,
								  List *context, bool useprefix,
								  bool on_device, ExplainState *es);

#endif							/* PGSTROM_GPUJOIN_H */
