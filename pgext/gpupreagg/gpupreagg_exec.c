/*-------------------------------------------------------------------------
 *
 * gpupreagg_exec.c
 *		Executor of GpuPreAgg.
 *
 * The node uses the GPU runtime (runtime/: chunks with MVCC resolved on
 * the CPU, parallel block sharing, the service connection, in-flight flow
 * control, the CPU path) with its own session, replies and end of scan.
 * At the first call it runs the whole scan:
 *	- the device accumulates the rows it can into its table for the
 *	  plan_id; the rows it returns (all RECHECK), or on the CPU path every
 *	  visible row, pass the device quals through ExecQual and are
 *	  accumulated here, into a TupleHashTable whose entries carry an
 *	  accumulator area in the device's layout (gpupreagg_accum_*);
 *	- at the end, TaskFinal; the last participant of the plan_id gets the
 *	  device's entries (PGSTROM_MSG_SUCCESS_HALFWAY) before the Success.
 * Then it emits one partial-aggregate tuple per device entry and per CPU
 * group.  The final Agg above combines them, so a group may come in
 * several tuples.
 *
 * Once a chunk went to the device (here or, in a parallel plan, in any
 * participant) the service's table holds rows nobody else has: losing the
 * service then is an ERROR (device_keeps_rows in its ops), never a
 * fallback.  Before that the runtime's CPU fallback rules apply.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "common/hashfn.h"
#include "executor/executor.h"
#include "executor/nodeHash.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "rewrite/rewriteManip.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
#include "utils/typcache.h"

#include "codegen/codegen.h"
#include "core/pg_strom.h"
#include "gpupreagg/gpupreagg_internal.h"


static void gpupreagg_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *gpupreagg_exec(CustomScanState *node);
static void gpupreagg_end(CustomScanState *node);
static void gpupreagg_rescan(CustomScanState *node);

CustomExecMethods gpupreagg_exec_methods = {
	.CustomName = GPUPREAGG_NAME,
	.BeginCustomScan = gpupreagg_begin,
	.ExecCustomScan = gpupreagg_exec,
	.EndCustomScan = gpupreagg_end,
	.ReScanCustomScan = gpupreagg_rescan,
	.EstimateDSMCustomScan = gpu_task_estimate_dsm,
	.InitializeDSMCustomScan = gpu_task_initialize_dsm,
	.ReInitializeDSMCustomScan = gpu_task_reinitialize_dsm,
	.InitializeWorkerCustomScan = gpu_task_initialize_worker,
	.ShutdownCustomScan = gpu_task_shutdown,
	.ExplainCustomScan = gpupreagg_explain,
};

Node *
gpupreagg_create_state(CustomScan *cscan)
{
	GpuPreAggState *pas = (GpuPreAggState *) newNode(sizeof(GpuPreAggState),
													 T_CustomScanState);

	pas->gts.css.flags = cscan->flags;
	pas->gts.css.methods = &gpupreagg_exec_methods;
	/* the scan tuple is virtual: keys and partial states */
	return (Node *) pas;
}

/* ----------------------------------------------------------------
 * the node's runtime ops: session, replies, end of scan
 * ----------------------------------------------------------------
 */
static StringInfo
gpupreagg_build_session(GpuTaskState *gts, const char **cpu_reason)
{
	GpuPreAggState *pas = (GpuPreAggState *) gts;
	CustomScan *cscan = (CustomScan *) gts->css.ss.ps.plan;

	return pgstrom_build_gpupreagg_session(pas->info,
										   cscan->scan.scanrelid,
										   gts->rel,
										   gts->css.ss.ps.ps_ExprContext,
										   gts->plan_id,
										   PGSTROM_SESSION_REQUEST_ID);
}

/* the device keeps the rows it accumulates: replies hold RECHECK rows only */
static bool
gpupreagg_gpu_next_row(GpuTaskState *gts, GpuTaskChunk *chunk,
					   TupleTableSlot *slot)
{
	return gpu_task_position_next_row(gts, chunk, slot, true);
}

