/*
 * codegen_expr.c
 *
 * xPU code generator: the translation of a PostgreSQL 15 expression tree
 * (as the planner leaves it: constants folded, operators as OpExpr,
 * implicit casts as FuncExpr or RelabelType) into program nodes.  Every
 * node type not handled in cg_emit_expr, and every function not in the
 * function table, is refused.
 */
#include "postgres.h"

#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "parser/scansup.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/datetime.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"
#include "utils/numeric.h"
#include "utils/pg_locale.h"

#include "codegen/codegen_datetime.h"
#include "codegen/codegen_expr.h"
#include "codegen/codegen_functable.h"
#include "codegen/codegen_numeric_cmp.h"
#include "codegen/codegen_program.h"
#include "codegen/codegen_regex.h"
#include "codegen/codegen_text.h"
#include "codegen/codegen_types.h"
#include "codegen/codegen_values.h"
#include "compat/pg_compat.h"

static int	refuse_func(CgContext *ctx, Oid funcid);
static int	emit_num_scale(CgContext *ctx, const CgFuncInfo *f, List *args);
static int	emit_num_integral(CgContext *ctx, const CgFuncInfo *f, Expr *arg);

/* ----------------------------------------------------------------
 * Collations and encodings
 * ----------------------------------------------------------------
 */
bool
cg_collation_is_deterministic(Oid collid)
{
	return OidIsValid(collid) && get_collation_isdeterministic(collid);
}

/*
 * XPU_NODE_LIKE_UTF8 or 0 for LIKE and the character-counting text
 * functions, or -1 when the database encoding is not offered
 */
int
cg_text_encoding_flags(void)
{
	if (GetDatabaseEncoding() == PG_UTF8)
		return XPU_NODE_LIKE_UTF8;
	if (pg_database_encoding_max_length() == 1)
		return 0;
	return -1;
}

static inline bool
xtype_is_text(int t)
{
	return t == XPU_TYPE_TEXT || t == XPU_TYPE_VARCHAR || t == XPU_TYPE_BPCHAR;
}

/* ----------------------------------------------------------------
 * Function application on nodes that already exist
 * ----------------------------------------------------------------
 */
int
cg_check_arg_type(CgContext *ctx, const CgFuncInfo *f, int idx, int declared)
{
	if (idx < 0)
		return idx;
	if (ctx->nodes[idx].restype != declared)
		return cg_refuse(ctx, "argument of %s is %s, expected %s",
						 cg_func_name(f),
						 cg_xtype_name(ctx->nodes[idx].restype),
						 cg_xtype_name(declared));
	return idx;
}

/*
 * Applies a CMP, ARITH, UNARY, NOOP, CAST, DATE or LIKE function to nodes
 * a1 (and a2).  inputcollid is the expression's input collation.
 */
