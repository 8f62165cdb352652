/*-------------------------------------------------------------------------
 *
 * gpujoin_exec.c
 *		Executor of GpuJoin: begin, the runtime's ops, forming rows, rescan,
 *		end and the parallel plan's shared memory.
 *
 * At the first row the inner plans run (gpujoin_inner.c); then the runtime
 * scans the outer table in chunks.  A chunk the device answered is a list
 * of records [outer item, inner row of depth 0, ...]; each becomes one
 * row, its columns taken from the outer tuple (the chunk's page) and the
 * inner tuples the indexes name, NULL for a LEFT depth's NO_INNER.  A
 * record marked RECHECK is its outer row to join on the CPU
 * (gpujoin_cpu.c), as is every visible tuple of a chunk evaluated on the
 * CPU.  The runtime emits a chunk's records only once its SUCCESS came, and
 * redoes on the CPU a chunk whose answer never completed, so no row is
 * lost or doubled.  Outer quals the device does not evaluate (host quals)
 * are checked on every outer tuple before it is joined.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "executor/executor.h"
#include "executor/nodeSubplan.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "rewrite/rewriteManip.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "core/pg_strom.h"
#include "compat/pg_compat.h"
#include "gpujoin/gpujoin.h"

/* the form of a join row: the outer tuple and rows[d] of each depth */
void
gpujoin_form_row(GpuJoinState *gjs, const uint32 *rows, TupleTableSlot *slot)
{
	bool		stored[GPUJOIN_MAX_DEPTHS] = {false};
	int			i;

	ExecClearTuple(slot);
	for (i = 0; i < gjs->ncols; i++)
	{
		int			src = gjs->col_source[i];

		if (src == 0)
			slot->tts_values[i] = slot_getattr(gjs->outer_slot, gjs->col_attno[i],
											   &slot->tts_isnull[i]);
		else if (rows[src - 1] == GPUJOIN_NO_INNER)
		{
			slot->tts_values[i] = (Datum) 0;
			slot->tts_isnull[i] = true;
		}
		else
		{
			if (!stored[src - 1])
			{
				gpujoin_inner_tuple(gjs, src - 1, rows[src - 1]);
				stored[src - 1] = true;
			}
			slot->tts_values[i] = slot_getattr(gjs->inner_slot[src - 1],
											   gjs->col_attno[i],
											   &slot->tts_isnull[i]);
		}
	}
	ExecStoreVirtualTuple(slot);
}

/* the outer quals the device did not evaluate (and, for recheck, did not) */
static bool
outer_passes(GpuJoinState *gjs, bool with_dev_quals)
{
	ExprContext *econtext = gjs->gts.css.ss.ps.ps_ExprContext;

	econtext->ecxt_scantuple = gjs->outer_slot;
	if (with_dev_quals && !ExecQual(gjs->gts.dev_qual_state, econtext))
		return false;
	return ExecQual(gjs->host_qual_state, econtext);
}

/* the next combination of the outer row being joined on the CPU */
static bool
cpu_row_next(GpuJoinState *gjs, TupleTableSlot *slot)
{
	uint32		rows[GPUJOIN_MAX_DEPTHS];

	if (!gpujoin_cpu_next_combination(gjs, rows))
		return false;
	gpujoin_form_row(gjs, rows, slot);
	gjs->gts.counters.nrows_out++;
	return true;
}

/* an inner field of a device record, checked against its depth */
static void
check_inner_field(GpuJoinState *gjs, int d, uint32 row)
{
	JoinType	jt = gjs->info->depths[d].join_type;
	bool		ok;

	if (row == GPUJOIN_NO_INNER)
		ok = (jt != JOIN_INNER);
	else
		ok = (jt == JOIN_INNER || jt == JOIN_LEFT) && row < gjs->inner[d].nrows;
	if (!ok)
		gpu_task_protocol_violation(&gjs->gts, "a join record with an inner row its depth cannot have");
}