static void
accept_groups(GpuPreAggState *pas, PgStromMsgHeader *msg)
{
	GpuTaskState *gts = &pas->gts;
	XpuPreAggGroups *g;
	uint32		i;

	if (msg->length < sizeof(PgStromMsgHeader) + sizeof(XpuPreAggGroups))
		gpu_task_protocol_violation(gts, "truncated groups message");
	g = (XpuPreAggGroups *) ((char *) msg + sizeof(PgStromMsgHeader));
	if (g->entry_size != pas->layout.entry_size ||
		(uint64) msg->length != sizeof(PgStromMsgHeader) +
		sizeof(XpuPreAggGroups) + (uint64) g->nentries * g->entry_size)
		gpu_task_protocol_violation(gts, "malformed groups message");
	for (i = 0; i < g->nentries; i++)
	{
		XpuPreAggEntryHeader eh;

		memcpy(&eh, (char *) g + sizeof(XpuPreAggGroups) +
			   (Size) i * g->entry_size, sizeof(eh));
		if ((eh.flags & XPU_PREAGG_ENTRY_VALID) == 0)
			gpu_task_protocol_violation(gts, "a group entry that is not valid");
	}
	gts->counters.node[GPA_COUNTER_GROUPS_GPU] += g->nentries;
	gts->counters.node[GPA_COUNTER_GROWTHS] =
		Max(gts->counters.node[GPA_COUNTER_GROWTHS], (uint64) g->ngrowths);
	pas->group_msgs = lappend(pas->group_msgs, msg);
}

/*
 * The next message of the TaskFinal reply: a groups message (kept for
 * emission; more may follow) or the Success that ends it (the runtime then
 * closes the connection and publishes the counters, the groups counted
 * while emitting included).  Failures lose the device's rows when it has
 * any: the runtime raises then.
 */
static void
read_final_reply(GpuPreAggState *pas)
{
	PgStromMsgHeader *msg = gpu_task_read_final(&pas->gts,
												pas->final_request_id);

	pas->groups_pending = (msg != NULL);
	if (msg != NULL)
		accept_groups(pas, msg);
}

/*
 * TaskFinal, and the first message of its reply.  The device's groups (if
 * this is the plan_id's last session) come in messages of at most
 * XPU_PREAGG_GROUPS_BYTES, read one at a time while they are emitted, so
 * only one is held in memory.
 */
static void
gpupreagg_finish(GpuTaskState *gts)
{
	GpuPreAggState *pas = (GpuPreAggState *) gts;
	char		errbuf[GPU_TASK_REASON_LEN];

	pas->final_request_id = gpu_task_send_final(gts, PGSTROM_FINAL_COLLECT, errbuf, sizeof(errbuf));
	if (pas->final_request_id == 0)
	{
		gpu_task_use_cpu(gts, errbuf);
		return;
	}
	read_final_reply(pas);
}

static const GpuTaskOps gpupreagg_ops = {
	.build_session = gpupreagg_build_session,
	.item_size = sizeof(uint32),
	.max_items_per_tuple = 1,
	.gpu_next_row = gpupreagg_gpu_next_row,
	.cpu_next_row = gpu_task_qual_next_row,
	.finish = gpupreagg_finish,
	.device_keeps_rows = true,
};

/* ----------------------------------------------------------------
 * CPU accumulation
 * ----------------------------------------------------------------
 */
static char *
new_cpu_entry(GpuPreAggState *pas)
{
	char	   *entry = MemoryContextAllocZero(pas->table_cxt,
											   pas->layout.entry_size);
	int			j;

	for (j = 0; j < pas->naggs; j++)
		gpupreagg_accum_init(pas->aggs[j], entry + pas->layout.agg_offset[j]);
	return entry;
}

/*
 * One row that passed the device quals (econtext's scan tuple): its group,
 * then each aggregate whose FILTER passes.  Evaluated in PostgreSQL's
 * order (keys, then per aggregate the FILTER before the argument), so
 * PostgreSQL's own errors come where they would.
 */
