/*
 * xpu_preagg.h
 *
 * GpuPreAgg: the GpuScan program decides which rows qualify, and each
 * qualifying row is folded into a group entry of a device hash table shared
 * by every session of the plan (see "GpuPreAgg" in pg_strom_xpu.h).
 * This header holds the per-row and per-tuple steps and the kernels
 * kern_gpupreagg_block and kern_gpupreagg_rehash.
 *
 * The per-row steps (key normalization and comparison, find-or-insert,
 * accumulator arithmetic) are XPU_FUNC helpers whose atomics become plain
 * operations on the host, so kernels/test/ can check them serially.
 */
#ifndef XPU_PREAGG_H
#define XPU_PREAGG_H

#include "xpu_atomic.h"
#include "xpu_heap.h"
#include "xpu_eval.h"
#include "xpu_preagg_desc.h"
#include "xpu_preagg_acc.h"
#include "xpu_preagg_table.h"

/* outcome of a qualifying row that found no room for a new group */
#define XPU_ROW_RETRY		3

/*
 * xpu_preagg_row - a row whose qual is true: XPU_ROW_MATCH once it is
 * accumulated, XPU_ROW_RECHECK for a key the slot cannot hold, or
 * XPU_ROW_RETRY when its group is new and the table is full.
 */
XPU_NOINLINE int
xpu_preagg_row(const xpu_preagg *pa, const xpu_preagg_table *tab, const xpu_datum *slots)
{
	char	   *entry;

	if (!xpu_preagg_keys_fit(pa, slots) || !xpu_preagg_args_fit(pa, slots))
		return XPU_ROW_RECHECK;
	entry = xpu_preagg_lookup(pa, tab, slots, xpu_preagg_hash(pa, slots));
	if (entry == (char *) 0)
		return XPU_ROW_RETRY;
	xpu_preagg_accumulate(pa, entry, slots);
	return XPU_ROW_MATCH;
}

/* a whole LP_NORMAL tuple: XPU_ROW_NOMATCH, _MATCH, _RECHECK or _RETRY */
XPU_FUNC int
xpu_preagg_tuple(const xpu_program *prog, const xpu_preagg *pa, const xpu_preagg_table *tab,
				 const char *tup, int32_t tuplen, xpu_datum *slots)
{
	int			res = xpu_eval_tuple(prog, tup, tuplen, slots);

	if (res != XPU_ROW_MATCH)
		return res;
	return xpu_preagg_row(pa, tab, slots);
}

/*
 * xpu_preagg_retry_tuple - the tuple that a retry item (block index <<
 * XPU_ITEM_BLOCK_SHIFT | line pointer number, no flags) names in the
 * chunk's nblocks pages.  The item comes back through the service, so it
 * is checked again rather than trusted: false when it names no sane
 * LP_NORMAL line pointer of a valid page, which the caller reports as
 * XPU_STATUS_BAD_PAGE.  The kernel and the host executor both decode retry
 * items here, so they accept and reject the same ones.
 */
XPU_FUNC bool
xpu_preagg_retry_tuple(const char *pages, uint32_t nblocks, uint32_t item,
					   const char **tuple, int32_t *tuple_len)
{
	uint32_t	blk = item >> XPU_ITEM_BLOCK_SHIFT;
	int			lpn = (int) (item & XPU_ITEM_OFFSET_MASK);
	const char *page;
	uint32_t	lp;

	if (blk >= nblocks || lpn < 1)
		return false;
	page = pages + (size_t) blk * XPU_BLCKSZ;
	if (lpn > xpu_page_nitems(page))
		return false;
	lp = xpu_load_u32(page + XPU_SIZE_OF_PAGE_HEADER + 4 * (lpn - 1));
	if (xpu_lp_flags(lp) != XPU_LP_NORMAL || !xpu_lp_normal_is_sane(lp))
		return false;
	*tuple = page + xpu_lp_off(lp);
	*tuple_len = (int32_t) xpu_lp_len(lp);
	return true;
}

#ifdef __CUDACC__

