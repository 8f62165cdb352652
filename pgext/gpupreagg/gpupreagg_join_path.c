/*-------------------------------------------------------------------------
 *
 * gpupreagg_join_path.c
 *		Planner side of GpuPreAgg fused over GpuJoin (docs/internals/join-kernels.md,
 *		"Fused GpuPreAgg"): the outer table's pages are joined and every
 *		join combination is folded into the device's group table, so that
 *		no join row leaves the device.
 *
 * gpupreagg_path.c calls this for an aggregation whose input is a join
 * relation.  It is offered over the cheapest GpuJoin path of the join
 * relation (and the cheapest partial one, under a Gather), whether or not
 * add_path kept that path (gpujoin_remember.c), when
 *	- the GpuJoin has no host quals (a qual the CPU evaluates would have to
 *	  run before aggregating);
 *	- every column the keys, arguments and FILTERs read is a plain column
 *	  of the outer table or of the inner relation of an INNER or LEFT depth
 *	  (SEMI and ANTI depths have no matched row);
 *	- the keys, arguments and FILTERs are what GpuPreAgg takes over one
 *	  table, with the join row's columns as that table's;
 *	- each depth's residual join quals, ANDed, are a qual the device takes
 *	  over the join row (their columns join it), which it evaluates as it
 *	  chooses the depth's matches (docs/internals/join-kernels.md, "Residual join
 *	  quals").
 * The join row: Var(outer_relid, k + 1) stands for column k of cols.  The
 * same mapping serves every GpuJoin path of the relation, whatever its
 * order of depths, since a column is named by its Var.
 *
 * Costs: the GpuJoin path's (whose pages include the backend's share, as
 * GpuPreAgg's), less forming its rows and returning its records
 * (GPUJOIN_RECORDS_PAGE_TUPLES), plus one device
 * operator per aggregate and group lookup per join row, and cpu_tuple_cost
 * per group returned; all before the first row.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"

#include "codegen/codegen.h"
#include "core/pg_strom.h"
#include "gpujoin/gpujoin.h"
#include "gpupreagg/gpupreagg_internal.h"
#include "planner/gpu_paths.h"

/*
 * The cheapest GpuJoin path of list (gpujoin_paths_of: the remembered
 * ones, which add_path may have pruned from the join relation) without
 * host quals, over outer table outer_relid unless that is 0; or NULL.
 */
static CustomPath *
cheapest_gpujoin(List *paths, Index outer_relid)
{
	CustomPath *best = NULL;
	ListCell   *lc;

	foreach(lc, paths)
	{
		CustomPath *cpath = lfirst(lc);
		GpuJoinInfo *jinfo;

		jinfo = gpujoin_info_from_list(cpath->custom_private);
		if (jinfo->host_quals != NIL ||
			(outer_relid != 0 && jinfo->outer_relid != outer_relid))
			continue;
		if (best == NULL || cpath->path.total_cost < best->path.total_cost)
			best = cpath;
	}
	return best;
}

GpaJoinInput *
gpa_join_input(PlannerInfo *root, RelOptInfo *joinrel, char **reason)
{
	GpaJoinInput *join = palloc0(sizeof(GpaJoinInput));
	GpuJoinInfo *jinfo;

	join->joinrel = joinrel;

	/*
	 * The join row and the quals are those of one outer table: the partial
	 * path's, where there is one (what a large fact table gets), and the
	 * cheapest serial path over the same table.  A serial GpuJoin over
	 * another table (a small dimension as the outer, the fact table's join
	 * as an inner) must not take the fused aggregation from the partial.
	 */
	join->partial = cheapest_gpujoin(gpujoin_paths_of(root, joinrel, true), 0);
	join->serial = cheapest_gpujoin(gpujoin_paths_of(root, joinrel, false),
									join->partial ? gpujoin_info_from_list(join->partial->custom_private)->outer_relid : 0);
	if (join->serial == NULL && join->partial == NULL)
	{
		*reason = "no GpuJoin path without host quals under the aggregation";
		return NULL;
	}
	jinfo = gpujoin_info_from_list((join->partial ? join->partial :
									join->serial)->custom_private);
	join->outer_relid = jinfo->outer_relid;
	join->dev_quals = jinfo->dev_quals;
	return join;
}

