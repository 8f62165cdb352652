/*-------------------------------------------------------------------------
 *
 * task_chunk.c
 *		Chunks of GPU nodes: their buffers, building and release.
 *
 * Zero-copy mode: the pages stay pinned in shared buffers and the TaskExec
 * message names them:
 *
 *		PgStromMsgHeader | XpuChunk | padding to 16 | XpuPageRef[n]
 *
 * with buffer_id XPU_BUFFER_SHARED.  The pins are released when the chunk
 * is (its rows emitted, or the scan cleaned up; an ERROR releases them with
 * the resource owner).
 *
 * Inline mode: a chunk is one TaskExec message built in place:
 *
 *		PgStromMsgHeader | XpuChunk | padding to 16 | page[0] ... page[n-1]
 *
 * Direct-read mode: the service reads the pages from the relation's files
 * (task_direct.c), and the message names the blocks:
 *
 *		PgStromMsgHeader | XpuChunk | XpuDirectFile | uint32 blkno[n]
 *
 * with buffer_id XPU_BUFFER_DIRECT.  A scan fills a chunk of pages and a
 * chunk of block numbers at the same time, each block going into one of
 * them, and sends whichever is full first; at the end of the blocks both
 * go out.
 *
 * Which pages enter a chunk, and how, is task_pages.c's.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/memutils.h"

#include "runtime/gpu_task.h"

#define CHUNK_HEADER_LEN \
	(sizeof(PgStromMsgHeader) + sizeof(XpuChunk))
#define CHUNK_PAGES_OFFSET \
	TYPEALIGN(16, CHUNK_HEADER_LEN)

static void
free_chunk(GpuTaskChunk *chunk)
{
	pfree(chunk->buf);
	pfree(chunk->blknos);
	if (chunk->buffers)
		pfree(chunk->buffers);
	if (chunk->bounced)
		pfree(chunk->bounced);
	if (chunk->stamps)
		pfree(chunk->stamps);
	if (chunk->not_cached)
		pfree(chunk->not_cached);
	pfree(chunk);
}

static GpuTaskChunk *
get_chunk_buffer(GpuTaskState *gts, bool direct)
{
	GpuTaskChunk *chunk;
	MemoryContext oldcxt;
	uint32		capacity;
	bool		zero_copy;
	ListCell   *lc;

	capacity = gpu_task_chunk_capacity(gts);
	zero_copy = !direct && (gts->zero_copy == GPU_TASK_PATH_ZERO_COPY);
	if (direct)
		capacity = Min((BlockNumber) GPU_TASK_CHUNK_MAX_BLOCKS, gts->nblocks);
	foreach(lc, gts->free_chunks)
	{
		chunk = lfirst(lc);
		if (chunk->zero_copy == zero_copy && chunk->direct == direct)
		{
			gts->free_chunks = foreach_delete_current(gts->free_chunks, lc);
			return chunk;
		}
	}
	/* a rescan may have chosen the other data path */
	foreach(lc, gts->free_chunks)
	{
		chunk = lfirst(lc);
		if (chunk->direct == direct)
		{
			gts->free_chunks = foreach_delete_current(gts->free_chunks, lc);
			free_chunk(chunk);
			break;
		}
	}

	oldcxt = MemoryContextSwitchTo(gts->css.ss.ps.state->es_query_cxt);
	chunk = palloc0(sizeof(GpuTaskChunk));
	chunk->zero_copy = zero_copy;
	chunk->direct = direct;
	chunk->owner = gts;
	chunk->direct_buffer = InvalidBuffer;
	if (direct)
	{
		capacity = Max(capacity, 1);
		chunk->buffer_id = XPU_BUFFER_DIRECT;
		chunk->buf = palloc0(XPU_DIRECT_STAMPS_OFFSET(capacity) +
							 (Size) capacity * sizeof(uint64));
		chunk->bounced = palloc0(sizeof(bool) * capacity);
		chunk->not_cached = palloc0(sizeof(bool) * capacity);
		chunk->stamps = palloc0(sizeof(uint64) * capacity);
	}
	else if (zero_copy)
	{
		chunk->buffer_id = XPU_BUFFER_SHARED;
		chunk->buf = palloc0(CHUNK_PAGES_OFFSET +
							 (Size) capacity * sizeof(XpuPageRef));
		chunk->refs = (XpuPageRef *) (chunk->buf + CHUNK_PAGES_OFFSET);
		chunk->buffers = palloc(sizeof(Buffer) * capacity);
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

/* an empty chunk to fill, ready for its first block */
static GpuTaskChunk *
start_chunk(GpuTaskState *gts, bool direct)
{
	GpuTaskChunk *chunk = get_chunk_buffer(gts, direct);

	chunk->nblocks = 0;
	chunk->request_id = 0;
	chunk->cpu_mode = false;
	chunk->replies = NIL;
	chunk->nitems = 0;
	chunk->reply_bytes = 0;
	chunk->cur_reply = 0;
	chunk->next_item = 0;
	chunk->cur_block = 0;
	chunk->cur_offset = InvalidOffsetNumber;
	chunk->report_seen = false;
	chunk->nbounced = 0;
	/* blocks decided without the buffer mapping lookup may not be read from files */
	chunk->cache_only = direct && gts->cache_first;
	return chunk;
}

/* the message header of a filled chunk; request_id is set when it is sent */
static GpuTaskChunk *
finish_chunk(GpuTaskState *gts, GpuTaskChunk *chunk)
{
	PgStromMsgHeader *hdr;
	XpuChunk   *xchunk;

	if (chunk->direct)
	{
		chunk->buf_len = gts->page_cache ?
			XPU_DIRECT_STAMPS_OFFSET(chunk->nblocks) + (Size) chunk->nblocks * sizeof(uint64) :
			XPU_DIRECT_BLKNOS_OFFSET + (Size) chunk->nblocks * sizeof(uint32);
		memset(chunk->buf, 0, XPU_DIRECT_FILE_OFFSET);
		gpu_task_direct_fill(gts, chunk);
	}
	else if (chunk->zero_copy)
	{
		gpu_task_order_by_buffer(chunk);
		chunk->buf_len = CHUNK_PAGES_OFFSET +
			(Size) chunk->nblocks * sizeof(XpuPageRef);
		memset(chunk->buf, 0, CHUNK_PAGES_OFFSET);
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
	xchunk->pages_offset = chunk->direct ? XPU_DIRECT_BLKNOS_OFFSET : CHUNK_PAGES_OFFSET;
	xchunk->buffer_id = chunk->buffer_id;

	gts->counters.nchunks++;
	return chunk;
}

/* an open chunk, taken from the scan: the pages' first */
static GpuTaskChunk *
take_open_chunk(GpuTaskState *gts)
{
	GpuTaskChunk **slot = gts->open_pages ? &gts->open_pages : &gts->open_direct;
	GpuTaskChunk *chunk = *slot;

	*slot = NULL;
	return chunk;
}

/* whether no chunk is left to build: no block, no open chunk */
bool
gpu_task_source_exhausted(GpuTaskState *gts)
{
	return gts->source_done && gts->open_pages == NULL &&
		gts->open_direct == NULL;
}

/*
 * Builds the next chunk, or returns NULL when the relation is exhausted.
 */
GpuTaskChunk *
gpu_task_build_chunk(GpuTaskState *gts)
{
	gpu_task_source_begin(gts);
	for (;;)
	{
		GpuTaskChunk *chunk;
		GpuTaskChunk **slot;
		BlockNumber blkno;
		bool		direct;
		uint64		stamp;

		if (gts->source_done)
		{
			chunk = take_open_chunk(gts);
			if (chunk == NULL)
				return NULL;
			if (chunk->nblocks > 0)
				return finish_chunk(gts, chunk);
			gpu_task_release_chunk(gts, chunk);
			continue;
		}
		CHECK_FOR_INTERRUPTS();
		blkno = gpu_task_next_block(gts);
		if (blkno == InvalidBlockNumber)
			continue;			/* source_done: the open chunks go out */
		direct = gpu_task_block_goes_direct(gts, blkno, &stamp);
		slot = direct ? &gts->open_direct : &gts->open_pages;
		if (*slot == NULL)
			*slot = start_chunk(gts, direct);
		chunk = *slot;
		if (direct)
		{
			chunk->stamps[chunk->nblocks] = stamp;
			chunk->blknos[chunk->nblocks++] = blkno;
			gts->counters.npages++;
			gts->counters.npages_direct++;
		}
		else
			(void) gpu_task_load_page(gts, chunk, blkno, stamp);
		if (chunk->nblocks == chunk->capacity ||
			chunk->nblocks >= gts->chunk_fill_limit)
		{
			*slot = NULL;
			return finish_chunk(gts, chunk);
		}
	}
}

/* the chunks being filled are dropped (cleanup, rescan) */
void
gpu_task_drop_open_chunks(GpuTaskState *gts)
{
	GpuTaskChunk *chunk;

	while ((chunk = take_open_chunk(gts)) != NULL)
		gpu_task_release_chunk(gts, chunk);
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
	/* without its answer a direct-read chunk is evaluated whole */
	if (chunk->direct)
	{
		chunk->report_seen = false;
		chunk->nbounced = 0;
		memset(chunk->bounced, 0, sizeof(bool) * chunk->capacity);
	}
}

/* the chunk's rows are all emitted (or it is abandoned): keep the buffer */
void
gpu_task_release_chunk(GpuTaskState *gts, GpuTaskChunk *chunk)
{
	MemoryContext oldcxt;

	gpu_task_chunk_drop_replies(chunk);
	gpu_task_direct_unpin(chunk);
	if (chunk->zero_copy)
	{
		uint32		i;

		for (i = 0; i < chunk->nblocks; i++)
			ReleaseBuffer(chunk->buffers[i]);
	}
	chunk->nblocks = 0;
	oldcxt = MemoryContextSwitchTo(gts->css.ss.ps.state->es_query_cxt);
	gts->free_chunks = lappend(gts->free_chunks, chunk);
	MemoryContextSwitchTo(oldcxt);
}

/* frees the chunks kept for reuse; every chunk must be back in free_chunks */
void
gpu_task_free_chunks(GpuTaskState *gts)
{
	ListCell   *lc;

	foreach(lc, gts->free_chunks)
		free_chunk((GpuTaskChunk *) lfirst(lc));
	list_free(gts->free_chunks);
	gts->free_chunks = NIL;
}
