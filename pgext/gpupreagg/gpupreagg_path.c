/*-------------------------------------------------------------------------
 *
 * gpupreagg_path.c
 *		Planner side of GpuPreAgg: create_upper_paths_hook.
 *
 * For UPPERREL_GROUP_AGG over a single plain heap base relation it offers
 *		Finalize Agg (AGGSPLIT_FINAL_DESERIAL; hashed, or plain without keys)
 *		  -> Gather -> Parallel Custom Scan (GpuPreAgg)
 * and the same without the Gather (over a partitioned table, an inheritance
 * tree or a UNION ALL, an Append of one per leaf: gpupreagg_partition.c);
 * for aggregates over DISTINCT arguments, or min/max the device does not
 * accumulate (gpupreagg_set_aggs.c), a sorted or plain Agg (AGGSPLIT_SIMPLE)
 * over a Sort of a GpuPreAgg without aggregates, and beside other
 * aggregates, and for grouping sets, two Aggs over a GpuPreAgg of both
 * (gpupreagg_mixed.c); when
 *	- pg_strom.enabled and pg_strom.enable_gpupreagg are on, and the GPU
 *	  service is READY or pg_strom.regression_test_mode is on;
 *	- every restriction clause runs on the device (a host qual would have
 *	  to be evaluated before aggregating, which the device cannot wait for);
 *	- no SRFs in the target list, every aggregate is one
 *	  gpupreagg_classify_aggref() accepts (or, with DISTINCT aggregates,
 *	  one gpupreagg_set_aggs_keys() or gpupreagg_mixed_split() does; with
 *	  grouping sets, one gpupreagg_mixed_split() does),
 *	  every grouping key is one
 *	  gpupreagg_key_supported() accepts and hashes with its type's default
 *	  equality, and any other column the target list or HAVING needs is a
 *	  grouping key itself;
 *	- the whole device program fits the kernel and the group entry fits
 *	  XPU_PREAGG_MAX_ENTRY.
 * HAVING stays with the final Agg.  DEBUG2 says why a query was refused.
 *
 * Costs: the GPU scan model (setup, the pages as gpu_heap_pages_cost
 * charges them, per-tuple device cost) with the device operators of
 * quals, keys and arguments plus one per aggregate (the tuples' share
 * divided among parallel participants), all before the first row
 * (startup), plus cpu_tuple_cost per group returned.  Regression test
 * mode scales them, and those of the final Agg above, down by
 * REGRESSION_COST_SCALE.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_class.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/planner.h"
#include "optimizer/prep.h"
#include "optimizer/restrictinfo.h"
#include "optimizer/tlist.h"
#include "parser/parse_oper.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/typcache.h"

#include "codegen/codegen.h"
#include "compat/pg_compat.h"
#include "core/pg_strom.h"
#include "gpupreagg/gpupreagg_internal.h"
#include "planner/gpu_paths.h"


static create_upper_paths_hook_type prev_create_upper_paths_hook = NULL;

#define NOT_OFFERED(...) \
	do { \
		ereport(DEBUG2, \
				(errmsg_internal("GpuPreAgg not offered: " __VA_ARGS__))); \
		return; \
	} while (0)

/* what aggref_on_device() classifies an aggregate over */
typedef struct GpaOnDevice
{
	Index		relid;
	GpaJoinInput *join;
	char	   *reason;			/* why the last one refused was */
} GpaOnDevice;

/* the Aggrefs and Vars below a target expression or HAVING */
static bool
collect_upper_items(PlannerInfo *root, Node *expr, List *keys, Index relid,
					List **aggrefs, char **reason)
{
	List	   *items;
	ListCell   *lc;

	expr = pgstrom_without_grouping_nulls(root, expr);
	items = pull_var_clause(expr, PVC_INCLUDE_AGGREGATES |
							PVC_INCLUDE_WINDOWFUNCS |
							PVC_INCLUDE_PLACEHOLDERS);
	foreach(lc, items)
	{
		Node	   *item = lfirst(lc);

		if (IsA(item, Aggref))
		{
			if (!list_member(*aggrefs, item))
				*aggrefs = lappend(*aggrefs, item);
		}
		else if (IsA(item, Var))
		{
			/* only a grouping key itself can come out of GpuPreAgg */
			if (!list_member(keys, item))
			{
				*reason = "a column outside the grouping keys is needed above the aggregation";
				return false;
			}
		}
		else if (IsA(item, GroupingFunc))
			continue;			/* over grouping keys, the second Agg's */
		else
		{
			*reason = "window function or placeholder above the aggregation";
			return false;
		}
	}
	return true;
}