static int
apply_func(CgContext *ctx, const CgFuncInfo *f, Oid inputcollid,
		   int a1, int a2)
{
	int			argv[2];
	uint16		flags = 0;

	if (a1 < 0 || a2 < 0)
		return -1;
	a1 = cg_check_arg_type(ctx, f, a1, f->arg1);
	if (f->arg2 != XPU_TYPE_INVALID)
		a2 = cg_check_arg_type(ctx, f, a2, f->arg2);
	if (a1 < 0 || a2 < 0)
		return -1;

	switch ((CgFuncKind) f->kind)
	{
		case FK_CMP:
			if (f->flags & FF_ZONED)
			{
				argv[0] = cg_emit_as_timestamptz(ctx, a1);
				argv[1] = cg_emit_as_timestamptz(ctx, a2);
				if (argv[0] < 0 || argv[1] < 0)
					return -1;
				return cg_add_node(ctx, f->opcode, f->restype, 0, 0, 2, argv);
			}
			if (xtype_is_text(f->optype))
			{
				if (f->flags & FF_PATTERN)
					flags |= XPU_NODE_TEXT_BYTEWISE;
				else if (f->opcode == XPU_OP_EQ || f->opcode == XPU_OP_NE)
				{
					if (!cg_collation_is_deterministic(inputcollid))
						return cg_refuse(ctx, "text equality under a non-deterministic collation");
				}
				else
				{
					if (!pgstrom_collation_is_c(inputcollid))
						return cg_refuse(ctx, "text ordering under a collation other than \"C\"");
					flags |= XPU_NODE_TEXT_BYTEWISE;
				}
			}
			/* FALLTHROUGH */
		case FK_ARITH:
			argv[0] = cg_coerce(ctx, a1, f->optype);
			argv[1] = cg_coerce(ctx, a2, f->optype);
			return cg_add_node(ctx, f->opcode, f->restype, flags, 0, 2, argv);

		case FK_UNARY:
			return cg_add_node(ctx, f->opcode, f->restype, 0, 0, 1, &a1);

		case FK_NOOP:
			return a1;

		case FK_CAST:
			return cg_coerce(ctx, a1, f->restype);

		case FK_DATE:
			argv[0] = a1;
			argv[1] = a2;
			return cg_add_node(ctx, f->opcode, f->restype, 0, 0, 2, argv);

		case FK_DATE_SWAP:
			argv[0] = a2;
			argv[1] = a1;
			return cg_add_node(ctx, f->opcode, f->restype, 0, 0, 2, argv);

		case FK_LIKE:
			{
				int			enc = cg_text_encoding_flags();
				XpuNode    *pat = &ctx->nodes[a2];

				if (enc < 0)
					return cg_refuse(ctx, "LIKE is not supported on the device in encoding \"%s\"",
									 GetDatabaseEncodingName());
				if (OidIsValid(inputcollid) &&
					!get_collation_isdeterministic(inputcollid))
					return cg_refuse(ctx, "LIKE under a non-deterministic collation");
				if (pat->opcode != XPU_OP_CONST)
					return cg_refuse(ctx, "LIKE pattern is not a constant");

				/*
				 * ILIKE lowers text and pattern with the collation's ctype:
				 * ASCII letters alone under "C", as the device does
				 */
				if (f->flags & FF_ICASE)
				{
					if (!pgstrom_collation_ctype_is_c(inputcollid))
						return cg_refuse(ctx, "ILIKE under a collation whose ctype is not \"C\"");
					enc |= XPU_NODE_LIKE_ICASE;
				}
				/* textlike is strict: NULL pattern, NULL result */
				if (pat->flags & XPU_NODE_CONST_NULL)
					return cg_add_node(ctx, XPU_OP_CONST, XPU_TYPE_BOOL,
									   XPU_NODE_CONST_NULL, 0, 0, NULL);
				argv[0] = a1;
				argv[1] = a2;
				return cg_add_node(ctx, f->opcode, XPU_TYPE_BOOL, (uint16) enc,
								   0, 2, argv);
			}

		case FK_ZONE:
			return cg_emit_zone_shift(ctx, f, cg_coerce(ctx, a1, f->optype));

		case FK_EXTRACT:
		case FK_DATE_TRUNC:
		case FK_NUM_SCALE:
		case FK_NUM_INTEGRAL:
		case FK_TEXT:
		case FK_TO_TEXT:
		case FK_TO_CHAR:
		case FK_INTERVAL:
			break;				/* handled by emit_func */
	}
	return cg_refuse(ctx, "function %s cannot be applied here", cg_func_name(f));
}

/* ----------------------------------------------------------------
 * Expressions
 * ----------------------------------------------------------------
 */

/*
 * A Const, Param or statement constant (possibly under RelabelType) as a
 * CONST node of type xtype; other expressions as usual.  Used for LIKE
 * patterns, which must be CONST TEXT nodes, and to encode varchar/text
 * constants without a CAST node.
 */
static int
emit_maybe_const(CgContext *ctx, Expr *expr, XpuType xtype)
{
	Expr	   *e = expr;
	XpuType		t;

	while (IsA(e, RelabelType))
		e = ((RelabelType *) e)->arg;
	t = cg_xtype_of_oid(exprType((Node *) e));
	if (t == xtype ||
		(xtype == XPU_TYPE_TEXT && t == XPU_TYPE_VARCHAR) ||
		(xtype == XPU_TYPE_VARCHAR && t == XPU_TYPE_TEXT))
	{
		if (IsA(e, Const))
		{
			Const	   *c = (Const *) e;

			return cg_emit_const(ctx, xtype, c->consttype,
								 c->constvalue, c->constisnull);
		}
		if (IsA(e, Param))
			return cg_emit_param(ctx, (Param *) e, xtype);
		if (cg_is_statement_constant(e))
			return cg_emit_statement_constant(ctx, e, xtype);
	}
	return cg_emit_expr(ctx, expr);
}

