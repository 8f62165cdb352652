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
 *	  plan_id; the rows it returns (all RECHECK) go to the node's "kept"
 *	  CPU groups, and on the CPU path every visible row goes to its "cpu"
 *	  groups (gpupreagg_groups.c: accumulators in the device's layout);
 *	- at the end the runtime's task_kept.c decides: the participant that
 *	  collects reads the device's groups whole (TaskFinal with
 *	  PGSTROM_FINAL_COLLECT) into a tuplestore; when the device's rows are
 *	  lost instead, the kept groups are dropped and the answered blocks
 *	  evaluated again into the cpu groups.
 * Then it emits one partial-aggregate tuple per device group and per CPU
 * group.  The final Agg above combines them, so a group may come in
 * several tuples.
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
#include "compat/pg_compat.h"
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

/* fused over a GpuJoin: GpuPreAgg's, with the DSM of a GpuJoin */
static CustomExecMethods gpupreagg_join_exec_methods;

Node *
gpupreagg_create_state(CustomScan *cscan)
{
	GpuPreAggState *pas = (GpuPreAggState *) newNode(sizeof(GpuPreAggState),
													 T_CustomScanState);

	pas->gts.css.flags = cscan->flags;
	pas->gts.css.methods = &gpupreagg_exec_methods;
	if (cscan->custom_plans != NIL)
	{
		if (gpupreagg_join_exec_methods.CustomName == NULL)
		{
			gpupreagg_join_exec_methods = gpupreagg_exec_methods;
			gpa_join_exec_methods(&gpupreagg_join_exec_methods);
		}
		pas->gts.css.methods = &gpupreagg_join_exec_methods;
	}
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
										   PGSTROM_SESSION_REQUEST_ID,
										   cpu_reason);
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
	pas->device.ngroups += g->nentries;
	gts->counters.node[GPA_COUNTER_GROWTHS] =
		Max(gts->counters.node[GPA_COUNTER_GROWTHS], (uint64) g->ngrowths);
	gpa_device_keep(pas, msg);
}

/*
 * Collects the plan's groups (the runtime calls this in the participant
 * that collects, gts->collecting): TaskFinal with PGSTROM_FINAL_COLLECT,
 * and the whole reply, kept before anything is emitted.  A failure midway goes through the runtime's CPU policy, which
 * marks the rows lost; the groups read so far are then discarded.
 */
static void
gpupreagg_finish(GpuTaskState *gts)
{
	GpuPreAggState *pas = (GpuPreAggState *) gts;
	char		errbuf[GPU_TASK_REASON_LEN];
	PgStromMsgHeader *msg;

	pas->final_request_id = gpu_task_send_final(gts, PGSTROM_FINAL_COLLECT,
												errbuf, sizeof(errbuf));
	if (pas->final_request_id == 0)
	{
		gpu_task_use_cpu(gts, errbuf);
		return;
	}
	while ((msg = gpu_task_read_final(gts, pas->final_request_id)) != NULL)
		accept_groups(pas, msg);
}

/* the device's rows are lost: what came of them here goes too */
static void
gpupreagg_discard_kept(GpuTaskState *gts)
{
	GpuPreAggState *pas = (GpuPreAggState *) gts;

	gpa_groups_discard(&pas->kept);
	gpa_device_discard(pas);
}

static const GpuTaskOps gpupreagg_ops = {
	.build_session = gpupreagg_build_session,
	.item_size = sizeof(uint32),
	.max_items_per_tuple = 1,
	.gpu_next_row = gpupreagg_gpu_next_row,
	.cpu_next_row = gpu_task_qual_next_row,
	.finish = gpupreagg_finish,
	.device_keeps_rows = true,
	.discard_kept = gpupreagg_discard_kept,
};

/* ----------------------------------------------------------------
 * the scan
 * ----------------------------------------------------------------
 */

/*
 * The whole scan.  A RECHECK row of a chunk the device answered goes to
 * the kept groups (the device has the chunk's other rows); every row of a
 * chunk evaluated here, to the CPU's groups.
 */
static void
run_scan(GpuPreAggState *pas)
{
	GpuTaskState *gts = &pas->gts;

	/* a pruned partition: no inner rows, and the scan ends at once */
	if (pas->join && !gpu_task_partition_pruned(gts))
		gpa_join_build(pas);
	while (gpu_task_next_tuple(gts, pas->heap_slot))
	{
		GpaGroups  *g;

		CHECK_FOR_INTERRUPTS();
		g = (gts->current != NULL && !gts->current->cpu_mode) ?
			&pas->kept : &pas->cpu;
		if (pas->join)
		{
			/* an outer row: its join combinations are the rows */
			gpa_join_add_row(pas, g);
			continue;
		}
		gpa_groups_add_row(pas, g);
		if (gpa_groups_spill_if_full(pas, g))
			gts->counters.node[GPA_COUNTER_SPILLS]++;
	}
	gts->counters.node[GPA_COUNTER_GROUPS_GPU] += pas->device.ngroups;
	gts->counters.node[GPA_COUNTER_GROUPS_CPU] +=
		pas->cpu.ngroups + pas->kept.ngroups +
		(pas->cpu.plain_used ? 1 : 0) + (pas->kept.plain_used ? 1 : 0);
	/* the groups counted above come after the scan's last publication */
	gpu_task_publish_counters(gts);
	pas->aggregated = true;
	pas->emit_phase = GPA_EMIT_DEVICE;
}

