/*-------------------------------------------------------------------------
 *
 * task_direct.c
 *		Direct read: blocks the GPU service reads from the relation's files.
 *
 * Tables larger than shared_buffers would otherwise pass every page
 * through a shared buffer (a kernel copy and an eviction) before the
 * device could see it.  For each block of the scan the backend decides,
 * without loading the page, whether the service may read it from the file
 * itself: when the visibility map says all-visible and the page is not in
 * shared buffers, the file holds the page as PostgreSQL knows it, and every
 * tuple on it is visible to every snapshot.  Such blocks go by number in
 * chunks of their own (XPU_BUFFER_DIRECT); the others go the zero-copy (or
 * copy) way as before.  A page that is in shared buffers, even clean, goes
 * the zero-copy way: the device reads it where it lies and no CPU copies
 * it, while a file read costs the service a copy out of the page cache.
 *
 * Why this is exact.  The scan's lock keeps the file from being truncated
 * or rewritten, and blocks are below the relation's size at scan start.
 * A page changed after the decision was changed by a transaction the
 * scan's snapshot does not see (the visibility map bit could not be set
 * otherwise), and the change clears PD_ALL_VISIBLE: if the file already
 * holds the new image, the service sees the flag off and bounces the
 * block; if it still holds the old one, that is the snapshot's view.  The
 * tuples visible to the snapshot cannot be pruned while it is held, so the
 * positions the device returns name the same tuples in the shared buffer
 * the backend later forms the rows from.  Early pruning
 * (old_snapshot_threshold) breaks that, and so do SERIALIZABLE's
 * per-tuple conflict checks and snapshots taken during recovery: those
 * scans do not read directly.
 *
 * The device page cache (pg_strom.gpu_page_cache_size).  With it, a block
 * also goes by number when its page lies clean in shared buffers, and
 * carries a stamp: the LSN of the visibility-map page covering it, read
 * under that page's share lock together with the block's all-visible bit
 * (a window of GPU_TASK_VM_WINDOW blocks per lock).  The service serves a
 * block from device memory when it read the same block before under the
 * same stamp.  That image is still the block's: a change to a heap page
 * clears its bit, and the bit can only be set again by visibilitymap_set,
 * which gives the map page a new LSN (WAL-logged; unlogged relations get
 * no stamps), so an equal stamp with the bit set means the page has not
 * changed since it was read.  A dirty buffer's page goes the zero-copy
 * way, since its file is behind; when its ref is all-visible it carries
 * the stamp too (gpu_task_stamp_ref), and the device keeps the image it
 * gathered from shared buffers as it keeps one read from the file.  The
 * stamp was read before that image was copied, so the image is at least
 * as new as the stamp, and a change after the stamp clears the bit, which
 * can then only come back under a new LSN: an image kept under a stamp
 * that is later found equal, with the bit set, is the page's.  Once
 * cached, such a block goes by number like any other, which is how a
 * table scanned right after its load, before a checkpoint wrote its
 * pages, is served from device memory.  Catalogs get no stamps:
 * heap_inplace_update changes their tuples without touching the bit.
 * (heap_lock_tuple leaves the bit set, but a lock changes no tuple's
 * visibility, which is all an all-visible page's image is used for.)
 *
 * The service checks every page it reads (PD_ALL_VISIBLE, the checksum
 * when data_checksums is on, the header) and answers each chunk first with
 * a read report naming the blocks it bounced; when the chunk's answer is
 * complete they join the bounce queue, which the block source empties
 * before anything else, and are read through the buffer manager, which
 * raises PostgreSQL's own error for a page that is corrupt on disk.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/visibilitymap.h"
#include "access/visibilitymapdefs.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/catalog.h"
#include "catalog/catversion.h"
#include "catalog/pg_tablespace_d.h"
#include "storage/buf_internals.h"
#include "storage/bufmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "core/pg_strom.h"
#include "runtime/gpu_task.h"

StaticAssertDecl(sizeof(PgStromMsgHeader) + sizeof(XpuChunk) <= XPU_DIRECT_FILE_OFFSET,
				 "XpuDirectFile overlaps the chunk header");
StaticAssertDecl(XPU_DIRECT_FILE_OFFSET + sizeof(XpuDirectFile) == XPU_DIRECT_BLKNOS_OFFSET,
				 "the block numbers do not follow XpuDirectFile");
StaticAssertDecl(GPU_TASK_CHUNK_MAX_BLOCKS <= XPU_BOUNCE_INDEX_MASK,
				 "a chunk's block index does not fit a bounce entry");
StaticAssertDecl(DEFAULTTABLESPACE_OID == XPU_DEFAULT_TABLESPACE &&
				 GLOBALTABLESPACE_OID == XPU_GLOBAL_TABLESPACE,
				 "the service's tablespace OIDs differ from PostgreSQL's");

static void queue_block(GpuTaskState *gts, BlockNumber **queue, uint32 *n,
						uint32 *cap, BlockNumber blkno);

/*
 * Decides, when the scan starts, whether its blocks may go by number.
 */
