/*-------------------------------------------------------------------------
 *
 * service_spawn.c
 *		Start the GPU service process and clean up after it.
 *
 * The service runs in its own process rather than inside the background
 * worker; DESIGN.md section 1 lists why.  The supervisor forks it without
 * exec: an anonymous shared mapping (PostgreSQL's default shared memory)
 * does not survive exec, and the service reads shared buffers where they
 * lie (zero-copy chunks).  Fork keeps the mapping at the same address
 * whatever shared_memory_type and huge_pages are, so there is no setting
 * under which the service cannot see it.  The child makes it read-only,
 * leaves PostgreSQL behind and runs the Go library (service_child_*.c).
 * Everything it needs (the paths, the configuration) is prepared before
 * fork.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "utils/ps_status.h"

#include "core/pg_strom.h"
#include "compat/pg_compat.h"
#include "service/supervisor.h"
#include "service/service_child.h"
#include "service/service_state.h"

/*
 * Fill the configuration message from this process's GUCs and the shared
 * values of the live GUCs.  Sizes go out in bytes, times in milliseconds.
 */
void
pgstrom_build_config(PgStromCtlConfig *config)
{
	PgStromServiceShared *ss = pgstrom_service_shared;
	char		share_path[MAXPGPATH];
	char		fatbin[MAXPGPATH];

	memset(config, 0, sizeof(PgStromCtlConfig));
	config->mempool_segment_sz = (int64_t) pgstrom_gpu_mempool_segment_sz_kb * 1024;
	config->mempool_max_ratio = pgstrom_gpu_mempool_max_ratio;

	/*
	 * min_ratio's upper bound is set when the GUC is defined; a later
	 * reload may lower max_ratio below it, and the pool cannot keep more
	 * than it may hold.
	 */
	config->mempool_min_ratio = Min(pgstrom_gpu_mempool_min_ratio,
									pgstrom_gpu_mempool_max_ratio);
	config->mempool_release_delay_ms = pgstrom_gpu_mempool_release_delay_ms;
	config->max_async_tasks = (int32_t) pg_atomic_read_u32(&ss->max_async_tasks);
	config->cuda_stack_limit = pgstrom_cuda_stack_limit_kb * 1024;
	config->debug_output = pg_atomic_read_u32(&ss->debug_output) != 0;
	config->postmaster_pid = (int32_t) PostmasterPid;

	/*
	 * The service is forked from this process, so shared buffers lie at
	 * the same address there (read-only).
	 */
	config->shared_base = (uint64) (uintptr_t) BufferBlocks;
	config->shared_nbuffers = (uint32) NBuffers;
	config->shared_block_size = BLCKSZ;
	/* -1: the service sizes each device's cache from its free memory */
	config->page_cache_size = pgstrom_gpu_page_cache_size_mb < 0 ? -1 :
		(int64_t) pgstrom_gpu_page_cache_size_mb * 1024 * 1024;
	config->max_conns_per_backend = pgstrom_max_connections_per_backend;
	config->session_idle_timeout_ms = pgstrom_gpu_session_idle_timeout_ms;

	strlcpy(config->data_directory, DataDir, PGSTROM_PATH_LEN);
	strlcpy(config->cuda_toolkit_basedir, pgstrom_cuda_toolkit_basedir,
			PGSTROM_PATH_LEN);

	get_share_path(my_exec_path, share_path);
	snprintf(config->kernel_source_dir, PGSTROM_PATH_LEN,
			 "%s/pg_strom/kernels", share_path);

	/* the fatbin exists only when make found nvcc */
	snprintf(fatbin, sizeof(fatbin), "%s/%s", pkglib_path, PGSTROM_FATBIN_NAME);
	if (access(fatbin, R_OK) == 0)
		strlcpy(config->prebuilt_fatbin, fatbin, PGSTROM_PATH_LEN);
}

/* does name look like ".pg_strom.<pid>.gpu<N>.sock"?  returns the pid */
static bool
parse_socket_file_name(const char *name, long *pid)
{
	const char *prefix = ".pg_strom.";
	const char *pos;
	char	   *end;

	if (strncmp(name, prefix, strlen(prefix)) != 0)
		return false;
	pos = name + strlen(prefix);
	if (!isdigit((unsigned char) *pos))
		return false;
	*pid = strtol(pos, &end, 10);
	if (strncmp(end, ".gpu", 4) != 0)
		return false;
	pos = end + 4;
	if (!isdigit((unsigned char) *pos))
		return false;
	while (isdigit((unsigned char) *pos))
		pos++;
	return strcmp(pos, ".sock") == 0;
}

/*
 * Remove the service's socket files from the data directory: those of the
 * given postmaster, or of any postmaster when postmaster_pid is 0 (left
 * over by a crash; only one postmaster runs on a data directory).
 */
