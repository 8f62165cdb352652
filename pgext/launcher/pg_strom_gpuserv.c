/*
 * pg_strom_gpuserv.c
 *		Launcher of the PG-Strom GPU service.
 *
 *		pg_strom_gpuserv <path of pg_strom_gosvc.so> <control fd> <log fd>
 *
 * The supervisor (a PostgreSQL background worker) fork+execs this program.
 * It is plain C on purpose: it links neither PostgreSQL nor Go, so it can
 * check for a usable GPU before the Go library is loaded.  That matters
 * because the Go CUDA binding calls cuInit() in a package init() and exits
 * the process if it fails, inside dlopen(), with no useful message.
 *
 * With no usable GPU it sends PGSTROM_CTL_NO_GPU with the precise reason
 * and exits PGSTROM_EXIT_NO_GPU, which tells the supervisor not to restart
 * it.  Otherwise it loads the Go library and hands over to its one entry
 * point, which returns only when the service stops.
 *
 * TEST-ONLY host executor: with PG_STROM_TEST_HOST_EXECUTOR=1 in the
 * environment (set by test/run_regress_hostexec.sh only), the GPU checks are
 * skipped and pg_strom_gosvc_hostexec.so, found next to the library named by
 * argv[1], is loaded instead: the same service with the kernels' host code
 * as its device.  make install never installs that library, so the variable
 * alone cannot turn a production server into a CPU one.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pg_strom_control.h"

/* the TEST-ONLY host executor (see the header comment) */
#define HOSTEXEC_ENV		"PG_STROM_TEST_HOST_EXECUTOR"
#define HOSTEXEC_LIBRARY	"pg_strom_gosvc_hostexec.so"

/* the CUDA driver API subset we need, without cuda.h */
typedef int CUresult;
typedef CUresult (*cuInit_fn) (unsigned int flags);
typedef CUresult (*cuDeviceGetCount_fn) (int *count);
typedef CUresult (*cuGetErrorName_fn) (CUresult error, const char **name);

static int	log_fd = -1;
static int	ctl_fd = -1;

/*
 * One line in the log pipe format, with a single write() as the contract
 * requires; the supervisor relays it with this file/line/function.
 */
static void
__attribute__((format(printf, 4, 5)))
log_line(const char *level, int lineno, const char *func,
		 const char *fmt,...)
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
				   level, __FILE__, lineno, func, msg);
	if (len < 0)
		return;
	if (len >= (int) sizeof(line))
	{
		/* truncated: keep it one line */
		len = sizeof(line) - 1;
		line[len - 1] = '\n';
	}
	if (len > PIPE_BUF)
	{
		len = PIPE_BUF;
		line[len - 1] = '\n';
	}
	if (log_fd < 0 || write(log_fd, line, len) != len)
		fputs(line, stderr);
}

#define LOG_LINE(level, ...) log_line(level, __LINE__, __func__, __VA_ARGS__)

/* send a control message carrying a reason */
static void
send_reason(uint32_t tag, const char *reason)
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
	if (send(ctl_fd, &msg, sizeof(msg), MSG_NOSIGNAL) != (ssize_t) sizeof(msg))
		LOG_LINE("WARNING", "could not send control message %u: %s",
				 (unsigned int) tag, strerror(errno));
}

/*
 * Read and drop what the supervisor sent (the configuration) before an
 * early exit.  Closing a socket with unread messages makes the supervisor's
 * next receive fail with ECONNRESET ahead of our last message.
 */
