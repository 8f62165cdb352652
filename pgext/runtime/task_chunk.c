/*-------------------------------------------------------------------------
 *
 * task_chunk.c
 *		Chunk building of GPU nodes: heap pages with MVCC resolved.
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
#include "runtime/gpu_task.h"

#define CHUNK_HEADER_LEN \
	(sizeof(PgStromMsgHeader) + sizeof(XpuChunk))
#define CHUNK_PAGES_OFFSET \
	TYPEALIGN(16, CHUNK_HEADER_LEN)

/*
 * Called once per scan (and again after a rescan) before the first chunk.
 */
static void
source_begin(GpuTaskState *gts)
{
	if (gts->started)
		return;
	gts->started = true;
	gts->source_done = false;
	gts->next_blkno = 0;
	if (gts->pscan == NULL)
		gts->nblocks = RelationGetNumberOfBlocks(gts->rel);
	else
		gts->nblocks = gts->pscan->phs_nblocks;
	if (gts->strategy == NULL)
		gts->strategy = GetAccessStrategy(BAS_BULKREAD);
	/* as heap_beginscan() for a sequential scan */
	if (IsMVCCSnapshot(gts->snapshot))
		PredicateLockRelation(gts->rel, gts->snapshot);
}

void
gpu_task_source_reset(GpuTaskState *gts)
{
	gts->started = false;
	gts->source_done = false;
	gts->next_blkno = 0;
	gts->pscan_inited = false;
}

static BlockNumber
next_block(GpuTaskState *gts)
{
	BlockNumber blkno;

	if (gts->source_done)
		return InvalidBlockNumber;
	if (gts->pscan == NULL)
	{
		if (gts->next_blkno >= gts->nblocks)
			blkno = InvalidBlockNumber;
		else
			blkno = gts->next_blkno++;
	}
	else
	{
		if (!gts->pscan_inited)
		{
			table_block_parallelscan_startblock_init(gts->rel,
													 &gts->pscan_work,
													 gts->pscan);
			gts->pscan_inited = true;
		}
		blkno = table_block_parallelscan_nextpage(gts->rel,
												  &gts->pscan_work,
												  gts->pscan);
	}
	if (blkno == InvalidBlockNumber)
		gts->source_done = true;
	return blkno;
}

/*
 * Blocks per chunk for this scan; starts the block source, since that
 * fixes the number of blocks.
 */
uint32
gpu_task_chunk_capacity(GpuTaskState *gts)
{
	uint32		capacity;

	source_begin(gts);
	capacity = Min((BlockNumber) GPU_TASK_CHUNK_MAX_BLOCKS, gts->nblocks);
	return Max(capacity, 1);
}

