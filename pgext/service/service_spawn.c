/*-------------------------------------------------------------------------
 *
 * service_spawn.c
 *		Start the GPU service process and clean up after it.
 *
 * The service is a separate program (pg_strom_gpuserv, which dlopens the
 * Go library), started with fork + exec rather than run inside the
 * background worker; DESIGN.md section 1 lists why.  Between fork and exec
 * the child runs no PostgreSQL code at all: it only resets signal state,
 * arranges its file descriptors and execs.  Everything it needs (argv, the
 * paths) is prepared before fork.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "miscadmin.h"
#include "storage/fd.h"
#include "storage/lwlock.h"

#include "core/pg_strom.h"
#include "service/supervisor.h"
#include "service/service_state.h"

/* where the child's ends of the channels are placed for the launcher */
#define CHILD_CTL_FD	3
#define CHILD_LOG_FD	4

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
	 * min_ratio's upper bound was fixed when the GUC was defined; a later
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

static void
close_fds_from(int lowfd)
{
	struct rlimit rl;
	int			maxfd = 1024;
	int			fd;

#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned int) lowfd, ~0U, 0) == 0)
		return;
#endif
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		maxfd = (int) Min(rl.rlim_cur, (rlim_t) INT_MAX);
	for (fd = lowfd; fd < maxfd; fd++)
		close(fd);
}

/*
 * The child between fork and exec.  Plain system calls only: no palloc,
 * no elog, no PostgreSQL state; failures end in _exit().
 */
/* append the decimal digits of a non-negative number; async-signal-safe */
static size_t
append_number(char *buf, size_t len, size_t size, int value)
{
	char		digits[16];
	int			n = 0;

	do
	{
		digits[n++] = '0' + value % 10;
		value /= 10;
	} while (value > 0 && n < (int) sizeof(digits));
	while (n > 0 && len < size)
		buf[len++] = digits[--n];
	return len;
}

/*
 * The child between fork and exec.  Plain system calls only: no palloc,
 * no elog, no PostgreSQL state (not even its snprintf); failures end in
 * _exit().  exec_failure is a log line prepared by the parent, to which the
 * errno of a failed execv() is appended.
 */
static void
pg_attribute_noreturn()
exec_launcher(char *const argv[], int ctl_fd, int log_fd,
			  const char *exec_failure)
{
	sigset_t	empty;
	int			sig;
	int			high_ctl;
	int			high_log;
	int			save_errno;
	char		line[PGSTROM_LOG_MAX_LINE];
	size_t		len;

	/*
	 * PostgreSQL's handlers must not run here, and the launcher (Go) needs
	 * default dispositions and an empty mask: PostgreSQL 15 blocks SIGURG
	 * for its latch, and Go preempts goroutines with SIGURG.  All signals
	 * are still blocked (by the parent) while the handlers are reset.
	 */
	for (sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigemptyset(&empty);
	sigprocmask(SIG_SETMASK, &empty, NULL);

	/*
	 * Leave the worker's process group, so that the postmaster's signals to
	 * that group do not reach the service; the supervisor alone decides how
	 * it stops, and PR_SET_PDEATHSIG in the launcher covers the rest.
	 */
	setsid();

	/* move our ends out of the way, then onto the fixed descriptors */
	high_ctl = fcntl(ctl_fd, F_DUPFD, 10);
	high_log = fcntl(log_fd, F_DUPFD, 10);
	if (high_ctl < 0 || high_log < 0 ||
		dup2(high_ctl, CHILD_CTL_FD) < 0 ||
		dup2(high_log, CHILD_LOG_FD) < 0)
		_exit(PGSTROM_EXIT_FAILED);
	close_fds_from(CHILD_LOG_FD + 1);

	execv(argv[0], argv);
	save_errno = errno;

	len = strnlen(exec_failure, sizeof(line) - 16);
	memcpy(line, exec_failure, len);
	len = append_number(line, len, sizeof(line) - 2, save_errno);
	line[len++] = ')';
	line[len++] = '\n';
	if (write(CHILD_LOG_FD, line, len) < 0)
		_exit(PGSTROM_EXIT_LOAD_FAILED);	/* nothing else can report it */
	_exit(PGSTROM_EXIT_LOAD_FAILED);
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
	char		launcher[MAXPGPATH];
	char		gosvc[MAXPGPATH];
	char		ctl_arg[16];
	char		log_arg[16];
	char	   *argv[5];
	int			sv[2];
	int			pfd[2];
	sigset_t	all;
	sigset_t	saved;
	pid_t		pid;
	int			save_errno;
	PgStromCtlConfig config;
	char		reason[PGSTROM_REASON_LEN];
	char		exec_failure[PGSTROM_LOG_MAX_LINE];

	snprintf(launcher, sizeof(launcher), "%s/%s",
			 pkglib_path, PGSTROM_LAUNCHER_NAME);
	snprintf(gosvc, sizeof(gosvc), "%s/%s", pkglib_path, PGSTROM_GOSVC_NAME);
	snprintf(ctl_arg, sizeof(ctl_arg), "%d", CHILD_CTL_FD);
	snprintf(log_arg, sizeof(log_arg), "%d", CHILD_LOG_FD);
	argv[0] = launcher;
	argv[1] = gosvc;
	argv[2] = ctl_arg;
	argv[3] = log_arg;
	argv[4] = NULL;

	if (access(launcher, X_OK) != 0)
	{
		snprintf(reason, sizeof(reason),
				 "GPU service launcher \"%s\" is not executable: %m", launcher);
		set_spawn_failure(reason);
		return false;
	}

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

	snprintf(exec_failure, sizeof(exec_failure),
			 "SVC|WARNING|%s|%d|%s|could not execute GPU service launcher \"%s\" (errno ",
			 __FILE__, __LINE__, __func__, launcher);
	pgstrom_build_config(&config);
	pgstrom_log_relay_reset();

	/* no PostgreSQL signal handler may run in the child before exec */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &saved);
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		exec_launcher(argv, sv[1], pfd[1], exec_failure);
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
