/*
 * xpu_join_preagg.h
 *
 * GpuPreAgg fused over GpuJoin (docs/internals/join-kernels.md, "Fused GpuPreAgg"): one
 * pass reads an outer page, evaluates the outer quals and join keys,
 * probes every depth, and folds each join combination into GpuPreAgg's
 * device table, so no combination ever leaves the device.  This is the
 * star-schema shape: SELECT d_year, p_brand1, sum(lo_revenue) FROM
 * lineorder JOIN date ... JOIN part ... GROUP BY ...
 *
 * The program of an XPU_KIND_GPUJOIN_PREAGG session has two stages:
 *   - nodes 0..root: the GpuJoin program over the outer tuple (the outer
 *     quals at the root, the outer join keys below it), once per row;
 *   - nodes root+1..nnodes-1: once per combination, after the INNER_VAR
 *     leaves among them are filled from the combination's inner rows (the
 *     depths' payload slots), or, up to the deepest depth with a residual
 *     join qual, as the walk makes each depth's choice (xpu_join_walk).
 *     Group keys, aggregate arguments and FILTERs may be nodes of either
 *     stage.
 *
 * The RETRY/RECHECK contract of GpuPreAgg holds per outer row, whatever
 * its number of combinations: a row is either wholly accumulated, or
 * wholly returned (RECHECK: the CPU joins and aggregates it; RETRY: the
 * service grows the table and runs it again), never in part.  So a row
 * with more than one combination first evaluates every combination and
 * finds or creates each one's group (pass 1), and only when all of them
 * have a group folds them (pass 2, the same walk again: the inner hash
 * index and the groups linked in pass 1 do not change within a launch).
 * Without residual quals, a row with exactly one combination, the common
 * case of a star join on dimension keys, is folded in one pass.
 *
 * A group created in pass 1 of a row that then turns out RETRY or RECHECK
 * may hold no row for a while; that row's combinations reach it later (a
 * retry pass, or the CPU for the same keys), and an empty partial (every
 * accumulator's count 0) folds as nothing.
 *
 * The per-row step is an XPU_FUNC, so kernels/test/test_join_preagg.cu
 * and the host executor run the kernel's code serially; the CUDA kernel
 * is at the end.
 */
#ifndef XPU_JOIN_PREAGG_H
#define XPU_JOIN_PREAGG_H

#include "xpu_join.h"
#include "xpu_preagg.h"

/*
 * xpu_join_preagg_setup_serial - the whole set-up of a GPUJOIN_PREAGG
 * session in one thread: the program with its per-combination stage, the
 * join (depths, keys, payload columns, INNER_VARs) and the grouping
 * (keys and aggregates over nodes of either stage).  Returns an
 * XPU_STATUS_*.
 */
XPU_FUNC int
xpu_join_preagg_setup_serial(const char *msg, xpu_program *prog, xpu_join *jn,
							 xpu_preagg *pa)
{
	int			st = xpu_join_setup_serial_kind(msg, prog, jn, XPU_KIND_GPUJOIN_PREAGG);

	if (st != XPU_STATUS_OK)
		return st;
	st = xpu_preagg_desc_header(msg, pa);
	if (st != XPU_STATUS_OK)
		return st;
	return xpu_preagg_load_validate(prog, pa);
}

/* the walk over a row's combinations (xpu_join_walk_next): xpu_join.h */

/*
 * xpu_join_preagg_combination - the next combination of the walk, ready
 * to fold: XPU_ROW_MATCH, XPU_ROW_NOMATCH when there is none, or
 * XPU_ROW_RECHECK (the walk's, or a group key or argument that does not
 * fit the entry).
 */
XPU_FUNC int
xpu_join_preagg_combination(const xpu_program *prog, const xpu_join *jn, const xpu_preagg *pa,
							const xpu_join_inner *inners, xpu_datum *slots, xpu_join_walk *w)
{
	int			res = xpu_join_walk_next(prog, jn, inners, slots, w);

	if (res == XPU_ROW_MATCH && !xpu_preagg_row_fits(pa, slots))
		return XPU_ROW_RECHECK;
	return res;
}

/* a block-local entry whose device entry its creator has not looked up yet */
#define XPU_JOIN_PREAGG_PENDING		((char *) 1)

