/*-------------------------------------------------------------------------
 *
 * gpujoin_partition.c
 *		GpuJoin with a partitioned table (or inheritance tree) as its
 *		outer side: one GpuJoin per surviving leaf under an Append (a
 *		Parallel Append under a Gather), each a copy of the template path
 *		that gpujoin_path.c makes over the partitioned outer.
 *
 * A leaf's copy has the leaf's own restriction clauses as its outer quals
 * (all must run on the device, as the template's) and the outer keys and
 * residual join quals translated to the leaf's columns; the inner plans
 * are the template's.  The leaves' nodes share one inner_group: the inner
 * rows are built once per query (gpujoin_inner_group.c), so the first
 * leaf's cost counts the inner plans and each other leaf's only its setup
 * and the upload of the rows to the device, which each leaf's session does.
 * Under a Gather each leaf's node is run whole by one participant, and
 * its inner plans are partial where the inner relations have such paths:
 * the participants build the rows together (gpujoin_partial_inners).
 * Partitions pruned at plan time are not there; the Append's parent is
 * the join relation, so it does no run-time pruning, and each leaf's node
 * prunes itself at execution (runtime/task_prune.c).
 * gpupreagg_partition_join.c fuses a GpuPreAgg over the same leaf copies.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "optimizer/tlist.h"

#include "core/pg_strom.h"
#include "gpujoin/gpujoin.h"
#include "planner/gpu_partitions.h"
#include "planner/gpu_paths.h"

/* the template's per-depth outer keys and join quals, to be translated */
List *
gpujoin_template_items(const GpuJoinInfo *tinfo)
{
	List	   *keys = NIL;
	List	   *quals = NIL;
	int			d;

	for (d = 0; d < tinfo->ndepths; d++)
	{
		keys = lappend(keys, tinfo->depths[d].outer_keys);
		quals = lappend(quals, tinfo->depths[d].join_quals);
	}
	return list_make2(keys, quals);
}

/*
 * The setup of a leaf whose inner rows another leaf builds: the GPU
 * setup, and the rows' upload and the device's hash build.
 */
static Cost
shared_inner_startup(const CustomPath *template)
{
	Cost		startup = pgstrom_gpu_setup_cost;
	ListCell   *lc;

	foreach(lc, template->custom_paths)
		startup += ((Path *) lfirst(lc))->rows * cpu_operator_cost;
	startup += template->path.pathtarget->cost.startup;
	if (pgstrom_regression_test_mode)
		startup *= REGRESSION_COST_SCALE;
	return Min(startup, template->path.startup_cost);
}

/*
 * The template's share for the leaf: its setup (with the inner plans for
 * the leaf that builds the inner rows), its per-row work in proportion to
 * the leaf's rows, the leaf's own pages.
 */
static void
leaf_cost(CustomPath *path, const CustomPath *template, RelOptInfo *outer,
		  RelOptInfo *leaf, bool builds_inner)
{
	double		frac = Min(leaf->rows / Max(outer->rows, 1.0), 1.0);
	double		scale = pgstrom_regression_test_mode ? REGRESSION_COST_SCALE : 1.0;
	Cost		run = template->path.total_cost - template->path.startup_cost;
	Cost		startup = (builds_inner ? template->path.startup_cost :
						   shared_inner_startup(template));

	path->path.rows = clamp_row_est(template->path.rows * frac);
	path->path.startup_cost = startup;
	path->path.total_cost = startup + run * frac +
		gpu_heap_pages_cost(leaf, 0) * scale;
}

/*
 * A copy of template over leaf, join_items (gpujoin_template_items)
 * translated to the leaf's columns, in inner_group
 * (gpujoin_next_inner_group); builds_inner for the first leaf, whose cost
 * counts the inner plans.  NULL with *reason when the leaf's quals or keys
 * do not fit the device.
 */
CustomPath *
gpujoin_leaf_path(PlannerInfo *root, const CustomPath *template,
				  RelOptInfo *outer, RelOptInfo *leaf, List *join_items,
				  int inner_group, bool builds_inner, char **reason)
{
	GpuJoinInfo *info = gpujoin_info_from_list(template->custom_private);
	CustomPath *path = palloc(sizeof(CustomPath));
	List	   *dev_rinfos;
	int			d;

	if (!gpu_leaf_scan_input(root, leaf, &dev_rinfos, reason))
		return NULL;
	info->outer_relid = leaf->relid;
	info->dev_quals = extract_actual_clauses(dev_rinfos, false);
	info->host_quals = NIL;
	for (d = 0; d < info->ndepths; d++)
	{
		info->depths[d].outer_keys = list_nth(linitial(join_items), d);
		info->depths[d].join_quals = list_nth(lsecond(join_items), d);
	}
	if (!gpujoin_codegen_check(info, leaf->relid, NULL))
	{
		*reason = "a partition's outer quals and join keys do not fit the device";
		return NULL;
	}
	memcpy(path, template, sizeof(CustomPath));
	path->path.parent = gpu_leaf_joinrel(template->path.parent, outer->relid,
										 leaf->relid);
	info->inner_group = inner_group;
	path->custom_private = gpujoin_info_to_list(info);
	leaf_cost(path, template, outer, leaf, builds_inner);
	return path;
}

