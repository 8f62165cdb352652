/*-------------------------------------------------------------------------
 *
 * gpu_paths.h
 *		Planner helpers shared by the GPU nodes' path code.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGSTROM_GPU_PATHS_H
#define PGSTROM_GPU_PATHS_H

#include "nodes/parsenodes.h"
#include "nodes/pathnodes.h"

/*
 * pg_strom.regression_test_mode scales GPU path costs by this, so the
 * planner picks them without a GPU and the tests see GPU plans.
 */
#define REGRESSION_COST_SCALE	1.0e-6

/*
 * The backend's work per heap page on the GPU path (pin, describe, unpin,
 * hand over the reply): about 2 core-µs on the H200's host, what
 * PostgreSQL's model charges for this many tuples at cpu_tuple_cost.
 */
#define GPU_BACKEND_PAGE_TUPLES	40.0

extern bool gpu_service_ready(void);
extern bool gpu_relation_is_plain_heap(RangeTblEntry *rte);
extern double gpu_parallel_divisor(int parallel_workers);
extern Cost gpu_heap_pages_cost(RelOptInfo *rel, int parallel_workers);
extern double gpu_pages_holding_rows(RelOptInfo *rel, double selectivity);

#endif							/* PGSTROM_GPU_PATHS_H */