static void
accumulate_row(GpuPreAggState *pas)
{
	ExprContext *econtext = pas->gts.css.ss.ps.ps_ExprContext;
	char	   *entry;
	int			i;

	if (pas->nkeys == 0)
	{
		if (pas->plain_entry == NULL)
			pas->plain_entry = new_cpu_entry(pas);
		pas->plain_used = true;
		entry = pas->plain_entry;
	}
	else
	{
		TupleTableSlot *kslot = pas->key_slot;
		TupleHashEntry he;
		bool		isnew;

		ExecClearTuple(kslot);
		for (i = 0; i < pas->nkeys; i++)
			kslot->tts_values[i] = ExecEvalExprSwitchContext(pas->key_states[i],
															 econtext,
															 &kslot->tts_isnull[i]);
		ExecStoreVirtualTuple(kslot);
		he = LookupTupleHashEntry(pas->hashtable, kslot, &isnew, NULL);
		if (isnew)
		{
			he->additional = new_cpu_entry(pas);
			pas->gts.counters.node[GPA_COUNTER_GROUPS_CPU]++;
		}
		entry = he->additional;
	}

	for (i = 0; i < pas->naggs; i++)
	{
		Datum		value = (Datum) 0;
		bool		isnull = false;

		if (pas->filter_states[i])
		{
			Datum		f = ExecEvalExprSwitchContext(pas->filter_states[i],
													  econtext, &isnull);

			if (isnull || !DatumGetBool(f))
				continue;
			isnull = false;
		}
		if (pas->arg_states[i])
			value = ExecEvalExprSwitchContext(pas->arg_states[i], econtext,
											  &isnull);
		gpupreagg_accum_add(pas->aggs[i], entry + pas->layout.agg_offset[i],
							value, isnull);
	}
}

/*
 * The CPU's groups are bounded by hash_mem (work_mem * hash_mem_multiplier),
 * as PostgreSQL's own partial HashAgg is: past it they are emitted as they
 * are and the table starts over.  The final Agg combines a group that comes
 * out more than once, so this never changes a result.
 */
static bool
cpu_groups_full(GpuPreAggState *pas)
{
	return pas->nkeys > 0 &&
		MemoryContextMemAllocated(pas->table_cxt, true) > get_hash_memory_limit();
}

/*
 * Scans until the end, or until the CPU's groups are full (then false:
 * emit them, reset them, and call again).
 */
static bool
run_scan(GpuPreAggState *pas)
{
	while (gpu_task_next_tuple(&pas->gts, pas->heap_slot))
	{
		CHECK_FOR_INTERRUPTS();
		accumulate_row(pas);
		if (cpu_groups_full(pas))
			return false;
	}
	if (pas->nkeys == 0 && pas->plain_used)
		pas->gts.counters.node[GPA_COUNTER_GROUPS_CPU]++;
	/* the groups counted above come after the scan's last publication */
	gpu_task_publish_counters(&pas->gts);
	pas->aggregated = true;
	pas->emit_entry = 0;
	return true;
}

/* after a flush: the CPU's groups start over, the scan goes on */
static void
restart_cpu_groups(GpuPreAggState *pas)
{
	ResetTupleHashTable(pas->hashtable);
	ExecClearTuple(pas->iter_slot);
	MemoryContextReset(pas->table_cxt);
	pas->emit_cpu_started = false;
	pas->flushing = false;
	pas->gts.counters.node[GPA_COUNTER_FLUSHES]++;
}

/* ----------------------------------------------------------------
 * emission
 * ----------------------------------------------------------------
 */
