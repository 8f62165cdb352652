/*-------------------------------------------------------------------------
 *
 * gpujoin_plan.c
 *		GpuJoin: from CustomPath to CustomScan, the plan's private list, and
 *		the method tables.
 *
 * The CustomScan scans the outer table (scanrelid, so the runtime reads
 * its pages) and its custom_plans are the inner plans, depth 0 first.
 * custom_scan_tlist is the join's output columns, then (resjunk) every
 * other column the keys and quals read: the executor fills each column from
 * the outer heap tuple or from the inner tuple of a depth (col_source,
 * col_attno), and the targetlist refers to them (INDEX_VAR after
 * set_plan_refs).
 *
 * What the executor evaluates lives in custom_private, which set_plan_refs
 * leaves alone: the outer quals and keys over the outer table (the executor
 * renumbers their Vars to the final scanrelid, as GpuPreAgg does), the
 * inner keys over the inner plan's output (Vars with varno INNER_VAR and
 * the inner targetlist's resno).  custom_exprs holds the same expressions
 * over custom_scan_tlist, for EXPLAIN only.
 *
 * custom_private (gpujoin_info_to_list): list_make2 of
 *	(Integer outer_relid, dev_quals, host_quals, depths, col_source) and
 *	(col_attno, Integer inner_group); each depth a List (Integer join_type, outer_keys,
 *	inner_keys, key_opnos, key_collids, String plan_rows, Boolean
 *	inner_partial, join_quals, row_quals).
 * custom_exprs: list_make3(dev_quals, host_quals, per depth
 *	list_make3(outer_keys, inner_keys, join_quals)).
 *
 * A depth's residual join quals are evaluated over the join row (the scan
 * tuple here, the fused GpuPreAgg's join row there): row_quals are
 * join_quals with each Var replaced by Var(INDEX_VAR, k + 1) of its column
 * k, computed where the row's columns are fixed.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/restrictinfo.h"
#include "optimizer/tlist.h"

#include "compat/pg_compat.h"
#include "core/pg_strom.h"
#include "gpujoin/gpujoin.h"

static Plan *gpujoin_plan_path(PlannerInfo *root, RelOptInfo *rel,
							   CustomPath *best_path, List *tlist,
							   List *clauses, List *custom_plans);

CustomPathMethods gpujoin_path_methods = {
	.CustomName = GPUJOIN_NAME,
	.PlanCustomPath = gpujoin_plan_path,
};

CustomScanMethods gpujoin_plan_methods = {
	.CustomName = GPUJOIN_NAME,
	.CreateCustomScanState = gpujoin_create_state,
};

List *
gpujoin_info_to_list(const GpuJoinInfo *info)
{
	List	   *depths = NIL;
	int			d;

	for (d = 0; d < info->ndepths; d++)
	{
		const GpuJoinDepthInfo *dp = &info->depths[d];
		List	   *l;

		l = list_make4(makeInteger((int) dp->join_type), dp->outer_keys,
					   dp->inner_keys, dp->key_opnos);
		l = lappend(l, dp->key_collids);
		l = lappend(l, makeString(psprintf("%.0f", dp->plan_rows)));
		l = lappend(l, makeBoolean(dp->inner_partial));
		l = lappend(l, dp->join_quals);
		l = lappend(l, dp->row_quals);
		depths = lappend(depths, l);
	}
	return list_make2(list_make5(makeInteger((int) info->outer_relid), info->dev_quals,
								 info->host_quals, depths, info->col_source),
					  list_make2(info->col_attno, makeInteger(info->inner_group)));
}

GpuJoinInfo *
gpujoin_info_from_list(List *private)
{
	GpuJoinInfo *info = palloc0(sizeof(GpuJoinInfo));
	ListCell   *lc;

	List	   *head;
	List	   *tail;

	if (list_length(private) != 2 || list_length(linitial(private)) != 5 ||
		list_length(lsecond(private)) != 2)
		elog(ERROR, "GpuJoin: malformed custom_private");
	head = linitial(private);
	tail = lsecond(private);
	info->outer_relid = (Index) intVal(linitial(head));
	info->dev_quals = lsecond(head);
	info->host_quals = lthird(head);
	foreach(lc, (List *) lfourth(head))
	{
		List	   *l = lfirst(lc);
		GpuJoinDepthInfo *dp = &info->depths[info->ndepths++];

		if (list_length(l) != 9 || info->ndepths > GPUJOIN_MAX_DEPTHS)
			elog(ERROR, "GpuJoin: malformed depth in custom_private");
		dp->join_type = (JoinType) intVal(linitial(l));
		dp->outer_keys = lsecond(l);
		dp->inner_keys = lthird(l);
		dp->key_opnos = lfourth(l);
		dp->key_collids = list_nth(l, 4);
		dp->plan_rows = strtod(strVal(list_nth(l, 5)), NULL);
		dp->inner_partial = boolVal(list_nth(l, 6));
		dp->join_quals = list_nth(l, 7);
		dp->row_quals = list_nth(l, 8);
	}
	info->col_source = list_nth(head, 4);
	info->col_attno = linitial(tail);
	info->inner_group = intVal(lsecond(tail));
	return info;
}

/* resno of var in an inner plan's targetlist, 0 if not there */
static AttrNumber
inner_resno(Plan *inner, Var *var)
{
	ListCell   *lc;

	foreach(lc, inner->targetlist)
	{
		TargetEntry *tle = lfirst(lc);
		Var		   *v = (Var *) tle->expr;

		if (IsA(v, Var) && v->varno == var->varno &&
			v->varattno == var->varattno && v->varlevelsup == 0)
			return tle->resno;
	}
	return 0;
}

