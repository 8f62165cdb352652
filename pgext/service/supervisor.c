/*-------------------------------------------------------------------------
 *
 * supervisor.c
 *		The "PG-Strom GPU Service" background worker.
 *
 * The supervisor owns the GPU service process: it starts it, relays its
 * log, forwards configuration changes, publishes its state in shared
 * memory, restarts it with a back-off when it dies, and stops it when the
 * cluster shuts down.  It never loads the Go library itself.
 *
 * Whatever the service does, the supervisor exits cleanly: a background
 * worker that dies abnormally makes the postmaster restart the whole
 * cluster, which is exactly what running the service in its own process
 * is meant to prevent.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "core/pg_strom.h"
#include "compat/pg_compat.h"
#include "service/supervisor.h"
#include "service/service_state.h"

/*
 * restart back-off: 1 s doubling up to 30 s for a service that keeps dying
 * before it is ready (a start that fails); one that had been ready restarts
 * at once, one that ran 60 s without getting ready after 1 s
 */
#define RESTART_BACKOFF_MIN_MS		1000
#define RESTART_BACKOFF_MAX_MS		30000
#define SERVICE_STABLE_UPTIME_MS	60000
/* how long a running service is polled for exit without other events */
#define REAP_POLL_INTERVAL_MS		1000
/* how long a stop request is given before SIGKILL */
#define STOP_TIMEOUT_MS				5000
#define STOP_POLL_INTERVAL_US		50000
#define KILL_REAP_TIMEOUT_MS		2000

static PgStromServiceChild child = {0, -1, -1, 0, false};
static TimestampTz restart_at = 0;	/* 0: no restart scheduled */
static int	restart_backoff_ms = RESTART_BACKOFF_MIN_MS;
static uint32 pushed_generation = 0;

static WaitEventSet *wait_set = NULL;
static bool wait_set_dirty = true;

void
pgstrom_register_supervisor(void)
{
	BackgroundWorker worker;

	memset(&worker, 0, sizeof(worker));
	snprintf(worker.bgw_name, BGW_MAXLEN, PGSTROM_SUPERVISOR_NAME);
	snprintf(worker.bgw_type, BGW_MAXLEN, PGSTROM_SUPERVISOR_NAME);
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS;
	worker.bgw_start_time = BgWorkerStart_PostmasterStart;
	worker.bgw_restart_time = 5;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, PGSTROM_LIBRARY_NAME);
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "pgstrom_gpu_service_main");
	worker.bgw_main_arg = (Datum) 0;
	worker.bgw_notify_pid = 0;
	RegisterBackgroundWorker(&worker);
}

/* SIGCHLD only wakes the loop; the loop reaps */
static void
handle_sigchld(SIGNAL_ARGS)
{
	int			save_errno = errno;

	SetLatch(MyLatch);
	errno = save_errno;
}

static void
close_child_channels(void)
{
	if (child.ctl_fd >= 0)
		close(child.ctl_fd);
	if (child.log_fd >= 0)
		close(child.log_fd);
	child.ctl_fd = -1;
	child.log_fd = -1;
	wait_set_dirty = true;
}

/* kill the service and everything it started (nvcc, for one) */
static void
kill_child_group(int signo)
{
	if (child.pid <= 0)
		return;
	/* the child calls setsid(); before it did, only the pid exists */
	(void) kill(-child.pid, signo);
	(void) kill(child.pid, signo);
}

/* relay whatever the service still had to say */
static void
drain_child_channels(void)
{
	if (child.log_fd >= 0 && !pgstrom_log_relay_drain(child.log_fd))
	{
		close(child.log_fd);
		child.log_fd = -1;
		wait_set_dirty = true;
	}
	if (child.ctl_fd >= 0 && !pgstrom_ctl_receive(&child))
	{
		close(child.ctl_fd);
		child.ctl_fd = -1;
		wait_set_dirty = true;
	}
}