static TupleTableSlot *
emit_entry(GpuPreAggState *pas, TupleTableSlot *slot, const char *entry,
		   TupleTableSlot *keys_from)
{
	int			i;

	ExecClearTuple(slot);
	for (i = 0; i < pas->nkeys; i++)
	{
		if (keys_from)
		{
			slot->tts_values[i] = keys_from->tts_values[i];
			slot->tts_isnull[i] = keys_from->tts_isnull[i];
		}
		else
			slot->tts_values[i] =
				gpupreagg_key_datum(pas->key_types[i], pas->layout.key_xtype[i],
									entry + pas->layout.key_offset[i],
									pas->layout.key_width[i],
									&slot->tts_isnull[i]);
	}
	for (i = 0; i < pas->naggs; i++)
		slot->tts_values[pas->nkeys + i] =
			gpupreagg_partial_state(pas->aggs[i],
									entry + pas->layout.agg_offset[i],
									&slot->tts_isnull[pas->nkeys + i]);
	return ExecStoreVirtualTuple(slot);
}

static TupleTableSlot *
gpupreagg_next(ScanState *node)
{
	GpuPreAggState *pas = (GpuPreAggState *) node;
	TupleTableSlot *slot = node->ss_ScanTupleSlot;
	ExprContext *econtext = node->ps.ps_ExprContext;
	MemoryContext oldcxt;
	TupleTableSlot *result = NULL;

	/* values live in the per-tuple memory, which ExecScan resets */
	ResetExprContext(econtext);

	/* the scan, with the CPU's groups flushed whenever they fill hash_mem */
	while (!pas->aggregated && !pas->flushing)
	{
		if (!run_scan(pas))
			pas->flushing = true;
	}
	oldcxt = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
	if (pas->flushing)
	{
		TupleHashEntry he;

		if (!pas->emit_cpu_started)
		{
			InitTupleHashIterator(pas->hashtable, &pas->emit_iter);
			pas->emit_cpu_started = true;
		}
		he = ScanTupleHashTable(pas->hashtable, &pas->emit_iter);
		if (he != NULL)
		{
			ExecStoreMinimalTuple(he->firstTuple, pas->iter_slot, false);
			slot_getallattrs(pas->iter_slot);
			result = emit_entry(pas, slot, he->additional, pas->iter_slot);
			MemoryContextSwitchTo(oldcxt);
			return result;
		}
		MemoryContextSwitchTo(oldcxt);
		restart_cpu_groups(pas);
		return gpupreagg_next(node);
	}

	/* the device's entries, one groups message at a time */
	while (result == NULL && (pas->group_msgs != NIL || pas->groups_pending))
	{
		PgStromMsgHeader *msg;
		XpuPreAggGroups *g;

		if (pas->group_msgs == NIL)
		{
			MemoryContextSwitchTo(oldcxt);
			read_final_reply(pas);
			MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
			continue;
		}
		msg = linitial(pas->group_msgs);
		g = (XpuPreAggGroups *) ((char *) msg + sizeof(PgStromMsgHeader));
		if (pas->emit_entry < g->nentries)
		{
			const char *entry = (char *) g + sizeof(XpuPreAggGroups) +
				(Size) pas->emit_entry * g->entry_size;

			pas->emit_entry++;
			result = emit_entry(pas, slot, entry, NULL);
		}
		else
		{
			/* the tuples made from it hold copies, not pointers into it */
			pas->group_msgs = list_delete_first(pas->group_msgs);
			pfree(msg);
			pas->emit_entry = 0;
		}
	}

	/* then the CPU's groups */
	if (result == NULL && !pas->emit_done)
	{
		if (pas->nkeys == 0)
		{
			if (pas->plain_used)
				result = emit_entry(pas, slot, pas->plain_entry, NULL);
			pas->emit_done = true;
		}
		else
		{
			TupleHashEntry he;

			if (!pas->emit_cpu_started)
			{
				InitTupleHashIterator(pas->hashtable, &pas->emit_iter);
				pas->emit_cpu_started = true;
			}
			he = ScanTupleHashTable(pas->hashtable, &pas->emit_iter);
			if (he == NULL)
				pas->emit_done = true;
			else
			{
				ExecStoreMinimalTuple(he->firstTuple, pas->iter_slot, false);
				slot_getallattrs(pas->iter_slot);
				result = emit_entry(pas, slot, he->additional, pas->iter_slot);
			}
		}
	}
	MemoryContextSwitchTo(oldcxt);
	return result ? result : ExecClearTuple(slot);
}

