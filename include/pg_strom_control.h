/*
 * pg_strom_control.h
 *
 * The control channel between the supervisor (the "PG-Strom GPU Service"
 * background worker) and the GPU service process (the supervisor's forked
 * child, which loads the Go library).
 *
 * The channel is an AF_UNIX SOCK_SEQPACKET socketpair, so every message is
 * delivered whole or not at all.  Each message is a PgStromCtlHeader followed
 * by the payload that its tag names.  This header is the one definition of
 * these bytes: the C supervisor, the service child's C code and the Go
 * service (via cgo)
 * all include it.
 */
#ifndef PG_STROM_CONTROL_H
#define PG_STROM_CONTROL_H

#include <stdint.h>

#define PGSTROM_CTL_MAGIC			0x5053434cU	/* "PSCL" */
#define PGSTROM_CTL_MAX_MESSAGE		65536
#define PGSTROM_MAX_DEVICES			16
#define PGSTROM_PATH_LEN			1024
#define PGSTROM_REASON_LEN			512
#define PGSTROM_DEVNAME_LEN			256
#define PGSTROM_PCIE_LEN			64

/* message tags */
typedef enum PgStromCtlTag
{
	/* supervisor -> service */
	PGSTROM_CTL_CONFIG = 1,		/* payload: PgStromCtlConfig */
	PGSTROM_CTL_STOP = 2,		/* no payload: shut down cleanly */
	/* launcher -> supervisor */
	PGSTROM_CTL_NO_GPU = 10,	/* payload: PgStromCtlReason */
	/* service -> supervisor */
	PGSTROM_CTL_READY = 11,		/* payload: PgStromCtlDevices */
	PGSTROM_CTL_STATUS = 12,	/* payload: PgStromCtlStats */
	PGSTROM_CTL_FATAL = 13,		/* payload: PgStromCtlReason */
	PGSTROM_CTL_PAGE_CACHE = 14	/* payload: PgStromCtlPageCache */
} PgStromCtlTag;

typedef struct PgStromCtlHeader
{
	uint32_t	magic;			/* PGSTROM_CTL_MAGIC */
	uint32_t	tag;			/* PgStromCtlTag */
	uint32_t	length;			/* whole message, header included */
	uint32_t	reserved;
} PgStromCtlHeader;

/*
 * Configuration pushed at start and after every change.  Sizes are bytes and
 * times are milliseconds, whatever unit the GUC is declared in.
 */
typedef struct PgStromCtlConfig
{
	int64_t		mempool_segment_sz;
	double		mempool_max_ratio;
	double		mempool_min_ratio;
	int32_t		mempool_release_delay_ms;
	int32_t		max_async_tasks;
	int32_t		cuda_stack_limit;
	int32_t		debug_output;	/* bool */
	int32_t		postmaster_pid;
	int32_t		reserved;
	char		data_directory[PGSTROM_PATH_LEN];
	char		cuda_toolkit_basedir[PGSTROM_PATH_LEN];
	char		kernel_source_dir[PGSTROM_PATH_LEN];	/* installed kernels/ */
	char		prebuilt_fatbin[PGSTROM_PATH_LEN];	/* "" if make had no nvcc */

	/*
	 * PostgreSQL's shared buffers as the service sees them: it is forked
	 * from the supervisor without exec, so they lie at the same address,
	 * which the service maps read-only and registers with each device for
	 * zero-copy chunks (XPU_BUFFER_SHARED).  shared_nbuffers 0: not
	 * available, chunks carry their pages.
	 */
	uint64_t	shared_base;	/* address of buffer 0 (BufferBlocks) */
	uint32_t	shared_nbuffers;	/* NBuffers */
	uint32_t	shared_block_size;	/* BLCKSZ */

	/*
	 * pg_strom.gpu_page_cache_size in bytes: device memory each device
	 * keeps for the images of all-visible heap pages read directly (see
	 * XPU_DIRECT_STAMPS); 0, none; -1, sized by the service from the memory
	 * the memory pool leaves (docs/gucs.md).  Taken at start only.
	 */
	int64_t		page_cache_size;

	/*
	 * Per-client bounds of each device's socket, both taken live:
	 * max_conns_per_backend is pg_strom.max_connections_per_backend (open
	 * connections of one client process); session_idle_timeout_ms is
	 * pg_strom.gpu_session_idle_timeout (a connection with an open session
	 * and nothing in flight that sends nothing for that long is closed; 0
	 * never).
	 */
	int32_t		max_conns_per_backend;
	int32_t		session_idle_timeout_ms;
} PgStromCtlConfig;

typedef struct PgStromCtlReason
{
	char		reason[PGSTROM_REASON_LEN];
} PgStromCtlReason;

typedef struct PgStromDeviceInfo
{
	int32_t		index;			/* CUDA ordinal; also the N of gpu<N>.sock */
	int32_t		cc_major;
	int32_t		cc_minor;
	int32_t		multiprocessors;
	uint64_t	total_memory;	/* bytes */
	char		name[PGSTROM_DEVNAME_LEN];
	char		pci_bus_id[32];
	char		pcie_link[PGSTROM_PCIE_LEN];	/* e.g. "PCIe Gen5 x16", or "unknown" */

	/*
	 * Zero-copy: bytes of shared buffers registered with this device
	 * (read-only, mapped), 0 when not, with the reason; and how long the
	 * registration took.  Backends send XPU_BUFFER_SHARED chunks only to a
	 * device that registered every shared buffer.
	 */
	uint64_t	shared_registered;
	uint64_t	shared_register_us;
	char		shared_reason[PGSTROM_REASON_LEN];	/* "" when registered */

	/*
	 * Bytes of the device page cache, 0 when the device keeps none:
	 * backends ask for cached pages only where there is a cache.
	 */
	uint64_t	page_cache_bytes;
} PgStromDeviceInfo;

