/*-------------------------------------------------------------------------
 *
 * log_relay.c
 *		Relay the GPU service's log pipe into the PostgreSQL log.
 *
 * The service writes one line per message (see pg_strom_control.h):
 *		<source>|<LEVEL>|<file>|<line>|<func>|<message>\n
 * Each line becomes one ereport() whose location fields are the service's
 * own file, line and function, so log_error_verbosity = verbose points at
 * the Go source, not at this file.  The level is never ERROR: the service's
 * troubles must not end the supervisor.
 *
 * DEBUG lines are only written while pg_strom.gpuserv_debug_output is on,
 * so they are reported at LOG: a DBA who turns debug output on must see it
 * without also lowering log_min_messages.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>
#include <unistd.h>

#include "core/pg_strom.h"
#include "service/supervisor.h"

/* room for one whole line plus the start of the next one */
static char linebuf[2 * PGSTROM_LOG_MAX_LINE];
static size_t linebuf_len = 0;

static int
level_from_name(const char *name)
{
	if (strcmp(name, "DEBUG") == 0)
		return LOG;
	if (strcmp(name, "LOG") == 0)
		return LOG;
	if (strcmp(name, "NOTICE") == 0)
		return NOTICE;
	if (strcmp(name, "WARNING") == 0)
		return WARNING;
	return -1;
}

/*
 * Parse and report one line (without its newline).  The line is modified
 * in place: '|' separators become NULs.  Only the first five '|' separate
 * fields; the message may contain more of them.
 */
static void
relay_line(char *line)
{
	char	   *field[6];
	char	   *pos = line;
	char	   *end;
	long		lineno;
	int			elevel;
	int			i;

	if (line[0] == '\0')
		return;

	for (i = 0; i < 5; i++)
	{
		char	   *bar = strchr(pos, '|');

		if (bar == NULL)
			goto malformed;
		field[i] = pos;
		pos = bar + 1;
	}
	field[5] = pos;

	/* validate before cutting the line, so a bad one is logged intact */
	errno = 0;
	lineno = strtol(field[3], &end, 10);
	if (field[0] == field[1] - 1 || end == field[3] || *end != '|' ||
		errno != 0 || lineno < 0 || lineno > INT_MAX)
		goto malformed;

	for (i = 1; i < 6; i++)
		field[i][-1] = '\0';
	elevel = level_from_name(field[1]);
	if (elevel < 0)
	{
		/* restore the separators so the line is logged as it came */
		for (i = 1; i < 6; i++)
			field[i][-1] = '|';
		goto malformed;
	}

	/*
	 * ereport() would stamp this file's location; errstart/errfinish let us
	 * give the service's instead.
	 */
	if (errstart(elevel, TEXTDOMAIN))
	{
		errmsg_internal("%s: %s", field[0], field[5]);
		errfinish(field[2][0] != '\0' ? field[2] : NULL,
				  (int) lineno,
				  field[4][0] != '\0' ? field[4] : NULL);
	}
	return;

malformed:
	ereport(LOG, (errmsg_internal("%s", line)));
}

/*
 * Report every complete line in the buffer and keep the incomplete tail
 * for the next read.  A "line" that outgrows PGSTROM_LOG_MAX_LINE without
 * a newline breaks the protocol; it is reported as it is.
 */
static void
relay_buffered_lines(bool flush_tail)
{
	size_t		start = 0;

	for (;;)
	{
		char	   *nl = memchr(linebuf + start, '\n', linebuf_len - start);

		if (nl == NULL)
			break;
		*nl = '\0';
		relay_line(linebuf + start);
		start = (nl - linebuf) + 1;
	}

	if (start > 0)
	{
		memmove(linebuf, linebuf + start, linebuf_len - start);
		linebuf_len -= start;
	}

	if (linebuf_len > 0 &&
		(flush_tail || linebuf_len >= PGSTROM_LOG_MAX_LINE))
	{
		linebuf[linebuf_len] = '\0';
		ereport(LOG, (errmsg_internal("%s", linebuf)));
		linebuf_len = 0;
	}
}

/*
 * Drain the log pipe (non-blocking).  Returns false once the write end is
 * closed for good (the service exited) or the pipe broke; then any
 * unterminated last line has already been reported.
 */
bool
pgstrom_log_relay_drain(int fd)
{
	for (;;)
	{
		/* keep one byte for the terminator of a flushed tail */
		size_t		room = sizeof(linebuf) - 1 - linebuf_len;
		ssize_t		nbytes;

		nbytes = read(fd, linebuf + linebuf_len, room);
		if (nbytes > 0)
		{
			linebuf_len += nbytes;
			relay_buffered_lines(false);
			continue;
		}
		if (nbytes < 0 && errno == EINTR)
			continue;
		if (nbytes < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return true;
		if (nbytes < 0)
			ereport(LOG,
					(errcode_for_file_access(),
					 errmsg("could not read the GPU service log pipe: %m")));
		relay_buffered_lines(true);
		return false;
	}
}

/* forget a partial line of a previous service process */
void
pgstrom_log_relay_reset(void)
{
	linebuf_len = 0;
}
