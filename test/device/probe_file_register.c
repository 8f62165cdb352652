/*
 * test/device/probe_file_register.c (on the GPU machine; build with
 * gcc -O2 probe_file_register.c -lcuda -lpthread):
 * moving a file that lies in the OS page cache to the device, two ways,
 * with wall time and this process's CPU (user and system):
 *   pread     threads pread chunks into pinned buffers, then copy them
 *             (what direct read does today: the kernel copies every byte)
 *   register  threads register each chunk of a read-only shared mapping of
 *             the file (cuMemHostRegister READ_ONLY), copy it straight from
 *             the page cache, and unregister it
 *   whole     the whole mapping registered once, then copied by chunks
 * usage: probe FILE THREADS CHUNK_MB MODE
 * Needs a GPU, gcc and libcuda (the driver); stage.sh copies this file into
 * the staged folder.  Takes seconds a mode (the file's size over the rate).
 */
#include <cuda.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static CUcontext ctx;
static int fd;
static char *base;
static size_t fsize, chunk;
static atomic_size_t next_chunk;
static atomic_int failures;
static const char *mode;
static size_t read_size = 512 << 10;	/* PROBE_READ_KB */

#define CK(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { const char *s_; \
	cuGetErrorString(r_, &s_); fprintf(stderr, "%s: %s\n", #call, s_); atomic_fetch_add(&failures, 1); return NULL; } } while (0)

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }

static void *worker(void *arg)
{
	CUstream st;
	CUdeviceptr d;
	void *pinned = NULL;
	(void) arg;
	CK(cuCtxSetCurrent(ctx));
	CK(cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));
	CK(cuMemAlloc(&d, chunk));
	if (strcmp(mode, "pread") == 0)
		CK(cuMemHostAlloc(&pinned, chunk, CU_MEMHOSTALLOC_PORTABLE));
	for (;;) {
		size_t i = atomic_fetch_add(&next_chunk, 1), off = i * chunk, len;
		if (off >= fsize) break;
		len = fsize - off < chunk ? fsize - off : chunk;
		if (pinned) {
			for (size_t done = 0; done < len;) {
				size_t n = len - done < read_size ? len - done : read_size;
				ssize_t got = pread(fd, (char *) pinned + done, n, off + done);
				if (got <= 0) { perror("pread"); atomic_fetch_add(&failures, 1); return NULL; }
				done += got;
			}
			CK(cuMemcpyHtoDAsync(d, pinned, len, st));
			CK(cuStreamSynchronize(st));
		} else if (strcmp(mode, "register") == 0) {
			CK(cuMemHostRegister(base + off, len, CU_MEMHOSTREGISTER_READ_ONLY | CU_MEMHOSTREGISTER_PORTABLE));
			CK(cuMemcpyHtoDAsync(d, base + off, len, st));
			CK(cuStreamSynchronize(st));
			CK(cuMemHostUnregister(base + off));
		} else {
			CK(cuMemcpyHtoDAsync(d, base + off, len, st));
			CK(cuStreamSynchronize(st));
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	CUdevice dev;
	struct stat sb;
	struct rusage r0, r1;
	int nthreads;
	double t0, t1, treg = 0;
	pthread_t th[256];
	if (argc != 5) { fprintf(stderr, "usage: %s FILE THREADS CHUNK_MB pread|register|whole\n", argv[0]); return 2; }
	nthreads = atoi(argv[2]); chunk = (size_t) atoi(argv[3]) << 20; mode = argv[4];
	if (getenv("PROBE_READ_KB"))
		read_size = (size_t) atoi(getenv("PROBE_READ_KB")) << 10;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &sb) != 0) { perror(argv[1]); return 1; }
	fsize = sb.st_size;
	if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) || cuCtxSetCurrent(ctx)) { fprintf(stderr, "no CUDA\n"); return 1; }
	if (strcmp(mode, "pread") != 0) {
		base = mmap(NULL, fsize, PROT_READ, MAP_SHARED, fd, 0);
		if (base == MAP_FAILED) { perror("mmap"); return 1; }
	}
	getrusage(RUSAGE_SELF, &r0);
	t0 = now();
	if (strcmp(mode, "whole") == 0) {
		CUresult r = cuMemHostRegister(base, fsize, CU_MEMHOSTREGISTER_READ_ONLY | CU_MEMHOSTREGISTER_PORTABLE);
		treg = now() - t0;
		if (r != CUDA_SUCCESS) { const char *s; cuGetErrorString(r, &s); printf("whole: cuMemHostRegister failed: %s\n", s); return 1; }
	}
	for (int i = 0; i < nthreads; i++) pthread_create(&th[i], NULL, worker, NULL);
	for (int i = 0; i < nthreads; i++) pthread_join(th[i], NULL);
	t1 = now();
	getrusage(RUSAGE_SELF, &r1);
	printf("%s (reads of %zu kB): %.2f GB in %.3f s = %.1f GB/s (%d threads, %zu MB chunks%s%.3f s); CPU user %.2f s, sys %.2f s = %.2f core-us per 8 kB page; %d failures\n",
		   mode, read_size >> 10, fsize / 1e9, t1 - t0, fsize / 1e9 / (t1 - t0), nthreads, chunk >> 20,
		   strcmp(mode, "whole") == 0 ? ", registering the whole file " : ", ", treg,
		   (r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) + (r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) / 1e6,
		   (r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) + (r1.ru_stime.tv_usec - r0.ru_stime.tv_usec) / 1e6,
		   ((r1.ru_utime.tv_sec - r0.ru_utime.tv_sec + r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) * 1e6 +
			(r1.ru_utime.tv_usec - r0.ru_utime.tv_usec + r1.ru_stime.tv_usec - r0.ru_stime.tv_usec)) / (fsize / 8192.0),
		   atomic_load(&failures));
	return atomic_load(&failures) ? 1 : 0;
}
