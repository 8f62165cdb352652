/*
 * gpu_test_join_preagg.cu - runs kern_gpujoin_build and the fused
 * kern_gpujoin_preagg on a GPU: the vectors.txt page repeated is joined
 * with three depths (every mix of join types) and grouped by inner
 * payload columns into a device table small enough to fill, grown with
 * kern_gpupreagg_rehash and retried as the service does, with grids of
 * one block (every batch through one block-local table), a few blocks,
 * and one block per batch.  The final groups and the RECHECK rows must
 * equal the host passes of test_join_preagg.cu over the same pages
 * (themselves checked there against a table that never fills, and the
 * fused row step against a nested loop and an independent aggregation).
 *
 *   nvcc -O2 -I.. -I../../include -arch=sm_90 -o gpu_test_join_preagg gpu_test_join_preagg.cu -lstdc++ -lm
 *   ./gpu_test_join_preagg vectors.txt
 */
#define TEST_JOIN_PREAGG_NO_MAIN
#include "test_join_preagg.cu"
#include "gpu_test_util.h"
#include "gpu_test_join_inner.h"

/* an empty device table of nslots slots: the image of a HostTable */
static XpuPreAggTable *
device_table(uint32_t nslots, uint32_t entry_size, size_t *bytes)
{
	HostTable h(nslots, entry_size);
	XpuPreAggTable *d;

	*bytes = h.t->entries_offset + (size_t) h.t->capacity * entry_size;
	CK(cudaMalloc(&d, *bytes));
	CK(cudaMemcpy(d, h.t, *bytes, cudaMemcpyHostToDevice));
	return d;
}

