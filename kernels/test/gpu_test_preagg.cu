/*
 * gpu_test_preagg.cu - runs kern_gpupreagg_block on a GPU over a chunk of
 * the vectors.txt page repeated, with a table small enough to fill: the
 * RETRY rows go through kern_gpupreagg_rehash into a larger table and a
 * retry-mode launch, as the service does.  The final table is checked
 * against the host reference of test_preagg.cu (thousands of threads
 * racing for few groups exercise the insert protocol and the atomics).
 *
 *   nvcc -O2 -I.. -I../../include -arch=sm_90 -o gpu_test_preagg gpu_test_preagg.cu -lstdc++ -lm
 *   ./gpu_test_preagg vectors.txt
 */
#define TEST_PREAGG_NO_MAIN
#include "test_preagg.cu"
#include "pg_strom_kernels.cu"
#include "gpu_test_util.h"

struct DevTable
{
	HostTable *h;
	char *d;
	size_t bytes;
};

static DevTable
dev_table(uint32_t nslots, uint32_t entry_size)
{
	DevTable t;

	t.h = new HostTable(nslots, entry_size);
	t.bytes = t.h->t->entries_offset + (size_t) t.h->t->capacity * entry_size;
	CK(cudaMalloc(&t.d, t.bytes));
	CK(cudaMemcpy(t.d, t.h->t, t.bytes, cudaMemcpyHostToDevice));
	return t;
}

static void
run_gpu(const char *name, KtProg &p, PreAggSpec &s, const std::vector<char> &page,
		uint32_t nblocks, uint32_t nslots, uint32_t max_grid)
{
	std::vector<char> msg = s.message(p);
	static xpu_program prog;
	static xpu_preagg pa;

	if (xpu_preagg_setup_serial(msg.data(), &prog, &pa) != XPU_STATUS_OK)
	{
		fprintf(stderr, "FAIL %s: bad program\n", name);
		nfailed++;
		return;
	}
	std::vector<char> pages = repeated_pages(page, nblocks);
	std::vector<uint32_t> all;
	int nitems = xpu_page_nitems(page.data());
	for (uint32_t b = 0; b < nblocks; b++)
		for (int i = 0; i < nitems; i++)
			all.push_back((b << XPU_ITEM_BLOCK_SHIFT) | (uint32_t) (i + 1));
	Run r;
	ref_run(&prog, &pa, s, page, all, r);

	char *d_msg, *d_pages;
	uint32_t *d_items, *d_counters, *d_retry;
	size_t cap = (size_t) nblocks * XPU_MAX_TUPLES_PER_PAGE;
	CK(cudaMalloc(&d_msg, msg.size()));
	CK(cudaMalloc(&d_pages, pages.size()));
	CK(cudaMalloc(&d_items, cap * 4));
	CK(cudaMalloc(&d_retry, cap * 4));
	CK(cudaMalloc(&d_counters, XPU_COUNTER__COUNT * 4));
	CK(cudaMemcpy(d_msg, msg.data(), msg.size(), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_pages, pages.data(), pages.size(), cudaMemcpyHostToDevice));

	DevTable t = dev_table(nslots, pa.entry_size);
	std::vector<uint32_t> retry;
	uint32_t nrecheck = 0, ntuples = 0, nrecheck_items = 0;
	int ngrowths = 0;
	bool ok = true;
	for (int pass = 0; ; pass++)
	{
		uint32_t counters[XPU_COUNTER__COUNT];
		/* the first pass takes any grid; max_grid blocks make each take
		 * several batches of pages (as the service launches it) */
		uint32_t batches = (nblocks + XPU_PREAGG_BATCH_PAGES - 1) / XPU_PREAGG_BATCH_PAGES;
		uint32_t grid = pass == 0 ? std::min(std::max(batches, 1U), max_grid) :
			(uint32_t) ((retry.size() + XPU_GPUSCAN_THREADS - 1) / XPU_GPUSCAN_THREADS);

		CK(cudaMemset(d_counters, 0, sizeof(counters)));
		if (pass > 0)
			CK(cudaMemcpy(d_retry, retry.data(), retry.size() * 4, cudaMemcpyHostToDevice));
		kern_gpupreagg_block<<<grid, XPU_GPUSCAN_THREADS>>>(d_msg, d_pages, nblocks,
															pass == 0 ? NULL : d_retry,
															(uint32_t) retry.size(),
															(XpuPreAggTable *) t.d, d_items, d_counters);
		CK(cudaGetLastError());
		CK(cudaDeviceSynchronize());
		CK(cudaMemcpy(counters, d_counters, sizeof(counters), cudaMemcpyDeviceToHost));
		if (counters[XPU_COUNTER_STATUS] != XPU_STATUS_OK)
		{
			fprintf(stderr, "FAIL %s: status %u\n", name, counters[XPU_COUNTER_STATUS]);
			ok = false;
			break;
		}
		std::vector<uint32_t> items(counters[XPU_COUNTER_NITEMS]);
		if (!items.empty())
			CK(cudaMemcpy(items.data(), d_items, items.size() * 4, cudaMemcpyDeviceToHost));
		ntuples += pass == 0 ? counters[XPU_COUNTER_NTUPLES] : 0;
		nrecheck += counters[XPU_COUNTER_NRECHECK];
		retry.clear();
		for (uint32_t it : items)
		{
			if (it & XPU_ITEM_RECHECK)
				nrecheck_items++;
			else if (it & XPU_ITEM_RETRY)
				retry.push_back(it & ~XPU_ITEM_RETRY);
			else
				ok = false;
		}
		if (retry.empty())
			break;
		/* grow: 4x, rehash on the device */
		DevTable g = dev_table(t.h->t->nslots * 4, pa.entry_size);
		XpuPreAggTable hdr;
		CK(cudaMemcpy(&hdr, t.d, sizeof(hdr), cudaMemcpyDeviceToHost));
		uint32_t n = std::min(hdr.nentries, hdr.capacity);
		if (n > 0)
			kern_gpupreagg_rehash<<<(n + 255) / 256, 256>>>((XpuPreAggTable *) t.d,
															(XpuPreAggTable *) g.d);
		CK(cudaGetLastError());
		CK(cudaDeviceSynchronize());
		cudaFree(t.d);
		delete t.h;
		t = g;
		ngrowths++;
	}
	CK(cudaMemcpy(t.h->t, t.d, t.bytes, cudaMemcpyDeviceToHost));
	ok &= check_table(name, s, t.h, r);
	ok &= nrecheck == (uint32_t) r.nrecheck && nrecheck_items == nrecheck;
	ok &= ntuples == (uint32_t) r.ntuples;
	printf("%s: %u blocks (grid <= %u), %zu groups, %u tuples, %u rechecks, %d growths, %u entries taken: %s\n",
		   name, nblocks, max_grid, r.ref.size(), ntuples, nrecheck, ngrowths, t.h->t->nentries,
		   ok ? "ok" : "FAILED");
	CHECK(ok);
	cudaFree(t.d);
	delete t.h;
	cudaFree(d_msg);
	cudaFree(d_pages);
	cudaFree(d_items);
	cudaFree(d_retry);
	cudaFree(d_counters);
}

