/*-------------------------------------------------------------------------
 *
 * gpupreagg_internal.h
 *		Declarations private to the gpupreagg_*.c files and
 *		gpupreagg_codegen.c (the public contract is gpupreagg.h).
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGSTROM_GPUPREAGG_INTERNAL_H
#define PGSTROM_GPUPREAGG_INTERNAL_H

#include "commands/explain.h"
#include "executor/tuptable.h"
#include "utils/tuplestore.h"
#include "nodes/execnodes.h"
#include "nodes/pathnodes.h"

#include "gpupreagg/gpupreagg.h"
#include "runtime/gpu_task.h"

#define GPUPREAGG_NAME		"GpuPreAgg"

/*
 * The node's own counters in GpuTaskCounters.node[] (EXPLAIN ANALYZE).
 */
#define GPA_COUNTER_GROUPS_GPU		0	/* group entries the device returned */
#define GPA_COUNTER_GROUPS_CPU		1	/* groups accumulated on the CPU */
#define GPA_COUNTER_GROWTHS			2	/* device table growths */
#define GPA_COUNTER_SPILLS			3	/* CPU groups written to a tuplestore
										 * (hash_mem full) */

/*
 * Groups aggregated on the CPU (gpupreagg_groups.c): keys to accumulators
 * in the device's layout, bounded by hash_mem (then spilled to a
 * tuplestore as partial tuples, and the table starts over).
 */
typedef struct GpaGroups
{
	TupleHashTable hashtable;	/* nkeys > 0, from the first group on */
	MemoryContext cxt;			/* keys and accumulators */
	char	   *plain_entry;	/* nkeys == 0: the only group */
	bool		plain_used;		/* a row reached it */
	uint64		ngroups;		/* groups made (spilled ones included) */
	Tuplestorestate *spill;		/* NULL until the first spill */

	/* emission */
	bool		emit_spill_done;
	bool		iter_started;
	TupleHashIterator iter;
} GpaGroups;

/*
 * The device's groups messages, kept whole until the TaskFinal reply ended
 * (gpupreagg_device.c): in memory up to hash_mem, then in a temp file.
 */
typedef struct GpaDeviceGroups
{
	List	   *msgs;			/* PgStromMsgHeader *, in arrival order */
	uint64		mem_bytes;		/* of msgs */
	struct BufFile *file;		/* the messages past hash_mem */
	bool		file_reading;
	uint64		ngroups;		/* entries received */

	/* emission */
	PgStromMsgHeader *cur;		/* message being emitted */
	uint32		next_entry;		/* its next entry */
} GpaDeviceGroups;

typedef enum GpaEmitPhase
{
	GPA_EMIT_DEVICE = 0,		/* the device's groups */
	GPA_EMIT_CPU,				/* rows of chunks evaluated here */
	GPA_EMIT_KEPT,				/* RECHECK rows of chunks the device kept */
	GPA_EMIT_DONE
} GpaEmitPhase;

/*
 * Executor state.  The runtime's state comes first, so that the gpu_task_*
 * functions take a GpuPreAggState as their GpuTaskState.
 */
typedef struct GpuPreAggState
{
	GpuTaskState gts;

	GpuPreAggInfo *info;		/* Vars renumbered to the plan's scanrelid */
	GpuPreAggLayout layout;
	int			nkeys;
	int			naggs;
	GpuPreAggAgg **aggs;		/* [naggs] */
	Oid		   *key_types;		/* [nkeys] */

	/* evaluation of the rows the CPU aggregates */
	TupleTableSlot *heap_slot;	/* the relation's rows */
	ExprState **key_states;		/* [nkeys] */
	ExprState **arg_states;		/* [naggs], NULL for count(*) */
	ExprState **filter_states;	/* [naggs], NULL without FILTER */

	/* slots of the groups */
	TupleTableSlot *key_slot;	/* virtual, the keys' types: lookups */
	TupleTableSlot *iter_slot;	/* minimal, the same: hash table entries */
	TupleTableSlot *form_slot;	/* virtual, the scan tuple: into stores */
	TupleTableSlot *store_slot; /* minimal, the scan tuple: out of stores */
	MemoryContext form_cxt;		/* the values of a tuple being stored */

	/*
	 * The CPU's groups: of chunks evaluated here, and of the RECHECK rows
	 * of chunks the device answered (dropped when the device's rows are
	 * lost and those chunks are evaluated again: see runtime/task_kept.c).
	 */
	GpaGroups	cpu;
	GpaGroups	kept;

	/* the device's groups, read whole from the TaskFinal reply */
	GpaDeviceGroups device;
	uint32		final_request_id;	/* of the TaskFinal */

	/* emission */
	bool		aggregated;		/* the scan is over */
	GpaEmitPhase emit_phase;

	/*
	 * Fused over a GpuJoin (gpupreagg_join_exec.c), else NULL: the join's
	 * inner machinery, the join row the keys and arguments read, and the
	 * runtime's ops of the fused node.
	 */
	struct GpuJoinState *join;
	TupleTableSlot *join_slot;
	GpuTaskOps	join_ops;
} GpuPreAggState;

