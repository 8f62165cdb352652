/*
 * hostexec.cc
 *
 * The TEST-ONLY host executor's per-chunk work: what kern_gpuscan_block,
 * kern_gpupreagg_block, kern_gpupreagg_rehash, kern_gpujoin_build,
 * kern_gpujoin_block, kern_gpujoin_preagg and kern_gather_pages do, as serial loops over
 * the same XPU_FUNC helpers (compiled here as plain C++, where the device
 * atomics are plain memory operations).  The caller (Go) serializes the
 * calls that write one GpuPreAgg table.
 *
 * Every difference from the kernels would hide or invent a backend bug, so
 * the loops follow the kernels step by step; kernels/test/test_preagg.cu
 * runs the same helpers the same way.
 */
#include <string.h>
#include "xpu_preagg.h"
#include "xpu_gather.h"
#include "xpu_join.h"
#include "xpu_join_preagg.h"
#include "pg_strom_catalog.h"
#include "hostexec.h"

/* the first problem reported wins, as xpu_set_status */
static void
set_status(uint32_t *counters, uint32_t status)
{
	if (counters[XPU_COUNTER_STATUS] == XPU_STATUS_OK)
		counters[XPU_COUNTER_STATUS] = status;
}

static void
zero_counters(uint32_t *counters)
{
	for (int i = 0; i < XPU_COUNTER__COUNT; i++)
		counters[i] = 0;
}

/*
 * The program and the slots are per call: Go may run several chunks at
 * once on different threads.  xpu_program is 2.6kB, the slots 4kB: both
 * live on the heap rather than on a cgo call's stack.
 */
struct scan_state
{
	xpu_program prog;
	xpu_datum	slots[XPU_GPUSCAN_MAX_SLOTS];
};

struct join_state
{
	xpu_program prog;
	xpu_join	jn;
	xpu_join_inner inners[XPU_JOIN_MAX_DEPTHS];
	xpu_datum	slots[XPU_GPUSCAN_MAX_SLOTS];
};

struct join_preagg_state
{
	xpu_program prog;
	xpu_join	jn;
	xpu_preagg	pa;
	xpu_preagg_table tab;
	xpu_preagg_table local_tab;
	xpu_join_inner inners[XPU_JOIN_MAX_DEPTHS];
	XpuPreAggLocal local alignas(16);
	xpu_datum	slots[XPU_GPUSCAN_MAX_SLOTS];
};

struct preagg_state
{
	xpu_program prog;
	xpu_preagg	pa;
	xpu_preagg_table tab;
	xpu_datum	slots[XPU_GPUSCAN_MAX_SLOTS];
};

/*
 * The line pointer count of a page, checked as the kernels check it
 * (xpu_page_checked_nitems, serially); -1 for a bad page.
 */
static int
page_nitems(const char *page)
{
	int			nitems = xpu_page_nitems(page);

	if (nitems < 0)
		return -1;
	for (int i = 0; i < nitems; i++)
	{
		if (!xpu_page_lp_sane(page, i))
			return -1;
	}
	return nitems;
}

/*
 * Calls row(tuple, length, item) for every LP_NORMAL tuple of the pages
 * [first, end), in line pointer order within a page, as the kernels' one
 * block per page does; a bad page sets XPU_STATUS_BAD_PAGE and contributes
 * nothing (the other blocks of a kernel go on; the status fails the chunk).
 */
template <typename RowFn>
static void
for_each_tuple_in(const char *pages, uint32_t first, uint32_t end, uint32_t *counters,
				  RowFn row)
{
	for (uint32_t blk = first; blk < end; blk++)
	{
		const char *page = pages + (size_t) blk * XPU_BLCKSZ;
		int			nitems = page_nitems(page);

		if (nitems < 0)
		{
			set_status(counters, XPU_STATUS_BAD_PAGE);
			continue;
		}
		for (int lpi = 0; lpi < nitems; lpi++)
		{
			uint32_t	lp = xpu_load_u32(page + XPU_SIZE_OF_PAGE_HEADER + 4 * lpi);

			if (xpu_lp_flags(lp) != XPU_LP_NORMAL)
				continue;
			row(page + xpu_lp_off(lp), (int32_t) xpu_lp_len(lp),
				(blk << XPU_ITEM_BLOCK_SHIFT) | (uint32_t) (lpi + 1));
		}
	}
}

/* for_each_tuple_in over every page of the chunk */
template <typename RowFn>
static void
for_each_tuple(const char *pages, uint32_t nblocks, uint32_t *counters, RowFn row)
{
	for_each_tuple_in(pages, 0, nblocks, counters, row);
}

/*
 * Calls row(tuple, length, item) for every retry item, in order; an item
 * that names no tuple of the pages sets XPU_STATUS_BAD_PAGE (the kernel's
 * own decoding: the same items are rejected).
 */