int
main(int argc, char **argv)
{
	std::vector<char> page = gpu_test_page(argc, argv);

	for (uint32_t nblocks : {1U, 64U, 4096U})
	for (uint32_t max_grid : {3U, 264U, 1U << 20})
	{
		{
			KtProg p;
			PreAggSpec s;

			case_group_by_b_c(p, s);
			run_gpu("group by b, c", p, s, page, nblocks, 4, max_grid);
		}
		{
			KtProg p;
			int f8 = p.var(A_F8), i2 = p.var(A_I2), i8 = p.var(A_I8);
			int i2f8 = p.op(OP(CAST), F8, {i2});
			p.b(true);
			PreAggSpec s;
			s.agg(XPU_AGG_COUNT, -1, 0);
			s.agg(XPU_AGG_SUM_FP, f8, F8);
			s.agg(XPU_AGG_VAR_INT, i2, I2);
			s.agg(XPU_AGG_SUM_INT, i8, I8);
			s.agg(XPU_AGG_MAX_FP, f8, F8);
			s.agg(XPU_AGG_VAR_FP, i2f8, F8);
			run_gpu("no keys", p, s, page, nblocks, 2, max_grid);
		}
		{
			KtProg p;
			int n = p.var(A_N), t = p.var(A_T), f4 = p.var(A_F4);
			p.op(OP(IS_NOT_NULL), BOOL, {p.var(A_ID)});
			PreAggSpec s;
			s.key(n, NUM);
			s.key(t, TEXT, 32);
			s.key(f4, F4);
			s.agg(XPU_AGG_COUNT, -1, 0);
			run_gpu("group by n, t, f4", p, s, page, nblocks, 2, max_grid);
		}
	}
	printf("gpu preagg: %d passed, %d failed\n", npassed, nfailed);
	return nfailed == 0 ? 0 : 1;
}
