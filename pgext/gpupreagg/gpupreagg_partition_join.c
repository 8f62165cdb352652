/*-------------------------------------------------------------------------
 *
 * gpupreagg_partition_join.c
 *		GpuPreAgg fused over a GpuJoin whose outer side is a partitioned
 *		table or an inheritance tree:
 *
 *		Finalize Agg
 *		  -> Append (or Gather -> Parallel Append)
 *			   -> Custom Scan (GpuPreAgg) on each surviving leaf,
 *				  its inner plans the join's
 *
 * gpujoin_path.c makes a GpuJoin path over the partitioned outer that is
 * never planned by itself (a template: the outer quals all on the device,
 * parallel-safe inner plans where the inner relations have them), and
 * gpujoin_partition.c copies it for each leaf, with the outer quals the
 * leaf's own and the outer keys and residual join quals translated to the
 * leaf's columns.  Here a fused GpuPreAgg goes over each copy.  The keys
 * and arguments over the
 * join row only change the relation they name: a join-row column is
 * found by the Var of the query that it stands for, and those Vars (the
 * join row's columns, cols) are translated with everything else.
 *
 * The leaves' nodes build the inner rows once per query (one inner_group,
 * gpujoin_inner_group.c); the first leaf's cost counts the inner plans.
 * Partitions
 * pruned at plan time are not there; the Append's parent is the join
 * relation, so it does no run-time pruning, and each leaf's node prunes
 * itself at execution (runtime/task_prune.c).  Under a Gather each leaf's
 * node is run whole by one participant of a Parallel Append, over partial
 * inner plans where the inner relations have them
 * (gpujoin_partial_inners).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/restrictinfo.h"
#include "optimizer/tlist.h"
#include "rewrite/rewriteManip.h"

#include "core/pg_strom.h"
#include "gpujoin/gpujoin.h"
#include "gpupreagg/gpupreagg_internal.h"
#include "planner/gpu_partitions.h"
#include "planner/gpu_paths.h"

/* what is translated from one level to the next, in this order */
typedef enum
{
	ITEM_COLS,
	ITEM_JOIN,
	ITEM_ORIG_KEYS,
	ITEM_PARTIAL_AGGS,
	ITEM_TARGET
} JoinLeafItem;

typedef struct JoinLeaves
{
	GpaJoinInput *join;			/* over the partitioned outer */
	CustomPath *template;		/* its GpuJoin path */
	const GpuPreAggInfo *info;	/* keys and arguments over the join row */
	PathTarget *partial_target;
	RelOptInfo *outer;			/* the partitioned outer relation */
	int			inner_group;
	GpaLeafPaths paths;
} JoinLeaves;

static List *
parent_items(JoinLeaves *jl, List *partial_aggs, List *orig_keys)
{
	GpuJoinInfo *tinfo = gpujoin_info_from_list(jl->template->custom_private);

	return list_make5(jl->join->cols, gpujoin_template_items(tinfo),
					  orig_keys, partial_aggs, jl->partial_target->exprs);
}

/* info with its join-row columns renamed from the parent to the leaf */
static GpuPreAggInfo *
leaf_info(const GpuPreAggInfo *info, Index parent_relid, Index leaf_relid,
		  List *dev_quals, double ngroups)
{
	GpuPreAggInfo *linfo = palloc0(sizeof(GpuPreAggInfo));
	ListCell   *lc;

	linfo->dev_quals = dev_quals;
	linfo->keys = copyObject(info->keys);
	ChangeVarNodes((Node *) linfo->keys, parent_relid, leaf_relid, 0);
	foreach(lc, info->aggs)
	{
		GpuPreAggAgg *agg = palloc(sizeof(GpuPreAggAgg));

		memcpy(agg, lfirst(lc), sizeof(GpuPreAggAgg));
		agg->arg = copyObject(agg->arg);
		agg->filter = copyObject(agg->filter);
		ChangeVarNodes((Node *) agg->arg, parent_relid, leaf_relid, 0);
		ChangeVarNodes((Node *) agg->filter, parent_relid, leaf_relid, 0);
		linfo->aggs = lappend(linfo->aggs, agg);
	}
	linfo->ngroups = ngroups;
	return linfo;
}