static bool
gpupreagg_recheck(ScanState *node, TupleTableSlot *slot)
{
	return true;
}

static TupleTableSlot *
gpupreagg_exec(CustomScanState *node)
{
	return ExecScan(&node->ss, gpupreagg_next, gpupreagg_recheck);
}

/* ----------------------------------------------------------------
 * begin, end, rescan
 * ----------------------------------------------------------------
 */

/* the one varno of the Vars in the expressions, 0 if none */
static bool
find_varno_walker(Node *node, Index *varno)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var) && ((Var *) node)->varlevelsup == 0)
	{
		Var		   *var = (Var *) node;

		if (*varno != 0 && *varno != var->varno)
			elog(ERROR, "GpuPreAgg: expressions over more than one relation");
		*varno = var->varno;
		return false;
	}
	return expression_tree_walker(node, find_varno_walker, (void *) varno);
}

/*
 * custom_private is not touched by set_plan_refs: its Vars carry the
 * planner's range table index, which differs from scanrelid when the
 * query was a subquery flattened into a larger range table.
 */
static void
fix_info_varnos(GpuPreAggInfo *info, Index scanrelid)
{
	Index		varno = 0;
	ListCell   *lc;

	find_varno_walker((Node *) info->dev_quals, &varno);
	find_varno_walker((Node *) info->keys, &varno);
	foreach(lc, info->aggs)
	{
		GpuPreAggAgg *agg = lfirst(lc);

		find_varno_walker((Node *) agg->arg, &varno);
		find_varno_walker((Node *) agg->filter, &varno);
	}
	fix_opfuncids((Node *) info->dev_quals);
	fix_opfuncids((Node *) info->keys);
	foreach(lc, info->aggs)
	{
		GpuPreAggAgg *agg = lfirst(lc);

		fix_opfuncids((Node *) agg->arg);
		fix_opfuncids((Node *) agg->filter);
	}
	if (varno == 0 || varno == scanrelid)
		return;
	ChangeVarNodes((Node *) info->dev_quals, varno, scanrelid, 0);
	ChangeVarNodes((Node *) info->keys, varno, scanrelid, 0);
	foreach(lc, info->aggs)
	{
		GpuPreAggAgg *agg = lfirst(lc);

		ChangeVarNodes((Node *) agg->arg, varno, scanrelid, 0);
		ChangeVarNodes((Node *) agg->filter, varno, scanrelid, 0);
	}
}

static void
build_cpu_table(GpuPreAggState *pas, EState *estate)
{
	PlanState  *ps = &pas->gts.css.ss.ps;
	TupleDesc	kdesc;
	AttrNumber *keycols;
	Oid		   *eqops;
	Oid		   *collations;
	Oid		   *eqfuncs;
	FmgrInfo   *hashfuncs;
	long		nbuckets;
	ListCell   *lc;
	int			i = 0;

	pas->table_cxt = AllocSetContextCreate(estate->es_query_cxt,
										   "GpuPreAgg CPU groups",
										   ALLOCSET_DEFAULT_SIZES);
	kdesc = ExecTypeFromExprList(pas->info->keys);
	/* lookups take the keys in a virtual slot; the table hands back minimal tuples */
	pas->key_slot = ExecInitExtraTupleSlot(estate, kdesc, &TTSOpsVirtual);
	pas->iter_slot = ExecInitExtraTupleSlot(estate, kdesc, &TTSOpsMinimalTuple);
	if (pas->nkeys == 0)
		return;
	keycols = palloc(sizeof(AttrNumber) * pas->nkeys);
	eqops = palloc(sizeof(Oid) * pas->nkeys);
	collations = palloc(sizeof(Oid) * pas->nkeys);
	foreach(lc, pas->info->keys)
	{
		Node	   *key = lfirst(lc);
		TypeCacheEntry *tce = lookup_type_cache(exprType(key), TYPECACHE_EQ_OPR);

		if (!OidIsValid(tce->eq_opr))
			elog(ERROR, "GpuPreAgg: no equality operator for type %u", exprType(key));
		keycols[i] = i + 1;
		eqops[i] = tce->eq_opr;
		collations[i] = exprCollation(key);
		i++;
	}
	execTuplesHashPrepare(pas->nkeys, eqops, &eqfuncs, &hashfuncs);
	nbuckets = (long) Min(Max(pas->info->ngroups, 256.0), 1048576.0);
	pas->hashtable = BuildTupleHashTableExt(ps, kdesc, pas->nkeys, keycols,
											eqfuncs, hashfuncs, collations,
											nbuckets, 0,
											estate->es_query_cxt,
											pas->table_cxt,
											ps->ps_ExprContext->ecxt_per_tuple_memory,
											true);
}

