/*
 * codegen_numeric_cmp.c
 *
 * xPU code generator: a numeric comparison (=, <>, <, <=, >, >=) of which
 * one side is a NaN or infinite constant.
 *
 * The device holds only finite numerics; a NaN or infinite value read from
 * a row, or made by an expression, sends the row to the CPU (RECHECK),
 * which evaluates the original expression.  So on the device the other
 * side is finite or NULL, and PostgreSQL's order (every finite value below
 * NaN and +Infinity, above -Infinity) fixes the comparison's result: true
 * or false, or NULL for NULL.  "x = x" has exactly those results for a
 * finite or NULL x, "x <> x" the opposite ones, and both run on the device.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/lsyscache.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/numeric.h"

#include "codegen/codegen_numeric_cmp.h"

/* the result of "finite op c" for c NaN or +Infinity, the greatest values */
static bool
below_greatest(Oid funcid, bool *result)
{
	switch (funcid)
	{
		case F_NUMERIC_NE:
		case F_NUMERIC_LT:
		case F_NUMERIC_LE:
			*result = true;
			return true;
		case F_NUMERIC_EQ:
		case F_NUMERIC_GT:
		case F_NUMERIC_GE:
			*result = false;
			return true;
		default:
			return false;
	}
}

/* the operator with its sides swapped: "c op x" is "x commuted(op) c" */
static Oid
commuted(Oid funcid)
{
	switch (funcid)
	{
		case F_NUMERIC_LT:
			return F_NUMERIC_GT;
		case F_NUMERIC_LE:
			return F_NUMERIC_GE;
		case F_NUMERIC_GT:
			return F_NUMERIC_LT;
		case F_NUMERIC_GE:
			return F_NUMERIC_LE;
		default:
			return funcid;
	}
}

/* -1 for -Infinity, 1 for NaN or +Infinity, 0 for anything else */
static int
special_constant(Node *arg)
{
	Const	   *c;
	Numeric		num;

	if (!IsA(arg, Const))
		return 0;
	c = (Const *) arg;
	if (c->consttype != NUMERICOID || c->constisnull)
		return 0;
	num = DatumGetNumeric(c->constvalue);
	if (numeric_is_nan(num))
		return 1;
	if (!numeric_is_inf(num))
		return 0;
	return DatumGetInt32(DirectFunctionCall2(numeric_cmp, c->constvalue,
											 DirectFunctionCall1(int4_numeric,
																 Int32GetDatum(0))));
}

/*
 * "x = x" or "x <> x" in place of op, a comparison of x with a NaN or
 * infinite constant; NULL for any other expression.
 */
Expr *
cg_numeric_special_compare(OpExpr *op)
{
	Oid			funcid = OidIsValid(op->opfuncid) ? op->opfuncid : get_opcode(op->opno);
	Node	   *other;
	int			side;
	bool		result;
	OpExpr	   *same;

	if (list_length(op->args) != 2)
		return NULL;
	if ((side = special_constant(lsecond(op->args))) != 0)
		other = linitial(op->args);
	else if ((side = special_constant(linitial(op->args))) != 0)
	{
		other = lsecond(op->args);
		funcid = commuted(funcid);
	}
	else
		return NULL;
	if (special_constant(other) != 0 || !below_greatest(funcid, &result))
		return NULL;
	/* below -Infinity is above the greatest: the opposite, but for <> */
	if (side < 0 && funcid != F_NUMERIC_NE && funcid != F_NUMERIC_EQ)
		result = !result;
	/* only the code generator reads it, by its function */
	same = makeNode(OpExpr);
	same->opfuncid = result ? F_NUMERIC_EQ : F_NUMERIC_NE;
	same->opresulttype = BOOLOID;
	same->args = list_make2(other, copyObject(other));
	same->location = op->location;
	return (Expr *) same;
}
