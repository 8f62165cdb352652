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
 * Under a Parallel Append, a leaf's node that one participant runs whole (a
 * non-partial subplan) is still made parallel-aware: its EXPLAIN ANALYZE
 * counters and the reason it ran on the CPU then reach the leader through
 * the node's shared memory, where a node without it would keep them in
 * the worker that ran it.  With one participant, its parallel machinery
 * (shared blocks, the kept rows' collection, the inner build) is that
 * participant's alone.  Such a path carries GPU_PATH_WHOLE_LEAF in its
 * flags (and its CustomScan and CustomScanState after it), so that the
 * node sizes its chunks for one participant, not for all of the Gather's.
 */
#define GPU_PATH_WHOLE_LEAF		0x00010000	/* above PostgreSQL's
											 * CUSTOMPATH_* bits */

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
extern bool gpu_path_replannable(Path *path);

#endif							/* PGSTROM_GPU_PARTITIONS_H */