/*
 * Is input_rel a scan GpuPreAgg can run: one plain heap table, or (with
 * appendrel set) a partitioned table, an inheritance parent or a UNION ALL
 * flattened into an append relation, whose leaves gpupreagg_partition.c
 * checks; and does the device evaluate its every restriction clause?  Sets
 * *dev_rinfos to them.
 */
static bool
device_scan_input(PlannerInfo *root, RelOptInfo *input_rel, List **dev_rinfos,
				  bool *appendrel, char **reason)
{
	Index		relid = input_rel->relid;
	RangeTblEntry *rte;
	ListCell   *lc;

	*dev_rinfos = NIL;
	*appendrel = false;
	if (input_rel->reloptkind != RELOPT_BASEREL ||
		(input_rel->rtekind != RTE_RELATION &&
		 input_rel->rtekind != RTE_SUBQUERY) ||
		input_rel->lateral_relids != NULL)
	{
		*reason = "input is not a single base relation";
		return false;
	}
	rte = root->simple_rte_array[relid];
	if (rte->rtekind == RTE_SUBQUERY && rte->inh)
		*appendrel = true;		/* UNION ALL: its leaves are checked */
	else if (rte->rtekind != RTE_RELATION ||
			 rte->tablesample != NULL || rte->securityQuals != NIL)
	{
		*reason = "not a plain table scan";
		return false;
	}
	else if (rte->inh &&
		(rte->relkind == RELKIND_PARTITIONED_TABLE ||
		 rte->relkind == RELKIND_RELATION))
		*appendrel = true;
	else if (rte->inh ||
			 (rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_MATVIEW))
	{
		*reason = "not a plain table scan";
		return false;
	}
	else if (!gpu_relation_is_plain_heap(rte))
	{
		*reason = "not a heap table";
		return false;
	}
	if (IS_DUMMY_REL(input_rel))
	{
		*reason = "the relation is proven empty";
		return false;
	}
	foreach(lc, input_rel->baserestrictinfo)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);

		if (rinfo->security_level != 0 || rinfo->pseudoconstant)
		{
			*reason = "security or pseudoconstant qual";
			return false;
		}
		if (!pgstrom_codegen_qual_supported(rinfo->clause, relid))
		{
			*reason = "a WHERE clause cannot run on the device";
			return false;
		}
		*dev_rinfos = lappend(*dev_rinfos, rinfo);
	}
	return true;
}

/*
 * Adds key (as the query wrote it, with its sortgroupref or 0) to
 * orig_keys, partial_target and, over the join row where there is one, to
 * info; false with *reason when it cannot be a device key.
 */
static bool
add_device_key(Expr *key, Index sgref, Index relid, GpaJoinInput *join,
			   GpuPreAggInfo *info, List **orig_keys,
			   PathTarget *partial_target, char **reason)
{
	*orig_keys = lappend(*orig_keys, key);
	add_column_to_pathtarget(partial_target, key, sgref);
	if (join != NULL &&
		(key = (Expr *) gpa_join_map_expr(join, (Node *) key, reason)) == NULL)
		return false;
	if (!gpupreagg_key_supported(key, relid, reason))
		return false;
	info->keys = lappend(info->keys, key);
	if (list_length(info->keys) > XPU_PREAGG_MAX_KEYS)
	{
		*reason = "too many grouping keys";
		return false;
	}
	return true;
}

/*
 * Adds the grouping keys of clauses (groupClause or distinctClause, in
 * their order) to info and partial_target; false with *reason when one
 * cannot be a device key.
 */
static bool
add_device_keys(PlannerInfo *root, List *clauses, List *tlist, Index relid,
				GpaJoinInput *join, GpuPreAggInfo *info, List **orig_keys,
				PathTarget *partial_target, char **reason)
{
	ListCell   *lc;

	foreach(lc, clauses)
	{
		SortGroupClause *sgc = lfirst_node(SortGroupClause, lc);
		Expr	   *key = (Expr *)
			pgstrom_without_grouping_nulls(root,
										   get_sortgroupclause_expr(sgc, tlist));
		TypeCacheEntry *tce;

		if (!sgc->hashable)
		{
			*reason = "grouping key is not hashable";
			return false;
		}
		tce = lookup_type_cache(exprType((Node *) key), TYPECACHE_EQ_OPR);
		if (sgc->eqop != tce->eq_opr)
		{
			*reason = "grouping key with a non-default equality";
			return false;
		}
		if (!add_device_key(key, sgc->tleSortGroupRef, relid, join, info,
							orig_keys, partial_target, reason))
			return false;
	}
	return true;
}