static void
run_gpu(int round, const std::vector<char> &page, uint32_t nblocks, uint32_t grid,
		uint32_t nslots)
{
	FusedPage fp;
	char name[128];

	if (!fused_page_setup(fp, round, page))
	{
		fprintf(stderr, "FAIL gpu fused round %d: setup\n", round);
		nfailed++;
		return;
	}
	snprintf(name, sizeof(name), "gpu fused join %d/%d/%d, %u pages, grid %u, %u slots",
			 fp.types[0], fp.types[1], fp.types[2], nblocks, grid, nslots);
	std::vector<char> pages = repeated_pages(page, nblocks);
	std::set<uint32_t> hrecheck;
	int hgrowths = 0;
	HostTable *ht = host_fused_pages(&fp.pj.prog, &fp.pj.jn, &fp.pa, fp.pj.inners, pages.data(),
									 nblocks, 1 << 16, &hrecheck, &hgrowths);
	auto want = table_groups(fp.spec, (const char *) ht->t, ht->t);
	delete ht;

	char *d_msg, *d_pages;
	XpuJoinInner *d_inner[XPU_JOIN_MAX_DEPTHS];
	uint32_t *d_counters, *d_items, *d_retry;
	size_t maxrows = (size_t) nblocks * XPU_MAX_TUPLES_PER_PAGE;

	CK(cudaMalloc(&d_msg, fp.msg.size()));
	CK(cudaMemcpy(d_msg, fp.msg.data(), fp.msg.size(), cudaMemcpyHostToDevice));
	CK(cudaMalloc(&d_pages, pages.size()));
	CK(cudaMemcpy(d_pages, pages.data(), pages.size(), cudaMemcpyHostToDevice));
	CK(cudaMalloc(&d_counters, XPU_COUNTER__COUNT * 4));
	CK(cudaMalloc(&d_items, maxrows * 4));
	CK(cudaMalloc(&d_retry, maxrows * 4));
	/* the inner buffers as the backend sent them (payload included) */
	gpu_build_inners(fp.pj, d_msg, d_counters, d_inner);

	size_t tbytes;
	XpuPreAggTable *d_table = device_table(nslots, fp.pa.entry_size, &tbytes);
	std::set<uint32_t> recheck;
	uint32_t nretry = 0, ntuples = 0;
	int npasses = 0, ngrowths = 0;
	bool ok = true;
	for (;;)
	{
		uint32_t c[XPU_COUNTER__COUNT];
		CK(cudaMemset(d_counters, 0, sizeof(c)));
		if (npasses == 0)
			kern_gpujoin_preagg<<<grid, XPU_GPUSCAN_THREADS>>>(
				d_msg, d_pages, nblocks, NULL, 0, d_table,
				d_inner[0], d_inner[1], d_inner[2], d_inner[3], d_items, d_counters);
		else
			kern_gpujoin_preagg<<<(nretry + XPU_GPUSCAN_THREADS - 1) / XPU_GPUSCAN_THREADS,
				XPU_GPUSCAN_THREADS>>>(
				d_msg, d_pages, nblocks, d_retry, nretry, d_table,
				d_inner[0], d_inner[1], d_inner[2], d_inner[3], d_items, d_counters);
		CK(cudaDeviceSynchronize());
		CK(cudaMemcpy(c, d_counters, sizeof(c), cudaMemcpyDeviceToHost));
		npasses++;
		if (c[XPU_COUNTER_STATUS] != XPU_STATUS_OK)
		{
			fprintf(stderr, "FAIL %s: status %u in pass %d\n", name, c[XPU_COUNTER_STATUS], npasses);
			ok = false;
			break;
		}
		if (npasses == 1)
			ntuples = c[XPU_COUNTER_NTUPLES];
		std::vector<uint32_t> items(c[XPU_COUNTER_NITEMS]), retry;
		if (!items.empty())
			CK(cudaMemcpy(items.data(), d_items, items.size() * 4, cudaMemcpyDeviceToHost));
		uint32_t nrc = 0;
		for (uint32_t it : items)
		{
			if (it & XPU_ITEM_RECHECK)
			{
				/* a row is RECHECK once, in one pass */
				ok &= recheck.insert(it & ~XPU_ITEM_RECHECK).second;
				nrc++;
			}
			else if (it & XPU_ITEM_RETRY)
				retry.push_back(it & ~XPU_ITEM_RETRY);
		}
		ok &= nrc == c[XPU_COUNTER_NRECHECK];
		if (retry.empty() || npasses > 40)
			break;
		/* grow as the service does: a table twice as large, the groups rehashed */
		XpuPreAggTable hdr;
		CK(cudaMemcpy(&hdr, d_table, sizeof(hdr), cudaMemcpyDeviceToHost));
		size_t nb;
		XpuPreAggTable *d_big = device_table(hdr.nslots * 2, fp.pa.entry_size, &nb);
		uint32_t n = std::min(hdr.nentries, hdr.capacity);
		if (n > 0)
			kern_gpupreagg_rehash<<<(n + 255) / 256, 256>>>(d_table, d_big);
		CK(cudaDeviceSynchronize());
		cudaFree(d_table);
		d_table = d_big;
		tbytes = nb;
		ngrowths++;
		nretry = (uint32_t) retry.size();
		CK(cudaMemcpy(d_retry, retry.data(), retry.size() * 4, cudaMemcpyHostToDevice));
	}
	std::vector<char> back(tbytes);
	CK(cudaMemcpy(back.data(), d_table, tbytes, cudaMemcpyDeviceToHost));
	auto got = table_groups(fp.spec, back.data(), (const XpuPreAggTable *) back.data());
	ok &= got == want && recheck == hrecheck;
	if (!ok)
		fprintf(stderr, "FAIL %s: %zu groups (host %zu), %zu rechecks (host %zu), %d passes\n",
				name, got.size(), want.size(), recheck.size(), hrecheck.size(), npasses);
	CHECK(ok);
	fprintf(stderr, "note: %s: %u tuples, %zu groups, %zu rechecks, %d passes, %d growths\n",
			name, ntuples, got.size(), recheck.size(), npasses, ngrowths);
	cudaFree(d_msg);
	cudaFree(d_pages);
	cudaFree(d_counters);
	cudaFree(d_items);
	cudaFree(d_retry);
	cudaFree(d_table);
	gpu_free_inners(d_inner);
}

int
main(int argc, char **argv)
{
	std::vector<char> page = gpu_test_page(argc, argv);

	for (int round = 0; round < 8; round++)
	{
		run_gpu(round, page, 64, 1, 1 << 12);		/* one block: every batch, one local table */
		run_gpu(round, page, 64, 3, 2);				/* the table fills: RETRY passes */
		run_gpu(round, page, 300, 38, 4);			/* one block per batch */
	}
	printf("gpu join preagg: %d passed, %d failed\n", npassed, nfailed);
	return nfailed == 0 ? 0 : 1;
}