typedef struct MapContext
{
	GpaJoinInput *join;
	char	   *reason;
} MapContext;

static Node *
map_mutator(Node *node, MapContext *cxt)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varlevelsup == 0)
	{
		Var		   *var = (Var *) node;
		Var		   *col;
		ListCell   *lc;
		int			k = 0;

		if (var->varattno <= 0)
		{
			cxt->reason = "a system column or whole-row reference over the join";
			return node;
		}
		foreach(lc, cxt->join->cols)
		{
			Var		   *c = lfirst(lc);

			if (c->varno == var->varno && c->varattno == var->varattno)
				break;
			k++;
		}
		if (lc == NULL)
			cxt->join->cols = lappend(cxt->join->cols, copyObject(var));
		if (k + 1 > XPU_MAX_ATTRS)
		{
			cxt->reason = "too many columns of the join";
			return node;
		}
		col = copyObject(var);
		col->varno = cxt->join->outer_relid;
		col->varattno = k + 1;
		col->varnosyn = 0;
		col->varattnosyn = 0;
		return (Node *) col;
	}
	if (IsA(node, PlaceHolderVar) || IsA(node, SubLink) || IsA(node, SubPlan))
	{
		cxt->reason = "a placeholder or sub-select over the join";
		return node;
	}
	return expression_tree_mutator(node, map_mutator, (void *) cxt);
}

/*
 * expr with its columns as join row columns (cols grows), or NULL with
 * *reason.
 */
Node *
gpa_join_map_expr(GpaJoinInput *join, Node *expr, char **reason)
{
	MapContext	cxt = {join, NULL};
	Node	   *result;

	result = map_mutator(expr, &cxt);
	if (cxt.reason)
	{
		*reason = cxt.reason;
		return NULL;
	}
	return result;
}

/*
 * The keys, arguments and FILTERs fit one device program.  The outer quals
 * and keys were checked with the GpuJoin path; they read the heap's
 * attribute numbers, which the join row's columns would collide with here.
 */
bool
gpa_join_codegen_check(GpaJoinInput *join, const GpuPreAggInfo *info,
					   char **reason)
{
	GpuPreAggInfo check = *info;

	check.dev_quals = NIL;
	return gpupreagg_codegen_check(&check, join->outer_relid, reason);
}

/* every column of the join row comes from the outer table or a matched row */
static bool
columns_fit(GpaJoinInput *join, CustomPath *gj)
{
	GpuJoinInfo *jinfo = gpujoin_info_from_list(gj->custom_private);
	int			npayload = 0;
	ListCell   *lc;

	if (jinfo->outer_relid != join->outer_relid)
		return false;
	foreach(lc, join->cols)
	{
		Var		   *var = lfirst(lc);
		ListCell   *lc2;
		int			d = 0;
		bool		found = false;

		if (var->varno == jinfo->outer_relid)
			continue;
		/* an inner column travels in its depth's rows as a payload slot */
		if (++npayload > GPUJOIN_MAX_PAYLOAD ||
			!gpujoin_slot_encodable(gpujoin_key_xtype(var->vartype)))
			return false;
		foreach(lc2, gj->custom_paths)
		{
			Path	   *inner = lfirst(lc2);

			if (bms_is_member(var->varno, inner->parent->relids))
			{
				JoinType	jt = jinfo->depths[d].join_type;

				found = (jt == JOIN_INNER || jt == JOIN_LEFT);
				break;
			}
			d++;
		}
		if (!found)
			return false;
	}
	return true;
}

/*
 * The GpuJoin path's residual join quals run on the device: their columns
 * join the join row, and each depth's must be a qual the device takes.
 */