static int
emit_func(CgContext *ctx, Oid funcid, Oid inputcollid, Oid rettype, List *args)
{
	const CgFuncInfo *f = cg_lookup_func(funcid);
	int			nargs = list_length(args);
	int			a1;
	int			a2 = 0;

	if (f == NULL)
		return refuse_func(ctx, funcid);
	if (f->kind == FK_TEXT && cg_xtype_of_oid(rettype) == f->restype)
		return cg_emit_text_func(ctx, f, inputcollid, args);
	if (f->kind == FK_TO_TEXT && nargs == 1)
		return cg_emit_to_text(ctx, linitial(args), exprType(linitial(args)), rettype);
	/* the interval is an argument the device has no type for */
	if (f->kind == FK_INTERVAL && nargs == 2 &&
		cg_xtype_of_oid(rettype) == f->restype)
		return cg_emit_interval_shift(ctx, f, args);
	if (nargs != (f->arg2 != XPU_TYPE_INVALID ? 2 : 1) ||
		cg_xtype_of_oid(rettype) != f->restype)
		return cg_refuse(ctx, "unexpected signature of function %s", cg_func_name(f));

	switch ((CgFuncKind) f->kind)
	{
		case FK_EXTRACT:
			return cg_emit_extract(ctx, f, args);
		case FK_DATE_TRUNC:
			return cg_emit_date_trunc(ctx, f, args);
		case FK_NUM_SCALE:
			return emit_num_scale(ctx, f, args);
		case FK_NUM_INTEGRAL:
			return emit_num_integral(ctx, f, linitial(args));
		case FK_TO_CHAR:
			return cg_emit_to_char(ctx, f, args);
		case FK_LIKE:
			{
				Expr	   *pattern = lsecond(args);
				char	   *reason;

				if ((f->flags & FF_REGEX) &&
					(pattern = cg_regex_as_like(pattern, &reason)) == NULL)
					return cg_refuse(ctx, "%s", reason);
				a1 = cg_emit_expr(ctx, linitial(args));
				a2 = emit_maybe_const(ctx, pattern, XPU_TYPE_TEXT);
			}
			break;
		default:
			a1 = cg_emit_expr(ctx, linitial(args));
			if (nargs == 2)
				a2 = cg_emit_expr(ctx, lsecond(args));
			break;
	}
	return apply_func(ctx, f, inputcollid, a1, a2);
}

/*
 * round(numeric, int4) / trunc(numeric, int4): the scale must be a
 * constant, so that the node's result scale is known where it is summed
 * (gpupreagg_numeric.c).  Clamped as numeric_round clamps it.
 */
static int
emit_num_scale(CgContext *ctx, const CgFuncInfo *f, List *args)
{
	Node	   *scale = (Node *) lsecond(args);
	int32		s;
	int			a1;

	while (IsA(scale, RelabelType))
		scale = (Node *) ((RelabelType *) scale)->arg;
	if (!IsA(scale, Const) || ((Const *) scale)->consttype != INT4OID)
		return cg_refuse(ctx, "%s with a scale that is not a constant", cg_func_name(f));
	/* strict: a NULL scale gives NULL */
	if (((Const *) scale)->constisnull)
		return cg_add_node(ctx, XPU_OP_CONST, XPU_TYPE_NUMERIC,
						   XPU_NODE_CONST_NULL, 0, 0, NULL);
	s = DatumGetInt32(((Const *) scale)->constvalue);
	s = Max(s, -NUMERIC_MAX_RESULT_SCALE);
	s = Min(s, NUMERIC_MAX_RESULT_SCALE);
	a1 = cg_emit_expr(ctx, linitial(args));
	if (a1 < 0)
		return a1;
	return cg_add_node(ctx, f->opcode, XPU_TYPE_NUMERIC, 0, s, 1, &a1);
}

/*
 * ceil(numeric) and floor(numeric) as ceil_var and floor_var compute them:
 * the value truncated to scale 0, plus one where the value is above it
 * (ceil), minus one where below (floor).  NaN and the infinities are
 * their own truncation, and equal to it.
 */
static int
emit_num_integral(CgContext *ctx, const CgFuncInfo *f, Expr *arg)
{
	bool		is_floor = (f->flags & FF_NEGATE) != 0;
	int			x = cg_check_arg_type(ctx, f, cg_emit_expr(ctx, arg), XPU_TYPE_NUMERIC);
	int			pair[2];
	int			argv[3];

	if (x < 0)
		return -1;
	pair[0] = x;
	pair[1] = cg_add_node(ctx, f->opcode, XPU_TYPE_NUMERIC, 0, 0, 1, &x);
	argv[0] = cg_add_node(ctx, is_floor ? XPU_OP_LT : XPU_OP_GT, XPU_TYPE_BOOL,
						  0, 0, 2, pair);
	argv[2] = pair[1];
	pair[0] = pair[1];
	pair[1] = cg_emit_const(ctx, XPU_TYPE_NUMERIC, NUMERICOID,
							NumericGetDatum(int64_to_numeric(1)), false);
	argv[1] = cg_add_node(ctx, is_floor ? XPU_OP_SUB : XPU_OP_ADD,
						  XPU_TYPE_NUMERIC, 0, 0, 2, pair);
	/* cg_add_node passes on a refused argument's -1 */
	return cg_add_node(ctx, XPU_OP_CASE, XPU_TYPE_NUMERIC, 0, 0, 3, argv);
}

static int
refuse_func(CgContext *ctx, Oid funcid)
{
	char	   *name = get_func_name(funcid);

	return cg_refuse(ctx, "function %s (oid %u) is not supported on the device",
					 name ? name : "???", funcid);
}