template <typename RowFn>
static void
for_each_retry_tuple(const char *pages, uint32_t nblocks, const uint32_t *retry,
					 uint32_t nretry, uint32_t *counters, RowFn row)
{
	for (uint32_t k = 0; k < nretry; k++)
	{
		const char *tuple;
		int32_t		tuple_len;

		if (xpu_item_tuple(pages, nblocks, retry[k], &tuple, &tuple_len))
			row(tuple, tuple_len, retry[k]);
		else
			set_status(counters, XPU_STATUS_BAD_PAGE);
	}
}

/* a GpuPreAgg row's outcome, as xpu_preagg_emit: RECHECK and RETRY items */
static void
preagg_emit(int res, uint32_t item, uint32_t *items, uint32_t *counters)
{
	if (res == XPU_ROW_RECHECK)
	{
		items[counters[XPU_COUNTER_NITEMS]++] = item | XPU_ITEM_RECHECK;
		counters[XPU_COUNTER_NRECHECK]++;
	}
	else if (res == XPU_ROW_RETRY)
		items[counters[XPU_COUNTER_NITEMS]++] = item | XPU_ITEM_RETRY;
}

extern "C" void
hostexec_gpuscan(const char *session, const char *pages, uint32_t nblocks,
				 uint32_t *items, uint32_t *counters)
{
	scan_state *st = new scan_state;
	int			status;

	zero_counters(counters);
	status = xpu_program_setup_serial(session, &st->prog);
	if (status != XPU_STATUS_OK)
	{
		set_status(counters, status);
		delete st;
		return;
	}
	for_each_tuple(pages, nblocks, counters,
				   [&](const char *tuple, int32_t tuple_len, uint32_t item) {
		int			res;

		counters[XPU_COUNTER_NTUPLES]++;
		res = xpu_eval_tuple(&st->prog, tuple, tuple_len, st->slots);
		if (res == XPU_ROW_NOMATCH)
			return;
		if (res == XPU_ROW_RECHECK)
		{
			item |= XPU_ITEM_RECHECK;
			counters[XPU_COUNTER_NRECHECK]++;
		}
		items[counters[XPU_COUNTER_NITEMS]++] = item;
	});
	delete st;
}

/* one LP_NORMAL tuple of a GpuPreAgg pass */
static void
preagg_one(preagg_state *st, const char *tuple, int32_t tuple_len, uint32_t item,
		   uint32_t *items, uint32_t *counters)
{
	counters[XPU_COUNTER_NTUPLES]++;
	preagg_emit(xpu_preagg_tuple(&st->prog, &st->pa, &st->tab, tuple, tuple_len, st->slots),
				item, items, counters);
}

extern "C" void
hostexec_gpupreagg(const char *session, const char *pages, uint32_t nblocks,
				   const uint32_t *retry, uint32_t nretry, void *table,
				   uint32_t *items, uint32_t *counters)
{
	preagg_state *st = new preagg_state;
	int			status;

	zero_counters(counters);
	status = xpu_preagg_setup_serial(session, &st->prog, &st->pa);
	if (status == XPU_STATUS_OK &&
		!xpu_preagg_table_open((XpuPreAggTable *) table, st->pa.entry_size, &st->tab))
		status = XPU_STATUS_BAD_PROGRAM;
	if (status != XPU_STATUS_OK)
	{
		set_status(counters, status);
		delete st;
		return;
	}

	auto		row = [&](const char *tuple, int32_t tuple_len, uint32_t item) {
		preagg_one(st, tuple, tuple_len, item, items, counters);
	};

	if (retry == NULL)
		for_each_tuple(pages, nblocks, counters, row);
	else
		for_each_retry_tuple(pages, nblocks, retry, nretry, counters, row);
	delete st;
}

extern "C" void
hostexec_preagg_rehash(void *from, void *to)
{
	XpuPreAggTable *f = (XpuPreAggTable *) from;
	xpu_preagg_table ft;
	xpu_preagg_table tt;
	uint32_t	n;

	/* as kern_gpupreagg_rehash: the caller checks to's nentries after */
	if (!xpu_preagg_table_open(f, f->entry_size, &ft) ||
		!xpu_preagg_table_open((XpuPreAggTable *) to, f->entry_size, &tt))
		return;
	n = f->nentries < ft.capacity ? f->nentries : ft.capacity;
	for (uint32_t i = 0; i < n; i++)
		xpu_preagg_rehash_entry(&ft, &tt, i);
}

/*
 * As kern_gather_pages: each page a ref names is read by address where the
 * service process has PostgreSQL's shared buffers (shared_base), copied
 * into pages and given its ref; a ref the service should have refused is
 * never followed and its page is poisoned.
 */
