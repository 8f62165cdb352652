/*-------------------------------------------------------------------------
 *
 * service_child.h
 *		The GPU service process: what the child that the supervisor forks
 *		(without exec) does before and while it runs the Go library.
 *
 * These files are plain C on purpose and include no PostgreSQL header:
 * once forked, the child must not touch PostgreSQL's state, and nothing
 * here can reach it by mistake.  service_spawn.c is the only caller.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGSTROM_SERVICE_CHILD_H
#define PGSTROM_SERVICE_CHILD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* where the child's ends of the channels are placed */
#define PGSTROM_CHILD_CTL_FD	3
#define PGSTROM_CHILD_LOG_FD	4

/* service_child_log.c: the log pipe and control messages of the child */
extern void pgstrom_child_set_fds(int ctl_fd, int log_fd);
extern void pgstrom_child_log(const char *level, const char *file, int lineno,
							  const char *func, const char *fmt,...)
			__attribute__((format(printf, 5, 6)));
extern void pgstrom_child_send_reason(uint32_t tag, const char *reason);
extern void pgstrom_child_exit(int code, uint32_t tag, const char *reason)
			__attribute__((noreturn));

#define CHILD_LOG(level, ...) \
	pgstrom_child_log(level, __FILE__, __LINE__, __func__, __VA_ARGS__)

/* service_child_isolate.c: cut the child loose from PostgreSQL */
extern void pgstrom_child_bind_to_parent(pid_t supervisor_pid);
extern void pgstrom_child_reset_signals(void);
extern void pgstrom_child_arrange_fds(int ctl_fd, int log_fd);
extern int	pgstrom_child_protect_shared_memory(char *reason, size_t reason_len);

/* service_child_load.c: the GPU checks, then the Go library's entry */
extern void pgstrom_child_run_service(const char *gosvc_path)
			__attribute__((noreturn));

#endif							/* PGSTROM_SERVICE_CHILD_H */