static void
gpupreagg_begin(CustomScanState *node, EState *estate, int eflags)
{
	GpuPreAggState *pas = (GpuPreAggState *) node;
	GpuTaskState *gts = &pas->gts;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	PlanState  *ps = &node->ss.ps;
	TupleDesc	reldesc;
	const TupleTableSlotOps *save_ops;
	TupleDesc	save_desc;
	bool		save_fixed,
				save_set;
	ListCell   *lc;
	int			i;

	gpu_task_begin(gts, &gpupreagg_ops, estate);

	pas->info = gpupreagg_info_from_list(copyObject(cscan->custom_private));
	fix_info_varnos(pas->info, cscan->scan.scanrelid);
	pas->nkeys = list_length(pas->info->keys);
	pas->naggs = list_length(pas->info->aggs);
	gpupreagg_compute_layout(pas->info, &pas->layout);

	pas->key_types = palloc(sizeof(Oid) * Max(pas->nkeys, 1));
	i = 0;
	foreach(lc, pas->info->keys)
		pas->key_types[i++] = exprType(lfirst(lc));
	pas->aggs = palloc(sizeof(GpuPreAggAgg *) * Max(pas->naggs, 1));
	i = 0;
	foreach(lc, pas->info->aggs)
		pas->aggs[i++] = lfirst(lc);

	/* the relation's rows, as the heap tuples the runtime forms */
	reldesc = RelationGetDescr(gts->rel);
	pas->heap_slot = ExecInitExtraTupleSlot(estate, reldesc, &TTSOpsHeapTuple);

	/*
	 * The node's scan slot is the virtual one of custom_scan_tlist; the
	 * expressions below read the heap slot, so compile them for that (the
	 * compiler drops the deforming step for a virtual scan slot).
	 */
	save_ops = ps->scanops;
	save_desc = ps->scandesc;
	save_fixed = ps->scanopsfixed;
	save_set = ps->scanopsset;
	ps->scanops = &TTSOpsHeapTuple;
	ps->scandesc = reldesc;
	ps->scanopsfixed = true;
	ps->scanopsset = true;

	gts->dev_quals = pas->info->dev_quals;
	gts->dev_qual_state = ExecInitQual(gts->dev_quals, ps);
	pas->key_states = palloc0(sizeof(ExprState *) * Max(pas->nkeys, 1));
	i = 0;
	foreach(lc, pas->info->keys)
		pas->key_states[i++] = ExecInitExpr(lfirst(lc), ps);
	pas->arg_states = palloc0(sizeof(ExprState *) * Max(pas->naggs, 1));
	pas->filter_states = palloc0(sizeof(ExprState *) * Max(pas->naggs, 1));
	for (i = 0; i < pas->naggs; i++)
	{
		if (pas->aggs[i]->arg)
			pas->arg_states[i] = ExecInitExpr(pas->aggs[i]->arg, ps);
		if (pas->aggs[i]->filter)
			pas->filter_states[i] = ExecInitExpr(pas->aggs[i]->filter, ps);
	}

	ps->scanops = save_ops;
	ps->scandesc = save_desc;
	ps->scanopsfixed = save_fixed;
	ps->scanopsset = save_set;

	build_cpu_table(pas, estate);
}

