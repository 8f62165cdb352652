/*
 * fuzz_kernels.cc
 *
 * libFuzzer harness over the kernels' host-compiled code, driven exactly as
 * the TEST-ONLY host executor drives it: the entry points of
 * gosvc/hostexec/hostexec.cc (linked in unchanged) validate the session
 * program with the kernels' own validator, walk the pages' line pointers
 * and tuples, evaluate the qual and, for a GpuPreAgg session, accumulate
 * into a hash table that is grown (rehash) and retried as the service does,
 * and for a GpuJoin session build each depth's inner buffer and run the
 * probe's launch loop over small outputs, resuming suspended cursors (one
 * of them corrupted when the flags say so) as gosvc/join does; for a fused
 * GpuJoin + GpuPreAgg session build the depths the same way and
 * accumulate as for GpuPreAgg with the fused kernel code.
 *
 * Input (see split_input): one flags byte, a little-endian uint32 session
 * length L, L bytes of OpenSession message, then either the pages of an
 * inline chunk or, with FLAG_SHARED, page refs followed by the "shared
 * buffers" they index (the zero-copy path through hostexec_gather).  A
 * GpuJoin or fused session takes its inner rows from the start of what
 * follows the session (JOIN_ROWS rows a depth, row_size bytes each, zero-filled past
 * the input), the pages from the rest.
 *
 * Only what the service itself guarantees before the kernel code runs is
 * imposed here (the message is exactly as long as its header says, and
 * holds at least the fixed session part; a chunk has 1..XPU_MAX_BLOCKS
 * whole pages; a table is laid out by xpu.NewPreAggTable's rules): anything
 * the kernel reads beyond that must be checked by the kernel, so a sanitizer
 * report here is a kernel bug.  Every buffer is its own heap allocation of
 * the exact size, so AddressSanitizer sees any read past it.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "xpu_preagg.h"
#include "xpu_gather.h"
#include "xpu_join.h"
#include "xpu_join_preagg.h"
#include "hostexec.h"

/* input layout */
#define FLAG_SHARED		0x01	/* pages come through page refs (gather) */
#define FLAG_SLOTS_SHIFT 1		/* bits 1-3: initial table slots 2 << n */
#define FUZZ_MAX_BLOCKS	4		/* more pages add time, not code paths */
#define FUZZ_MAX_PASSES	8		/* preagg grow-and-retry rounds */
#define FLAG_JOIN_CAP_SHIFT 4	/* bits 4-6: join output capacity 1 + n */
#define FLAG_JOIN_TAMPER 0x80	/* corrupt a suspended cursor before resuming */
#define JOIN_ROWS		8		/* inner rows of each depth */
#define FUZZ_MAX_LAUNCHES 4096	/* the launch loop's bound in the fuzzer */

/* the service's SessionEnd: header plus the fixed XpuSession part */
static const size_t SESSION_END = sizeof(PgStromMsgHeader) + sizeof(XpuSession);

/* a failed invariant the service checks after the kernel: a real bug */
#define FUZZ_ASSERT(c) do { if (!(c)) __builtin_trap(); } while (0)

static uint32_t
load_u32(const uint8_t *p)
{
	uint32_t	v;

	memcpy(&v, p, 4);
	return v;
}

/* an exact-size heap copy, so ASan flags any read past the end */
static char *
dup_exact(const uint8_t *p, size_t n)
{
	char	   *b = (char *) malloc(n ? n : 1);

	if (n)
		memcpy(b, p, n);
	return b;
}

/* xpu.NewPreAggTable: 256-byte aligned slots then entries, capacity nslots/2 */
static char *
new_table(uint32_t nslots, uint32_t entry_size, size_t *bytes)
{
	XpuPreAggTable h;
	uint64_t	slots_off = (sizeof(XpuPreAggTable) + 255) / 256 * 256;
	uint64_t	entries_off = (slots_off + 4 * (uint64_t) nslots + 255) / 256 * 256;
	char	   *t;

	memset(&h, 0, sizeof(h));
	h.nslots = nslots;
	h.capacity = nslots / 2;
	h.entry_size = entry_size;
	h.slots_offset = slots_off;
	h.entries_offset = entries_off;
	*bytes = entries_off + (uint64_t) h.capacity * entry_size;
	t = (char *) calloc(1, *bytes);
	memcpy(t, &h, sizeof(h));
	return t;
}

