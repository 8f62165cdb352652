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
 * Where the form fixes no single scale it may still bound it: the device
 * then sums at the bound and keeps the largest display scale it saw
 * (SUM_NUMV).  The bound follows numeric.c's rules from an upper bound of
 * each value's magnitude: a quotient's display scale is at least 16
 * significant digits past its leading base-10000 digit, and that digit's
 * weight is bounded below by the dividend's smallest non-zero value (a
 * value of display scale s is a multiple of 10^-s) and the divisor's
 * largest.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"

#include "gpupreagg/gpupreagg_internal.h"

/* the largest display scale the search follows: above it, nothing fits */
#define NUMERIC_SCALE_SEARCH_MAX	1000

/* a FuncExpr's or OpExpr's function and arguments */
static void
call_parts(Node *node, Oid *funcid, List **args)
{
	if (IsA(node, FuncExpr))
	{
		*funcid = ((FuncExpr *) node)->funcid;
		*args = ((FuncExpr *) node)->args;
	}
	else
	{
		*funcid = ((OpExpr *) node)->opfuncid;
		*args = ((OpExpr *) node)->args;
	}
}

/* the results a CASE can take: each WHEN's, and the ELSE's (none is NULL) */
static List *
case_results(CaseExpr *ce)
{
	List	   *results = NIL;
	ListCell   *lc;

	foreach(lc, ce->args)
		results = lappend(results, lfirst_node(CaseWhen, lc)->result);
	if (ce->defresult)
		results = lappend(results, ce->defresult);
	return results;
}

static bool numeric_scale_of(Node *node, int32 *scale);

/*
 * The typmod of a numeric expression, -1 when it has none: its own, or for
 * a value of a domain over numeric (a column, or the relabeling of one to
 * numeric, whose typmod the parser leaves at -1) the domain's, which the
 * value was coerced to when it was stored.
 */
int32
gpupreagg_numeric_typmod(Node *node)
{
	int32		typmod = exprTypmod(node);
	Oid			typid;

	if (typmod >= 0)
		return typmod;
	if (IsA(node, RelabelType))
		return gpupreagg_numeric_typmod((Node *) ((RelabelType *) node)->arg);
	typid = exprType(node);
	if (typid == NUMERICOID)
		return -1;
	return getBaseTypeAndTypmod(typid, &typmod) == NUMERICOID ? typmod : -1;
}

/* numeric, or a domain over it (the catalog is read only for the latter) */
static bool
is_numeric(Node *node)
{
	Oid			typid;

	if (node == NULL)
		return false;
	typid = exprType(node);
	return typid == NUMERICOID || getBaseType(typid) == NUMERICOID;
}

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
	int32		typmod;

	check_stack_depth();
	if (!is_numeric(node))
		return false;
	/* numeric(p,s), a column or a cast to it: rounded to s */
	typmod = gpupreagg_numeric_typmod(node);
	if (typmod >= (int32) VARHDRSZ)
		return typmod_scale(typmod, scale);

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
			return common_scale(case_results((CaseExpr *) node), scale);
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

		call_parts(node, &funcid, &args);
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
			case F_CEIL_NUMERIC:	/* ceil, ceiling, floor: display scale 0 */
			case F_CEILING_NUMERIC:
			case F_FLOOR_NUMERIC:
				*scale = 0;
				return list_length(args) == 1;
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

/*
 * NumericBound - of every value an expression can take: its display scale
 * is at most smax, and |value| < 10^emax.
 */
typedef struct NumericBound
{
	int32		smax;
	int32		emax;
} NumericBound;

/* past these the bound is useless to the device: give up early */
#define NUMERIC_BOUND_SCALE_MAX		XPU_PREAGG_MAX_NUMV_SCALE
#define NUMERIC_BOUND_DIGITS_MAX	1000

static bool numeric_bound_of(Node *node, NumericBound *b);

/* floor(n / 4) for any sign: the base-10000 weight of 10^n */
static int32
weight_of_pow10(int32 n)
{
	return n >= 0 ? n / 4 : -((3 - n) / 4);
}

static bool
bound_ok(NumericBound *b)
{
	return b->smax >= 0 && b->smax <= NUMERIC_BOUND_SCALE_MAX &&
		b->emax >= 0 && b->emax <= NUMERIC_BOUND_DIGITS_MAX;
}

static bool
typmod_bound(int32 typmod, NumericBound *b)
{
	int32		precision = ((typmod - VARHDRSZ) >> 16) & 0xffff;
	int32		scale = (((typmod - VARHDRSZ) & 0x7ff) ^ 1024) - 1024;

	/* a negative scale rounds to tens, hundreds...: display scale 0 */
	b->smax = Max(scale, 0);
	b->emax = Max(precision - scale, 0);
	return bound_ok(b);
}

/* a non-NULL, finite constant: its own scale and integer digits */
static bool
const_bound(Const *c, NumericBound *b)
{
	Numeric		num = DatumGetNumeric(c->constvalue);
	const char *p;
	int32		digits = 0;

	if (numeric_is_nan(num) || numeric_is_inf(num))
		return false;
	b->smax = DatumGetInt32(DirectFunctionCall1(numeric_scale, c->constvalue));
	p = DatumGetCString(DirectFunctionCall1(numeric_out, c->constvalue));
	if (*p == '-')
		p++;
	for (; *p >= '0' && *p <= '9'; p++)
		digits++;
	b->emax = digits;
	return bound_ok(b);
}