/*
 * Whether scan_tlist has var's column.  Columns are told apart by varno and
 * varattno alone: a join qual reads a column below the outer join that
 * nulls it in the output (varnullingrels, 16), and the executor fills each
 * column once.
 */
static bool
scan_tlist_has_column(List *scan_tlist, Var *var)
{
	ListCell   *lc;

	foreach(lc, scan_tlist)
	{
		Var		   *col = (Var *) ((TargetEntry *) lfirst(lc))->expr;

		if (IsA(col, Var) && col->varno == var->varno &&
			col->varattno == var->varattno && col->varlevelsup == var->varlevelsup)
			return true;
	}
	return false;
}

typedef struct InnerVarContext
{
	Plan	   *inner;
} InnerVarContext;

/* an inner key over the inner plan's output: Var -> Var(INNER_VAR, resno) */
static Node *
to_inner_var_mutator(Node *node, InnerVarContext *cxt)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var))
	{
		Var		   *var = (Var *) node;
		AttrNumber	resno = inner_resno(cxt->inner, var);
		Var		   *nv;

		if (resno == 0)
			elog(ERROR, "GpuJoin: inner key column not in the inner plan's output");
		nv = copyObject(var);
		nv->varno = INNER_VAR;
		nv->varattno = resno;
		return (Node *) nv;
	}
	return expression_tree_mutator(node, to_inner_var_mutator, (void *) cxt);
}

static Plan *
gpujoin_plan_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
				  List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	GpuJoinInfo *info = gpujoin_info_from_list(best_path->custom_private);
	List	   *scan_tlist;
	List	   *exprs_depths = NIL;
	List	   *vars;
	ListCell   *lc;
	int			d;

	if (clauses != NIL)
		elog(ERROR, "GpuJoin: unexpected restriction clauses of a join");
	if (list_length(custom_plans) != info->ndepths)
		elog(ERROR, "GpuJoin: %d inner plans for %d depths",
			 list_length(custom_plans), info->ndepths);

	/* the output columns, then the other columns keys and quals read */
	scan_tlist = add_to_flat_tlist(NIL, pull_var_clause((Node *) tlist, 0));
	vars = pull_var_clause((Node *) info->dev_quals, 0);
	vars = list_concat(vars, pull_var_clause((Node *) info->host_quals, 0));
	for (d = 0; d < info->ndepths; d++)
	{
		vars = list_concat(vars, pull_var_clause((Node *) info->depths[d].outer_keys, 0));
		vars = list_concat(vars, pull_var_clause((Node *) info->depths[d].inner_keys, 0));
	}
	vars = list_concat(vars, gpujoin_quals_vars(info));
	foreach(lc, vars)
	{
		if (!scan_tlist_has_column(scan_tlist, lfirst(lc)))
			scan_tlist = lappend(scan_tlist,
								 makeTargetEntry(copyObject(lfirst(lc)),
												 list_length(scan_tlist) + 1,
												 NULL, true));
	}

	vars = NIL;
	foreach(lc, scan_tlist)
		vars = lappend(vars, ((TargetEntry *) lfirst(lc))->expr);
	gpujoin_plan_columns(info, vars, custom_plans);
	gpujoin_plan_row_quals(info, vars);
	exprs_depths = gpujoin_plan_keys(info, custom_plans);

	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = NIL;
	cscan->scan.scanrelid = info->outer_relid;
	cscan->flags = best_path->flags;
	cscan->custom_plans = custom_plans;
	cscan->custom_exprs = (List *)
		pgstrom_nullingrels_as_tlist((Node *) list_make3(info->dev_quals,
														 info->host_quals,
														 exprs_depths),
									 scan_tlist);
	cscan->custom_private = gpujoin_info_to_list(info);
	cscan->custom_scan_tlist = scan_tlist;
	cscan->custom_relids = bms_copy(rel->relids);
	cscan->methods = &gpujoin_plan_methods;

	return &cscan->scan.plan;
}

