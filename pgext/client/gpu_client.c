/*-------------------------------------------------------------------------
 *
 * gpu_client.c
 *		The backend's socket client of the GPU service.
 *
 * One connection per GPU node in a backend, to PGDATA/.pg_strom.<postmaster
 * pid>.gpu<N>.sock.  The socket is non-blocking and every wait goes through
 * WaitLatchOrSocket, so query cancel, statement_timeout and postmaster
 * death are noticed while the service works.  While a large message is
 * being written, replies that arrive are read into a queue, so neither side
 * can block the other with a full socket buffer.
 *
 * A connection belongs to the resource owner that was current when it was
 * opened; if that owner is released without the connection having been
 * closed (an error in the middle of a scan), the connection is closed
 * then, so no socket leaks.  The service frees everything of a connection
 * when it closes.
 *
 * Failures of the transport (connect refused, EOF, ECONNRESET, a malformed
 * header) are returned to the caller with a reason, never raised: the
 * caller decides whether to continue on the CPU.
 *
 * A service that stops answering (a hung kernel, a device gone bad) is one
 * more such failure: when a wait for a reply, or for room to send, sees no
 * byte move for pg_strom.gpu_task_timeout, the connection is closed and
 * marked failed.  Closing it, rather than only giving up on it, makes the
 * service drop the connection's queued work, and a reply that arrives
 * afterwards can never be taken for the answer to a later request.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "miscadmin.h"
#include "nodes/pg_list.h"
#include "postmaster/postmaster.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "core/pg_strom.h"
#include "client/gpu_client.h"
#include "client/role_quota.h"

#define GPU_CONNECT_RETRY_MS	10
#define GPU_CONNECT_RETRIES		200		/* 2s while the backlog is full */

struct GpuServiceConn
{
	GpuServiceConn *next;		/* in open_conns */
	pgsocket	sock;
	ResourceOwner owner;
	MemoryContext msg_cxt;		/* where received messages are allocated */
	bool		failed;			/* the transport is dead */
	char		reason[PGSTROM_REASON_LEN];
	char		path[MAXPGPATH];

	/* message being received */
	PgStromMsgHeader hdr;
	size_t		hdr_got;
	char	   *msg;
	size_t		msg_got;

	/* complete messages not yet returned */
	List	   *queue;

	/* bytes moved either way: a wait that sees them change made progress */
	uint64		progress;

	/* the role whose pg_strom.max_connections_per_role counts it */
	Oid			quota_role;
};

static GpuServiceConn *open_conns = NULL;
static bool resowner_callback_registered = false;
static bool exit_callback_registered = false;	/* in this backend */

static void
conn_unlink(GpuServiceConn *conn)
{
	GpuServiceConn **p;

	for (p = &open_conns; *p != NULL; p = &(*p)->next)
	{
		if (*p == conn)
		{
			*p = conn->next;
			break;
		}
	}
}

/*
 * Closes the connections of a resource owner being released.  Only the
 * socket and the struct are freed: the messages live in a query memory
 * context that the abort releases by itself.
 */
static void
gpu_client_resowner_release(ResourceReleasePhase phase, bool isCommit,
							bool isTopLevel, void *arg)
{
	GpuServiceConn *conn;
	GpuServiceConn *next;

	if (phase != RESOURCE_RELEASE_AFTER_LOCKS)
		return;
	for (conn = open_conns; conn != NULL; conn = next)
	{
		next = conn->next;
		if (conn->owner != CurrentResourceOwner)
			continue;
		if (isCommit)
			elog(WARNING, "GPU service connection leak: %s", conn->path);
		conn_unlink(conn);
		if (conn->sock != PGINVALID_SOCKET)
			close(conn->sock);
		pgstrom_role_quota_release(conn->quota_role);
		free(conn);
	}
}

/* a backend that exits with connections open gives their quota back */
static void
gpu_client_at_exit(int code, Datum arg)
{
	GpuServiceConn *conn;

	for (conn = open_conns; conn != NULL; conn = conn->next)
	{
		pgstrom_role_quota_release(conn->quota_role);
		conn->quota_role = InvalidOid;
	}
}

void
pgstrom_init_gpu_client(void)
{
	if (!resowner_callback_registered)
	{
		RegisterResourceReleaseCallback(gpu_client_resowner_release, NULL);
		resowner_callback_registered = true;
	}
}