static bool
add_join_leaf(PlannerInfo *root, RelOptInfo *leaf, List *items, void *arg,
			  char **reason)
{
	JoinLeaves *jl = arg;
	GpaJoinInput *ljoin = palloc0(sizeof(GpaJoinInput));
	CustomPath *gj;
	CustomPath *fused;
	GpuPreAggInfo *linfo;
	PathTarget *target;

	gj = gpujoin_leaf_path(root, jl->template, jl->outer, leaf,
						   list_nth(items, ITEM_JOIN), jl->inner_group,
						   jl->paths.nleaves == 0, reason);
	if (gj == NULL)
		return false;
	ljoin->joinrel = gj->path.parent;
	ljoin->serial = gj;
	ljoin->outer_relid = leaf->relid;
	ljoin->dev_quals = gpujoin_info_from_list(gj->custom_private)->dev_quals;
	ljoin->cols = list_copy(list_nth(items, ITEM_COLS));
	linfo = leaf_info(jl->info, jl->outer->relid, leaf->relid,
					  ljoin->dev_quals,
					  clamp_row_est(Min(jl->info->ngroups, gj->path.rows)));
	if (!gpa_join_codegen_check(ljoin, linfo, reason))
		return false;

	target = copy_pathtarget(jl->partial_target);
	target->exprs = list_nth(items, ITEM_TARGET);
	fused = gpa_join_fused_path(root, ljoin, gj, target, linfo,
								list_nth(items, ITEM_PARTIAL_AGGS),
								list_nth(items, ITEM_ORIG_KEYS));
	if (fused == NULL)
	{
		*reason = "a partition's join cannot be fused";
		return false;
	}
	jl->paths.serial = lappend(jl->paths.serial, fused);
	if (jl->paths.consider_parallel)
	{
		CustomPath *safe = palloc(sizeof(CustomPath));
		List	   *join_parts = lthird(fused->custom_private);
		List	   *join_private = linitial(join_parts);

		memcpy(safe, fused, sizeof(CustomPath));
		safe->path.parallel_safe = true;
		/* run whole by one participant: see gpu_partitions.h */
		safe->path.parallel_aware = true;
		safe->flags |= GPU_PATH_WHOLE_LEAF;
		/* the participants build the inner rows together */
		safe->custom_paths = gpujoin_partial_inners(fused->custom_paths,
													&join_private);
		safe->custom_private = list_make3(linitial(fused->custom_private),
										  lsecond(fused->custom_private),
										  list_make3(join_private,
													 lsecond(join_parts),
													 lthird(join_parts)));
		jl->paths.nonpartial = lappend(jl->paths.nonpartial, safe);
	}
	jl->paths.ngroups += linfo->ngroups;
	jl->paths.nleaves++;
	return true;
}

bool
gpupreagg_partition_join_paths(PlannerInfo *root, GpaJoinInput *join,
							   RelOptInfo *grouped_rel,
							   PathTarget *partial_target,
							   const GpuPreAggInfo *info, List *partial_aggs,
							   List *orig_keys, Path **serial, Path **partial,
							   char **reason)
{
	JoinLeaves	jl;

	if (join->serial == NULL)
	{
		*reason = "no GpuJoin over the partitioned table";
		return false;
	}
	memset(&jl, 0, sizeof(jl));
	jl.join = join;
	jl.template = join->serial;
	jl.info = info;
	jl.partial_target = partial_target;
	jl.outer = find_base_rel(root, join->outer_relid);
	jl.inner_group = gpujoin_next_inner_group();
	jl.paths.consider_parallel = (join->serial->path.parallel_safe &&
								  join->joinrel->consider_parallel &&
								  grouped_rel->consider_parallel &&
								  max_parallel_workers_per_gather > 0);
	if (!gpu_for_each_leaf(root, join->outer_relid,
						   parent_items(&jl, partial_aggs, orig_keys),
						   add_join_leaf, &jl, reason))
		return false;
	if (jl.paths.nleaves == 0)
	{
		*reason = "no partition survives";
		return false;
	}
	gpa_leaves_appends(root, join->joinrel, &jl.paths, partial_target,
					   serial, partial);
	return true;
}