void
gpu_task_direct_begin(GpuTaskState *gts)
{
	Relation	rel = gts->rel;

	gts->direct_read = (pgstrom_direct_read &&
						gts->mode == GPU_TASK_MODE_GPU &&
						!gts->redoing &&
						!RelationUsesLocalBuffers(rel) &&
						PgStromRelTablespace(rel) != GLOBALTABLESPACE_OID &&
						IsMVCCSnapshot(gts->snapshot) &&
						!gts->snapshot->takenDuringRecovery &&
						!IsolationIsSerializable() &&
						!PgStromEarlyPruningEnabled(rel));
	gts->page_cache = (gts->direct_read &&
					   gts->device_page_cache &&
					   pgstrom_use_page_cache &&
					   RelationNeedsWAL(rel) &&
					   !IsCatalogRelation(rel));
	gts->cache_first = gts->page_cache;
	gts->vm_win_n = 0;
}

/* heap blocks one visibility map page covers (HEAPBLOCKS_PER_PAGE there) */
#define VM_HEAPBLOCKS_PER_PAGE \
	((BLCKSZ - MAXALIGN(SizeOfPageHeaderData)) * (BITS_PER_BYTE / BITS_PER_HEAPBLOCK))

/*
 * Reads, under one share lock of the map page, the all-visible bits of
 * blocks blkno.. (up to the window's size, the map page's end and the
 * scan's end) and the page's LSN, their stamp.  A block without a map
 * page is not all-visible.
 */
static void
capture_vm_window(GpuTaskState *gts, BlockNumber blkno)
{
	BlockNumber last = Min(gts->nblocks, blkno + GPU_TASK_VM_WINDOW);
	BlockNumber page_end = (blkno / VM_HEAPBLOCKS_PER_PAGE + 1) * VM_HEAPBLOCKS_PER_PAGE;
	BlockNumber b;

	last = Min(last, page_end);
	gts->vm_win_first = blkno;
	gts->vm_win_n = last - blkno;
	gts->vm_win_stamp = 0;
	gts->vm_win_visible[0] = VM_ALL_VISIBLE(gts->rel, blkno, &gts->vmbuffer);
	if (!BufferIsValid(gts->vmbuffer))
	{
		memset(gts->vm_win_visible, 0, sizeof(bool) * gts->vm_win_n);
		return;
	}
	LockBuffer(gts->vmbuffer, BUFFER_LOCK_SHARE);
	gts->vm_win_stamp = PageGetLSN(BufferGetPage(gts->vmbuffer));
	/* blkno's bit again: the read above, which pinned the page, was unlocked */
	for (b = blkno; b < last; b++)
		gts->vm_win_visible[b - blkno] = VM_ALL_VISIBLE(gts->rel, b, &gts->vmbuffer);
	LockBuffer(gts->vmbuffer, BUFFER_LOCK_UNLOCK);
}

/*
 * Whether block blkno is all-visible, and its stamp (0 when not), from the
 * window, captured again when blkno lies outside it.
 */
static bool
vm_window_all_visible(GpuTaskState *gts, BlockNumber blkno, uint64 *stamp)
{
	if (gts->vm_win_n == 0 || blkno < gts->vm_win_first ||
		blkno - gts->vm_win_first >= gts->vm_win_n)
		capture_vm_window(gts, blkno);
	if (!gts->vm_win_visible[blkno - gts->vm_win_first])
		return false;
	*stamp = gts->vm_win_stamp;
	return true;
}