/* the items a kernel reported, checked as task.collect does */
static uint32_t
nitems_checked(const uint32_t *counters, uint32_t cap)
{
	uint32_t	n = counters[XPU_COUNTER_NITEMS];

	FUZZ_ASSERT(n <= cap);
	return n;
}

/* every item names a line pointer of a page of the chunk */
static void
check_item(uint32_t it, uint32_t nblocks)
{
	uint32_t	blk = (it & ~(XPU_ITEM_RECHECK | XPU_ITEM_RETRY)) >> XPU_ITEM_BLOCK_SHIFT;
	uint32_t	lpn = it & XPU_ITEM_OFFSET_MASK;

	FUZZ_ASSERT(blk < nblocks);
	FUZZ_ASSERT(lpn >= 1 && lpn <= XPU_MAX_TUPLES_PER_PAGE);
}

static void
run_scan(const char *session, const char *pages, uint32_t nblocks)
{
	uint32_t	cap = nblocks * XPU_MAX_TUPLES_PER_PAGE;
	uint32_t   *items = (uint32_t *) malloc(4 * cap);
	uint32_t	counters[XPU_COUNTER__COUNT];

	hostexec_gpuscan(session, pages, nblocks, items, counters);
	if (counters[XPU_COUNTER_STATUS] == XPU_STATUS_OK)
	{
		uint32_t	n = nitems_checked(counters, cap);

		for (uint32_t i = 0; i < n; i++)
		{
			check_item(items[i], nblocks);
			FUZZ_ASSERT((items[i] & XPU_ITEM_RETRY) == 0);
		}
		FUZZ_ASSERT(counters[XPU_COUNTER_NRECHECK] <= n);
	}
	free(items);
}

/*
 * preagg.Session.Accumulate over one chunk: a pass over every page, then,
 * while rows report RETRY, grow the table (xpu.PreAggSlotsFor, rehash,
 * the new table's nentries checked against its capacity) and run the
 * retry items alone.  pass(retry, nretry, table, items, counters) is the
 * kernel of GpuPreAgg's contract (GpuPreAgg's, or the fused one's).
 */
template <typename PassFn>
static void
accumulate(uint32_t nblocks, uint32_t nslots, uint32_t entry_size, PassFn pass)
{
	uint32_t	cap = nblocks * XPU_MAX_TUPLES_PER_PAGE;
	uint32_t   *items = (uint32_t *) malloc(4 * cap);
	uint32_t   *retry = (uint32_t *) malloc(4 * cap);
	uint32_t	nretry = 0;
	uint32_t	counters[XPU_COUNTER__COUNT];
	size_t		tbytes;
	char	   *table = new_table(nslots, entry_size, &tbytes);

	for (int pass_no = 0; pass_no < FUZZ_MAX_PASSES; pass_no++)
	{
		uint32_t	n;
		uint32_t	next = 0;

		pass(pass_no == 0 ? NULL : retry, nretry, table, items, counters);
		if (counters[XPU_COUNTER_STATUS] != XPU_STATUS_OK)
			break;
		n = nitems_checked(counters, cap);
		for (uint32_t i = 0; i < n; i++)
		{
			uint32_t	it = items[i];

			check_item(it, nblocks);
			/* exactly one of RECHECK and RETRY, as the service insists */
			FUZZ_ASSERT(((it & XPU_ITEM_RECHECK) != 0) != ((it & XPU_ITEM_RETRY) != 0));
			if (it & XPU_ITEM_RETRY)
				retry[next++] = it & ~XPU_ITEM_RETRY;
		}
		nretry = next;
		if (nretry == 0)
			break;

		/* grow: at least twice the slots and room for every entry asked for */
		{
			XpuPreAggTable *old = (XpuPreAggTable *) table;
			uint64_t	want = 2 * (uint64_t) (old->nslots > old->nentries ? old->nslots : old->nentries);
			uint32_t	ns = 2;
			size_t		nb;
			char	   *nt;

			if (want > (1u << 24))
				break;			/* xpu.PreAggMaxSlots is far above what a chunk needs */
			while (ns < want)
				ns <<= 1;
			nt = new_table(ns, old->entry_size, &nb);
			if ((old->nentries < old->capacity ? old->nentries : old->capacity) > 0)
				hostexec_preagg_rehash(table, nt);
			FUZZ_ASSERT(((XpuPreAggTable *) nt)->nentries <= ((XpuPreAggTable *) nt)->capacity);
			free(table);
			table = nt;
			tbytes = nb;
		}
	}
	(void) tbytes;
	free(table);
	free(items);
	free(retry);
}

