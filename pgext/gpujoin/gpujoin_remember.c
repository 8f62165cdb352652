/*-------------------------------------------------------------------------
 *
 * gpujoin_remember.c
 *		The cheapest GpuJoin paths of every join relation, kept apart from
 *		the relation's pathlist.
 *
 * A GpuJoin of depth n + 1 extends a GpuJoin of depth n over the outer
 * relation, and a fused GpuPreAgg is built over a GpuJoin of the whole
 * join.  add_path() compares paths only within their relation, so a GpuJoin
 * of lineorder and part that costs a little more than PostgreSQL's hash
 * join of the same pair is discarded (and freed), although the GpuJoin of
 * lineorder with part, supplier and date that extends it, or the fused
 * aggregation over that, would be far cheaper than anything PostgreSQL
 * builds.  So every GpuJoin path offered is also remembered here, a copy of
 * it (add_path may pfree the original), the cheapest per join relation,
 * outer table and kind (serial or partial), and the next depth and the
 * fused GpuPreAgg start from those.
 *
 * The entries live in the planner's memory and are keyed by the
 * PlannerInfo, so subqueries keep theirs apart; planner_hook starts every
 * planning with none and restores the caller's afterwards (planning can
 * nest, e.g. when a SQL function is inlined or evaluated).  Under GEQO the
 * join relations of each candidate order live in a memory context that is
 * reset for the next one: nothing is remembered there, and the callers
 * fall back to the relations' pathlists.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "optimizer/planner.h"

#include "gpujoin/gpujoin.h"

typedef struct RememberedJoin
{
	PlannerInfo *root;
	Relids		relids;			/* the join relation */
	Index		outer_relid;	/* the heap table scanned on the device */
	bool		partial;
	CustomPath *path;			/* the cheapest so far, a private copy */
} RememberedJoin;

static List *remembered = NIL;
static planner_hook_type prev_planner_hook = NULL;

static PlannedStmt *
gpujoin_planner(Query *parse, const char *query_string, int cursorOptions,
				ParamListInfo boundParams)
{
	List	   *saved = remembered;
	PlannedStmt *result;

	remembered = NIL;
	PG_TRY();
	{
		if (prev_planner_hook)
			result = prev_planner_hook(parse, query_string, cursorOptions,
									   boundParams);
		else
			result = standard_planner(parse, query_string, cursorOptions,
									  boundParams);
	}
	PG_FINALLY();
	{
		remembered = saved;
	}
	PG_END_TRY();
	return result;
}

static bool
is_partial(CustomPath *cpath)
{
	return cpath->path.parallel_aware;
}

/*
 * Remembers cpath, a GpuJoin path of joinrel about to be offered to
 * add_path or add_partial_path, if it is the cheapest of its kind.
 */
void
gpujoin_remember_path(PlannerInfo *root, RelOptInfo *joinrel, CustomPath *cpath)
{
	Index		outer_relid = gpujoin_info_from_list(cpath->custom_private)->outer_relid;
	RememberedJoin *entry = NULL;
	ListCell   *lc;

	if (root->join_search_private != NULL)
		return;					/* GEQO: see the header comment */
	foreach(lc, remembered)
	{
		RememberedJoin *e = lfirst(lc);

		if (e->root == root && e->outer_relid == outer_relid &&
			e->partial == is_partial(cpath) && bms_equal(e->relids, joinrel->relids))
		{
			entry = e;
			break;
		}
	}
	if (entry == NULL)
	{
		entry = palloc0(sizeof(RememberedJoin));
		entry->root = root;
		entry->relids = bms_copy(joinrel->relids);
		entry->outer_relid = outer_relid;
		entry->partial = is_partial(cpath);
		remembered = lappend(remembered, entry);
	}
	else if (entry->path->path.total_cost <= cpath->path.total_cost)
		return;
	entry->path = palloc(sizeof(CustomPath));
	memcpy(entry->path, cpath, sizeof(CustomPath));
}

/*
 * The GpuJoin paths of rel to build on: the remembered ones of the kind
 * asked for (one per outer table), or where none was remembered, those in
 * rel's pathlist or partial_pathlist.
 */
List *
gpujoin_paths_of(PlannerInfo *root, RelOptInfo *rel, bool partial)
{
	List	   *result = NIL;
	ListCell   *lc;

	foreach(lc, remembered)
	{
		RememberedJoin *e = lfirst(lc);

		if (e->root == root && e->partial == partial &&
			bms_equal(e->relids, rel->relids))
			result = lappend(result, e->path);
	}
	if (result != NIL)
		return result;
	foreach(lc, partial ? rel->partial_pathlist : rel->pathlist)
	{
		Path	   *path = lfirst(lc);

		/* the scan/join target may have wrapped it in a projection */
		if (IsA(path, ProjectionPath))
			path = ((ProjectionPath *) path)->subpath;
		if (is_gpujoin_path(path))
			result = lappend(result, path);
	}
	return result;
}

void
pgstrom_init_gpujoin_remember(void)
{
	prev_planner_hook = planner_hook;
	planner_hook = gpujoin_planner;
}