/*
 * x op ANY(array) / x op ALL(array) as an OR / AND of comparisons, the
 * scalar evaluated once.  Three-valued OR/AND give exactly ANY/ALL's
 * results, NULL elements included.
 */
static int
emit_scalar_array_op(CgContext *ctx, ScalarArrayOpExpr *saop)
{
	Oid			funcid = OidIsValid(saop->opfuncid) ? saop->opfuncid : get_opcode(saop->opno);
	const CgFuncInfo *f = cg_lookup_func(funcid);
	Expr	   *arrexpr;
	int			scalar;
	int		   *items;
	int			nitems = 0;
	int			i;
	int			result;

	if (f == NULL)
		return refuse_func(ctx, funcid);
	if ((f->kind != FK_CMP && f->kind != FK_LIKE) || (f->flags & FF_REGEX) ||
		list_length(saop->args) != 2)
		return cg_refuse(ctx, "%s is not supported in ANY/ALL", cg_func_name(f));
	arrexpr = lsecond(saop->args);
	while (IsA(arrexpr, RelabelType))
		arrexpr = ((RelabelType *) arrexpr)->arg;

	if (IsA(arrexpr, Const))
	{
		Const	   *c = (Const *) arrexpr;
		Oid			elemtype;
		XpuType		xelem;
		int16		elmlen;
		bool		elmbyval;
		char		elmalign;
		Datum	   *values;
		bool	   *nulls;
		ArrayType  *arr;

		if (c->constisnull)
			return cg_refuse(ctx, "NULL array in ANY/ALL");
		arr = DatumGetArrayTypeP(c->constvalue);
		elemtype = ARR_ELEMTYPE(arr);
		xelem = cg_xtype_of_oid(elemtype);
		if (xelem == XPU_TYPE_INVALID)
			return cg_refuse(ctx, "array of type %s is not supported",
							 format_type_be(elemtype));
		if (ArrayGetNItems(ARR_NDIM(arr), ARR_DIMS(arr)) > CODEGEN_MAX_ARRAY_ELEMS)
			return cg_refuse(ctx, "array of more than %d elements in ANY/ALL",
							 CODEGEN_MAX_ARRAY_ELEMS);
		get_typlenbyvalalign(elemtype, &elmlen, &elmbyval, &elmalign);
		deconstruct_array(arr, elemtype, elmlen, elmbyval, elmalign,
						  &values, &nulls, &nitems);
		if (nitems == 0)		/* empty: FALSE for ANY, TRUE for ALL */
			return cg_emit_const(ctx, XPU_TYPE_BOOL, BOOLOID,
								 BoolGetDatum(!saop->useOr), false);

		scalar = cg_emit_expr(ctx, linitial(saop->args));
		if (scalar < 0)
			return -1;
		items = palloc(sizeof(int) * nitems);
		for (i = 0; i < nitems; i++)
		{
			int			elem = cg_emit_const(ctx, xelem, elemtype,
											 values[i], nulls[i]);

			items[i] = apply_func(ctx, f, saop->inputcollid, scalar, elem);
			if (items[i] < 0)
				return -1;
		}
	}
	else if (IsA(arrexpr, ArrayExpr) && !((ArrayExpr *) arrexpr)->multidims)
	{
		ArrayExpr  *ae = (ArrayExpr *) arrexpr;
		ListCell   *lc;

		nitems = list_length(ae->elements);
		if (nitems > CODEGEN_MAX_ARRAY_ELEMS)
			return cg_refuse(ctx, "array of more than %d elements in ANY/ALL",
							 CODEGEN_MAX_ARRAY_ELEMS);
		if (nitems == 0)
			return cg_emit_const(ctx, XPU_TYPE_BOOL, BOOLOID,
								 BoolGetDatum(!saop->useOr), false);
		scalar = cg_emit_expr(ctx, linitial(saop->args));
		if (scalar < 0)
			return -1;
		items = palloc(sizeof(int) * nitems);
		i = 0;
		foreach(lc, ae->elements)
		{
			int			elem = emit_maybe_const(ctx, lfirst(lc), f->arg2);

			items[i] = apply_func(ctx, f, saop->inputcollid, scalar, elem);
			if (items[i++] < 0)
				return -1;
		}
	}
	else
		return cg_refuse(ctx, "ANY/ALL over an array that is not a constant");

	if (nitems == 1)
		result = items[0];
	else
		result = cg_add_node(ctx, saop->useOr ? XPU_OP_OR : XPU_OP_AND,
							 XPU_TYPE_BOOL, 0, 0, nitems, items);
	pfree(items);
	return result;
}

static int
emit_bool_args(CgContext *ctx, List *args, int *argv)
{
	ListCell   *lc;
	int			n = 0;

	foreach(lc, args)
	{
		int			idx = cg_emit_expr(ctx, lfirst(lc));

		if (idx < 0)
			return -1;
		if (ctx->nodes[idx].restype != XPU_TYPE_BOOL)
			return cg_refuse(ctx, "boolean operator over a non-boolean argument");
		argv[n++] = idx;
	}
	return n;
}