static void
run_preagg(const char *session, const char *pages, uint32_t nblocks, uint32_t nslots)
{
	xpu_program *prog = new xpu_program;
	xpu_preagg *pa = new xpu_preagg;
	uint32_t	entry_size = 16;

	/*
	 * The service learns the entry size from its own parse of the session;
	 * a session the kernel's validator rejects still gets a table (of the
	 * smallest entries) and must be rejected by the kernel code.
	 */
	if (xpu_preagg_setup_serial(session, prog, pa) == XPU_STATUS_OK)
		entry_size = pa->entry_size;
	delete prog;
	delete pa;
	accumulate(nblocks, nslots, entry_size,
			   [&](const uint32_t *retry, uint32_t nretry, char *table, uint32_t *items, uint32_t *counters) {
		hostexec_gpupreagg(session, pages, nblocks, retry, nretry, table, items, counters);
	});
}

/* one depth's inner buffer as gosvc/join lays it out and fills it */
static char *
new_inner(uint32_t depth, uint32_t row_size, const uint8_t **rest, size_t *nrest)
{
	XpuJoinInner h;
	uint32_t	nbuckets = 1;
	uint64_t	bytes;
	size_t		want = (size_t) JOIN_ROWS * row_size;
	size_t		take;
	char	   *b;

	while (nbuckets < JOIN_ROWS)
		nbuckets <<= 1;
	bytes = xpu_join_inner_layout(&h, depth, JOIN_ROWS, row_size, nbuckets);
	b = (char *) calloc(1, bytes);
	memcpy(b, &h, sizeof(h));
	take = *nrest < want ? *nrest : want;
	memcpy(b + h.rows_offset, *rest, take);
	*rest += take;
	*nrest -= take;
	return b;
}

/*
 * Every depth's buffer from the input and built, as gosvc/join loads it;
 * false when a build failed (the service drops the load and the chunk
 * never runs).
 */
static bool
build_inners(const char *session, uint32_t ndepths, const uint32_t *row_size,
			 const uint8_t **rest, size_t *nrest, char **inners)
{
	uint32_t	counters[XPU_JOIN_COUNTER__COUNT];
	bool		built = true;

	for (uint32_t d = 0; d < ndepths; d++)
	{
		inners[d] = new_inner(d, row_size[d], rest, nrest);
		hostexec_gpujoin_build(session, d, inners[d], counters);
		if (counters[XPU_COUNTER_STATUS] != XPU_STATUS_OK)
			built = false;
		else
			FUZZ_ASSERT(counters[XPU_COUNTER_NTUPLES] == JOIN_ROWS &&
						counters[XPU_COUNTER_NITEMS] <= JOIN_ROWS);
	}
	return built;
}

/* an inline chunk: 1..FUZZ_MAX_BLOCKS whole pages, the last zero-filled */
static char *
inline_pages(const uint8_t *rest, size_t nrest, uint32_t *nblocks)
{
	char	   *pages;

	*nblocks = (nrest + XPU_BLCKSZ - 1) / XPU_BLCKSZ;
	if (*nblocks == 0)
		*nblocks = 1;
	if (*nblocks > FUZZ_MAX_BLOCKS)
		*nblocks = FUZZ_MAX_BLOCKS;
	pages = (char *) calloc(*nblocks, XPU_BLCKSZ);
	memcpy(pages, rest, nrest < (size_t) *nblocks * XPU_BLCKSZ ? nrest : (size_t) *nblocks * XPU_BLCKSZ);
	return pages;
}

/*
 * A chunk of GpuPreAgg fused over GpuJoin as gosvc/joinpreagg runs it:
 * the depths built as GpuJoin's, then GpuPreAgg's passes (grow, retry)
 * with the fused kernel over them.
 */
