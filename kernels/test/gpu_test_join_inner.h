/*
 * gpu_test_join_inner.h - the inner buffers of a page join (test_join.cu's
 * PageJoin) on a device, for gpu_test_join.cu and gpu_test_join_preagg.cu:
 * uploaded as the backend sends them and indexed by kern_gpujoin_build.
 * Include it after test_join.cu and gpu_test_util.h.
 */
#ifndef GPU_TEST_JOIN_INNER_H
#define GPU_TEST_JOIN_INNER_H

/*
 * Uploads every depth's inner buffer of pj (rows and payload as the
 * backend sent them, the buckets zeroed as the service zeroes them, the
 * next links garbage: the build writes each) and builds its index with
 * kern_gpujoin_build over a grid of several blocks, so that threads race
 * for the buckets.  Checks the counters and the chains as test_join.cu
 * checks the host build: NTUPLES is every row, NITEMS the rows linked,
 * which are the rows without a NULL key (not nrows - 1: the page's own
 * tuples with a NULL key are inner rows too; see docs/internals/join-kernels.md).  d_counters
 * holds XPU_COUNTER__COUNT counters or more.
 */
static void
gpu_build_inners(const PageJoin &pj, const char *d_msg, uint32_t *d_counters,
				 XpuJoinInner *d_inner[XPU_JOIN_MAX_DEPTHS])
{
	for (int d = 0; d < XPU_JOIN_MAX_DEPTHS; d++)
		d_inner[d] = NULL;
	for (int d = 0; d < (int) pj.jn.ndepths; d++)
	{
		const XpuJoinInner *h = pj.bufs[d]->h;
		uint64_t bytes = h->hashes_offset + 4 * (uint64_t) h->nrows;
		std::vector<char> img((const char *) h, (const char *) h + bytes);
		uint32_t c[XPU_COUNTER__COUNT];

		memset(img.data() + h->buckets_offset, 0, 4 * (size_t) h->nbuckets);
		memset(img.data() + h->next_offset, 0xff, 4 * (size_t) h->nrows);
		CK(cudaMalloc(&d_inner[d], bytes));
		CK(cudaMemcpy(d_inner[d], img.data(), bytes, cudaMemcpyHostToDevice));
		CK(cudaMemset(d_counters, 0, sizeof(c)));
		kern_gpujoin_build<<<3, 128>>>(d_msg, d, d_inner[d], d_counters);
		CK(cudaDeviceSynchronize());
		CK(cudaMemcpy(c, d_counters, sizeof(c), cudaMemcpyDeviceToHost));
		CHECK(c[XPU_COUNTER_STATUS] == XPU_STATUS_OK && c[XPU_COUNTER_NTUPLES] == h->nrows &&
			  c[XPU_COUNTER_NITEMS] == page_join_linkable(pj, d));
		std::vector<char> back(bytes);
		CK(cudaMemcpy(back.data(), d_inner[d], bytes, cudaMemcpyDeviceToHost));
		CHECK(page_join_index_ok(pj, d, back.data()));
	}
}

static void
gpu_free_inners(XpuJoinInner *d_inner[XPU_JOIN_MAX_DEPTHS])
{
	for (int d = 0; d < XPU_JOIN_MAX_DEPTHS; d++)
		if (d_inner[d])
			cudaFree(d_inner[d]);
}

#endif							/* GPU_TEST_JOIN_INNER_H */
