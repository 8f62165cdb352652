/*-------------------------------------------------------------------------
 *
 * gpupreagg_set_aggs.c
 *		Aggregates that depend only on the set of their input values.
 *
 * count(DISTINCT x), sum(DISTINCT x) and any other aggregate over DISTINCT
 * arguments, and min, max, bool_and and bool_or, give the same answer over
 * the rows of a group as over each distinct combination of their arguments
 * once, or several times when their input is deduplicated again (DISTINCT)
 * or duplicates do not matter (min, max, bool_and, bool_or).  None of them
 * can be split into partial states once DISTINCT is involved, but a
 * GpuPreAgg without aggregates whose keys are the grouping keys and these
 * arguments returns those combinations, one per participant, and the final
 * Agg runs the aggregates as the query wrote them (AGGSPLIT_SIMPLE) over far
 * fewer rows.  A FILTER clause becomes a key of its own, so that the final
 * Agg evaluates it over the key's column.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_namespace.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

#include "gpupreagg/gpupreagg_internal.h"

/* duplicates of an input value cannot change these aggregates' results */
bool
gpupreagg_duplicate_insensitive(Oid aggfnoid)
{
	static const char *const names[] = {"min", "max", "bool_and", "bool_or", "every"};
	char	   *name;
	int			i;

	if (get_func_namespace(aggfnoid) != PG_CATALOG_NAMESPACE)
		return false;
	name = get_func_name(aggfnoid);
	for (i = 0; i < lengthof(names); i++)
	{
		if (name && strcmp(name, names[i]) == 0)
			return true;
	}
	return false;
}

/*
 * The DISTINCT of an aggregate must compare as the device's keys do: with
 * the type's default equality.
 */
bool
gpupreagg_distinct_uses_default_equality(Aggref *aggref)
{
	ListCell   *lc;

	foreach(lc, aggref->aggdistinct)
	{
		SortGroupClause *sgc = lfirst_node(SortGroupClause, lc);
		TargetEntry *tle = get_sortgroupclause_tle(sgc, aggref->args);
		TypeCacheEntry *tce;

		tce = lookup_type_cache(exprType((Node *) tle->expr), TYPECACHE_EQ_OPR);
		if (sgc->eqop != tce->eq_opr)
			return false;
	}
	return true;
}

/*
 * Are aggrefs all aggregates of the set of their inputs?  The caller asks
 * when GpuPreAgg cannot split them all as usual (a DISTINCT, or a min/max
 * the device does not accumulate, such as of text).  Sets *keys to the
 * expressions the final Agg needs below it: each non-constant argument and
 * each FILTER clause, without duplicates.
 */
bool
gpupreagg_set_aggs_keys(List *aggrefs, List **keys, char **reason)
{
	ListCell   *lc;

	*keys = NIL;
	foreach(lc, aggrefs)
	{
		Aggref	   *aggref = lfirst_node(Aggref, lc);
		ListCell   *lc2;

		if (aggref->aggkind != AGGKIND_NORMAL || aggref->agglevelsup != 0)
		{
			*reason = "an ordered-set or outer-level aggregate";
			return false;
		}
		if (aggref->aggdistinct != NIL)
		{
			if (!gpupreagg_distinct_uses_default_equality(aggref))
			{
				*reason = "an aggregate's DISTINCT with a non-default equality";
				return false;
			}
		}
		else if (aggref->aggorder != NIL ||
				 !gpupreagg_duplicate_insensitive(aggref->aggfnoid))
		{
			*reason = "an aggregate over every row beside an aggregate over DISTINCT values";
			return false;
		}
		foreach(lc2, aggref->args)
		{
			TargetEntry *tle = lfirst_node(TargetEntry, lc2);

			if (!IsA(tle->expr, Const))
				*keys = list_append_unique(*keys, tle->expr);
		}
		if (aggref->aggfilter)
			*keys = list_append_unique(*keys, aggref->aggfilter);
	}
	return true;
}
