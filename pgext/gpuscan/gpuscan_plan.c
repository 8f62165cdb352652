/*-------------------------------------------------------------------------
 *
 * gpuscan_plan.c
 *		GpuScan: from CustomPath to CustomScan, and the method tables.
 *
 * The plan keeps the relation's own row type as the scan tuple
 * (custom_scan_tlist is NIL): the executor forms heap tuples from the page
 * copies and stores them in a heap-tuple slot.
 *
 *	scan.plan.qual	host quals (evaluated by ExecScan, shown as "Filter")
 *	custom_exprs	device quals, implicitly ANDed (shown as "GPU Quals")
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/restrictinfo.h"

#include "core/pg_strom.h"
#include "gpuscan/gpuscan.h"

static Plan *gpuscan_plan_path(PlannerInfo *root, RelOptInfo *rel,
							   CustomPath *best_path, List *tlist,
							   List *clauses, List *custom_plans);
static Node *gpuscan_create_state(CustomScan *cscan);

CustomPathMethods gpuscan_path_methods = {
	.CustomName = GPUSCAN_NAME,
	.PlanCustomPath = gpuscan_plan_path,
};

CustomScanMethods gpuscan_plan_methods = {
	.CustomName = GPUSCAN_NAME,
	.CreateCustomScanState = gpuscan_create_state,
};

CustomExecMethods gpuscan_exec_methods = {
	.CustomName = GPUSCAN_NAME,
	.BeginCustomScan = gpuscan_begin,
	.ExecCustomScan = gpuscan_exec,
	.EndCustomScan = gpuscan_end,
	.ReScanCustomScan = gpuscan_rescan,
	.EstimateDSMCustomScan = gpu_task_estimate_dsm,
	.InitializeDSMCustomScan = gpu_task_initialize_dsm,
	.ReInitializeDSMCustomScan = gpu_task_reinitialize_dsm,
	.InitializeWorkerCustomScan = gpu_task_initialize_worker,
	.ShutdownCustomScan = gpu_task_shutdown,
	.ExplainCustomScan = gpuscan_explain,
};

/*
 * custom_private of the path: list_make1(device RestrictInfos).  Every
 * other clause the planner hands us, including parameterized join clauses,
 * is a host qual.
 */
static Plan *
gpuscan_plan_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
				  List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	List	   *dev_rinfos = linitial(best_path->custom_private);
	List	   *dev_ordered = NIL;
	List	   *host_rinfos = NIL;
	ListCell   *lc;

	/*
	 * clauses come sorted by order_qual_clauses(): keep that order in both
	 * lists, so that the CPU evaluates the device quals of a row in the
	 * order PostgreSQL would (and stops where PostgreSQL would stop).
	 */
	Assert(rel->relid > 0 && rel->rtekind == RTE_RELATION);
	foreach(lc, clauses)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);

		if (list_member_ptr(dev_rinfos, rinfo))
			dev_ordered = lappend(dev_ordered, rinfo);
		else
			host_rinfos = lappend(host_rinfos, rinfo);
	}
	Assert(list_length(dev_ordered) == list_length(dev_rinfos));

	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = extract_actual_clauses(host_rinfos, false);
	cscan->scan.scanrelid = rel->relid;
	cscan->flags = best_path->flags;
	cscan->custom_plans = NIL;
	cscan->custom_exprs = extract_actual_clauses(dev_ordered, false);
	cscan->custom_private = NIL;
	cscan->custom_scan_tlist = NIL;
	cscan->custom_relids = NULL;
	cscan->methods = &gpuscan_plan_methods;

	return &cscan->scan.plan;
}

static Node *
gpuscan_create_state(CustomScan *cscan)
{
	GpuScanState *gss = (GpuScanState *) newNode(sizeof(GpuScanState),
												 T_CustomScanState);

	gss->gts.css.flags = cscan->flags;
	gss->gts.css.methods = &gpuscan_exec_methods;
	/* the scan slot holds heap tuples (see gpuscan_begin for 15) */
	pgstrom_scan_slot_create(&gss->gts.css);
	return (Node *) gss;
}

void
pgstrom_init_gpuscan_plan(void)
{
	RegisterCustomScanMethods(&gpuscan_plan_methods);
}
