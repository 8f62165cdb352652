/*
 * gather_probe.cu: how fast can 8 kB pages that lie scattered in a pinned,
 * mapped host region (as PostgreSQL's shared buffers, registered with the
 * device) be gathered into a contiguous device buffer?
 *
 * The region's pages are cut into runs of consecutive pages whose lengths
 * are geometric with mean MEAN_RUN, and the runs are shuffled: the order a
 * scan meets a table's buffers in.  Chunks of 4096 pages are gathered on
 * 8 streams, and each way prints GB/s over the whole region:
 *   dma-contiguous   one cuMemcpyHtoDAsync per chunk of consecutive pages
 *                    (the link's speed, for reference)
 *   kern-256x2       one CUDA block per page, 256 threads, two 16-byte
 *                    loads in flight each (kern_gather_pages)
 *   kern-128x4       128 threads, four loads each
 *   kern-warp16      one warp per page, sixteen loads each
 *   dma-runs-N       a cuMemcpyHtoDAsync per run of at least N pages, the
 *                    rest by kern-256x2 (the service's gather)
 * Each gathering way's output is checked against the pages it names
 * (dma-contiguous copies other pages, for its speed only).  Each mean
 * is measured twice: alone, and while a compute kernel holds a quarter of
 * every multiprocessor's threads (a query's kernels on other streams),
 * since the loads of a gather kernel compete with them and the copy
 * engines do not.
 *
 * Build and run (on a GPU machine): test/device/gather_probe.sh.
 * Usage: gather_probe [GB [MEAN_RUN...]]
 */
#include <cuda_runtime.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

static const size_t PAGE = 8192;
static const int CHUNK = 4096;
static const int NSTREAMS = 8;

__global__ void
gather_block(const uint4 *host, const uint32_t *bufs, int n, const uint32_t *in_place, uint4 *dst, int loads)
{
	int			p = blockIdx.x;

	if (p >= n || (in_place && ((in_place[p / 32] >> (p % 32)) & 1)))
		return;
	const uint4 *src = host + (size_t) bufs[p] * (PAGE / 16);
	uint4	   *d = dst + (size_t) p * (PAGE / 16);
	int			nt = blockDim.x;

	for (int i = threadIdx.x; i < (int) (PAGE / 16); i += loads * nt)
	{
		uint4		v[4];

		for (int k = 0; k < loads && k < 4; k++)
			if (i + k * nt < (int) (PAGE / 16))
				v[k] = src[i + k * nt];
		for (int k = 0; k < loads && k < 4; k++)
			if (i + k * nt < (int) (PAGE / 16))
				d[i + k * nt] = v[k];
	}
}

/* arithmetic until *stop is set: the kernels of a query on other streams */
__global__ void
busy(volatile int *stop, float *sink)
{
	float		a = threadIdx.x,
				b = 1.0001f;

	while (!*stop)
	{
		for (int i = 0; i < 1024; i++)
			a = a * b + 0.5f;
	}
	if (a == 0.0f)
		*sink = a;
}

/* one warp per page: 512 vectors, 16 per lane, all loads before any store */
__global__ void
gather_warp(const uint4 *host, const uint32_t *bufs, int n, uint4 *dst)
{
	int			p = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
	int			lane = threadIdx.x % 32;

	if (p >= n)
		return;
	const uint4 *src = host + (size_t) bufs[p] * (PAGE / 16);
	uint4	   *d = dst + (size_t) p * (PAGE / 16);
	uint4		v[16];

#pragma unroll
	for (int k = 0; k < 16; k++)
		v[k] = src[lane + 32 * k];
#pragma unroll
	for (int k = 0; k < 16; k++)
		d[lane + 32 * k] = v[k];
}

/* xorshift64*: the probe needs no better randomness */
static uint64_t rng_state = 42;

