/*-------------------------------------------------------------------------
 *
 * gpuscan_chunk.c
 *		Chunk building for GpuScan: heap pages with MVCC resolved.
 *
 * Inline mode: a chunk is one TaskExec message built in place:
 *
 *		PgStromMsgHeader | XpuChunk | padding to 16 | page[0] ... page[n-1]
 *
 * Shared-buffer mode (the scan attached one buffer per in-flight slot to
 * its connection): the pages are copied straight into the slot's buffer,
 * page[0] at offset 0, and the TaskExec message is PgStromMsgHeader |
 * XpuChunk only, with buffer_id naming the buffer.
 *
 * Pages are read through the buffer manager with a bulk-read strategy and
 * copied under a share lock.  Visibility is decided here exactly as
 * heapgetpage() does it for a sequential scan: when the page is all-visible
 * (and the snapshot was not taken during recovery) every LP_NORMAL tuple is
 * visible; otherwise every LP_NORMAL tuple is tested against the snapshot.
 * Serializable conflicts are checked for every tuple, as heapgetpage()
 * does.  The line pointers of invisible tuples are set LP_UNUSED in the
 * copy, so neither the GPU nor the CPU path ever sees them.  A page without
 * a visible tuple is not copied at all.
 *
 * Blocks come from 0..nblocks-1 (nblocks taken when the scan starts, as
 * heap_beginscan does), or, in a parallel scan, from the shared parallel
 * block scan so that each block goes to exactly one participant.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/tableam.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/predicate.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "core/pg_strom.h"
#include "gpuscan/gpuscan.h"

#define CHUNK_HEADER_LEN \
	(sizeof(PgStromMsgHeader) + sizeof(XpuChunk))
#define CHUNK_PAGES_OFFSET \
	TYPEALIGN(16, CHUNK_HEADER_LEN)

/*
 * Called once per scan (and again after a rescan) before the first chunk.
 */
void
gpuscan_source_begin(GpuScanState *gss)
{
	if (gss->started)
		return;
	gss->started = true;
	gss->source_done = false;
	gss->next_blkno = 0;
	if (gss->pscan == NULL)
		gss->nblocks = RelationGetNumberOfBlocks(gss->rel);
	else
		gss->nblocks = gss->pscan->phs_nblocks;
	if (gss->strategy == NULL)
		gss->strategy = GetAccessStrategy(BAS_BULKREAD);
	/* as heap_beginscan() for a sequential scan */
	if (IsMVCCSnapshot(gss->snapshot))
		PredicateLockRelation(gss->rel, gss->snapshot);
}

void
gpuscan_source_reset(GpuScanState *gss)
{
	gss->started = false;
	gss->source_done = false;
	gss->next_blkno = 0;
	gss->pscan_inited = false;
}

static BlockNumber
next_block(GpuScanState *gss)
{
	BlockNumber blkno;

	if (gss->source_done)
		return InvalidBlockNumber;
	if (gss->pscan == NULL)
	{
		if (gss->next_blkno >= gss->nblocks)
			blkno = InvalidBlockNumber;
		else
			blkno = gss->next_blkno++;
	}
	else
	{
		if (!gss->pscan_inited)
		{
			table_block_parallelscan_startblock_init(gss->rel,
													 &gss->pscan_work,
													 gss->pscan);
			gss->pscan_inited = true;
		}
		blkno = table_block_parallelscan_nextpage(gss->rel,
												  &gss->pscan_work,
												  gss->pscan);
	}
	if (blkno == InvalidBlockNumber)
		gss->source_done = true;
	return blkno;
}

/*
 * Blocks per chunk for this scan; starts the block source, since that
 * fixes the number of blocks.
 */
uint32
gpuscan_chunk_capacity(GpuScanState *gss)
{
	uint32		capacity;

	gpuscan_source_begin(gss);
	capacity = Min((BlockNumber) GPUSCAN_CHUNK_MAX_BLOCKS, gss->nblocks);
	return Max(capacity, 1);
}

