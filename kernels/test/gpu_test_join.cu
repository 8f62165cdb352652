/*
 * gpu_test_join.cu - runs kern_gpujoin_build and kern_gpujoin_block on a
 * GPU: each depth's index is built by thousands of threads racing for few
 * buckets, then a chunk of the vectors.txt page repeated is joined through
 * an output buffer small enough to suspend many rows, and the suspended
 * cursors are resumed launch after launch, as the service will.  The
 * records are checked, as a multiset, against the host launches of
 * test_join.cu over the same chunk (themselves checked against a nested
 * loop there).
 *
 *   nvcc -O2 -I.. -I../../include -arch=sm_90 -o gpu_test_join gpu_test_join.cu -lstdc++ -lm
 *   ./gpu_test_join vectors.txt
 */
#define TEST_JOIN_NO_MAIN
#include "test_join.cu"
#include "gpu_test_util.h"
#include "gpu_test_join_inner.h"

static void
run_gpu(int round, const std::vector<char> &page, uint32_t nblocks, uint32_t capacity)
{
	int types[3];
	std::vector<char> msg = page_session(round, types);
	PageJoin pj;
	char name[96];

	snprintf(name, sizeof(name), "gpu join %d/%d/%d, %u pages, capacity %u",
			 types[0], types[1], types[2], nblocks, capacity);
	if (!page_join_setup(pj, msg, page, true))
	{
		fprintf(stderr, "FAIL %s: setup\n", name);
		nfailed++;
		return;
	}
	std::vector<char> pages = repeated_pages(page, nblocks);
	int hl = 0;
	uint32_t hrecheck = 0;
	bool ok = true;
	std::vector<Rec> want = host_launches(&pj.prog, &pj.jn, pj.inners, pages.data(), nblocks,
										  1u << 24, &hl, &hrecheck, &ok);
	CHECK(ok);

	char *d_msg, *d_pages;
	XpuJoinInner *d_inner[XPU_JOIN_MAX_DEPTHS];
	uint32_t *d_counters, *d_out;
	XpuJoinCursor *d_resume, *d_suspend;
	uint32_t stride = 1 + pj.jn.ndepths;
	size_t maxrows = (size_t) nblocks * XPU_MAX_TUPLES_PER_PAGE;

	CK(cudaMalloc(&d_msg, msg.size()));
	CK(cudaMemcpy(d_msg, msg.data(), msg.size(), cudaMemcpyHostToDevice));
	CK(cudaMalloc(&d_pages, pages.size()));
	CK(cudaMemcpy(d_pages, pages.data(), pages.size(), cudaMemcpyHostToDevice));
	CK(cudaMalloc(&d_counters, XPU_JOIN_COUNTER__COUNT * 4));
	gpu_build_inners(pj, d_msg, d_counters, d_inner);

	CK(cudaMalloc(&d_out, (size_t) capacity * stride * 4));
	CK(cudaMalloc(&d_resume, maxrows * sizeof(XpuJoinCursor)));
	CK(cudaMalloc(&d_suspend, maxrows * sizeof(XpuJoinCursor)));
	std::vector<Rec> got;
	uint32_t nresume = 0, nrecheck = 0, ntuples = 0;
	int nlaunches = 0;
	for (;;)
	{
		uint32_t c[XPU_JOIN_COUNTER__COUNT];
		bool first = nlaunches == 0;
		CK(cudaMemset(d_counters, 0, sizeof(c)));
		if (first)
			kern_gpujoin_block<<<nblocks, XPU_GPUSCAN_THREADS>>>(
				d_msg, d_pages, nblocks, NULL, 0, d_inner[0], d_inner[1], d_inner[2], d_inner[3],
				d_out, capacity, d_suspend, d_counters);
		else
			kern_gpujoin_block<<<(nresume + XPU_GPUSCAN_THREADS - 1) / XPU_GPUSCAN_THREADS,
				XPU_GPUSCAN_THREADS>>>(
				d_msg, d_pages, nblocks, d_resume, nresume, d_inner[0], d_inner[1], d_inner[2], d_inner[3],
				d_out, capacity, d_suspend, d_counters);
		CK(cudaDeviceSynchronize());
		CK(cudaMemcpy(c, d_counters, sizeof(c), cudaMemcpyDeviceToHost));
		nlaunches++;
		if (c[XPU_COUNTER_STATUS] != XPU_STATUS_OK)
		{
			fprintf(stderr, "FAIL %s: status %u in launch %d\n", name, c[XPU_COUNTER_STATUS], nlaunches);
			nfailed++;
			break;
		}
		if (first)
			ntuples = c[XPU_COUNTER_NTUPLES];
		nrecheck += c[XPU_COUNTER_NRECHECK];
		uint32_t n = std::min(c[XPU_COUNTER_NITEMS], capacity);
		std::vector<uint32_t> out((size_t) n * stride);
		if (n > 0)
			CK(cudaMemcpy(out.data(), d_out, out.size() * 4, cudaMemcpyDeviceToHost));
		for (uint32_t k = 0; k < n; k++)
			got.push_back(Rec(out.begin() + (size_t) k * stride, out.begin() + (size_t) (k + 1) * stride));
		nresume = c[XPU_JOIN_COUNTER_NSUSPEND];
		if (nresume == 0)
			break;
		if (n == 0 || nlaunches > 1000000)
		{
			fprintf(stderr, "FAIL %s: no progress\n", name);
			nfailed++;
			break;
		}
		/* the suspend list becomes the next launch's resume list */
		std::swap(d_resume, d_suspend);
	}
	std::sort(want.begin(), want.end());
	std::sort(got.begin(), got.end());
	bool same = got == want && nrecheck == hrecheck;
	if (!same)
		fprintf(stderr, "FAIL %s: %zu records (%u rechecks), host %zu (%u), %d launches\n",
				name, got.size(), nrecheck, want.size(), hrecheck, nlaunches);
	CHECK(same);
	fprintf(stderr, "note: %s: %u tuples, %zu records (%u rechecks), %d launches\n",
			name, ntuples, got.size(), nrecheck, nlaunches);
	cudaFree(d_msg);
	cudaFree(d_pages);
	cudaFree(d_counters);
	cudaFree(d_out);
	cudaFree(d_resume);
	cudaFree(d_suspend);
	gpu_free_inners(d_inner);
}

int
main(int argc, char **argv)
{
	std::vector<char> page = gpu_test_page(argc, argv);

	for (int round = 0; round < 8; round++)
	{
		run_gpu(round, page, 64, 1u << 22);		/* no suspension */
		run_gpu(round, page, 64, 97);			/* many rows suspend each launch */
		run_gpu(round, page, 300, 5000);
	}
	printf("gpu join: %d passed, %d failed\n", npassed, nfailed);
	return nfailed == 0 ? 0 : 1;
}