static uint64_t
rng_next(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

/* 1 + a geometric count of extra pages: mean `mean` */
static size_t
run_length(double mean)
{
	double		u = (rng_next() >> 11) * (1.0 / 9007199254740992.0);

	if (mean <= 1.0)
		return 1;
	return 1 + (size_t) floor(log(1.0 - u) / log(1.0 - 1.0 / mean));
}

static double
now(void)
{
	return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Run
{
	int			first,
				n;
	uint32_t	buffer;
};

/* the runs of consecutive buffers among bufs[0..n) */
static std::vector<Run>
runs_of(const uint32_t *bufs, int n)
{
	std::vector<Run> out;

	for (int i = 0; i < n;)
	{
		int			j = i + 1;

		while (j < n && bufs[j] == bufs[j - 1] + 1)
			j++;
		out.push_back({i, j - i, bufs[i]});
		i = j;
	}
	return out;
}

struct Probe
{
	char	   *host;
	const void *hostDev;
	size_t		npages;
	std::vector<uint32_t> order;
	uint32_t   *bufsDev;
	uint32_t   *inPlaceDev[NSTREAMS];
	std::vector<uint32_t> inPlace[NSTREAMS];
	char	   *dst[NSTREAMS];
	cudaStream_t st[NSTREAMS];
	std::vector<char> check;
	bool		loaded;
	int			sms;
	int		   *stopDev;
	cudaStream_t busySt,
				flagSt;
};

/* does dst of stream s hold chunk c's pages? (first and last word of each) */
static bool
verify(Probe &p, int c, int s)
{
	int			n = std::min(CHUNK, (int) (p.npages - (size_t) c * CHUNK));

	p.check.resize((size_t) n * PAGE);
	CK(cudaMemcpy(p.check.data(), p.dst[s], (size_t) n * PAGE, cudaMemcpyDeviceToHost));
	for (int i = 0; i < n; i++)
	{
		const char *want = p.host + (size_t) p.order[(size_t) c * CHUNK + i] * PAGE;
		const char *got = p.check.data() + (size_t) i * PAGE;

		if (memcmp(want, got, 16) != 0 || memcmp(want + PAGE - 16, got + PAGE - 16, 16) != 0)
		{
			fprintf(stderr, "chunk %d page %d: wrong bytes\n", c, i);
			return false;
		}
	}
	return true;
}

enum Way
{
	DMA_CONTIGUOUS, KERN_256x2, KERN_128x4, KERN_WARP16, DMA_RUNS
};

/* queue chunk c on stream s the given way; minRun for the mixed ways */
static void
enqueue(Probe &p, Way way, int c, int s, int minRun)
{
	int			n = std::min(CHUNK, (int) (p.npages - (size_t) c * CHUNK));
	const uint32_t *bufs = p.order.data() + (size_t) c * CHUNK;
	uint32_t   *bufsDev = p.bufsDev + (size_t) c * CHUNK;
	const uint4 *host = (const uint4 *) p.hostDev;
	cudaStream_t st = p.st[s];

	switch (way)
	{
		case DMA_CONTIGUOUS:
			CK(cudaMemcpyAsync(p.dst[s], p.host + (size_t) c * CHUNK * PAGE, (size_t) n * PAGE, cudaMemcpyHostToDevice, st));
			return;
		case KERN_256x2:
			gather_block<<<n, 256, 0, st>>>(host, bufsDev, n, NULL, (uint4 *) p.dst[s], 2);
			return;
		case KERN_128x4:
			gather_block<<<n, 128, 0, st>>>(host, bufsDev, n, NULL, (uint4 *) p.dst[s], 4);
			return;
		case KERN_WARP16:
			gather_warp<<<(n + 7) / 8, 256, 0, st>>>(host, bufsDev, n, (uint4 *) p.dst[s]);
			return;
		default:
			break;
	}

	std::vector<Run> runs = runs_of(bufs, n);
	std::vector<uint32_t> &ip = p.inPlace[s];
	bool		anyKernel = false;

	ip.assign((n + 31) / 32, 0);
	for (const Run &r : runs)
	{
		if (r.n < minRun)
		{
			anyKernel = true;
			continue;
		}
		for (int i = r.first; i < r.first + r.n; i++)
			ip[i / 32] |= 1u << (i % 32);
		CK(cudaMemcpyAsync(p.dst[s] + (size_t) r.first * PAGE, p.host + (size_t) r.buffer * PAGE,
						   (size_t) r.n * PAGE, cudaMemcpyHostToDevice, st));
	}
	if (anyKernel)
	{
		CK(cudaMemcpyAsync(p.inPlaceDev[s], ip.data(), ip.size() * 4, cudaMemcpyHostToDevice, st));
		gather_block<<<n, 256, 0, st>>>(host, bufsDev, n, p.inPlaceDev[s], (uint4 *) p.dst[s], 2);
	}
}

static void
measure(Probe &p, const char *name, Way way, int minRun)
{
	int			nch = (int) ((p.npages + CHUNK - 1) / CHUNK);
	double		best = 0,
				cpuBest = 0;

	for (int round = 0; round < 3; round++)
	{
		CK(cudaDeviceSynchronize());
		if (p.loaded)
		{
			CK(cudaMemsetAsync(p.stopDev, 0, 4, p.busySt));
			busy<<<p.sms, 512, 0, p.busySt>>>(p.stopDev, (float *) (p.stopDev + 1));
		}
		double		t = now();
		double		cpu = 0;

		for (int c = 0; c < nch; c++)
		{
			double		t0 = now();

			enqueue(p, way, c, c % NSTREAMS, minRun);
			cpu += now() - t0;
		}
		for (int s = 0; s < NSTREAMS; s++)
			CK(cudaStreamSynchronize(p.st[s]));
		t = now() - t;
		if (p.loaded)
		{
			static const int one = 1;

			CK(cudaMemcpyAsync(p.stopDev, &one, 4, cudaMemcpyHostToDevice, p.flagSt));
			CK(cudaDeviceSynchronize());
		}
		double		gbs = p.npages * PAGE / t / 1e9;

		if (gbs > best)
			best = gbs, cpuBest = cpu;
	}
	/* the last chunk of each stream holds what it gathered last */
	bool		ok = true;

	for (int c = std::max(0, nch - NSTREAMS); c < nch; c++)
		if (way != DMA_CONTIGUOUS)
			ok = ok && verify(p, c, c % NSTREAMS);
	printf("  %-16s %6.1f GB/s  enqueue %6.1f us/chunk  %s\n", name, best,
		   cpuBest * 1e6 / nch, ok ? "ok" : "WRONG");
}

int
main(int argc, char **argv)
{
	double		gb = argc > 1 ? atof(argv[1]) : 4.0;
	std::vector<double> means;

	setvbuf(stdout, NULL, _IONBF, 0);
	for (int i = 2; i < argc; i++)
		means.push_back(atof(argv[i]));
	if (means.empty())
		means = {1.0, 1.3, 2.0, 4.0, 16.0};

	Probe		p;
	size_t		size = (size_t) (gb * 1e9) / (PAGE * CHUNK) * (PAGE * CHUNK);

	p.npages = size / PAGE;
	p.host = (char *) mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p.host == MAP_FAILED)
	{
		perror("mmap");
		return 1;
	}
	for (size_t i = 0; i < p.npages; i++)
	{
		uint64_t	v = i * 0x9e3779b97f4a7c15ull;

		for (size_t off = 0; off < PAGE; off += 8)
			memcpy(p.host + i * PAGE + off, &v, 8), v++;
	}
	CK(cudaSetDevice(0));
	CK(cudaHostRegister(p.host, size, cudaHostRegisterMapped | cudaHostRegisterReadOnly));
	void	   *hd;

	CK(cudaHostGetDevicePointer(&hd, p.host, 0));
	p.hostDev = hd;
	CK(cudaMalloc(&p.bufsDev, p.npages * 4));
	for (int s = 0; s < NSTREAMS; s++)
	{
		CK(cudaMalloc(&p.dst[s], CHUNK * PAGE));
		CK(cudaMalloc(&p.inPlaceDev[s], CHUNK / 8));
		CK(cudaStreamCreateWithFlags(&p.st[s], cudaStreamNonBlocking));
	}
	CK(cudaMalloc(&p.stopDev, 8));
	CK(cudaStreamCreateWithFlags(&p.busySt, cudaStreamNonBlocking));
	CK(cudaStreamCreateWithFlags(&p.flagSt, cudaStreamNonBlocking));
	CK(cudaDeviceGetAttribute(&p.sms, cudaDevAttrMultiProcessorCount, 0));
	int			drv;

	CK(cudaDriverGetVersion(&drv));
	printf("gather_probe: %.2f GB region (%zu pages), chunks of %d pages on %d streams; driver %d, built with CUDA runtime %d\n",
		   size / 1e9, p.npages, CHUNK, NSTREAMS, drv, CUDART_VERSION);

	for (double mean : means)
	{
		/* runs of geometric length (mean `mean`), shuffled */
		std::vector<Run> runs;

		for (size_t b = 0; b < p.npages;)
		{
			size_t		len = std::min(p.npages - b, run_length(mean));

			runs.push_back({0, (int) len, (uint32_t) b});
			b += len;
		}
		for (size_t i = runs.size(); i > 1; i--)
			std::swap(runs[i - 1], runs[rng_next() % i]);
		p.order.clear();
		for (const Run &r : runs)
			for (int i = 0; i < r.n; i++)
				p.order.push_back(r.buffer + i);
		CK(cudaMemcpy(p.bufsDev, p.order.data(), p.npages * 4, cudaMemcpyHostToDevice));

		size_t		in8 = 0;

		for (int c = 0; c * CHUNK < (int) p.npages; c++)
			for (const Run &r : runs_of(p.order.data() + (size_t) c * CHUNK, std::min(CHUNK, (int) (p.npages - (size_t) c * CHUNK))))
				if (r.n >= 8)
					in8 += r.n;
		for (int loaded = 0; loaded < 2; loaded++)
		{
			p.loaded = loaded;
			printf("mean run %.1f pages (%zu runs, %.0f%% of pages in runs of 8 or more)%s:\n",
				   (double) p.npages / runs.size(), runs.size(), 100.0 * in8 / p.npages,
				   loaded ? ", beside a compute kernel" : "");
			measure(p, "dma-contiguous", DMA_CONTIGUOUS, 0);
			measure(p, "kern-256x2", KERN_256x2, 0);
			measure(p, "kern-128x4", KERN_128x4, 0);
			measure(p, "kern-warp16", KERN_WARP16, 0);
			for (int minRun : {8, 32, 128, 512})
			{
				char		name[32];

				snprintf(name, sizeof(name), "dma-runs-%d", minRun);
				measure(p, name, DMA_RUNS, minRun);
			}
		}
	}
	return 0;
}