extern "C" void
hostexec_gather(uint64_t shared_base, uint64_t nbuffers, const char *refs,
				uint32_t nblocks, char *pages)
{
	for (uint32_t b = 0; b < nblocks; b++)
	{
		XpuPageRef	ref;
		char	   *dst = pages + (size_t) b * XPU_BLCKSZ;

		memcpy(&ref, refs + (size_t) b * sizeof(XpuPageRef), sizeof(ref));
		if (!xpu_page_ref_valid(&ref, nbuffers))
		{
			xpu_page_poison(dst);
			continue;
		}
		memcpy(dst, (const char *) (uintptr_t) shared_base + (size_t) ref.buffer * XPU_BLCKSZ, XPU_BLCKSZ);
		xpu_apply_page_ref(dst, &ref, 0, 1);
	}
}

/*
 * As kern_gpujoin_build: link every row of one depth's buffer (buckets
 * zeroed by the caller); counters as the kernel's.
 */
extern "C" void
hostexec_gpujoin_build(const char *session, uint32_t depth, void *inner, uint32_t *counters)
{
	join_state *st = new join_state;
	int			status;

	for (int i = 0; i < XPU_JOIN_COUNTER__COUNT; i++)
		counters[i] = 0;
	/* as kern_gpujoin_build: the depths of either kind of session */
	status = xpu_join_setup_serial_kind(session, &st->prog, &st->jn,
										xpu_load_u32(session + sizeof(PgStromMsgHeader) + 4) ==
										XPU_KIND_GPUJOIN_PREAGG ?
										XPU_KIND_GPUJOIN_PREAGG : XPU_KIND_GPUJOIN);
	if (status == XPU_STATUS_OK &&
		(depth >= st->jn.ndepths ||
		 !xpu_join_inner_open((XpuJoinInner *) inner, &st->jn.depths[depth], depth, &st->inners[0])))
		status = XPU_STATUS_BAD_INNER;
	if (status != XPU_STATUS_OK)
	{
		set_status(counters, status);
		delete st;
		return;
	}
	for (uint32_t r = 0; r < st->inners[0].nrows; r++)
	{
		/* as the kernel: a fused session's payload slots are checked too */
		int			res = !xpu_join_payload_valid(&st->jn, depth, xpu_join_inner_row(&st->inners[0], r)) ? -1 :
			xpu_join_build_row(&st->jn.depths[depth], &st->inners[0], r);

		counters[XPU_COUNTER_NTUPLES]++;
		if (res > 0)
			counters[XPU_COUNTER_NITEMS]++;
		else if (res < 0)
			set_status(counters, XPU_STATUS_BAD_INNER);
	}
	delete st;
}

/* one tuple of a probe launch from its cursor, as xpu_join_kernel_tuple */
static void
join_one(join_state *st, const char *tuple, int32_t tuple_len, XpuJoinCursor *cur,
		 uint32_t *out, uint32_t capacity, XpuJoinCursor *suspend, uint32_t *counters)
{
	uint32_t	nwritten = 0;
	uint32_t	nrecheck = 0;
	int			res = xpu_join_tuple(&st->prog, &st->jn, st->inners, tuple, tuple_len,
									 st->slots, cur, out, capacity,
									 &counters[XPU_COUNTER_NITEMS], &nwritten, &nrecheck);

	if (res == XPU_JOIN_ROW_SUSPENDED)
		suspend[counters[XPU_JOIN_COUNTER_NSUSPEND]++] = *cur;
	else if (res == XPU_JOIN_ROW_BAD)
		set_status(counters, XPU_STATUS_BAD_PAGE);
	counters[XPU_COUNTER_NRECHECK] += nrecheck;
}

/*
 * As kern_gpujoin_block: over every tuple of the pages (resume NULL) or
 * over the resume cursors; inners has XPU_JOIN_MAX_DEPTHS entries, NULL
 * past the join's depths.  resume and suspend must not overlap.
 */