static int
emit_case(CgContext *ctx, CaseExpr *ce)
{
	XpuType		restype = cg_xtype_of_oid(ce->casetype);
	int			saved_case_test = ctx->case_test_node;
	int		   *argv;
	int			n = 0;
	ListCell   *lc;

	if (restype == XPU_TYPE_INVALID)
		return cg_refuse(ctx, "CASE of type %s is not supported",
						 format_type_be(ce->casetype));
	argv = palloc(sizeof(int) * (2 * list_length(ce->args) + 1));
	if (ce->arg)
	{
		/* simple CASE: the argument once, CaseTestExpr refers to it */
		int			arg = cg_emit_expr(ctx, ce->arg);

		if (arg < 0)
			return -1;
		ctx->case_test_node = arg;
	}
	foreach(lc, ce->args)
	{
		CaseWhen   *cw = lfirst_node(CaseWhen, lc);
		int			cond = cg_emit_expr(ctx, cw->expr);
		int			val;

		if (cond < 0)
			return -1;
		if (ctx->nodes[cond].restype != XPU_TYPE_BOOL)
			return cg_refuse(ctx, "CASE condition is not boolean");
		val = cg_coerce(ctx, cg_emit_expr(ctx, cw->result), restype);
		if (val < 0)
			return -1;
		argv[n++] = cond;
		argv[n++] = val;
	}
	ctx->case_test_node = saved_case_test;
	if (n == 0)
		return cg_refuse(ctx, "CASE without WHEN");
	if (ce->defresult)
		argv[n] = cg_coerce(ctx, cg_emit_expr(ctx, ce->defresult), restype);
	else
		argv[n] = cg_emit_const(ctx, restype, ce->casetype, (Datum) 0, true);
	if (argv[n] < 0)
		return -1;
	n++;
	return cg_add_node(ctx, XPU_OP_CASE, restype, 0, 0, n, argv);
}

static int
emit_coalesce(CgContext *ctx, CoalesceExpr *ce)
{
	XpuType		restype = cg_xtype_of_oid(ce->coalescetype);
	int		   *argv;
	int			n = 0;
	ListCell   *lc;

	if (restype == XPU_TYPE_INVALID)
		return cg_refuse(ctx, "COALESCE of type %s is not supported",
						 format_type_be(ce->coalescetype));
	if (list_length(ce->args) < 1)
		return cg_refuse(ctx, "COALESCE without arguments");
	argv = palloc(sizeof(int) * list_length(ce->args));
	foreach(lc, ce->args)
	{
		argv[n] = cg_coerce(ctx, cg_emit_expr(ctx, lfirst(lc)), restype);
		if (argv[n++] < 0)
			return -1;
	}
	return cg_add_node(ctx, XPU_OP_COALESCE, restype, 0, 0, n, argv);
}

/* the equality of a DistinctExpr or NullIfExpr over its emitted a and b */
static int
emit_equality(CgContext *ctx, OpExpr *op, int a, int b)
{
	Oid			funcid = OidIsValid(op->opfuncid) ? op->opfuncid : get_opcode(op->opno);
	const CgFuncInfo *f = cg_lookup_func(funcid);

	if (f == NULL)
		return refuse_func(ctx, funcid);
	if (f->kind != FK_CMP || f->opcode != XPU_OP_EQ)
		return cg_refuse(ctx, "IS DISTINCT FROM or NULLIF over an operator other than equality");
	return apply_func(ctx, f, op->inputcollid, a, b);
}

/*
 * a IS DISTINCT FROM b, as
 *	CASE WHEN a IS NULL THEN b IS NOT NULL WHEN b IS NULL THEN true
 *		 ELSE NOT (a = b) END
 */
static int
emit_distinct(CgContext *ctx, DistinctExpr *de)
{
	int			a;
	int			b;
	int			eq;
	int			argv[5];
	int			i;

	if (list_length(de->args) != 2)
		return cg_refuse(ctx, "IS DISTINCT FROM with %d arguments", list_length(de->args));
	a = cg_emit_expr(ctx, linitial(de->args));
	b = cg_emit_expr(ctx, lsecond(de->args));
	if (a < 0 || b < 0 || (eq = emit_equality(ctx, de, a, b)) < 0)
		return -1;
	argv[0] = cg_add_node(ctx, XPU_OP_IS_NULL, XPU_TYPE_BOOL, 0, 0, 1, &a);
	argv[1] = cg_add_node(ctx, XPU_OP_IS_NOT_NULL, XPU_TYPE_BOOL, 0, 0, 1, &b);
	argv[2] = cg_add_node(ctx, XPU_OP_IS_NULL, XPU_TYPE_BOOL, 0, 0, 1, &b);
	argv[3] = cg_emit_const(ctx, XPU_TYPE_BOOL, BOOLOID, BoolGetDatum(true), false);
	argv[4] = cg_add_node(ctx, XPU_OP_NOT, XPU_TYPE_BOOL, 0, 0, 1, &eq);
	for (i = 0; i < 5; i++)
	{
		if (argv[i] < 0)
			return -1;
	}
	return cg_add_node(ctx, XPU_OP_CASE, XPU_TYPE_BOOL, 0, 0, 5, argv);
}