static void
reset_groups(GpuPreAggState *pas)
{
	ListCell   *lc;

	foreach(lc, pas->group_msgs)
		pfree(lfirst(lc));
	list_free(pas->group_msgs);
	pas->group_msgs = NIL;
	if (pas->hashtable)
		ResetTupleHashTable(pas->hashtable);
	if (pas->key_slot)
		ExecClearTuple(pas->key_slot);
	if (pas->iter_slot)
		ExecClearTuple(pas->iter_slot);
	if (pas->table_cxt)
		MemoryContextReset(pas->table_cxt);
	pas->plain_entry = NULL;
	pas->plain_used = false;
	pas->aggregated = false;
	pas->groups_pending = false;
	pas->emit_entry = 0;
	pas->emit_cpu_started = false;
	pas->emit_done = false;
}

static void
gpupreagg_end(CustomScanState *node)
{
	GpuPreAggState *pas = (GpuPreAggState *) node;

	if (pas->heap_slot)
		ExecClearTuple(pas->heap_slot);
	gpu_task_end(&pas->gts);
	reset_groups(pas);
}

/*
 * Start over: a new session with a new plan_id, so that the service's
 * table of the last run (if it still exists) is not joined.
 */
static void
gpupreagg_rescan(CustomScanState *node)
{
	GpuPreAggState *pas = (GpuPreAggState *) node;

	if (pas->heap_slot)
		ExecClearTuple(pas->heap_slot);
	gpu_task_rescan(&pas->gts);
	reset_groups(pas);
}

/* ----------------------------------------------------------------
 * EXPLAIN
 * ----------------------------------------------------------------
 */
void
gpupreagg_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	GpuPreAggState *pas = (GpuPreAggState *) node;
	GpuTaskState *gts = &pas->gts;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *context;
	bool		useprefix;
	ListCell   *lc;
	const GpuTaskCounters *c;
	int			i;

	gpu_task_explain_quals(gts, "GPU Quals", pas->info->dev_quals,
						   ancestors, es);
	context = set_deparse_context_plan(es->deparse_cxt, &cscan->scan.plan,
									   ancestors);
	useprefix = (list_length(es->rtable) > 1 || es->verbose);
	if (pas->nkeys > 0)
	{
		List	   *keys = NIL;

		foreach(lc, pas->info->keys)
			keys = lappend(keys, deparse_expression(lfirst(lc), context,
													useprefix, false));
		ExplainPropertyList("GPU Group Keys", keys, es);
	}
	if (pas->naggs > 0)
	{
		List	   *aggs = NIL;

		i = 0;
		foreach(lc, cscan->custom_scan_tlist)
		{
			TargetEntry *tle = lfirst_node(TargetEntry, lc);
			Aggref	   *aggref;

			if (i++ < pas->nkeys)
				continue;
			/* shown as the aggregate the query wrote, not "PARTIAL" */
			aggref = copyObject(castNode(Aggref, tle->expr));
			aggref->aggsplit = AGGSPLIT_SIMPLE;
			aggs = lappend(aggs, deparse_expression((Node *) aggref, context,
													useprefix, false));
		}
		ExplainPropertyList("GPU Aggregates", aggs, es);
	}

	if (!es->analyze)
		return;
	c = gpu_task_explain_totals(gts);
	{
		GpuExplainCounter items[] = {
			{"Chunks", c->nchunks},
			{"Pages", c->npages},
			{"Zero-Copy Pages", c->npages_zero_copy},
			{"Rows In", c->nrows_in},
			{"Recheck Rows", c->nrecheck},
			{"GPU Groups", c->node[GPA_COUNTER_GROUPS_GPU]},
			{"CPU Groups", c->node[GPA_COUNTER_GROUPS_CPU]},
			{"Table Growths", c->node[GPA_COUNTER_GROWTHS]},
			{"CPU Flushes", c->node[GPA_COUNTER_FLUSHES]},
		};
		bool		flushed = c->node[GPA_COUNTER_FLUSHES] > 0;

		/* flushes depend on work_mem: shown only when they happened */
		gpu_task_explain_counters(gts, items,
								  lengthof(items) - (flushed ? 0 : 1), es);
	}
}
