/*-------------------------------------------------------------------------
 *
 * gpujoin_path.c
 *		Planner side of GpuJoin: which joins qualify and what they cost.
 *
 * set_join_pathlist_hook offers a GpuJoin path for outer JOIN inner when
 *	- pg_strom.enabled and pg_strom.enable_gpujoin are on, and the GPU
 *	  service is READY (or pg_strom.regression_test_mode is on);
 *	- the query is a SELECT without FOR UPDATE/SHARE (EvalPlanQual cannot
 *	  recheck a join row of this node);
 *	- the join is INNER, LEFT (the outer side preserved), SEMI or ANTI, the
 *	  last two only where no column of the inner relation is needed above
 *	  (they return no inner row);
 *	- the outer side is a plain heap table whose restriction clauses are
 *	  device quals as GpuScan's (the rest are checked on the CPU), or a
 *	  GpuJoin path over such a table with fewer than GPUJOIN_MAX_DEPTHS
 *	  inner relations (left-deep: the new inner becomes the next depth);
 *	- every clause of the join is an equality the device hashes and
 *	  compares as PostgreSQL does (gpujoin_types_joinable, the operator on
 *	  the list below, text under a deterministic collation), its outer side
 *	  an expression the device computes over the outer table and its inner
 *	  side any expression of the inner relation; 1 to GPUJOIN_MAX_KEYS of
 *	  them.  At an INNER or LEFT depth the join's other clauses are its
 *	  residual quals (residual_qual_ok: plain columns, nothing volatile, no
 *	  sub-select); at a SEMI or ANTI depth any other clause keeps
 *	  PostgreSQL's plan.  The device evaluates them; where it cannot take
 *	  them, a plain GpuJoin checks them on the CPU (an INNER depth's filter
 *	  the device's records; an outer row with a match at a LEFT depth with
 *	  quals is joined on the CPU) and a GpuPreAgg is not fused;
 *	- the join's output is plain columns of the relations;
 *	- the inner relation is expected to have no more rows than the outer
 *	  table (its rows are kept and sent to the device whole: the other way
 *	  round is the better GpuJoin), and to fit
 *	  pg_strom.gpujoin_max_inner_size (at run time a larger one makes the
 *	  whole node run on the CPU).
 * The inner side is PostgreSQL's cheapest unparameterized path of the inner
 * relation, run once per execution.  A partial (parallel-aware) path is
 * offered over a partial outer when every inner path is parallel safe; its
 * inner is the inner relation's cheapest partial path where there is one
 * (each participant runs it and loads its share of the rows, as Parallel
 * Hash builds: costed as that share), else the cheapest parallel-safe one
 * (one participant runs it whole).
 *
 * Costs (constants in pg_strom's GUCs and PostgreSQL's):
 *	startup = pg_strom.gpu_setup_cost
 *			+ sum over depths of (inner path total cost
 *								  + inner rows * (cpu_tuple_cost
 *												 + cpu_operator_cost * keys))
 *			  (running the inner plans, keeping and encoding their rows; a
 *			  partial inner path's cost and rows are one participant's)
 *	run     = the outer pages (gpu_heap_pages_cost, planner/gpu_paths.c:
 *			  they take the place of seq_page_cost * pages)
 *			+ outer tuples * (gpu_tuple_cost + gpu_operator_cost *
 *							  (device qual operators + outer keys))
 *			+ outer rows * gpu_operator_cost * keys of every depth (probes)
 *			+ outer pages * cpu_tuple_cost * GPUJOIN_RECORDS_PAGE_TUPLES
 *			  (the service returning the records)
 *			+ join rows * cpu_tuple_cost (forming the rows)
 *			+ join rows * each depth's residual quals: gpu_operator_cost
 *			  per operator where the device takes them, else their cost
 *			  on the CPU and, at a LEFT depth, cpu_tuple_cost
 * where the last five lines are divided among parallel participants.  In
 * regression test mode the costs are scaled down as GpuScan's.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_class.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "parser/parsetree.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"

#include "codegen/codegen.h"
#include "core/pg_strom.h"
#include "gpujoin/gpujoin.h"
#include "gpuscan/gpuscan.h"
#include "planner/gpu_partitions.h"
#include "planner/gpu_paths.h"

static set_join_pathlist_hook_type prev_set_join_pathlist_hook = NULL;

/*
 * Bytes the backend keeps per inner row besides its columns and key slots:
 * the MinimalTuple header, alignment and the row's offset.
 */