/*
 * A leaf's inner paths for its copy under a Parallel Append: each depth's
 * the inner relation's cheapest partial path where it has one, the depth
 * then marked inner_partial in *join_private (a GpuJoinInfo list, replaced
 * by a new one).  The participants of the leaves' inner group run the
 * owner's copy of such a plan together, each for its share
 * (gpujoin_inner_parallel.c), where a plan that one participant runs whole
 * would keep all the others waiting.
 */
List *
gpujoin_partial_inners(List *inner_paths, List **join_private)
{
	GpuJoinInfo *info = gpujoin_info_from_list(*join_private);
	List	   *out = NIL;
	ListCell   *lc;
	int			d = 0;

	Assert(list_length(inner_paths) == info->ndepths);
	foreach(lc, inner_paths)
	{
		Path	   *inner = lfirst(lc);
		Path	   *partial = gpujoin_cheapest_partial_inner(inner->parent);

		if (partial != NULL)
		{
			inner = partial;
			info->depths[d].inner_partial = true;
		}
		out = lappend(out, inner);
		d++;
	}
	*join_private = gpujoin_info_to_list(info);
	return out;
}

typedef struct JoinLeaves
{
	const CustomPath *template;
	RelOptInfo *outer;
	PathTarget *target;			/* the join relation's */
	int			inner_group;
	bool		parallel;		/* a Parallel Append as well */
	List	   *serial;
	List	   *safe;			/* parallel-safe copies */
} JoinLeaves;

static bool
add_leaf(PlannerInfo *root, RelOptInfo *leaf, List *items, void *arg,
		 char **reason)
{
	JoinLeaves *jl = arg;
	CustomPath *path;

	path = gpujoin_leaf_path(root, jl->template, jl->outer, leaf,
							 lsecond(items), jl->inner_group,
							 jl->serial == NIL, reason);
	if (path == NULL)
		return false;
	path->path.pathtarget = copy_pathtarget(jl->target);
	path->path.pathtarget->exprs = linitial(items);
	path->path.parallel_safe = false;
	jl->serial = lappend(jl->serial, path);
	if (jl->parallel)
	{
		CustomPath *safe = palloc(sizeof(CustomPath));

		memcpy(safe, path, sizeof(CustomPath));
		safe->path.parallel_safe = true;
		/* run whole by one participant: see gpu_partitions.h */
		safe->path.parallel_aware = true;
		safe->flags |= GPU_PATH_WHOLE_LEAF;
		safe->custom_paths = gpujoin_partial_inners(path->custom_paths,
													&safe->custom_private);
		jl->safe = lappend(jl->safe, safe);
	}
	return true;
}

/*
 * The Append paths over the leaves' copies of template into joinrel; none
 * when a leaf cannot take one (DEBUG2 says why).
 */
void
gpujoin_add_partition_paths(PlannerInfo *root, RelOptInfo *joinrel,
							const CustomPath *template)
{
	GpuJoinInfo *tinfo = gpujoin_info_from_list(template->custom_private);
	JoinLeaves	jl;
	char	   *reason = NULL;

	memset(&jl, 0, sizeof(jl));
	jl.template = template;
	jl.outer = find_base_rel(root, tinfo->outer_relid);
	jl.target = joinrel->reltarget;
	jl.inner_group = gpujoin_next_inner_group();
	jl.parallel = (template->path.parallel_safe && joinrel->consider_parallel &&
				   enable_parallel_append && max_parallel_workers_per_gather > 0);
	if (!gpu_for_each_leaf(root, tinfo->outer_relid,
						   list_make2(joinrel->reltarget->exprs,
									  gpujoin_template_items(tinfo)),
						   add_leaf, &jl, &reason))
	{
		ereport(DEBUG2,
				(errmsg_internal("GpuJoin not offered over the partitions: %s",
								 reason)));
		return;
	}
	if (jl.serial == NIL)
		return;
	add_path(joinrel, (Path *) create_append_path(root, joinrel, jl.serial,
												  NIL, NIL, NULL, 0, false,
												  -1));
	if (jl.parallel)
	{
		int			workers = Min(list_length(jl.safe),
								  max_parallel_workers_per_gather);

		add_partial_path(joinrel,
						 (Path *) create_append_path(root, joinrel, jl.safe,
													 NIL, NIL, NULL, workers,
													 true, -1));
	}
}