static void
set_failed(GpuServiceConn *conn, char *errbuf, size_t errlen,
		   const char *fmt, const char *detail)
{
	conn->failed = true;
	snprintf(conn->reason, sizeof(conn->reason), fmt, detail);
	if (errbuf)
		strlcpy(errbuf, conn->reason, errlen);
}

/*
 * The time since which a wait has seen no byte move; a wait loop keeps one
 * and passes it to wait_socket.
 */
typedef struct WaitClock
{
	TimestampTz since;
	uint64		progress;		/* conn->progress at since */
} WaitClock;

static void
wait_clock_start(GpuServiceConn *conn, WaitClock *clock)
{
	clock->since = GetCurrentTimestamp();
	clock->progress = conn->progress;
}

/* pg_strom.gpu_task_timeout as it reads in a message: "60s", "1500ms" */
static void
format_task_timeout(char *buf, size_t len)
{
	int			ms = pgstrom_gpu_task_timeout_ms;

	if (ms % 60000 == 0)
		snprintf(buf, len, "%dmin", ms / 60000);
	else if (ms % 1000 == 0)
		snprintf(buf, len, "%ds", ms / 1000);
	else
		snprintf(buf, len, "%dms", ms);
}

/*
 * Gives up on a service that moved no byte for pg_strom.gpu_task_timeout:
 * the socket is closed at once, so the service sees the client gone and
 * drops its work, and nothing it sends later can be read.  Messages
 * already complete stay queued (they were answers in time).
 */
static void
conn_timed_out(GpuServiceConn *conn, char *errbuf, size_t errlen)
{
	char		timeout[32];

	format_task_timeout(timeout, sizeof(timeout));
	if (conn->sock != PGINVALID_SOCKET)
	{
		close(conn->sock);
		conn->sock = PGINVALID_SOCKET;
	}
	if (conn->msg)
	{
		pfree(conn->msg);
		conn->msg = NULL;
	}
	conn->msg_got = 0;
	conn->hdr_got = 0;
	set_failed(conn, errbuf, errlen,
			   "GPU service did not reply within pg_strom.gpu_task_timeout (%s)",
			   timeout);
}

/*
 * Waits for the socket or the latch; interrupts (query cancel,
 * statement_timeout, termination) are processed here, so they work while
 * the service is silent.  With pg_strom.gpu_task_timeout set, a wait that
 * has seen no byte move since clock->since for that long closes the
 * connection and returns false; the caller then finds it failed.
 */
static bool
wait_socket(GpuServiceConn *conn, int events, WaitClock *clock,
			char *errbuf, size_t errlen)
{
	int			rc;
	long		timeout_ms = -1L;

	if (conn->progress != clock->progress)
		wait_clock_start(conn, clock);
	if (pgstrom_gpu_task_timeout_ms > 0)
	{
		TimestampTz deadline;
		TimestampTz now = GetCurrentTimestamp();

		deadline = TimestampTzPlusMilliseconds(clock->since,
											   pgstrom_gpu_task_timeout_ms);
		timeout_ms = TimestampDifferenceMilliseconds(now, deadline);
		if (timeout_ms <= 0)
		{
			conn_timed_out(conn, errbuf, errlen);
			return false;
		}
		events |= WL_TIMEOUT;
	}
	rc = WaitLatchOrSocket(MyLatch,
						   WL_LATCH_SET | WL_EXIT_ON_PM_DEATH | events,
						   conn->sock, timeout_ms, PG_WAIT_EXTENSION);
	if (rc & WL_LATCH_SET)
		ResetLatch(MyLatch);
	CHECK_FOR_INTERRUPTS();
	/* the deadline is checked on the next call, after the socket is read */
	return true;
}