/*
 * Aggregates of the sets of their inputs (gpupreagg_set_aggs.c,
 * gpupreagg_mixed.c): their arguments and FILTER clauses (keys) become
 * keys after the grouping keys.  With l1_group, each gets a sortgroupref
 * of its own and a clause there, for the Finalize Agg that groups by them.
 */
static bool
add_set_agg_keys(List *keys, Index relid, GpaJoinInput *join,
				 GpuPreAggInfo *info, List **orig_keys,
				 PathTarget *partial_target, List **l1_group, char **reason)
{
	Index		next_ref = 0;
	ListCell   *lc;

	foreach(lc, partial_target->exprs)
		next_ref = Max(next_ref, get_pathtarget_sortgroupref(partial_target,
															 foreach_current_index(lc)));
	foreach(lc, keys)
	{
		Expr	   *key = lfirst(lc);
		Index		ref = 0;

		if (list_member(*orig_keys, key))
			continue;
		if (l1_group != NULL)
		{
			SortGroupClause *sgc = makeNode(SortGroupClause);

			get_sort_group_operators(exprType((Node *) key), false, true, false,
									 &sgc->sortop, &sgc->eqop, NULL,
									 &sgc->hashable);
			if (!OidIsValid(sgc->eqop) || !sgc->hashable)
			{
				*reason = "an aggregate's argument cannot be hashed";
				return false;
			}
			ref = sgc->tleSortGroupRef = ++next_ref;
			*l1_group = lappend(*l1_group, sgc);
		}
		if (!add_device_key(key, ref, relid, join, info, orig_keys,
							partial_target, reason))
			return false;
	}
	return true;
}

/* does the device accumulate aggref (over the join row, if any)? */
static bool
aggref_on_device(Aggref *aggref, void *arg)
{
	GpaOnDevice *on = (GpaOnDevice *) arg;
	GpuPreAggAgg agg;
	Aggref	   *dev = aggref;
	char	   *why;

	if ((on->join != NULL &&
		 (dev = (Aggref *) gpa_join_map_expr(on->join, (Node *) aggref, &why)) == NULL) ||
		!gpupreagg_classify_aggref(dev, on->relid, &agg, &why))
	{
		on->reason = why;
		return false;
	}
	return true;
}

static bool
all_on_device(List *aggrefs, GpaOnDevice *on)
{
	ListCell   *lc;

	foreach(lc, aggrefs)
	{
		if (!aggref_on_device(lfirst(lc), on))
			return false;
	}
	return true;
}

static void
gpupreagg_cost(PlannerInfo *root, RelOptInfo *baserel, Path *path,
			   GpuPreAggInfo *info, List *dev_rinfos, int parallel_workers)
{
	double		ntuples = baserel->tuples;
	QualCost	qcost;
	double		dev_ops;
	Cost		startup_cost;
	Cost		disk_cost;
	Cost		dev_cost;
	Cost		out_cost;
	ListCell   *lc;

	disk_cost = gpu_heap_pages_cost(baserel, parallel_workers);

	/* cost_qual_eval counts operators in cpu_operator_cost */
	cost_qual_eval(&qcost, dev_rinfos, root);
	dev_ops = qcost.per_tuple;
	foreach(lc, info->keys)
	{
		cost_qual_eval_node(&qcost, lfirst(lc), root);
		dev_ops += qcost.per_tuple;
	}
	foreach(lc, info->aggs)
	{
		GpuPreAggAgg *agg = lfirst(lc);

		if (agg->arg)
		{
			cost_qual_eval_node(&qcost, (Node *) agg->arg, root);
			dev_ops += qcost.per_tuple;
		}
		if (agg->filter)
		{
			cost_qual_eval_node(&qcost, (Node *) agg->filter, root);
			dev_ops += qcost.per_tuple;
		}
	}
	dev_ops = (cpu_operator_cost > 0.0 ? dev_ops / cpu_operator_cost : 0.0);
	dev_ops += list_length(info->aggs) + 1;		/* accumulate, find the group */

	/*
	 * gpu_heap_pages_cost charges the backend's own share, pinning every
	 * page and describing it, per page divided among the participants:
	 * without it a free device (all GPU costs 0) made the plans with and
	 * without Gather cost the same, and the single process won the tie
	 * (5.8 s against 1.1 s with 16 workers over 100M rows on the H200).
	 */
	dev_cost = ntuples * (pgstrom_gpu_tuple_cost +
				   pgstrom_gpu_operator_cost * dev_ops);
	if (parallel_workers > 0)
		dev_cost /= gpu_parallel_divisor(parallel_workers);
	out_cost = info->ngroups * cpu_tuple_cost;
	startup_cost = pgstrom_gpu_setup_cost + disk_cost + dev_cost;

	if (pgstrom_regression_test_mode)
	{
		startup_cost *= REGRESSION_COST_SCALE;
		out_cost *= REGRESSION_COST_SCALE;
	}
	path->rows = info->ngroups;
	path->startup_cost = startup_cost;
	path->total_cost = startup_cost + out_cost;
}

