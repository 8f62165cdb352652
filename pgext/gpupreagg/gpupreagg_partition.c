/*-------------------------------------------------------------------------
 *
 * gpupreagg_partition.c
 *		GpuPreAgg over a partitioned table or an inheritance tree:
 *
 *		Finalize Agg
 *		  -> Append (or Gather -> Parallel Append)
 *			   -> Custom Scan (GpuPreAgg) on each surviving leaf
 *
 * The keys, aggregate arguments, FILTERs and partial Aggrefs, written
 * over the parent's columns, are translated level by level to each leaf's
 * (adjust_appendrel_attrs: a leaf's columns may lie in another order or
 * after dropped ones); its restriction clauses are the leaf's own, already
 * translated by the planner.  Every leaf must be a heap table whose quals,
 * keys and arguments all run on the device, or nothing is offered: a leaf
 * aggregated on the CPU under the same Append would need another plan
 * shape.
 *
 * Pruning: the planner expands only the partitions that survive plan-time
 * pruning, and marks the children that constraint exclusion removes as
 * dummy relations; both are skipped.  The Append's parent is the
 * partitioned relation itself, so create_append_plan() sets up run-time
 * pruning from its quals exactly as for PostgreSQL's own Append.
 *
 * Each leaf's GpuPreAgg has its own device table; the final Agg combines
 * their partial states.  Under a Gather the Append is parallel-aware
 * (enable_parallel_append): a leaf large enough for parallel workers is a
 * parallel GpuPreAgg the participants share, any other is run whole by one
 * participant, so participants spread over the partitions.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_class.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/appendinfo.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "optimizer/tlist.h"

#include "codegen/codegen.h"
#include "core/pg_strom.h"
#include "gpupreagg/gpupreagg_internal.h"
#include "planner/gpu_partitions.h"
#include "planner/gpu_paths.h"

/* what is translated from one level to the next, in this order */
typedef enum
{
	ITEM_KEYS,
	ITEM_ARGS,
	ITEM_FILTERS,
	ITEM_PARTIAL_AGGS,
	ITEM_TARGET,
	NUM_ITEMS
} LeafItem;

typedef struct PlainLeaves
{
	const GpuPreAggInfo *info;	/* over the parent's columns */
	PathTarget *partial_target; /* likewise */
	GpaLeafPaths paths;
} PlainLeaves;

static List *
parent_items(const GpuPreAggInfo *info, List *partial_aggs,
			 PathTarget *partial_target)
{
	List	   *args = NIL;
	List	   *filters = NIL;
	ListCell   *lc;

	foreach(lc, info->aggs)
	{
		GpuPreAggAgg *agg = lfirst(lc);

		args = lappend(args, agg->arg);
		filters = lappend(filters, agg->filter);
	}
	return list_make5(info->keys, args, filters, partial_aggs,
					  partial_target->exprs);
}

