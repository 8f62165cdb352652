/*-------------------------------------------------------------------------
 *
 * gucs.c
 *		Every configuration parameter of pg_strom.
 *
 * Names, defaults, ranges, units and contexts follow PG-Strom 5.x so that
 * existing postgresql.conf files keep working.  Two parameters are "live":
 * pg_strom.max_async_tasks and pg_strom.gpuserv_debug_output take effect in
 * the running GPU service without a restart or reload.  A superuser's SET
 * of one of them is cluster-wide: the assign hook stores the value in shared
 * memory and wakes the supervisor, which pushes a new configuration to the
 * service; SHOW reports the shared, effective value.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <float.h>
#include <limits.h>

#include "access/parallel.h"
#include "miscadmin.h"
#include "utils/guc.h"

#include "core/pg_strom.h"
#include "service/service_state.h"

/* GPU service */
int			pgstrom_gpu_mempool_segment_sz_kb;
double		pgstrom_gpu_mempool_max_ratio;
double		pgstrom_gpu_mempool_min_ratio;
int			pgstrom_gpu_mempool_release_delay_ms;
int			pgstrom_max_async_tasks;
int			pgstrom_max_connections_per_backend;
int			pgstrom_max_connections_per_role;
int			pgstrom_gpu_session_idle_timeout_ms;
char	   *pgstrom_cuda_toolkit_basedir;
int			pgstrom_cuda_stack_limit_kb;
bool		pgstrom_gpuserv_debug_output;

/* planner and executor */
bool		pgstrom_enabled;
bool		pgstrom_enable_gpuscan;
bool		pgstrom_enable_gpupreagg;
bool		pgstrom_enable_gpujoin;
double		pgstrom_gpu_setup_cost;
double		pgstrom_gpu_page_cost;
double		pgstrom_gpu_tuple_cost;
double		pgstrom_gpu_operator_cost;
bool		pgstrom_cpu_fallback_enabled;
int			pgstrom_gpu_task_timeout_ms;
int			pgstrom_gpujoin_max_inner_size_kb;
int			pgstrom_gpujoin_max_chunk_result_kb;
bool		pgstrom_zero_copy;
bool		pgstrom_direct_read;
int			pgstrom_gpu_page_cache_size_mb;
bool		pgstrom_use_page_cache;
bool		pgstrom_regression_test_mode;

/*
 * Which assignments publish a live value cluster-wide: an explicit SET
 * (source PGC_S_SESSION), a RESET, and the end of a transaction restoring
 * a value, in a normal backend.  Not: parallel workers restoring their
 * leader's settings (a plain user's parallel query would undo a
 * superuser's SET for everyone), backends re-reading the configuration
 * file on SIGHUP (the supervisor publishes the file's values itself), nor
 * role and database defaults.  The check hook sees the source and the
 * assign hook does not, so the check hook notes its verdict for the value
 * about to be assigned; RESET and transaction ends assign without a check.
 */
typedef struct LiveCheck
{
	bool		checked;		/* a check hook ran for the next assignment */
	int			value;			/* the value it checked */
	bool		publishes;		/* its verdict */
} LiveCheck;

static LiveCheck max_async_tasks_check;
static LiveCheck debug_output_check;

static bool
in_parallel_worker(void)
{
	return InitializingParallelWorker || IsParallelWorker();
}

static void
live_check(LiveCheck *lc, int value, GucSource source)
{
	lc->checked = true;
	lc->value = value;
	lc->publishes = (source == PGC_S_SESSION && !in_parallel_worker());
}

static bool
live_assign_publishes(LiveCheck *lc, int value)
{
	bool		publishes;

	if (lc->checked && lc->value == value)
		publishes = lc->publishes;
	else
		publishes = !in_parallel_worker();
	lc->checked = false;
	/* the postmaster (initial load, reloads) must not write shared memory */
	return publishes && IsUnderPostmaster && pgstrom_service_shared != NULL;
}