/*
 * xpu_preagg_setup_block - load and validate the program, the descriptor
 * and the table header into shared memory with all the block's threads.
 * False (status reported) when any of them is inconsistent.
 */
__device__ static bool
xpu_preagg_setup_block(const char *session, XpuPreAggTable *table,
					   xpu_program *prog, xpu_preagg *pa, xpu_preagg_table *tab,
					   int *s_status, uint32_t *counters)
{
	const int	tid = threadIdx.x;
	const int	nthreads = blockDim.x;
	int			bad;
	int			i;

	if (tid == 0)
	{
		int			st = xpu_preagg_program_header(session, prog, pa);

		if (st == XPU_STATUS_OK && !xpu_preagg_table_open(table, pa->entry_size, tab))
			st = XPU_STATUS_BAD_PROGRAM;
		*s_status = st;
	}
	__syncthreads();
	if (*s_status != XPU_STATUS_OK)
	{
		if (tid == 0)
			xpu_set_status(counters, *s_status);
		return false;
	}
	for (i = tid; i < (int) prog->nnodes; i += nthreads)
		prog->nodes[i] = xpu_load_node(xpu_program_node_ptr(prog, i));
	for (i = tid; i < (int) pa->nkeys; i += nthreads)
		pa->keys[i] = xpu_load_group_key(session + pa->keys_offset + sizeof(XpuGroupKey) * i);
	for (i = tid; i < (int) pa->naggs; i += nthreads)
		pa->aggs[i] = xpu_load_agg_desc(session + pa->aggs_offset + sizeof(XpuAggDesc) * i);
	__syncthreads();
	bad = 0;
	for (i = tid; i < (int) prog->nnodes; i += nthreads)
	{
		int			r;

		if (!xpu_validate_node(prog, i))
			bad = 1;
		r = xpu_var_rank(prog, i);
		if (r >= 0)
		{
			prog->var_attr[r] = (int16_t) prog->nodes[i].aux;
			prog->var_node[r] = (int16_t) i;
		}
	}
	/* regions refer to nodes by restype only, valid or not: no race */
	for (i = tid; i < (int) (pa->nkeys + pa->naggs); i += nthreads)
	{
		if (!xpu_preagg_validate_region(prog, pa, i))
			bad = 1;
	}
	if (tid == 0 && prog->nodes[prog->root].restype != XPU_TYPE_BOOL)
		bad = 1;
	if (__syncthreads_or(bad))
	{
		if (tid == 0)
			xpu_set_status(counters, XPU_STATUS_BAD_PROGRAM);
		return false;
	}
	if (tid == 0)
	{
		int			nvars = 0;

		for (i = 0; i <= (int) prog->root; i++)
			nvars += (prog->nodes[i].opcode == XPU_OP_VAR);
		prog->nvars = nvars;
		prog->max_attr = nvars > 0 ? prog->var_attr[nvars - 1] : -1;
	}
	__syncthreads();
	bad = 0;
	for (i = tid; i <= prog->max_attr; i += nthreads)
	{
		if (!xpu_validate_attr(prog, i))
			bad = 1;
	}
	if (__syncthreads_or(bad))
	{
		if (tid == 0)
			xpu_set_status(counters, XPU_STATUS_BAD_PROGRAM);
		return false;
	}
	return true;
}

/* RECHECK and RETRY rows go to the items, in any order */
__device__ static inline void
xpu_preagg_emit(uint32_t *items, uint32_t *counters, uint32_t item)
{
	items[atomicAdd(&counters[XPU_COUNTER_NITEMS], 1)] = item;
}

