/*
 * gpu_test.cu - runs kern_gpuscan_block on a GPU over a chunk made of the
 * vectors.txt page (repeated), a new page and, in a second launch, a bad
 * page, and compares the items with the host evaluation of the same
 * programs (which test_kernels.cu checks against PostgreSQL).
 *
 *   nvcc -O2 -I.. -I../../include -arch=sm_90 -o gpu_test gpu_test.cu
 *   ./gpu_test vectors.txt
 */
#define main host_test_main
#include "test_kernels.cu"
#undef main
#include "pg_strom_kernels.cu"
#include <algorithm>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); exit(2); } } while (0)

struct Run
{
	std::vector<uint32_t> items;
	uint32_t counters[XPU_COUNTER__COUNT];
};

static Run
launch(const std::vector<char> &msg, const std::vector<char> &pages, uint32_t nblocks)
{
	Run r;
	char *d_msg, *d_pages;
	uint32_t *d_items, *d_counters;
	size_t cap = (size_t) nblocks * XPU_MAX_TUPLES_PER_PAGE;

	CK(cudaMalloc(&d_msg, msg.size()));
	CK(cudaMalloc(&d_pages, pages.size()));
	CK(cudaMalloc(&d_items, cap * 4));
	CK(cudaMalloc(&d_counters, sizeof(r.counters)));
	CK(cudaMemcpy(d_msg, msg.data(), msg.size(), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_pages, pages.data(), pages.size(), cudaMemcpyHostToDevice));
	CK(cudaMemset(d_counters, 0, sizeof(r.counters)));
	CK(cudaMemset(d_items, 0xff, cap * 4));
	kern_gpuscan_block<<<nblocks, XPU_GPUSCAN_THREADS>>>(d_msg, d_pages, nblocks, d_items, d_counters);
	CK(cudaGetLastError());
	CK(cudaDeviceSynchronize());
	CK(cudaMemcpy(r.counters, d_counters, sizeof(r.counters), cudaMemcpyDeviceToHost));
	uint32_t n = std::min<uint32_t>(r.counters[XPU_COUNTER_NITEMS], (uint32_t) cap);
	r.items.resize(n);
	if (n)
		CK(cudaMemcpy(r.items.data(), d_items, n * 4, cudaMemcpyDeviceToHost));
	cudaFree(d_msg);
	cudaFree(d_pages);
	cudaFree(d_items);
	cudaFree(d_counters);
	return r;
}

