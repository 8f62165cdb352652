/*-------------------------------------------------------------------------
 *
 * gpupreagg_numeric.c
 *		The display scale every value of a numeric expression has, where the
 *		expression's form fixes it.
 *
 * A device accumulator of numeric values is an integer at one scale S, and
 * PostgreSQL prints a sum or an average at the largest display scale of the
 * values it added.  Both agree only when every value has the same display
 * scale, so an aggregate argument is offered to the device when that scale
 * follows from the expression: a numeric(p,s) value is rounded to s, and
 * numeric.c gives a sum or difference the larger scale of its operands, a
 * product the sum of theirs (numeric_add, numeric_sub, numeric_mul), and
 * round or trunc to a constant scale that scale.  A quotient's scale
 * depends on its operands' magnitudes (select_div_scale), so a division
 * fixes none unless rounded.  A
 * value that does not fit the accumulator is evaluated on the CPU (RECHECK).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/numeric.h"

#include "gpupreagg/gpupreagg_internal.h"

/* the largest display scale the search follows: above it, nothing fits */
#define NUMERIC_SCALE_SEARCH_MAX	1000

static bool numeric_scale_of(Node *node, int32 *scale);

/* the scale of a numeric(p,s) value: s, when p fits the accumulator */
static bool
typmod_scale(int32 typmod, int32 *scale)
{
	int32		precision;

	if (typmod < (int32) VARHDRSZ)
		return false;
	/* as numeric.c decodes it: the scale is 11 bits, signed since PG 15 */
	precision = ((typmod - VARHDRSZ) >> 16) & 0xffff;
	*scale = (((typmod - VARHDRSZ) & 0x7ff) ^ 1024) - 1024;
	return precision <= XPU_PREAGG_MAX_NUMERIC_SCALE &&
		*scale >= 0 && *scale <= XPU_PREAGG_MAX_NUMERIC_SCALE;
}

/* a numeric constant's display scale; a NULL has none that matters */
static bool
const_scale(Const *c, int32 *scale, bool *is_null)
{
	Numeric		num;

	*is_null = c->constisnull;
	if (c->constisnull)
		return true;
	num = DatumGetNumeric(c->constvalue);
	if (numeric_is_nan(num) || numeric_is_inf(num))
		return false;
	*scale = DatumGetInt32(DirectFunctionCall1(numeric_scale, c->constvalue));
	return true;
}

/*
 * The one scale of the non-NULL values among args (CASE results, COALESCE
 * arguments): they must all have the same, since a row takes any of them.
 */
static bool
common_scale(List *args, int32 *scale)
{
	ListCell   *lc;
	bool		found = false;

	foreach(lc, args)
	{
		Node	   *arg = (Node *) lfirst(lc);
		int32		s;

		if (IsA(arg, Const) && ((Const *) arg)->constisnull)
			continue;
		if (!numeric_scale_of(arg, &s))
			return false;
		if (found && s != *scale)
			return false;
		*scale = s;
		found = true;
	}
	return found;
}

static bool
numeric_scale_of(Node *node, int32 *scale)
{
	int32		a,
				b;

	check_stack_depth();
	if (node == NULL || exprType(node) != NUMERICOID)
		return false;
	/* numeric(p,s), a column or a cast to it: rounded to s */
	if (exprTypmod(node) >= (int32) VARHDRSZ)
		return typmod_scale(exprTypmod(node), scale);

	switch (nodeTag(node))
	{
		case T_Const:
			{
				bool		is_null;

				return const_scale((Const *) node, scale, &is_null) && !is_null;
			}
		case T_RelabelType:
			return numeric_scale_of((Node *) ((RelabelType *) node)->arg, scale);
		case T_CaseExpr:
			{
				CaseExpr   *ce = (CaseExpr *) node;
				List	   *results = NIL;
				ListCell   *lc;

				foreach(lc, ce->args)
					results = lappend(results, lfirst_node(CaseWhen, lc)->result);
				/* no ELSE is ELSE NULL */
				if (ce->defresult)
					results = lappend(results, ce->defresult);
				return common_scale(results, scale);
			}
		case T_CoalesceExpr:
			return common_scale(((CoalesceExpr *) node)->args, scale);
		case T_FuncExpr:
		case T_OpExpr:
			break;
		default:
			return false;
	}

	{
		Oid			funcid;
		List	   *args;

		if (IsA(node, FuncExpr))
		{
			funcid = ((FuncExpr *) node)->funcid;
			args = ((FuncExpr *) node)->args;
		}
		else
		{
			funcid = ((OpExpr *) node)->opfuncid;
			args = ((OpExpr *) node)->args;
		}
		switch (funcid)
		{
			case F_NUMERIC_INT2:	/* numeric(int2) and its like: scale 0 */
			case F_NUMERIC_INT4:
			case F_NUMERIC_INT8:
				*scale = 0;
				return true;
			case F_NUMERIC_UMINUS:
			case F_NUMERIC_UPLUS:
			case F_NUMERIC_ABS:
			case F_ABS_NUMERIC:
				return list_length(args) == 1 &&
					numeric_scale_of(linitial(args), scale);
			case F_NUMERIC_ADD:
			case F_NUMERIC_SUB:
				if (list_length(args) != 2 ||
					!numeric_scale_of(linitial(args), &a) ||
					!numeric_scale_of(lsecond(args), &b))
					return false;
				*scale = Max(a, b);
				return true;
			case F_ROUND_NUMERIC_INT4:
			case F_TRUNC_NUMERIC_INT4:
				/* a constant scale t: display scale t, or 0 below 0 */
				{
					Node	   *t = (list_length(args) == 2 ? lsecond(args) : NULL);

					while (t && IsA(t, RelabelType))
						t = (Node *) ((RelabelType *) t)->arg;
					if (t == NULL || !IsA(t, Const) || ((Const *) t)->constisnull ||
						((Const *) t)->consttype != INT4OID)
						return false;
					*scale = Max(DatumGetInt32(((Const *) t)->constvalue), 0);
					*scale = Min(*scale, NUMERIC_SCALE_SEARCH_MAX + 1);
					return true;
				}
			case F_NUMERIC_MUL:
				if (list_length(args) != 2 ||
					!numeric_scale_of(linitial(args), &a) ||
					!numeric_scale_of(lsecond(args), &b) ||
					a + b > NUMERIC_SCALE_SEARCH_MAX)
					return false;
				*scale = a + b;
				return true;
			default:
				return false;
		}
	}
}

/*
 * gpupreagg_numeric_scale - the scale S of a numeric aggregate argument
 * whose every value has display scale S, with S small enough for the
 * device's accumulators; false when the expression does not fix it.
 */
bool
gpupreagg_numeric_scale(Expr *arg, int32 *scale)
{
	return numeric_scale_of((Node *) arg, scale) &&
		*scale >= 0 && *scale <= XPU_PREAGG_MAX_NUMERIC_SCALE;
}