/* ----------------------------------------------------------------
 * emission
 * ----------------------------------------------------------------
 */
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
	if (!pas->aggregated)
		run_scan(pas);

	oldcxt = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
	while (result == NULL && pas->emit_phase != GPA_EMIT_DONE)
	{
		switch (pas->emit_phase)
		{
			case GPA_EMIT_DEVICE:
				result = gpa_device_next(pas, slot);
				break;
			case GPA_EMIT_CPU:
				result = gpa_groups_next(pas, &pas->cpu, slot);
				break;
			case GPA_EMIT_KEPT:
				result = gpa_groups_next(pas, &pas->kept, slot);
				break;
			case GPA_EMIT_DONE:
				break;
		}
		if (result == NULL)
			pas->emit_phase++;
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
init_groups(GpuPreAggState *pas, EState *estate)
{
	TupleDesc	kdesc = ExecTypeFromExprList(pas->info->keys);
	TupleDesc	sdesc = pas->gts.css.ss.ss_ScanTupleSlot->tts_tupleDescriptor;

	/* lookups take the keys in a virtual slot; the table hands back minimal tuples */
	pas->key_slot = ExecInitExtraTupleSlot(estate, kdesc, &TTSOpsVirtual);
	pas->iter_slot = ExecInitExtraTupleSlot(estate, kdesc, &TTSOpsMinimalTuple);
	pas->form_slot = ExecInitExtraTupleSlot(estate, sdesc, &TTSOpsVirtual);
	pas->store_slot = ExecInitExtraTupleSlot(estate, sdesc, &TTSOpsMinimalTuple);
	pas->form_cxt = AllocSetContextCreate(estate->es_query_cxt,
										  "GpuPreAgg spilled tuple",
										  ALLOCSET_SMALL_SIZES);
	gpa_groups_init(pas, &pas->cpu, "GpuPreAgg CPU groups");
	gpa_groups_init(pas, &pas->kept, "GpuPreAgg RECHECK groups");
}

static void
gpupreagg_begin(CustomScanState *node, EState *estate, int eflags)
{
	GpuPreAggState *pas = (GpuPreAggState *) node;
	GpuTaskState *gts = &pas->gts;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	PlanState  *ps = &node->ss.ps;
	TupleDesc	reldesc;
	TupleDesc	evaldesc;
	List	   *private = copyObject(cscan->custom_private);
	bool		fused = (cscan->custom_plans != NIL);
	PgStromScanOps saved;
	ListCell   *lc;
	int			i;

	if (fused)
	{
		pas->join_ops = gpupreagg_ops;
		gpa_join_ops(&pas->join_ops);
		gpu_task_begin(gts, &pas->join_ops, estate);
	}
	else
		gpu_task_begin(gts, &gpupreagg_ops, estate);

	pas->info = gpupreagg_info_from_list(fused ? linitial(private) : private);
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
	evaldesc = reldesc;
	if (fused)
		evaldesc = gpa_join_begin(pas, lsecond(private), cscan->custom_plans,
								  estate, eflags);

	/*
	 * The node's scan slot is the virtual one of custom_scan_tlist; the
	 * expressions below read the heap slot, so compile them for that (the
	 * compiler drops the deforming step for a virtual scan slot).
	 */
	pgstrom_scan_ops_push_heap(ps, reldesc, &saved);

	gts->dev_quals = pas->info->dev_quals;
	gts->dev_qual_state = ExecInitQual(gts->dev_quals, ps);
	/* a fused node's keys and arguments read the join row */
	if (fused)
	{
		ps->scanops = &TTSOpsVirtual;
		ps->scandesc = evaldesc;
	}
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

	pgstrom_scan_ops_pop(ps, &saved);

	init_groups(pas, estate);
}

static void
reset_groups(GpuPreAggState *pas)
{
	if (pas->key_slot)
		ExecClearTuple(pas->key_slot);
	if (pas->cpu.cxt)
		gpa_groups_reset(pas, &pas->cpu);
	if (pas->kept.cxt)
		gpa_groups_reset(pas, &pas->kept);
	gpa_device_discard(pas);
	pas->aggregated = false;
	pas->emit_phase = GPA_EMIT_DEVICE;
}

static void
gpupreagg_end(CustomScanState *node)
{
	GpuPreAggState *pas = (GpuPreAggState *) node;

	if (pas->heap_slot)
		ExecClearTuple(pas->heap_slot);
	gpu_task_end(&pas->gts);
	if (pas->join)
		gpa_join_end(pas);
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
	if (pas->join)
		gpa_join_rescan(pas);
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
	useprefix = (PgStromExplainRtableSize(es) > 1 || es->verbose);
	if (pas->join)
		gpa_join_explain(pas, context, useprefix, es);
	if (pas->nkeys > 0)
	{
		List	   *keys = NIL;

		/* as the query wrote them (a fused node's read the join row) */
		i = 0;
		foreach(lc, cscan->custom_scan_tlist)
		{
			if (i++ >= pas->nkeys)
				break;
			keys = lappend(keys,
						   deparse_expression((Node *) lfirst_node(TargetEntry, lc)->expr,
											  context, useprefix, false));
		}
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
			{"CPU Spills", c->node[GPA_COUNTER_SPILLS]},
			{"CPU Redo Pages", c->npages_redone},
		};
		int			n = lengthof(items) - 2;

		/* spills depend on work_mem, a redo on a lost service: shown when
		 * they happened */
		if (c->node[GPA_COUNTER_SPILLS] > 0)
			items[n++] = items[lengthof(items) - 2];
		if (c->npages_redone > 0)
			items[n++] = items[lengthof(items) - 1];
		gpu_task_explain_counters(gts, items, n, es);
	}
}
