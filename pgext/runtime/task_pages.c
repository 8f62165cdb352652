/*-------------------------------------------------------------------------
 *
 * task_pages.c
 *		One heap page into a chunk, with MVCC resolved on the CPU.
 *
 * Pages are read through the buffer manager with a bulk-read strategy.
 * Visibility is decided under a share lock exactly as heapgetpage() does
 * it for a sequential scan: when the page is all-visible (and the snapshot
 * was not taken during recovery) every LP_NORMAL tuple is visible;
 * otherwise every LP_NORMAL tuple is tested against the snapshot.
 * Serializable conflicts are checked for every tuple, as heapgetpage()
 * does.  A page without a visible tuple does not enter the chunk.
 *
 * Zero-copy: the page stays where it is, pinned until the chunk is
 * released, and the chunk records in an XpuPageRef how many line pointers
 * were examined and which tuples are visible; the device applies that to
 * its own copy, and the rows are formed from the pinned buffer.  A pin
 * keeps the tuples in place (pruning needs a cleanup lock), so what the
 * ref describes stays true while the page is pinned.  A page that cannot
 * change under the pin in a way that matters (see page_stays_all_visible)
 * is not read past its header here: its ref says "every LP_NORMAL" and the
 * device checks the line pointers; the CPU checks them only where it reads
 * tuples, or when the device reports a malformed page
 * (gpu_task_check_chunk_pages).
 *
 * Copy: the page is copied under the lock and the line pointers of
 * invisible tuples are set LP_UNUSED in the copy, so neither the GPU nor
 * the CPU path ever sees them.
 *
 * Direct read: the chunk names blocks the service read from the files;
 * when the backend needs one of their pages (to form the rows the device
 * returned, or to evaluate the chunk on the CPU) it pins it as zero-copy
 * does, one page of the chunk at a time (the items of one block are
 * contiguous, and a slot's tuple is not used past the next row).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/xact.h"
#include "storage/bufmgr.h"
#include "storage/predicate.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "runtime/gpu_task.h"

StaticAssertDecl(XPU_PAGE_VISIBLE_WORDS * 32 >= MaxHeapTuplesPerPage,
				 "XpuPageRef.visible cannot hold every line pointer");
StaticAssertDecl(XPU_MAX_TUPLES_PER_PAGE == MaxHeapTuplesPerPage,
				 "the kernels' tuples per page differ from PostgreSQL's");

static inline void
ref_set_visible(XpuPageRef *ref, OffsetNumber off)
{
	ref->visible[(off - 1) / 32] |= (uint32) 1 << ((off - 1) % 32);
}

static inline bool
ref_is_visible(const XpuPageRef *ref, OffsetNumber off)
{
	return (ref->visible[(off - 1) / 32] & ((uint32) 1 << ((off - 1) % 32))) != 0;
}

/*
 * PostgreSQL checks a page's header when it reads the page, not its line
 * pointers.  One that points outside the page would make the device reject
 * the whole chunk, and the CPU path read whatever lies beyond: it is data
 * corruption, and is reported as such, naming the relation and block, before
 * anything reads the tuple.
 */
static void
check_line_pointer(GpuTaskState *gts, Page page, BlockNumber blkno,
				   OffsetNumber lineoff)
{
	ItemId		lpp = PageGetItemId(page, lineoff);

	if (ItemIdGetOffset(lpp) < SizeOfPageHeaderData ||
		ItemIdGetLength(lpp) < SizeofHeapTupleHeader ||
		ItemIdGetOffset(lpp) + ItemIdGetLength(lpp) > BLCKSZ)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid line pointer %u in block %u of relation \"%s\"",
						(unsigned) lineoff, blkno, RelationGetRelationName(gts->rel)),
				 errdetail("Tuple offset %u and length %u do not fit in the page.",
						   (unsigned) ItemIdGetOffset(lpp),
						   (unsigned) ItemIdGetLength(lpp))));
}

/*
 * Reads and share-locks block blkno; returns the buffer, with *lines and
 * *all_visible as heapgetpage() sees them.
 */
