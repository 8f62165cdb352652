/*
 * codegen_text.c
 *
 * xPU code generator: the text functions.  Most results are parts of an
 * argument's bytes, so the device needs no memory for them.  Those that
 * count characters do so in UTF8 and single-byte encodings only, where a
 * character's bytes are known without the encoding's tables; position and
 * starts_with compare bytes, which is PostgreSQL's answer under a
 * deterministic collation only.  A bpchar argument is first cast to text
 * (trailing spaces removed), as PostgreSQL's bpchar length does and its
 * implicit cast to text gives the text functions.
 *
 * lower, upper, reverse, replace, text || text and the casts to text make
 * new bytes, which the device writes into scratch space of the evaluating
 * thread (cg_assign_scratch gives each such node its region when the
 * message is assembled).  lower and upper run there only under a collation
 * whose ctype is C, where PostgreSQL maps the ASCII letters alone, byte by
 * byte, in every server encoding; reverse counts characters as the
 * functions above do, and replace compares bytes as position does.  A cast
 * to text prints as the type's output function (or, for bool, booltext)
 * does; dates and timestamps only under DateStyle ISO, the default, read
 * when the program is built.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"

#include "codegen/codegen.h"
#include "codegen/codegen_expr.h"
#include "codegen/codegen_text.h"
#include "codegen/codegen_to_char.h"
#include "codegen/codegen_types.h"
#include "codegen/codegen_values.h"
#include "compat/pg_compat.h"

/* the opcodes whose results depend on where characters begin */
static bool
counts_characters(int opcode)
{
	return opcode == XPU_OP_SUBSTR || opcode == XPU_OP_CHAR_LENGTH ||
		opcode == XPU_OP_STRPOS || opcode == XPU_OP_LEFT ||
		opcode == XPU_OP_RIGHT || opcode == XPU_OP_REVERSE;
}

/*
 * split_part and replace: three arguments, and a pattern found by its bytes
 * anywhere in the text, which is where a character begins only in UTF8 and
 * the single-byte encodings
 */
static bool
finds_pattern_bytes(int opcode)
{
	return opcode == XPU_OP_SPLIT_PART || opcode == XPU_OP_REPLACE;
}

int
cg_emit_text_func(CgContext *ctx, const CgFuncInfo *f, Oid inputcollid, List *args)
{
	int			nargs = list_length(args);
	int			want = (f->arg2 != XPU_TYPE_INVALID) ? 2 : 1;
	int			argv[3];
	uint16		flags = 0;
	int32		aux = 0;
	int			i;

	/* substring(text, int4, int4) is SUBSTR's optional three-argument form */
	if (finds_pattern_bytes(f->opcode))
		want = 3;
	if (nargs != want && !(f->opcode == XPU_OP_SUBSTR && nargs == 3))
		return cg_refuse(ctx, "unexpected signature of function %s", cg_func_name(f));
	if (finds_pattern_bytes(f->opcode) && cg_text_encoding_flags() < 0)
		return cg_refuse(ctx, "%s is not supported on the device in encoding \"%s\"",
						 cg_func_name(f), GetDatabaseEncodingName());
	if (counts_characters(f->opcode))
	{
		int			enc = cg_text_encoding_flags();

		if (enc < 0)
			return cg_refuse(ctx, "%s is not supported on the device in encoding \"%s\"",
							 cg_func_name(f), GetDatabaseEncodingName());
		flags = (uint16) enc;
	}
	if ((f->opcode == XPU_OP_STRPOS || f->opcode == XPU_OP_STARTS_WITH ||
		 finds_pattern_bytes(f->opcode)) &&
		!cg_collation_is_deterministic(inputcollid))
		return cg_refuse(ctx, "%s under a non-deterministic collation", cg_func_name(f));
	if ((f->opcode == XPU_OP_LOWER || f->opcode == XPU_OP_UPPER) &&
		!pgstrom_collation_ctype_is_c(inputcollid))
		return cg_refuse(ctx, "%s under a collation whose ctype is not \"C\"",
						 cg_func_name(f));
	if (f->opcode == XPU_OP_TRIM_SPACES)
		aux = ((f->flags & FF_TRIM_LEAD) ? 1 : 0) | ((f->flags & FF_TRIM_TRAIL) ? 2 : 0);

	for (i = 0; i < nargs; i++)
	{
		int			declared = (i == 0) ? f->arg1 : (i == 1) ? f->arg2 :
			(f->opcode == XPU_OP_REPLACE) ? XPU_TYPE_TEXT : XPU_TYPE_INT4;
		XpuType		to = (declared == XPU_TYPE_INT4) ? XPU_TYPE_INT4 : XPU_TYPE_TEXT;
		int			a = cg_emit_expr(ctx, (Expr *) list_nth(args, i));

		if (a < 0)
			return a;
		/* a varchar is a text to the device, a bpchar loses its padding */
		if (to == XPU_TYPE_TEXT && ctx->nodes[a].restype == XPU_TYPE_VARCHAR)
			argv[i] = a;
		else
			argv[i] = cg_coerce(ctx, a, to);
		if (argv[i] < 0)
			return argv[i];
	}
	return cg_add_node(ctx, f->opcode, f->restype, flags, aux, nargs, argv);
}