#define GPUJOIN_ROW_OVERHEAD	32.0

/* equality functions whose hash and equality the device reproduces */
static bool
equality_on_device(Oid opno)
{
	switch (get_opcode(opno))
	{
		case F_INT2EQ:
		case F_INT4EQ:
		case F_INT8EQ:
		case F_INT24EQ:
		case F_INT42EQ:
		case F_INT28EQ:
		case F_INT82EQ:
		case F_INT48EQ:
		case F_INT84EQ:
		case F_TEXTEQ:
		case F_BPCHAREQ:
		case F_NUMERIC_EQ:
		case F_DATE_EQ:
		case F_TIMESTAMP_EQ:
		case F_FLOAT4EQ:
		case F_FLOAT8EQ:
			return true;
		default:
			return false;
	}
}

/* the joinrel's output is plain user columns (formed from the tuples) */
static bool
plain_columns(List *exprs)
{
	ListCell   *lc;

	foreach(lc, exprs)
	{
		Var		   *var = lfirst(lc);

		if (!IsA(var, Var) || var->varattno <= 0 || var->varlevelsup != 0)
			return false;
	}
	return true;
}

/*
 * A SEMI or ANTI depth returns no inner row, so its inner relation's
 * columns must not be needed above the join.  PostgreSQL may need them: for
 * x IN (SELECT y ...) AND y = z, the semi join emits the y of a matching
 * row for the join above.
 */
static bool
inner_columns_needed(RelOptInfo *joinrel, RelOptInfo *innerrel)
{
	ListCell   *lc;

	foreach(lc, joinrel->reltarget->exprs)
	{
		Var		   *var = lfirst(lc);

		if (IsA(var, Var) && bms_is_member(var->varno, innerrel->relids))
			return true;
	}
	return false;
}

/*
 * One join clause as a key of the new depth: false if it is not one the
 * device can take.
 */
static bool
classify_key(RestrictInfo *rinfo, RelOptInfo *joinrel, RelOptInfo *outerrel,
			 RelOptInfo *innerrel, JoinType jointype, Index outer_relid,
			 GpuJoinDepthInfo *depth)
{
	OpExpr	   *op = (OpExpr *) rinfo->clause;
	Expr	   *outer_expr;
	Expr	   *inner_expr;
	Oid			opno;
	int			oxt,
				ixt;
	Relids		varnos;

	if (rinfo->pseudoconstant)
		return false;
	/* a filter above an outer join (as hash_inner_and_outer sees them) */
	if (IS_OUTER_JOIN(jointype) && RINFO_IS_PUSHED_DOWN(rinfo, joinrel->relids))
		return false;
	if (!IsA(op, OpExpr) || list_length(op->args) != 2 || op->opretset)
		return false;
	if (bms_is_empty(rinfo->left_relids) || bms_is_empty(rinfo->right_relids))
		return false;
	opno = op->opno;
	if (bms_is_subset(rinfo->left_relids, outerrel->relids) &&
		bms_is_subset(rinfo->right_relids, innerrel->relids))
	{
		outer_expr = linitial(op->args);
		inner_expr = lsecond(op->args);
	}
	else if (bms_is_subset(rinfo->left_relids, innerrel->relids) &&
			 bms_is_subset(rinfo->right_relids, outerrel->relids))
	{
		/* as outer = inner: the commutator (its hash functions swap too) */
		outer_expr = lsecond(op->args);
		inner_expr = linitial(op->args);
		opno = get_commutator(opno);
		if (!OidIsValid(opno))
			return false;
	}
	else
		return false;
	if (!equality_on_device(opno) || !op_hashjoinable(opno, exprType((Node *) outer_expr)))
		return false;

	oxt = gpujoin_key_xtype(exprType((Node *) outer_expr));
	ixt = gpujoin_key_xtype(exprType((Node *) inner_expr));
	if (!gpujoin_types_joinable(oxt, ixt))
		return false;
	if ((oxt == XPU_TYPE_TEXT || oxt == XPU_TYPE_VARCHAR || oxt == XPU_TYPE_BPCHAR) &&
		(!OidIsValid(op->inputcollid) || !get_collation_isdeterministic(op->inputcollid)))
		return false;

	/* the outer side is computed on the device over the outer table */
	varnos = pull_varnos(NULL, (Node *) outer_expr);
	if (!bms_equal(varnos, bms_make_singleton(outer_relid)))
		return false;
	if (!pgstrom_codegen_expr_supported(outer_expr, outer_relid, NULL))
		return false;
	/* the inner side on the CPU over the inner plan's output */
	if (contain_volatile_functions((Node *) inner_expr) ||
		!plain_columns(pull_var_clause((Node *) inner_expr, 0)))
		return false;

	depth->outer_keys = lappend(depth->outer_keys, outer_expr);
	depth->inner_keys = lappend(depth->inner_keys, inner_expr);
	depth->key_opnos = lappend_oid(depth->key_opnos, opno);
	depth->key_collids = lappend_oid(depth->key_collids, op->inputcollid);
	return true;
}