/*
 * xpu_join_preagg_target - the entry to fold the combination (its slots)
 * into, its group created if new; NULL when the device table has no room
 * for it.  With a block-local table (lt; NULL without one) that is the
 * local entry once its creator has found its device entry; a thread that
 * creates a local entry looks up the device entry itself and publishes
 * it.  Until then (PENDING), or when the device had no room when it
 * looked (NULL), or the local table is full, the combination goes to the
 * device table directly.  So no thread waits for another, and rows of one
 * block need not be processed in lock-step rounds as kern_gpupreagg_block
 * does: a row's walk over its combinations can take any time.
 */
XPU_FUNC char *
xpu_join_preagg_target(const xpu_preagg *pa, const xpu_preagg_table *tab,
					   XpuPreAggLocal *local, const xpu_preagg_table *lt,
					   const xpu_datum *slots)
{
	uint32_t	hash = xpu_preagg_hash(pa, slots);

	if (lt != (const xpu_preagg_table *) 0)
	{
		bool		created = false;
		char	   *le = xpu_preagg_lookup_created(pa, lt, slots, hash, &created);

		if (le != (char *) 0)
		{
			uint32_t	li = (uint32_t) ((le - lt->entries) / lt->entry_size);
			char	   *volatile *gp = (char *volatile *) &local->global[li];
			char	   *g;

			if (created)
			{
				g = xpu_preagg_lookup(pa, tab, slots, hash);
				*gp = g;
				return g != (char *) 0 ? le : (char *) 0;
			}
			g = *gp;
			if (g != XPU_JOIN_PREAGG_PENDING && g != (char *) 0)
				return le;
		}
	}
	return xpu_preagg_lookup(pa, tab, slots, hash);
}

/*
 * xpu_join_preagg_fold - fold every combination of an outer row whose
 * outer stage is evaluated and whose qual is true, or none of them.
 * XPU_ROW_MATCH when folded (also for a row without combinations),
 * XPU_ROW_RECHECK when a combination cannot be evaluated on the device,
 * XPU_ROW_RETRY when a combination's group is new and the table is full.
 * The caller has found that the row may have combinations
 * (xpu_join_preagg_row).
 */
XPU_NOINLINE int
xpu_join_preagg_fold(const xpu_program *prog, const xpu_join *jn, const xpu_preagg *pa,
					 const xpu_join_inner *inners, const xpu_preagg_table *tab,
					 XpuPreAggLocal *local, const xpu_preagg_table *lt,
					 xpu_datum *slots)
{
	xpu_join_walk w;
	char	   *e;
	int			res;
	bool		anyqual = jn->eager_depth >= 0;

	w.state = XPU_JOIN_CUR_FRESH;
	res = xpu_join_preagg_combination(prog, jn, pa, inners, slots, &w);
	if (res != XPU_ROW_MATCH)
		return res == XPU_ROW_NOMATCH ? XPU_ROW_MATCH : res;	/* none: nothing to fold */
	e = xpu_join_preagg_target(pa, tab, local, lt, slots);
	if (e == (char *) 0)
		return XPU_ROW_RETRY;
	/*
	 * Without residual quals, a walk that finds no further combination
	 * evaluates nothing, so the slots are still the first one's: a row
	 * with one combination is folded at once.  (With quals, looking for
	 * the next one may evaluate rejected matches: pass 2 folds it.)
	 */
	res = xpu_join_preagg_combination(prog, jn, pa, inners, slots, &w);
	if (res == XPU_ROW_NOMATCH && !anyqual)
	{
		xpu_preagg_accumulate(pa, e, slots);
		return XPU_ROW_MATCH;
	}

	/* pass 1: every other combination can be evaluated and has a group */
	while (res != XPU_ROW_NOMATCH)
	{
		if (res != XPU_ROW_MATCH)
			return res;
		if (xpu_join_preagg_target(pa, tab, local, lt, slots) == (char *) 0)
			return XPU_ROW_RETRY;
		res = xpu_join_preagg_combination(prog, jn, pa, inners, slots, &w);
	}

	/* pass 2: the same combinations, in the same order, each folded once */
	w.state = XPU_JOIN_CUR_FRESH;
	while (xpu_join_preagg_combination(prog, jn, pa, inners, slots, &w) == XPU_ROW_MATCH)
	{
		e = xpu_join_preagg_target(pa, tab, local, lt, slots);
		/* never NULL: pass 1 linked every group, and links stay */
		if (e != (char *) 0)
			xpu_preagg_accumulate(pa, e, slots);
	}
	return XPU_ROW_MATCH;
}

