/*-------------------------------------------------------------------------
 *
 * service_child_isolate.c
 *		Cut the forked GPU service process loose from PostgreSQL.
 *
 * The supervisor forks the service without exec, so that the service
 * inherits PostgreSQL's shared memory at the same address (an anonymous
 * shared mapping does not survive exec; DESIGN.md section 1).  It also
 * inherits everything else of a PostgreSQL process.  This file undoes that:
 * the service dies with the supervisor, gets default signal handling, keeps
 * only its own descriptors, and can no longer write any shared memory.
 *
 * Plain C without PostgreSQL headers (see service_child.h).
 *
 *-------------------------------------------------------------------------
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pg_strom_control.h"
#include "service/service_child.h"

/*
 * Die with the supervisor.  After a crash of any backend the postmaster
 * kills its children, the supervisor among them, and then reinitializes
 * shared memory; a service that outlived the supervisor would keep reading
 * the old memory (and keep it allocated).  SIGKILL, because nothing of the
 * service must run any more.  If the supervisor died before prctl(), the
 * signal never comes: then our parent is no longer the supervisor, and we
 * leave at once.
 */
void
pgstrom_child_bind_to_parent(pid_t supervisor_pid)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0)
		_exit(PGSTROM_EXIT_FAILED);
	if (getppid() != supervisor_pid)
		_exit(PGSTROM_EXIT_STOPPED);
}

/*
 * PostgreSQL's handlers must not run here, and Go needs default
 * dispositions and an empty mask: PostgreSQL 15 blocks SIGURG for its
 * latch, and Go preempts goroutines with SIGURG.  All signals are still
 * blocked (by the supervisor, around fork) while the handlers are reset.
 * setsid() leaves the worker's process group, so that the postmaster's
 * signals to that group do not reach the service; the supervisor alone
 * decides how it stops.
 */
void
pgstrom_child_reset_signals(void)
{
	sigset_t	empty;
	int			sig;

	for (sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigemptyset(&empty);
	sigprocmask(SIG_SETMASK, &empty, NULL);
	setsid();
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
		maxfd = rl.rlim_cur < INT_MAX ? (int) rl.rlim_cur : INT_MAX;
	for (fd = lowfd; fd < maxfd; fd++)
		close(fd);
}

/*
 * Keep only stdout and stderr (the server log), the control socket and the
 * log pipe, at fixed numbers.  Every other descriptor is PostgreSQL's: the
 * postmaster-death pipe, the latch's epoll and signalfd, relation files;
 * none is the service's to use or keep open.  stdin reads /dev/null.
 */
void
pgstrom_child_arrange_fds(int ctl_fd, int log_fd)
{
	int			high_ctl;
	int			high_log;
	int			devnull;

	/* move our ends out of the way, then onto the fixed descriptors */
	high_ctl = fcntl(ctl_fd, F_DUPFD, 10);
	high_log = fcntl(log_fd, F_DUPFD, 10);
	if (high_ctl < 0 || high_log < 0 ||
		dup2(high_ctl, PGSTROM_CHILD_CTL_FD) < 0 ||
		dup2(high_log, PGSTROM_CHILD_LOG_FD) < 0)
		_exit(PGSTROM_EXIT_FAILED);
	close_fds_from(PGSTROM_CHILD_LOG_FD + 1);
	pgstrom_child_set_fds(PGSTROM_CHILD_CTL_FD, PGSTROM_CHILD_LOG_FD);

	devnull = open("/dev/null", O_RDONLY);
	if (devnull < 0 ||
		(devnull != STDIN_FILENO && dup2(devnull, STDIN_FILENO) < 0))
		CHILD_LOG("WARNING", "could not redirect stdin to /dev/null: %s",
				  strerror(errno));
	if (devnull > STDIN_FILENO && devnull != PGSTROM_CHILD_CTL_FD &&
		devnull != PGSTROM_CHILD_LOG_FD)
		close(devnull);
}

/* the whole of a small /proc file, NUL-terminated; NULL on failure */
static char *
read_proc_file(const char *path)
{
	size_t		size = 65536;
	size_t		len = 0;
	char	   *buf = NULL;
	int			fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	for (;;)
	{
		ssize_t		n;

		if (buf == NULL || len + 1 >= size)
		{
			char	   *grown;

			if (buf != NULL)
				size *= 2;
			grown = realloc(buf, size);
			if (grown == NULL)
				break;
			buf = grown;
		}
		n = read(fd, buf + len, size - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
		{
			close(fd);
			if (n < 0)
				break;
			buf[len] = '\0';
			return buf;
		}
		len += n;
	}
	close(fd);
	free(buf);
	return NULL;
}

/*
 * Make every shared writable mapping of this process read-only: PostgreSQL's
 * main shared memory (mmap or System V, huge pages or not), the System V
 * interlock segment and any DSM segment.  Then, whatever a driver or a bug
 * does in this process, it cannot write PostgreSQL's shared memory
 * (DESIGN.md section 1, fact 5), while the service can still read shared
 * buffers where they lie.  /proc/self/maps is read whole before the first
 * mprotect(), since changing mappings while reading it may skip or repeat
 * lines.  Returns 0 with the reason if any mapping stays writable.
 */
int
pgstrom_child_protect_shared_memory(char *reason, size_t reason_len)
{
	char	   *maps = read_proc_file("/proc/self/maps");
	char	   *line;
	char	   *next;
	int			nprotected = 0;
	uintptr_t	largest = 0;
	bool		largest_huge = false;

	if (maps == NULL)
	{
		snprintf(reason, reason_len, "could not read /proc/self/maps: %s",
				 strerror(errno));
		return 0;
	}
	for (line = maps; *line != '\0'; line = next)
	{
		uintptr_t	start;
		uintptr_t	end;
		char		perms[5];
		char	   *nl = strchr(line, '\n');

		next = nl ? nl + 1 : line + strlen(line);
		if (nl)
			*nl = '\0';
		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %4s", &start, &end, perms) != 3)
			continue;
		if (perms[1] != 'w' || perms[3] != 's')
			continue;
		if (mprotect((void *) start, end - start, PROT_READ) != 0)
		{
			snprintf(reason, reason_len,
					 "could not make shared memory read-only in the GPU service (%.200s): %s",
					 line, strerror(errno));
			free(maps);
			return 0;
		}
		nprotected++;
		if (end - start > largest)
		{
			/* hugetlbfs mappings: anonymous ones show as /anon_hugepage */
			largest = end - start;
			largest_huge = strstr(line, "anon_hugepage") != NULL ||
				strstr(line, "/hugepages") != NULL;
		}
	}
	free(maps);

	/*
	 * Each backend that pins pages for the GPU faults in and later tears
	 * down its page tables of shared buffers: with 4 kB pages that doubled
	 * the backends' CPU per page on the H200 (README, "Huge pages").
	 */
	CHILD_LOG("LOG", "PostgreSQL's shared memory is read-only in the GPU service (%d mappings; the largest, %zu MB, %s)",
			  nprotected, (size_t) (largest >> 20),
			  largest_huge ? "in huge pages" :
			  "not in hugetlbfs huge pages: reserving them (vm.nr_hugepages) halves the backends' CPU per page");
	return 1;
}