/*
 * arg printed as text: a CoerceViaIO to text or varchar (int2out, int4out,
 * int8out, numeric_out, date_out, timestamp_out) or text(bool); resulttype
 * is the cast's.
 */
int
cg_emit_to_text(CgContext *ctx, Expr *arg, Oid argtype, Oid resulttype)
{
	XpuType		from = cg_xtype_of_oid(argtype);
	XpuType		to = cg_xtype_of_oid(resulttype);
	int			a;
	int			node;

	if (to != XPU_TYPE_TEXT && to != XPU_TYPE_VARCHAR)
		return cg_refuse(ctx, "cast to %s is not supported on the device",
						 format_type_be(resulttype));
	if (cg_type_is_enum(argtype))
		return cg_refuse(ctx, "an enum printed as text");
	switch (from)
	{
		case XPU_TYPE_INT2:
		case XPU_TYPE_INT4:
		case XPU_TYPE_INT8:
		case XPU_TYPE_BOOL:
		case XPU_TYPE_NUMERIC:
			break;
		case XPU_TYPE_DATE:
		case XPU_TYPE_TIMESTAMP:
			if (DateStyle != USE_ISO_DATES)
				return cg_refuse(ctx, "%s printed as text under a DateStyle other than ISO",
								 format_type_be(argtype));
			break;
		default:
			return cg_refuse(ctx, "cast from %s to %s is not supported on the device",
							 format_type_be(argtype), format_type_be(resulttype));
	}
	a = cg_emit_expr(ctx, arg);
	if (a < 0)
		return -1;
	if (ctx->nodes[a].restype != from)
		return cg_refuse(ctx, "cast from %s to text of an unexpected argument",
						 format_type_be(argtype));
	node = cg_add_node(ctx, XPU_OP_TO_TEXT, XPU_TYPE_TEXT, 0, 0, 1, &a);
	return (to == XPU_TYPE_VARCHAR) ? cg_coerce(ctx, node, to) : node;
}

/*
 * An argument of concat or concat_ws as its output function prints it
 * (NULL stays NULL): text and varchar, integers, numeric, and under
 * DateStyle ISO date and timestamp; not bool (boolout prints "t"), nor
 * char(n) (whose output keeps the padding the device's cast drops).
 */
static int
concat_arg_text(CgContext *ctx, const char *fname, Expr *arg)
{
	Oid			argtype = exprType((Node *) arg);
	XpuType		xtype = cg_xtype_of_oid(argtype);

	if (argtype == UNKNOWNOID && IsA(arg, Const))
	{
		/* a literal: "any" leaves it unknown, printed as written */
		Const	   *c = (Const *) arg;

		return cg_emit_const(ctx, XPU_TYPE_TEXT, TEXTOID,
							 c->constisnull ? (Datum) 0 :
							 CStringGetTextDatum(DatumGetCString(c->constvalue)),
							 c->constisnull);
	}
	if (xtype == XPU_TYPE_TEXT || xtype == XPU_TYPE_VARCHAR)
		return cg_coerce(ctx, cg_emit_expr(ctx, arg), XPU_TYPE_TEXT);
	if (xtype == XPU_TYPE_BOOL || xtype == XPU_TYPE_BPCHAR)
		return cg_refuse(ctx, "%s of %s", fname, format_type_be(argtype));
	return cg_emit_to_text(ctx, arg, argtype, TEXTOID);
}

/* a node of two arguments, or -1 when either is */
static int
binary_node(CgContext *ctx, XpuOpcode opcode, int a, int b)
{
	int			argv[2] = {a, b};

	if (a < 0 || b < 0)
		return -1;
	return cg_add_node(ctx, opcode, XPU_TYPE_TEXT, 0, 0, 2, argv);
}

static int
empty_text(CgContext *ctx)
{
	return cg_emit_const(ctx, XPU_TYPE_TEXT, TEXTOID, CStringGetTextDatum(""), false);
}