/* runs on any exit of the supervisor, including an ERROR */
static void
supervisor_shmem_exit(int code, Datum arg)
{
	PgStromServiceShared *ss = pgstrom_service_shared;

	if (child.pid > 0)
	{
		int			status;

		kill_child_group(SIGKILL);
		(void) waitpid(child.pid, &status, 0);
		child.pid = 0;
	}
	close_child_channels();

	LWLockAcquire(ss->lock, LW_EXCLUSIVE);
	ss->supervisor_procno = -1;
	ss->service_pid = 0;
	LWLockRelease(ss->lock);
}

static void
push_config(void)
{
	uint32		generation;
	PgStromCtlConfig config;

	generation = pg_atomic_read_u32(&pgstrom_service_shared->config_generation);
	if (generation == pushed_generation)
		return;
	pushed_generation = generation;

	/* a service started later gets the configuration at its start */
	if (child.pid == 0 || child.ctl_fd < 0)
		return;
	pgstrom_build_config(&config);
	if (pgstrom_ctl_send(child.ctl_fd, PGSTROM_CTL_CONFIG,
						 &config, sizeof(config)))
		ereport(LOG,
				(errmsg("sent new configuration to PG-Strom GPU service (pid %d): max_async_tasks=%d, gpuserv_debug_output=%s",
						(int) child.pid, config.max_async_tasks,
						config.debug_output ? "on" : "off")));
}

static void
schedule_restart(void)
{
	restart_at = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
											 restart_backoff_ms);
	restart_backoff_ms = Max(Min(restart_backoff_ms * 2, RESTART_BACKOFF_MAX_MS),
							 RESTART_BACKOFF_MIN_MS);
}

static void
start_service(void)
{
	restart_at = 0;
	pushed_generation =
		pg_atomic_read_u32(&pgstrom_service_shared->config_generation);
	if (pgstrom_spawn_service(&child))
		wait_set_dirty = true;
	else
		schedule_restart();
}

/*
 * Decide what a dead service means.  No usable GPU, or a service that
 * rejects how it was started, will not get better by retrying; everything
 * else is restarted with a back-off.
 */