/*
 * Where each column of vars (the row the executor forms) comes from: the
 * outer heap tuple (source 0, its attno) or the inner plan of depth d
 * (source d + 1, the resno of its output).
 */
void
gpujoin_plan_columns(GpuJoinInfo *info, List *vars, List *custom_plans)
{
	ListCell   *lc;
	int			d;

	info->col_source = NIL;
	info->col_attno = NIL;
	foreach(lc, vars)
	{
		Var		   *var = (Var *) lfirst(lc);
		int			source = -1;
		AttrNumber	attno = 0;

		if (!IsA(var, Var) || var->varattno <= 0)
			elog(ERROR, "GpuJoin: output column is not a plain column");
		if (var->varno == info->outer_relid)
		{
			source = 0;
			attno = var->varattno;
		}
		else
		{
			for (d = 0; d < info->ndepths && source < 0; d++)
			{
				attno = inner_resno(list_nth(custom_plans, d), var);
				if (attno > 0)
					source = d + 1;
			}
		}
		if (source < 0)
			elog(ERROR, "GpuJoin: output column of no depth");
		info->col_source = lappend_int(info->col_source, source);
		info->col_attno = lappend_int(info->col_attno, attno);
	}
}

/*
 * The inner keys over the inner plans' output (Var(INNER_VAR, resno)), and
 * the operators' function ids; returns EXPLAIN's copies of the keys as
 * they were, per depth list_make2(outer_keys, inner_keys).
 */
List *
gpujoin_plan_keys(GpuJoinInfo *info, List *custom_plans)
{
	List	   *exprs_depths = NIL;
	int			d;

	for (d = 0; d < info->ndepths; d++)
	{
		GpuJoinDepthInfo *dp = &info->depths[d];
		InnerVarContext cxt = {list_nth(custom_plans, d)};

		exprs_depths = lappend(exprs_depths,
							   list_make3(copyObject(dp->outer_keys),
										  copyObject(dp->inner_keys),
										  copyObject(dp->join_quals)));
		dp->inner_keys = (List *) to_inner_var_mutator((Node *) dp->inner_keys, &cxt);
		fix_opfuncids((Node *) dp->inner_keys);
		fix_opfuncids((Node *) dp->outer_keys);
	}
	fix_opfuncids((Node *) info->dev_quals);
	fix_opfuncids((Node *) info->host_quals);
	return exprs_depths;
}

/* the Vars of every depth's residual join quals */
List *
gpujoin_quals_vars(const GpuJoinInfo *info)
{
	List	   *vars = NIL;
	int			d;

	for (d = 0; d < info->ndepths; d++)
		vars = list_concat(vars, pull_var_clause((Node *) info->depths[d].join_quals, 0));
	return vars;
}

/* a Var of the join row's columns (vars) -> Var(INDEX_VAR, its position) */
static Node *
to_row_var_mutator(Node *node, List *vars)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varlevelsup == 0)
	{
		Var		   *var = (Var *) node;
		ListCell   *lc;
		int			k = 0;

		foreach(lc, vars)
		{
			Var		   *col = lfirst(lc);

			if (IsA(col, Var) && col->varno == var->varno &&
				col->varattno == var->varattno)
			{
				Var		   *nv = copyObject(var);

				nv->varno = INDEX_VAR;
				nv->varattno = k + 1;
				nv->varnosyn = 0;
				nv->varattnosyn = 0;
				return (Node *) nv;
			}
			k++;
		}
		elog(ERROR, "GpuJoin: join qual column not in the join row");
	}
	return expression_tree_mutator(node, to_row_var_mutator, (void *) vars);
}

/*
 * Each depth's residual join quals over the join row whose columns are
 * vars (in order), as the executor and the device evaluate them.
 */
void
gpujoin_plan_row_quals(GpuJoinInfo *info, List *vars)
{
	int			d;

	for (d = 0; d < info->ndepths; d++)
	{
		GpuJoinDepthInfo *dp = &info->depths[d];

		dp->row_quals = (List *) to_row_var_mutator((Node *) dp->join_quals, vars);
		fix_opfuncids((Node *) dp->row_quals);
	}
}

void
pgstrom_init_gpujoin_plan(void)
{
	RegisterCustomScanMethods(&gpujoin_plan_methods);
}
