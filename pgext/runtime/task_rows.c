/*-------------------------------------------------------------------------
 *
 * task_rows.c
 *		Forming rows from a chunk's page copies.
 *
 * The device never forms rows: it returns items that name tuples of the
 * chunk's pages, and the backend forms each row from its own copy of the
 * page (or pinned buffer), so every value is PostgreSQL's.  These helpers serve the nodes'
 * gpu_next_row and cpu_next_row:
 *	- gpu_task_chunk_next_item walks the items of every reply to a chunk;
 *	- gpu_task_position_next_row reads items that are tuple positions
 *	  (XPU_ITEM_*), checking each against the page before it is used, and
 *	  evaluates RECHECK rows with PostgreSQL's executor;
 *	- gpu_task_qual_next_row evaluates a chunk on the CPU: every visible
 *	  tuple through the device quals.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "executor/executor.h"
#include "utils/rel.h"

#include "core/pg_strom.h"
#include "runtime/gpu_task.h"

/* tuple off of the chunk's page bidx into slot (a heap-tuple slot) */
void
gpu_task_store_tuple(GpuTaskState *gts, TupleTableSlot *slot,
					 GpuTaskChunk *chunk, uint32 bidx, OffsetNumber off)
{
	Page		page = gpu_task_chunk_page(chunk, bidx);
	ItemId		lp = PageGetItemId(page, off);
	HeapTuple	tuple = &gts->tuple;

	tuple->t_data = (HeapTupleHeader) PageGetItem(page, lp);
	tuple->t_len = ItemIdGetLength(lp);
	ItemPointerSet(&tuple->t_self, chunk->blknos[bidx], off);
	tuple->t_tableOid = RelationGetRelid(gts->rel);
	ExecStoreHeapTuple(tuple, slot, false);
}

static inline bool
eval_dev_quals(GpuTaskState *gts, TupleTableSlot *slot)
{
	ExprContext *econtext = gts->css.ss.ps.ps_ExprContext;

	ResetExprContext(econtext);
	econtext->ecxt_scantuple = slot;
	return ExecQual(gts->dev_qual_state, econtext);
}

/*
 * The next item of the chunk's replies (ops->item_size bytes, unaligned):
 * false when every reply is read.  The replies were checked when they
 * arrived, so the items lie within them.
 */
bool
gpu_task_chunk_next_item(GpuTaskState *gts, GpuTaskChunk *chunk,
						 const char **item)
{
	while (chunk->cur_reply < list_length(chunk->replies))
	{
		PgStromMsgHeader *msg = list_nth(chunk->replies, chunk->cur_reply);
		XpuChunkResult *res = (XpuChunkResult *) ((char *) msg + sizeof(PgStromMsgHeader));

		if (chunk->next_item < res->nitems)
		{
			*item = (const char *) res + sizeof(XpuChunkResult) +
				(Size) chunk->next_item++ * gts->ops->item_size;
			return true;
		}
		chunk->cur_reply++;
		chunk->next_item = 0;
	}
	return false;
}

/*
 * The next row the device returned by position, in slot: a row that passed
 * the device quals, or a RECHECK row that passes them here.  With
 * recheck_only, the node's device keeps the rows that pass, so every item
 * must be a RECHECK row.
 */
bool
gpu_task_position_next_row(GpuTaskState *gts, GpuTaskChunk *chunk,
						   TupleTableSlot *slot, bool recheck_only)
{
	const char *item;

	Assert(gts->ops->item_size == sizeof(uint32));
	while (gpu_task_chunk_next_item(gts, chunk, &item))
	{
		uint32		entry;
		bool		recheck;
		uint32		bidx;
		OffsetNumber off;

		memcpy(&entry, item, sizeof(entry));
		recheck = (entry & XPU_ITEM_RECHECK) != 0;
		bidx = (entry & ~XPU_ITEM_RECHECK) >> XPU_ITEM_BLOCK_SHIFT;
		off = (OffsetNumber) (entry & XPU_ITEM_OFFSET_MASK);
		if (bidx >= chunk->nblocks)
			gpu_task_protocol_violation(gts, "row position outside the chunk");
		if (!gpu_task_chunk_tuple_visible(gts, chunk, bidx, off))
			gpu_task_protocol_violation(gts, "row position that is not a visible tuple");
		if (!recheck && recheck_only)
			gpu_task_protocol_violation(gts, "a row that is not marked recheck in a reply that must hold only those");

		gpu_task_store_tuple(gts, slot, chunk, bidx, off);
		if (recheck)
		{
			if (!pgstrom_cpu_fallback_enabled)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("%s on \"%s\": the GPU could not evaluate a row and CPU fallback is disabled",
								gpu_task_node_name(gts), RelationGetRelationName(gts->rel)),
						 errdetail("Row (%u,%u) needs its device quals evaluated on the CPU.",
								   chunk->blknos[bidx], (unsigned) off),
						 errhint("Set pg_strom.cpu_fallback = on.")));
			gts->counters.nrecheck++;
			if (!eval_dev_quals(gts, slot))
				continue;
		}
		gts->counters.nrows_out++;
		return true;
	}
	return false;
}

/*
 * The next visible tuple of the chunk that passes the device quals, in
 * slot: the chunk evaluated on the CPU.
 */
bool
gpu_task_qual_next_row(GpuTaskState *gts, GpuTaskChunk *chunk,
					   TupleTableSlot *slot)
{
	while (chunk->cur_block < chunk->nblocks)
	{
		OffsetNumber maxoff = gpu_task_chunk_lines(chunk, chunk->cur_block);

		while (chunk->cur_offset < maxoff)
		{
			OffsetNumber off = ++chunk->cur_offset;

			if (!gpu_task_chunk_tuple_visible(gts, chunk, chunk->cur_block, off))
				continue;
			gpu_task_store_tuple(gts, slot, chunk, chunk->cur_block, off);
			gts->counters.nrows_in++;
			if (eval_dev_quals(gts, slot))
			{
				gts->counters.nrows_out++;
				return true;
			}
		}
		chunk->cur_block++;
		chunk->cur_offset = InvalidOffsetNumber;
	}
	return false;
}
