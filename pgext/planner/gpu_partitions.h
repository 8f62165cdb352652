/*-------------------------------------------------------------------------
 *
 * gpu_partitions.h
 *		The leaves of a partitioned table, an inheritance tree or a UNION
 *		ALL append relation, as the GPU nodes' per-leaf paths need them.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGSTROM_GPU_PARTITIONS_H
#define PGSTROM_GPU_PARTITIONS_H

#include "nodes/pathnodes.h"

/*
 * Called for each surviving leaf with items (a List of expression lists
 * over the parent's columns) translated to the leaf's columns; false with
 * *reason refuses the whole parent.
 */
typedef bool (*GpuLeafFn) (PlannerInfo *root, RelOptInfo *leaf, List *items,
						   void *arg, char **reason);

extern bool gpu_for_each_leaf(PlannerInfo *root, Index parent_relid,
							  List *items, GpuLeafFn fn, void *arg,
							  char **reason);
extern bool gpu_leaf_scan_input(PlannerInfo *root, RelOptInfo *leaf,
								List **dev_rinfos, char **reason);
extern RelOptInfo *gpu_leaf_joinrel(RelOptInfo *joinrel, Index parent_relid,
									Index leaf_relid);

#endif							/* PGSTROM_GPU_PARTITIONS_H */