CustomPath *
gpupreagg_create_path(PlannerInfo *root, RelOptInfo *baserel,
					  PathTarget *partial_target, GpuPreAggInfo *info,
					  List *partial_aggs, List *dev_rinfos,
					  bool parallel_safe, int parallel_workers)
{
	CustomPath *cpath = makeNode(CustomPath);

	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = baserel;
	cpath->path.pathtarget = partial_target;
	cpath->path.param_info = NULL;
	cpath->path.parallel_aware = (parallel_workers > 0);
	cpath->path.parallel_safe = parallel_safe;
	cpath->path.parallel_workers = parallel_workers;
	cpath->path.pathkeys = NIL;
	cpath->flags = 0;
	cpath->custom_paths = NIL;
	cpath->custom_private = list_make2(gpupreagg_info_to_list(info),
									   partial_aggs);
	cpath->methods = &gpupreagg_path_methods;
	gpupreagg_cost(root, baserel, &cpath->path, info, dev_rinfos,
				   parallel_workers);
	return cpath;
}

/*
 * Regression test mode: the whole GpuPreAgg plan is scaled down by
 * REGRESSION_COST_SCALE, so that it wins even for tiny tables (where the
 * final Agg's combine and deserialize costs would otherwise decide) and
 * EXPLAIN shapes do not depend on the machine.
 */
static Path *
regression_scaled(Path *path)
{
	if (pgstrom_regression_test_mode)
	{
		path->startup_cost *= REGRESSION_COST_SCALE;
		path->total_cost *= REGRESSION_COST_SCALE;
	}
	return path;
}

/*
 * The final Agg over GpuPreAgg paths, into output_rel: over serial (a
 * non-parallel GpuPreAgg) and, when partial is not NULL, over a Gather of
 * it; input_groups is what GpuPreAgg returns, dNumGroups what the Agg does.
 */
static void
add_final_agg_paths(PlannerInfo *root, RelOptInfo *output_rel,
					Path *serial, Path *partial,
					PathTarget *partial_target, PathTarget *final_target,
					AggStrategy strategy, AggSplit aggsplit,
					List *group_clause, List *having,
					const AggClauseCosts *agg_costs, double input_groups,
					double dNumGroups)
{
	Path	   *inputs[2] = {serial, NULL};
	int			i;

	if (partial != NULL)
	{
		double		rows = input_groups;

		inputs[1] = (Path *) create_gather_path(root, output_rel, partial,
												partial_target, NULL, &rows);
	}
	for (i = 0; i < lengthof(inputs); i++)
	{
		Path	   *input = inputs[i];

		if (input == NULL)
			continue;

		/*
		 * AGG_SORTED, and AGG_PLAIN with aggregates that PostgreSQL 16 and
		 * later marked presorted, read their input in root->group_pathkeys
		 * order (which includes those aggregates' DISTINCT keys there)
		 */
		if (strategy != AGG_HASHED && root->group_pathkeys != NIL)
			input = (Path *) create_sort_path(root, output_rel, input,
											  root->group_pathkeys, -1.0);
		add_path(output_rel,
				 regression_scaled((Path *) create_agg_path(root, output_rel,
															input,
															final_target,
															strategy, aggsplit,
															group_clause, having,
															agg_costs, dNumGroups)));
	}
}

/*
 * Beside a hashed final Agg, a sorted one, as PostgreSQL offers for its own
 * grouping: when GpuPreAgg returns about as many groups as it read rows,
 * the final hash table outgrows work_mem and spills, where sorting the
 * partial groups (in each participant, merged by Gather Merge) does not
 * need to.  cost_agg() and cost_sort() weigh the two.
 */
