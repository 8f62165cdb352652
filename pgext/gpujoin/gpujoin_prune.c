/*-------------------------------------------------------------------------
 *
 * gpujoin_prune.c
 *		A partition's join node that its inner keys exclude.
 *
 * PostgreSQL prunes partitions from quals and parameters, never from the
 * rows of the tables joined to them: a star join whose date dimension is
 * filtered to one month still scans every monthly partition of the fact
 * table, and the hash join finds no match in all but one.  Once the inner
 * rows are built, a join node knows every key an INNER or SEMI depth can
 * match: an outer row whose key lies outside [min, max] of the depth's
 * inner keys matches none.  When that outer key is a column of the
 * partition and the partition's constraint (its ancestors' included)
 * refutes `key >= min AND key <= max`, as constraint exclusion refutes
 * quals, no row of the partition joins, and the node scans nothing, as
 * over an empty inner side (gpujoin_skip_if_empty).
 *
 * Only keys whose equality operator belongs to a btree family, with both
 * types uncollated, are used: min and max are taken in the family's
 * order, the one its <= and >= operators, proven against the constraint,
 * follow.  Every participant of a parallel plan has the same inner rows,
 * so all of them decide alike.  The leaves of one Append share their
 * rows, so each process takes a key's range once for all of them
 * (gpujoin_group_key_range).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/nbtree.h"
#include "access/stratnum.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/partcache.h"
#include "utils/rel.h"

#include "core/pg_strom.h"
#include "gpujoin/gpujoin.h"

/* how depth d's key k is ordered, and the operators bounding it */
typedef struct KeyOrder
{
	Oid			le_opno;		/* outer <= inner */
	Oid			ge_opno;		/* outer >= inner */
	FmgrInfo	cmp;			/* inner vs inner, the family's order */
	Oid			inner_type;
} KeyOrder;

static bool
key_order(Oid opno, KeyOrder *order)
{
	Oid			ltype;
	Oid			rtype;
	List	   *families;
	ListCell   *lc;

	op_input_types(opno, &ltype, &rtype);
	if (type_is_collatable(ltype) || type_is_collatable(rtype))
		return false;
	families = get_mergejoin_opfamilies(opno);
	foreach(lc, families)
	{
		Oid			family = lfirst_oid(lc);
		Oid			cmp_proc = get_opfamily_proc(family, rtype, rtype, BTORDER_PROC);

		order->le_opno = get_opfamily_member(family, ltype, rtype,
											 BTLessEqualStrategyNumber);
		order->ge_opno = get_opfamily_member(family, ltype, rtype,
											 BTGreaterEqualStrategyNumber);
		if (OidIsValid(order->le_opno) && OidIsValid(order->ge_opno) &&
			OidIsValid(cmp_proc))
		{
			fmgr_info(cmp_proc, &order->cmp);
			order->inner_type = rtype;
			return true;
		}
	}
	return false;
}

/* the outer key as a column of the relation (varno 1), or NULL */
static Var *
key_column(Node *key, Bitmapset *constrained)
{
	Var		   *var;

	while (IsA(key, RelabelType))
		key = (Node *) ((RelabelType *) key)->arg;
	if (!IsA(key, Var))
		return NULL;
	var = (Var *) key;
	if (var->varattno <= 0 || var->varlevelsup != 0 ||
		!bms_is_member(var->varattno - FirstLowInvalidHeapAttributeNumber,
					   constrained))
		return NULL;
	var = copyObject(var);
	var->varno = 1;
	return var;
}

/*
 * The smallest and largest non-null inner key k of depth d; false when
 * every key is null (the join matches nothing then, which the device
 * finds as quickly).
 */