static void
discard_control_input(void)
{
	char		buf[1024];

	while (recv(ctl_fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

static int
parse_fd(const char *arg)
{
	char	   *end;
	long		val;

	errno = 0;
	val = strtol(arg, &end, 10);
	if (errno != 0 || end == arg || *end != '\0' || val < 0 || val > INT_MAX)
		return -1;
	if (fcntl((int) val, F_GETFD) < 0)
		return -1;
	return (int) val;
}

static const char *
cuda_error_name(cuGetErrorName_fn get_name, CUresult rc)
{
	const char *name = NULL;

	if (get_name == NULL || get_name(rc, &name) != 0 || name == NULL)
		return "CUDA error";
	return name;
}

/*
 * Is there a usable GPU?  Returns 1 if so; otherwise writes why into
 * reason.  libcuda stays loaded: the Go library needs it anyway.
 */
static int
check_gpu(char *reason, size_t reason_len)
{
	void	   *libcuda;
	cuInit_fn	cu_init;
	cuDeviceGetCount_fn cu_device_get_count;
	cuGetErrorName_fn cu_get_error_name;
	CUresult	rc;
	int			count = 0;

	libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
	if (libcuda == NULL)
	{
		snprintf(reason, reason_len, "libcuda.so.1 not found: %s", dlerror());
		return 0;
	}
	cu_init = (cuInit_fn) dlsym(libcuda, "cuInit");
	cu_device_get_count = (cuDeviceGetCount_fn) dlsym(libcuda, "cuDeviceGetCount");
	cu_get_error_name = (cuGetErrorName_fn) dlsym(libcuda, "cuGetErrorName");
	if (cu_init == NULL || cu_device_get_count == NULL)
	{
		snprintf(reason, reason_len,
				 "libcuda.so.1 lacks cuInit or cuDeviceGetCount: %s", dlerror());
		return 0;
	}

	rc = cu_init(0);
	if (rc != 0)
	{
		snprintf(reason, reason_len, "cuInit failed: %s (%d)",
				 cuda_error_name(cu_get_error_name, rc), rc);
		return 0;
	}
	rc = cu_device_get_count(&count);
	if (rc != 0)
	{
		snprintf(reason, reason_len, "cuDeviceGetCount failed: %s (%d)",
				 cuda_error_name(cu_get_error_name, rc), rc);
		return 0;
	}
	if (count <= 0)
	{
		snprintf(reason, reason_len, "no CUDA devices");
		return 0;
	}
	return 1;
}

/* is the TEST-ONLY host executor asked for?  Only the exact value "1" */
static int
host_executor_requested(void)
{
	const char *value = getenv(HOSTEXEC_ENV);

	return value != NULL && strcmp(value, "1") == 0;
}

/*
 * The host executor's library: HOSTEXEC_LIBRARY in the directory of the
 * service library.  Returns 0, with the reason, if it is not installed.
 */
static int
host_executor_library(const char *gosvc_path, char *path, size_t path_len,
					  char *reason, size_t reason_len)
{
	const char *slash = strrchr(gosvc_path, '/');
	int			dirlen = slash ? (int) (slash - gosvc_path) : 1;
	const char *dir = slash ? gosvc_path : ".";
	int			len;

	len = snprintf(path, path_len, "%.*s/%s", dirlen, dir, HOSTEXEC_LIBRARY);
	if (len < 0 || (size_t) len >= path_len)
	{
		snprintf(reason, reason_len, "%s=1, but the path of %s is too long",
				 HOSTEXEC_ENV, HOSTEXEC_LIBRARY);
		return 0;
	}
	if (access(path, R_OK) != 0)
	{
		snprintf(reason, reason_len,
				 "%s=1, but the TEST-ONLY host executor \"%.256s\" is not installed (%.64s); only test/run_regress_hostexec.sh installs it",
				 HOSTEXEC_ENV, path, strerror(errno));
		return 0;
	}
	return 1;
}

int
main(int argc, char *argv[])
{
	char		reason[PGSTROM_REASON_LEN];
	char		hostexec_path[PATH_MAX];
	const char *library;
	void	   *gosvc;
	PgStromServiceEntry entry;

	if (argc != 4 ||
		(ctl_fd = parse_fd(argv[2])) < 0 ||
		(log_fd = parse_fd(argv[3])) < 0)
	{
		fprintf(stderr,
				"usage: %s <path of %s> <control fd> <log fd>\n"
				"This program is started by the PG-Strom GPU Service background worker.\n",
				argc > 0 ? argv[0] : "pg_strom_gpuserv", "pg_strom_gosvc.so");
		return PGSTROM_EXIT_USAGE;
	}

	/*
	 * Die with the supervisor.  If it died before this call, the signal
	 * will never come: our parent is then no longer the process that
	 * started us, and with no supervisor there is no one to serve.
	 */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0)
		LOG_LINE("WARNING", "prctl(PR_SET_PDEATHSIG) failed: %s", strerror(errno));
	if (getppid() == 1)
		return PGSTROM_EXIT_STOPPED;

	library = argv[1];
	if (host_executor_requested())
	{
		/*
		 * No libcuda, cuInit or device count: the host executor's library
		 * links no CUDA.  A missing library is final, as no GPU is.
		 */
		if (!host_executor_library(argv[1], hostexec_path, sizeof(hostexec_path),
								   reason, sizeof(reason)))
		{
			LOG_LINE("WARNING", "%s", reason);
			send_reason(PGSTROM_CTL_NO_GPU, reason);
			discard_control_input();
			return PGSTROM_EXIT_NO_GPU;
		}
		LOG_LINE("WARNING", "%s=1: loading the TEST-ONLY host executor \"%s\" instead of the GPU service; no GPU is used",
				 HOSTEXEC_ENV, hostexec_path);
		library = hostexec_path;
	}
	else if (!check_gpu(reason, sizeof(reason)))
	{
		LOG_LINE("LOG", "no usable GPU, the GPU service is disabled: %s", reason);
		send_reason(PGSTROM_CTL_NO_GPU, reason);
		discard_control_input();
		return PGSTROM_EXIT_NO_GPU;
	}

	gosvc = dlopen(library, RTLD_NOW | RTLD_GLOBAL);
	if (gosvc == NULL)
	{
		snprintf(reason, sizeof(reason),
				 "could not load the GPU service library: %s", dlerror());
		LOG_LINE("WARNING", "%s", reason);
		send_reason(PGSTROM_CTL_FATAL, reason);
		discard_control_input();
		return PGSTROM_EXIT_LOAD_FAILED;
	}
	entry = (PgStromServiceEntry) dlsym(gosvc, PGSTROM_SERVICE_ENTRY);
	if (entry == NULL)
	{
		snprintf(reason, sizeof(reason),
				 "GPU service library \"%.256s\" has no entry point %s: %.128s",
				 library, PGSTROM_SERVICE_ENTRY, dlerror());
		LOG_LINE("WARNING", "%s", reason);
		send_reason(PGSTROM_CTL_FATAL, reason);
		discard_control_input();
		return PGSTROM_EXIT_LOAD_FAILED;
	}

	return entry(ctl_fd, log_fd);
}