static GpuScanChunk *
get_chunk_buffer(GpuScanState *gss)
{
	GpuScanChunk *chunk;
	MemoryContext oldcxt;
	uint32		capacity;

	if (gss->free_chunks != NIL)
	{
		chunk = linitial(gss->free_chunks);
		gss->free_chunks = list_delete_first(gss->free_chunks);
		return chunk;
	}

	capacity = gpuscan_chunk_capacity(gss);
	oldcxt = MemoryContextSwitchTo(gss->css.ss.ps.state->es_query_cxt);
	chunk = palloc0(sizeof(GpuScanChunk));
	if (gss->nbuffers_used < gss->nbuffers)
	{
		/* the next in-flight slot's shared buffer: pages at offset 0 */
		GpuSharedBuffer *shbuf = gss->buffers[gss->nbuffers_used++];

		capacity = Min(capacity,
					   pgstrom_gpu_buffer_size(shbuf) / BLCKSZ);
		chunk->buffer_id = gss->nbuffers_used;
		chunk->buf = palloc0(CHUNK_HEADER_LEN);
		chunk->pages = pgstrom_gpu_buffer_addr(shbuf);
	}
	else
	{
		chunk->buffer_id = 0;
		chunk->buf = MemoryContextAllocHuge(CurrentMemoryContext,
											CHUNK_PAGES_OFFSET +
											(Size) capacity * BLCKSZ);
		chunk->pages = chunk->buf + CHUNK_PAGES_OFFSET;
	}
	chunk->capacity = capacity;
	chunk->blknos = palloc(sizeof(BlockNumber) * capacity);
	MemoryContextSwitchTo(oldcxt);
	return chunk;
}

/*
 * Copies block blkno into the chunk's next page slot, with invisible
 * tuples removed.  Returns false (and leaves the chunk as it was) when the
 * page has no visible tuple.
 */
static bool
load_page(GpuScanState *gss, GpuScanChunk *chunk, BlockNumber blkno)
{
	Relation	rel = gss->rel;
	Snapshot	snapshot = gss->snapshot;
	Buffer		buffer;
	Page		page;
	Page		copy = (Page) (chunk->pages + (Size) chunk->nblocks * BLCKSZ);
	OffsetNumber lines;
	OffsetNumber lineoff;
	bool		all_visible;
	int			nvisible = 0;

	buffer = ReadBufferExtended(rel, MAIN_FORKNUM, blkno, RBM_NORMAL,
								gss->strategy);
	/* as heapgetpage(): opportunistic pruning before taking the lock */
	heap_page_prune_opt(rel, buffer);

	LockBuffer(buffer, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buffer);
	TestForOldSnapshot(snapshot, rel, page);
	lines = PageGetMaxOffsetNumber(page);
	all_visible = PageIsAllVisible(page) && !snapshot->takenDuringRecovery;

	/*
	 * Copy, then decide visibility on the shared page (where hint bits may
	 * be set) and remove the invisible tuples from the copy.
	 */
	memcpy(copy, page, BLCKSZ);
	for (lineoff = FirstOffsetNumber; lineoff <= lines; lineoff++)
	{
		ItemId		lpp = PageGetItemId(page, lineoff);
		HeapTupleData loctup;
		bool		valid;

		if (!ItemIdIsNormal(lpp))
			continue;
		loctup.t_tableOid = RelationGetRelid(rel);
		loctup.t_data = (HeapTupleHeader) PageGetItem(page, lpp);
		loctup.t_len = ItemIdGetLength(lpp);
		ItemPointerSet(&loctup.t_self, blkno, lineoff);

		if (all_visible)
			valid = true;
		else
			valid = HeapTupleSatisfiesVisibility(&loctup, snapshot, buffer);

		HeapCheckForSerializableConflictOut(valid, rel, &loctup, buffer,
											snapshot);
		if (valid)
			nvisible++;
		else
			ItemIdSetUnused(PageGetItemId(copy, lineoff));
	}
	LockBuffer(buffer, BUFFER_LOCK_UNLOCK);
	ReleaseBuffer(buffer);

	gss->counters.npages++;
	if (nvisible == 0)
		return false;
	chunk->blknos[chunk->nblocks++] = blkno;
	return true;
}