static void
run_join_preagg(const char *session, const uint8_t *rest, size_t nrest, uint32_t nslots)
{
	xpu_program *prog = new xpu_program;
	xpu_join   *jn = new xpu_join;
	xpu_preagg *pa = new xpu_preagg;
	uint32_t	ndepths = 1;
	uint32_t	row_size[XPU_JOIN_MAX_DEPTHS] = {16, 16, 16, 16};
	char	   *inners[XPU_JOIN_MAX_DEPTHS] = {NULL, NULL, NULL, NULL};
	uint32_t	entry_size = 16;
	uint32_t	nblocks;
	char	   *pages;

	if (xpu_join_preagg_setup_serial(session, prog, jn, pa) == XPU_STATUS_OK)
	{
		ndepths = jn->ndepths;
		for (uint32_t d = 0; d < ndepths; d++)
			row_size[d] = jn->depths[d].row_size;
		entry_size = pa->entry_size;
	}
	delete prog;
	delete jn;
	delete pa;
	if (build_inners(session, ndepths, row_size, &rest, &nrest, inners))
	{
		pages = inline_pages(rest, nrest, &nblocks);
		accumulate(nblocks, nslots, entry_size,
				   [&](const uint32_t *retry, uint32_t nretry, char *table, uint32_t *items, uint32_t *counters) {
			hostexec_gpujoin_preagg(session, pages, nblocks, retry, nretry, table,
									(void *const *) inners, items, counters);
		});
		free(pages);
	}
	for (uint32_t d = 0; d < ndepths; d++)
		free(inners[d]);
}

/*
 * A GpuJoin chunk as gosvc/join runs it: each depth built (a bad row ends
 * the chunk, as the service drops the load), then launches over the pages
 * and over each launch's suspended cursors until none is left, every
 * record checked as the backend would rely on it.
 */
