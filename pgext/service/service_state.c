/*-------------------------------------------------------------------------
 *
 * service_state.c
 *		Shared memory that publishes the GPU service's state.
 *
 * The supervisor is the only writer of the state, the reason, the device
 * list, the statistics and the page cache reports; backends (the SQL
 * status functions, later the planner) read them without ever touching
 * the service's sockets.  The device list is several kilobytes, too much
 * to copy under a spinlock, so an LWLock of our own tranche protects it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "storage/shmem.h"

#include "core/pg_strom.h"
#include "service/service_state.h"

#define PGSTROM_LWLOCK_TRANCHE	"pg_strom"

PgStromServiceShared *pgstrom_service_shared = NULL;
PgStromPageCacheShared *pgstrom_page_cache_shared = NULL;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static void
pgstrom_service_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();

	RequestAddinShmemSpace(MAXALIGN(sizeof(PgStromServiceShared)));
	RequestAddinShmemSpace(MAXALIGN(sizeof(PgStromPageCacheShared)));
	RequestNamedLWLockTranche(PGSTROM_LWLOCK_TRANCHE, 1);
}

static void
pgstrom_service_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	pgstrom_service_shared = ShmemInitStruct("pg_strom GPU service state",
											 sizeof(PgStromServiceShared),
											 &found);
	if (!found)
	{
		PgStromServiceShared *ss = pgstrom_service_shared;

		memset(ss, 0, sizeof(PgStromServiceShared));
		ss->lock = &(GetNamedLWLockTranche(PGSTROM_LWLOCK_TRANCHE))->lock;
		ss->state = PGSTROM_SERVICE_STARTING;
		ss->supervisor_procno = -1;
		/* the postmaster has read postgresql.conf by now */
		pg_atomic_init_u32(&ss->max_async_tasks,
						   (uint32) pgstrom_max_async_tasks);
		pg_atomic_init_u32(&ss->debug_output,
						   pgstrom_gpuserv_debug_output ? 1 : 0);
		pg_atomic_init_u32(&ss->config_generation, 0);
	}
	pgstrom_page_cache_shared = ShmemInitStruct("pg_strom device page caches",
												sizeof(PgStromPageCacheShared),
												&found);
	if (!found)
		memset(pgstrom_page_cache_shared, 0, sizeof(PgStromPageCacheShared));
	LWLockRelease(AddinShmemInitLock);
}

void
pgstrom_init_service_state(void)
{
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = pgstrom_service_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = pgstrom_service_shmem_startup;
}

const char *
pgstrom_service_state_name(PgStromServiceState state)
{
	switch (state)
	{
		case PGSTROM_SERVICE_STARTING:
			return "starting";
		case PGSTROM_SERVICE_READY:
			return "ready";
		case PGSTROM_SERVICE_NO_GPU:
			return "no_gpu";
		case PGSTROM_SERVICE_FAILED:
			return "failed";
	}
	return "unknown";
}

/*
 * Publish the live GUCs and wake the supervisor.  Used by the supervisor
 * after a reload, when the configuration file is the authority again.
 */
void
pgstrom_service_set_live_config(int max_async_tasks, bool debug_output)
{
	PgStromServiceShared *ss = pgstrom_service_shared;

	pg_atomic_write_u32(&ss->max_async_tasks, (uint32) max_async_tasks);
	pg_atomic_write_u32(&ss->debug_output, debug_output ? 1 : 0);
	pg_atomic_fetch_add_u32(&ss->config_generation, 1);
}

/*
 * Called by the assign hooks of the live GUCs after they stored the new
 * value: move the generation so the supervisor knows to push, then set its
 * latch.  A stale procno (supervisor gone) at worst wakes an unrelated
 * process once, which every latch user tolerates.
 */
void
pgstrom_service_wakeup_supervisor(void)
{
	PgStromServiceShared *ss = pgstrom_service_shared;
	int			procno;

	pg_atomic_fetch_add_u32(&ss->config_generation, 1);
	pg_memory_barrier();
	procno = ((volatile PgStromServiceShared *) ss)->supervisor_procno;
	if (procno >= 0 && procno < (int) ProcGlobal->allProcCount)
		SetLatch(&ProcGlobal->allProcs[procno].procLatch);
}