/* what a residual join qual must not contain */
static bool
residual_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		Var		   *var = (Var *) node;

		/* a column the join row can carry (no system or whole-row ones) */
		return var->varlevelsup != 0 || var->varattno <= 0;
	}
	/*
	 * Sub-selects and placeholders are not columns of the relations, and
	 * a PARAM_EXEC (a correlated outer value, an initplan's output) would
	 * have to reach expressions set_plan_refs does not see.
	 */
	if (IsA(node, SubLink) || IsA(node, SubPlan) || IsA(node, AlternativeSubPlan) ||
		IsA(node, PlaceHolderVar) || IsA(node, Aggref) || IsA(node, WindowFunc) ||
		IsA(node, GroupingFunc))
		return true;
	if (IsA(node, Param) && ((Param *) node)->paramkind == PARAM_EXEC)
		return true;
	return expression_tree_walker(node, residual_walker, context);
}

/*
 * A join clause that is not a key may be a residual qual of the depth: at
 * an INNER or LEFT depth (a SEMI or ANTI one keeps PostgreSQL's plan), a
 * clause of the join itself (not a filter above an outer join), over
 * plain columns of the joined relations, with no volatile function (it
 * may be evaluated more than once for a row: on the device and on the
 * CPU).
 */
static bool
residual_qual_ok(RestrictInfo *rinfo, RelOptInfo *joinrel, RelOptInfo *outerrel,
				 RelOptInfo *innerrel, JoinType jointype)
{
	if (jointype != JOIN_INNER && jointype != JOIN_LEFT)
		return false;
	if (rinfo->pseudoconstant)
		return false;
	if (IS_OUTER_JOIN(jointype) && RINFO_IS_PUSHED_DOWN(rinfo, joinrel->relids))
		return false;
	if (!bms_is_subset(rinfo->clause_relids,
					   bms_union(outerrel->relids, innerrel->relids)))
		return false;
	if (contain_volatile_functions((Node *) rinfo->clause))
		return false;
	return !residual_walker((Node *) rinfo->clause, NULL);
}

/* a partitioned table or inheritance parent scanned through its leaves */
bool
gpujoin_outer_is_appendrel(PlannerInfo *root, Index relid)
{
	RangeTblEntry *rte = planner_rt_fetch(relid, root);

	return rte->rtekind == RTE_RELATION && rte->inh &&
		(rte->relkind == RELKIND_PARTITIONED_TABLE ||
		 rte->relkind == RELKIND_RELATION);
}