static bool
check_max_async_tasks(int *newval, void **extra, GucSource source)
{
	live_check(&max_async_tasks_check, *newval, source);
	return true;
}

static void
assign_max_async_tasks(int newval, void *extra)
{
	if (!live_assign_publishes(&max_async_tasks_check, newval))
		return;
	pg_atomic_write_u32(&pgstrom_service_shared->max_async_tasks,
						(uint32) newval);
	pgstrom_service_wakeup_supervisor();
}

static const char *
show_max_async_tasks(void)
{
	static char buf[32];
	int			value = pgstrom_max_async_tasks;

	if (pgstrom_service_shared != NULL)
		value = (int) pg_atomic_read_u32(&pgstrom_service_shared->max_async_tasks);
	snprintf(buf, sizeof(buf), "%d", value);
	return buf;
}

static bool
check_gpuserv_debug_output(bool *newval, void **extra, GucSource source)
{
	live_check(&debug_output_check, *newval ? 1 : 0, source);
	return true;
}

static void
assign_gpuserv_debug_output(bool newval, void *extra)
{
	if (!live_assign_publishes(&debug_output_check, newval ? 1 : 0))
		return;
	pg_atomic_write_u32(&pgstrom_service_shared->debug_output,
						newval ? 1 : 0);
	pgstrom_service_wakeup_supervisor();
}

static const char *
show_gpuserv_debug_output(void)
{
	bool		value = pgstrom_gpuserv_debug_output;

	if (pgstrom_service_shared != NULL)
		value = pg_atomic_read_u32(&pgstrom_service_shared->debug_output) != 0;
	return value ? "on" : "off";
}

