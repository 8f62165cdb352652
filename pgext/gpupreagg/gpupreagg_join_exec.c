/*-------------------------------------------------------------------------
 *
 * gpupreagg_join_exec.c
 *		Executor of GpuPreAgg fused over a GpuJoin.
 *
 * The node is GpuPreAgg's (gpupreagg_exec.c: the device's table, the
 * collector, the CPU's and the kept groups, spill, redo of lost blocks)
 * with GpuJoin's inner machinery (a GpuJoinState whose task is this node:
 * the inner plans, their kept tuples and key rows, the upload after
 * OpenSession, the CPU hash join).  What differs:
 *	- before the scan the inner plans run (gpujoin_build_inner);
 *	- the session is XPU_KIND_GPUJOIN_PREAGG (gpupreagg_codegen.c), sent
 *	  once the inner rows are known, and each depth's rows are uploaded
 *	  after it; an inner value the device cannot hold sends the whole node
 *	  to the CPU;
 *	- a row the CPU aggregates (a RECHECK item of the device, which is an
 *	  outer row, or a visible row of a chunk evaluated here) is joined on
 *	  the CPU against the same inner tuples, and every combination, formed
 *	  as the join row, goes to the CPU's groups.
 * The keys, arguments and FILTERs read the join row (Var k + 1 is column
 * k, as gpupreagg_join_path.c maps them).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/tupdesc.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "parser/parsetree.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"

#include "core/pg_strom.h"
#include "gpujoin/gpujoin.h"
#include "gpupreagg/gpupreagg_internal.h"

/* the join row's descriptor: each column's type from its source */
static TupleDesc
join_row_desc(GpuJoinState *gjs, Relation rel)
{
	TupleDesc	desc = CreateTemplateTupleDesc(Max(gjs->ncols, 1));
	TupleDesc	reldesc = RelationGetDescr(rel);
	int			i;

	for (i = 0; i < gjs->ncols; i++)
	{
		int			src = gjs->col_source[i];
		Form_pg_attribute att;

		if (src == 0)
			att = TupleDescAttr(reldesc, gjs->col_attno[i] - 1);
		else
			att = TupleDescAttr(ExecGetResultType(gjs->inner_ps[src - 1]),
								gjs->col_attno[i] - 1);
		TupleDescInitEntry(desc, (AttrNumber) (i + 1), NULL, att->atttypid,
						   att->atttypmod, 0);
		TupleDescInitEntryCollation(desc, (AttrNumber) (i + 1),
									att->attcollation);
	}
	if (gjs->ncols == 0)
		TupleDescInitEntry(desc, 1, NULL, BOOLOID, -1, 0);
	return desc;
}

static StringInfo
fused_build_session(GpuTaskState *gts, const char **cpu_reason)
{
	GpuPreAggState *pas = (GpuPreAggState *) gts;
	const char *why = gpujoin_inner_cpu_reason(pas->join);

	if (why != NULL)
	{
		*cpu_reason = why;
		return NULL;
	}
	return gpa_join_build_session(pas, cpu_reason);
}

static void
fused_session_sent(GpuTaskState *gts)
{
	gpujoin_send_first_pieces(((GpuPreAggState *) gts)->join);
}

static bool
fused_early_reply(GpuTaskState *gts, PgStromMsgHeader *msg)
{
	return gpujoin_first_piece_early(((GpuPreAggState *) gts)->join, msg);
}

static void
fused_session_opened(GpuTaskState *gts)
{
	gpujoin_upload_depths(((GpuPreAggState *) gts)->join);
}

/*
 * The join's part of begin, after gpu_task_begin: the GpuJoinState, its
 * inner plans, and the join row's slot.  Returns the join row's
 * descriptor, for which the keys and arguments are compiled.
 */
TupleDesc
gpa_join_begin(GpuPreAggState *pas, List *join_private, List *inner_plans,
			   EState *estate, int eflags)
{
	GpuTaskState *gts = &pas->gts;
	CustomScan *cscan = (CustomScan *) gts->css.ss.ps.plan;
	GpuJoinInfo *jinfo = gpujoin_info_from_list(join_private);
	GpuJoinState *gjs = palloc0(sizeof(GpuJoinState));
	TupleDesc	desc;

	if (jinfo->host_quals != NIL)
		elog(ERROR, "GpuPreAgg: host quals under a fused join");
	gpujoin_fix_outer_varnos(jinfo, cscan->scan.scanrelid);
	gjs->task = gts;
	gpujoin_init_join(gjs, jinfo, inner_plans, pas->heap_slot, estate, eflags);
	pas->join = gjs;
	desc = join_row_desc(gjs, gts->rel);
	/* each inner column of the join row, as the planner checked */
	if (!gpujoin_set_payload(gjs, desc, NULL))
		elog(ERROR, "GpuPreAgg: an inner column of the join cannot be a payload column");
	pas->join_slot = ExecInitExtraTupleSlot(estate, desc, &TTSOpsVirtual);
	gpujoin_init_row_quals(gjs, pas->join_slot);
	return desc;
}