/*
 * The outer table's restriction clauses: device quals as GpuScan takes
 * them, the rest host quals.  False if the table is not one the runtime
 * scans.  A partitioned table or inheritance parent qualifies with device
 * quals only: its paths are templates, never a plan of their own, that
 * gpujoin_partition.c (and a GpuPreAgg fused over them,
 * gpupreagg_partition_join.c) copies for each leaf under an Append.
 */
static bool
outer_base_info(PlannerInfo *root, RelOptInfo *rel, GpuJoinInfo *info)
{
	RangeTblEntry *rte;
	List	   *dev_clauses = NIL;
	bool		appendrel;
	ListCell   *lc;

	if (rel->reloptkind != RELOPT_BASEREL || rel->rtekind != RTE_RELATION)
		return false;
	rte = planner_rt_fetch(rel->relid, root);
	appendrel = gpujoin_outer_is_appendrel(root, rel->relid);
	if (rte->tablesample != NULL || rte->securityQuals != NIL)
		return false;
	if (!appendrel &&
		(rte->inh ||
		 (rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_MATVIEW)))
		return false;
	if (rel->lateral_relids != NULL || IS_DUMMY_REL(rel))
		return false;
	if (!appendrel && !gpu_relation_is_plain_heap(rte))
		return false;

	memset(info, 0, sizeof(GpuJoinInfo));
	info->outer_relid = rel->relid;
	foreach(lc, rel->baserestrictinfo)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);
		List	   *all;
		bool		fits;

		if (rinfo->security_level != 0 || rinfo->pseudoconstant)
			return false;
		all = lappend(list_copy(dev_clauses), rinfo->clause);
		fits = (list_length(dev_clauses) < GPUSCAN_MAX_DEVICE_QUALS &&
				pgstrom_codegen_qual_supported(rinfo->clause, rel->relid) &&
				pgstrom_codegen_qual_supported(make_ands_explicit(all), rel->relid));
		list_free(all);
		if (fits)
			dev_clauses = lappend(dev_clauses, rinfo->clause);
		else if (appendrel)
			return false;
		else
			info->host_quals = lappend(info->host_quals, rinfo->clause);
	}
	info->dev_quals = dev_clauses;
	return true;
}

/*
 * The service's work returning a plain GpuJoin's records, per participant
 * (GPUJOIN_RECORDS_PAGE_TUPLES); the fused GpuPreAgg returns none and
 * takes this off its GpuJoin's cost.
 */
Cost
gpujoin_records_cost(RelOptInfo *outer, int parallel_workers)
{
	double		divisor = (parallel_workers > 0
						   ? gpu_parallel_divisor(parallel_workers) : 1.0);

	return outer->pages * cpu_tuple_cost * GPUJOIN_RECORDS_PAGE_TUPLES / divisor;
}

typedef struct RowVarsContext
{
	Index		outer_relid;
	List	   *vars;			/* distinct Vars, in order */
	bool		fits;
} RowVarsContext;

/*
 * A residual qual's Vars as the columns of one row, Var(outer_relid, k +
 * 1), for the device check over one relation; an inner column must have
 * a payload slot encoding.
 */
static Node *
row_vars_mutator(Node *node, RowVarsContext *cxt)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var))
	{
		Var		   *var = (Var *) copyObject(node);
		ListCell   *lc;
		int			k = 0;

		foreach(lc, cxt->vars)
		{
			Var		   *v = lfirst(lc);

			if (v->varno == var->varno && v->varattno == var->varattno)
				break;
			k++;
		}
		if (lc == NULL)
			cxt->vars = lappend(cxt->vars, node);
		if (var->varno != cxt->outer_relid &&
			!gpujoin_slot_encodable(gpujoin_key_xtype(var->vartype)))
			cxt->fits = false;
		var->varno = cxt->outer_relid;
		var->varattno = k + 1;
		return (Node *) var;
	}
	return expression_tree_mutator(node, row_vars_mutator, (void *) cxt);
}

