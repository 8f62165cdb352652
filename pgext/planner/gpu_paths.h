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

/*
 * pg_strom.regression_test_mode scales GPU path costs by this, so the
 * planner picks them without a GPU and the tests see GPU plans.
 */
#define REGRESSION_COST_SCALE	1.0e-6

extern bool gpu_service_ready(void);
extern bool gpu_relation_is_plain_heap(RangeTblEntry *rte);
extern double gpu_parallel_divisor(int parallel_workers);

#endif							/* PGSTROM_GPU_PATHS_H */