GpuServiceConn *
pgstrom_gpu_connect(int device_index, MemoryContext msg_cxt,
					char *errbuf, size_t errlen)
{
	GpuServiceConn *conn;
	struct sockaddr_un addr;
	int			retries = 0;

	pgstrom_init_gpu_client();

	conn = calloc(1, sizeof(GpuServiceConn));
	if (conn == NULL)
	{
		strlcpy(errbuf, "out of memory", errlen);
		return NULL;
	}
	conn->sock = PGINVALID_SOCKET;
	conn->msg_cxt = msg_cxt;
	conn->quota_role = InvalidOid;
	snprintf(conn->path, sizeof(conn->path), "%s/.pg_strom.%d.gpu%d.sock",
			 DataDir, (int) PostmasterPid, device_index);

	if (strlen(conn->path) >= sizeof(addr.sun_path))
	{
		snprintf(errbuf, errlen, "socket path \"%s\" is too long", conn->path);
		free(conn);
		return NULL;
	}
	memset(&addr, 0, sizeof(addr));
	addr.sun_family = AF_UNIX;
	strlcpy(addr.sun_path, conn->path, sizeof(addr.sun_path));

	if (!exit_callback_registered)
	{
		on_shmem_exit(gpu_client_at_exit, (Datum) 0);
		exit_callback_registered = true;
	}
	if (!pgstrom_role_quota_take(GetSessionUserId(), errbuf, errlen))
	{
		free(conn);
		return NULL;
	}
	conn->quota_role = GetSessionUserId();

	conn->sock = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (conn->sock < 0)
	{
		snprintf(errbuf, errlen, "could not create a socket: %m");
		pgstrom_role_quota_release(conn->quota_role);
		free(conn);
		return NULL;
	}

	/* from here on an error must not leak the socket */
	conn->owner = CurrentResourceOwner;
	conn->next = open_conns;
	open_conns = conn;

	for (;;)
	{
		if (connect(conn->sock, (struct sockaddr *) &addr, sizeof(addr)) == 0)
			break;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN && retries++ < GPU_CONNECT_RETRIES)
		{
			/* the service's backlog is full: retry shortly */
			(void) WaitLatch(MyLatch,
							 WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
							 GPU_CONNECT_RETRY_MS, PG_WAIT_EXTENSION);
			ResetLatch(MyLatch);
			CHECK_FOR_INTERRUPTS();
			continue;
		}
		snprintf(errbuf, errlen, "could not connect to \"%s\": %m", conn->path);
		pgstrom_gpu_close(conn);
		return NULL;
	}
	return conn;
}

const char *
pgstrom_gpu_conn_path(GpuServiceConn *conn)
{
	return conn->path;
}

/*
 * The pid of the service process at the other end (the one that listened),
 * which tells service instances apart: 0 when it cannot be read.
 */
