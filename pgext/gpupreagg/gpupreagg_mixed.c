/*-------------------------------------------------------------------------
 *
 * gpupreagg_mixed.c
 *		Aggregates over DISTINCT values beside aggregates over every row.
 *
 * count(DISTINCT x) needs each group's distinct x, and count(*) every row;
 * PostgreSQL cannot split the first into partial states.  The device
 * groups by the grouping keys and the arguments of the DISTINCT
 * aggregates (and of min/max of types it does not accumulate), and
 * accumulates the other aggregates per such combination; a Finalize Agg
 * merges the participants' partial states per combination, and a second
 * Agg, over the grouping keys, runs the DISTINCT aggregates as written over
 * the combinations and aggregates each per-combination result again:
 *
 *		count(*), count(x)	sum of the counts (as int8; 0 for no rows)
 *		sum(int2/int4)		sum of the sums (as int8)
 *		sum(int8/numeric/float4/float8)	sum of the sums
 *		min, max, bool_and, bool_or, every	the same aggregate again
 *		avg(int2/int4/int8/numeric)	numeric_div(sum of the sums, sum of the
 *							counts), as int8_avg and numeric_avg divide
 *		avg(float4/float8)	float8 division likewise, as float8_avg (the
 *							float4 argument summed as float8)
 *
 * The second Agg's results are not the query's Aggrefs, which the plan
 * above (a Sort by an aggregate, HAVING, a window) looks for, so a
 * pass-through node (gpupreagg_result.c) presents them as those.
 *
 * GROUPING SETS, ROLLUP and CUBE take the same plan, DISTINCT aggregates
 * or not: the device groups by every grouping column (the finest of the
 * sets), and the second Agg is PostgreSQL's own grouping-sets Agg, with
 * the rollups and strategy PostgreSQL chose for the query, over the
 * combinations.  GROUPING() is computed there as always.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_aggregate.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/prep.h"
#include "optimizer/tlist.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "compat/pg_compat.h"
#include "gpupreagg/gpupreagg_internal.h"

/* aggfnoid's transition type, which mark_partial_aggref() needs */
static Oid
agg_transtype(Oid aggfnoid)
{
	HeapTuple	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggfnoid));
	Oid			transtype;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for aggregate %u", aggfnoid);
	transtype = ((Form_pg_aggregate) GETSTRUCT(tup))->aggtranstype;
	ReleaseSysCache(tup);
	return transtype;
}

/* a one-argument Aggref of aggfnoid, numbered aggno in its Agg */
static Aggref *
make_aggref(Oid aggfnoid, Oid rettype, Expr *arg, Expr *filter, int aggno)
{
	Aggref	   *a = makeNode(Aggref);

	a->aggfnoid = aggfnoid;
	a->aggtype = rettype;
	a->aggcollid = InvalidOid;
	a->inputcollid = exprCollation((Node *) arg);
	a->aggtranstype = agg_transtype(aggfnoid);
	a->aggargtypes = list_make1_oid(exprType((Node *) arg));
	a->args = list_make1(makeTargetEntry(arg, 1, NULL, false));
	a->aggfilter = filter;
	a->aggkind = AGGKIND_NORMAL;
	a->aggsplit = AGGSPLIT_SIMPLE;
	a->aggno = aggno;
	a->aggtransno = aggno;
	a->location = -1;
	return a;
}