/* the device can evaluate the depth's residual quals (gpujoin_payload.c) */
static bool
quals_on_device(const GpuJoinDepthInfo *depth, Index outer_relid)
{
	RowVarsContext cxt = {outer_relid, NIL, true};
	Node	   *mapped;

	mapped = row_vars_mutator((Node *) make_ands_explicit(depth->join_quals), &cxt);
	return cxt.fits && list_length(cxt.vars) <= XPU_MAX_ATTRS &&
		pgstrom_codegen_qual_supported((Expr *) mapped, outer_relid);
}

/*
 * The residual join quals over every key match, at least the join's rows:
 * on the device, gpu_operator_cost per operator; on the CPU (the backend
 * checks quals the device cannot take), their cost, and for a LEFT depth
 * cpu_tuple_cost more per row (its matches are joined again on the CPU).
 */
static Cost
residual_cost(PlannerInfo *root, const GpuJoinInfo *info, double join_rows)
{
	Cost		cost = 0.0;
	int			d;

	for (d = 0; d < info->ndepths; d++)
	{
		QualCost	qcost;

		if (info->depths[d].join_quals == NIL)
			continue;
		cost_qual_eval(&qcost, info->depths[d].join_quals, root);
		if (quals_on_device(&info->depths[d], info->outer_relid))
		{
			cost += join_rows * pgstrom_gpu_operator_cost *
				(cpu_operator_cost > 0.0 ? qcost.per_tuple / cpu_operator_cost : 1.0);
			continue;
		}
		cost += join_rows * qcost.per_tuple;
		if (info->depths[d].join_type == JOIN_LEFT)
			cost += join_rows * cpu_tuple_cost;
	}
	return cost;
}

static void
gpujoin_cost(PlannerInfo *root, RelOptInfo *joinrel, CustomPath *cpath,
			 const GpuJoinInfo *info, int parallel_workers)
{
	RelOptInfo *outer = find_base_rel(root, info->outer_relid);
	Path	   *path = &cpath->path;
	QualCost	dev_cost;
	double		dev_operators;
	int			nkeys = 0;
	Cost		startup_cost = pgstrom_gpu_setup_cost;
	Cost		disk_cost;
	Cost		run_cost;
	ListCell   *lc;
	int			d = 0;

	foreach(lc, cpath->custom_paths)
	{
		Path	   *inner = lfirst(lc);
		int			k = list_length(info->depths[d].outer_keys);

		startup_cost += inner->total_cost + inner->rows * (cpu_tuple_cost + cpu_operator_cost * k);
		nkeys += k;
		d++;
	}
	disk_cost = gpu_heap_pages_cost(outer, parallel_workers);
	cost_qual_eval(&dev_cost, info->dev_quals, root);
	dev_operators = (cpu_operator_cost > 0.0
					 ? dev_cost.per_tuple / cpu_operator_cost
					 : (double) list_length(info->dev_quals));
	run_cost = outer->tuples * (pgstrom_gpu_tuple_cost +
						   pgstrom_gpu_operator_cost * (dev_operators + nkeys))
		+ outer->rows * pgstrom_gpu_operator_cost * nkeys
		+ joinrel->rows * cpu_tuple_cost
		+ residual_cost(root, info, joinrel->rows);
	startup_cost += path->pathtarget->cost.startup;
	run_cost += path->pathtarget->cost.per_tuple * joinrel->rows;

	path->rows = joinrel->rows;
	if (parallel_workers > 0)
	{
		double		divisor = gpu_parallel_divisor(parallel_workers);

		run_cost /= divisor;
		path->rows = clamp_row_est(path->rows / divisor);
	}
	run_cost += gpujoin_records_cost(outer, parallel_workers);
	if (pgstrom_regression_test_mode)
	{
		startup_cost *= REGRESSION_COST_SCALE;
		disk_cost *= REGRESSION_COST_SCALE;
		run_cost *= REGRESSION_COST_SCALE;
	}
	path->startup_cost = startup_cost;
	path->total_cost = startup_cost + disk_cost + run_cost;
}

