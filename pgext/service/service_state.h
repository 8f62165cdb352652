/*-------------------------------------------------------------------------
 *
 * service_state.h
 *		The GPU service's state in shared memory, as every backend sees it.
 *
 * The supervisor publishes it; the planner and the executor read it
 * ("is the service ready, which devices") without touching a socket.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGSTROM_SERVICE_STATE_H
#define PGSTROM_SERVICE_STATE_H

#include "port/atomics.h"
#include "storage/lwlock.h"

#include "pg_strom_control.h"

typedef enum PgStromServiceState
{
	PGSTROM_SERVICE_STARTING = 0,	/* service forked, no verdict yet */
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
	/* how the last service process that did not stop cleanly ended; kept */
	char		last_exit[PGSTROM_REASON_LEN];	/* "" when none did */
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

/*
 * The last PAGE_CACHE message of each device that keeps a page cache,
 * under PgStromServiceShared's lock.  Kept apart from it because every
 * status function copies that whole, and this is 256 kB.
 */
typedef struct PgStromPageCacheShared
{
	uint32		ndevices;		/* entries of devices in use */
	PgStromCtlPageCache devices[PGSTROM_MAX_DEVICES];
} PgStromPageCacheShared;

extern PgStromPageCacheShared *pgstrom_page_cache_shared;

extern void pgstrom_init_service_state(void);
extern const char *pgstrom_service_state_name(PgStromServiceState state);
extern void pgstrom_service_set_live_config(int max_async_tasks,
											bool debug_output);
extern void pgstrom_service_wakeup_supervisor(void);

#endif							/* PGSTROM_SERVICE_STATE_H */
