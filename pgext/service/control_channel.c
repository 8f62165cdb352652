/*-------------------------------------------------------------------------
 *
 * control_channel.c
 *		Messages between the supervisor and the GPU service.
 *
 * The channel is a SOCK_SEQPACKET socketpair: a message arrives whole or
 * not at all, so there is no reassembly.  Everything the service sends is
 * still untrusted input: the header is checked (magic, tag, length equal to
 * what was received, payload size for the tag) before a single payload byte
 * is used, and strings are forced to be NUL-terminated.  A bad message is
 * logged and ignored; it never takes the supervisor down.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/socket.h>
#include <unistd.h>

#include "storage/lwlock.h"

#include "core/pg_strom.h"
#include "service/supervisor.h"
#include "service/service_state.h"

/* one byte more than the largest message, to notice oversized ones */
static union
{
	PgStromCtlHeader hdr;
	uint64		force_align;
	char		data[PGSTROM_CTL_MAX_MESSAGE + 1];
}			msgbuf;

#define CTL_HEADER_SZ		sizeof(PgStromCtlHeader)

bool
pgstrom_ctl_send(int fd, PgStromCtlTag tag, const void *payload, size_t len)
{
	PgStromCtlHeader *hdr = &msgbuf.hdr;
	ssize_t		sent;

	Assert(CTL_HEADER_SZ + len <= PGSTROM_CTL_MAX_MESSAGE);
	hdr->magic = PGSTROM_CTL_MAGIC;
	hdr->tag = (uint32) tag;
	hdr->length = (uint32) (CTL_HEADER_SZ + len);
	hdr->reserved = 0;
	if (len > 0)
		memcpy(msgbuf.data + CTL_HEADER_SZ, payload, len);

	/* never block on, nor be killed by, a service that went away */
	sent = send(fd, msgbuf.data, hdr->length, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (sent != (ssize_t) hdr->length)
	{
		if (sent < 0)
			ereport(LOG,
					(errcode_for_socket_access(),
					 errmsg("could not send control message %u to the GPU service: %m",
							(unsigned int) tag)));
		else
			ereport(LOG,
					(errmsg("could not send control message %u to the GPU service: sent %zd of %u bytes",
							(unsigned int) tag, sent, hdr->length)));
		return false;
	}
	return true;
}

static void
copy_reason(char *dst, const char *payload, size_t payload_len)
{
	size_t		n = Min(payload_len, (size_t) PGSTROM_REASON_LEN - 1);

	/* the sender may fill the whole fixed-size buffer, NUL or not */
	memcpy(dst, payload, n);
	dst[n] = '\0';
}

/*
 * Records a final state and its reason.  NO_GPU drops the device list and
 * figures, since no service will report them; FAILED keeps the last ones
 * until a restarted service replaces them.
 */
static void
record_reason(PgStromServiceChild *child, PgStromServiceState state,
			  const char *payload, size_t len, const char *fallback,
			  char *reason)
{
	PgStromServiceShared *ss = pgstrom_service_shared;

	copy_reason(reason, payload, len);
	if (reason[0] == '\0')
		strlcpy(reason, fallback, PGSTROM_REASON_LEN);

	LWLockAcquire(ss->lock, LW_EXCLUSIVE);
	ss->state = state;
	strlcpy(ss->reason, reason, sizeof(ss->reason));
	if (state == PGSTROM_SERVICE_NO_GPU)
	{
		memset(&ss->devices, 0, sizeof(ss->devices));
		memset(&ss->stats, 0, sizeof(ss->stats));
	}
	LWLockRelease(ss->lock);
	child->got_reason = true;
}

static void
handle_no_gpu(PgStromServiceChild *child, const char *payload, size_t len)
{
	char		reason[PGSTROM_REASON_LEN];

	/* logged once, when the service exits as it said it would */
	record_reason(child, PGSTROM_SERVICE_NO_GPU, payload, len,
				  "no usable GPU", reason);
}

static void
handle_fatal(PgStromServiceChild *child, const char *payload, size_t len)
{
	char		reason[PGSTROM_REASON_LEN];

	record_reason(child, PGSTROM_SERVICE_FAILED, payload, len,
				  "unknown fatal error", reason);
	ereport(WARNING,
			(errmsg("PG-Strom GPU service (pid %d) reported a fatal error: %s",
					(int) child->pid, reason)));
}

static bool
handle_ready(PgStromServiceChild *child, const char *payload, size_t len)
{
	PgStromServiceShared *ss = pgstrom_service_shared;
	PgStromCtlDevices devices;
	size_t		head = offsetof(PgStromCtlDevices, devices);
	uint32		i;

	/* the service may omit the unused tail of the device array */
	if (len < head || len > sizeof(PgStromCtlDevices))
		return false;
	memset(&devices, 0, sizeof(devices));
	memcpy(&devices, payload, len);
	if (devices.ndevices > PGSTROM_MAX_DEVICES ||
		len < head + devices.ndevices * sizeof(PgStromDeviceInfo))
		return false;

	devices.fatbin_path[PGSTROM_PATH_LEN - 1] = '\0';
	for (i = 0; i < devices.ndevices; i++)
	{
		PgStromDeviceInfo *dev = &devices.devices[i];

		dev->name[PGSTROM_DEVNAME_LEN - 1] = '\0';
		dev->pci_bus_id[sizeof(dev->pci_bus_id) - 1] = '\0';
		dev->pcie_link[PGSTROM_PCIE_LEN - 1] = '\0';
	}

	LWLockAcquire(ss->lock, LW_EXCLUSIVE);
	ss->state = PGSTROM_SERVICE_READY;
	ss->reason[0] = '\0';
	memcpy(&ss->devices, &devices, sizeof(devices));
	/* a new service process starts with empty page caches */
	pgstrom_page_cache_shared->ndevices = 0;
	LWLockRelease(ss->lock);

	ereport(LOG,
			(errmsg("PG-Strom GPU service (pid %d) is ready with %u GPU device(s)",
					(int) child->pid, devices.ndevices)));
	return true;
}

static bool
handle_status(const char *payload, size_t len)
{
	PgStromServiceShared *ss = pgstrom_service_shared;
	PgStromCtlStats stats;
	size_t		head = offsetof(PgStromCtlStats, devices);

	if (len < head || len > sizeof(PgStromCtlStats))
		return false;
	memset(&stats, 0, sizeof(stats));
	memcpy(&stats, payload, len);
	if (stats.ndevices > PGSTROM_MAX_DEVICES ||
		len < head + stats.ndevices * sizeof(PgStromDeviceStats))
		return false;

	LWLockAcquire(ss->lock, LW_EXCLUSIVE);
	memcpy(&ss->stats, &stats, sizeof(stats));
	LWLockRelease(ss->lock);
	return true;
}

/*
 * One device's page cache report replaces that device's last one.  The
 * service omits the unused tail of rels, so the length must be exactly
 * what nrels says.
 */
static bool
handle_page_cache(const char *payload, size_t len)
{
	PgStromServiceShared *ss = pgstrom_service_shared;
	PgStromPageCacheShared *pcs = pgstrom_page_cache_shared;
	size_t		head = offsetof(PgStromCtlPageCache, rels);
	int32		index;
	uint32		nrels;
	uint32		i;

	if (len < head)
		return false;
	memcpy(&index, payload + offsetof(PgStromCtlPageCache, index),
		   sizeof(index));
	memcpy(&nrels, payload + offsetof(PgStromCtlPageCache, nrels),
		   sizeof(nrels));
	if (nrels > PGSTROM_PAGE_CACHE_RELS ||
		len != head + nrels * sizeof(PgStromPageCacheRel))
		return false;

	LWLockAcquire(ss->lock, LW_EXCLUSIVE);
	for (i = 0; i < pcs->ndevices; i++)
	{
		if (pcs->devices[i].index == index)
			break;
	}
	if (i == PGSTROM_MAX_DEVICES)
	{
		LWLockRelease(ss->lock);
		return false;
	}
	memcpy(&pcs->devices[i], payload, len);
	if (i == pcs->ndevices)
		pcs->ndevices++;
	LWLockRelease(ss->lock);
	return true;
}

static void
handle_message(PgStromServiceChild *child, ssize_t nbytes)
{
	PgStromCtlHeader *hdr = &msgbuf.hdr;
	const char *payload = msgbuf.data + CTL_HEADER_SZ;
	size_t		len;
	bool		valid = true;

	if (nbytes < (ssize_t) CTL_HEADER_SZ)
	{
		ereport(LOG,
				(errmsg("ignored a %zd-byte message from the GPU service: shorter than a header",
						nbytes)));
		return;
	}
	if (nbytes > PGSTROM_CTL_MAX_MESSAGE)
	{
		ereport(LOG,
				(errmsg("ignored a message from the GPU service: longer than %d bytes",
						PGSTROM_CTL_MAX_MESSAGE)));
		return;
	}
	if (hdr->magic != PGSTROM_CTL_MAGIC || hdr->length != (uint32) nbytes)
	{
		ereport(LOG,
				(errmsg("ignored a malformed message from the GPU service: magic 0x%08x, length %u, received %zd bytes",
						hdr->magic, hdr->length, nbytes)));
		return;
	}
	len = (size_t) nbytes - CTL_HEADER_SZ;

	switch (hdr->tag)
	{
		case PGSTROM_CTL_NO_GPU:
			handle_no_gpu(child, payload, len);
			break;
		case PGSTROM_CTL_FATAL:
			handle_fatal(child, payload, len);
			break;
		case PGSTROM_CTL_READY:
			valid = handle_ready(child, payload, len);
			break;
		case PGSTROM_CTL_STATUS:
			valid = handle_status(payload, len);
			break;
		case PGSTROM_CTL_PAGE_CACHE:
			valid = handle_page_cache(payload, len);
			break;
		default:
			ereport(LOG,
					(errmsg("ignored a message with unknown tag %u from the GPU service",
							hdr->tag)));
			return;
	}
	if (!valid)
		ereport(LOG,
				(errmsg("ignored a message with tag %u from the GPU service: invalid %zu-byte payload",
						hdr->tag, len)));
}

/*
 * Read every message waiting on the control socket.  Returns false once
 * the service's end is closed (or broken), so the caller stops watching it.
 */
bool
pgstrom_ctl_receive(PgStromServiceChild *child)
{
	bool		reset_seen = false;

	for (;;)
	{
		ssize_t		nbytes;

		nbytes = recv(child->ctl_fd, msgbuf.data, sizeof(msgbuf.data),
					  MSG_DONTWAIT);
		if (nbytes > 0)
		{
			handle_message(child, nbytes);
			continue;
		}
		if (nbytes == 0)
			return false;		/* service closed its end */
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return true;

		/*
		 * A service that exits without reading everything we sent (the
		 * configuration, say) makes the kernel report ECONNRESET once,
		 * ahead of the messages it sent before exiting.  Those messages
		 * (NO_GPU, FATAL) are the ones that explain the exit: keep reading.
		 */
		if (errno == ECONNRESET && !reset_seen)
		{
			reset_seen = true;
			continue;
		}
		ereport(LOG,
				(errcode_for_socket_access(),
				 errmsg("could not receive from the GPU service control channel: %m")));
		return false;
	}
}