/*
 * Builds the next chunk, or returns NULL when the relation is exhausted.
 */
GpuScanChunk *
gpuscan_build_chunk(GpuScanState *gss)
{
	GpuScanChunk *chunk;
	PgStromMsgHeader *hdr;
	XpuChunk   *xchunk;

	gpuscan_source_begin(gss);
	if (gss->source_done)
		return NULL;

	chunk = get_chunk_buffer(gss);
	chunk->nblocks = 0;
	chunk->request_id = 0;
	chunk->cpu_mode = false;
	chunk->reply = NULL;
	chunk->items = NULL;
	chunk->nitems = 0;
	chunk->next_item = 0;
	chunk->cur_block = 0;
	chunk->cur_offset = InvalidOffsetNumber;

	while (chunk->nblocks < chunk->capacity)
	{
		BlockNumber blkno;

		CHECK_FOR_INTERRUPTS();
		blkno = next_block(gss);
		if (blkno == InvalidBlockNumber)
			break;
		(void) load_page(gss, chunk, blkno);
	}
	if (chunk->nblocks == 0)
	{
		gpuscan_release_chunk(gss, chunk);
		return NULL;
	}

	/* the message header; request_id is set when it is sent */
	if (chunk->buffer_id != 0)
	{
		chunk->buf_len = CHUNK_HEADER_LEN;
		memset(chunk->buf, 0, CHUNK_HEADER_LEN);
	}
	else
	{
		chunk->buf_len = CHUNK_PAGES_OFFSET + (Size) chunk->nblocks * BLCKSZ;
		memset(chunk->buf, 0, CHUNK_PAGES_OFFSET);
	}
	hdr = (PgStromMsgHeader *) chunk->buf;
	hdr->magic = PGSTROM_MSG_MAGIC;
	hdr->tag = PGSTROM_MSG_TASK_EXEC;
	hdr->flags = 0;
	hdr->length = (uint32) chunk->buf_len;
	xchunk = (XpuChunk *) (chunk->buf + sizeof(PgStromMsgHeader));
	xchunk->nblocks = chunk->nblocks;
	xchunk->pages_offset = chunk->buffer_id != 0 ? 0 : CHUNK_PAGES_OFFSET;
	xchunk->buffer_id = chunk->buffer_id;

	gss->counters.nchunks++;
	return chunk;
}

/* the chunk's rows are all emitted (or it is abandoned): keep the buffer */
void
gpuscan_release_chunk(GpuScanState *gss, GpuScanChunk *chunk)
{
	MemoryContext oldcxt;

	if (chunk->reply)
		pfree(chunk->reply);
	chunk->reply = NULL;
	chunk->items = NULL;
	chunk->nitems = 0;
	chunk->nblocks = 0;
	oldcxt = MemoryContextSwitchTo(gss->css.ss.ps.state->es_query_cxt);
	gss->free_chunks = lappend(gss->free_chunks, chunk);
	MemoryContextSwitchTo(oldcxt);
}

/*
 * Frees the chunks kept for reuse; with shared_only, only those whose pages
 * are in a shared buffer (before the buffers are released).  Every chunk
 * must be back in free_chunks (gpuscan_cleanup).
 */
void
gpuscan_free_chunks(GpuScanState *gss, bool shared_only)
{
	ListCell   *lc;

	foreach(lc, gss->free_chunks)
	{
		GpuScanChunk *chunk = lfirst(lc);

		if (shared_only && chunk->buffer_id == 0)
			continue;
		pfree(chunk->buf);
		pfree(chunk->blknos);
		pfree(chunk);
		gss->free_chunks = foreach_delete_current(gss->free_chunks, lc);
	}
}

/*
 * Unmaps the shared buffers.  No chunk may use them any more: call
 * gpuscan_free_chunks() first, with every chunk released.
 */
void
gpuscan_release_buffers(GpuScanState *gss)
{
	int			i;

	for (i = 0; i < gss->nbuffers; i++)
	{
		pgstrom_gpu_buffer_release(gss->buffers[i]);
		gss->buffers[i] = NULL;
	}
	gss->nbuffers = 0;
	gss->nbuffers_used = 0;
}