extern "C" __global__ void __launch_bounds__(XPU_GPUSCAN_THREADS)
kern_gpupreagg_block(const char *session,
					 const char *pages,
					 uint32_t nblocks,
					 const uint32_t *retry,
					 uint32_t nretry,
					 XpuPreAggTable *table,
					 uint32_t *items,
					 uint32_t *counters)
{
	__shared__ xpu_program prog;
	__shared__ xpu_preagg pa;
	__shared__ xpu_preagg_table tab;
	__shared__ int s_status;
	__shared__ uint32_t s_ntuples;
	__shared__ uint32_t s_nrecheck;
	xpu_datum	slots[XPU_GPUSCAN_MAX_SLOTS];
	const int	tid = threadIdx.x;
	const int	nthreads = blockDim.x;
	uint32_t	ntuples = 0;
	uint32_t	nrecheck = 0;

	if (retry == NULL ? blockIdx.x >= nblocks :
		(uint64_t) blockIdx.x * nthreads >= nretry)
		return;
	if (!xpu_preagg_setup_block(session, table, &prog, &pa, &tab, &s_status, counters))
		return;
	if (tid == 0)
	{
		s_ntuples = 0;
		s_nrecheck = 0;
	}

	if (retry == NULL)
	{
		const char *page = pages + (size_t) blockIdx.x * XPU_BLCKSZ;
		/* a bad page accumulates nothing: it is checked whole first */
		int			nitems = xpu_page_checked_nitems(page);
		int			i;

		if (nitems < 0)
		{
			if (tid == 0)
				xpu_set_status(counters, XPU_STATUS_BAD_PAGE);
			return;
		}
		for (i = tid; i < nitems; i += nthreads)
		{
			uint32_t	lp = xpu_load_u32(page + XPU_SIZE_OF_PAGE_HEADER + 4 * i);
			uint32_t	item;
			int			res;

			if (xpu_lp_flags(lp) != XPU_LP_NORMAL)
				continue;
			ntuples++;
			res = xpu_preagg_tuple(&prog, &pa, &tab, page + xpu_lp_off(lp),
								   (int32_t) xpu_lp_len(lp), slots);
			item = ((uint32_t) blockIdx.x << XPU_ITEM_BLOCK_SHIFT) | (uint32_t) (i + 1);
			if (res == XPU_ROW_RECHECK)
			{
				xpu_preagg_emit(items, counters, item | XPU_ITEM_RECHECK);
				nrecheck++;
			}
			else if (res == XPU_ROW_RETRY)
				xpu_preagg_emit(items, counters, item | XPU_ITEM_RETRY);
		}
	}
	else
	{
		uint32_t	k = blockIdx.x * (uint32_t) nthreads + tid;

		if (k < nretry)
		{
			uint32_t	item = retry[k];
			const char *tuple;
			int32_t		tuple_len;

			if (!xpu_preagg_retry_tuple(pages, nblocks, item, &tuple, &tuple_len))
				xpu_set_status(counters, XPU_STATUS_BAD_PAGE);
			else
			{
				int			res;

				ntuples++;
				res = xpu_preagg_tuple(&prog, &pa, &tab, tuple, tuple_len, slots);
				if (res == XPU_ROW_RECHECK)
				{
					xpu_preagg_emit(items, counters, item | XPU_ITEM_RECHECK);
					nrecheck++;
				}
				else if (res == XPU_ROW_RETRY)
					xpu_preagg_emit(items, counters, item | XPU_ITEM_RETRY);
			}
		}
	}

	/* after this, tid 0 has zeroed the block counters */
	__syncthreads();
	if (ntuples > 0)
		atomicAdd(&s_ntuples, ntuples);
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

extern "C" __global__ void
kern_gpupreagg_rehash(const XpuPreAggTable *from, XpuPreAggTable *to)
{
	xpu_preagg_table f;
	xpu_preagg_table t;
	uint32_t	n;
	uint32_t	i;

	/* the tables are only read here: open() needs a mutable pointer */
	if (!xpu_preagg_table_open((XpuPreAggTable *) from, from->entry_size, &f) ||
		!xpu_preagg_table_open(to, from->entry_size, &t))
		return;
	n = from->nentries < f.capacity ? from->nentries : f.capacity;
	for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		xpu_preagg_rehash_entry(&f, &t, i);
}


#endif							/* __CUDACC__ */

#endif							/* XPU_PREAGG_H */
