/*-------------------------------------------------------------------------
 *
 * service_child_load.c
 *		The GPU service process checks for a GPU, then runs the Go library.
 *
 * This was the separate launcher program (pg_strom_gpuserv) while the
 * service was started with exec; now the forked child runs it in-process.
 * It still runs before the Go library is loaded, and for the same reason:
 * the Go CUDA binding calls cuInit() in a package init() and exits the
 * process if it fails, inside dlopen(), with no useful message.
 *
 * With no usable GPU it sends PGSTROM_CTL_NO_GPU with the precise reason
 * and exits PGSTROM_EXIT_NO_GPU, which tells the supervisor not to restart
 * it.  Otherwise it loads the Go library and hands over to its one entry
 * point, which returns only when the service stops.
 *
 * TEST-ONLY host executor: with PG_STROM_TEST_HOST_EXECUTOR=1 in the
 * environment (set by the test scripts only), the GPU checks are skipped
 * and pg_strom_gosvc_hostexec.so, found next to the service library, is
 * loaded instead: the same service with the kernels' host code as its
 * device.  make install never installs that library, so the variable alone
 * cannot turn a production server into a CPU one.
 *
 * Plain C without PostgreSQL headers (see service_child.h).
 *
 *-------------------------------------------------------------------------
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg_strom_control.h"
#include "service/service_child.h"

/* the TEST-ONLY host executor (see the header comment) */
#define HOSTEXEC_ENV		"PG_STROM_TEST_HOST_EXECUTOR"
#define HOSTEXEC_LIBRARY	"pg_strom_gosvc_hostexec.so"

/* the CUDA driver API subset we need, without cuda.h */
typedef int CUresult;
typedef CUresult (*cuInit_fn) (unsigned int flags);
typedef CUresult (*cuDeviceGetCount_fn) (int *count);
typedef CUresult (*cuGetErrorName_fn) (CUresult error, const char **name);

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
				 "%s=1, but the TEST-ONLY host executor \"%.256s\" is not installed (%.64s); only the test scripts install it",
				 HOSTEXEC_ENV, path, strerror(errno));
		return 0;
	}
	return 1;
}

/*
 * Check, load and run the service; the process ends here with the exit
 * code the supervisor acts upon (PGSTROM_EXIT_*).
 */
void
pgstrom_child_run_service(const char *gosvc_path)
{
	char		reason[PGSTROM_REASON_LEN];
	char		hostexec_path[PATH_MAX];
	const char *library = gosvc_path;
	void	   *gosvc;
	PgStromServiceEntry entry;

	if (host_executor_requested())
	{
		/*
		 * No libcuda, cuInit or device count: the host executor's library
		 * links no CUDA.  A missing library is final, as no GPU is.
		 */
		if (!host_executor_library(gosvc_path, hostexec_path,
								   sizeof(hostexec_path),
								   reason, sizeof(reason)))
		{
			CHILD_LOG("WARNING", "%s", reason);
			pgstrom_child_exit(PGSTROM_EXIT_NO_GPU, PGSTROM_CTL_NO_GPU, reason);
		}
		CHILD_LOG("WARNING", "%s=1: loading the TEST-ONLY host executor \"%s\" instead of the GPU service; no GPU is used",
				  HOSTEXEC_ENV, hostexec_path);
		library = hostexec_path;
	}
	else if (!check_gpu(reason, sizeof(reason)))
	{
		CHILD_LOG("LOG", "no usable GPU, the GPU service is disabled: %s", reason);
		pgstrom_child_exit(PGSTROM_EXIT_NO_GPU, PGSTROM_CTL_NO_GPU, reason);
	}

	gosvc = dlopen(library, RTLD_NOW | RTLD_GLOBAL);
	if (gosvc == NULL)
	{
		snprintf(reason, sizeof(reason),
				 "could not load the GPU service library: %s", dlerror());
		CHILD_LOG("WARNING", "%s", reason);
		pgstrom_child_exit(PGSTROM_EXIT_LOAD_FAILED, PGSTROM_CTL_FATAL, reason);
	}
	entry = (PgStromServiceEntry) dlsym(gosvc, PGSTROM_SERVICE_ENTRY);
	if (entry == NULL)
	{
		snprintf(reason, sizeof(reason),
				 "GPU service library \"%.256s\" has no entry point %s: %.128s",
				 library, PGSTROM_SERVICE_ENTRY, dlerror());
		CHILD_LOG("WARNING", "%s", reason);
		pgstrom_child_exit(PGSTROM_EXIT_LOAD_FAILED, PGSTROM_CTL_FATAL, reason);
	}

	_exit(entry(PGSTROM_CHILD_CTL_FD, PGSTROM_CHILD_LOG_FD, environ));
}