/* NULLIF(a, b), as CASE WHEN a = b THEN NULL ELSE a END */
static int
emit_nullif(CgContext *ctx, NullIfExpr *ne)
{
	XpuType		restype = cg_xtype_of_oid(ne->opresulttype);
	int			a;
	int			b;
	int			argv[3];

	if (restype == XPU_TYPE_INVALID)
		return cg_refuse(ctx, "NULLIF of type %s is not supported",
						 format_type_be(ne->opresulttype));
	if (list_length(ne->args) != 2)
		return cg_refuse(ctx, "NULLIF with %d arguments", list_length(ne->args));
	a = cg_coerce(ctx, cg_emit_expr(ctx, linitial(ne->args)), restype);
	b = cg_emit_expr(ctx, lsecond(ne->args));
	if (a < 0 || b < 0 || (argv[0] = emit_equality(ctx, ne, a, b)) < 0)
		return -1;
	argv[1] = cg_emit_const(ctx, restype, ne->opresulttype, (Datum) 0, true);
	argv[2] = a;
	if (argv[1] < 0)
		return -1;
	return cg_add_node(ctx, XPU_OP_CASE, restype, 0, 0, 3, argv);
}

/*
 * GREATEST(a, b, ...) and LEAST(...) as ExecEvalMinMax computes them: the
 * NULLs left out, and a later value taken only where the type's btree
 * order puts it strictly above (below) the one so far:
 *
 *	acc' = CASE WHEN x IS NULL THEN acc WHEN acc IS NULL THEN x
 *				WHEN x > acc THEN x ELSE acc END
 */
static int
emit_minmax(CgContext *ctx, MinMaxExpr *mm)
{
	XpuType		restype = cg_xtype_of_oid(mm->minmaxtype);
	TypeCacheEntry *tce;
	Oid			cmp_opr;
	const CgFuncInfo *f;
	int			acc = -1;
	ListCell   *lc;

	if (restype == XPU_TYPE_INVALID)
		return cg_refuse(ctx, "GREATEST or LEAST of type %s is not supported",
						 format_type_be(mm->minmaxtype));
	tce = lookup_type_cache(mm->minmaxtype, TYPECACHE_GT_OPR | TYPECACHE_LT_OPR);
	cmp_opr = (mm->op == IS_GREATEST) ? tce->gt_opr : tce->lt_opr;
	if (!OidIsValid(cmp_opr))
		return cg_refuse(ctx, "GREATEST or LEAST of a type without a btree order");
	f = cg_lookup_func(get_opcode(cmp_opr));
	if (f == NULL || f->kind != FK_CMP)
		return refuse_func(ctx, get_opcode(cmp_opr));
	foreach(lc, mm->args)
	{
		int			x = cg_coerce(ctx, cg_emit_expr(ctx, lfirst(lc)), restype);
		int			argv[7];

		if (x < 0)
			return -1;
		if (acc < 0)
		{
			acc = x;
			continue;
		}
		argv[0] = cg_add_node(ctx, XPU_OP_IS_NULL, XPU_TYPE_BOOL, 0, 0, 1, &x);
		argv[1] = acc;
		argv[2] = cg_add_node(ctx, XPU_OP_IS_NULL, XPU_TYPE_BOOL, 0, 0, 1, &acc);
		argv[3] = x;
		argv[4] = apply_func(ctx, f, mm->inputcollid, x, acc);
		argv[5] = x;
		argv[6] = acc;
		/* a node refused above makes this one -1 too */
		acc = cg_add_node(ctx, XPU_OP_CASE, restype, 0, 0, 7, argv);
		if (acc < 0)
			return -1;
	}
	return acc;
}

/*
 * Appends the nodes of expr; returns the index of its value's node, or -1
 * with ctx->refused set.
 */