/*
 * Whether the page is in shared buffers now.  One that is loaded after this
 * answer is still read from the file: that is exact as long as it is not
 * changed, and a change clears PD_ALL_VISIBLE, which the service checks (see
 * the file header); a dirty buffer's page is never sent by number.
 */
static bool
buffer_resident(Relation rel, BlockNumber blkno, bool *dirty)
{
	BufferTag	tag;
	uint32		hash;
	LWLock	   *lock;
	int			buf_id;

	pgstrom_init_buffer_tag(&tag, rel, MAIN_FORKNUM, blkno);
	hash = BufTableHashCode(&tag);
	lock = BufMappingPartitionLock(hash);
	LWLockAcquire(lock, LW_SHARED);
	buf_id = BufTableLookup(&tag, hash);
	/* the mapping lock keeps the buffer's tag; BM_DIRTY is read as it is */
	*dirty = buf_id >= 0 &&
		(pg_atomic_read_u32(&GetBufferDescriptor(buf_id)->state) & BM_DIRTY) != 0;
	LWLockRelease(lock);
	return buf_id >= 0;
}

/*
 * Whether block blkno goes by number: see the file header.  Blocks that
 * came back bounced, and every block once the node runs on the CPU, go
 * through the buffer manager.  *stamp is the block's page cache stamp (0:
 * none), which a block that goes the zero-copy way may carry too.
 */
bool
gpu_task_block_goes_direct(GpuTaskState *gts, BlockNumber blkno, uint64 *stamp)
{
	bool		dirty;

	*stamp = 0;
	if (!gts->direct_read || gts->mode != GPU_TASK_MODE_GPU ||
		gts->block_bounced || gts->redoing || blkno >= gts->nblocks)
		return false;
	if (gts->page_cache)
	{
		/* clean in shared buffers is fine: the file holds the same page */
		if (!vm_window_all_visible(gts, blkno, stamp))
			return false;
		/* a cache-only chunk reads no file: whether it is current is moot */
		if (gts->cache_first)
			return true;
		/* the stamp stays: a zero-copy page may be cached under it */
		return !(buffer_resident(gts->rel, blkno, &dirty) && dirty);
	}
	if (!VM_ALL_VISIBLE(gts->rel, blkno, &gts->vmbuffer))
		return false;
	return !buffer_resident(gts->rel, blkno, &dirty);
}

/*
 * Stamps the all-visible ref of a zero-copy page, whose block has stamp
 * (gpu_task_block_goes_direct), so that the device may cache its image:
 * see the file header and XPU_PAGE_STAMPED.
 */
void
gpu_task_stamp_ref(GpuTaskState *gts, XpuPageRef *ref, BlockNumber blkno,
				   uint64 stamp)
{
	Relation	rel = gts->rel;

	Assert(gts->page_cache && stamp != 0 &&
		   (ref->flags & XPU_PAGE_ALL_VISIBLE) != 0);
	ref->flags |= XPU_PAGE_STAMPED;
	ref->visible[XPU_PAGE_STAMP_LO] = (uint32) stamp;
	ref->visible[XPU_PAGE_STAMP_HI] = (uint32) (stamp >> 32);
	ref->visible[XPU_PAGE_STAMP_BLKNO] = blkno;
	ref->visible[XPU_PAGE_STAMP_SPCOID] = PgStromRelTablespace(rel);
	ref->visible[XPU_PAGE_STAMP_DBOID] = PgStromRelDatabase(rel);
	ref->visible[XPU_PAGE_STAMP_RELFILENODE] = PgStromRelFileNumber(rel);
}