void
pgstrom_remove_socket_files(pid_t postmaster_pid)
{
	DIR		   *dir;
	struct dirent *de;

	dir = AllocateDir(DataDir);
	while ((de = ReadDirExtended(dir, DataDir, LOG)) != NULL)
	{
		char		path[MAXPGPATH];
		long		pid;

		if (!parse_socket_file_name(de->d_name, &pid))
			continue;
		if (postmaster_pid != 0 && pid != (long) postmaster_pid)
			continue;

		snprintf(path, sizeof(path), "%s/%s", DataDir, de->d_name);
		if (unlink(path) == 0)
			ereport(LOG,
					(errmsg("removed GPU service socket file \"%s\"", path)));
		else if (errno != ENOENT)
			ereport(LOG,
					(errcode_for_file_access(),
					 errmsg("could not remove GPU service socket file \"%s\": %m",
							path)));
	}
	FreeDir(dir);
}

/*
 * The service process: the supervisor's child, forked without exec so that
 * it inherits PostgreSQL's shared memory at the same address.  It first
 * binds its life to the supervisor's, then forgets PostgreSQL: default
 * signals, no exit callbacks (it ends in _exit(), never back in
 * PostgreSQL code), only its own descriptors, and every shared mapping
 * read-only.  Then the GPU checks and the Go library (service_child_*.c).
 * Nothing in here allocates from or writes to PostgreSQL's state, except
 * the process title, which is private memory.
 */
pg_noreturn static void
run_service_child(pid_t supervisor_pid, int ctl_fd, int log_fd,
				  const char *gosvc_path)
{
	char		reason[PGSTROM_REASON_LEN];

	pgstrom_child_bind_to_parent(supervisor_pid);
	pgstrom_child_reset_signals();
	on_exit_reset();
	set_ps_display("service process");
	pgstrom_child_arrange_fds(ctl_fd, log_fd);
	if (!pgstrom_child_protect_shared_memory(reason, sizeof(reason)))
	{
		CHILD_LOG("WARNING", "%s", reason);
		pgstrom_child_exit(PGSTROM_EXIT_FAILED, PGSTROM_CTL_FATAL, reason);
	}
	pgstrom_child_run_service(gosvc_path);
}

static void
set_spawn_failure(const char *reason)
{
	PgStromServiceShared *ss = pgstrom_service_shared;

	LWLockAcquire(ss->lock, LW_EXCLUSIVE);
	ss->state = PGSTROM_SERVICE_FAILED;
	strlcpy(ss->reason, reason, sizeof(ss->reason));
	ss->service_pid = 0;
	LWLockRelease(ss->lock);
	ereport(WARNING, (errmsg("%s", reason)));
}

/*
 * Start the service.  On success child describes it and the configuration
 * has been sent; on failure the state says why and the caller retries
 * later.
 */
bool
pgstrom_spawn_service(PgStromServiceChild *child)
{
	PgStromServiceShared *ss = pgstrom_service_shared;
	char		gosvc[MAXPGPATH];
	int			sv[2];
	int			pfd[2];
	sigset_t	all;
	sigset_t	saved;
	pid_t		supervisor_pid = getpid();
	pid_t		pid;
	int			save_errno;
	PgStromCtlConfig config;
	char		reason[PGSTROM_REASON_LEN];

	snprintf(gosvc, sizeof(gosvc), "%s/%s", pkglib_path, PGSTROM_GOSVC_NAME);

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
	{
		snprintf(reason, sizeof(reason),
				 "could not create the GPU service control socket: %m");
		set_spawn_failure(reason);
		return false;
	}
	if (pipe2(pfd, O_CLOEXEC) != 0)
	{
		snprintf(reason, sizeof(reason),
				 "could not create the GPU service log pipe: %m");
		close(sv[0]);
		close(sv[1]);
		set_spawn_failure(reason);
		return false;
	}

	pgstrom_build_config(&config);
	pgstrom_log_relay_reset();

	/* no PostgreSQL signal handler may run in the child */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &saved);
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		run_service_child(supervisor_pid, sv[1], pfd[1], gosvc);
	save_errno = errno;
	sigprocmask(SIG_SETMASK, &saved, NULL);

	close(sv[1]);
	close(pfd[1]);
	if (pid < 0)
	{
		close(sv[0]);
		close(pfd[0]);
		errno = save_errno;
		snprintf(reason, sizeof(reason),
				 "could not fork the GPU service: %m");
		set_spawn_failure(reason);
		return false;
	}

	/* the supervisor's wait loop must never block on the log pipe */
	if (fcntl(pfd[0], F_SETFL, O_NONBLOCK) != 0)
		ereport(LOG,
				(errcode_for_file_access(),
				 errmsg("could not make the GPU service log pipe non-blocking: %m")));

	child->pid = pid;
	child->ctl_fd = sv[0];
	child->log_fd = pfd[0];
	child->started_at = GetCurrentTimestamp();
	child->got_reason = false;

	LWLockAcquire(ss->lock, LW_EXCLUSIVE);
	ss->state = PGSTROM_SERVICE_STARTING;
	ss->service_pid = pid;
	LWLockRelease(ss->lock);

	ereport(LOG,
			(errmsg("PG-Strom GPU service started (pid %d)", (int) pid)));

	/* queued in the socket until the service reads it */
	pgstrom_ctl_send(child->ctl_fd, PGSTROM_CTL_CONFIG, &config, sizeof(config));
	return true;
}