static void
init_service_gucs(void)
{
	DefineCustomIntVariable("pg_strom.gpu_mempool_segment_sz",
							"Size of one segment of the GPU device memory pool.",
							NULL,
							&pgstrom_gpu_mempool_segment_sz_kb,
							1048576,	/* 1GB */
							262144,		/* 256MB */
							16777216,	/* 16GB */
							PGC_SIGHUP,
							GUC_UNIT_KB,
							NULL, NULL, NULL);

	/* max_ratio comes first: it is the upper bound of min_ratio */
	DefineCustomRealVariable("pg_strom.gpu_mempool_max_ratio",
							 "Largest fraction of device memory the GPU memory pool may hold.",
							 NULL,
							 &pgstrom_gpu_mempool_max_ratio,
							 0.5,
							 0.2,
							 0.8,
							 PGC_SIGHUP,
							 0,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("pg_strom.gpu_mempool_min_ratio",
							 "Fraction of device memory the GPU memory pool keeps even when idle.",
							 NULL,
							 &pgstrom_gpu_mempool_min_ratio,
							 0.05,
							 0.0,
							 pgstrom_gpu_mempool_max_ratio,
							 PGC_SIGHUP,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("pg_strom.gpu_mempool_release_delay",
							"How long an idle GPU memory pool segment is kept before it is released.",
							NULL,
							&pgstrom_gpu_mempool_release_delay_ms,
							5000,
							1,
							INT_MAX,
							PGC_SIGHUP,
							GUC_UNIT_MS,
							NULL, NULL, NULL);

	DefineCustomIntVariable("pg_strom.max_connections_per_backend",
							"Most connections one backend process may hold open to a device's GPU service.",
							"A backend opens one per GPU node it runs, for instance per open cursor. "
							"Past the bound the node runs on the CPU.",
							&pgstrom_max_connections_per_backend,
							64,
							1,
							1024,
							PGC_SIGHUP,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("pg_strom.max_connections_per_role",
							"Most connections the backends of one role may hold open to the GPU service.",
							"Counted per login role over every device; past the bound a node runs on the CPU. "
							"0 disables the bound.",
							&pgstrom_max_connections_per_role,
							512,
							0,
							INT_MAX,
							PGC_SIGHUP,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("pg_strom.gpu_session_idle_timeout",
							"Closes a GPU service connection whose session sent nothing for this long.",
							"An idle cursor holds device memory; once closed, its node continues on the CPU. "
							"0 disables the timeout.",
							&pgstrom_gpu_session_idle_timeout_ms,
							600000,
							0,
							INT_MAX,
							PGC_SIGHUP,
							GUC_UNIT_MS,
							NULL, NULL, NULL);

	DefineCustomIntVariable("pg_strom.max_async_tasks",
							"Number of GPU tasks the GPU service runs concurrently per device.",
							"Takes effect in the running GPU service, cluster-wide.",
							&pgstrom_max_async_tasks,
							12,
							1,
							256,
							PGC_SUSET,
							GUC_SUPERUSER_ONLY,
							check_max_async_tasks,
							assign_max_async_tasks,
							show_max_async_tasks);

	DefineCustomStringVariable("pg_strom.cuda_toolkit_basedir",
							   "Directory of the CUDA toolkit the GPU service builds kernels with.",
							   NULL,
							   &pgstrom_cuda_toolkit_basedir,
							   "/usr/local/cuda",
							   PGC_POSTMASTER,
							   0,
							   NULL, NULL, NULL);

	DefineCustomIntVariable("pg_strom.cuda_stack_limit",
							"Stack size of one GPU thread.",
							NULL,
							&pgstrom_cuda_stack_limit_kb,
							32,
							4,
							2048,
							PGC_POSTMASTER,
							GUC_UNIT_KB,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("pg_strom.gpuserv_debug_output",
							 "Makes the GPU service write debug messages to the server log.",
							 "Takes effect in the running GPU service, cluster-wide.",
							 &pgstrom_gpuserv_debug_output,
							 false,
							 PGC_SUSET,
							 GUC_SUPERUSER_ONLY,
							 check_gpuserv_debug_output,
							 assign_gpuserv_debug_output,
							 show_gpuserv_debug_output);
}

static void
init_planner_gucs(void)
{
	DefineCustomBoolVariable("pg_strom.enabled",
							 "Enables the planner's use of GPU paths.",
							 NULL,
							 &pgstrom_enabled,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("pg_strom.enable_gpuscan",
							 "Enables the planner's use of GpuScan.",
							 NULL,
							 &pgstrom_enable_gpuscan,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("pg_strom.enable_gpupreagg",
							 "Enables the planner's use of GpuPreAgg.",
							 NULL,
							 &pgstrom_enable_gpupreagg,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("pg_strom.enable_gpujoin",
							 "Enables the planner's use of GpuJoin.",
							 NULL,
							 &pgstrom_enable_gpujoin,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("pg_strom.gpu_setup_cost",
							 "Planner's estimate of the cost to set up a GPU task.",
							 NULL,
							 &pgstrom_gpu_setup_cost,
							 100.0,
							 0.0,
							 DBL_MAX,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	/*
	 * A page read by the GPU path costs gpu_page_cost in place of
	 * seq_page_cost (planner/gpu_paths.c, gpu_heap_pages_cost).  Calibrated
	 * on an H200 with 16 workers over prewarmed tables (bench/results/README.md
	 * has the run):
	 * the zero-copy path moved 31-40 GB/s, 0.2-0.26 us of wall time per
	 * 8 kB page, where PostgreSQL's parallel plans took 0.6-0.9 us per unit
	 * of their own cost (1.1 s for a count over 200 M narrow rows, whose
	 * sequential scan costs 1.85 M).  0.3 a page makes a GPU scan a third
	 * of the parallel sequential scan's 1.07 a page or more, as measured.
	 */
	DefineCustomRealVariable("pg_strom.gpu_page_cost",
							 "Planner's estimate of the cost to have the GPU read one heap page.",
							 NULL,
							 &pgstrom_gpu_page_cost,
							 0.3,
							 0.0,
							 DBL_MAX,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("pg_strom.gpu_tuple_cost",
							 "Planner's estimate of the cost to process one tuple on the GPU.",
							 NULL,
							 &pgstrom_gpu_tuple_cost,
							 0.0025,
							 0.0,
							 DBL_MAX,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("pg_strom.gpu_operator_cost",
							 "Planner's estimate of the cost of one operator or function on the GPU.",
							 NULL,
							 &pgstrom_gpu_operator_cost,
							 0.00015,
							 0.0,
							 DBL_MAX,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("pg_strom.cpu_fallback",
							 "Lets rows the GPU cannot process be evaluated on the CPU instead of raising an error.",
							 "Also lets a GPU query run on the CPU when the GPU service is not available.",
							 &pgstrom_cpu_fallback_enabled,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	/*
	 * A user may shorten it for his own queries: a timeout only sends his
	 * node to the CPU (or fails it, with cpu_fallback off), and closing
	 * the connection makes the service drop its queued work.
	 */
	DefineCustomIntVariable("pg_strom.gpu_task_timeout",
							"How long a backend waits for a reply of the GPU service before it gives up on the service.",
							"The connection is then closed and the node continues on the CPU (pg_strom.cpu_fallback) or fails. 0 waits without limit.",
							&pgstrom_gpu_task_timeout_ms,
							60000,
							0,
							INT_MAX,
							PGC_USERSET,
							GUC_UNIT_MS,
							NULL, NULL, NULL);

	/*
	 * The rows GpuJoin keeps of one inner depth (tuples and key rows) above
	 * which it runs on the CPU instead of sending them to the device.
	 */
	DefineCustomIntVariable("pg_strom.gpujoin_max_chunk_result",
							"The most memory a GpuJoin keeps of the GPU's answer to one chunk.",
							"A join that fans out further runs on the CPU from that chunk on.",
							&pgstrom_gpujoin_max_chunk_result_kb,
							256 * 1024,
							1024,
							MAX_KILOBYTES,
							PGC_USERSET,
							GUC_UNIT_KB,
							NULL, NULL, NULL);

	DefineCustomIntVariable("pg_strom.gpujoin_max_inner_size",
							"The largest inner relation of one GpuJoin depth sent to the GPU.",
							"The tuples and key rows the backend keeps of one depth; a larger depth makes the whole GpuJoin run on the CPU.",
							&pgstrom_gpujoin_max_inner_size_kb,
							1024 * 1024,
							0,
							MAX_KILOBYTES,
							PGC_USERSET,
							GUC_UNIT_KB,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("pg_strom.zero_copy",
							 "Lets the GPU read heap pages where they lie in shared buffers.",
							 "Off: every page is copied and sent to the GPU service, as when the service could not register shared buffers.",
							 &pgstrom_zero_copy,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("pg_strom.direct_read",
							 "Lets the GPU service read all-visible heap pages from the relation's files.",
							 "Off: every page goes through shared buffers (zero-copy or copied).",
							 &pgstrom_direct_read,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("pg_strom.gpu_page_cache_size",
							"Device memory each GPU keeps for images of all-visible heap pages read directly.",
							"-1 sizes it from the device memory the memory pool leaves; 0 turns the device page cache off.  "
							"A scan finds the pages it read before in device memory, "
							"as long as the visibility map says they have not changed.  Taken at server start.",
							&pgstrom_gpu_page_cache_size_mb,
							-1,
							-1,
							1048576,	/* 1TB */
							PGC_POSTMASTER,
							GUC_UNIT_MB,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("pg_strom.use_page_cache",
							 "Lets scans use the device page cache (pg_strom.gpu_page_cache_size).",
							 "Off: direct reads go to the relation's files, and pages in shared buffers go the zero-copy way.",
							 &pgstrom_use_page_cache,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("pg_strom.regression_test_mode",
							 "Offers GPU paths without a usable GPU, for regression tests.",
							 NULL,
							 &pgstrom_regression_test_mode,
							 false,
							 PGC_SUSET,
							 GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);
}

void
pgstrom_init_gucs(void)
{
	init_service_gucs();
	init_planner_gucs();

	MarkGUCPrefixReserved("pg_strom");
}
