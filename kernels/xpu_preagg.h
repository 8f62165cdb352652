/*
 * xpu_preagg.h
 *
 * GpuPreAgg: the GpuScan program decides which rows qualify, and each
 * qualifying row is folded into a group entry of a device hash table shared
 * by every session of the plan (see "GpuPreAgg" in pg_strom_xpu.h).
 * This header holds the per-row and per-tuple steps and the kernels
 * kern_gpupreagg_block and kern_gpupreagg_rehash.  Over pages, a block
 * folds rows into its shared-memory table first (xpu_preagg_local.h).
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
#include "xpu_preagg_local.h"

/* outcome of a qualifying row that found no room for a new group */
#define XPU_ROW_RETRY		3

/*
 * xpu_preagg_row - a row whose qual is true: XPU_ROW_MATCH once it is
 * accumulated, XPU_ROW_RECHECK for a key the slot cannot hold, or
 * XPU_ROW_RETRY when its group is new and the table is full.
 */
/* false when the device cannot hold the row's key or arguments (RECHECK) */
XPU_FUNC bool
xpu_preagg_row_fits(const xpu_preagg *pa, const xpu_datum *slots)
{
	return xpu_preagg_keys_fit(pa, slots) && xpu_preagg_args_fit(pa, slots);
}

XPU_NOINLINE int
xpu_preagg_row(const xpu_preagg *pa, const xpu_preagg_table *tab, const xpu_datum *slots)
{
	char	   *entry;

	if (!xpu_preagg_row_fits(pa, slots))
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

/*
 * A row's outcome: RECHECK and RETRY rows go to the items, in any order,
 * and RECHECK rows are counted in *nrecheck (the thread's count).
 */
__device__ static inline void
xpu_preagg_emit(int res, uint32_t item, uint32_t *items, uint32_t *counters,
				uint32_t *nrecheck)
{
	if (res == XPU_ROW_RECHECK)
	{
		items[atomicAdd(&counters[XPU_COUNTER_NITEMS], 1)] = item | XPU_ITEM_RECHECK;
		(*nrecheck)++;
	}
	else if (res == XPU_ROW_RETRY)
		items[atomicAdd(&counters[XPU_COUNTER_NITEMS], 1)] = item | XPU_ITEM_RETRY;
}

/*
 * xpu_preagg_retry_pass - the retry pass of a GpuPreAgg kernel (one item
 * per thread, the grid covering nretry): this thread's row goes through
 * fold(tuple, tuple_len), which returns its XPU_ROW_* outcome, into the
 * items and the thread's counts.  An item that names no tuple of the
 * chunk is a BAD_PAGE.
 */
template <typename Fold>
__device__ static void
xpu_preagg_retry_pass(const char *pages, uint32_t nblocks, const uint32_t *retry,
					  uint32_t nretry, uint32_t *items, uint32_t *counters,
					  uint32_t *ntuples, uint32_t *nrecheck, Fold fold)
{
	uint32_t	k = blockIdx.x * (uint32_t) blockDim.x + threadIdx.x;
	const char *tuple;
	int32_t		tuple_len;

	if (k >= nretry)
		return;
	if (!xpu_item_tuple(pages, nblocks, retry[k], &tuple, &tuple_len))
	{
		xpu_set_status(counters, XPU_STATUS_BAD_PAGE);
		return;
	}
	(*ntuples)++;
	xpu_preagg_emit(fold(tuple, tuple_len), retry[k], items, counters, nrecheck);
}

/*
 * Adds the threads' tuple and RECHECK counts to the chunk's counters, once
 * per block: every thread of the block calls it (it synchronizes), and
 * thread 0 zeroed *s_ntuples and *s_nrecheck before an earlier barrier.
 */
__device__ static void
xpu_preagg_add_block_counts(uint32_t *s_ntuples, uint32_t *s_nrecheck,
							uint32_t ntuples, uint32_t nrecheck, uint32_t *counters)
{
	if (ntuples > 0)
		atomicAdd(s_ntuples, ntuples);
	if (nrecheck > 0)
		atomicAdd(s_nrecheck, nrecheck);
	__syncthreads();
	if (threadIdx.x == 0)
	{
		if (*s_ntuples > 0)
			atomicAdd(&counters[XPU_COUNTER_NTUPLES], *s_ntuples);
		if (*s_nrecheck > 0)
			atomicAdd(&counters[XPU_COUNTER_NRECHECK], *s_nrecheck);
	}
}

/*
 * xpu_preagg_pages - the first pass of a block: the pages of batches (whose
 * rows the block's threads share)
 * blockIdx.x, blockIdx.x + gridDim.x, ... of the chunk, their rows spread
 * over the block's threads.  A qualifying row finds its group in the local
 * table (lt; NULL when the entries are too large for one): a thread that
 * creates a local group finds or creates its device entry, and once every
 * row is folded each local group is combined into its device entry.  Rows
 * of a group the device table has no room for, and rows past a full local
 * table that find none either, are RETRY items; the retry pass (a larger
 * table, every row straight to it) folds them.  Returns the LP_NORMAL
 * tuples seen and the RECHECK rows emitted.
 */
__device__ static void
xpu_preagg_pages(const xpu_program *prog, const xpu_preagg *pa, const xpu_preagg_table *tab,
				 XpuPreAggLocal *local, const xpu_preagg_table *lt,
				 const char *pages, uint32_t nblocks, uint32_t *items, uint32_t *counters,
				 xpu_datum *slots, uint32_t *p_ntuples, uint32_t *p_nrecheck)
{
	const int	tid = threadIdx.x;
	const int	nthreads = blockDim.x;
	uint64_t	batch;

	for (batch = blockIdx.x; batch * XPU_PREAGG_BATCH_PAGES < nblocks; batch += gridDim.x)
	{
		uint32_t	blk0 = (uint32_t) (batch * XPU_PREAGG_BATCH_PAGES);
		uint32_t	first[XPU_PREAGG_BATCH_PAGES + 1];
		uint32_t	r0;
		int			j;

		/* a bad page accumulates nothing: it is checked whole first */
		first[0] = 0;
		for (j = 0; j < XPU_PREAGG_BATCH_PAGES; j++)
		{
			int			n = 0;

			if (blk0 + j < nblocks)
			{
				n = xpu_page_checked_nitems(pages + (size_t) (blk0 + j) * XPU_BLCKSZ);
				if (n < 0)
				{
					if (tid == 0)
						xpu_set_status(counters, XPU_STATUS_BAD_PAGE);
					n = 0;
				}
			}
			first[j + 1] = first[j] + (uint32_t) n;
		}

		/* every thread runs every round: the rounds synchronize */
		for (r0 = 0; r0 < first[XPU_PREAGG_BATCH_PAGES]; r0 += nthreads)
		{
			uint32_t	r = r0 + tid;
			uint32_t	item = 0;
			uint32_t	hash = 0;
			int			res = XPU_ROW_NOMATCH;
			char	   *lentry = (char *) 0;
			bool		created = false;

			if (r < first[XPU_PREAGG_BATCH_PAGES])
			{
				const char *page;
				uint32_t	lp;
				int			i;

				for (j = 0; r >= first[j + 1]; j++)
					;
				i = (int) (r - first[j]);
				page = pages + (size_t) (blk0 + j) * XPU_BLCKSZ;
				lp = xpu_load_u32(page + XPU_SIZE_OF_PAGE_HEADER + 4 * i);
				item = ((blk0 + j) << XPU_ITEM_BLOCK_SHIFT) | (uint32_t) (i + 1);
				if (xpu_lp_flags(lp) == XPU_LP_NORMAL)
				{
					(*p_ntuples)++;
					res = xpu_eval_tuple(prog, page + xpu_lp_off(lp),
										 (int32_t) xpu_lp_len(lp), slots);
				}
				if (res == XPU_ROW_MATCH && !xpu_preagg_row_fits(pa, slots))
					res = XPU_ROW_RECHECK;
				if (res == XPU_ROW_MATCH && lt != (const xpu_preagg_table *) 0)
				{
					hash = xpu_preagg_hash(pa, slots);
					lentry = xpu_preagg_lookup_created(pa, lt, slots, hash, &created);
				}
			}
			/* the groups created in this round are linked */
			__syncthreads();
			if (created)
			{
				uint32_t	li = (uint32_t) ((lentry - lt->entries) / lt->entry_size);

				local->global[li] = xpu_preagg_lookup(pa, tab, slots, hash);
			}
			/* and have their device entries, or know there is none */
			__syncthreads();
			if (res == XPU_ROW_MATCH)
			{
				if (lentry == (char *) 0)
					res = xpu_preagg_row(pa, tab, slots);
				else if (local->global[(lentry - lt->entries) / lt->entry_size] == (char *) 0)
					res = XPU_ROW_RETRY;
				else
					xpu_preagg_accumulate(pa, lentry, slots);
			}
			xpu_preagg_emit(res, item, items, counters, p_nrecheck);
		}
	}
	if (lt != (const xpu_preagg_table *) 0)
	{
		uint32_t	i;

		/* every row is folded into the local groups */
		__syncthreads();
		for (i = tid; i < xpu_preagg_local_used(lt); i += nthreads)
			xpu_preagg_local_flush(pa, local, lt, i);
	}
}

/*
 * kern_gpupreagg_block - the first pass over a chunk's pages (retry NULL;
 * any grid: each block takes batches of XPU_PREAGG_BATCH_PAGES pages), or a
 * retry pass over retry items (one per thread, grid covering nretry).
 */
extern "C" __global__ void __launch_bounds__(XPU_GPUSCAN_THREADS, 4)
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
	__shared__ __align__(16) XpuPreAggLocal local;
	__shared__ xpu_preagg_table local_tab;
	__shared__ bool s_use_local;
	__shared__ int s_status;
	__shared__ uint32_t s_ntuples;
	__shared__ uint32_t s_nrecheck;
	xpu_datum	slots[XPU_GPUSCAN_MAX_SLOTS];
	const int	tid = threadIdx.x;
	const int	nthreads = blockDim.x;
	uint32_t	ntuples = 0;
	uint32_t	nrecheck = 0;

	if (retry == NULL ? (uint64_t) blockIdx.x * XPU_PREAGG_BATCH_PAGES >= nblocks :
		(uint64_t) blockIdx.x * nthreads >= nretry)
		return;
	if (!xpu_preagg_setup_block(session, table, &prog, &pa, &tab, &s_status, counters))
		return;
	if (tid == 0)
	{
		s_ntuples = 0;
		s_nrecheck = 0;
		s_use_local = retry == NULL &&
			xpu_preagg_local_open(&local, pa.entry_size, &local_tab);
		local.nentries = 0;
	}
	for (int i = tid; i < XPU_PREAGG_LOCAL_SLOTS; i += nthreads)
		local.slots[i] = 0;
	for (int i = tid; i < XPU_PREAGG_LOCAL_ENTRIES; i += nthreads)
		local.global[i] = (char *) 0;
	__syncthreads();

	if (retry == NULL)
		xpu_preagg_pages(&prog, &pa, &tab, &local, s_use_local ? &local_tab : NULL,
						 pages, nblocks, items, counters, slots, &ntuples, &nrecheck);
	else
		xpu_preagg_retry_pass(pages, nblocks, retry, nretry, items, counters, &ntuples, &nrecheck,
							  [&](const char *tuple, int32_t tuple_len) {
			return xpu_preagg_tuple(&prog, &pa, &tab, tuple, tuple_len, slots);
		});
	xpu_preagg_add_block_counts(&s_ntuples, &s_nrecheck, ntuples, nrecheck, counters);
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