int
pgstrom_gpu_conn_service_pid(GpuServiceConn *conn)
{
	struct ucred cred;
	socklen_t	len = sizeof(cred);

	if (getsockopt(conn->sock, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
		len != sizeof(cred))
		return 0;
	return (int) cred.pid;
}

/*
 * Reads whatever the socket has without blocking; complete messages go to
 * the queue.  Returns false when the transport failed.
 */
static bool
pump_read(GpuServiceConn *conn, char *errbuf, size_t errlen)
{
	for (;;)
	{
		ssize_t		n;

		if (conn->hdr_got < sizeof(PgStromMsgHeader))
		{
			n = recv(conn->sock, ((char *) &conn->hdr) + conn->hdr_got,
					 sizeof(PgStromMsgHeader) - conn->hdr_got, 0);
		}
		else
		{
			n = recv(conn->sock, conn->msg + conn->msg_got,
					 conn->hdr.length - conn->msg_got, 0);
		}
		if (n == 0)
		{
			set_failed(conn, errbuf, errlen,
					   "the GPU service closed the connection%s", "");
			return false;
		}
		if (n < 0)
		{
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return true;
			set_failed(conn, errbuf, errlen,
					   "could not receive from the GPU service: %s",
					   strerror(errno));
			return false;
		}

		conn->progress += n;
		if (conn->hdr_got < sizeof(PgStromMsgHeader))
		{
			conn->hdr_got += n;
			if (conn->hdr_got < sizeof(PgStromMsgHeader))
				continue;
			/* a whole header: check it before trusting its length */
			if (conn->hdr.magic != PGSTROM_MSG_MAGIC ||
				conn->hdr.length < sizeof(PgStromMsgHeader) ||
				conn->hdr.length > PGSTROM_MSG_MAX_LENGTH)
			{
				set_failed(conn, errbuf, errlen,
						   "malformed message header from the GPU service%s", "");
				return false;
			}
			conn->msg = MemoryContextAllocHuge(conn->msg_cxt, conn->hdr.length);
			memcpy(conn->msg, &conn->hdr, sizeof(PgStromMsgHeader));
			conn->msg_got = sizeof(PgStromMsgHeader);
		}
		else
			conn->msg_got += n;

		if (conn->msg_got == conn->hdr.length)
		{
			MemoryContext oldcxt = MemoryContextSwitchTo(conn->msg_cxt);

			conn->queue = lappend(conn->queue, conn->msg);
			MemoryContextSwitchTo(oldcxt);
			conn->msg = NULL;
			conn->msg_got = 0;
			conn->hdr_got = 0;
		}
	}
}

/* writes a whole message, reading replies that arrive meanwhile */
bool
pgstrom_gpu_send(GpuServiceConn *conn, const void *msg, size_t len,
				 char *errbuf, size_t errlen)
{
	size_t		off = 0;
	WaitClock	clock;

	if (conn->failed)
	{
		strlcpy(errbuf, conn->reason, errlen);
		return false;
	}
	wait_clock_start(conn, &clock);
	while (off < len)
	{
		ssize_t		n;

		n = send(conn->sock, (const char *) msg + off, len - off,
				 MSG_NOSIGNAL);

		if (n > 0)
		{
			off += n;
			conn->progress += n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		{
			/*
			 * Replies that arrived are read whether or not the wait said
			 * so: it may have returned for the latch alone.
			 */
			if (!pump_read(conn, errbuf, errlen))
				return false;
			if (!wait_socket(conn, WL_SOCKET_WRITEABLE | WL_SOCKET_READABLE,
							 &clock, errbuf, errlen))
				return false;
			continue;
		}
		{
			char		reason[PGSTROM_REASON_LEN];

			/*
			 * The service may have answered (an Error, say) and closed
			 * before this write: keep what it sent, readable still, for
			 * the caller, who looks for an Error reply first.
			 */
			snprintf(reason, sizeof(reason),
					 "could not send to the GPU service: %s",
					 n < 0 ? strerror(errno) : "no progress");
			(void) pump_read(conn, NULL, 0);
			set_failed(conn, errbuf, errlen, "%s", reason);
		}
		return false;
	}
	return true;
}

/*
 * Returns the next complete message (allocated in msg_cxt; the caller
 * pfrees it), waiting for it up to pg_strom.gpu_task_timeout without a
 * byte arriving.  NULL when the transport failed or the wait timed out,
 * with the reason in errbuf.
 */
PgStromMsgHeader *
pgstrom_gpu_recv(GpuServiceConn *conn, char *errbuf, size_t errlen)
{
	WaitClock	clock;

	wait_clock_start(conn, &clock);
	for (;;)
	{
		if (conn->queue != NIL)
		{
			char	   *msg = linitial(conn->queue);

			conn->queue = list_delete_first(conn->queue);
			return (PgStromMsgHeader *) msg;
		}
		if (conn->failed)
		{
			strlcpy(errbuf, conn->reason, errlen);
			return NULL;
		}
		if (!pump_read(conn, errbuf, errlen))
			continue;			/* returns a queued message first, if any */
		if (conn->queue != NIL)
			continue;
		(void) wait_socket(conn, WL_SOCKET_READABLE, &clock, errbuf, errlen);
	}
}

void
pgstrom_gpu_close(GpuServiceConn *conn)
{
	ListCell   *lc;

	if (conn == NULL)
		return;
	conn_unlink(conn);
	if (conn->sock != PGINVALID_SOCKET)
		close(conn->sock);
	foreach(lc, conn->queue)
		pfree(lfirst(lc));
	list_free(conn->queue);
	if (conn->msg)
		pfree(conn->msg);
	pgstrom_role_quota_release(conn->quota_role);
	free(conn);
}

/* the SQLSTATE of a service Error reply's code */
int
pgstrom_service_errcode(int32 code)
{
	switch (code)
	{
		case PGSTROM_ERR_PROTOCOL:
			return ERRCODE_PROTOCOL_VIOLATION;
		case PGSTROM_ERR_UNSUPPORTED:
			return ERRCODE_FEATURE_NOT_SUPPORTED;
		case PGSTROM_ERR_NO_MEMORY:
			return ERRCODE_OUT_OF_MEMORY;
		case PGSTROM_ERR_DEVICE:
			return ERRCODE_SYSTEM_ERROR;
		default:
			return ERRCODE_INTERNAL_ERROR;
	}
}