/* gpupreagg_device.c */
/* gpupreagg_numeric.c */
extern bool gpupreagg_numeric_scale(Expr *arg, int32 *scale);
extern int32 gpupreagg_numeric_typmod(Node *node);
extern bool gpupreagg_numeric_scale_bound(Expr *arg, int32 *scale);

/* gpupreagg_set_aggs.c */
extern bool gpupreagg_set_aggs_keys(List *aggrefs, List **keys, char **reason);
extern bool gpupreagg_duplicate_insensitive(Oid aggfnoid);
extern bool gpupreagg_distinct_uses_default_equality(Aggref *aggref);

/*
 * gpupreagg_mixed.c: aggregates over DISTINCT values beside aggregates over
 * every row, in two Aggs over the device's combinations
 */
typedef bool (*gpa_on_device_fn) (Aggref *aggref, void *arg);
typedef struct GpaMixedAggs
{
	List	   *set_aggrefs;	/* run whole by the second Agg ... */
	List	   *set_upper;		/* ... as these copies, numbered there */
	List	   *plain;			/* the query's other aggregates ... */
	List	   *rewrites;		/* ... as the second Agg computes them */
	List	   *dev_aggrefs;	/* what the device accumulates, numbered
								 * for the first (Finalize) Agg */
	int			upper_naggs;	/* Aggrefs of the second Agg */
} GpaMixedAggs;
extern bool gpupreagg_mixed_split(List *aggrefs, gpa_on_device_fn on_device,
								  void *arg, bool grouping_sets,
								  GpaMixedAggs *m, char **reason);
extern List *gpupreagg_mixed_set_keys(GpaMixedAggs *m);
extern Node *gpupreagg_mixed_rewrite(Node *expr, GpaMixedAggs *m);
extern void gpupreagg_mixed_paths(PlannerInfo *root, RelOptInfo *output_rel,
								  Path *serial, Path *partial,
								  PathTarget *dev_target, int nkeys,
								  List *l1_group, GpaMixedAggs *m,
								  List *pg_gsets, PathTarget *final_target,
								  Node *having,
								  double ncombinations, double dNumGroups,
								  Path *(*scaled) (Path *));

/* gpupreagg_result.c: the second Agg's results as the query's aggregates */
extern Path *gpupreagg_result_path(PlannerInfo *root, RelOptInfo *rel,
								   Path *child, PathTarget *target);
extern void gpupreagg_result_init(void);

extern void gpa_device_keep(GpuPreAggState *pas, PgStromMsgHeader *msg);
extern TupleTableSlot *gpa_device_next(GpuPreAggState *pas, TupleTableSlot *slot);
extern void gpa_device_discard(GpuPreAggState *pas);

/* gpupreagg_groups.c */
extern TupleTableSlot *gpa_form_tuple(GpuPreAggState *pas, TupleTableSlot *slot,
									  const char *entry,
									  TupleTableSlot *keys_from);
extern void gpa_store_entry(GpuPreAggState *pas, Tuplestorestate **store,
							const char *entry, TupleTableSlot *keys_from);
extern bool gpa_read_store(GpuPreAggState *pas, Tuplestorestate *store,
						   TupleTableSlot *slot);
extern void gpa_groups_init(GpuPreAggState *pas, GpaGroups *g, const char *name);
extern void gpa_groups_add_row(GpuPreAggState *pas, GpaGroups *g);
extern bool gpa_groups_spill_if_full(GpuPreAggState *pas, GpaGroups *g);
extern void gpa_groups_discard(GpaGroups *g);
extern void gpa_groups_reset(GpuPreAggState *pas, GpaGroups *g);
extern TupleTableSlot *gpa_groups_next(GpuPreAggState *pas, GpaGroups *g,
									   TupleTableSlot *slot);

/* gpupreagg_join_exec.c */
extern TupleDesc gpa_join_begin(GpuPreAggState *pas, List *join_private,
								List *inner_plans, EState *estate, int eflags);