/* a record whose outer item is no visible tuple of the chunk */
static void
bad_record(GpuJoinState *gjs, GpuTaskChunk *chunk, const uint32 *rec)
{
	uint32		bidx = (rec[0] & ~XPU_ITEM_RECHECK) >> XPU_ITEM_BLOCK_SHIFT;

	if (bidx < chunk->nblocks)
		elog(LOG, "GpuJoin: bad record: block %u, page lines %u, lines examined %u, zero-copy %d",
			 chunk->blknos[bidx],
			 (unsigned) PageGetMaxOffsetNumber(gpu_task_chunk_page(chunk, bidx)),
			 (unsigned) gpu_task_chunk_lines(chunk, bidx), (int) chunk->zero_copy);
	ereport(ERROR,
			(errcode(ERRCODE_PROTOCOL_VIOLATION),
			 errmsg("%s on \"%s\": unexpected reply from the GPU service: a join record names no visible tuple of its chunk",
					gpu_task_node_name(&gjs->gts),
					RelationGetRelationName(gjs->gts.rel)),
			 errdetail("Record item 0x%08x (inner rows %d, %d, ...) in chunk %u of %u pages, record %u of " UINT64_FORMAT ".",
					   rec[0], (int) rec[1], gjs->info->ndepths > 1 ? (int) rec[2] : -2,
					   chunk->request_id, chunk->nblocks,
					   chunk->next_item, chunk->nitems)));
}

/* a record that matched at a LEFT depth with residual quals */
static bool
left_qual_match(GpuJoinState *gjs, const uint32 *rows)
{
	int			d;

	for (d = 0; d < gjs->info->ndepths; d++)
	{
		if (gjs->row_qual_state[d] != NULL && rows[d] != GPUJOIN_NO_INNER &&
			gjs->info->depths[d].join_type == JOIN_LEFT)
			return true;
	}
	return false;
}

/* before the chunk's first record: no outer row of it joined on the CPU */
static void
cpu_joined_reset(GpuJoinState *gjs, GpuTaskChunk *chunk)
{
	Size		bytes = ((Size) chunk->nblocks * MaxHeapTuplesPerPage + 7) / 8;

	if (bytes > gjs->cpu_joined_bytes)
	{
		if (gjs->cpu_joined)
			pfree(gjs->cpu_joined);
		gjs->cpu_joined = MemoryContextAllocHuge(gjs->gts.css.ss.ps.state->es_query_cxt,
												 bytes);
		gjs->cpu_joined_bytes = bytes;
	}
	memset(gjs->cpu_joined, 0, bytes);
}

/*
 * Whether the outer row (bidx, off) of the chunk was joined on the CPU
 * already; marks it so.  Its records, which the device interleaves with
 * other rows', all come in the chunk's replies.
 */
static bool
cpu_joined_test_and_set(GpuJoinState *gjs, uint32 bidx, OffsetNumber off)
{
	Size		bit = (Size) bidx * MaxHeapTuplesPerPage + (off - 1);
	bits8		mask = (bits8) (1 << (bit % 8));
	bool		was = (gjs->cpu_joined[bit / 8] & mask) != 0;

	gjs->cpu_joined[bit / 8] |= mask;
	return was;
}