/*
 * concat(a, b, ...): each argument printed (concat_arg_text), a NULL as
 * nothing, one after the other: COALESCE(TO_TEXT(a), '') and TEXTCAT.
 */
int
cg_emit_concat(CgContext *ctx, FuncExpr *fe)
{
	int			result = -1;
	ListCell   *lc;

	if (fe->funcvariadic || fe->args == NIL)
		return cg_refuse(ctx, "concat over a VARIADIC array");
	foreach(lc, fe->args)
	{
		int			arg = binary_node(ctx, XPU_OP_COALESCE,
									  concat_arg_text(ctx, "concat", lfirst(lc)),
									  empty_text(ctx));

		result = (result < 0) ? arg : binary_node(ctx, XPU_OP_TEXTCAT, result, arg);
		if (result < 0)
			return -1;
	}
	return result;
}

/*
 * concat_ws(sep, a, b, ...) with a constant separator: the arguments that
 * are not NULL, printed, with sep between them; '' when all are NULL, NULL
 * for a NULL separator.  The joined prefix stays NULL until an argument is
 * not, so that the separator goes only between two values:
 *
 *		acc' = COALESCE(acc || sep || arg, acc, arg)
 */
int
cg_emit_concat_ws(CgContext *ctx, FuncExpr *fe)
{
	Expr	   *sep_expr;
	Const	   *sep_const;
	int			sep;
	int			acc = -1;
	ListCell   *lc;

	if (fe->funcvariadic || list_length(fe->args) < 2)
		return cg_refuse(ctx, "concat_ws over a VARIADIC array");
	sep_expr = (Expr *) strip_implicit_coercions(linitial(fe->args));
	if (!IsA(sep_expr, Const))
		return cg_refuse(ctx, "concat_ws with a separator that is not a constant");
	sep_const = (Const *) sep_expr;
	if (sep_const->constisnull)
		return cg_emit_const(ctx, XPU_TYPE_TEXT, TEXTOID, (Datum) 0, true);
	sep = concat_arg_text(ctx, "concat_ws", sep_expr);
	for_each_from(lc, fe->args, 1)
	{
		int			arg = concat_arg_text(ctx, "concat_ws", lfirst(lc));
		int			argv[3];

		if (arg < 0 || sep < 0)
			return -1;
		if (acc < 0)
		{
			acc = arg;
			continue;
		}
		argv[0] = binary_node(ctx, XPU_OP_TEXTCAT,
							  binary_node(ctx, XPU_OP_TEXTCAT, acc, sep), arg);
		argv[1] = acc;
		argv[2] = arg;
		if (argv[0] < 0)
			return -1;
		acc = cg_add_node(ctx, XPU_OP_COALESCE, XPU_TYPE_TEXT, 0, 0, 3, argv);
		if (acc < 0)
			return -1;
	}
	return binary_node(ctx, XPU_OP_COALESCE, acc, empty_text(ctx));
}

/*
 * The most bytes of the text the device makes for expr, or -1 when it is
 * not bounded so: to_char with a constant format, and the casts to text of
 * integers, bool, and (DateStyle ISO) dates and timestamps.  Sizes a
 * grouping key's slot; a longer value would only make its row RECHECK.
 */
int
pgstrom_codegen_text_bound(Expr *expr)
{
	if (IsA(expr, FuncExpr))
	{
		FuncExpr   *fe = (FuncExpr *) expr;
		Node	   *fmt;

		if (fe->funcid == F_TEXT_BOOL)
			return 5;
		if ((fe->funcid == F_TO_CHAR_TIMESTAMP_TEXT ||
			 fe->funcid == F_TO_CHAR_TIMESTAMPTZ_TEXT) &&
			list_length(fe->args) == 2 &&
			IsA((fmt = strip_implicit_coercions(lsecond(fe->args))), Const) &&
			!((Const *) fmt)->constisnull)
			return cg_to_char_max_bytes(TextDatumGetCString(((Const *) fmt)->constvalue));
	}
	else if (IsA(expr, CoerceViaIO))
	{
		Oid			argtype = exprType((Node *) ((CoerceViaIO *) expr)->arg);

		if (cg_type_is_enum(argtype))
			return -1;
		switch (cg_xtype_of_oid(argtype))
		{
			case XPU_TYPE_INT2:
				return 6;
			case XPU_TYPE_INT4:
				return 11;
			case XPU_TYPE_INT8:
				return 20;
			case XPU_TYPE_DATE:
				return 16;		/* "5874897-12-31 BC" */
			case XPU_TYPE_TIMESTAMP:
				return 32;		/* "294276-12-31 23:59:59.999999 BC" is 31 */
			default:
				break;
		}
	}
	return -1;
}