/*
 * xpu_join_preagg_row - xpu_join_preagg_fold for a row that may have
 * combinations; XPU_ROW_MATCH (nothing to fold) for one that cannot
 * (xpu_join_no_combination), before any node of the combinations' stages
 * runs: such a row is never RECHECK for a value that PostgreSQL, which
 * evaluates those nodes for combinations only, would not compute either.
 */
XPU_FUNC int
xpu_join_preagg_row(const xpu_program *prog, const xpu_join *jn, const xpu_preagg *pa,
					const xpu_join_inner *inners, const xpu_preagg_table *tab,
					XpuPreAggLocal *local, const xpu_preagg_table *lt,
					xpu_datum *slots)
{
	if (xpu_join_no_combination(jn, inners, slots))
		return XPU_ROW_MATCH;
	return xpu_join_preagg_fold(prog, jn, pa, inners, tab, local, lt, slots);
}

/*
 * xpu_join_preagg_tuple - a whole LP_NORMAL outer tuple: XPU_ROW_NOMATCH
 * (the quals), _MATCH, _RECHECK or _RETRY.  The kernel and the host
 * executor both go through here.
 */
XPU_FUNC int
xpu_join_preagg_tuple(const xpu_program *prog, const xpu_join *jn, const xpu_preagg *pa,
					  const xpu_join_inner *inners, const xpu_preagg_table *tab,
					  XpuPreAggLocal *local, const xpu_preagg_table *lt,
					  const char *tup, int32_t tuplen, xpu_datum *slots)
{
	int			res = xpu_eval_tuple(prog, tup, tuplen, slots);

	if (res != XPU_ROW_MATCH)
		return res;
	return xpu_join_preagg_row(prog, jn, pa, inners, tab, local, lt, slots);
}

/*
 * xpu_join_preagg_local_reset - an empty block-local table: no group, and
 * every device entry PENDING until the entry's creator looks it up.  One
 * thread (the kernel spreads the loops over its block).
 */
XPU_FUNC void
xpu_join_preagg_local_reset(XpuPreAggLocal *local)
{
	int			i;

	local->nentries = 0;
	for (i = 0; i < XPU_PREAGG_LOCAL_SLOTS; i++)
		local->slots[i] = 0;
	for (i = 0; i < XPU_PREAGG_LOCAL_ENTRIES; i++)
		local->global[i] = XPU_JOIN_PREAGG_PENDING;
}

#ifdef __CUDACC__

/*
 * kern_gpujoin_preagg (its contract is in pg_strom_xpu.h, "GpuJoin"):
 * everything as kern_gpupreagg_block (geometry, items, counters, retry
 * passes, kern_gpupreagg_rehash for growing), plus the built inner
 * buffers of every depth.  Rows of a block need no lock-step rounds (see
 * xpu_join_preagg_target), so the tuples of a batch of pages simply
 * spread over the threads.
 */

/* a queued row: its page in the batch << QUEUE_SHIFT | line pointer index */
#define XPU_JOIN_PREAGG_QUEUE_SHIFT	9
static_assert(XPU_PREAGG_BATCH_PAGES <= (1 << (16 - XPU_JOIN_PREAGG_QUEUE_SHIFT)) &&
			  XPU_MAX_TUPLES_PER_PAGE <= (1 << XPU_JOIN_PREAGG_QUEUE_SHIFT),
			  "a queued row must fit 16 bits");

/* thread 0 loads and checks the program, the join, the grouping, the buffers */
__device__ static bool
xpu_join_preagg_setup_block(const char *session, XpuPreAggTable *table,
							XpuJoinInner *const *hdrs, xpu_program *prog, xpu_join *jn,
							xpu_preagg *pa, xpu_preagg_table *tab, xpu_join_inner *inners,
							int *s_status, uint32_t *counters)
{
	if (threadIdx.x == 0)
	{
		int			st = xpu_join_preagg_setup_serial(session, prog, jn, pa);

		if (st == XPU_STATUS_OK && !xpu_preagg_table_open(table, pa->entry_size, tab))
			st = XPU_STATUS_BAD_PROGRAM;
		if (st == XPU_STATUS_OK)
			st = xpu_join_inners_open(jn, hdrs, inners);
		*s_status = st;
		if (st != XPU_STATUS_OK)
			xpu_set_status(counters, (uint32_t) st);
	}
	__syncthreads();
	return *s_status == XPU_STATUS_OK;
}

