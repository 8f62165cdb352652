/*-------------------------------------------------------------------------
 *
 * gpu_partitions.c
 *		The leaves of a partitioned table, an inheritance tree or a UNION
 *		ALL append relation, for the GPU nodes' per-leaf paths.
 *
 * Pruning: the planner expands only the partitions that survive plan-time
 * pruning, and marks the children that constraint exclusion removes as
 * dummy relations; both are skipped.  Expressions over the parent are
 * translated level by level (adjust_appendrel_attrs), so a leaf whose
 * columns lie in another order or after dropped ones is read right.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_class.h"
#include "nodes/makefuncs.h"
#include "optimizer/appendinfo.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"

#include "codegen/codegen.h"
#include "planner/gpu_partitions.h"
#include "planner/gpu_paths.h"

bool
gpu_for_each_leaf(PlannerInfo *root, Index parent_relid, List *items,
				  GpuLeafFn fn, void *arg, char **reason)
{
	ListCell   *lc;

	foreach(lc, root->append_rel_list)
	{
		AppendRelInfo *appinfo = lfirst_node(AppendRelInfo, lc);
		RelOptInfo *child;
		List	   *child_items;

		if (appinfo->parent_relid != parent_relid)
			continue;
		child = root->simple_rel_array[appinfo->child_relid];
		if (child == NULL || IS_DUMMY_REL(child))
			continue;			/* pruned or excluded */
		child_items = (List *) adjust_appendrel_attrs(root, (Node *) items,
													  1, &appinfo);
		if (root->simple_rte_array[appinfo->child_relid]->inh)
		{
			if (!gpu_for_each_leaf(root, appinfo->child_relid, child_items,
								   fn, arg, reason))
				return false;
		}
		else if (!fn(root, child, child_items, arg, reason))
			return false;
	}
	return true;
}

/*
 * A leaf a GPU node scans: a heap table whose restriction clauses (the
 * leaf's own, translated by the planner) the device evaluates, all of
 * them; sets *dev_rinfos to them.
 */
bool
gpu_leaf_scan_input(PlannerInfo *root, RelOptInfo *leaf, List **dev_rinfos,
					char **reason)
{
	RangeTblEntry *rte = root->simple_rte_array[leaf->relid];
	ListCell   *lc;

	*dev_rinfos = NIL;
	if (rte->rtekind != RTE_RELATION || rte->tablesample != NULL ||
		rte->securityQuals != NIL ||
		(rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_MATVIEW) ||
		!gpu_relation_is_plain_heap(rte))
	{
		*reason = "a partition or UNION ALL arm is not a plain heap table scan";
		return false;
	}
	foreach(lc, leaf->baserestrictinfo)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);

		if (rinfo->security_level != 0 || rinfo->pseudoconstant)
		{
			*reason = "security or pseudoconstant qual on a partition";
			return false;
		}
		if (!pgstrom_codegen_qual_supported(rinfo->clause, leaf->relid))
		{
			*reason = "a WHERE clause cannot run on the device for a partition";
			return false;
		}
		*dev_rinfos = lappend(*dev_rinfos, rinfo);
	}
	return true;
}

/*
 * The join relation as a leaf's node names it (custom_relids, EXPLAIN):
 * the leaf in place of the partitioned outer.  Only create_plan reads it.
 */
RelOptInfo *
gpu_leaf_joinrel(RelOptInfo *joinrel, Index parent_relid, Index leaf_relid)
{
	RelOptInfo *rel = makeNode(RelOptInfo);

	memcpy(rel, joinrel, sizeof(RelOptInfo));
	rel->reloptkind = RELOPT_OTHER_JOINREL;
	rel->relids = bms_add_member(bms_del_member(bms_copy(joinrel->relids),
												parent_relid),
								 leaf_relid);
	rel->pathlist = NIL;
	rel->partial_pathlist = NIL;
	rel->cheapest_startup_path = NULL;
	rel->cheapest_total_path = NULL;
	return rel;
}

/*
 * Can path be made into a plan more than once, once under each leaf's
 * node?  Not a subquery scan: set_plan_references would then adjust its
 * subquery's range table and append relations again for each copy.  Path
 * kinds not listed are taken as not replannable.
 */
bool
gpu_path_replannable(Path *path)
{
	ListCell   *lc;

	if (path == NULL)
		return true;
	switch (nodeTag(path))
	{
		case T_Path:
			return path->pathtype != T_SubqueryScan;
		case T_IndexPath:
		case T_BitmapHeapPath:
		case T_TidPath:
		case T_TidRangePath:
			return true;
		case T_NestPath:
		case T_MergePath:
		case T_HashPath:
			return gpu_path_replannable(((JoinPath *) path)->outerjoinpath) &&
				gpu_path_replannable(((JoinPath *) path)->innerjoinpath);
		case T_AppendPath:
			foreach(lc, ((AppendPath *) path)->subpaths)
			{
				if (!gpu_path_replannable(lfirst(lc)))
					return false;
			}
			return true;
		case T_MergeAppendPath:
			foreach(lc, ((MergeAppendPath *) path)->subpaths)
			{
				if (!gpu_path_replannable(lfirst(lc)))
					return false;
			}
			return true;
		case T_CustomPath:
			foreach(lc, ((CustomPath *) path)->custom_paths)
			{
				if (!gpu_path_replannable(lfirst(lc)))
					return false;
			}
			return true;
		case T_MaterialPath:
			return gpu_path_replannable(((MaterialPath *) path)->subpath);
		case T_MemoizePath:
			return gpu_path_replannable(((MemoizePath *) path)->subpath);
		case T_ProjectionPath:
			return gpu_path_replannable(((ProjectionPath *) path)->subpath);
		case T_SortPath:
			return gpu_path_replannable(((SortPath *) path)->subpath);
		default:
			return false;
	}
}