static CustomPath *
create_gpujoin_path(PlannerInfo *root, RelOptInfo *joinrel,
					const GpuJoinInfo *info, List *inner_paths,
					int parallel_workers)
{
	CustomPath *cpath = makeNode(CustomPath);
	bool		parallel_safe = joinrel->consider_parallel;
	ListCell   *lc;

	/*
	 * Every participant of a parallel plan that holds this node may run
	 * its inner plans: one that is not parallel safe (a Gather, among
	 * others) keeps the whole node out of parallel plans.
	 */
	foreach(lc, inner_paths)
		parallel_safe &= ((Path *) lfirst(lc))->parallel_safe;

	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = joinrel;
	cpath->path.pathtarget = joinrel->reltarget;
	cpath->path.param_info = NULL;
	cpath->path.parallel_aware = (parallel_workers > 0);
	cpath->path.parallel_safe = parallel_safe;
	cpath->path.parallel_workers = parallel_workers;
	cpath->path.pathkeys = NIL;
	cpath->flags = 0;
	cpath->custom_paths = inner_paths;
	cpath->custom_private = gpujoin_info_to_list(info);
	cpath->methods = &gpujoin_path_methods;
	gpujoin_cost(root, joinrel, cpath, info, parallel_workers);
	return cpath;
}

/*
 * The rows of all participants' shares of a partial inner path (its rows
 * are one participant's), as final_cost_hashjoin counts a parallel hash's.
 */
static double
inner_total_rows(Path *inner_path, bool partial)
{
	if (!partial)
		return inner_path->rows;
	return clamp_row_est(inner_path->rows *
						 gpu_parallel_divisor(inner_path->parallel_workers));
}

/*
 * Under a partial GpuJoin: the inner relation's cheapest partial path (the
 * list is kept in total cost order), which every participant runs for its
 * share; NULL if it has none.
 */
Path *
gpujoin_cheapest_partial_inner(RelOptInfo *innerrel)
{
	Path	   *path;

	if (innerrel->partial_pathlist == NIL)
		return NULL;
	path = linitial(innerrel->partial_pathlist);
	if (path->param_info != NULL || !path->parallel_safe)
		return NULL;
	return path;
}

/*
 * PostgreSQL's cheapest unparameterized path of the inner relation; under a
 * partial GpuJoin (every participant may run it) a parallel-safe one.
 */
static Path *
cheapest_inner(RelOptInfo *innerrel, bool parallel_safe)
{
	Path	   *best = NULL;
	ListCell   *lc;

	if (!parallel_safe)
	{
		best = innerrel->cheapest_total_path;
		return (best && best->param_info == NULL) ? best : NULL;
	}
	foreach(lc, innerrel->pathlist)
	{
		Path	   *path = lfirst(lc);

		if (path->param_info == NULL && path->parallel_safe &&
			(best == NULL || path->total_cost < best->total_cost))
			best = path;
	}
	return best;
}

bool
is_gpujoin_path(Path *path)
{
	return IsA(path, CustomPath) &&
		((CustomPath *) path)->methods == &gpujoin_path_methods;
}