static bool
gpujoin_gpu_next_row(GpuTaskState *gts, GpuTaskChunk *chunk,
					 TupleTableSlot *slot)
{
	GpuJoinState *gjs = (GpuJoinState *) gts;
	int			ndepths = gjs->info->ndepths;
	const char *item;

	for (;;)
	{
		uint32		rec[1 + GPUJOIN_MAX_DEPTHS];
		bool		recheck;
		uint32		bidx;
		OffsetNumber off;
		int			d;

		if (cpu_row_next(gjs, slot))
			return true;
		if (gjs->left_row_quals && chunk->cur_reply == 0 && chunk->next_item == 0)
			cpu_joined_reset(gjs, chunk);
		if (!gpu_task_chunk_next_item(gts, chunk, &item))
			return false;
		memcpy(rec, item, sizeof(uint32) * (1 + ndepths));
		recheck = (rec[0] & XPU_ITEM_RECHECK) != 0;
		bidx = (rec[0] & ~XPU_ITEM_RECHECK) >> XPU_ITEM_BLOCK_SHIFT;
		off = (OffsetNumber) (rec[0] & XPU_ITEM_OFFSET_MASK);
		if (bidx >= chunk->nblocks ||
			!gpu_task_chunk_tuple_visible(gts, chunk, bidx, off))
			bad_record(gjs, chunk, rec);
		gpu_task_store_tuple(gts, gjs->outer_slot, chunk, bidx, off);

		if (recheck)
		{
			for (d = 0; d < ndepths; d++)
			{
				if (rec[1 + d] != GPUJOIN_NO_INNER)
					gpu_task_protocol_violation(gts, "a recheck record with an inner row");
			}
			if (!pgstrom_cpu_fallback_enabled)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("%s on \"%s\": the GPU could not evaluate a row and CPU fallback is disabled",
								gpu_task_node_name(gts), RelationGetRelationName(gts->rel)),
						 errdetail("Row (%u,%u) needs its join evaluated on the CPU.",
								   chunk->blknos[bidx], (unsigned) off),
						 errhint("Set pg_strom.cpu_fallback = on.")));
			gts->counters.nrecheck++;
			if (outer_passes(gjs, true))
				gpujoin_cpu_start_row(gjs);
			continue;
		}
		for (d = 0; d < ndepths; d++)
			check_inner_field(gjs, d, rec[1 + d]);
		if (gjs->info->host_quals != NIL && !outer_passes(gjs, false))
			continue;
		if (gjs->has_row_quals && !gjs->quals_on_device)
		{
			/*
			 * The device returned every key match.  Whether a LEFT depth
			 * NULL-extends depends on all of the row's matches: such a row
			 * is joined on the CPU, at its first record.  The INNER
			 * depths' quals filter records one by one.
			 */
			if (gjs->left_row_quals && left_qual_match(gjs, rec + 1))
			{
				if (!cpu_joined_test_and_set(gjs, bidx, off))
				{
					gts->counters.node[GPUJOIN_COUNTER_CPU_JOINED]++;
					gpujoin_cpu_start_row(gjs);
				}
				continue;
			}
			if (!gpujoin_row_quals_pass(gjs, rec + 1, 0, ndepths - 1, true))
				continue;
		}
		gpujoin_form_row(gjs, rec + 1, slot);
		gts->counters.nrows_out++;
		return true;
	}
}

/* the chunk evaluated here: every visible tuple, quals, then the join */
static bool
gpujoin_cpu_next_row(GpuTaskState *gts, GpuTaskChunk *chunk,
					 TupleTableSlot *slot)
{
	GpuJoinState *gjs = (GpuJoinState *) gts;

	for (;;)
	{
		OffsetNumber maxoff;

		if (cpu_row_next(gjs, slot))
			return true;
		if (chunk->cur_block >= chunk->nblocks)
			return false;
		maxoff = gpu_task_chunk_lines(chunk, chunk->cur_block);
		if (chunk->cur_offset >= maxoff)
		{
			chunk->cur_block++;
			chunk->cur_offset = InvalidOffsetNumber;
			continue;
		}
		chunk->cur_offset++;
		if (!gpu_task_chunk_tuple_visible(gts, chunk, chunk->cur_block, chunk->cur_offset))
			continue;
		gpu_task_store_tuple(gts, gjs->outer_slot, chunk, chunk->cur_block,
							 chunk->cur_offset);
		gts->counters.nrows_in++;
		ResetExprContext(gts->css.ss.ps.ps_ExprContext);
		if (outer_passes(gjs, true))
			gpujoin_cpu_start_row(gjs);
	}
}

static StringInfo
gpujoin_session(GpuTaskState *gts, const char **cpu_reason)
{
	GpuJoinState *gjs = (GpuJoinState *) gts;
	const char *why = gpujoin_inner_cpu_reason(gjs);

	if (why != NULL)
	{
		*cpu_reason = why;
		return NULL;
	}
	return gpujoin_build_session(gjs, cpu_reason);
}

static const GpuTaskOps gpujoin_ops_template = {
	.build_session = gpujoin_session,
	.session_sent = gpujoin_send_inner_first,
	.early_reply = gpujoin_inner_early_reply,
	.session_opened = gpujoin_upload_inner,
	.item_size = 0,				/* (1 + ndepths) uint32 per record */
	.max_items_per_tuple = 0,	/* an outer row may match any number */
	.gpu_next_row = gpujoin_gpu_next_row,
	.cpu_next_row = gpujoin_cpu_next_row,
	.finish = NULL,
	.device_keeps_rows = false,
};

