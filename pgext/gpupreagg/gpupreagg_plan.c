/*-------------------------------------------------------------------------
 *
 * gpupreagg_plan.c
 *		GpuPreAgg: from CustomPath to CustomScan, the plan's private list,
 *		and the method tables.
 *
 * The CustomScan scans the base relation (scanrelid) and produces partial
 * aggregates: custom_scan_tlist is the grouping keys, then one partial
 * Aggref (AGGSPLIT_INITIAL_SERIAL) per aggregate, and the targetlist refers
 * to them (INDEX_VAR after set_plan_refs).  The device quals and the
 * expressions the executor needs live in custom_private, which
 * set_plan_refs leaves alone: custom_exprs would be resolved against
 * custom_scan_tlist, where the relation's columns are not.  The executor
 * renumbers their Vars to the final scanrelid (a subquery's range table
 * is offset when it is flattened into the plan).
 *
 * custom_private (gpupreagg_info_to_list):
 *	list_make4(dev_quals, keys, aggs, String ngroups), each agg a List
 *	(Integer aggfnoid, Integer kind, Integer form, Integer argtype,
 *	 arg or NULL, filter or NULL, Integer param).
 *
 * Fused over a GpuJoin (gpupreagg_join_path.c), the CustomScan scans the
 * join's outer table, custom_plans are the inner plans, and custom_private
 * is list_make2(the above, gpujoin_info_to_list() of the join, whose
 * col_source/col_attno describe the join row the keys and arguments read).
 * custom_scan_tlist's keys are the query's (over the joined relations),
 * for set_plan_refs and EXPLAIN.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/restrictinfo.h"

#include "core/pg_strom.h"
#include "gpujoin/gpujoin.h"
#include "gpupreagg/gpupreagg_internal.h"

static Plan *gpupreagg_plan_path(PlannerInfo *root, RelOptInfo *rel,
								 CustomPath *best_path, List *tlist,
								 List *clauses, List *custom_plans);

CustomPathMethods gpupreagg_path_methods = {
	.CustomName = GPUPREAGG_NAME,
	.PlanCustomPath = gpupreagg_plan_path,
};

CustomScanMethods gpupreagg_plan_methods = {
	.CustomName = GPUPREAGG_NAME,
	.CreateCustomScanState = gpupreagg_create_state,
};

List *
gpupreagg_info_to_list(const GpuPreAggInfo *info)
{
	List	   *aggs = NIL;
	ListCell   *lc;

	foreach(lc, info->aggs)
	{
		GpuPreAggAgg *agg = lfirst(lc);

		List	   *l;

		/* Oids above INT_MAX wrap through int and back unchanged */
		l = list_make4(makeInteger((int) agg->aggfnoid),
					   makeInteger((int) agg->kind),
					   makeInteger((int) agg->form),
					   makeInteger((int) agg->argtype));
		l = lappend(l, agg->arg);
		l = lappend(l, agg->filter);
		l = lappend(l, makeInteger(agg->param));
		aggs = lappend(aggs, l);
	}
	return list_make4(info->dev_quals, info->keys, aggs,
					  makeString(psprintf("%.0f", info->ngroups)));
}

GpuPreAggInfo *
gpupreagg_info_from_list(List *private)
{
	GpuPreAggInfo *info = palloc0(sizeof(GpuPreAggInfo));
	ListCell   *lc;

	if (list_length(private) != 4)
		elog(ERROR, "GpuPreAgg: malformed custom_private");
	info->dev_quals = linitial(private);
	info->keys = lsecond(private);
	foreach(lc, (List *) lthird(private))
	{
		List	   *l = lfirst(lc);
		GpuPreAggAgg *agg = palloc0(sizeof(GpuPreAggAgg));

		if (list_length(l) != 7)
			elog(ERROR, "GpuPreAgg: malformed aggregate in custom_private");
		agg->aggfnoid = (Oid) intVal(linitial(l));
		agg->kind = (XpuAggKind) intVal(lsecond(l));
		agg->form = (GpuPreAggStateForm) intVal(lthird(l));
		agg->argtype = (Oid) intVal(lfourth(l));
		agg->arg = (Expr *) list_nth(l, 4);
		agg->filter = (Expr *) list_nth(l, 5);
		agg->param = intVal(list_nth(l, 6));
		info->aggs = lappend(info->aggs, agg);
	}
	info->ngroups = strtod(strVal(lfourth(private)), NULL);
	return info;
}

