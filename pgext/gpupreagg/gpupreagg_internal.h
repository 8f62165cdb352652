/*-------------------------------------------------------------------------
 *
 * gpupreagg_internal.h
 *		Declarations private to the gpupreagg_*.c files and
 *		codegen_preagg.c (the public contract is gpupreagg.h).
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGSTROM_GPUPREAGG_INTERNAL_H
#define PGSTROM_GPUPREAGG_INTERNAL_H

#include "executor/tuptable.h"
#include "nodes/execnodes.h"

#include "gpupreagg/gpupreagg.h"
#include "gpuscan/gpuscan.h"

#define GPUPREAGG_NAME		"GpuPreAgg"

/*
 * Executor state.  The GpuScan machinery comes first, so that the gpuscan_*
 * functions take a GpuPreAggState as their GpuScanState.
 */
typedef struct GpuPreAggState
{
	GpuScanState gss;

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

	/* device groups: PGSTROM_MSG_PREAGG_GROUPS messages of TaskFinal */
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

/* codegen_preagg.c: does the whole program fit the device (node limit)? */
extern bool gpupreagg_codegen_check(const GpuPreAggInfo *info, Index scanrelid,
									char **reason);

/* gpupreagg_support.c: upper bound of the entry size, to refuse early */
extern Size gpupreagg_entry_size_bound(const GpuPreAggInfo *info);

#endif							/* PGSTROM_GPUPREAGG_INTERNAL_H */