int
main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "vectors.txt";
	FILE *fp = fopen(path, "r");
	static char line[40000];
	std::vector<char> page;
	std::vector<std::pair<int, std::string>> exprs;

	if (!fp)
	{
		fprintf(stderr, "cannot open %s\n", path);
		return 2;
	}
	while (fgets(line, sizeof(line), fp))
	{
		if (strncmp(line, "PAGE ", 5) == 0)
		{
			std::string s(line + 5);
			while (!s.empty() && (s.back() == '\n' || s.back() == '\r'))
				s.pop_back();
			page = unhex(s);
		}
		else if (strncmp(line, "EXPR ", 5) == 0)
		{
			int k;
			sscanf(line + 5, "%d", &k);
			exprs.push_back({k, std::string(line)});
		}
	}
	fclose(fp);
	CHECK(page.size() == XPU_BLCKSZ);

	/* chunk: 1000 copies of the page, with a new (zero) page at index 3 */
	const uint32_t nblocks = 1000;
	std::vector<char> pages((size_t) nblocks * XPU_BLCKSZ);
	for (uint32_t b = 0; b < nblocks; b++)
	{
		if (b == 3)
			memset(&pages[(size_t) b * XPU_BLCKSZ], 0, XPU_BLCKSZ);
		else
			memcpy(&pages[(size_t) b * XPU_BLCKSZ], page.data(), XPU_BLCKSZ);
	}
	int nlp = xpu_page_nitems(page.data());
	int ntuples_page = 0;
	for (int i = 0; i < nlp; i++)
	{
		uint32_t lp;
		memcpy(&lp, page.data() + XPU_SIZE_OF_PAGE_HEADER + 4 * i, 4);
		ntuples_page += xpu_lp_flags(lp) == XPU_LP_NORMAL;
	}

	static xpu_program prog;
	static xpu_datum slots[XPU_GPUSCAN_MAX_SLOTS];
	for (auto &e : exprs)
	{
		KtProg p;
		if (!build_expr(e.first, p))
			continue;
		std::vector<char> msg = p.message();
		if (xpu_program_setup_serial(msg.data(), &prog) != XPU_STATUS_OK)
			continue;
		/* expected entries of one page */
		std::vector<uint32_t> want;
		int want_recheck = 0;
		for (int i = 0; i < nlp; i++)
		{
			uint32_t lp;
			memcpy(&lp, page.data() + XPU_SIZE_OF_PAGE_HEADER + 4 * i, 4);
			if (xpu_lp_flags(lp) != XPU_LP_NORMAL)
				continue;
			int res = xpu_eval_tuple(&prog, page.data() + xpu_lp_off(lp), (int32_t) xpu_lp_len(lp), slots);
			if (res == XPU_ROW_MATCH)
				want.push_back((uint32_t) (i + 1));
			else if (res == XPU_ROW_RECHECK)
			{
				want.push_back((uint32_t) (i + 1) | XPU_ITEM_RECHECK);
				want_recheck++;
			}
		}
		Run r = launch(msg, pages, nblocks);
		bool ok = r.counters[XPU_COUNTER_STATUS] == XPU_STATUS_OK &&
			r.counters[XPU_COUNTER_NITEMS] == want.size() * (nblocks - 1) &&
			r.counters[XPU_COUNTER_NTUPLES] == (uint32_t) ntuples_page * (nblocks - 1) &&
			r.counters[XPU_COUNTER_NRECHECK] == (uint32_t) want_recheck * (nblocks - 1);
		/* group by block: contiguous, in order, equal to want */
		std::vector<int> seen(nblocks, 0);
		size_t i = 0;
		while (ok && i < r.items.size())
		{
			uint32_t blk = (r.items[i] & ~XPU_ITEM_RECHECK) >> XPU_ITEM_BLOCK_SHIFT;
			if (blk >= nblocks || blk == 3 || seen[blk]++ || i + want.size() > r.items.size())
			{
				ok = false;
				break;
			}
			for (size_t j = 0; j < want.size(); j++)
			{
				uint32_t got = r.items[i + j];
				uint32_t exp = want[j] | (blk << XPU_ITEM_BLOCK_SHIFT);
				if (got != exp)
					ok = false;
			}
			i += want.size();
		}
		if (ok)
			npassed++;
		else
		{
			nfailed++;
			fprintf(stderr, "FAIL gpu %s  status %u nitems %u ntuples %u nrecheck %u (want %zu per page)\n",
					e.second.c_str(), r.counters[3], r.counters[0], r.counters[1], r.counters[2], want.size());
		}
	}

	/* a bad page: BAD_PAGE status, the good pages still answered */
	{
		KtProg p;
		build_expr(48, p);
		std::vector<char> msg = p.message();
		std::vector<char> bad(pages.begin(), pages.begin() + 4 * XPU_BLCKSZ);
		uint16_t lower = 8190;
		memcpy(&bad[2 * XPU_BLCKSZ + 12], &lower, 2);
		Run r = launch(msg, bad, 4);
		CHECK(r.counters[XPU_COUNTER_STATUS] == XPU_STATUS_BAD_PAGE);
		/* a line pointer beyond the page */
		memcpy(&bad[2 * XPU_BLCKSZ], page.data(), XPU_BLCKSZ);
		uint32_t lp = (8100u) | (1u << 15) | (200u << 17);
		memcpy(&bad[2 * XPU_BLCKSZ + XPU_SIZE_OF_PAGE_HEADER], &lp, 4);
		r = launch(msg, bad, 4);
		CHECK(r.counters[XPU_COUNTER_STATUS] == XPU_STATUS_BAD_PAGE);
	}
	/* a bad program: BAD_PROGRAM, no items */
	{
		KtProg p;
		p.op(OP(GT), BOOL, {p.var(A_I8), p.i4(0)});
		std::vector<char> msg = p.message();
		Run r = launch(msg, pages, 8);
		CHECK(r.counters[XPU_COUNTER_STATUS] == XPU_STATUS_BAD_PROGRAM);
		CHECK(r.counters[XPU_COUNTER_NITEMS] == 0);
	}
	/* timing of one expression over the chunk */
	{
		KtProg p;
		build_expr(51, p);
		std::vector<char> msg = p.message();
		cudaEvent_t t0, t1;
		cudaEventCreate(&t0);
		cudaEventCreate(&t1);
		char *d_msg, *d_pages;
		uint32_t *d_items, *d_counters;
		CK(cudaMalloc(&d_msg, msg.size()));
		CK(cudaMalloc(&d_pages, pages.size()));
		CK(cudaMalloc(&d_items, (size_t) nblocks * XPU_MAX_TUPLES_PER_PAGE * 4));
		CK(cudaMalloc(&d_counters, 16));
		CK(cudaMemcpy(d_msg, msg.data(), msg.size(), cudaMemcpyHostToDevice));
		CK(cudaMemcpy(d_pages, pages.data(), pages.size(), cudaMemcpyHostToDevice));
		CK(cudaMemset(d_counters, 0, 16));
		cudaEventRecord(t0);
		for (int it = 0; it < 10; it++)
			kern_gpuscan_block<<<nblocks, XPU_GPUSCAN_THREADS>>>(d_msg, d_pages, nblocks, d_items, d_counters);
		cudaEventRecord(t1);
		CK(cudaEventSynchronize(t1));
		float ms;
		cudaEventElapsedTime(&ms, t0, t1);
		printf("timing: %u pages, LIKE: %.3f ms per launch\n", nblocks, ms / 10);
	}
	printf("%d passed, %d failed\n", npassed, nfailed);
	return nfailed == 0 ? 0 : 1;
}