static Expr *
make_call(Oid funcid, Oid rettype, Expr *arg1, Expr *arg2)
{
	return (Expr *) makeFuncExpr(funcid, rettype,
								 arg2 ? list_make2(arg1, arg2) : list_make1(arg1),
								 InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
}

/*
 * d (a fresh node) as one of the aggregates the device accumulates,
 * numbered for the first Agg: an equal one already there (avg(x) needs
 * the sum(x) that the query may also ask for) if any
 */
static Aggref *
device_agg(GpaMixedAggs *m, Aggref *d)
{
	ListCell   *lc;

	foreach(lc, m->dev_aggrefs)
	{
		Aggref	   *other = lfirst(lc);

		d->aggno = d->aggtransno = other->aggno;
		if (equal(d, other))
			return other;
	}
	d->aggno = d->aggtransno = list_length(m->dev_aggrefs);
	m->dev_aggrefs = lappend(m->dev_aggrefs, d);
	return d;
}

/* the device's copy of an aggregate of the query */
static Aggref *
device_copy(GpaMixedAggs *m, Aggref *aggref)
{
	return device_agg(m, copyObject(aggref));
}

/* a new aggregate of the second Agg over a per-combination result */
static Aggref *
upper_agg(GpaMixedAggs *m, Oid aggfnoid, Oid rettype, Expr *arg)
{
	return make_aggref(aggfnoid, rettype, arg, NULL, m->upper_naggs++);
}

/*
 * The per-combination sum and count of avg's argument, on the device;
 * float4 summed as float8, as float4_accum sums it.
 */
static void
device_sum_count(GpaMixedAggs *m, Aggref *avg, Oid sumfn, Oid sumtype,
				 Aggref **sum, Aggref **count)
{
	Expr	   *arg = linitial_node(TargetEntry, avg->args)->expr;
	Expr	   *summed = copyObject(arg);

	if (avg->aggfnoid == F_AVG_FLOAT4)
		summed = make_call(F_FLOAT8_FLOAT4, FLOAT8OID, summed, NULL);
	*sum = device_agg(m, make_aggref(sumfn, sumtype, summed,
									 copyObject(avg->aggfilter), 0));
	*count = device_agg(m, make_aggref(F_COUNT_ANY, INT8OID, copyObject(arg),
									   copyObject(avg->aggfilter), 0));
}

/*
 * The second Agg's expression for a plain aggregate, after adding what it
 * needs to m->dev_aggrefs; NULL when it cannot be aggregated again.
 */
static Expr *
reaggregate(GpaMixedAggs *m, Aggref *aggref)
{
	Aggref	   *d;
	Aggref	   *sum;
	Aggref	   *count;

	switch (aggref->aggfnoid)
	{
		case F_COUNT_:
		case F_COUNT_ANY:
			{
				CoalesceExpr *c = makeNode(CoalesceExpr);

				d = device_copy(m, aggref);
				c->coalescetype = INT8OID;
				c->coalescecollid = InvalidOid;
				c->args = list_make2(make_call(F_INT8_NUMERIC, INT8OID,
											   (Expr *) upper_agg(m, F_SUM_INT8, NUMERICOID,
																  (Expr *) d), NULL),
									 makeConst(INT8OID, -1, InvalidOid, sizeof(int64),
											   Int64GetDatum(0), false, FLOAT8PASSBYVAL));
				c->location = -1;
				return (Expr *) c;
			}
		case F_SUM_INT2:
		case F_SUM_INT4:
			d = device_copy(m, aggref);
			return make_call(F_INT8_NUMERIC, INT8OID,
							 (Expr *) upper_agg(m, F_SUM_INT8, NUMERICOID, (Expr *) d), NULL);
		case F_SUM_INT8:
		case F_SUM_NUMERIC:
			d = device_copy(m, aggref);
			return (Expr *) upper_agg(m, F_SUM_NUMERIC, NUMERICOID, (Expr *) d);
		case F_SUM_FLOAT4:
		case F_SUM_FLOAT8:
			d = device_copy(m, aggref);
			return (Expr *) upper_agg(m, aggref->aggfnoid, aggref->aggtype, (Expr *) d);
		case F_AVG_INT2:
		case F_AVG_INT4:
			device_sum_count(m, aggref,
							 aggref->aggfnoid == F_AVG_INT2 ? F_SUM_INT2 : F_SUM_INT4,
							 INT8OID, &sum, &count);
			return make_call(F_NUMERIC_DIV, NUMERICOID,
							 (Expr *) upper_agg(m, F_SUM_INT8, NUMERICOID, (Expr *) sum),
							 (Expr *) upper_agg(m, F_SUM_INT8, NUMERICOID, (Expr *) count));
		case F_AVG_INT8:
		case F_AVG_NUMERIC:
			device_sum_count(m, aggref,
							 aggref->aggfnoid == F_AVG_INT8 ? F_SUM_INT8 : F_SUM_NUMERIC,
							 NUMERICOID, &sum, &count);
			return make_call(F_NUMERIC_DIV, NUMERICOID,
							 (Expr *) upper_agg(m, F_SUM_NUMERIC, NUMERICOID, (Expr *) sum),
							 (Expr *) upper_agg(m, F_SUM_INT8, NUMERICOID, (Expr *) count));
		case F_AVG_FLOAT4:
		case F_AVG_FLOAT8:
			device_sum_count(m, aggref, F_SUM_FLOAT8, FLOAT8OID, &sum, &count);

			/*
			 * a NULL sum (no value) is never divided, and a sum beside a
			 * zero count is impossible, so float8div raises nothing that
			 * float8_avg would not
			 */
			return make_call(F_FLOAT8DIV, FLOAT8OID,
							 (Expr *) upper_agg(m, F_SUM_FLOAT8, FLOAT8OID, (Expr *) sum),
							 make_call(F_FLOAT8_NUMERIC, FLOAT8OID,
									   (Expr *) upper_agg(m, F_SUM_INT8, NUMERICOID,
														  (Expr *) count), NULL));
		default:
			break;
	}
	if (gpupreagg_duplicate_insensitive(aggref->aggfnoid))
	{
		/* min, max, bool_and, bool_or, every: the same aggregate again */
		d = device_copy(m, aggref);
		return (Expr *) make_aggref(aggref->aggfnoid, aggref->aggtype, (Expr *) d,
									NULL, m->upper_naggs++);
	}
	return NULL;
}

/*
 * Splits aggrefs (every Aggref of the target list and HAVING, each once)
 * into the set aggregates, which the second Agg runs whole over the
 * combinations (DISTINCT ones, and min/max/bool_and/bool_or the device
 * cannot accumulate: on_device says), and the plain ones, which the
 * device accumulates per combination.  False with *reason when one is
 * neither, or (unless for grouping sets, where either may be missing)
 * when there are not both.
 */
bool
gpupreagg_mixed_split(List *aggrefs, gpa_on_device_fn on_device, void *arg,
					  bool grouping_sets, GpaMixedAggs *m, char **reason)
{
	ListCell   *lc;

	memset(m, 0, sizeof(GpaMixedAggs));
	foreach(lc, aggrefs)
	{
		Aggref	   *aggref = lfirst_node(Aggref, lc);
		Aggref	   *upper;
		Expr	   *expr;
		int			ndev = list_length(m->dev_aggrefs);

		if (aggref->aggkind != AGGKIND_NORMAL || aggref->agglevelsup != 0)
		{
			*reason = "an ordered-set or outer-level aggregate";
			return false;
		}
		if (aggref->aggdistinct != NIL ||
			(aggref->aggorder == NIL &&
			 gpupreagg_duplicate_insensitive(aggref->aggfnoid) &&
			 !on_device(aggref, arg)))
		{
			if (aggref->aggdistinct != NIL &&
				!gpupreagg_distinct_uses_default_equality(aggref))
			{
				*reason = "an aggregate's DISTINCT with a non-default equality";
				return false;
			}
			upper = copyObject(aggref);
			upper->aggno = upper->aggtransno = m->upper_naggs++;
			m->set_aggrefs = lappend(m->set_aggrefs, aggref);
			m->set_upper = lappend(m->set_upper, upper);
			continue;
		}
		if (aggref->aggorder != NIL || aggref->aggvariadic ||
			(expr = reaggregate(m, aggref)) == NULL)
		{
			*reason = psprintf("%s beside an aggregate over DISTINCT values",
							   get_func_name(aggref->aggfnoid));
			return false;
		}
		for (; ndev < list_length(m->dev_aggrefs); ndev++)
		{
			if (!on_device(list_nth(m->dev_aggrefs, ndev), arg))
			{
				*reason = psprintf("%s cannot be accumulated on the device",
								   get_func_name(aggref->aggfnoid));
				return false;
			}
		}
		m->plain = lappend(m->plain, aggref);
		m->rewrites = lappend(m->rewrites, expr);
	}
	if (!grouping_sets && (m->plain == NIL || m->set_aggrefs == NIL))
	{
		*reason = "no aggregate over DISTINCT values beside one over every row";
		return false;
	}
	return true;
}

/* the keys the set aggregates need: arguments and FILTER clauses */
List *
gpupreagg_mixed_set_keys(GpaMixedAggs *m)
{
	List	   *keys = NIL;
	ListCell   *lc;

	foreach(lc, m->set_aggrefs)
	{
		Aggref	   *aggref = lfirst_node(Aggref, lc);
		ListCell   *lc2;

		foreach(lc2, aggref->args)
		{
			TargetEntry *tle = lfirst_node(TargetEntry, lc2);

			if (!IsA(tle->expr, Const))
				keys = list_append_unique(keys, tle->expr);
		}
		if (aggref->aggfilter)
			keys = list_append_unique(keys, aggref->aggfilter);
	}
	return keys;
}

static Node *
rewrite_mutator(Node *node, GpaMixedAggs *m)
{
	ListCell   *lc1;
	ListCell   *lc2;

	if (node == NULL)
		return NULL;
	if (IsA(node, Aggref))
	{
		forboth(lc1, m->plain, lc2, m->rewrites)
		{
			if (equal(node, lfirst(lc1)))
				return copyObject(lfirst(lc2));
		}
		forboth(lc1, m->set_aggrefs, lc2, m->set_upper)
		{
			if (equal(node, lfirst(lc1)))
				return copyObject(lfirst(lc2));
		}
		elog(ERROR, "aggregate %s was not split for GpuPreAgg",
			 get_func_name(((Aggref *) node)->aggfnoid));
	}
	return expression_tree_mutator(node, rewrite_mutator, (void *) m);
}

/* expr (a target expression or HAVING) as the second Agg computes it */
Node *
gpupreagg_mixed_rewrite(Node *expr, GpaMixedAggs *m)
{
	return rewrite_mutator(expr, m);
}

/*
 * Does a grouping-sets Agg of these rollups read its input sorted
 * (root->group_pathkeys, as PostgreSQL's own sorted and mixed strategies
 * are given it)?  Only the first rollup not hashed is read as it comes;
 * one over the empty set alone needs no order.
 */
static bool
rollups_read_sorted(List *rollups)
{
	ListCell   *lc;

	foreach(lc, rollups)
	{
		RollupData *rollup = lfirst_node(RollupData, lc);

		if (!rollup->is_hashed)
			return rollup->groupClause != NIL;
	}
	return false;
}

/*
 * The second Agg over path (the Finalize Agg's) into output_rel: a sorted
 * or plain Agg without grouping sets, else one grouping-sets Agg of each
 * strategy and rollups PostgreSQL offered (pg_gsets, GroupingSetsPaths of
 * output_rel), each under a GpuPreAgg Result.
 */
static void
add_second_agg_paths(PlannerInfo *root, RelOptInfo *output_rel, Path *path,
					 PathTarget *l2_target, Node *having,
					 const AggClauseCosts *l2_costs, List *pg_gsets,
					 PathTarget *final_target, double dNumGroups,
					 Path *(*scaled) (Path *))
{
	Query	   *parse = root->parse;
	ListCell   *lc;

	if (pg_gsets == NIL)
	{
		if (root->group_pathkeys != NIL)
			path = (Path *) create_sort_path(root, output_rel, path,
											 root->group_pathkeys, -1.0);
		path = scaled((Path *) create_agg_path(root, output_rel, path, l2_target,
											   parse->groupClause != NIL ? AGG_SORTED : AGG_PLAIN,
											   AGGSPLIT_SIMPLE, parse->groupClause,
											   (List *) having, l2_costs, dNumGroups));
		add_path(output_rel, gpupreagg_result_path(root, output_rel, path,
												   final_target));
		return;
	}
	foreach(lc, pg_gsets)
	{
		GroupingSetsPath *pg = lfirst_node(GroupingSetsPath, lc);
		Path	   *input = path;
		GroupingSetsPath *gsets;

		if (rollups_read_sorted(pg->rollups) && root->group_pathkeys != NIL)
			input = (Path *) create_sort_path(root, output_rel, input,
											  root->group_pathkeys, -1.0);
		gsets = PgStromCreateGroupingSetsPath(root, output_rel, input,
											  (List *) having, pg->aggstrategy,
											  pg->rollups, l2_costs,
											  pg->path.rows);
		/* it computes the rewritten aggregates, not output_rel's */
		gsets->path.pathtarget = l2_target;
		add_path(output_rel,
				 gpupreagg_result_path(root, output_rel,
									   scaled((Path *) gsets), final_target));
	}
}

/*
 * The plan over the GpuPreAgg inputs (serial, and partial under a Gather
 * where not NULL), into output_rel:
 *
 *		GpuPreAgg Result
 *		  -> Agg (AGGSPLIT_SIMPLE, sorted by the grouping keys, or plain;
 *				  or grouping sets as pg_gsets)
 *			   -> Sort
 *				 -> Finalize HashAggregate over the keys and set keys
 *					  -> [Gather ->] GpuPreAgg
 *
 * dev_target is the GpuPreAgg's (keys with their sortgrouprefs, then the
 * partial aggregates of m->dev_aggrefs), l1_group the Finalize Agg's
 * clauses over those keys.
 */
void
gpupreagg_mixed_paths(PlannerInfo *root, RelOptInfo *output_rel,
					  Path *serial, Path *partial, PathTarget *dev_target,
					  int nkeys, List *l1_group, GpaMixedAggs *m,
					  List *pg_gsets, PathTarget *final_target, Node *having,
					  double ncombinations, double dNumGroups,
					  Path *(*scaled) (Path *))
{
	PathTarget *l1_target = create_empty_pathtarget();
	PathTarget *l2_target = copy_pathtarget(final_target);
	AggClauseCosts l1_costs;
	AggClauseCosts l2_costs;
	Path	   *inputs[2] = {serial, NULL};
	ListCell   *lc;
	int			i;

	for (i = 0; i < nkeys; i++)
		add_column_to_pathtarget(l1_target, list_nth(dev_target->exprs, i),
								 get_pathtarget_sortgroupref(dev_target, i));
	foreach(lc, m->dev_aggrefs)
		add_column_to_pathtarget(l1_target, lfirst(lc), 0);
	l1_target = set_pathtarget_cost_width(root, l1_target);
	l2_target->exprs = (List *) gpupreagg_mixed_rewrite((Node *) final_target->exprs, m);
	l2_target = set_pathtarget_cost_width(root, l2_target);
	having = gpupreagg_mixed_rewrite(having, m);

	MemSet(&l1_costs, 0, sizeof(AggClauseCosts));
	get_agg_clause_costs(root, AGGSPLIT_FINAL_DESERIAL, &l1_costs);
	MemSet(&l2_costs, 0, sizeof(AggClauseCosts));
	get_agg_clause_costs(root, AGGSPLIT_SIMPLE, &l2_costs);

	if (partial != NULL)
	{
		double		rows = ncombinations;

		inputs[1] = (Path *) create_gather_path(root, output_rel, partial,
												dev_target, NULL, &rows);
	}
	for (i = 0; i < lengthof(inputs); i++)
	{
		Path	   *path = inputs[i];

		if (path == NULL)
			continue;
		path = scaled((Path *) create_agg_path(root, output_rel, path, l1_target,
											   l1_group != NIL ? AGG_HASHED : AGG_PLAIN,
											   AGGSPLIT_FINAL_DESERIAL, l1_group,
											   NIL, &l1_costs, ncombinations));
		add_second_agg_paths(root, output_rel, path, l2_target, having,
							 &l2_costs, pg_gsets, final_target, dNumGroups,
							 scaled);
	}
}
