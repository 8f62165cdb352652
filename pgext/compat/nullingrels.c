/*-------------------------------------------------------------------------
 *
 * nullingrels.c
 *		The outer joins that null a Var, as set_plan_refs checks them.
 *
 * 16 gave each Var the set of outer joins that can null it
 * (varnullingrels): a column of the inner side of a LEFT join has the join
 * in its set above the join and not in the join's own quals.  A custom
 * scan's expressions are matched to its custom_scan_tlist by varno and
 * varattno, and set_customscan_references insists that the match carries
 * the same set.  GpuJoin's custom_scan_tlist holds each column once, with
 * the set of the join's output (the executor fills a column once per
 * row); the residual quals and keys EXPLAIN shows read the same columns
 * below the joins that null them.  The executor ignores the sets, so those
 * expressions take the set of their column in the scan tlist.
 *
 * On 15 a Var has no such set and expressions are returned unchanged.
 * (16's side is untested.)
 *
 * 18 treats the grouping step of a query with grouping sets the same way:
 * above it a grouping expression may be NULL (its set does not group by
 * it), so its Vars carry the step's range table index (RTE_GROUP).  Below
 * the step, where GpuPreAgg computes the keys, they must not.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/nodeFuncs.h"
#if PG_VERSION_NUM >= 180000
#include "rewrite/rewriteManip.h"
#endif

#include "compat/pg_compat.h"

#if PG_VERSION_NUM >= 160000
static Node *
nullingrels_mutator(Node *node, List *tlist)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varlevelsup == 0)
	{
		Var		   *var = (Var *) node;
		ListCell   *lc;

		foreach(lc, tlist)
		{
			Var		   *col = (Var *) ((TargetEntry *) lfirst(lc))->expr;

			if (IsA(col, Var) && col->varno == var->varno &&
				col->varattno == var->varattno && col->varlevelsup == 0)
			{
				Var		   *nv = copyObject(var);

				nv->varnullingrels = bms_copy(col->varnullingrels);
				return (Node *) nv;
			}
		}
		return (Node *) copyObject(var);
	}
	return expression_tree_mutator(node, nullingrels_mutator, (void *) tlist);
}
#endif

/*
 * A copy of expr whose Vars carry the nullingrels of their column in
 * tlist (a custom_scan_tlist).
 */
Node *
pgstrom_nullingrels_as_tlist(Node *expr, List *tlist)
{
#if PG_VERSION_NUM >= 160000
	return nullingrels_mutator(expr, tlist);
#else
	return copyObject(expr);
#endif
}

/*
 * expr as the input of the grouping step sees it: without the step's own
 * nulling of grouping expressions (18, grouping sets).
 */
Node *
pgstrom_without_grouping_nulls(PlannerInfo *root, Node *expr)
{
#if PG_VERSION_NUM >= 180000
	if (root->group_rtindex > 0 && root->parse->groupingSets != NIL)
		return remove_nulling_relids(expr,
									 bms_make_singleton(root->group_rtindex),
									 NULL);
#endif
	return expr;
}