static void
add_sorted_final_agg_paths(PlannerInfo *root, RelOptInfo *output_rel,
						   Path *serial, Path *partial,
						   PathTarget *partial_target, PathTarget *final_target,
						   AggSplit aggsplit, List *group_clause, List *having,
						   const AggClauseCosts *agg_costs, double input_groups,
						   double dNumGroups)
{
	List	   *pathkeys = root->group_pathkeys;
	Path	   *inputs[2] = {serial, partial};
	int			i;

	if (pathkeys == NIL || !grouping_is_sortable(group_clause))
		return;
	for (i = 0; i < lengthof(inputs); i++)
	{
		Path	   *input = inputs[i];

		if (input == NULL)
			continue;
		input = (Path *) create_sort_path(root, output_rel, input, pathkeys, -1.0);
		if (inputs[i] == partial)
		{
			/* each participant sorts its own groups; Gather Merge merges */
			double		rows = input_groups;

			input = (Path *) create_gather_merge_path(root, output_rel, input,
													  partial_target, pathkeys,
													  NULL, &rows);
		}
		add_path(output_rel,
				 regression_scaled((Path *) create_agg_path(root, output_rel, input,
															final_target, AGG_SORTED,
															aggsplit, group_clause,
															having, agg_costs,
															dNumGroups)));
	}
}

/*
 * GpuPreAgg paths over the scanned input: over a base relation one not
 * parallel safe (add_path() prefers a parallel-safe path among fuzzily
 * equal ones, and it would then beat the cheaper Gather plan whenever the
 * device's share of the cost is small), and a partial one where the
 * relation allows parallel workers, every participant scanning its blocks
 * into one device table; over an append relation (appendrel) the Appends
 * of gpupreagg_partition.c.  False with *reason when none is offered.
 */
static bool
table_paths(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *output_rel,
			bool appendrel, PathTarget *partial_target, GpuPreAggInfo *info,
			List *partial_aggs, List *dev_rinfos,
			Path **serial, Path **partial, char **reason)
{
	if (appendrel)
		return gpupreagg_partition_paths(root, input_rel, output_rel,
										 partial_target, info, partial_aggs,
										 serial, partial, reason);
	*serial = (Path *) gpupreagg_create_path(root, input_rel, partial_target,
											 info, partial_aggs, dev_rinfos,
											 false, 0);
	*partial = NULL;
	if (input_rel->consider_parallel && output_rel->consider_parallel &&
		max_parallel_workers_per_gather > 0)
	{
		int			parallel_workers;

		parallel_workers = compute_parallel_worker(input_rel, input_rel->pages,
												   -1, max_parallel_workers_per_gather);
		if (parallel_workers > 0)
			*partial = (Path *) gpupreagg_create_path(root, input_rel,
													  partial_target, info,
													  partial_aggs, dev_rinfos,
													  true, parallel_workers);
	}
	return true;
}

/*
 * Copies of PostgreSQL's grouping-sets paths of grouped_rel: the second
 * Agg over GpuPreAgg takes the strategy and rollups of each (planner.c
 * chose them from hash_mem, sortability and hashability of the sets).
 * Copies, because add_path() frees the paths ours dominate.
 */
static List *
pg_grouping_sets_paths(RelOptInfo *grouped_rel)
{
	List	   *result = NIL;
	ListCell   *lc;

	foreach(lc, grouped_rel->pathlist)
	{
		if (IsA(lfirst(lc), GroupingSetsPath))
		{
			GroupingSetsPath *copy = palloc(sizeof(GroupingSetsPath));

			memcpy(copy, lfirst(lc), sizeof(GroupingSetsPath));
			result = lappend(result, copy);
		}
	}
	return result;
}

