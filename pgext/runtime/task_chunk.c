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
	pfree(chunk);
}

static GpuTaskChunk *
get_chunk_buffer(GpuTaskState *gts)
{
	GpuTaskChunk *chunk;
	MemoryContext oldcxt;
	uint32		capacity;
	bool		zero_copy;

	capacity = gpu_task_chunk_capacity(gts);
	zero_copy = (gts->zero_copy == GPU_TASK_PATH_ZERO_COPY);
	while (gts->free_chunks != NIL)
	{
		chunk = linitial(gts->free_chunks);
		gts->free_chunks = list_delete_first(gts->free_chunks);
		/* a rescan may have chosen the other data path */
		if (chunk->zero_copy == zero_copy)
			return chunk;
		free_chunk(chunk);
	}

	oldcxt = MemoryContextSwitchTo(gts->css.ss.ps.state->es_query_cxt);
	chunk = palloc0(sizeof(GpuTaskChunk));
	chunk->zero_copy = zero_copy;
	if (zero_copy)
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

/*
 * Builds the next chunk, or returns NULL when the relation is exhausted.
 */
GpuTaskChunk *
gpu_task_build_chunk(GpuTaskState *gts)
{
	GpuTaskChunk *chunk;
	PgStromMsgHeader *hdr;
	XpuChunk   *xchunk;

	gpu_task_source_begin(gts);
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
		blkno = gpu_task_next_block(gts);
		if (blkno == InvalidBlockNumber)
			break;
		(void) gpu_task_load_page(gts, chunk, blkno);
	}
	if (chunk->nblocks == 0)
	{
		gpu_task_release_chunk(gts, chunk);
		return NULL;
	}

	/* the message header; request_id is set when it is sent */
	if (chunk->zero_copy)
	{
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
	xchunk->pages_offset = CHUNK_PAGES_OFFSET;
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
