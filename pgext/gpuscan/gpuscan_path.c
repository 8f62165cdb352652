/*-------------------------------------------------------------------------
 *
 * gpuscan_path.c
 *		Planner side of GpuScan: when it is offered and what it costs.
 *
 * set_rel_pathlist_hook offers a GpuScan path (and a parallel-aware partial
 * path) for a plain heap base relation when
 *	- pg_strom.enabled and pg_strom.enable_gpuscan are on,
 *	- the GPU service is READY, or pg_strom.regression_test_mode is on,
 *	- at least one of its restriction clauses can run on the device.
 * At DEBUG2 it says which clauses stay on the CPU and why, and why no
 * GpuScan was offered once the relation is one it could scan.
 * The first GPUSCAN_MAX_DEVICE_QUALS supported clauses become device quals;
 * the others stay host quals.
 *
 * Costs follow the sequential scan's:
 *	startup = pg_strom.gpu_setup_cost
 *	run     = the pages (gpu_heap_pages_cost, planner/gpu_paths.c: they
 *			  take the place of seq_page_cost * pages)
 *			+ tuples * (gpu_tuple_cost + gpu_operator_cost * device operators)
 *			+ rows passing the device quals * (cpu_tuple_cost + host qual cost)
 *			+ pages holding such rows * seq_page_cost
 * where the second and third lines are divided among parallel participants.
 * The device returns the positions of the rows that pass, and a backend
 * reads each page holding one of them again to form the rows: that page
 * costs what PostgreSQL's sequential scan charges for it, undivided as the
 * scan's page reads are.  A scan that returns most of its rows therefore
 * costs more than the sequential scan, as measured: with 63 % of 18 M rows
 * returned the GpuScan took 0.40 s where the parallel sequential scan took
 * 0.23 s.  The expected number of such pages treats the passing rows as
 * spread evenly over the pages.
 * Moving a page to the device costs the same whatever it holds, so wide
 * rows pay more per row than narrow ones.
 * In regression test mode the costs are scaled down so that GpuScan wins
 * and EXPLAIN shapes do not depend on the machine.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/table.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "storage/lwlock.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "codegen/codegen.h"
#include "core/pg_strom.h"
#include "gpuscan/gpuscan.h"
#include "planner/gpu_not_offered.h"
#include "planner/gpu_paths.h"

static set_rel_pathlist_hook_type prev_set_rel_pathlist_hook = NULL;

static void
gpuscan_cost(PlannerInfo *root, RelOptInfo *rel, CustomPath *cpath,
			 List *dev_rinfos, List *host_rinfos, int parallel_workers)
{
	Path	   *path = &cpath->path;
	ParamPathInfo *param_info = path->param_info;
	double		ntuples = rel->tuples;
	double		dev_selectivity;
	double		dev_rows;
	QualCost	dev_cost;
	QualCost	host_cost;
	double		dev_operators;
	Cost		startup_cost;
	Cost		disk_cost;
	Cost		cpu_run_cost;
	double		reread_pages;

	if (param_info)
		path->rows = param_info->ppi_rows;
	else
		path->rows = rel->rows;

	disk_cost = gpu_heap_pages_cost(rel, parallel_workers);

	/* device quals: cost_qual_eval counts operators in cpu_operator_cost */
	cost_qual_eval(&dev_cost, dev_rinfos, root);
	dev_operators = (cpu_operator_cost > 0.0
					 ? dev_cost.per_tuple / cpu_operator_cost
					 : (double) list_length(dev_rinfos));
	dev_selectivity = clauselist_selectivity(root,
											 extract_actual_clauses(dev_rinfos, false),
											 rel->relid, JOIN_INNER, NULL);
	dev_rows = clamp_row_est(ntuples * dev_selectivity);

	/* host quals, including parameterized join clauses */
	cost_qual_eval(&host_cost, host_rinfos, root);
	if (param_info)
	{
		QualCost	ppi_cost;

		cost_qual_eval(&ppi_cost, param_info->ppi_clauses, root);
		host_cost.startup += ppi_cost.startup;
		host_cost.per_tuple += ppi_cost.per_tuple;
	}

	startup_cost = pgstrom_gpu_setup_cost + dev_cost.startup + host_cost.startup;
	cpu_run_cost = ntuples * (pgstrom_gpu_tuple_cost +
					 pgstrom_gpu_operator_cost * dev_operators)
		+ dev_rows * (cpu_tuple_cost + host_cost.per_tuple);

	reread_pages = gpu_pages_holding_rows(rel, dev_selectivity);
	disk_cost += reread_pages * seq_page_cost;

	/* the target list */
	startup_cost += path->pathtarget->cost.startup;
	cpu_run_cost += path->pathtarget->cost.per_tuple * path->rows;

	if (parallel_workers > 0)
	{
		double		divisor = gpu_parallel_divisor(parallel_workers);

		cpu_run_cost /= divisor;
		path->rows = clamp_row_est(path->rows / divisor);
	}

	if (pgstrom_regression_test_mode)
	{
		startup_cost *= REGRESSION_COST_SCALE;
		disk_cost *= REGRESSION_COST_SCALE;
		cpu_run_cost *= REGRESSION_COST_SCALE;
	}
	path->startup_cost = startup_cost;
	path->total_cost = startup_cost + disk_cost + cpu_run_cost;
}