static void
gpupreagg_add_paths(PlannerInfo *root, RelOptInfo *input_rel,
					RelOptInfo *grouped_rel, GroupPathExtraData *extra)
{
	Query	   *parse = root->parse;
	Index		relid = input_rel->relid;
	GpuPreAggInfo *info;
	PathTarget *grouped_target = grouped_rel->reltarget;
	PathTarget *partial_target;
	List	   *aggrefs = NIL;
	List	   *partial_aggs = NIL;
	List	   *dev_rinfos = NIL;
	List	   *group_exprs;
	List	   *orig_keys = NIL;
	AggClauseCosts agg_final_costs;
	AggStrategy strategy;
	AggSplit	aggsplit;
	double		dNumGroups;
	GpaJoinInput *join = NULL;
	bool		appendrel = false;
	bool		set_aggs;
	Path	   *serial;
	Path	   *partial;
	GpaOnDevice on_device;
	GpaMixedAggs mixed;
	bool		mixed_mode = false;
	List	   *pg_gsets = NIL;
	List	   *l1_group = NIL;
	char	   *reason = NULL;
	ListCell   *lc;
	int			i;

	if (parse->groupingSets != NIL &&
		(pg_gsets = pg_grouping_sets_paths(grouped_rel)) == NIL)
		NOT_OFFERED("grouping sets without a grouping-sets path of PostgreSQL's");
	if (parse->hasTargetSRFs)
		NOT_OFFERED("set-returning function in the target list");
	/* DISTINCT aggregates: only as aggregates of sets, see below */
	set_aggs = (root->hasNonPartialAggs || root->hasNonSerialAggs);
	info = palloc0(sizeof(GpuPreAggInfo));
	if (IS_JOIN_REL(input_rel))
	{
		/* fused over a GpuJoin: expressions over the join row */
		join = gpa_join_input(root, input_rel, &reason);
		if (join == NULL)
			NOT_OFFERED("%s", reason);
		relid = join->outer_relid;
		info->dev_quals = join->dev_quals;
	}
	else
	{
		if (!device_scan_input(root, input_rel, &dev_rinfos, &appendrel,
							   &reason))
			NOT_OFFERED("%s", reason);
		info->dev_quals = extract_actual_clauses(dev_rinfos, false);
	}

	/* grouping keys, in groupClause order, with their sortgrouprefs */
	partial_target = create_empty_pathtarget();
	if (!add_device_keys(root, parse->groupClause, parse->targetList, relid,
						 join, info, &orig_keys, partial_target, &reason))
		NOT_OFFERED("%s", reason);

	/* what the target list and HAVING need from below the final Agg */
	i = 0;
	foreach(lc, grouped_target->exprs)
	{
		Expr	   *expr = lfirst(lc);
		Index		sgref = get_pathtarget_sortgroupref(grouped_target, i);

		i++;
		if (sgref && get_sortgroupref_clause_noerr(sgref, parse->groupClause))
			continue;			/* a grouping key */
		if (!collect_upper_items(root, (Node *) expr, orig_keys, relid,
								 &aggrefs, &reason))
			NOT_OFFERED("%s", reason);
	}
	if (extra->havingQual &&
		!collect_upper_items(root, extra->havingQual, orig_keys, relid,
							 &aggrefs, &reason))
		NOT_OFFERED("%s", reason);
	/*
	 * Aggregates the device cannot split: of sets (DISTINCT, and min/max
	 * the device does not accumulate) only, or beside others
	 */
	on_device.relid = relid;
	on_device.join = join;
	on_device.reason = NULL;
	if (pg_gsets != NIL || set_aggs || !all_on_device(aggrefs, &on_device))
	{
		List	   *set_keys;
		char	   *mixed_reason;

		set_aggs = true;
		if (pg_gsets == NIL &&
			gpupreagg_set_aggs_keys(aggrefs, &set_keys, &reason))
		{
			if (!add_set_agg_keys(set_keys, relid, join, info, &orig_keys,
								  partial_target, NULL, &reason))
				NOT_OFFERED("%s", reason);
			aggrefs = NIL;		/* the final Agg runs them whole */
		}
		else if (gpupreagg_mixed_split(aggrefs, aggref_on_device, &on_device,
									   pg_gsets != NIL, &mixed, &mixed_reason))
		{
			l1_group = list_copy(parse->groupClause);
			if (!add_set_agg_keys(gpupreagg_mixed_set_keys(&mixed), relid, join,
								  info, &orig_keys, partial_target, &l1_group,
								  &reason))
				NOT_OFFERED("%s", reason);
			aggrefs = mixed.dev_aggrefs;
			mixed_mode = true;
		}
		else if (pg_gsets != NIL)
			NOT_OFFERED("grouping sets: %s", mixed_reason);
		else if (root->hasNonPartialAggs || root->hasNonSerialAggs)
			NOT_OFFERED("%s; %s", reason, mixed_reason);
		else
			NOT_OFFERED("%s", on_device.reason);
	}
	if (list_length(aggrefs) > XPU_PREAGG_MAX_AGGS)
		NOT_OFFERED("too many aggregates");

	foreach(lc, aggrefs)
	{
		Aggref	   *aggref = lfirst(lc);
		Aggref	   *dev_aggref = aggref;
		Aggref	   *partial;
		GpuPreAggAgg *agg = palloc0(sizeof(GpuPreAggAgg));

		if (join != NULL &&
			(dev_aggref = (Aggref *) gpa_join_map_expr(join, (Node *) aggref,
													   &reason)) == NULL)
			NOT_OFFERED("%s", reason);
		if (!gpupreagg_classify_aggref(dev_aggref, relid, agg, &reason))
			NOT_OFFERED("%s", reason);
		info->aggs = lappend(info->aggs, agg);

		/* as make_partial_grouping_target(): what the final Agg looks for */
		partial = copyObject(aggref);
		mark_partial_aggref(partial, AGGSPLIT_INITIAL_SERIAL);
		partial_aggs = lappend(partial_aggs, partial);
		add_new_column_to_pathtarget(partial_target, (Expr *) partial);
	}
	if (list_length(partial_target->exprs) !=
		list_length(info->keys) + list_length(info->aggs))
		NOT_OFFERED("duplicate columns in the partial target");
	if (gpupreagg_entry_size_bound(info) > XPU_PREAGG_MAX_ENTRY)
		NOT_OFFERED("group entry may exceed %d bytes", XPU_PREAGG_MAX_ENTRY);
	if (join != NULL ? !gpa_join_codegen_check(join, info, &reason) :
		!gpupreagg_codegen_check(info, relid, &reason))
		NOT_OFFERED("%s", reason);
	partial_target = set_pathtarget_cost_width(root, partial_target);

	/* the number of groups, as get_number_of_groups() for plain GROUP BY */
	group_exprs = get_sortgrouplist_exprs(parse->groupClause, parse->targetList);
	if (group_exprs != NIL)
	{
		if (!grouping_is_hashable(parse->groupClause))
			NOT_OFFERED("grouping is not hashable");
		dNumGroups = estimate_num_groups(root, group_exprs, input_rel->rows,
										 NULL, NULL);
		strategy = AGG_HASHED;
	}
	else
	{
		dNumGroups = 1.0;
		strategy = AGG_PLAIN;
	}
	info->ngroups = dNumGroups;
	aggsplit = AGGSPLIT_FINAL_DESERIAL;
	if (set_aggs)
	{
		/*
		 * the executor sorts a group's DISTINCT values only for sorted and
		 * plain aggregation; GpuPreAgg returns the combinations of the
		 * grouping keys and the aggregates' arguments
		 */
		if (group_exprs != NIL && !grouping_is_sortable(parse->groupClause))
			NOT_OFFERED("grouping is not sortable");
		if (group_exprs != NIL)
			strategy = AGG_SORTED;
		aggsplit = AGGSPLIT_SIMPLE;
		info->ngroups = estimate_num_groups(root, orig_keys, input_rel->rows,
											NULL, NULL);
	}

	MemSet(&agg_final_costs, 0, sizeof(AggClauseCosts));
	get_agg_clause_costs(root, aggsplit, &agg_final_costs);
	if (join != NULL ?
		!gpa_join_paths(root, join, grouped_rel, partial_target, info,
						partial_aggs, orig_keys, &serial, &partial, &reason) :
		!table_paths(root, input_rel, grouped_rel, appendrel, partial_target,
					 info, partial_aggs, dev_rinfos, &serial, &partial,
					 &reason))
		NOT_OFFERED("%s", reason);
	if (mixed_mode)
	{
		gpupreagg_mixed_paths(root, grouped_rel, serial, partial,
							  partial_target, list_length(info->keys),
							  l1_group, &mixed, pg_gsets, grouped_target,
							  extra->havingQual, info->ngroups,
							  pg_gsets != NIL ? grouped_rel->rows : dNumGroups,
							  regression_scaled);
		return;
	}
	add_final_agg_paths(root, grouped_rel, serial, partial,
						partial_target,
						grouped_target, strategy, aggsplit,
						parse->groupClause, (List *) extra->havingQual,
						&agg_final_costs, info->ngroups, dNumGroups);
	if (strategy == AGG_HASHED)
		add_sorted_final_agg_paths(root, grouped_rel, serial, partial,
								   partial_target, grouped_target, aggsplit,
								   parse->groupClause,
								   (List *) extra->havingQual,
								   &agg_final_costs, info->ngroups, dNumGroups);
}