/* the XpuDirectFile and block numbers of a direct-read chunk, in its buf */
void
gpu_task_direct_fill(GpuTaskState *gts, GpuTaskChunk *chunk)
{
	XpuDirectFile *df = (XpuDirectFile *) (chunk->buf + XPU_DIRECT_FILE_OFFSET);
	Relation	rel = gts->rel;

	memset(df, 0, sizeof(XpuDirectFile));
	df->spcoid = PgStromRelTablespace(rel);
	df->dboid = PgStromRelDatabase(rel);
	df->relfilenode = PgStromRelFileNumber(rel);
	df->flags = DataChecksumsEnabled() ? XPU_DIRECT_CHECKSUMS : 0;
	if (gts->page_cache)
		df->flags |= XPU_DIRECT_STAMPS;
	if (chunk->cache_only)
		df->flags |= XPU_DIRECT_CACHE_ONLY;
	df->seg_blocks = RELSEG_SIZE;
	df->rel_nblocks = gts->nblocks;
	df->pg_major = PG_MAJORVERSION_NUM;
	df->catversion = CATALOG_VERSION_NO;
	StaticAssertStmt(sizeof(BlockNumber) == sizeof(uint32),
					 "block numbers travel as uint32");
	memcpy(chunk->buf + XPU_DIRECT_BLKNOS_OFFSET, chunk->blknos,
		   sizeof(uint32) * chunk->nblocks);
	if (gts->page_cache)
	{
		Size		pad = XPU_DIRECT_STAMPS_OFFSET(chunk->nblocks) -
			(XPU_DIRECT_BLKNOS_OFFSET + sizeof(uint32) * chunk->nblocks);

		memset(chunk->buf + XPU_DIRECT_BLKNOS_OFFSET + sizeof(uint32) * chunk->nblocks, 0, pad);
		memcpy(chunk->buf + XPU_DIRECT_STAMPS_OFFSET(chunk->nblocks), chunk->stamps,
			   sizeof(uint64) * chunk->nblocks);
	}
}

/*
 * A direct-read chunk's read report (its first reply): which blocks the
 * service bounced.  They join the bounce queue once the chunk's answer is
 * complete (gpu_task_direct_answered): should the service be lost before,
 * the whole chunk is evaluated here instead.
 */
void
gpu_task_direct_report(GpuTaskState *gts, GpuTaskChunk *chunk,
					   PgStromMsgHeader *msg)
{
	XpuChunkResult *res;
	const uint32 *entries;
	uint32		i;
	int64		prev = -1;

	if (msg->tag != PGSTROM_MSG_SUCCESS_HALFWAY ||
		msg->length < sizeof(PgStromMsgHeader) + sizeof(XpuChunkResult))
	{
		pfree(msg);
		gpu_task_protocol_violation(gts, "a direct-read chunk answered without its read report");
	}
	res = (XpuChunkResult *) ((char *) msg + sizeof(PgStromMsgHeader));
	entries = (const uint32 *) ((char *) res + sizeof(XpuChunkResult));
	if (res->chunk_id != chunk->request_id || res->nitems > chunk->nblocks ||
		res->ntuples > (gts->page_cache ? chunk->nblocks - res->nitems : 0) ||
		res->nrecheck != 0 ||
		(uint64) msg->length != sizeof(PgStromMsgHeader) + sizeof(XpuChunkResult) +
		(uint64) res->nitems * sizeof(uint32))
	{
		pfree(msg);
		gpu_task_protocol_violation(gts, "malformed read report");
	}
	memset(chunk->bounced, 0, sizeof(bool) * chunk->nblocks);
	memset(chunk->not_cached, 0, sizeof(bool) * chunk->nblocks);
	chunk->nbounced = 0;
	for (i = 0; i < res->nitems; i++)
	{
		uint32		bidx = entries[i] & XPU_BOUNCE_INDEX_MASK;
		uint32		reason = entries[i] >> XPU_BOUNCE_SHIFT;

		if (bidx >= chunk->nblocks || (int64) bidx <= prev ||
			reason < XPU_BOUNCE_NOT_ALL_VISIBLE ||
			reason > (chunk->cache_only ? XPU_BOUNCE_NOT_CACHED : XPU_BOUNCE_BAD_HEADER))
		{
			pfree(msg);
			gpu_task_protocol_violation(gts, "malformed read report");
		}
		prev = bidx;
		chunk->bounced[bidx] = true;
		chunk->nbounced++;
		if (reason == XPU_BOUNCE_NOT_CACHED)
		{
			/* the rest of the scan looks blocks up before sending them */
			chunk->not_cached[bidx] = true;
			gts->cache_first = false;
		}
		else if (reason != XPU_BOUNCE_NOT_ALL_VISIBLE)
			ereport(DEBUG1,
					(errmsg_internal("%s on \"%s\": block %u read from the file %s, reading it through shared buffers",
									 gpu_task_node_name(gts),
									 RelationGetRelationName(gts->rel),
									 chunk->blknos[bidx],
									 reason == XPU_BOUNCE_CHECKSUM ?
									 "failed its checksum" : "has an invalid header")));
	}
	chunk->report_seen = true;
	gts->counters.npages_cached += res->ntuples;
	pfree(msg);
}

