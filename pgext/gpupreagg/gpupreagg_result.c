/*-------------------------------------------------------------------------
 *
 * gpupreagg_result.c
 *		A pass-through node that presents the rows of the aggregation of
 *		gpupreagg_mixed.c as the query's aggregates.
 *
 * The second Agg computes count(*) as the sum of per-combination counts,
 * so its target list holds that expression, not the query's Aggref, while
 * the plan above (a Sort by count(*), a window, the final projection)
 * finds its columns by the query's expressions.  This CustomScan returns
 * its one child's rows unchanged; its custom_scan_tlist names them with
 * the query's expressions, position by position, so that set_plan_refs
 * matches the plan above to them.  EXPLAIN shows it as "Custom Scan
 * (GpuPreAgg Result)".
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/executor.h"
#include "nodes/extensible.h"
#include "optimizer/optimizer.h"
#include "optimizer/tlist.h"

#include "gpupreagg/gpupreagg_internal.h"

#define GPUPREAGG_RESULT_NAME	"GpuPreAgg Result"

static Plan *result_plan(PlannerInfo *root, RelOptInfo *rel,
						 CustomPath *best_path, List *tlist,
						 List *clauses, List *custom_plans);
static Node *result_create_state(CustomScan *cscan);
static void result_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *result_exec(CustomScanState *node);
static void result_end(CustomScanState *node);
static void result_rescan(CustomScanState *node);

static CustomPathMethods result_path_methods = {
	.CustomName = GPUPREAGG_RESULT_NAME,
	.PlanCustomPath = result_plan,
};

static CustomScanMethods result_plan_methods = {
	.CustomName = GPUPREAGG_RESULT_NAME,
	.CreateCustomScanState = result_create_state,
};

static CustomExecMethods result_exec_methods = {
	.CustomName = GPUPREAGG_RESULT_NAME,
	.BeginCustomScan = result_begin,
	.ExecCustomScan = result_exec,
	.EndCustomScan = result_end,
	.ReScanCustomScan = result_rescan,
};

/* child's rows, target (the query's expressions) as their names */
Path *
gpupreagg_result_path(PlannerInfo *root, RelOptInfo *rel, Path *child,
					  PathTarget *target)
{
	CustomPath *cpath = makeNode(CustomPath);

	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = rel;
	cpath->path.pathtarget = target;
	cpath->path.param_info = NULL;
	cpath->path.parallel_aware = false;
	cpath->path.parallel_safe = child->parallel_safe;
	cpath->path.parallel_workers = 0;
	cpath->path.rows = child->rows;
	cpath->path.startup_cost = child->startup_cost;
	cpath->path.total_cost = child->total_cost;
	cpath->path.pathkeys = child->pathkeys;
	cpath->flags = 0;
	cpath->custom_paths = list_make1(child);
	cpath->methods = &result_path_methods;
	return &cpath->path;
}

static Plan *
result_plan(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
			List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	Plan	   *child PG_USED_FOR_ASSERTS_ONLY = linitial(custom_plans);

	Assert(list_length(child->targetlist) ==
		   list_length(best_path->path.pathtarget->exprs));
	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = NIL;
	cscan->scan.scanrelid = 0;
	cscan->flags = best_path->flags;
	cscan->custom_plans = custom_plans;
	cscan->custom_exprs = NIL;
	cscan->custom_private = NIL;
	/* the child's columns, named as the query's expressions */
	cscan->custom_scan_tlist = make_tlist_from_pathtarget(best_path->path.pathtarget);
	cscan->custom_relids = NULL;
	cscan->methods = &result_plan_methods;
	return &cscan->scan.plan;
}

static Node *
result_create_state(CustomScan *cscan)
{
	CustomScanState *css = makeNode(CustomScanState);

	css->methods = &result_exec_methods;
	return (Node *) css;
}

static void
result_begin(CustomScanState *node, EState *estate, int eflags)
{
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;

	node->custom_ps = list_make1(ExecInitNode(linitial(cscan->custom_plans),
											  estate, eflags));
}

static TupleTableSlot *
result_next(ScanState *ss)
{
	CustomScanState *node = (CustomScanState *) ss;

	return ExecProcNode(linitial(node->custom_ps));
}

static bool
result_recheck(ScanState *ss, TupleTableSlot *slot)
{
	return true;
}

static TupleTableSlot *
result_exec(CustomScanState *node)
{
	return ExecScan(&node->ss, result_next, result_recheck);
}

static void
result_end(CustomScanState *node)
{
	ExecEndNode(linitial(node->custom_ps));
}

static void
result_rescan(CustomScanState *node)
{
	ExecReScan(linitial(node->custom_ps));
}

void
gpupreagg_result_init(void)
{
	RegisterCustomScanMethods(&result_plan_methods);
}