static CustomPath *
gpuscan_create_path(PlannerInfo *root, RelOptInfo *rel,
					List *dev_rinfos, List *host_rinfos,
					int parallel_workers)
{
	CustomPath *cpath = makeNode(CustomPath);
	Relids		required_outer = rel->lateral_relids;

	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = rel;
	cpath->path.pathtarget = rel->reltarget;
	cpath->path.param_info = get_baserel_parampathinfo(root, rel,
													   required_outer);
	cpath->path.parallel_aware = (parallel_workers > 0);
	cpath->path.parallel_safe = rel->consider_parallel;
	cpath->path.parallel_workers = parallel_workers;
	cpath->path.pathkeys = NIL;
	cpath->flags = 0;
	cpath->custom_paths = NIL;
	cpath->custom_private = list_make1(dev_rinfos);
	cpath->methods = &gpuscan_path_methods;

	gpuscan_cost(root, rel, cpath, dev_rinfos, host_rinfos, parallel_workers);
	return cpath;
}


/*
 * Each qual fits the kernel on its own; the AND of all device quals must fit
 * too (the kernel evaluates at most XPU_GPUSCAN_MAX_NODES nodes per row), so
 * a qual that would push the program over goes to the CPU instead.
 */
static bool
device_quals_fit(List *accepted, Expr *candidate, Index relid)
{
	List	   *all;
	bool		fits;

	if (accepted == NIL)
		return true;
	all = lappend(list_copy(accepted), candidate);
	fits = pgstrom_codegen_qual_supported(make_ands_explicit(all), relid);
	list_free(all);
	return fits;
}

/*
 * NULL when rinfo can join the device quals accepted so far; else why it
 * stays on the CPU.
 */
static const char *
gpuscan_clause_on_cpu(RestrictInfo *rinfo, List *dev_clauses, Index relid)
{
	char	   *reason = NULL;

	if (rinfo->pseudoconstant)
		return "it references no column of the relation (PostgreSQL checks it once)";
	if (list_length(dev_clauses) >= GPUSCAN_MAX_DEVICE_QUALS)
		return psprintf("at most %d WHERE clauses run on the device",
						GPUSCAN_MAX_DEVICE_QUALS);
	if (!pgstrom_codegen_qual_check(rinfo->clause, relid, &reason))
		return reason;
	if (!device_quals_fit(dev_clauses, rinfo->clause, relid))
		return "with the other device clauses it would pass the device program's size limit";
	return NULL;
}

static void
gpuscan_add_paths(PlannerInfo *root, RelOptInfo *rel, Index rti,
				  RangeTblEntry *rte)
{
	List	   *dev_rinfos = NIL;
	List	   *dev_clauses = NIL;
	List	   *host_rinfos = NIL;
	ListCell   *lc;

	if (!pgstrom_enabled || !pgstrom_enable_gpuscan)
		return;
	if (rel->reloptkind != RELOPT_BASEREL &&
		rel->reloptkind != RELOPT_OTHER_MEMBER_REL)
		return;
	if (rte->rtekind != RTE_RELATION || rte->inh ||
		rte->tablesample != NULL || rte->securityQuals != NIL ||
		(rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_MATVIEW))
		return;
	if (rel->baserestrictinfo == NIL)
		return;
	foreach(lc, rel->baserestrictinfo)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);

		if (rinfo->security_level != 0)
			return;
	}
	if (!gpu_relation_is_plain_heap(rte))
		return;
	if (!pgstrom_regression_test_mode && !gpu_service_ready())
	{
		gpu_report_not_offered("GpuScan", rte->relid,
							   "the GPU service is not ready (pgstrom.gpu_service_status())");
		return;
	}

	foreach(lc, rel->baserestrictinfo)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);
		const char *why = gpuscan_clause_on_cpu(rinfo, dev_clauses, rel->relid);

		if (why == NULL)
		{
			dev_rinfos = lappend(dev_rinfos, rinfo);
			dev_clauses = lappend(dev_clauses, rinfo->clause);
		}
		else
		{
			gpu_report_cpu_clause("GpuScan", rte->relid, rel->relid,
								  rinfo->clause, why);
			host_rinfos = lappend(host_rinfos, rinfo);
		}
	}
	if (dev_rinfos == NIL)
	{
		gpu_report_not_offered("GpuScan", rte->relid,
							   "no WHERE clause runs on the device");
		return;
	}

	add_path(rel, &gpuscan_create_path(root, rel, dev_rinfos, host_rinfos, 0)->path);

	/* a partial path for Gather, as create_plain_partial_paths() */
	if (rel->consider_parallel && rel->lateral_relids == NULL)
	{
		int			parallel_workers;

		parallel_workers = compute_parallel_worker(rel, rel->pages, -1,
												   max_parallel_workers_per_gather);
		if (parallel_workers > 0)
			add_partial_path(rel, &gpuscan_create_path(root, rel, dev_rinfos,
													   host_rinfos,
													   parallel_workers)->path);
	}
}

static void
gpuscan_set_rel_pathlist(PlannerInfo *root, RelOptInfo *rel, Index rti,
						 RangeTblEntry *rte)
{
	if (prev_set_rel_pathlist_hook)
		prev_set_rel_pathlist_hook(root, rel, rti, rte);
	gpuscan_add_paths(root, rel, rti, rte);
}

void
pgstrom_init_gpuscan(void)
{
	pgstrom_init_gpuscan_plan();
	prev_set_rel_pathlist_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = gpuscan_set_rel_pathlist;
}
