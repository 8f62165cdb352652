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

#include "executor/tuptable.h"
#include "nodes/execnodes.h"

#include "gpupreagg/gpupreagg.h"
#include "runtime/gpu_task.h"

#define GPUPREAGG_NAME		"GpuPreAgg"

/*
 * The node's own counters in GpuTaskCounters.node[] (EXPLAIN ANALYZE).
 */
#define GPA_COUNTER_GROUPS_GPU		0	/* group entries the device returned */
#define GPA_COUNTER_GROUPS_CPU		1	/* groups accumulated on the CPU */
#define GPA_COUNTER_GROWTHS			2	/* device table growths */
#define GPA_COUNTER_FLUSHES			3	/* CPU groups emitted early (hash_mem
										 * full) */

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

	/* CPU groups */
	TupleTableSlot *key_slot;	/* virtual, the keys' types: lookups */
	TupleTableSlot *iter_slot;	/* minimal, the same: emission */
	TupleHashTable hashtable;	/* nkeys > 0 */
	MemoryContext table_cxt;	/* keys and accumulators */
	char	   *plain_entry;	/* nkeys == 0: the only group */
	bool		plain_used;		/* a row reached it */

	/* device groups: the SUCCESS_HALFWAY replies to TaskFinal */
	List	   *group_msgs;

	/* emission */
	bool		aggregated;		/* the scan is over */
	uint32		final_request_id;	/* of the TaskFinal */
	bool		groups_pending;	/* more groups messages to read */
	uint32		emit_entry;		/* next entry of linitial(group_msgs) */
	bool		emit_cpu_started;
	TupleHashIterator emit_iter;
	bool		emit_done;
	bool		flushing;		/* emitting the CPU's groups mid-scan */
} GpuPreAggState;

/* gpupreagg_exec.c */
extern void gpupreagg_explain(CustomScanState *node, List *ancestors,
							  ExplainState *es);

/* gpupreagg_codegen.c: does the whole program fit the device (node limit)? */
extern bool gpupreagg_codegen_check(const GpuPreAggInfo *info, Index scanrelid,
									char **reason);

/* gpupreagg_support.c: upper bound of the entry size, to refuse early */
extern Size gpupreagg_entry_size_bound(const GpuPreAggInfo *info);

#endif							/* PGSTROM_GPUPREAGG_INTERNAL_H */