/* the planner's outer relid in the plan's expressions -> scanrelid */
void
gpujoin_fix_outer_varnos(GpuJoinInfo *info, Index scanrelid)
{
	int			d;

	if (info->outer_relid == scanrelid)
		return;
	ChangeVarNodes((Node *) info->dev_quals, info->outer_relid, scanrelid, 0);
	ChangeVarNodes((Node *) info->host_quals, info->outer_relid, scanrelid, 0);
	for (d = 0; d < info->ndepths; d++)
		ChangeVarNodes((Node *) info->depths[d].outer_keys, info->outer_relid,
					   scanrelid, 0);
	info->outer_relid = scanrelid;
}

static void
init_depth(GpuJoinState *gjs, int d, Plan *plan, EState *estate, int eflags)
{
	GpuJoinDepthInfo *dp = &gjs->info->depths[d];
	PlanState  *parent = &gjs->task->css.ss.ps;
	PlanState  *ps;
	ListCell   *lc1,
			   *lc2,
			   *lc3,
			   *lc4;
	int			k = 0;

	ps = gjs->inner_plans_host ? gjs->inner_plans_host->inner_ps[d] : NULL;
	if (ps == NULL)
	{
		ps = ExecInitNode(plan, estate, eflags & ~(EXEC_FLAG_BACKWARD | EXEC_FLAG_MARK));
		gjs->task->css.custom_ps = lappend(gjs->task->css.custom_ps, ps);
	}
	gjs->inner_ps[d] = ps;
	gjs->inner_slot[d] = ExecInitExtraTupleSlot(estate, ExecGetResultType(ps),
												&TTSOpsMinimalTuple);
	forfour(lc1, dp->outer_keys, lc2, dp->inner_keys, lc3, dp->key_opnos,
			lc4, dp->key_collids)
	{
		Expr	   *okey = lfirst(lc1);
		Oid			opno = lfirst_oid(lc3);
		RegProcedure lhs_hash,
					rhs_hash;

		gjs->outer_key_state[d][k] = ExecInitExpr(okey, parent);
		gjs->inner_key_state[d][k] = ExecInitExpr(lfirst(lc2), parent);
		get_typlenbyval(exprType((Node *) okey), &gjs->outer_key_typlen[d][k],
						&gjs->outer_key_byval[d][k]);
		if (!get_op_hash_functions(opno, &lhs_hash, &rhs_hash))
			elog(ERROR, "GpuJoin: no hash functions of operator %u", opno);
		fmgr_info(get_opcode(opno), &gjs->eq_fn[d][k]);
		fmgr_info(lhs_hash, &gjs->outer_hash_fn[d][k]);
		fmgr_info(rhs_hash, &gjs->inner_hash_fn[d][k]);
		gjs->collid[d][k] = lfirst_oid(lc4);
		k++;
	}
}

/*
 * The join's columns, inner plans and CPU join state, for the node
 * gjs->task (GpuJoin itself, or the GpuPreAgg it is fused under), whose
 * outer heap tuples come in outer_slot.  The outer keys read the outer
 * heap tuple as the scan tuple, not the node's virtual scan slot, which
 * the expression compiler would take as already deformed (and the JIT
 * compiler would deform by the node's descriptor): they are compiled for
 * the relation's heap tuple.
 */