/* the runtime's ops of the fused node, from GpuPreAgg's */
void
gpa_join_ops(GpuTaskOps *ops)
{
	ops->build_session = fused_build_session;
	ops->session_sent = fused_session_sent;
	ops->early_reply = fused_early_reply;
	ops->session_opened = fused_session_opened;
}

/* the inner rows, once, before the scan */
void
gpa_join_build(GpuPreAggState *pas)
{
	if (!pas->join->inner_built)
		gpujoin_build_inner(pas->join);
	gpujoin_skip_if_empty(pas->join, &pas->gts);
}

/*
 * The outer row in pas->heap_slot (it passed the device quals) joined on
 * the CPU: every combination, as the join row, into g.
 */
void
gpa_join_add_row(GpuPreAggState *pas, GpaGroups *g)
{
	GpuJoinState *gjs = pas->join;
	ExprContext *econtext = pas->gts.css.ss.ps.ps_ExprContext;
	uint32		rows[GPUJOIN_MAX_DEPTHS];

	if (!gpujoin_cpu_start_row(gjs))
		return;
	while (gpujoin_cpu_next_combination(gjs, rows))
	{
		CHECK_FOR_INTERRUPTS();
		gpujoin_form_row(gjs, rows, pas->join_slot);
		econtext->ecxt_scantuple = pas->join_slot;
		gpa_groups_add_row(pas, g);
		if (gpa_groups_spill_if_full(pas, g))
			pas->gts.counters.node[GPA_COUNTER_SPILLS]++;
	}
}

void
gpa_join_end(GpuPreAggState *pas)
{
	ExecClearTuple(pas->join_slot);
	gpujoin_end_join(pas->join);
}

void
gpa_join_rescan(GpuPreAggState *pas)
{
	ExecClearTuple(pas->join_slot);
	gpujoin_rescan_join(pas->join, pas->gts.css.ss.ps.chgParam);
}

/* ---- parallel plans: GpuJoinShared, then the runtime's DSM ---- */
static Size
fused_estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	return add_size(MAXALIGN(sizeof(GpuJoinShared)),
					gpu_task_estimate_dsm(node, pcxt));
}

static void
fused_initialize_dsm(CustomScanState *node, ParallelContext *pcxt,
					 void *coordinate)
{
	gpujoin_attach_shared(((GpuPreAggState *) node)->join, coordinate,
						  pcxt->toc, true);
	gpu_task_initialize_dsm(node, pcxt, GPUJOIN_RUNTIME_DSM(coordinate));
}

static void
fused_reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt,
					   void *coordinate)
{
	gpu_task_reinitialize_dsm(node, pcxt, GPUJOIN_RUNTIME_DSM(coordinate));
	gpujoin_reset_shared(((GpuPreAggState *) node)->join);
}

static void
fused_initialize_worker(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	gpu_task_initialize_worker(node, toc, GPUJOIN_RUNTIME_DSM(coordinate));
	gpujoin_attach_shared(((GpuPreAggState *) node)->join, coordinate, toc,
						  false);
}

static void
fused_shutdown(CustomScanState *node)
{
	gpujoin_copy_shared_figures(((GpuPreAggState *) node)->join);
	gpu_task_shutdown(node);
}

/* GpuPreAgg's methods with the DSM of a GpuJoin */
void
gpa_join_exec_methods(CustomExecMethods *methods)
{
	methods->EstimateDSMCustomScan = fused_estimate_dsm;
	methods->InitializeDSMCustomScan = fused_initialize_dsm;
	methods->ReInitializeDSMCustomScan = fused_reinitialize_dsm;
	methods->InitializeWorkerCustomScan = fused_initialize_worker;
	methods->ShutdownCustomScan = fused_shutdown;
}

/*
 * An expression of plan's output with its references to other plans'
 * outputs (INDEX_VAR of a scan's own target list, OUTER_VAR and INNER_VAR
 * of its children) replaced by what they reference, down to the
 * relations' columns: a deparse context of this node resolves such Vars
 * against this node's target lists, not the inner plan's.
 */