static GpuTaskChunk *
get_chunk_buffer(GpuTaskState *gts)
{
	GpuTaskChunk *chunk;
	MemoryContext oldcxt;
	uint32		capacity;

	if (gts->free_chunks != NIL)
	{
		chunk = linitial(gts->free_chunks);
		gts->free_chunks = list_delete_first(gts->free_chunks);
		return chunk;
	}

	capacity = gpu_task_chunk_capacity(gts);
	oldcxt = MemoryContextSwitchTo(gts->css.ss.ps.state->es_query_cxt);
	chunk = palloc0(sizeof(GpuTaskChunk));
	if (gts->nbuffers_used < gts->nbuffers)
	{
		/* the next in-flight slot's shared buffer: pages at offset 0 */
		GpuSharedBuffer *shbuf = gts->buffers[gts->nbuffers_used++];

		capacity = Min(capacity,
					   pgstrom_gpu_buffer_size(shbuf) / BLCKSZ);
		chunk->buffer_id = gts->nbuffers_used;
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
load_page(GpuTaskState *gts, GpuTaskChunk *chunk, BlockNumber blkno)
{
	Relation	rel = gts->rel;
	Snapshot	snapshot = gts->snapshot;
	Buffer		buffer;
	Page		page;
	Page		copy = (Page) (chunk->pages + (Size) chunk->nblocks * BLCKSZ);
	OffsetNumber lines;
	OffsetNumber lineoff;
	bool		all_visible;
	int			nvisible = 0;

	buffer = ReadBufferExtended(rel, MAIN_FORKNUM, blkno, RBM_NORMAL,
								gts->strategy);
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

	gts->counters.npages++;
	if (nvisible == 0)
		return false;
	chunk->blknos[chunk->nblocks++] = blkno;
	return true;
}

/*
 * Builds the next chunk, or returns NULL when the relation is exhausted.
 */
GpuTaskChunk *
gpu_task_build_chunk(GpuTaskState *gts)
{
	GpuTaskChunk *chunk;
	PgStromMsgHeader *hdr;
	XpuChunk   *xchunk;

	source_begin(gts);
	if (gts->source_done)
		return NULL;

	chunk = get_chunk_buffer(gts);
	chunk->nblocks = 0;
	chunk->request_id = 0;
	chunk->cpu_mode = false;
	chunk->replies = NIL;
	chunk->nitems = 0;
	chunk->cur_reply = 0;
	chunk->next_item = 0;
	chunk->cur_block = 0;
	chunk->cur_offset = InvalidOffsetNumber;

	while (chunk->nblocks < chunk->capacity)
	{
		BlockNumber blkno;

		CHECK_FOR_INTERRUPTS();
		blkno = next_block(gts);
		if (blkno == InvalidBlockNumber)
			break;
		(void) load_page(gts, chunk, blkno);
	}
	if (chunk->nblocks == 0)
	{
		gpu_task_release_chunk(gts, chunk);
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

	gts->counters.nchunks++;
	return chunk;
}

/* frees the device's replies (emitted, or the chunk goes to the CPU) */
void
gpu_task_chunk_drop_replies(GpuTaskChunk *chunk)
{
	list_free_deep(chunk->replies);
	chunk->replies = NIL;
	chunk->nitems = 0;
	chunk->cur_reply = 0;
	chunk->next_item = 0;
}

/* the chunk's rows are all emitted (or it is abandoned): keep the buffer */
void
gpu_task_release_chunk(GpuTaskState *gts, GpuTaskChunk *chunk)
{
	MemoryContext oldcxt;

	gpu_task_chunk_drop_replies(chunk);
	chunk->nblocks = 0;
	oldcxt = MemoryContextSwitchTo(gts->css.ss.ps.state->es_query_cxt);
	gts->free_chunks = lappend(gts->free_chunks, chunk);
	MemoryContextSwitchTo(oldcxt);
}

/*
 * Frees the chunks kept for reuse; with shared_only, only those whose pages
 * are in a shared buffer (before the buffers are released).  Every chunk
 * must be back in free_chunks (gpu_task_end, gpu_task_rescan).
 */
void
gpu_task_free_chunks(GpuTaskState *gts, bool shared_only)
{
	ListCell   *lc;

	foreach(lc, gts->free_chunks)
	{
		GpuTaskChunk *chunk = lfirst(lc);

		if (shared_only && chunk->buffer_id == 0)
			continue;
		pfree(chunk->buf);
		pfree(chunk->blknos);
		pfree(chunk);
		gts->free_chunks = foreach_delete_current(gts->free_chunks, lc);
	}
}

/*
 * Unmaps the shared buffers.  No chunk may use them any more: call
 * gpu_task_free_chunks() first, with every chunk released.
 */
void
gpu_task_release_buffers(GpuTaskState *gts)
{
	int			i;

	for (i = 0; i < gts->nbuffers; i++)
	{
		pgstrom_gpu_buffer_release(gts->buffers[i]);
		gts->buffers[i] = NULL;
	}
	gts->nbuffers = 0;
	gts->nbuffers_used = 0;
}