/* the new depth over outer (a base table's info, or a GpuJoin path's) */
static void
add_one(PlannerInfo *root, RelOptInfo *joinrel, const GpuJoinInfo *outer_info,
		List *outer_inner_paths, const GpuJoinDepthInfo *depth,
		Path *inner_path, int parallel_workers)
{
	double		inner_rows = inner_total_rows(inner_path, depth->inner_partial);
	GpuJoinInfo info = *outer_info;
	List	   *inner_paths = lappend(list_copy(outer_inner_paths), inner_path);
	CustomPath *cpath;

	if (info.ndepths >= GPUJOIN_MAX_DEPTHS)
		return;
	/*
	 * The inner rows are kept and sent to the device whole: an inner side
	 * larger than the outer table is the wrong way round (a scan of the
	 * larger table should be the outer).
	 */
	if (inner_rows > find_base_rel(root, info.outer_relid)->rows)
		return;
	/* nor one expected above pg_strom.gpujoin_max_inner_size */
	if (inner_rows * (inner_path->pathtarget->width + GPUJOIN_ROW_OVERHEAD +
							16.0 * list_length(depth->outer_keys)) >
		(double) pgstrom_gpujoin_max_inner_size_kb * 1024.0)
		return;
	/* a template's inner plans are made once under each leaf's node */
	if (gpujoin_outer_is_appendrel(root, info.outer_relid) &&
		!gpu_path_replannable(inner_path))
		return;
	info.depths[info.ndepths++] = *depth;
	/* the quals and every outer key must fit one device program */
	if (!gpujoin_codegen_check(&info, info.outer_relid, NULL))
		return;
	cpath = create_gpujoin_path(root, joinrel, &info, inner_paths,
								parallel_workers);
	gpujoin_remember_path(root, joinrel, cpath);
	if (gpujoin_outer_is_appendrel(root, info.outer_relid))
	{
		/* a template: see outer_base_info */
		gpujoin_add_partition_paths(root, joinrel, cpath);
		return;
	}
	if (parallel_workers > 0)
		add_partial_path(joinrel, &cpath->path);
	else
		add_path(joinrel, &cpath->path);
}

/*
 * The new depth's keys over the outer table outer_relid: false if a clause
 * of the join is not a key the device takes.
 */
static bool
classify_depth(RelOptInfo *joinrel, RelOptInfo *outerrel, RelOptInfo *innerrel,
			   JoinType jointype, JoinPathExtraData *extra, Index outer_relid,
			   Path *inner_path, bool inner_partial, GpuJoinDepthInfo *depth)
{
	ListCell   *lc;

	memset(depth, 0, sizeof(GpuJoinDepthInfo));
	depth->join_type = jointype;
	depth->inner_partial = inner_partial;
	depth->plan_rows = inner_total_rows(inner_path, inner_partial);
	foreach(lc, extra->restrictlist)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);

		if (classify_key(rinfo, joinrel, outerrel, innerrel, jointype,
						 outer_relid, depth))
			continue;
		if (!residual_qual_ok(rinfo, joinrel, outerrel, innerrel, jointype))
			return false;
		depth->join_quals = lappend(depth->join_quals, rinfo->clause);
	}
	return depth->outer_keys != NIL &&
		list_length(depth->outer_keys) <= GPUJOIN_MAX_KEYS;
}

/*
 * One depth more over each GpuJoin path of the outer relation that
 * gpujoin_paths_of() gives (the remembered cheapest ones, which add_path
 * may have pruned from the relation's own lists).
 */
static void
extend_outer_joins(PlannerInfo *root, RelOptInfo *joinrel,
				   RelOptInfo *outerrel, RelOptInfo *innerrel,
				   JoinType jointype, JoinPathExtraData *extra,
				   Path *inner_path, Path *template_inner,
				   bool inner_partial, bool partial)
{
	ListCell   *lc;

	foreach(lc, gpujoin_paths_of(root, outerrel, partial))
	{
		CustomPath *outer = lfirst(lc);
		GpuJoinInfo *oinfo = gpujoin_info_from_list(outer->custom_private);
		GpuJoinDepthInfo depth;
		Path	   *inner = inner_path;

		if (gpujoin_outer_is_appendrel(root, oinfo->outer_relid))
			inner = template_inner;
		if (!classify_depth(joinrel, outerrel, innerrel, jointype, extra,
							oinfo->outer_relid, inner, inner_partial,
							&depth))
			continue;
		add_one(root, joinrel, oinfo, outer->custom_paths, &depth, inner,
				partial ? outer->path.parallel_workers : 0);
	}
}