extern "C" void
hostexec_gpujoin(const char *session, const char *pages, uint32_t nblocks,
				 const void *resume, uint32_t nresume, void *const *inners,
				 uint32_t *out, uint32_t capacity, void *suspend, uint32_t *counters)
{
	join_state *st = new join_state;
	int			status;
	XpuJoinCursor *susp = (XpuJoinCursor *) suspend;

	for (int i = 0; i < XPU_JOIN_COUNTER__COUNT; i++)
		counters[i] = 0;
	status = xpu_join_setup_serial(session, &st->prog, &st->jn);
	if (status == XPU_STATUS_OK)
		status = xpu_join_inners_open(&st->jn, (XpuJoinInner *const *) inners, st->inners);
	if (status != XPU_STATUS_OK)
	{
		set_status(counters, status);
		delete st;
		return;
	}
	if (resume == NULL)
		for_each_tuple(pages, nblocks, counters,
					   [&](const char *tuple, int32_t tuple_len, uint32_t item) {
			XpuJoinCursor cur;

			counters[XPU_COUNTER_NTUPLES]++;
			xpu_join_cursor_init(&cur, item);
			join_one(st, tuple, tuple_len, &cur, out, capacity, susp, counters);
		});
	else
	{
		for (uint32_t k = 0; k < nresume; k++)
		{
			XpuJoinCursor cur;
			const char *tuple;
			int32_t		tuple_len;

			memcpy(&cur, (const char *) resume + (size_t) k * sizeof(cur), sizeof(cur));
			if (xpu_item_tuple(pages, nblocks, cur.item, &tuple, &tuple_len))
				join_one(st, tuple, tuple_len, &cur, out, capacity, susp, counters);
			else
				set_status(counters, XPU_STATUS_BAD_PAGE);
		}
	}
	delete st;
}

/* one outer tuple of a fused pass */
static void
join_preagg_one(join_preagg_state *st, const xpu_preagg_table *lt, const char *tuple,
				int32_t tuple_len, uint32_t item, uint32_t *items, uint32_t *counters)
{
	counters[XPU_COUNTER_NTUPLES]++;
	preagg_emit(xpu_join_preagg_tuple(&st->prog, &st->jn, &st->pa, st->inners, &st->tab,
									  &st->local, lt, tuple, tuple_len, st->slots),
				item, items, counters);
}

/*
 * As kern_gpujoin_preagg: a first pass (retry NULL) over batches of
 * XPU_PREAGG_BATCH_PAGES pages, each with a fresh block-local table
 * flushed into the device table at the batch's end (one kernel block's
 * work), or a retry pass over the retry items without a local table.
 * inners has XPU_JOIN_MAX_DEPTHS entries, NULL past the join's depths.
 */
extern "C" void
hostexec_gpujoin_preagg(const char *session, const char *pages, uint32_t nblocks,
						const uint32_t *retry, uint32_t nretry, void *table,
						void *const *inners, uint32_t *items, uint32_t *counters)
{
	join_preagg_state *st = new join_preagg_state;
	int			status;

	zero_counters(counters);
	status = xpu_join_preagg_setup_serial(session, &st->prog, &st->jn, &st->pa);
	if (status == XPU_STATUS_OK &&
		!xpu_preagg_table_open((XpuPreAggTable *) table, st->pa.entry_size, &st->tab))
		status = XPU_STATUS_BAD_PROGRAM;
	if (status == XPU_STATUS_OK)
		status = xpu_join_inners_open(&st->jn, (XpuJoinInner *const *) inners, st->inners);
	if (status != XPU_STATUS_OK)
	{
		set_status(counters, status);
		delete st;
		return;
	}
	if (retry == NULL)
	{
		for (uint32_t b0 = 0; b0 < nblocks; b0 += XPU_PREAGG_BATCH_PAGES)
		{
			uint32_t	bend = nblocks - b0 < XPU_PREAGG_BATCH_PAGES ? nblocks : b0 + XPU_PREAGG_BATCH_PAGES;
			bool		use_local = xpu_preagg_local_open(&st->local, st->pa.entry_size, &st->local_tab);
			const xpu_preagg_table *lt = use_local ? &st->local_tab : NULL;

			xpu_join_preagg_local_reset(&st->local);
			for_each_tuple_in(pages, b0, bend, counters,
							  [&](const char *tuple, int32_t tuple_len, uint32_t item) {
				join_preagg_one(st, lt, tuple, tuple_len, item, items, counters);
			});
			if (lt != NULL)
				for (uint32_t k = 0; k < xpu_preagg_local_used(lt); k++)
					xpu_preagg_local_flush(&st->pa, &st->local, lt, k);
		}
	}
	else
		for_each_retry_tuple(pages, nblocks, retry, nretry, counters,
							 [&](const char *tuple, int32_t tuple_len, uint32_t item) {
			join_preagg_one(st, NULL, tuple, tuple_len, item, items, counters);
		});
	delete st;
}

/* xpu_join_inner_layout, for the test that Go lays buffers out alike */
extern "C" uint64_t
hostexec_join_inner_layout(void *hdr, uint32_t depth, uint32_t nrows,
						   uint32_t row_size, uint32_t nbuckets)
{
	return xpu_join_inner_layout((XpuJoinInner *) hdr, depth, nrows, row_size, nbuckets);
}

extern "C" const char *
hostexec_catalog(void)
{
	return PGSTROM_KERNEL_CATALOG "; gpupreagg (TEST-ONLY host executor: host code, no GPU)";
}
