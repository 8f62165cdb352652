/*-------------------------------------------------------------------------
 *
 * pg_strom.h
 *		Declarations shared by the C files of the pg_strom extension.
 *
 * The extension has two sides that live in the same shared library:
 *  - code that runs in ordinary backends (GUCs, SQL status functions, and
 *    later the planner and executor), and
 *  - the "PG-Strom GPU Service" background worker, the supervisor, which
 *    starts the GPU service process and publishes its state in shared
 *    memory.
 *
 * The bytes exchanged with the service are defined in pg_strom_control.h;
 * nothing here duplicates them.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PG_STROM_H
#define PG_STROM_H

#include "port/atomics.h"
#include "storage/lwlock.h"
#include "utils/timestamp.h"

#include "pg_strom_control.h"

#define PGSTROM_LIBRARY_NAME		"pg_strom"
#define PGSTROM_SUPERVISOR_NAME		"PG-Strom GPU Service"
#define PGSTROM_LAUNCHER_NAME		"pg_strom_gpuserv"
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
extern bool pgstrom_shared_chunk_buffers;
extern bool pgstrom_regression_test_mode;

extern void pgstrom_init_gucs(void);

/* ----------------------------------------------------------------
 * service_state.c: the service's state as seen by every backend
 * ----------------------------------------------------------------
 */
typedef enum PgStromServiceState
{
	PGSTROM_SERVICE_STARTING = 0,	/* launcher spawned, no verdict yet */
	PGSTROM_SERVICE_READY,		/* service accepts connections */
	PGSTROM_SERVICE_NO_GPU,		/* no usable GPU: not restarted */
	PGSTROM_SERVICE_FAILED		/* died or gave up; maybe restarting */
} PgStromServiceState;

typedef struct PgStromServiceShared
{
	LWLock	   *lock;			/* protects every non-atomic field below */

	PgStromServiceState state;
	char		reason[PGSTROM_REASON_LEN];	/* "" when there is none */
	pid_t		service_pid;	/* 0 when no service process runs */
	int32		restarts;
	int			supervisor_procno;	/* -1 when no supervisor runs */

	PgStromCtlDevices devices;	/* last READY message */
	PgStromCtlStats stats;		/* last STATUS message */
	uint64		dropped_log_lines;	/* by earlier service processes */

	/*
	 * GUCs that change without a reload.  A superuser's SET writes them here
	 * from any backend and wakes the supervisor, which sees the generation
	 * move and pushes a new configuration to the service.
	 */
	pg_atomic_uint32 max_async_tasks;
	pg_atomic_uint32 debug_output;
	pg_atomic_uint32 config_generation;
} PgStromServiceShared;

extern PgStromServiceShared *pgstrom_service_shared;

extern void pgstrom_init_service_state(void);
extern const char *pgstrom_service_state_name(PgStromServiceState state);
extern void pgstrom_service_set_live_config(int max_async_tasks,
											bool debug_output);
extern void pgstrom_service_wakeup_supervisor(void);

/* ----------------------------------------------------------------
 * supervisor.c and its helpers
 * ----------------------------------------------------------------
 */
extern void pgstrom_register_supervisor(void);
extern PGDLLEXPORT void pgstrom_gpu_service_main(Datum main_arg);

/* service_spawn.c: fork/exec of the launcher */
typedef struct PgStromServiceChild
{
	pid_t		pid;			/* 0 when no child runs */
	int			ctl_fd;			/* our end of the control socketpair */
	int			log_fd;			/* read end of the log pipe */
	TimestampTz started_at;
	bool		got_reason;		/* NO_GPU/FATAL reason came this run */
} PgStromServiceChild;

extern bool pgstrom_spawn_service(PgStromServiceChild *child);
extern void pgstrom_remove_socket_files(pid_t postmaster_pid);
extern void pgstrom_build_config(PgStromCtlConfig *config);

/* control_channel.c: messages on the control socketpair */
extern bool pgstrom_ctl_send(int fd, PgStromCtlTag tag,
							 const void *payload, size_t len);
extern bool pgstrom_ctl_receive(PgStromServiceChild *child);

/* log_relay.c: the service's log pipe into ereport */
extern bool pgstrom_log_relay_drain(int fd);
extern void pgstrom_log_relay_reset(void);

/* ----------------------------------------------------------------
 * gpuscan_*.c: GpuScan planner and executor (details in gpuscan.h)
 * ----------------------------------------------------------------
 */
extern void pgstrom_init_gpuscan(void);

#endif							/* PG_STROM_H */