/* the chunk's answer is complete: its bounced blocks are to be read again */
void
gpu_task_direct_answered(GpuTaskState *gts, GpuTaskChunk *chunk)
{
	uint32		i;

	if (chunk->nbounced == 0)
		return;
	for (i = 0; i < chunk->nblocks; i++)
	{
		if (!chunk->bounced[i])
			continue;
		if (chunk->not_cached[i])
		{
			queue_block(gts, &gts->uncached, &gts->nuncached, &gts->uncached_cap,
						chunk->blknos[i]);
			/* counted again when it is sent again */
			gts->counters.npages_direct--;
		}
		else
		{
			queue_block(gts, &gts->bounce, &gts->nbounce, &gts->bounce_cap,
						chunk->blknos[i]);
			gts->counters.npages_bounced++;
		}
	}
	/* counted once, when read again */
	gts->counters.npages -= chunk->nbounced;
	gts->source_done = false;
}

/* appends blkno to a queue of blocks to read again */
static void
queue_block(GpuTaskState *gts, BlockNumber **queue, uint32 *n, uint32 *cap,
			BlockNumber blkno)
{
	if (*n == *cap)
	{
		uint32		newcap = Max(*cap * 2, 1024);
		MemoryContext oldcxt = MemoryContextSwitchTo(gts->css.ss.ps.state->es_query_cxt);

		*queue = *queue ?
			repalloc_huge(*queue, sizeof(BlockNumber) * (Size) newcap) :
			MemoryContextAllocHuge(CurrentMemoryContext, sizeof(BlockNumber) * (Size) newcap);
		MemoryContextSwitchTo(oldcxt);
		*cap = newcap;
	}
	(*queue)[(*n)++] = blkno;
}

/* releases the page the chunk read for its rows, if any */
void
gpu_task_direct_unpin(GpuTaskChunk *chunk)
{
	if (BufferIsValid(chunk->direct_buffer))
		ReleaseBuffer(chunk->direct_buffer);
	chunk->direct_buffer = InvalidBuffer;
}

/* end of scan or rescan: the visibility map page and the bounce queue */
void
gpu_task_direct_end(GpuTaskState *gts)
{
	if (BufferIsValid(gts->vmbuffer))
		ReleaseBuffer(gts->vmbuffer);
	gts->vmbuffer = InvalidBuffer;
	gts->nbounce = 0;
	gts->bounce_next = 0;
	gts->block_bounced = false;
	gts->nuncached = 0;
	gts->uncached_next = 0;
	gts->vm_win_n = 0;
}

/*
 * EXPLAIN ANALYZE: how many blocks came each way, once the scan read any
 * directly (EXPLAIN alone cannot know).
 */
void
gpu_task_direct_explain(GpuTaskState *gts, const GpuTaskCounters *c,
						ExplainState *es)
{
	uint64		direct;

	if (c->npages_direct == 0)
		return;
	direct = c->npages_direct - c->npages_bounced;
	if (es->format == EXPLAIN_FORMAT_TEXT)
	{
		appendStringInfoSpaces(es->str, es->indent * 2);
		appendStringInfo(es->str,
						 "Direct Read Blocks: " UINT64_FORMAT "  Shared Buffer Blocks: " UINT64_FORMAT "  Bounced Blocks: " UINT64_FORMAT "\n",
						 direct, c->npages - direct, c->npages_bounced);
		if (gts->page_cache || c->npages_cached > 0)
		{
			appendStringInfoSpaces(es->str, es->indent * 2);
			appendStringInfo(es->str,
							 "Device Page Cache: " UINT64_FORMAT " hits, " UINT64_FORMAT " read from files\n",
							 c->npages_cached, direct - Min(direct, c->npages_cached));
		}
	}
	else
	{
		ExplainPropertyUInteger("Direct Read Blocks", NULL, direct, es);
		ExplainPropertyUInteger("Shared Buffer Blocks", NULL, c->npages - direct, es);
		ExplainPropertyUInteger("Bounced Blocks", NULL, c->npages_bounced, es);
		if (gts->page_cache || c->npages_cached > 0)
			ExplainPropertyUInteger("Device Page Cache Hits", NULL, c->npages_cached, es);
	}
}