static bool
quals_fit(GpaJoinInput *join, CustomPath *gj)
{
	GpuJoinInfo *jinfo = gpujoin_info_from_list(gj->custom_private);
	int			d;

	for (d = 0; d < jinfo->ndepths; d++)
	{
		List	   *quals = jinfo->depths[d].join_quals;
		char	   *reason = NULL;
		Node	   *mapped;

		if (quals == NIL)
			continue;
		mapped = gpa_join_map_expr(join, (Node *) make_ands_explicit(quals),
								   &reason);
		if (mapped == NULL ||
			!pgstrom_codegen_qual_supported((Expr *) mapped, join->outer_relid))
			return false;
	}
	return true;
}

CustomPath *
gpa_join_fused_path(PlannerInfo *root, GpaJoinInput *join, CustomPath *gj,
		   PathTarget *partial_target, GpuPreAggInfo *info,
		   List *partial_aggs, List *orig_keys)
{
	CustomPath *cpath = makeNode(CustomPath);
	double		join_rows = gj->path.rows;
	double		scale = pgstrom_regression_test_mode ? REGRESSION_COST_SCALE : 1.0;
	Cost		cost;

	if (!quals_fit(join, gj))
	{
		ereport(DEBUG2,
				(errmsg_internal("GpuPreAgg not fused over a GpuJoin path: a residual join qual the device cannot evaluate")));
		return NULL;
	}
	if (!columns_fit(join, gj))
	{
		ereport(DEBUG2,
				(errmsg_internal("GpuPreAgg not fused over a GpuJoin path: an inner column of a SEMI or ANTI depth, of no depth, of a type without a slot encoding, or more than %d of them",
								 GPUJOIN_MAX_PAYLOAD)));
		return NULL;
	}
	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = join->joinrel;
	cpath->path.pathtarget = partial_target;
	cpath->path.param_info = NULL;
	cpath->path.parallel_aware = gj->path.parallel_aware;
	/* as GpuPreAgg's: the serial one is not parallel safe */
	cpath->path.parallel_safe = gj->path.parallel_aware;
	cpath->path.parallel_workers = gj->path.parallel_workers;
	cpath->path.pathkeys = NIL;
	cpath->flags = 0;
	cpath->custom_paths = gj->custom_paths;
	cpath->custom_private = list_make3(gpupreagg_info_to_list(info),
									   partial_aggs,
									   list_make3(gj->custom_private,
												  list_copy(join->cols),
												  orig_keys));
	cpath->methods = &gpupreagg_path_methods;

	/*
	 * The join rows are folded on the device instead of formed and
	 * returned, and no records are collected and replied.
	 */
	cost = gj->path.total_cost -
		join_rows * cpu_tuple_cost * scale -
		gpujoin_records_cost(find_base_rel(root, join->outer_relid),
							 gj->path.parallel_workers) * scale +
		join_rows * pgstrom_gpu_operator_cost * (list_length(info->aggs) + 1) * scale;
	cost = Max(cost, gj->path.startup_cost);
	cpath->path.rows = info->ngroups;
	cpath->path.startup_cost = cost;
	cpath->path.total_cost = cost + info->ngroups * cpu_tuple_cost * scale;
	return cpath;
}

/*
 * The fused paths over the join's GpuJoin paths, or over each leaf's copy
 * of them where the outer side is partitioned (gpupreagg_partition_join.c);
 * false with *reason when a leaf cannot take one.
 */
bool
gpa_join_paths(PlannerInfo *root, GpaJoinInput *join, RelOptInfo *grouped_rel,
			   PathTarget *partial_target, GpuPreAggInfo *info,
			   List *partial_aggs, List *orig_keys,
			   Path **serial, Path **partial, char **reason)
{
	if (gpujoin_outer_is_appendrel(root, join->outer_relid))
		return gpupreagg_partition_join_paths(root, join, grouped_rel,
											  partial_target, info,
											  partial_aggs, orig_keys,
											  serial, partial, reason);
	*serial = NULL;
	*partial = NULL;
	if (join->serial)
		*serial = (Path *) gpa_join_fused_path(root, join, join->serial,
											   partial_target, info,
											   partial_aggs, orig_keys);
	if (join->partial && grouped_rel->consider_parallel)
		*partial = (Path *) gpa_join_fused_path(root, join, join->partial,
												partial_target, info,
												partial_aggs, orig_keys);
	return true;
}