static Buffer
lock_page(GpuTaskState *gts, BlockNumber blkno, OffsetNumber *lines,
		  bool *all_visible)
{
	Buffer		buffer;
	Page		page;

	buffer = ReadBufferExtended(gts->rel, MAIN_FORKNUM, blkno, RBM_NORMAL,
								gts->strategy);
	/* as heapgetpage(): opportunistic pruning before taking the lock */
	heap_page_prune_opt(gts->rel, buffer);
	LockBuffer(buffer, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buffer);
	PgStromTestForOldSnapshot(gts->snapshot, gts->rel, page);
	*lines = PageGetMaxOffsetNumber(page);
	*all_visible = PageIsAllVisible(page) && !gts->snapshot->takenDuringRecovery;
	return buffer;
}

/*
 * Whether the tuple at lineoff of the locked page is visible to the scan,
 * with the serializable conflict check heapgetpage() makes for each tuple.
 */
static bool
tuple_visible(GpuTaskState *gts, Buffer buffer, Page page, BlockNumber blkno,
			  OffsetNumber lineoff, bool all_visible)
{
	ItemId		lpp = PageGetItemId(page, lineoff);
	HeapTupleData loctup;
	bool		valid;

	loctup.t_tableOid = RelationGetRelid(gts->rel);
	loctup.t_data = (HeapTupleHeader) PageGetItem(page, lpp);
	loctup.t_len = ItemIdGetLength(lpp);
	ItemPointerSet(&loctup.t_self, blkno, lineoff);
	valid = all_visible ||
		HeapTupleSatisfiesVisibility(&loctup, gts->snapshot, buffer);
	HeapCheckForSerializableConflictOut(valid, gts->rel, &loctup, buffer,
										gts->snapshot);
	return valid;
}

/*
 * Decides which tuples of the locked page are visible to the scan, among
 * the first lines line pointers: each visible one is named in ref (when
 * given), each invisible LP_NORMAL one is made LP_UNUSED in copy (when
 * given).  Returns the number of visible tuples.
 */
static int
mark_visible(GpuTaskState *gts, Buffer buffer, BlockNumber blkno,
			 OffsetNumber lines, bool all_visible, XpuPageRef *ref, Page copy)
{
	Page		page = BufferGetPage(buffer);
	OffsetNumber lineoff;
	int			nvisible = 0;

	for (lineoff = FirstOffsetNumber; lineoff <= lines; lineoff++)
	{
		if (!ItemIdIsNormal(PageGetItemId(page, lineoff)))
			continue;
		check_line_pointer(gts, page, blkno, lineoff);
		/* outside SERIALIZABLE an all-visible page needs no per-tuple check */
		if ((all_visible && !IsolationIsSerializable()) ||
			tuple_visible(gts, buffer, page, blkno, lineoff, all_visible))
		{
			nvisible++;
			if (ref)
				ref_set_visible(ref, lineoff);
		}
		else if (copy)
			ItemIdSetUnused(PageGetItemId(copy, lineoff));
	}
	return nvisible;
}

/*
 * Whether every LP_NORMAL tuple among the first lines line pointers of the
 * share-locked page is visible to the scan, and stays the only tuples there
 * while the page is only pinned, so that the ref need not name them (and
 * the CPU need not read the line pointer array at all: on a prewarmed table
 * that first touch of each page was most of the backend's time per page).
 *
 * All-visible (outside SERIALIZABLE, where each tuple needs its conflict
 * check) makes every LP_NORMAL visible now.  What could add an LP_NORMAL
 * below lines while the lock is off is an insert reusing an LP_UNUSED one;
 * PageAddItem looks for those only when PD_HAS_FREE_LINES is set, so it
 * must be clear.  Nothing can set it meanwhile: pruning needs a cleanup
 * lock, which the pin blocks, and VACUUM's second pass only turns LP_DEAD
 * into LP_UNUSED, while an all-visible page has no LP_DEAD item and none
 * can appear without pruning.  An LP_NORMAL stays LP_NORMAL for the same
 * reason, and a tuple deleted or updated meanwhile was still visible to the
 * scan's snapshot.
 */
static bool
page_stays_all_visible(Page page, OffsetNumber lines, bool all_visible)
{
	return all_visible && !IsolationIsSerializable() &&
		!PageHasFreeLinePointers(page) && lines >= FirstOffsetNumber;
}