extern void gpa_join_ops(GpuTaskOps *ops);
extern void gpa_join_build(GpuPreAggState *pas);
extern void gpa_join_add_row(GpuPreAggState *pas, GpaGroups *g);
extern void gpa_join_end(GpuPreAggState *pas);
extern void gpa_join_rescan(GpuPreAggState *pas);
extern void gpa_join_exec_methods(CustomExecMethods *methods);
extern void gpa_join_explain(GpuPreAggState *pas, List *context,
							 bool useprefix, ExplainState *es);

/* gpupreagg_codegen.c: the fused node's OpenSession (NULL: *cpu_reason) */
extern StringInfo gpa_join_build_session(GpuPreAggState *pas,
										 const char **cpu_reason);

/* gpupreagg_exec.c */
extern void gpupreagg_explain(CustomScanState *node, List *ancestors,
							  ExplainState *es);

/* gpupreagg_path.c */
extern CustomPath *gpupreagg_create_path(PlannerInfo *root, RelOptInfo *baserel,
										 PathTarget *partial_target,
										 GpuPreAggInfo *info,
										 List *partial_aggs, List *dev_rinfos,
										 bool parallel_safe,
										 int parallel_workers);

/*
 * gpupreagg_partition.c: the leaves of a partitioned table or inheritance
 * tree, and the Appends over their GpuPreAgg paths
 */
typedef struct GpaLeafPaths
{
	bool		consider_parallel;
	List	   *serial;			/* one GpuPreAgg per leaf, not parallel */
	List	   *partial;		/* parallel-aware ones (Parallel Append) */
	List	   *nonpartial;		/* parallel-safe ones run by one participant */
	int			max_workers;	/* of the partial ones */
	double		ngroups;		/* sum over the leaves */
	int			nleaves;
} GpaLeafPaths;

extern void gpa_leaves_appends(PlannerInfo *root, RelOptInfo *parent,
							   GpaLeafPaths *leaves,
							   PathTarget *partial_target, Path **serial,
							   Path **partial);
extern bool gpupreagg_partition_paths(PlannerInfo *root, RelOptInfo *parent,
									  RelOptInfo *grouped_rel,
									  PathTarget *partial_target,
									  const GpuPreAggInfo *info,
									  List *partial_aggs, Path **serial,
									  Path **partial, char **reason);

/* gpupreagg_codegen.c: does the whole program fit the device (node limit)? */
extern bool gpupreagg_codegen_check(const GpuPreAggInfo *info, Index scanrelid,
									char **reason);

/*
 * gpupreagg_join_path.c: GpuPreAgg fused over a GpuJoin (docs/internals/join-kernels.md,
 * "Fused GpuPreAgg").  The keys, arguments and FILTERs of a fused node are
 * over the *join row*: Var(outer_relid, k + 1) is column k of cols, an
 * outer column or an inner column of an INNER or LEFT depth.
 */
typedef struct GpaJoinInput
{
	RelOptInfo *joinrel;
	CustomPath *serial;			/* cheapest GpuJoin path, or NULL */
	CustomPath *partial;		/* cheapest partial GpuJoin path, or NULL */
	Index		outer_relid;
	List	   *dev_quals;		/* the outer table's device quals */
	List	   *cols;			/* Vars of the join row, in column order */
} GpaJoinInput;

extern GpaJoinInput *gpa_join_input(PlannerInfo *root, RelOptInfo *joinrel,
									char **reason);
extern Node *gpa_join_map_expr(GpaJoinInput *join, Node *expr, char **reason);
extern bool gpa_join_codegen_check(GpaJoinInput *join,
								   const GpuPreAggInfo *info, char **reason);
extern bool gpa_join_paths(PlannerInfo *root, GpaJoinInput *join,
						   RelOptInfo *grouped_rel, PathTarget *partial_target,
						   GpuPreAggInfo *info, List *partial_aggs,
						   List *orig_keys, Path **serial, Path **partial,
						   char **reason);
extern CustomPath *gpa_join_fused_path(PlannerInfo *root, GpaJoinInput *join,
									   CustomPath *gj,
									   PathTarget *partial_target,
									   GpuPreAggInfo *info,
									   List *partial_aggs, List *orig_keys);

/* gpupreagg_partition_join.c: fused over a GpuJoin of a partitioned outer */
extern bool gpupreagg_partition_join_paths(PlannerInfo *root,
										   GpaJoinInput *join,
										   RelOptInfo *grouped_rel,
										   PathTarget *partial_target,
										   const GpuPreAggInfo *info,
										   List *partial_aggs,
										   List *orig_keys, Path **serial,
										   Path **partial, char **reason);

/* gpupreagg_support.c: upper bound of the entry size, to refuse early */
extern Size gpupreagg_entry_size_bound(const GpuPreAggInfo *info);

#endif							/* PGSTROM_GPUPREAGG_INTERNAL_H */