/* the GpuPreAgg paths of one leaf, whose items are over its columns */
static bool
add_plain_leaf(PlannerInfo *root, RelOptInfo *leaf, List *items,
			   void *context, char **reason)
{
	PlainLeaves *plain = context;
	GpaLeafPaths *out = &plain->paths;
	GpuPreAggInfo *info = palloc0(sizeof(GpuPreAggInfo));
	PathTarget *target;
	List	   *dev_rinfos;
	List	   *partial_aggs = list_nth(items, ITEM_PARTIAL_AGGS);
	ListCell   *lc;
	ListCell   *arg;
	ListCell   *filter;

	if (!gpu_leaf_scan_input(root, leaf, &dev_rinfos, reason))
		return false;
	info->dev_quals = extract_actual_clauses(dev_rinfos, false);
	info->keys = list_nth(items, ITEM_KEYS);
	foreach(lc, info->keys)
	{
		if (!gpupreagg_key_supported(lfirst(lc), leaf->relid, reason))
			return false;
	}
	forthree(lc, plain->info->aggs,
			 arg, (List *) list_nth(items, ITEM_ARGS),
			 filter, (List *) list_nth(items, ITEM_FILTERS))
	{
		GpuPreAggAgg *agg = palloc(sizeof(GpuPreAggAgg));

		memcpy(agg, lfirst(lc), sizeof(GpuPreAggAgg));
		agg->arg = lfirst(arg);
		agg->filter = lfirst(filter);
		info->aggs = lappend(info->aggs, agg);
	}
	info->ngroups = clamp_row_est(Min(plain->info->ngroups, leaf->rows));
	if (!gpupreagg_codegen_check(info, leaf->relid, reason))
		return false;

	target = copy_pathtarget(plain->partial_target);
	target->exprs = list_nth(items, ITEM_TARGET);

	out->serial = lappend(out->serial,
						  gpupreagg_create_path(root, leaf, target, info,
												partial_aggs, dev_rinfos,
												false, 0));
	if (out->consider_parallel && leaf->consider_parallel)
	{
		int			workers;

		workers = compute_parallel_worker(leaf, leaf->pages, -1,
										  max_parallel_workers_per_gather);
		if (workers > 0)
		{
			out->partial = lappend(out->partial,
								   gpupreagg_create_path(root, leaf, target,
														 info, partial_aggs,
														 dev_rinfos, true,
														 workers));
			out->max_workers = Max(out->max_workers, workers);
		}
		else
		{
			CustomPath *whole = gpupreagg_create_path(root, leaf, target,
													  info, partial_aggs,
													  dev_rinfos, true, 0);

			/* run whole by one participant: see gpu_partitions.h */
			whole->path.parallel_aware = true;
			whole->flags |= GPU_PATH_WHOLE_LEAF;
			out->nonpartial = lappend(out->nonpartial, whole);
		}
	}
	else
		out->consider_parallel = false;
	out->ngroups += info->ngroups;
	out->nleaves++;
	return true;
}

static Path *
leaves_append(PlannerInfo *root, RelOptInfo *parent, List *nonpartial,
			  List *partial, int workers, bool parallel_aware,
			  PathTarget *partial_target, double ngroups)
{
	AppendPath *apath;

	apath = create_append_path(root, parent, nonpartial, partial, NIL, NULL,
							   workers, parallel_aware, ngroups);
	apath->path.pathtarget = partial_target;
	return &apath->path;
}

/*
 * The Appends over the leaves' paths, whose rows are partial_target's:
 * *serial, and *partial (for a Gather) where parallel plans are allowed.
 * A Parallel Append gets enough workers to spread over the leaves.
 */
void
gpa_leaves_appends(PlannerInfo *root, RelOptInfo *parent,
				   GpaLeafPaths *leaves, PathTarget *partial_target,
				   Path **serial, Path **partial)
{
	*serial = leaves_append(root, parent, leaves->serial, NIL, 0, false,
							partial_target, leaves->ngroups);
	*partial = NULL;
	if (!leaves->consider_parallel)
		return;
	if (enable_parallel_append)
	{
		int			workers = Max(leaves->max_workers,
								  Min(leaves->nleaves,
									  max_parallel_workers_per_gather));

		*partial = leaves_append(root, parent, leaves->nonpartial,
								 leaves->partial, workers, true,
								 partial_target, leaves->ngroups);
	}
	else if (leaves->nonpartial == NIL && leaves->partial != NIL)
	{
		/* every participant runs every leaf, each its share of blocks */
		*partial = leaves_append(root, parent, NIL, leaves->partial,
								 leaves->max_workers, false,
								 partial_target, leaves->ngroups);
	}
}

/*
 * The Append paths over the leaves' GpuPreAggs: false with *reason when a
 * leaf cannot be aggregated on the device.
 */
bool
gpupreagg_partition_paths(PlannerInfo *root, RelOptInfo *parent,
						  RelOptInfo *grouped_rel, PathTarget *partial_target,
						  const GpuPreAggInfo *info, List *partial_aggs,
						  Path **serial, Path **partial, char **reason)
{
	PlainLeaves plain;

	memset(&plain, 0, sizeof(plain));
	plain.info = info;
	plain.partial_target = partial_target;
	plain.paths.consider_parallel = (parent->consider_parallel &&
									 grouped_rel->consider_parallel &&
									 max_parallel_workers_per_gather > 0);
	if (!gpu_for_each_leaf(root, parent->relid,
						   parent_items(info, partial_aggs, partial_target),
						   add_plain_leaf, &plain, reason))
		return false;
	if (plain.paths.nleaves == 0)
	{
		*reason = "no partition survives";
		return false;
	}
	gpa_leaves_appends(root, parent, &plain.paths, partial_target, serial,
					   partial);
	return true;
}