typedef struct PgStromCtlDevices
{
	uint32_t	ndevices;
	uint32_t	reserved;
	char		fatbin_path[PGSTROM_PATH_LEN];
	PgStromDeviceInfo devices[PGSTROM_MAX_DEVICES];
} PgStromCtlDevices;

/*
 * One client process's use of a device's service: open connections,
 * commands in flight and reply bytes waiting for it to read.  A STATUS
 * message carries the PGSTROM_STATUS_CLIENTS clients that hold the most
 * reply bytes (then commands, then connections).
 */
#define PGSTROM_STATUS_CLIENTS		32
typedef struct PgStromClientStats
{
	int32_t		pid;
	uint32_t	connections;
	uint32_t	commands;
	uint32_t	reserved;
	uint64_t	reply_bytes;
} PgStromClientStats;

typedef struct PgStromDeviceStats
{
	int32_t		index;
	uint32_t	workers;		/* running worker goroutines */
	uint32_t	connections;	/* open client sockets */
	uint32_t	queued;			/* commands waiting for a worker */
	uint64_t	pool_used;		/* bytes handed out as chunks */
	uint64_t	pool_total;		/* bytes held in segments */
	uint64_t	pool_limit;		/* max_ratio x device memory */
	uint64_t	host_pinned;	/* pinned host bytes kept for chunks */
	uint32_t	busy;			/* worker slots running a command */
	uint32_t	suspended;		/* commands waiting for their client to
								 * read, without a worker */
	uint32_t	clients;		/* client processes with a connection */
	uint32_t	max_client_conns;	/* most connections of one client */
	uint32_t	nclient_stats;	/* entries of client_stats in use */
	uint32_t	reserved2;
	PgStromClientStats client_stats[PGSTROM_STATUS_CLIENTS];
} PgStromDeviceStats;

typedef struct PgStromCtlStats
{
	uint64_t	dropped_log_lines;
	uint32_t	ndevices;
	uint32_t	reserved;
	PgStromDeviceStats devices[PGSTROM_MAX_DEVICES];
} PgStromCtlStats;

/*
 * What one device's page cache holds and did, per relation file: after
 * each STATUS, the service sends a PAGE_CACHE message for every device
 * that keeps a cache.  Sixteen devices' worth would not fit in one
 * message, hence one per device.  It names the PGSTROM_PAGE_CACHE_RELS
 * relations holding the most pages (then looked up most), and omits the
 * unused tail of rels.  Counts are pages since the service started.
 */
#define PGSTROM_PAGE_CACHE_RELS		256
typedef struct PgStromPageCacheRel
{
	uint32_t	spc_oid;
	uint32_t	db_oid;
	uint32_t	rel_number;		/* relfilenode */
	uint32_t	reserved;
	uint64_t	cached_pages;	/* slots it holds, those being filled too */
	uint64_t	hits;			/* served from the cache */
	uint64_t	misses;			/* looked up, not served */
	uint64_t	fills;			/* copied into the cache */
	uint64_t	evictions;		/* freed for another relation */
	uint64_t	refills;		/* slots refilled under a new stamp */
} PgStromPageCacheRel;

typedef struct PgStromCtlPageCache
{
	int32_t		index;			/* the device */
	uint32_t	nrels;			/* entries of rels in use */
	PgStromPageCacheRel rels[PGSTROM_PAGE_CACHE_RELS];
} PgStromCtlPageCache;

/*
 * Exit codes of the service process that the supervisor acts upon.
 */
#define PGSTROM_EXIT_STOPPED		0	/* clean stop on request */
#define PGSTROM_EXIT_FAILED			1	/* fatal error: restart with back-off */
#define PGSTROM_EXIT_USAGE			2	/* started wrongly: do not restart */
#define PGSTROM_EXIT_NO_GPU			3	/* no usable GPU: do not restart */
#define PGSTROM_EXIT_LOAD_FAILED	4	/* Go library missing/broken: back-off */

/*
 * The one symbol the service process looks up in the Go library; envp is
 * the process's environment (NULL-terminated "NAME=value"), which Go cannot
 * read itself in a process that PostgreSQL retitled.
 */
#define PGSTROM_SERVICE_ENTRY		"PgStromServiceMain"
typedef int (*PgStromServiceEntry) (int ctl_fd, int log_fd, char **envp);

/*
 * Log pipe: one line per message, written with a single write() of at most
 * PIPE_BUF bytes (longer messages are truncated), newline-terminated:
 *     <source>|<LEVEL>|<file>|<line>|<func>|<message>\n
 * <source> is "GPU<n>" for a device or "SVC" for the service as a whole;
 * <LEVEL> is one of DEBUG, LOG, NOTICE, WARNING.  Newlines and '|' are not
 * escaped in <message> except that newlines become spaces.
 */
#define PGSTROM_LOG_MAX_LINE		4096

#endif							/* PG_STROM_CONTROL_H */
