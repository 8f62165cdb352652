/*-------------------------------------------------------------------------
 *
 * gpuscan.h
 *		GpuScan: the WHERE clauses of a heap scan on the GPU.
 *
 * The backend reads the heap pages, resolves MVCC on the CPU, ships the
 * pages to the GPU service in chunks (the runtime in runtime/) and gets
 * back the positions of the rows that passed, or that the GPU could not
 * decide (RECHECK).  It forms the tuples itself from the copies it kept.
 *
 * Files:
 *	gpuscan_path.c		planner hook, costs, paths
 *	gpuscan_plan.c		CustomPath -> CustomScan, method tables
 *	gpuscan_exec.c		executor: the node's runtime ops, EXPLAIN
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGSTROM_GPUSCAN_H
#define PGSTROM_GPUSCAN_H

#include "nodes/extensible.h"

#include "runtime/gpu_task.h"

#define GPUSCAN_NAME				"GpuScan"
#define GPUSCAN_MAX_DEVICE_QUALS	8

/* GpuScan keeps nothing beyond the runtime's state */
typedef struct GpuScanState
{
	GpuTaskState gts;
} GpuScanState;

/* gpuscan_path.c */
extern void pgstrom_init_gpuscan(void);

/* gpuscan_plan.c */
extern CustomPathMethods gpuscan_path_methods;
extern CustomScanMethods gpuscan_plan_methods;
extern CustomExecMethods gpuscan_exec_methods;
extern void pgstrom_init_gpuscan_plan(void);

/* gpuscan_exec.c */
extern void gpuscan_begin(CustomScanState *node, EState *estate, int eflags);
extern TupleTableSlot *gpuscan_exec(CustomScanState *node);
extern void gpuscan_end(CustomScanState *node);
extern void gpuscan_rescan(CustomScanState *node);
extern void gpuscan_explain(CustomScanState *node, List *ancestors,
							ExplainState *es);

#endif							/* PGSTROM_GPUSCAN_H */