/*
 * SELECT DISTINCT over one table: the device collects the distinct keys
 * (a GpuPreAgg without aggregates), and a plain HashAggregate above merges
 * the participants' and the CPU's duplicates.
 */
static void
gpupreagg_add_distinct_paths(PlannerInfo *root, RelOptInfo *input_rel,
							 RelOptInfo *distinct_rel)
{
	Query	   *parse = root->parse;
	Index		relid = input_rel->relid;
	Path	   *input_path = input_rel->cheapest_total_path;
	PathTarget *target;
	PathTarget *partial_target;
	GpuPreAggInfo *info;
	List	   *dev_rinfos = NIL;
	List	   *distinct_exprs;
	List	   *orig_keys = NIL;
	double		dNumGroups;
	bool		appendrel;
	Path	   *serial;
	Path	   *partial;
	char	   *reason = NULL;
	int			i;

	if (parse->hasDistinctOn || parse->groupClause != NIL ||
		parse->groupingSets != NIL || parse->hasAggs || parse->hasWindowFuncs ||
		parse->hasTargetSRFs || root->hasHavingQual)
		NOT_OFFERED("DISTINCT ON, or DISTINCT over grouping, windows or SRFs");
	if (input_path == NULL)
		NOT_OFFERED("no input path");
	if (!device_scan_input(root, input_rel, &dev_rinfos, &appendrel, &reason))
		NOT_OFFERED("%s", reason);
	if (!grouping_is_hashable(parse->distinctClause))
		NOT_OFFERED("DISTINCT is not hashable");

	info = palloc0(sizeof(GpuPreAggInfo));
	info->dev_quals = extract_actual_clauses(dev_rinfos, false);
	partial_target = create_empty_pathtarget();
	if (!add_device_keys(root, parse->distinctClause, parse->targetList,
						 relid, NULL, info, &orig_keys, partial_target,
						 &reason))
		NOT_OFFERED("%s", reason);

	/* the output must consist of the distinct keys alone */
	target = input_path->pathtarget;
	for (i = 0; i < list_length(target->exprs); i++)
	{
		Index		sgref = get_pathtarget_sortgroupref(target, i);

		if (!sgref || !get_sortgroupref_clause_noerr(sgref, parse->distinctClause))
			NOT_OFFERED("a DISTINCT output column that is not a key");
	}
	if (list_length(target->exprs) != list_length(info->keys))
		NOT_OFFERED("DISTINCT keys and output differ");
	if (gpupreagg_entry_size_bound(info) > XPU_PREAGG_MAX_ENTRY)
		NOT_OFFERED("group entry may exceed %d bytes", XPU_PREAGG_MAX_ENTRY);
	if (!gpupreagg_codegen_check(info, relid, &reason))
		NOT_OFFERED("%s", reason);
	partial_target = set_pathtarget_cost_width(root, partial_target);

	distinct_exprs = get_sortgrouplist_exprs(parse->distinctClause,
											 parse->targetList);
	dNumGroups = estimate_num_groups(root, distinct_exprs, input_rel->rows,
									 NULL, NULL);
	info->ngroups = dNumGroups;
	if (!table_paths(root, input_rel, distinct_rel, appendrel, partial_target,
					 info, NIL, dev_rinfos, &serial, &partial, &reason))
		NOT_OFFERED("%s", reason);
	add_final_agg_paths(root, distinct_rel, serial, partial,
						partial_target, target, AGG_HASHED, AGGSPLIT_SIMPLE,
						parse->distinctClause, NIL, NULL, dNumGroups,
						dNumGroups);
}

static void
gpupreagg_create_upper_paths(PlannerInfo *root, UpperRelationKind stage,
							 RelOptInfo *input_rel, RelOptInfo *output_rel,
							 void *extra)
{
	if (prev_create_upper_paths_hook)
		prev_create_upper_paths_hook(root, stage, input_rel, output_rel, extra);
	if (stage != UPPERREL_GROUP_AGG && stage != UPPERREL_DISTINCT)
		return;
	if (!pgstrom_enabled || !pgstrom_enable_gpupreagg)
		return;
	if (!pgstrom_regression_test_mode && !gpu_service_ready())
		return;
	if (stage == UPPERREL_DISTINCT)
		gpupreagg_add_distinct_paths(root, input_rel, output_rel);
	else if (extra != NULL)
		gpupreagg_add_paths(root, input_rel, output_rel,
							(GroupPathExtraData *) extra);
}

void
pgstrom_init_gpupreagg(void)
{
	pgstrom_init_gpupreagg_plan();
	gpupreagg_result_init();
	prev_create_upper_paths_hook = create_upper_paths_hook;
	create_upper_paths_hook = gpupreagg_create_upper_paths;
}