int
cg_emit_expr(CgContext *ctx, Expr *expr)
{
	check_stack_depth();

	if (expr == NULL)
		return cg_refuse(ctx, "NULL expression");
	if (cg_is_statement_constant(expr))
		return cg_emit_statement_constant(ctx, expr,
										  cg_xtype_of_oid(exprType((Node *) expr)));

	switch (nodeTag(expr))
	{
		case T_Var:
			return cg_emit_var(ctx, (Var *) expr);

		case T_Const:
			{
				Const	   *c = (Const *) expr;
				XpuType		xtype = cg_xtype_of_oid(c->consttype);

				if (xtype == XPU_TYPE_INVALID)
					return cg_refuse(ctx, "constant of type %s is not supported",
									 format_type_be(c->consttype));
				return cg_emit_const(ctx, xtype, c->consttype,
									 c->constvalue, c->constisnull);
			}

		case T_Param:
			{
				Param	   *p = (Param *) expr;
				XpuType		xtype = cg_xtype_of_oid(p->paramtype);

				if (p->paramkind != PARAM_EXTERN)
					return cg_refuse(ctx, "only external parameters are supported");
				if (xtype == XPU_TYPE_INVALID)
					return cg_refuse(ctx, "parameter of type %s is not supported",
									 format_type_be(p->paramtype));
				return cg_emit_param(ctx, p, xtype);
			}

		case T_OpExpr:
			{
				OpExpr	   *op = (OpExpr *) expr;
				Oid			funcid = OidIsValid(op->opfuncid) ? op->opfuncid : get_opcode(op->opno);
				Expr	   *same;

				if (op->opretset)
					return cg_refuse(ctx, "set-returning operator");
				if ((same = cg_numeric_special_compare(op)) != NULL)
					return cg_emit_expr(ctx, same);
				return emit_func(ctx, funcid, op->inputcollid,
								 op->opresulttype, op->args);
			}

		case T_FuncExpr:
			{
				FuncExpr   *fe = (FuncExpr *) expr;

				if (fe->funcretset)
					return cg_refuse(ctx, "set-returning function");
				if (fe->funcid == F_CONCAT)
					return cg_emit_concat(ctx, fe);
				if (fe->funcid == F_CONCAT_WS)
					return cg_emit_concat_ws(ctx, fe);
				return emit_func(ctx, fe->funcid, fe->inputcollid,
								 fe->funcresulttype, fe->args);
			}

		case T_RelabelType:
			{
				RelabelType *r = (RelabelType *) expr;
				XpuType		xtype = cg_xtype_of_oid(r->resulttype);

				if (xtype == XPU_TYPE_INVALID)
					return cg_refuse(ctx, "type %s is not supported",
									 format_type_be(r->resulttype));
				/* varchar <-> text: a CAST, or nothing for constants */
				return cg_coerce(ctx, emit_maybe_const(ctx, r->arg, xtype), xtype);
			}

		case T_BoolExpr:
			{
				BoolExpr   *b = (BoolExpr *) expr;
				int		   *argv = palloc(sizeof(int) * Max(list_length(b->args), 1));
				int			n = emit_bool_args(ctx, b->args, argv);

				if (n < 0)
					return -1;
				switch (b->boolop)
				{
					case AND_EXPR:
					case OR_EXPR:
						if (n < 2)
							return n == 1 ? argv[0] : cg_refuse(ctx, "empty AND/OR");
						return cg_add_node(ctx, b->boolop == AND_EXPR ? XPU_OP_AND : XPU_OP_OR,
										   XPU_TYPE_BOOL, 0, 0, n, argv);
					case NOT_EXPR:
						if (n != 1)
							return cg_refuse(ctx, "NOT with %d arguments", n);
						return cg_add_node(ctx, XPU_OP_NOT, XPU_TYPE_BOOL, 0, 0, 1, argv);
				}
				return cg_refuse(ctx, "unknown boolean operator");
			}

		case T_NullTest:
			{
				NullTest   *nt = (NullTest *) expr;
				int			arg;

				if (nt->argisrow || type_is_rowtype(exprType((Node *) nt->arg)))
					return cg_refuse(ctx, "IS NULL on a row");
				arg = cg_emit_expr(ctx, nt->arg);
				return cg_add_node(ctx, nt->nulltesttype == IS_NULL ? XPU_OP_IS_NULL : XPU_OP_IS_NOT_NULL,
								   XPU_TYPE_BOOL, 0, 0, 1, &arg);
			}

		case T_BooleanTest:
			{
				BooleanTest *bt = (BooleanTest *) expr;
				int			arg = cg_emit_expr(ctx, bt->arg);
				XpuOpcode	opcode = XPU_OP_INVALID;

				if (arg < 0)
					return -1;
				if (ctx->nodes[arg].restype != XPU_TYPE_BOOL)
					return cg_refuse(ctx, "boolean test on a non-boolean");
				switch (bt->booltesttype)
				{
					case IS_TRUE:
						opcode = XPU_OP_IS_TRUE;
						break;
					case IS_NOT_TRUE:
						opcode = XPU_OP_IS_NOT_TRUE;
						break;
					case IS_FALSE:
						opcode = XPU_OP_IS_FALSE;
						break;
					case IS_NOT_FALSE:
						opcode = XPU_OP_IS_NOT_FALSE;
						break;
					case IS_UNKNOWN:
						opcode = XPU_OP_IS_UNKNOWN;
						break;
					case IS_NOT_UNKNOWN:
						opcode = XPU_OP_IS_NOT_UNKNOWN;
						break;
				}
				if (opcode == XPU_OP_INVALID)
					return cg_refuse(ctx, "unknown boolean test");
				return cg_add_node(ctx, opcode, XPU_TYPE_BOOL, 0, 0, 1, &arg);
			}

		case T_RestrictInfo:
			return cg_emit_expr(ctx, ((RestrictInfo *) expr)->clause);

		case T_CaseExpr:
			return emit_case(ctx, (CaseExpr *) expr);

		case T_CaseTestExpr:
			{
				CaseTestExpr *ct = (CaseTestExpr *) expr;

				if (ctx->case_test_node < 0)
					return cg_refuse(ctx, "CaseTestExpr outside a simple CASE");
				if (cg_xtype_of_oid(ct->typeId) != ctx->nodes[ctx->case_test_node].restype)
					return cg_refuse(ctx, "CaseTestExpr of an unexpected type");
				return ctx->case_test_node;
			}

		case T_CoalesceExpr:
			return emit_coalesce(ctx, (CoalesceExpr *) expr);

		case T_MinMaxExpr:
			return emit_minmax(ctx, (MinMaxExpr *) expr);

		case T_ScalarArrayOpExpr:
			return emit_scalar_array_op(ctx, (ScalarArrayOpExpr *) expr);

		case T_SubLink:
		case T_SubPlan:
		case T_AlternativeSubPlan:
			return cg_refuse(ctx, "sub-queries are not supported on the device");
		case T_Aggref:
		case T_WindowFunc:
		case T_GroupingFunc:
			return cg_refuse(ctx, "aggregate and window functions are not supported on the device");
		case T_RowCompareExpr:
		case T_RowExpr:
			return cg_refuse(ctx, "row expressions are not supported on the device");
		case T_DistinctExpr:
			return emit_distinct(ctx, (DistinctExpr *) expr);
		case T_NullIfExpr:
			return emit_nullif(ctx, (NullIfExpr *) expr);
		case T_CoerceViaIO:
			{
				CoerceViaIO *io = (CoerceViaIO *) expr;

				/* boolout's "t"/"f" are not what booltext prints */
				if (cg_xtype_of_oid(exprType((Node *) io->arg)) == XPU_TYPE_BOOL)
					return cg_refuse(ctx, "this type coercion is not supported on the device");
				return cg_emit_to_text(ctx, io->arg, exprType((Node *) io->arg),
									   io->resulttype);
			}
		case T_ArrayCoerceExpr:
		case T_CoerceToDomain:
		case T_ConvertRowtypeExpr:
			return cg_refuse(ctx, "this type coercion is not supported on the device");
		default:
			break;
	}
	return cg_refuse(ctx, "expression node of type %d is not supported on the device",
					 (int) nodeTag(expr));
}