/*
 * Pins block blkno into the chunk's next slot and records its ref, stamped
 * when the block has a page cache stamp and the ref is all-visible.  False
 * (pin released, chunk unchanged) when the page has no visible tuple.
 */
static bool
pin_page(GpuTaskState *gts, GpuTaskChunk *chunk, BlockNumber blkno,
		 uint64 stamp)
{
	XpuPageRef *ref = &chunk->refs[chunk->nblocks];
	OffsetNumber lines;
	bool		all_visible;
	int			nvisible;
	Buffer		buffer = lock_page(gts, blkno, &lines, &all_visible);

	/*
	 * The visible tuples are named one by one even on an all-visible page:
	 * while the page is only pinned, an insert may reuse an unused line
	 * pointer below nlines (and clear PD_ALL_VISIBLE), and that tuple must
	 * not be taken for one of ours.  heapgetpage() keeps a list of offsets
	 * for the same reason.
	 */
	Assert(!BufferIsLocal(buffer));
	memset(ref, 0, sizeof(XpuPageRef));
	ref->buffer = (uint32) (buffer - 1);
	ref->nlines = lines;
	ref->flags = 0;
	if (page_stays_all_visible(BufferGetPage(buffer), lines, all_visible))
	{
		/* the device's own line pointer checks replace mark_visible's */
		ref->flags = XPU_PAGE_ALL_VISIBLE;
		nvisible = lines;
		if (stamp != 0)
			gpu_task_stamp_ref(gts, ref, blkno, stamp);
	}
	else
		nvisible = mark_visible(gts, buffer, blkno, lines, all_visible, ref, NULL);
	LockBuffer(buffer, BUFFER_LOCK_UNLOCK);
	gts->counters.npages++;
	if (nvisible == 0)
	{
		ReleaseBuffer(buffer);
		return false;
	}
	chunk->buffers[chunk->nblocks] = buffer;
	chunk->blknos[chunk->nblocks++] = blkno;
	gts->counters.npages_zero_copy++;
	return true;
}

/*
 * Copies block blkno into the chunk's next page slot, with invisible
 * tuples removed.  False (chunk unchanged) when the page has no visible
 * tuple.
 */
static bool
copy_page(GpuTaskState *gts, GpuTaskChunk *chunk, BlockNumber blkno)
{
	Page		copy = (Page) (chunk->pages + (Size) chunk->nblocks * BLCKSZ);
	OffsetNumber lines;
	bool		all_visible;
	int			nvisible;
	Buffer		buffer = lock_page(gts, blkno, &lines, &all_visible);

	/*
	 * Copy, then decide visibility on the shared page (where hint bits may
	 * be set) and remove the invisible tuples from the copy.
	 */
	memcpy(copy, BufferGetPage(buffer), BLCKSZ);
	nvisible = mark_visible(gts, buffer, blkno, lines, all_visible, NULL, copy);
	UnlockReleaseBuffer(buffer);
	gts->counters.npages++;
	if (nvisible == 0)
		return false;
	chunk->blknos[chunk->nblocks++] = blkno;
	return true;
}

/*
 * Puts block blkno into the chunk being filled with pages; stamp is its
 * page cache stamp, 0 when it has none (a copied page is never cached).
 */
bool
gpu_task_load_page(GpuTaskState *gts, GpuTaskChunk *chunk, BlockNumber blkno,
				   uint64 stamp)
{
	return chunk->zero_copy ? pin_page(gts, chunk, blkno, stamp)
		: copy_page(gts, chunk, blkno);
}

/*
 * Pins the page of block index bidx of a direct-read chunk, if it is not
 * the one pinned already, and decides which of its tuples the scan sees.
 */