void
gpujoin_init_join(GpuJoinState *gjs, GpuJoinInfo *info, List *inner_plans,
				  TupleTableSlot *outer_slot, EState *estate, int eflags)
{
	PlanState  *ps = &gjs->task->css.ss.ps;
	PgStromScanOps saved;
	ListCell   *lc1,
			   *lc2;
	int			i = 0;
	int			d;

	gjs->info = info;
	gjs->ncols = list_length(info->col_source);
	gjs->col_source = palloc(sizeof(int) * Max(gjs->ncols, 1));
	gjs->col_attno = palloc(sizeof(AttrNumber) * Max(gjs->ncols, 1));
	forboth(lc1, info->col_source, lc2, info->col_attno)
	{
		gjs->col_source[i] = lfirst_int(lc1);
		gjs->col_attno[i] = (AttrNumber) lfirst_int(lc2);
		i++;
	}
	gjs->outer_slot = outer_slot;
	pgstrom_scan_ops_push_heap(ps, outer_slot->tts_tupleDescriptor, &saved);
	gjs->host_qual_state = ExecInitQual(info->host_quals, ps);
	gjs->inner_plans = inner_plans;
	gjs->inner_plans_host = gpujoin_group_plans_host(gjs);
	d = 0;
	foreach(lc1, inner_plans)
	{
		init_depth(gjs, d, lfirst(lc1), estate, eflags);
		d++;
	}
	pgstrom_scan_ops_pop(ps, &saved);
	gjs->inner_cxt = AllocSetContextCreate(estate->es_query_cxt, "GpuJoin inner",
										   ALLOCSET_DEFAULT_SIZES);
	gjs->row_cxt = AllocSetContextCreate(estate->es_query_cxt, "GpuJoin row",
										 ALLOCSET_DEFAULT_SIZES);
}

/*
 * The residual join quals over the join row in row_slot (the node's scan
 * slot, or the fused GpuPreAgg's join row), compiled for any slot type:
 * the node's own scan ops may be fixed to the outer heap tuple's.
 */
void
gpujoin_init_row_quals(GpuJoinState *gjs, TupleTableSlot *row_slot)
{
	PlanState  *ps = &gjs->task->css.ss.ps;
	bool		fixed = ps->scanopsfixed;
	int			d;

	gjs->row_slot = row_slot;
	ps->scanopsfixed = false;
	for (d = 0; d < gjs->info->ndepths; d++)
	{
		GpuJoinDepthInfo *dp = &gjs->info->depths[d];

		gjs->row_qual_state[d] = NULL;
		if (dp->row_quals == NIL)
			continue;
		gjs->row_qual_state[d] = ExecInitQual(dp->row_quals, ps);
		gjs->has_row_quals = true;
		if (dp->join_type == JOIN_LEFT)
			gjs->left_row_quals = true;
	}
	ps->scanopsfixed = fixed;
}

static void
gpujoin_begin(CustomScanState *node, EState *estate, int eflags)
{
	GpuJoinState *gjs = (GpuJoinState *) node;
	GpuTaskState *gts = &gjs->gts;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	GpuJoinInfo *info;
	TupleTableSlot *outer_slot;
	PgStromScanOps saved;

	info = gpujoin_info_from_list(copyObject(cscan->custom_private));
	gpujoin_fix_outer_varnos(info, cscan->scan.scanrelid);
	gjs->task = gts;
	outer_slot = ExecInitExtraTupleSlot(estate,
										RelationGetDescr(node->ss.ss_currentRelation),
										&TTSOpsHeapTuple);
	gpujoin_init_join(gjs, info, cscan->custom_plans, outer_slot, estate, eflags);
	gpujoin_init_row_quals(gjs, node->ss.ss_ScanTupleSlot);
	(void) gpujoin_plan_device_quals(gjs, node->ss.ss_ScanTupleSlot->tts_tupleDescriptor,
									 info->outer_relid);
	/* as the keys: the projection was compiled already, for the join row */
	pgstrom_scan_ops_push_heap(&node->ss.ps, outer_slot->tts_tupleDescriptor, &saved);
	gts->dev_quals = info->dev_quals;
	gts->dev_qual_state = ExecInitQual(info->dev_quals, &node->ss.ps);
	pgstrom_scan_ops_pop(&node->ss.ps, &saved);
	gjs->ops = gpujoin_ops_template;
	gjs->ops.item_size = sizeof(uint32) * (1 + info->ndepths);
	gpu_task_begin(gts, &gjs->ops, estate);
}

static TupleTableSlot *
gpujoin_next(ScanState *node)
{
	GpuJoinState *gjs = (GpuJoinState *) node;
	TupleTableSlot *slot = node->ss_ScanTupleSlot;

	if (!gjs->inner_built && !gpu_task_partition_pruned(&gjs->gts))
		gpujoin_build_inner(gjs);
	if (gjs->inner_built)
		gpujoin_skip_if_empty(gjs, &gjs->gts);
	if (gpu_task_next_tuple(&gjs->gts, slot))
		return slot;
	ExecClearTuple(gjs->outer_slot);
	return ExecClearTuple(slot);
}

