/*
 * xpu_scan.h
 *
 * kern_gpuscan_block: one CUDA block per 8kB heap page, threads striding
 * over the page's line pointers.  See pg_strom_xpu.h for the contract.
 */
#ifndef XPU_SCAN_H
#define XPU_SCAN_H

#include "xpu_eval.h"
#include "xpu_atomic.h"

#ifdef __CUDACC__

/* line pointers of a page grouped by 32, for the per-page prefix sum */
#define XPU_GPUSCAN_LPGROUPS	((XPU_MAX_TUPLES_PER_PAGE + 31) / 32)

extern "C" __global__ void __launch_bounds__(XPU_GPUSCAN_THREADS)
kern_gpuscan_block(const char *session,
				   const char *pages,
				   uint32_t nblocks,
				   uint32_t *items,
				   uint32_t *counters)
{
	__shared__ xpu_program prog;
	__shared__ int s_status;
	__shared__ uint32_t s_ntuples;
	__shared__ uint32_t s_nrecheck;
	__shared__ uint8_t s_res[XPU_MAX_TUPLES_PER_PAGE];
	__shared__ uint32_t s_group[XPU_GPUSCAN_LPGROUPS];
	__shared__ uint32_t s_base;
	xpu_datum	slots[XPU_GPUSCAN_MAX_SLOTS];
	const int	tid = threadIdx.x;
	const int	nthreads = blockDim.x;
	const char *page;
	int			bad;
	int			nitems;
	int			i;
	uint32_t	ntuples;
	uint32_t	nrecheck;

	if (blockIdx.x >= nblocks)
		return;
	if ((nthreads & 31) != 0)
	{
		if (tid == 0)
			xpu_set_status(counters, XPU_STATUS_BAD_PROGRAM);
		return;
	}

	/* ---- the program: header by thread 0, nodes and attrs in parallel ---- */
	if (tid == 0)
		s_status = xpu_program_header(session, &prog);
	__syncthreads();
	if (s_status != XPU_STATUS_OK)
	{
		if (tid == 0)
			xpu_set_status(counters, s_status);
		return;
	}
	for (i = tid; i < (int) prog.nnodes; i += nthreads)
		prog.nodes[i] = xpu_load_node(xpu_program_node_ptr(&prog, i));
	__syncthreads();
	bad = 0;
	for (i = tid; i < (int) prog.nnodes; i += nthreads)
	{
		int			r;

		if (!xpu_validate_node(&prog, i))
			bad = 1;
		r = xpu_var_rank(&prog, i);
		if (r >= 0)
		{
			prog.var_attr[r] = (int16_t) prog.nodes[i].aux;
			prog.var_node[r] = (int16_t) i;
		}
	}
	if (tid == 0 && prog.nodes[prog.root].restype != XPU_TYPE_BOOL)
		bad = 1;
	if (__syncthreads_or(bad))
	{
		if (tid == 0)
			xpu_set_status(counters, XPU_STATUS_BAD_PROGRAM);
		return;
	}
	if (tid == 0)
	{
		int			nvars = 0;

		for (i = 0; i <= (int) prog.root; i++)
			nvars += (prog.nodes[i].opcode == XPU_OP_VAR);
		prog.nvars = nvars;
		prog.max_attr = nvars > 0 ? prog.var_attr[nvars - 1] : -1;
	}
	__syncthreads();
	bad = 0;
	for (i = tid; i <= prog.max_attr; i += nthreads)
	{
		if (!xpu_validate_attr(&prog, i))
			bad = 1;
	}
	if (__syncthreads_or(bad))
	{
		if (tid == 0)
			xpu_set_status(counters, XPU_STATUS_BAD_PROGRAM);
		return;
	}

	/* ---- the page ---- */
	page = pages + (size_t) blockIdx.x * XPU_BLCKSZ;
	nitems = xpu_page_checked_nitems(page);
	if (nitems < 0)
	{
		if (tid == 0)
			xpu_set_status(counters, XPU_STATUS_BAD_PAGE);
		return;
	}

	/* ---- evaluate; count the entries of each group of 32 line pointers ---- */
	ntuples = 0;
	for (int base = 0; base < nitems; base += nthreads)
	{
		int			lpi = base + tid;
		int			res = XPU_ROW_NOMATCH;
		uint32_t	mask;

		if (lpi < nitems)
		{
			uint32_t	lp = xpu_load_u32(page + XPU_SIZE_OF_PAGE_HEADER + 4 * lpi);

			if (xpu_lp_flags(lp) == XPU_LP_NORMAL)
			{
				ntuples++;
				res = xpu_eval_tuple(&prog, page + xpu_lp_off(lp),
									 (int32_t) xpu_lp_len(lp), slots);
			}
			s_res[lpi] = (uint8_t) res;
		}
		mask = __ballot_sync(0xffffffffU, res != XPU_ROW_NOMATCH);
		if ((tid & 31) == 0 && lpi < nitems)
			s_group[lpi >> 5] = __popc(mask);
	}
	if (tid == 0)
	{
		s_ntuples = 0;
		s_nrecheck = 0;
	}
	__syncthreads();

	/* ---- reserve this page's range ---- */
	if (tid == 0)
	{
		uint32_t	sum = 0;
		int			ngroups = (nitems + 31) >> 5;
		int			g;

		for (g = 0; g < ngroups; g++)
		{
			uint32_t	c = s_group[g];

			s_group[g] = sum;
			sum += c;
		}
		s_base = sum > 0 ? atomicAdd(&counters[XPU_COUNTER_NITEMS], sum) : 0;
	}
	if (ntuples > 0)
		atomicAdd(&s_ntuples, ntuples);
	__syncthreads();

	/* ---- write the entries in line pointer order ---- */
	nrecheck = 0;
	for (int base = 0; base < nitems; base += nthreads)
	{
		int			lpi = base + tid;
		int			res = (lpi < nitems) ? s_res[lpi] : XPU_ROW_NOMATCH;
		uint32_t	mask = __ballot_sync(0xffffffffU, res != XPU_ROW_NOMATCH);

		if (res != XPU_ROW_NOMATCH)
		{
			uint32_t	pos = s_base + s_group[lpi >> 5] +
				__popc(mask & ((1U << (tid & 31)) - 1));
			uint32_t	entry = ((uint32_t) blockIdx.x << XPU_ITEM_BLOCK_SHIFT) |
				(uint32_t) (lpi + 1);

			if (res == XPU_ROW_RECHECK)
			{
				entry |= XPU_ITEM_RECHECK;
				nrecheck++;
			}
			items[pos] = entry;
		}
	}
	if (nrecheck > 0)
		atomicAdd(&s_nrecheck, nrecheck);
	__syncthreads();
	if (tid == 0)
	{
		if (s_ntuples > 0)
			atomicAdd(&counters[XPU_COUNTER_NTUPLES], s_ntuples);
		if (s_nrecheck > 0)
			atomicAdd(&counters[XPU_COUNTER_NRECHECK], s_nrecheck);
	}
}

#endif							/* __CUDACC__ */
#endif							/* XPU_SCAN_H */