static void
pin_direct_page(GpuTaskChunk *chunk, uint32 bidx)
{
	GpuTaskState *gts = chunk->owner;
	BlockNumber blkno = chunk->blknos[bidx];
	OffsetNumber lines;
	bool		all_visible;
	Buffer		buffer;

	if (BufferIsValid(chunk->direct_buffer) && chunk->direct_bidx == bidx)
		return;
	gpu_task_direct_unpin(chunk);
	buffer = lock_page(gts, blkno, &lines, &all_visible);
	memset(&chunk->direct_ref, 0, sizeof(XpuPageRef));
	chunk->direct_ref.nlines = lines;
	(void) mark_visible(gts, buffer, blkno, lines, all_visible,
						&chunk->direct_ref, NULL);
	LockBuffer(buffer, BUFFER_LOCK_UNLOCK);
	chunk->direct_buffer = buffer;
	chunk->direct_bidx = bidx;
}

/* the page of block index bidx of the chunk: its copy, or the pinned buffer */
Page
gpu_task_chunk_page(GpuTaskChunk *chunk, uint32 bidx)
{
	Assert(bidx < chunk->nblocks);
	if (chunk->direct)
	{
		pin_direct_page(chunk, bidx);
		return BufferGetPage(chunk->direct_buffer);
	}
	if (chunk->zero_copy)
		return BufferGetPage(chunk->buffers[bidx]);
	return (Page) (chunk->pages + (Size) bidx * BLCKSZ);
}

/*
 * Whether offset off of the chunk's page bidx is a tuple visible to the
 * scan: in a copy every remaining LP_NORMAL is; in a pinned buffer only
 * those the ref names, within the line pointers examined.
 */
bool
gpu_task_chunk_tuple_visible(GpuTaskState *gts, GpuTaskChunk *chunk,
							 uint32 bidx, OffsetNumber off)
{
	Page		page = gpu_task_chunk_page(chunk, bidx);
	const XpuPageRef *ref;

	if (off < FirstOffsetNumber || off > PageGetMaxOffsetNumber(page) ||
		!ItemIdIsNormal(PageGetItemId(page, off)))
		return false;
	if (chunk->direct)
	{
		/* the service sent the block back: it is read in another chunk */
		if (chunk->bounced[bidx] && !chunk->cpu_mode)
			return false;
		return off <= chunk->direct_ref.nlines &&
			ref_is_visible(&chunk->direct_ref, off);
	}
	if (!chunk->zero_copy)
		return true;
	ref = &chunk->refs[bidx];
	if (off > ref->nlines)
		return false;
	if ((ref->flags & XPU_PAGE_ALL_VISIBLE) == 0)
		return ref_is_visible(ref, off);
	/* nobody checked this line pointer before the tuple is read */
	check_line_pointer(gts, page, chunk->blknos[bidx], off);
	return true;
}

/*
 * The device found a page of the chunk malformed.  Pages whose line
 * pointers the CPU did not check when they entered the chunk are checked
 * now, so that a corrupt page is reported as PostgreSQL would (data
 * corruption, naming the relation and block), not as a protocol error.
 * Returns if every page looks sound here.
 */
void
gpu_task_check_chunk_pages(GpuTaskState *gts, GpuTaskChunk *chunk)
{
	uint32		bidx;

	if (!chunk->zero_copy)
		return;
	for (bidx = 0; bidx < chunk->nblocks; bidx++)
	{
		Buffer		buffer = chunk->buffers[bidx];
		Page		page = BufferGetPage(buffer);
		OffsetNumber off;

		if ((chunk->refs[bidx].flags & XPU_PAGE_ALL_VISIBLE) == 0)
			continue;
		LockBuffer(buffer, BUFFER_LOCK_SHARE);
		for (off = FirstOffsetNumber; off <= chunk->refs[bidx].nlines; off++)
		{
			if (ItemIdIsNormal(PageGetItemId(page, off)))
				check_line_pointer(gts, page, chunk->blknos[bidx], off);
		}
		LockBuffer(buffer, BUFFER_LOCK_UNLOCK);
	}
}

/* line pointers of the chunk's page bidx that the scan examined */
OffsetNumber
gpu_task_chunk_lines(GpuTaskChunk *chunk, uint32 bidx)
{
	if (chunk->direct)
	{
		pin_direct_page(chunk, bidx);
		return chunk->direct_ref.nlines;
	}
	if (chunk->zero_copy)
		return chunk->refs[bidx].nlines;
	return PageGetMaxOffsetNumber(gpu_task_chunk_page(chunk, bidx));
}