/* the widest bound over args, NULL constants left out (CASE, COALESCE) */
static bool
union_bound(List *args, NumericBound *b)
{
	ListCell   *lc;
	bool		found = false;

	b->smax = 0;
	b->emax = 0;
	foreach(lc, args)
	{
		Node	   *arg = (Node *) lfirst(lc);
		NumericBound ab;

		if (IsA(arg, Const) && ((Const *) arg)->constisnull)
			continue;
		if (!numeric_bound_of(arg, &ab))
			return false;
		b->smax = Max(b->smax, ab.smax);
		b->emax = Max(b->emax, ab.emax);
		found = true;
	}
	return found;
}

/* a / b as numeric_div gives it (select_div_scale) */
static bool
div_bound(const NumericBound *a, const NumericBound *d, NumericBound *b)
{
	/* the dividend's leading weight: of its smallest non-zero value, or 0 */
	int32		w1min = Min(weight_of_pow10(-a->smax), 0);
	/* the divisor's: |d| < 10^emax, so its leading digit is below that */
	int32		w2max = weight_of_pow10(d->emax - 1);
	/* one less where the dividend's first digit is not above the divisor's */
	int32		qweight_min = w1min - w2max - 1;

	b->smax = Max(16 - 4 * qweight_min, Max(a->smax, d->smax));
	/* |a / d| <= |a| / (smallest non-zero |d|), plus rounding's carry */
	b->emax = a->emax + d->smax + 1;
	return bound_ok(b);
}

static bool
numeric_bound_of(Node *node, NumericBound *b)
{
	NumericBound a,
				c;
	int32		typmod;

	check_stack_depth();
	if (!is_numeric(node))
		return false;
	typmod = gpupreagg_numeric_typmod(node);
	if (typmod >= (int32) VARHDRSZ)
		return typmod_bound(typmod, b);

	switch (nodeTag(node))
	{
		case T_Const:
			return !((Const *) node)->constisnull &&
				const_bound((Const *) node, b);
		case T_RelabelType:
			return numeric_bound_of((Node *) ((RelabelType *) node)->arg, b);
		case T_CaseExpr:
			return union_bound(case_results((CaseExpr *) node), b);
		case T_CoalesceExpr:
			return union_bound(((CoalesceExpr *) node)->args, b);
		case T_FuncExpr:
		case T_OpExpr:
			break;
		default:
			return false;
	}

	{
		Oid			funcid;
		List	   *args;

		call_parts(node, &funcid, &args);
		switch (funcid)
		{
			case F_NUMERIC_INT2:
				b->smax = 0;
				b->emax = 5;
				return true;
			case F_NUMERIC_INT4:
				b->smax = 0;
				b->emax = 10;
				return true;
			case F_NUMERIC_INT8:
				b->smax = 0;
				b->emax = 19;
				return true;
			case F_NUMERIC_UMINUS:
			case F_NUMERIC_UPLUS:
			case F_NUMERIC_ABS:
			case F_ABS_NUMERIC:
				return list_length(args) == 1 &&
					numeric_bound_of(linitial(args), b);
			case F_NUMERIC_ADD:
			case F_NUMERIC_SUB:
				if (list_length(args) != 2 ||
					!numeric_bound_of(linitial(args), &a) ||
					!numeric_bound_of(lsecond(args), &c))
					return false;
				b->smax = Max(a.smax, c.smax);
				b->emax = Max(a.emax, c.emax) + 1;
				return bound_ok(b);
			case F_NUMERIC_MUL:
				if (list_length(args) != 2 ||
					!numeric_bound_of(linitial(args), &a) ||
					!numeric_bound_of(lsecond(args), &c))
					return false;
				b->smax = a.smax + c.smax;
				b->emax = a.emax + c.emax;
				return bound_ok(b);
			case F_NUMERIC_DIV:
				if (list_length(args) != 2 ||
					!numeric_bound_of(linitial(args), &a) ||
					!numeric_bound_of(lsecond(args), &c))
					return false;
				return div_bound(&a, &c, b);
			case F_CEIL_NUMERIC:
			case F_CEILING_NUMERIC:
			case F_FLOOR_NUMERIC:
				if (list_length(args) != 1 ||
					!numeric_bound_of(linitial(args), &a))
					return false;
				b->smax = 0;
				b->emax = a.emax + 1;
				return bound_ok(b);
			case F_ROUND_NUMERIC_INT4:
			case F_TRUNC_NUMERIC_INT4:
				{
					Node	   *t = (list_length(args) == 2 ? lsecond(args) : NULL);

					while (t && IsA(t, RelabelType))
						t = (Node *) ((RelabelType *) t)->arg;
					if (t == NULL || !IsA(t, Const) || ((Const *) t)->constisnull ||
						((Const *) t)->consttype != INT4OID ||
						!numeric_bound_of(linitial(args), &a))
						return false;
					b->smax = Max(DatumGetInt32(((Const *) t)->constvalue), 0);
					b->emax = a.emax + 1;
					return bound_ok(b);
				}
			default:
				return false;
		}
	}
}

/*
 * gpupreagg_numeric_scale_bound - a scale S, at most
 * XPU_PREAGG_MAX_NUMV_SCALE, that no value of the numeric aggregate
 * argument's display scales exceeds; false when the form bounds none.
 */
bool
gpupreagg_numeric_scale_bound(Expr *arg, int32 *scale)
{
	NumericBound b;

	if (!numeric_bound_of((Node *) arg, &b))
		return false;
	*scale = b.smax;
	return true;
}