static void
gpujoin_add_paths(PlannerInfo *root, RelOptInfo *joinrel,
				  RelOptInfo *outerrel, RelOptInfo *innerrel,
				  JoinType jointype, JoinPathExtraData *extra)
{
	GpuJoinDepthInfo depth;
	GpuJoinInfo base;
	Path	   *inner_path = cheapest_inner(innerrel, false);
	Path	   *safe_inner = gpujoin_cheapest_partial_inner(innerrel);
	Path	   *template_inner;
	bool		safe_partial = (safe_inner != NULL);

	if (!pgstrom_enabled || !pgstrom_enable_gpujoin)
		return;
	if (jointype != JOIN_INNER && jointype != JOIN_LEFT &&
		jointype != JOIN_SEMI && jointype != JOIN_ANTI)
		return;
	if (!pgstrom_regression_test_mode && !gpu_service_ready())
		return;
	/*
	 * EvalPlanQual would hand the scan a tuple of the outer table where the
	 * node's scan tuple is a join row: no GpuJoin where rows are locked or
	 * modified.
	 */
	if (root->parse->commandType != CMD_SELECT || root->rowMarks != NIL)
		return;
	if (inner_path == NULL || inner_path->param_info != NULL ||
		!bms_is_empty(joinrel->lateral_relids) ||
		!plain_columns(joinrel->reltarget->exprs))
		return;
	if ((jointype == JOIN_SEMI || jointype == JOIN_ANTI) &&
		inner_columns_needed(joinrel, innerrel))
		return;
	/*
	 * A template (a partitioned outer) is one serial path whose leaves may
	 * each be run by one participant of a Parallel Append: its inner plans
	 * are parallel safe where the inner relation has such a path.
	 */
	template_inner = cheapest_inner(innerrel, true);
	if (safe_inner == NULL)
		safe_inner = template_inner;
	if (template_inner == NULL)
		template_inner = inner_path;

	if (!outer_base_info(root, outerrel, &base))
	{
		/* extend GpuJoin paths of the outer relation by one depth */
		extend_outer_joins(root, joinrel, outerrel, innerrel, jointype, extra,
						   inner_path, template_inner, false, false);
		if (joinrel->consider_parallel && safe_inner != NULL)
			extend_outer_joins(root, joinrel, outerrel, innerrel, jointype,
							   extra, safe_inner, safe_inner, safe_partial,
							   true);
		return;
	}
	if (gpujoin_outer_is_appendrel(root, outerrel->relid))
	{
		if (classify_depth(joinrel, outerrel, innerrel, jointype, extra,
						   outerrel->relid, template_inner, false, &depth))
			add_one(root, joinrel, &base, NIL, &depth, template_inner, 0);
		return;
	}

	if (!classify_depth(joinrel, outerrel, innerrel, jointype, extra,
						outerrel->relid, inner_path, false, &depth))
		return;
	add_one(root, joinrel, &base, NIL, &depth, inner_path, 0);
	if (joinrel->consider_parallel && outerrel->consider_parallel &&
		safe_inner != NULL)
	{
		int			workers = compute_parallel_worker(outerrel, outerrel->pages, -1,
													  max_parallel_workers_per_gather);

		if (workers > 0)
		{
			depth.inner_partial = safe_partial;
			depth.plan_rows = inner_total_rows(safe_inner, safe_partial);
			add_one(root, joinrel, &base, NIL, &depth, safe_inner, workers);
		}
	}
}

static void
gpujoin_set_join_pathlist(PlannerInfo *root, RelOptInfo *joinrel,
						  RelOptInfo *outerrel, RelOptInfo *innerrel,
						  JoinType jointype, JoinPathExtraData *extra)
{
	if (prev_set_join_pathlist_hook)
		prev_set_join_pathlist_hook(root, joinrel, outerrel, innerrel,
									jointype, extra);
	gpujoin_add_paths(root, joinrel, outerrel, innerrel, jointype, extra);
}

void
pgstrom_init_gpujoin(void)
{
	pgstrom_init_gpujoin_plan();
	pgstrom_init_gpujoin_remember();
	prev_set_join_pathlist_hook = set_join_pathlist_hook;
	set_join_pathlist_hook = gpujoin_set_join_pathlist;
}