/* custom_scan_tlist: the keys as the query wrote them, the partial Aggrefs */
static List *
partial_scan_tlist(List *keys, List *partial_aggs)
{
	List	   *scan_tlist = NIL;
	AttrNumber	resno = 1;
	ListCell   *lc;

	foreach(lc, keys)
		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry(copyObject(lfirst(lc)), resno++,
											 NULL, false));
	foreach(lc, partial_aggs)
		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry(copyObject(lfirst(lc)), resno++,
											 NULL, false));
	return scan_tlist;
}

static Plan *
fused_plan(RelOptInfo *rel, CustomPath *best_path, GpuPreAggInfo *info,
		   List *tlist, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	List	   *partial_aggs = lsecond(best_path->custom_private);
	List	   *join_private = lthird(best_path->custom_private);
	GpuJoinInfo *jinfo = gpujoin_info_from_list(copyObject(linitial(join_private)));
	List	   *cols = lsecond(join_private);
	List	   *orig_keys = lthird(join_private);

	if (list_length(custom_plans) != jinfo->ndepths)
		elog(ERROR, "GpuPreAgg: %d inner plans for %d join depths",
			 list_length(custom_plans), jinfo->ndepths);
	gpujoin_plan_columns(jinfo, cols, custom_plans);
	gpujoin_plan_row_quals(jinfo, cols);
	(void) gpujoin_plan_keys(jinfo, custom_plans);
	info->dev_quals = jinfo->dev_quals;

	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = NIL;
	cscan->scan.scanrelid = jinfo->outer_relid;
	cscan->flags = best_path->flags;
	cscan->custom_plans = custom_plans;
	cscan->custom_exprs = NIL;
	cscan->custom_private = list_make2(gpupreagg_info_to_list(info),
									   gpujoin_info_to_list(jinfo));
	cscan->custom_scan_tlist = partial_scan_tlist(orig_keys, partial_aggs);
	cscan->custom_relids = bms_copy(rel->relids);
	cscan->methods = &gpupreagg_plan_methods;
	return &cscan->scan.plan;
}

/*
 * ngroups is a String: a Float node of an integral value would come back
 * from a parallel worker's copy of the plan as an Integer.
 *
 * custom_private of the path: list_make2(gpupreagg_info_to_list(info), the
 * partial Aggrefs in aggregate order).  The info's dev_quals are replaced
 * by the clauses handed over here, the same ones in the order the
 * executor must evaluate them: clauses are
 * the relation's restriction clauses, all of them device quals (the path
 * is offered only then), ordered by order_qual_clauses() so that the CPU
 * evaluates them in PostgreSQL's order.
 */
static Plan *
gpupreagg_plan_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
					List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	GpuPreAggInfo *info;
	List	   *partial_aggs = lsecond(best_path->custom_private);
	List	   *scan_tlist;
	ListCell   *lc;

	info = gpupreagg_info_from_list(linitial(best_path->custom_private));
	if (list_length(best_path->custom_private) == 3)
		return fused_plan(rel, best_path, info, tlist, custom_plans);
	Assert(rel->relid > 0 && rel->rtekind == RTE_RELATION);
	foreach(lc, clauses)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);

		if (rinfo->pseudoconstant)
			elog(ERROR, "GpuPreAgg: unexpected pseudoconstant qual");
	}
	info->dev_quals = extract_actual_clauses(clauses, false);

	scan_tlist = partial_scan_tlist(info->keys, partial_aggs);

	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = NIL;
	cscan->scan.scanrelid = rel->relid;
	cscan->flags = best_path->flags;
	cscan->custom_plans = NIL;
	cscan->custom_exprs = NIL;
	cscan->custom_private = gpupreagg_info_to_list(info);
	cscan->custom_scan_tlist = scan_tlist;
	cscan->custom_relids = NULL;
	cscan->methods = &gpupreagg_plan_methods;

	return &cscan->scan.plan;
}

void
pgstrom_init_gpupreagg_plan(void)
{
	RegisterCustomScanMethods(&gpupreagg_plan_methods);
}