static bool
gpujoin_recheck(ScanState *node, TupleTableSlot *slot)
{
	return true;
}

static TupleTableSlot *
gpujoin_exec(CustomScanState *node)
{
	return ExecScan(&node->ss, gpujoin_next, gpujoin_recheck);
}

/* the inner plans' end (after the runtime's) */
void
gpujoin_end_join(GpuJoinState *gjs)
{
	int			d;

	for (d = 0; d < gjs->info->ndepths; d++)
	{
		ExecClearTuple(gjs->inner_slot[d]);
		if (gjs->inner_plans_host == NULL)
			ExecEndNode(gjs->inner_ps[d]);
	}
}

static void
gpujoin_end(CustomScanState *node)
{
	GpuJoinState *gjs = (GpuJoinState *) node;

	ExecClearTuple(gjs->outer_slot);
	gpu_task_end(&gjs->gts);
	gpujoin_end_join(gjs);
}

/*
 * Start over.  The inner rows are kept unless a parameter of an inner plan
 * changed, or the plan is parallel (its shared copy is rebuilt, see
 * gpujoin_reinitialize_dsm).  A new plan_id (the runtime's rescan) makes
 * the service load them again.
 */
static void
gpujoin_rescan(CustomScanState *node)
{
	GpuJoinState *gjs = (GpuJoinState *) node;

	ExecClearTuple(gjs->outer_slot);
	gpu_task_rescan(&gjs->gts);
	gpujoin_rescan_join(gjs, node->ss.ps.chgParam);
}

/* the join's part of a rescan, after the runtime's */
void
gpujoin_rescan_join(GpuJoinState *gjs, Bitmapset *chgParam)
{
	bool		rebuild = (gjs->jshared != NULL);
	int			d;

	gpujoin_cpu_reset(gjs);
	for (d = 0; d < gjs->info->ndepths; d++)
	{
		PlanState  *ps = gjs->inner_ps[d];

		if (chgParam != NULL)
			UpdateChangedParamSet(ps, chgParam);
		if (ps->chgParam != NULL)
			rebuild = true;
	}
	if (!rebuild)
		return;
	gpujoin_release_inner(gjs);
	for (d = 0; d < gjs->info->ndepths; d++)
		ExecReScan(gjs->inner_ps[d]);
}

/* ---- parallel plans: GpuJoinShared, then the runtime's DSM ---- */
static Size
gpujoin_estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	return add_size(MAXALIGN(sizeof(GpuJoinShared)),
					gpu_task_estimate_dsm(node, pcxt));
}

static void
gpujoin_initialize_dsm(CustomScanState *node, ParallelContext *pcxt,
					   void *coordinate)
{
	gpujoin_attach_shared((GpuJoinState *) node, coordinate, pcxt->toc, true);
	gpu_task_initialize_dsm(node, pcxt, GPUJOIN_RUNTIME_DSM(coordinate));
}

/*
 * GpuJoinShared at coordinate in the parallel query whose table of contents
 * is toc (set up by the leader: initialize, with the node's inner group)
 */
void
gpujoin_attach_shared(GpuJoinState *gjs, void *coordinate, shm_toc *toc,
					  bool initialize)
{
	GpuJoinShared *js = (GpuJoinShared *) coordinate;

	gjs->jshared = js;
	gjs->dsa = gjs->task->css.ss.ps.state->es_query_dsa;
	gjs->toc = toc;
	gpujoin_group_attach(gjs);
	if (initialize)
	{
		memset(js, 0, sizeof(GpuJoinShared));
		SpinLockInit(&js->mutex);
		gpujoin_init_build_barrier(js);
		gpujoin_init_shared_cpu_hashes(js);
		gpujoin_group_initialize_dsm(gjs);
	}
}

