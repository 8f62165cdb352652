/*-------------------------------------------------------------------------
 *
 * task_source.c
 *		The blocks a GPU node scans, and how many go into one chunk.
 *
 * Blocks come from 0..nblocks-1 (nblocks taken when the scan starts, as
 * heap_beginscan does), or, in a parallel scan, from the shared parallel
 * block scan so that each block goes to exactly one participant.
 *
 * Chunk size.  In a parallel scan no chunk takes more than a fair share
 * of the relation, 1/GPU_TASK_CHUNKS_PER_PARTICIPANT of a participant's
 * (but at least GPU_TASK_MIN_SHARED_CHUNK_BLOCKS): the leader starts
 * before the workers, and with whole 4096-block chunks it took most of a
 * small relation (8196 of a 9330-block inner table of SSB) in its first
 * milliseconds and then produced its rows alone while the workers found
 * nothing left.  Large relations are not affected.  A partition's node
 * that one participant runs whole (GPU_PATH_WHOLE_LEAF) has no one to
 * share with: split for all of the Gather's 17 participants, a partition
 * of 19,000 blocks would go out in 68 chunks instead of 5.
 *
 * A zero-copy chunk keeps every page it names pinned until
 * its rows are emitted, and a participant has up to max_inflight chunks in
 * flight plus the one being emitted.  So that no mix of concurrent scans
 * can pin every shared buffer, a backend pins at most its share of them,
 * NBuffers / (MaxBackends + NUM_AUXILIARY_PROCS) (the share PostgreSQL 17
 * gives each backend, GetPinLimit), divided among its chunks.  Below
 * GPU_TASK_MIN_ZERO_COPY_BLOCKS per chunk the round trips would cost more
 * than copying, and the node copies pages as before.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/tableam.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/predicate.h"
#include "storage/proc.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "core/pg_strom.h"
#include "planner/gpu_partitions.h"
#include "runtime/gpu_task.h"

/* blocks at which a chunk goes out (see the header) */
static uint32
fair_share(GpuTaskState *gts)
{
	uint64		participants;
	uint64		share;

	if (gts->shared == NULL || gts->shared->nparticipants <= 1 ||
		(gts->css.flags & GPU_PATH_WHOLE_LEAF) != 0)
		return GPU_TASK_CHUNK_MAX_BLOCKS;
	participants = (uint64) gts->shared->nparticipants;
	share = ((uint64) gts->nblocks + participants * GPU_TASK_CHUNKS_PER_PARTICIPANT - 1) /
		(participants * GPU_TASK_CHUNKS_PER_PARTICIPANT);
	return (uint32) Min(Max(share, (uint64) GPU_TASK_MIN_SHARED_CHUNK_BLOCKS),
						(uint64) GPU_TASK_CHUNK_MAX_BLOCKS);
}

/*
 * Called once per scan (and again after a rescan) before the first chunk.
 */
void
gpu_task_source_begin(GpuTaskState *gts)
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
	gts->chunk_fill_limit = fair_share(gts);
	gpu_task_direct_begin(gts);
}

void
gpu_task_source_reset(GpuTaskState *gts)
{
	gts->started = false;
	gts->source_done = false;
	gts->next_blkno = 0;
	gts->pscan_inited = false;
	gts->zero_copy = GPU_TASK_PATH_UNDECIDED;
	gpu_task_direct_end(gts);
}

BlockNumber
gpu_task_next_block(GpuTaskState *gts)
{
	BlockNumber blkno;

	/* blocks the service sent back come first, whatever the source */
	gts->block_bounced = (gts->bounce_next < gts->nbounce);
	if (gts->block_bounced)
		return gts->bounce[gts->bounce_next++];
	if (gts->uncached_next < gts->nuncached)
		return gts->uncached[gts->uncached_next++];
	if (gts->source_done)
		return InvalidBlockNumber;
	if (gts->redoing)
		blkno = gpu_task_kept_next_redo_block(gts);
	else if (gts->pscan == NULL)
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

/* blocks a zero-copy chunk may pin, within this backend's share of pins */
static uint32
zero_copy_capacity(GpuTaskState *gts)
{
	uint64		pins = (uint64) NBuffers / (uint64) (MaxBackends + NUM_AUXILIARY_PROCS);

	/* in flight, emitted, being built; and with direct read one more, the
	 * chunk of pages filled while direct-read chunks go out */
	uint64		chunks = gts->max_inflight + (gts->direct_read ? 2 : 1);

	return (uint32) Min(pins / chunks, (uint64) GPU_TASK_CHUNK_MAX_BLOCKS);
}

/*
 * Decides, before the scan's first chunk, whether its chunks name pinned
 * shared buffers (zero-copy) or carry page copies: zero-copy needs enough
 * pins, and, while the device does the work, a device that registered
 * shared buffers.  On the CPU path pinned pages save the copy as well.
 */
static void
choose_data_path(GpuTaskState *gts)
{
	bool		device_ok = (gts->mode == GPU_TASK_MODE_CPU ||
							 gts->device_registered);
	uint32		zc_capacity = zero_copy_capacity(gts);

	if (!pgstrom_zero_copy)
	{
		gts->zero_copy = GPU_TASK_PATH_COPY;
		snprintf(gts->copy_reason, sizeof(gts->copy_reason),
				 "pg_strom.zero_copy is off");
	}
	else if (RelationUsesLocalBuffers(gts->rel))
	{
		/* local buffers are this backend's memory, not shared buffers */
		gts->zero_copy = GPU_TASK_PATH_COPY;
		snprintf(gts->copy_reason, sizeof(gts->copy_reason),
				 "a temporary table is in local buffers");
	}
	else if (!device_ok)
	{
		gts->zero_copy = GPU_TASK_PATH_COPY;
		snprintf(gts->copy_reason, sizeof(gts->copy_reason),
				 "the GPU service did not register shared buffers%s%s",
				 gts->device_reason[0] ? ": " : "", gts->device_reason);
	}
	else if (zc_capacity < GPU_TASK_MIN_ZERO_COPY_BLOCKS)
	{
		gts->zero_copy = GPU_TASK_PATH_COPY;
		snprintf(gts->copy_reason, sizeof(gts->copy_reason),
				 "shared_buffers allows %u pinned pages per chunk, fewer than %d",
				 zc_capacity, GPU_TASK_MIN_ZERO_COPY_BLOCKS);
	}
	else
		gts->zero_copy = GPU_TASK_PATH_ZERO_COPY;
	if (gts->zero_copy == GPU_TASK_PATH_COPY)
		ereport(DEBUG1,
				(errmsg_internal("%s on \"%s\" copies pages: %s",
								 gpu_task_node_name(gts),
								 RelationGetRelationName(gts->rel),
								 gts->copy_reason)));
}

/*
 * Blocks per chunk for this scan; starts the block source, since that
 * fixes the number of blocks, and decides the data path.
 */
uint32
gpu_task_chunk_capacity(GpuTaskState *gts)
{
	uint32		capacity;

	gpu_task_source_begin(gts);
	if (gts->zero_copy == GPU_TASK_PATH_UNDECIDED)
		choose_data_path(gts);
	capacity = Min((BlockNumber) GPU_TASK_CHUNK_MAX_BLOCKS, gts->nblocks);
	if (gts->zero_copy == GPU_TASK_PATH_ZERO_COPY)
		capacity = Min(capacity, zero_copy_capacity(gts));
	return Max(capacity, 1);
}
