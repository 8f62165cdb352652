/*-------------------------------------------------------------------------
 *
 * service_child_log.c
 *		How the forked GPU service process speaks before Go runs: log
 *		lines on the log pipe, reasons on the control socket.
 *
 * Plain C without PostgreSQL headers (see service_child.h): elog would
 * run PostgreSQL code in a process that must not.  The formats are the
 * contract of include/pg_strom_control.h.
 *
 *-------------------------------------------------------------------------
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pg_strom_control.h"
#include "service/service_child.h"

static int	child_ctl_fd = -1;
static int	child_log_fd = -1;

void
pgstrom_child_set_fds(int ctl_fd, int log_fd)
{
	child_ctl_fd = ctl_fd;
	child_log_fd = log_fd;
}

/*
 * One line in the log pipe format, with a single write() of at most
 * PIPE_BUF bytes as the contract requires; the supervisor relays it with
 * this file, line and function.
 */
void
pgstrom_child_log(const char *level, const char *file, int lineno,
				  const char *func, const char *fmt,...)
{
	char		msg[PGSTROM_LOG_MAX_LINE];
	char		line[PGSTROM_LOG_MAX_LINE];
	va_list		ap;
	int			len;
	char	   *p;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (p = msg; *p; p++)
	{
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	}

	len = snprintf(line, sizeof(line), "SVC|%s|%s|%d|%s|%s\n",
				   level, file, lineno, func, msg);
	if (len < 0)
		return;
	/* truncated: keep it one line */
	if (len > (int) sizeof(line))
		len = sizeof(line);
	if (len > PIPE_BUF)
		len = PIPE_BUF;
	line[len - 1] = '\n';
	if (child_log_fd < 0 || write(child_log_fd, line, len) != len)
	{
		/* stderr is the server log; a short write there is lost anyway */
		if (write(STDERR_FILENO, line, len) < 0)
			return;
	}
}

/* send a control message carrying a reason */
void
pgstrom_child_send_reason(uint32_t tag, const char *reason)
{
	struct
	{
		PgStromCtlHeader hdr;
		PgStromCtlReason body;
	}			msg;

	memset(&msg, 0, sizeof(msg));
	msg.hdr.magic = PGSTROM_CTL_MAGIC;
	msg.hdr.tag = tag;
	msg.hdr.length = sizeof(msg);
	snprintf(msg.body.reason, sizeof(msg.body.reason), "%s", reason);
	if (send(child_ctl_fd, &msg, sizeof(msg), MSG_NOSIGNAL) != (ssize_t) sizeof(msg))
		CHILD_LOG("WARNING", "could not send control message %u: %s",
				  (unsigned int) tag, strerror(errno));
}

/*
 * End the service before Go runs, with tag's reason sent to the
 * supervisor (tag 0: none).  What the supervisor sent (the configuration)
 * is read and dropped first: closing a socket with unread messages makes
 * the supervisor's next receive fail with ECONNRESET ahead of our reason.
 * _exit(), never exit(): PostgreSQL's exit callbacks must not run here.
 */
void
pgstrom_child_exit(int code, uint32_t tag, const char *reason)
{
	char		buf[1024];

	if (tag != 0)
		pgstrom_child_send_reason(tag, reason);
	if (child_ctl_fd >= 0)
	{
		while (recv(child_ctl_fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
			;
	}
	_exit(code);
}