static bool
inner_key_range(GpuJoinState *gjs, int d, int k, KeyOrder *order,
				Datum *min, Datum *max)
{
	ExprContext *econtext = gjs->task->css.ss.ps.ps_ExprContext;
	ExprState  *state = gjs->inner_key_state[d][k];
	GpuJoinDepthInfo *depth = &gjs->info->depths[d];
	Node	   *key = list_nth(depth->inner_keys, k);
	Oid			opno = list_nth_oid(depth->key_opnos, k);
	GpuJoinKeyRange *known = gpujoin_group_key_range(gjs, d, k);
	int16		typlen;
	bool		typbyval;
	bool		found = false;
	uint32		row;

	get_typlenbyval(order->inner_type, &typlen, &typbyval);
	if (known != NULL && known->inner_key != NULL &&
		known->opno == opno && equal(known->inner_key, key))
	{
		*min = known->min;
		*max = known->max;
		return known->found;
	}
	for (row = 0; row < gjs->inner[d].nrows; row++)
	{
		Datum		value;
		bool		isnull;

		ResetExprContext(econtext);
		gpujoin_inner_tuple(gjs, d, row);
		econtext->ecxt_innertuple = gjs->inner_slot[d];
		value = ExecEvalExpr(state, econtext, &isnull);
		if (isnull)
			continue;
		if (!found || DatumGetInt32(FunctionCall2(&order->cmp, value, *min)) < 0)
			*min = datumCopy(value, typbyval, typlen);
		if (!found || DatumGetInt32(FunctionCall2(&order->cmp, value, *max)) > 0)
			*max = datumCopy(value, typbyval, typlen);
		found = true;
	}
	ResetExprContext(econtext);
	if (known != NULL)
	{
		MemoryContext oldcxt = MemoryContextSwitchTo(gjs->task->css.ss.ps.state->es_query_cxt);

		known->inner_key = copyObject(key);
		known->opno = opno;
		known->found = found;
		known->min = found ? datumCopy(*min, typbyval, typlen) : (Datum) 0;
		known->max = found ? datumCopy(*max, typbyval, typlen) : (Datum) 0;
		MemoryContextSwitchTo(oldcxt);
	}
	return found;
}

static Expr *
bound_clause(Oid opno, Var *column, Oid type, Datum value)
{
	int16		typlen;
	bool		typbyval;

	get_typlenbyval(type, &typlen, &typbyval);
	return make_opclause(opno, BOOLOID, false, (Expr *) column,
						 (Expr *) makeConst(type, -1, InvalidOid, typlen,
											value, false, typbyval),
						 InvalidOid, InvalidOid);
}

/*
 * Do the inner rows' keys exclude every row of the node's partition?
 * Called once the inner rows are built, before the scan.
 */
bool
gpujoin_keys_exclude_partition(GpuJoinState *gjs, Relation rel)
{
	List	   *constraint;
	List	   *bounds = NIL;
	Bitmapset  *constrained = NULL;
	MemoryContext cxt;
	MemoryContext oldcxt;
	bool		excluded = false;
	int			d;

	if (rel == NULL || !rel->rd_rel->relispartition)
		return false;
	cxt = AllocSetContextCreate(CurrentMemoryContext, "GpuJoin key pruning",
								ALLOCSET_SMALL_SIZES);
	oldcxt = MemoryContextSwitchTo(cxt);
	constraint = RelationGetPartitionQual(rel);
	pull_varattnos((Node *) constraint, 1, &constrained);
	for (d = 0; d < gjs->info->ndepths && constrained != NULL; d++)
	{
		GpuJoinDepthInfo *depth = &gjs->info->depths[d];
		int			k;

		if (depth->join_type != JOIN_INNER && depth->join_type != JOIN_SEMI)
			continue;
		for (k = 0; k < list_length(depth->outer_keys); k++)
		{
			Var		   *column = key_column(list_nth(depth->outer_keys, k),
											constrained);
			KeyOrder	order;
			Datum		min;
			Datum		max;

			if (column == NULL ||
				!key_order(list_nth_oid(depth->key_opnos, k), &order) ||
				!inner_key_range(gjs, d, k, &order, &min, &max))
				continue;
			bounds = lappend(bounds, bound_clause(order.ge_opno, column,
												  order.inner_type, min));
			bounds = lappend(bounds, bound_clause(order.le_opno, column,
												  order.inner_type, max));
		}
	}
	if (bounds != NIL)
		excluded = predicate_refuted_by(constraint, bounds, false);
	MemoryContextSwitchTo(oldcxt);
	MemoryContextDelete(cxt);
	return excluded;
}