static void
gpujoin_reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt,
						 void *coordinate)
{
	gpu_task_reinitialize_dsm(node, pcxt, GPUJOIN_RUNTIME_DSM(coordinate));
	gpujoin_reset_shared((GpuJoinState *) node);
}

/* no participant runs now: the next ones build the rows again */
void
gpujoin_reset_shared(GpuJoinState *gjs)
{
	GpuJoinShared *js = gjs->jshared;
	int			d;

	for (d = 0; d < GPUJOIN_MAX_DEPTHS; d++)
	{
		if (DsaPointerIsValid(js->depth[d].blob))
			dsa_free(gjs->dsa, js->depth[d].blob);
	}
	gpujoin_free_shared_cpu_hashes(gjs, js);
	memset(js->depth, 0, sizeof(js->depth));
	gpujoin_init_shared_cpu_hashes(js);
	gpujoin_group_reset(gjs);
	js->build_failed = false;
	js->laid_out = false;
	gpujoin_init_build_barrier(js);
	if (gjs->inner_built)
		gpujoin_release_inner(gjs);
}

static void
gpujoin_initialize_worker(CustomScanState *node, shm_toc *toc,
						  void *coordinate)
{
	gpu_task_initialize_worker(node, toc, GPUJOIN_RUNTIME_DSM(coordinate));
	gpujoin_attach_shared((GpuJoinState *) node, coordinate, toc, false);
}

/* EXPLAIN reads the build figures after the DSM is gone: copy them */
static void
gpujoin_shutdown(CustomScanState *node)
{
	gpujoin_copy_shared_figures((GpuJoinState *) node);
	gpu_task_shutdown(node);
}

void
gpujoin_copy_shared_figures(GpuJoinState *gjs)
{
	GpuJoinShared *js = gjs->jshared;
	GpuJoinShared *bjs;
	int			d;

	if (js == NULL)
		return;
	SpinLockAcquire(&js->mutex);
	for (d = 0; d < gjs->info->ndepths; d++)
	{
		gjs->build_ns[d] = Max(gjs->build_ns[d], js->build_ns[d]);
		gjs->device_bytes[d] = Max(gjs->device_bytes[d], js->device_bytes[d]);
	}
	gjs->host_build_ns = Max(gjs->host_build_ns, js->host_build_ns);
	SpinLockRelease(&js->mutex);

	/* the rows of an inner group are the owner's build */
	bjs = gpujoin_group_build_shared(gjs);
	SpinLockAcquire(&bjs->mutex);
	if (bjs->laid_out)
	{
		for (d = 0; d < gjs->info->ndepths; d++)
		{
			gjs->shared_rows[d] = bjs->depth[d].inner.nrows;
			gjs->shared_bytes[d] = bjs->depth[d].inner.bytes;
			gjs->shared_builders[d] = bjs->depth[d].nbuilders;
			gjs->shared_cpu_hash[d] = bjs->depth[d].cpu_hash.state;
			gjs->shared_cpu_hash_users[d] = bjs->depth[d].cpu_hash.users;
		}
		gjs->shared_figures = true;
	}
	SpinLockRelease(&bjs->mutex);
}

CustomExecMethods gpujoin_exec_methods = {
	.CustomName = GPUJOIN_NAME,
	.BeginCustomScan = gpujoin_begin,
	.ExecCustomScan = gpujoin_exec,
	.EndCustomScan = gpujoin_end,
	.ReScanCustomScan = gpujoin_rescan,
	.EstimateDSMCustomScan = gpujoin_estimate_dsm,
	.InitializeDSMCustomScan = gpujoin_initialize_dsm,
	.ReInitializeDSMCustomScan = gpujoin_reinitialize_dsm,
	.InitializeWorkerCustomScan = gpujoin_initialize_worker,
	.ShutdownCustomScan = gpujoin_shutdown,
	.ExplainCustomScan = gpujoin_explain,
};

Node *
gpujoin_create_state(CustomScan *cscan)
{
	GpuJoinState *gjs = (GpuJoinState *) newNode(sizeof(GpuJoinState),
												 T_CustomScanState);

	gjs->gts.css.flags = cscan->flags;
	gjs->gts.css.methods = &gpujoin_exec_methods;
	gjs->task = &gjs->gts;
	return (Node *) gjs;
}