/*
 * Emits the device quals (an implicitly-ANDed list) and makes of them the
 * program's root: their AND, the single qual, or a CONST true when there
 * are none.  The kernel wants the root to be the last node and above every
 * node the caller already emitted for its own use (the highest is
 * max_used, -1 for none).  A single qual or the CONST true may have been
 * merged into such a node (a join key, a FILTER), so it is re-rooted with
 * IS TRUE, which accepts the same rows.  Returns the root, or -1 with
 * ctx->refused set.
 */
int
cg_emit_quals_root(CgContext *ctx, List *quals, int max_used)
{
	int			nquals = list_length(quals);
	int		   *roots = palloc(sizeof(int) * Max(nquals, 1));
	int			root;
	int			i = 0;
	ListCell   *lc;

	foreach(lc, quals)
	{
		roots[i] = cg_emit_expr(ctx, (Expr *) lfirst(lc));
		if (roots[i] < 0)
			return -1;
		if (ctx->nodes[roots[i]].restype != XPU_TYPE_BOOL)
			return cg_refuse(ctx, "qual is not of type boolean");
		i++;
	}
	if (nquals > 1)
		root = cg_add_root_node(ctx, XPU_OP_AND, nquals, roots);
	else
	{
		root = (nquals == 1) ? roots[0] :
			cg_emit_const(ctx, XPU_TYPE_BOOL, BOOLOID, BoolGetDatum(true), false);
		if (root >= 0 && (root != ctx->nnodes - 1 || root <= max_used))
			root = cg_add_root_node(ctx, XPU_OP_IS_TRUE, 1, &root);
	}
	pfree(roots);
	Assert(root < 0 || (root == ctx->nnodes - 1 && root > max_used));
	return root;
}