static void
handle_child_exit(int status)
{
	PgStromServiceShared *ss = pgstrom_service_shared;
	pid_t		pid = child.pid;
	long		uptime_ms;
	bool		was_ready;
	char		what[128];
	char		reason[PGSTROM_REASON_LEN];

	uptime_ms = TimestampDifferenceMilliseconds(child.started_at,
												GetCurrentTimestamp());
	child.pid = 0;

	LWLockAcquire(ss->lock, LW_EXCLUSIVE);
	was_ready = (ss->state == PGSTROM_SERVICE_READY);
	ss->service_pid = 0;
	ss->dropped_log_lines += ss->stats.dropped_log_lines;
	memset(&ss->stats, 0, sizeof(ss->stats));

	if (WIFEXITED(status) && WEXITSTATUS(status) == PGSTROM_EXIT_NO_GPU)
	{
		ss->state = PGSTROM_SERVICE_NO_GPU;
		if (!child.got_reason || ss->reason[0] == '\0')
			strlcpy(ss->reason, "no usable GPU", sizeof(ss->reason));
		memset(&ss->devices, 0, sizeof(ss->devices));
		strlcpy(reason, ss->reason, sizeof(reason));
		LWLockRelease(ss->lock);

		ereport(LOG,
				(errmsg("PG-Strom GPU service (pid %d) found no usable GPU: GPU acceleration is disabled until the server restarts",
						(int) pid),
				 errdetail_internal("%s", reason)));
		return;
	}

	if (WIFEXITED(status))
		snprintf(what, sizeof(what), "exited with exit code %d",
				 WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(what, sizeof(what), "was terminated by signal %d: %s",
				 WTERMSIG(status), pg_strsignal(WTERMSIG(status)));
	else
		snprintf(what, sizeof(what), "exited with unrecognized status %d",
				 status);

	/* keep the service's own explanation, if it gave one */
	if (child.got_reason && ss->reason[0] != '\0')
	{
		char		given[PGSTROM_REASON_LEN];

		strlcpy(given, ss->reason, sizeof(given));
		snprintf(reason, sizeof(reason), "GPU service (pid %d) %s: %s",
				 (int) pid, what, given);
	}
	else
		snprintf(reason, sizeof(reason), "GPU service (pid %d) %s",
				 (int) pid, what);
	ss->state = PGSTROM_SERVICE_FAILED;
	strlcpy(ss->reason, reason, sizeof(ss->reason));
	/* reason is cleared when the next service is ready; this stays */
	strlcpy(ss->last_exit, reason, sizeof(ss->last_exit));
	LWLockRelease(ss->lock);

	/* a reason the service gave was logged when it arrived */
	if (WIFEXITED(status) && WEXITSTATUS(status) == PGSTROM_EXIT_USAGE)
	{
		ereport(WARNING,
				(errmsg("PG-Strom GPU service (pid %d) %s", (int) pid, what),
				 errdetail("The GPU service rejected how it was started; it will not be restarted.")));
		return;
	}

	/*
	 * A service that had been ready died of something else than its start
	 * (a kill, a device fault): its backends fall back to the CPU meanwhile,
	 * so it comes back at once; a start that fails backs off.
	 */
	if (was_ready)
		restart_backoff_ms = 0;
	else if (uptime_ms >= SERVICE_STABLE_UPTIME_MS)
		restart_backoff_ms = RESTART_BACKOFF_MIN_MS;
	ereport(WARNING,
			(errmsg("PG-Strom GPU service (pid %d) %s", (int) pid, what),
			 errdetail("The GPU service will be restarted in %d ms.",
					   restart_backoff_ms)));
	schedule_restart();
}

/* reap the service if it exited; its last words are relayed first */
static void
reap_child(void)
{
	int			status;
	pid_t		rc;

	if (child.pid == 0)
		return;
	rc = waitpid(child.pid, &status, WNOHANG);
	if (rc == 0 || (rc < 0 && errno == EINTR))
		return;
	if (rc < 0)
	{
		ereport(LOG,
				(errmsg("could not wait for PG-Strom GPU service (pid %d): %m",
						(int) child.pid)));
		/* how it ended is unknown; -1 matches no WIFEXITED/WIFSIGNALED */
		status = -1;
	}
	drain_child_channels();
	close_child_channels();
	handle_child_exit(status);
}

static void
restart_service(void)
{
	PgStromServiceShared *ss = pgstrom_service_shared;

	LWLockAcquire(ss->lock, LW_EXCLUSIVE);
	ss->restarts++;
	LWLockRelease(ss->lock);

	pgstrom_remove_socket_files(0);
	start_service();
}

/*
 * Stop the service: ask, wait a bounded time, then kill.  Lines it logs
 * while stopping are still relayed.
 */
static void
stop_service(void)
{
	TimestampTz started = GetCurrentTimestamp();
	pid_t		pid = child.pid;
	bool		killed = false;
	int			status;

	if (pid == 0)
		return;
	if (child.ctl_fd >= 0)
		(void) pgstrom_ctl_send(child.ctl_fd, PGSTROM_CTL_STOP, NULL, 0);

	for (;;)
	{
		pid_t		rc = waitpid(pid, &status, WNOHANG);

		if (rc == pid || (rc < 0 && errno != EINTR))
			break;
		drain_child_channels();

		if (!killed &&
			TimestampDifferenceExceeds(started, GetCurrentTimestamp(),
									   STOP_TIMEOUT_MS))
		{
			ereport(WARNING,
					(errmsg("PG-Strom GPU service (pid %d) did not stop within %d ms, killing it",
							(int) pid, STOP_TIMEOUT_MS)));
			kill_child_group(SIGKILL);
			killed = true;
			started = GetCurrentTimestamp();
		}
		else if (killed &&
				 TimestampDifferenceExceeds(started, GetCurrentTimestamp(),
											KILL_REAP_TIMEOUT_MS))
		{
			ereport(WARNING,
					(errmsg("PG-Strom GPU service (pid %d) did not exit after SIGKILL",
							(int) pid)));
			break;
		}
		pg_usleep(STOP_POLL_INTERVAL_US);
	}
	drain_child_channels();
	close_child_channels();
	child.pid = 0;
	if (!killed)
		ereport(LOG,
				(errmsg("PG-Strom GPU service (pid %d) stopped", (int) pid)));
}

static void
shutdown_and_exit(void)
{
	stop_service();
	pgstrom_remove_socket_files(PostmasterPid);
	proc_exit(0);
}

static void
rebuild_wait_set(void)
{
	if (wait_set != NULL)
		FreeWaitEventSet(wait_set);
	wait_set = PgStromCreateWaitEventSet(4);
	AddWaitEventToSet(wait_set, WL_LATCH_SET, PGINVALID_SOCKET, MyLatch, NULL);
	AddWaitEventToSet(wait_set, WL_POSTMASTER_DEATH, PGINVALID_SOCKET,
					  NULL, NULL);
	if (child.log_fd >= 0)
		AddWaitEventToSet(wait_set, WL_SOCKET_READABLE, child.log_fd,
						  NULL, NULL);
	if (child.ctl_fd >= 0)
		AddWaitEventToSet(wait_set, WL_SOCKET_READABLE, child.ctl_fd,
						  NULL, NULL);
	wait_set_dirty = false;
}

static long
compute_timeout(void)
{
	if (child.pid != 0)
		return REAP_POLL_INTERVAL_MS;
	if (restart_at != 0)
	{
		long		ms = TimestampDifferenceMilliseconds(GetCurrentTimestamp(),
														 restart_at);

		return Min(Max(ms, 0), REAP_POLL_INTERVAL_MS);
	}
	return -1;					/* idle: no service, none to come */
}

void
pgstrom_gpu_service_main(Datum main_arg)
{
	PgStromServiceShared *ss = pgstrom_service_shared;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
	pqsignal(SIGCHLD, handle_sigchld);
	BackgroundWorkerUnblockSignals();

	before_shmem_exit(supervisor_shmem_exit, (Datum) 0);
	LWLockAcquire(ss->lock, LW_EXCLUSIVE);
	ss->supervisor_procno = PgStromMyProcIndex();
	LWLockRelease(ss->lock);

	pgstrom_remove_socket_files(0);
	start_service();

	for (;;)
	{
		WaitEvent	events[4];
		int			nevents;
		int			i;

		if (ShutdownRequestPending)
			shutdown_and_exit();

		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
			/* after a reload the configuration file is the authority */
			pgstrom_service_set_live_config(pgstrom_max_async_tasks,
											pgstrom_gpuserv_debug_output);
		}

		reap_child();
		push_config();

		if (child.pid == 0 && restart_at != 0 &&
			GetCurrentTimestamp() >= restart_at)
			restart_service();

		if (wait_set_dirty)
			rebuild_wait_set();
		nevents = WaitEventSetWait(wait_set, compute_timeout(), events,
								   lengthof(events), PG_WAIT_EXTENSION);

		for (i = 0; i < nevents; i++)
		{
			WaitEvent  *ev = &events[i];

			if (ev->events & WL_LATCH_SET)
				ResetLatch(MyLatch);
			if (ev->events & WL_POSTMASTER_DEATH)
			{
				kill_child_group(SIGKILL);
				pgstrom_remove_socket_files(PostmasterPid);
				proc_exit(1);
			}
			if (ev->events & WL_SOCKET_READABLE)
				drain_child_channels();
		}
	}
}