/*
 * Four blocks per multiprocessor (64 registers, a few spilled) rather than
 * two: the kernel waits on memory (the slots live in local memory), and
 * more resident warps hid it better; the SSB queries took 13 % less time
 * on the H200 than with two (test/device/kernel_variants.sh; the results
 * index, bench/results/README.md, has the run).
 */
extern "C" __global__ void __launch_bounds__(XPU_GPUSCAN_THREADS, 4)
kern_gpujoin_preagg(const char *session, const char *pages, uint32_t nblocks,
					const uint32_t *retry, uint32_t nretry,
					XpuPreAggTable *table,
					XpuJoinInner *inner0, XpuJoinInner *inner1,
					XpuJoinInner *inner2, XpuJoinInner *inner3,
					uint32_t *items, uint32_t *counters)
{
	__shared__ xpu_program prog;
	__shared__ xpu_join jn;
	__shared__ xpu_preagg pa;
	__shared__ xpu_preagg_table tab;
	__shared__ xpu_join_inner inners[XPU_JOIN_MAX_DEPTHS];
	__shared__ __align__(16) XpuPreAggLocal local;
	__shared__ xpu_preagg_table local_tab;
	__shared__ bool s_use_local;
	__shared__ int s_status;
	__shared__ uint32_t s_ntuples;
	__shared__ uint32_t s_nrecheck;
	/* the first phase's rows for the second (XPU_JOIN_PREAGG_QUEUE_SHIFT) */
	__shared__ uint16_t s_queue[XPU_PREAGG_BATCH_PAGES * XPU_MAX_TUPLES_PER_PAGE];
	__shared__ uint32_t s_nqueued;
	__shared__ bool s_queue_rows;
	XpuJoinInner *hdrs[XPU_JOIN_MAX_DEPTHS] = {inner0, inner1, inner2, inner3};
	xpu_datum	slots[XPU_GPUSCAN_MAX_SLOTS];
	const int	tid = threadIdx.x;
	const int	nthreads = blockDim.x;
	uint32_t	ntuples = 0;
	uint32_t	nrecheck = 0;
	int			i;

	if (retry == NULL ? (uint64_t) blockIdx.x * XPU_PREAGG_BATCH_PAGES >= nblocks :
		(uint64_t) blockIdx.x * nthreads >= nretry)
		return;
	if (!xpu_join_preagg_setup_block(session, table, hdrs, &prog, &jn, &pa, &tab, inners,
									 &s_status, counters))
		return;
	if (tid == 0)
	{
		s_ntuples = 0;
		s_nrecheck = 0;
		s_use_local = retry == NULL &&
			xpu_preagg_local_open(&local, pa.entry_size, &local_tab);
		s_queue_rows = xpu_join_can_reject(&jn);
		local.nentries = 0;
	}
	for (i = tid; i < XPU_PREAGG_LOCAL_SLOTS; i += nthreads)
		local.slots[i] = 0;
	for (i = tid; i < XPU_PREAGG_LOCAL_ENTRIES; i += nthreads)
		local.global[i] = XPU_JOIN_PREAGG_PENDING;
	__syncthreads();

	if (retry == NULL)
	{
		const xpu_preagg_table *lt = s_use_local ? &local_tab : NULL;
		uint64_t	batch;

		for (batch = blockIdx.x; batch * XPU_PREAGG_BATCH_PAGES < nblocks; batch += gridDim.x)
		{
			uint32_t	first = (uint32_t) (batch * XPU_PREAGG_BATCH_PAGES);
			uint32_t	nb = nblocks - first < XPU_PREAGG_BATCH_PAGES ?
				nblocks - first : XPU_PREAGG_BATCH_PAGES;
			int			nitems[XPU_PREAGG_BATCH_PAGES];
			int			total = 0;
			uint32_t	nqueued;
			uint32_t	k;

			/*
			 * The batch's tuples spread over the threads as one range: a
			 * page holds far fewer tuples than the block has threads (76 of
			 * SSB's lineorder), so a page at a time left most of them idle.
			 * A bad page folds nothing: it is checked whole first.
			 *
			 * Two phases.  The first evaluates every row's outer stage and
			 * drops the rows that can have no combination (a key without a
			 * match at an INNER or SEMI depth: most rows of a star join);
			 * the second walks and folds the rest.  Done by each thread for
			 * its own rows in one go, a warp waited for its one row that
			 * found a match at every depth and folded it while the other 31
			 * threads idled; queued, the walks run side by side.
			 */
			__syncthreads();	/* the previous batch's second phase is over */
			if (tid == 0)
				s_nqueued = 0;
			for (k = 0; k < nb; k++)
			{
				int			n = xpu_page_checked_nitems(pages + (size_t) (first + k) * XPU_BLCKSZ);

				if (n < 0)
				{
					if (tid == 0)
						xpu_set_status(counters, XPU_STATUS_BAD_PAGE);
					n = 0;
				}
				nitems[k] = n;
				total += n;
			}
			for (i = tid; i < total; i += nthreads)
			{
				int			j = i;
				uint32_t	blk = first;
				const char *page;
				uint32_t	lp;
				int			res;

				for (k = 0; j >= nitems[k]; k++)
					j -= nitems[k];
				blk += k;
				page = pages + (size_t) blk * XPU_BLCKSZ;
				lp = xpu_load_u32(page + XPU_SIZE_OF_PAGE_HEADER + 4 * j);
				if (xpu_lp_flags(lp) != XPU_LP_NORMAL)
					continue;
				ntuples++;
				res = xpu_eval_tuple(&prog, page + xpu_lp_off(lp), (int32_t) xpu_lp_len(lp), slots);
				if (res == XPU_ROW_MATCH)
				{
					if (s_queue_rows)
					{
						if (!xpu_join_no_combination(&jn, inners, slots))
							s_queue[atomicAdd(&s_nqueued, 1)] =
								(uint16_t) ((k << XPU_JOIN_PREAGG_QUEUE_SHIFT) | (uint32_t) j);
						continue;
					}
					res = xpu_join_preagg_row(&prog, &jn, &pa, inners, &tab, &local, lt, slots);
				}
				xpu_preagg_emit(res, (blk << XPU_ITEM_BLOCK_SHIFT) | (uint32_t) (j + 1),
								items, counters, &nrecheck);
			}
			/* second phase: the rows that may have combinations, densely */
			__syncthreads();
			nqueued = s_nqueued;
			for (i = tid; i < (int) nqueued; i += nthreads)
			{
				uint32_t	entry = s_queue[i];
				uint32_t	blk = first + (entry >> XPU_JOIN_PREAGG_QUEUE_SHIFT);
				uint32_t	j = entry & ((1u << XPU_JOIN_PREAGG_QUEUE_SHIFT) - 1);
				const char *page = pages + (size_t) blk * XPU_BLCKSZ;
				uint32_t	lp = xpu_load_u32(page + XPU_SIZE_OF_PAGE_HEADER + 4 * j);
				int			res;

				/* the first phase found it may have combinations */
				res = xpu_eval_tuple(&prog, page + xpu_lp_off(lp), (int32_t) xpu_lp_len(lp), slots);
				if (res == XPU_ROW_MATCH)
					res = xpu_join_preagg_fold(&prog, &jn, &pa, inners, &tab, &local, lt, slots);
				xpu_preagg_emit(res, (blk << XPU_ITEM_BLOCK_SHIFT) | (j + 1),
								items, counters, &nrecheck);
			}
		}
		if (lt != NULL)
		{
			uint32_t	k;

			/* every row is folded, and every local group's creator has
			 * published its device entry */
			__syncthreads();
			for (k = tid; k < xpu_preagg_local_used(lt); k += nthreads)
				xpu_preagg_local_flush(&pa, &local, lt, k);
		}
	}
	else
		xpu_preagg_retry_pass(pages, nblocks, retry, nretry, items, counters, &ntuples, &nrecheck,
							  [&](const char *tuple, int32_t tuple_len) {
			return xpu_join_preagg_tuple(&prog, &jn, &pa, inners, &tab, &local, NULL,
										 tuple, tuple_len, slots);
		});
	xpu_preagg_add_block_counts(&s_ntuples, &s_nrecheck, ntuples, nrecheck, counters);
}

#endif							/* __CUDACC__ */

#endif							/* XPU_JOIN_PREAGG_H */