static Node *
plan_output_mutator(Node *node, Plan *plan)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && IS_SPECIAL_VARNO(((Var *) node)->varno))
	{
		Var		   *var = (Var *) node;
		List	   *tlist = NIL;
		Plan	   *child = NULL;
		TargetEntry *tle;

		if (var->varno == INDEX_VAR && IsA(plan, CustomScan))
		{
			tlist = ((CustomScan *) plan)->custom_scan_tlist;
			child = plan;
		}
		else if (var->varno == INDEX_VAR && IsA(plan, ForeignScan))
		{
			tlist = ((ForeignScan *) plan)->fdw_scan_tlist;
			child = plan;
		}
		else if (var->varno == OUTER_VAR && IsA(plan, Append) &&
				 ((Append *) plan)->appendplans != NIL)
			child = linitial(((Append *) plan)->appendplans);	/* as ruleutils */
		else if (var->varno == OUTER_VAR && IsA(plan, MergeAppend) &&
				 ((MergeAppend *) plan)->mergeplans != NIL)
			child = linitial(((MergeAppend *) plan)->mergeplans);
		else if (var->varno == OUTER_VAR && outerPlan(plan))
			child = outerPlan(plan);
		else if (var->varno == INNER_VAR && innerPlan(plan))
			child = innerPlan(plan);
		if (child == NULL)
			return node;		/* EXPLAIN shows what it can */
		if (tlist == NIL)
			tlist = child->targetlist;
		tle = get_tle_by_resno(tlist, var->varattno);
		if (tle == NULL)
			return node;
		/* a scan's own target list is over its relations: no deeper */
		if (child == plan)
			return (Node *) copyObject(tle->expr);
		return plan_output_mutator((Node *) tle->expr, child);
	}
	return expression_tree_mutator(node, plan_output_mutator, (void *) plan);
}

/* Var(INNER_VAR, resno) of an inner key -> that column of the inner plan */
static Node *
inner_output_mutator(Node *node, Plan *inner)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varno == INNER_VAR)
	{
		TargetEntry *tle = get_tle_by_resno(inner->targetlist,
											((Var *) node)->varattno);

		if (tle == NULL)
			elog(ERROR, "GpuPreAgg: inner key column not in the inner plan's output");
		return plan_output_mutator((Node *) tle->expr, inner);
	}
	return expression_tree_mutator(node, inner_output_mutator, (void *) inner);
}

/*
 * Var(INDEX_VAR, k + 1) of a residual join qual (column k of the join row)
 * -> the outer table's column, or that column of its depth's inner plan
 */
static Node *
join_row_output_mutator(Node *node, GpuJoinState *gjs)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varno == INDEX_VAR)
	{
		Var		   *var = (Var *) node;
		int			k = var->varattno - 1;
		Var		   *col;

		if (k < 0 || k >= gjs->ncols)
			elog(ERROR, "GpuPreAgg: a join qual column outside the join row");
		if (gjs->col_source[k] > 0)
		{
			col = copyObject(var);
			col->varno = INNER_VAR;
			col->varattno = gjs->col_attno[k];
			return inner_output_mutator((Node *) col,
										gjs->inner_ps[gjs->col_source[k] - 1]->plan);
		}
		col = copyObject(var);
		col->varno = gjs->info->outer_relid;
		col->varattno = gjs->col_attno[k];
		return (Node *) col;
	}
	return expression_tree_mutator(node, join_row_output_mutator, (void *) gjs);
}

/*
 * EXPLAIN: each depth of the join, as GpuJoin shows it.  The inner keys
 * are read through the inner plans' output, whose Vars set_plan_refs has
 * numbered for the final range table (a subquery's are offset).
 */
void
gpa_join_explain(GpuPreAggState *pas, List *context, bool useprefix,
				 ExplainState *es)
{
	GpuJoinState *gjs = pas->join;
	int			d;

	for (d = 0; d < gjs->info->ndepths; d++)
	{
		GpuJoinDepthInfo *dp = &gjs->info->depths[d];
		List	   *inner_keys;
		List	   *quals;

		inner_keys = (List *) inner_output_mutator((Node *) dp->inner_keys,
												   gjs->inner_ps[d]->plan);
		quals = (List *) join_row_output_mutator((Node *) dp->row_quals, gjs);
		gpujoin_explain_depth(gjs, d, list_make3(dp->outer_keys, inner_keys, quals),
							  context, useprefix, true, es);
	}
}