static void
run_join(const char *session, const uint8_t *rest, size_t nrest, uint8_t flags)
{
	xpu_program *prog = new xpu_program;
	xpu_join   *jn = new xpu_join;
	uint32_t	ndepths = 1;
	uint32_t	row_size[XPU_JOIN_MAX_DEPTHS] = {16, 16, 16, 16};
	char	   *inners[XPU_JOIN_MAX_DEPTHS] = {NULL, NULL, NULL, NULL};
	uint32_t	counters[XPU_JOIN_COUNTER__COUNT];
	uint32_t	capacity = 1 + ((flags >> FLAG_JOIN_CAP_SHIFT) & 7);
	bool		built;
	char	   *pages;
	uint32_t	nblocks;

	/* the service lays buffers out from its own parse of the descriptor */
	if (xpu_join_setup_serial(session, prog, jn) == XPU_STATUS_OK)
	{
		ndepths = jn->ndepths;
		for (uint32_t d = 0; d < ndepths; d++)
			row_size[d] = jn->depths[d].row_size;
	}
	delete prog;
	delete jn;
	built = build_inners(session, ndepths, row_size, &rest, &nrest, inners);
	pages = inline_pages(rest, nrest, &nblocks);

	if (built)
	{
		uint32_t	stride = 1 + ndepths;
		size_t		ncur = (size_t) nblocks * XPU_MAX_TUPLES_PER_PAGE;
		uint32_t   *out = (uint32_t *) malloc(4 * (size_t) capacity * stride);
		XpuJoinCursor *resume = (XpuJoinCursor *) malloc(ncur * sizeof(XpuJoinCursor));
		XpuJoinCursor *suspend = (XpuJoinCursor *) malloc(ncur * sizeof(XpuJoinCursor));
		uint32_t	nresume = 0;

		for (int launch = 0; launch < FUZZ_MAX_LAUNCHES; launch++)
		{
			uint32_t	n;

			hostexec_gpujoin(session, pages, nblocks, launch == 0 ? NULL : resume, nresume,
							 (void *const *) inners, out, capacity, suspend, counters);
			if (counters[XPU_COUNTER_STATUS] != XPU_STATUS_OK)
				break;
			n = counters[XPU_COUNTER_NITEMS] < capacity ? counters[XPU_COUNTER_NITEMS] : capacity;
			FUZZ_ASSERT(counters[XPU_JOIN_COUNTER_NSUSPEND] <= ncur);
			/* a row suspends only on a full output: every launch progresses */
			FUZZ_ASSERT(counters[XPU_JOIN_COUNTER_NSUSPEND] == 0 || n == capacity);
			for (uint32_t k = 0; k < n; k++)
			{
				const uint32_t *rec = out + (size_t) k * stride;

				check_item(rec[0], nblocks);
				for (uint32_t d = 0; d < ndepths; d++)
					FUZZ_ASSERT(rec[1 + d] == XPU_JOIN_NO_INNER ||
								((rec[0] & XPU_ITEM_RECHECK) == 0 && rec[1 + d] < JOIN_ROWS));
			}
			nresume = counters[XPU_JOIN_COUNTER_NSUSPEND];
			if (nresume == 0)
				break;
			/* the suspend list becomes the next resume list */
			{
				XpuJoinCursor *t = resume;

				resume = suspend;
				suspend = t;
			}
			if ((flags & FLAG_JOIN_TAMPER) && launch == 0)
			{
				/* a cursor that came back altered must be refused, not followed */
				resume[0].pos[nresume % XPU_JOIN_MAX_DEPTHS] ^= 1u << (nresume % 32);
				resume[nresume - 1].state ^= (uint32_t) nresume;
			}
		}
		free(out);
		free(resume);
		free(suspend);
	}
	for (uint32_t d = 0; d < ndepths; d++)
		free(inners[d]);
	free(pages);
}

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t		flags;
	uint32_t	slen;
	char	   *session;
	const uint8_t *rest;
	size_t		nrest;
	char	   *pages;
	uint32_t	nblocks;

	if (size < 5)
		return 0;
	flags = data[0];
	slen = load_u32(data + 1);
	if (slen < SESSION_END || slen > size - 5)
		return -1;				/* not a message the service would pass on */
	session = dup_exact(data + 5, slen);
	/* protocol.ReadMessage framed it: its header length is its length */
	memcpy(session + offsetof(PgStromMsgHeader, length), &slen, 4);
	rest = data + 5 + slen;
	nrest = size - 5 - slen;

	if (load_u32((const uint8_t *) session + sizeof(PgStromMsgHeader) + 4) == XPU_KIND_GPUJOIN)
	{
		run_join(session, rest, nrest, flags);
		free(session);
		return 0;
	}
	if (load_u32((const uint8_t *) session + sizeof(PgStromMsgHeader) + 4) == XPU_KIND_GPUJOIN_PREAGG)
	{
		run_join_preagg(session, rest, nrest, 2u << ((flags >> FLAG_SLOTS_SHIFT) & 7));
		free(session);
		return 0;
	}
	if (flags & FLAG_SHARED)
	{
		/*
		 * Zero-copy: nrefs refs, then the shared buffers they index; refs
		 * the service would refuse are also given (the gather code poisons
		 * their pages rather than following them).
		 */
		uint32_t	nrefs = nrest / (sizeof(XpuPageRef) + 1);
		char	   *refs;
		char	   *shared;
		uint64_t	nbuffers;
		size_t		sbytes;

		if (nrefs == 0)
		{
			free(session);
			return 0;
		}
		nblocks = nrefs > FUZZ_MAX_BLOCKS ? FUZZ_MAX_BLOCKS : nrefs;
		refs = dup_exact(rest, nblocks * sizeof(XpuPageRef));
		rest += nblocks * sizeof(XpuPageRef);
		nrest -= nblocks * sizeof(XpuPageRef);
		nbuffers = (nrest + XPU_BLCKSZ - 1) / XPU_BLCKSZ;
		if (nbuffers == 0)
			nbuffers = 1;
		if (nbuffers > FUZZ_MAX_BLOCKS)
			nbuffers = FUZZ_MAX_BLOCKS;
		sbytes = nbuffers * XPU_BLCKSZ;
		shared = (char *) calloc(1, sbytes);
		memcpy(shared, rest, nrest < sbytes ? nrest : sbytes);
		pages = (char *) malloc((size_t) nblocks * XPU_BLCKSZ);
		hostexec_gather((uint64_t) (uintptr_t) shared, nbuffers, refs, nblocks, pages);
		free(refs);
		free(shared);
	}
	else
		pages = inline_pages(rest, nrest, &nblocks);

	/* the node kind registry dispatches on the session's kind */
	if (load_u32((const uint8_t *) session + sizeof(PgStromMsgHeader) + 4) == XPU_KIND_GPUPREAGG)
		run_preagg(session, pages, nblocks, 2u << ((flags >> FLAG_SLOTS_SHIFT) & 7));
	else
		run_scan(session, pages, nblocks);

	free(pages);
	free(session);
	return 0;
}
