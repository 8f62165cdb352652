/*-------------------------------------------------------------------------
 *
 * pg_strom.h
 *		Names and GUCs of the pg_strom extension.
 *
 * The extension has two sides that live in the same shared library:
 *  - code that runs in ordinary backends (GUCs, SQL status functions, the
 *    planner and the executor), and
 *  - the "PG-Strom GPU Service" background worker, the supervisor, which
 *    starts the GPU service process and publishes its state in shared
 *    memory (service/).
 *
 * This header holds what every room needs: the names and the GUCs.  The
 * bytes exchanged with the service are defined in pg_strom_control.h;
 * nothing here duplicates them.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PG_STROM_H
#define PG_STROM_H

#include "pg_strom_control.h"

#define PGSTROM_LIBRARY_NAME		"pg_strom"
#define PGSTROM_SUPERVISOR_NAME		"PG-Strom GPU Service"
#define PGSTROM_GOSVC_NAME			"pg_strom_gosvc.so"
#define PGSTROM_FATBIN_NAME			"pg_strom_kernels.fatbin"

/* ----------------------------------------------------------------
 * gucs.c
 * ----------------------------------------------------------------
 */
/* GPU service configuration, pushed to the service as PgStromCtlConfig */
extern int	pgstrom_gpu_mempool_segment_sz_kb;
extern double pgstrom_gpu_mempool_max_ratio;
extern double pgstrom_gpu_mempool_min_ratio;
extern int	pgstrom_gpu_mempool_release_delay_ms;
extern int	pgstrom_max_connections_per_backend;
extern int	pgstrom_max_connections_per_role;
extern int	pgstrom_gpu_session_idle_timeout_ms;
extern int	pgstrom_max_async_tasks;
extern char *pgstrom_cuda_toolkit_basedir;
extern int	pgstrom_cuda_stack_limit_kb;
extern bool pgstrom_gpuserv_debug_output;

/* planner and executor */
extern bool pgstrom_enabled;
extern bool pgstrom_enable_gpuscan;
extern bool pgstrom_enable_gpupreagg;
extern bool pgstrom_enable_gpujoin;
extern double pgstrom_gpu_setup_cost;
extern double pgstrom_gpu_page_cost;
extern double pgstrom_gpu_tuple_cost;
extern double pgstrom_gpu_operator_cost;
extern bool pgstrom_cpu_fallback_enabled;
extern int	pgstrom_gpu_task_timeout_ms;
extern int	pgstrom_gpujoin_max_inner_size_kb;
extern int	pgstrom_gpujoin_max_chunk_result_kb;
extern bool pgstrom_zero_copy;
extern bool pgstrom_direct_read;
extern int	pgstrom_gpu_page_cache_size_mb;
extern bool pgstrom_use_page_cache;
extern bool pgstrom_regression_test_mode;

extern void pgstrom_init_gucs(void);

#endif							/* PG_STROM_H */
