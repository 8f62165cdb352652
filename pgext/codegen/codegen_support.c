/*
 * codegen_support.c
 *
 * xPU code generator: what the device supports, and the translation of a
 * PostgreSQL 15 expression tree (as the planner leaves it: constants folded,
 * operators as OpExpr, implicit casts as FuncExpr or RelabelType) into
 * program nodes.
 *
 * Functions are identified by their pg_proc OID (fmgroids.h); the table
 * below is the complete list of what the device evaluates.  Every other
 * function, and every node type not handled in cg_emit_expr, is refused.
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
#include "utils/datetime.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/pg_locale.h"

#include "codegen/codegen_internal.h"

typedef enum CgFuncKind
{
	FK_CMP,						/* (a1, a2) -> BOOL, operands cast to optype */
	FK_ARITH,					/* (a1, a2) -> optype, operands cast */
	FK_UNARY,					/* (a1) -> a1: NEG, ABS */
	FK_NOOP,					/* unary plus: the argument itself */
	FK_CAST,					/* (a1) -> restype */
	FK_DATE,					/* DATE_PLI, DATE_MII, DATE_MI */
	FK_DATE_SWAP,				/* integer_pl_date: DATE_PLI, args swapped */
	FK_EXTRACT,					/* (field text, a2) -> restype, aux field */
	FK_LIKE						/* (TEXT, CONST TEXT) -> BOOL */
} CgFuncKind;

#define FF_PATTERN		0x01	/* text comparison bytewise under any
								 * collation (text_pattern_lt, ...) */
#define FF_DATE_AS_TS	0x02	/* date_part(text, date): cast to TIMESTAMP */

typedef struct CgFuncInfo
{
	Oid			funcid;
	uint8		kind;			/* CgFuncKind */
	uint8		flags;			/* FF_* */
	int16		opcode;			/* XpuOpcode */
	int16		arg1;			/* declared argument types (XpuType) */
	int16		arg2;			/* 0 for unary */
	int16		optype;			/* operand type of the node */
	int16		restype;		/* result type */
} CgFuncInfo;

/* "INVALID" is a macro of utils/datetime.h: NA stands for it in the table */
#define XPU_TYPE_NA	XPU_TYPE_INVALID
#define XPU_OP_NA	XPU_OP_INVALID
#define T(x)	XPU_TYPE_##x
#define F(fn, kind, flags, op, a1, a2, ot, rt) \
	{fn, kind, flags, XPU_OP_##op, T(a1), T(a2), T(ot), T(rt)}
#define CMP(fn, op, a1, a2, ot)		F(fn, FK_CMP, 0, op, a1, a2, ot, BOOL)
#define PCMP(fn, op, a1, a2, ot)	F(fn, FK_CMP, FF_PATTERN, op, a1, a2, ot, BOOL)
/* F_<A>EQ<B> .. F_<A>GE<B> */
#define CMP6(A, B, a1, a2, ot) \
	CMP(A##EQ##B, EQ, a1, a2, ot), CMP(A##NE##B, NE, a1, a2, ot), \
	CMP(A##LT##B, LT, a1, a2, ot), CMP(A##LE##B, LE, a1, a2, ot), \
	CMP(A##GT##B, GT, a1, a2, ot), CMP(A##GE##B, GE, a1, a2, ot)
#define ARI(fn, op, a1, a2, ot)		F(fn, FK_ARITH, 0, op, a1, a2, ot, ot)
/* F_<A>PL .. F_<A>DIV */
#define ARI4(A, a1, a2, ot) \
	ARI(A##PL, ADD, a1, a2, ot), ARI(A##MI, SUB, a1, a2, ot), \
	ARI(A##MUL, MUL, a1, a2, ot), ARI(A##DIV, DIV, a1, a2, ot)
#define UNA(fn, op, t)				F(fn, FK_UNARY, 0, op, t, NA, t, t)
#define NOOP(fn, t)					F(fn, FK_NOOP, 0, NA, t, NA, t, t)
#define CAST(fn, from, to)			F(fn, FK_CAST, 0, CAST, from, NA, to, to)

static const CgFuncInfo cg_func_table[] = {
	/* comparisons */
	CMP(F_BOOLEQ, EQ, BOOL, BOOL, BOOL),
	CMP(F_BOOLNE, NE, BOOL, BOOL, BOOL),
	CMP6(F_INT2, , INT2, INT2, INT2),
	CMP6(F_INT4, , INT4, INT4, INT4),
	CMP6(F_INT8, , INT8, INT8, INT8),
	CMP6(F_INT24, , INT2, INT4, INT4),
	CMP6(F_INT42, , INT4, INT2, INT4),
	CMP6(F_INT28, , INT2, INT8, INT8),
	CMP6(F_INT82, , INT8, INT2, INT8),
	CMP6(F_INT48, , INT4, INT8, INT8),
	CMP6(F_INT84, , INT8, INT4, INT8),
	CMP6(F_FLOAT4, , FLOAT4, FLOAT4, FLOAT4),
	CMP6(F_FLOAT8, , FLOAT8, FLOAT8, FLOAT8),
	CMP6(F_FLOAT48, , FLOAT4, FLOAT8, FLOAT8),
	CMP6(F_FLOAT84, , FLOAT8, FLOAT4, FLOAT8),
	CMP6(F_NUMERIC_, , NUMERIC, NUMERIC, NUMERIC),
	CMP6(F_DATE_, , DATE, DATE, DATE),
	CMP6(F_TIMESTAMP_, , TIMESTAMP, TIMESTAMP, TIMESTAMP),
	CMP6(F_TIMESTAMPTZ_, , TIMESTAMPTZ, TIMESTAMPTZ, TIMESTAMPTZ),
	CMP6(F_DATE_, _TIMESTAMP, DATE, TIMESTAMP, TIMESTAMP),
	CMP6(F_TIMESTAMP_, _DATE, TIMESTAMP, DATE, TIMESTAMP),
	CMP(F_TEXTEQ, EQ, TEXT, TEXT, TEXT),
	CMP(F_TEXTNE, NE, TEXT, TEXT, TEXT),
	CMP(F_TEXT_LT, LT, TEXT, TEXT, TEXT),
	CMP(F_TEXT_LE, LE, TEXT, TEXT, TEXT),
	CMP(F_TEXT_GT, GT, TEXT, TEXT, TEXT),
	CMP(F_TEXT_GE, GE, TEXT, TEXT, TEXT),
	PCMP(F_TEXT_PATTERN_LT, LT, TEXT, TEXT, TEXT),
	PCMP(F_TEXT_PATTERN_LE, LE, TEXT, TEXT, TEXT),
	PCMP(F_TEXT_PATTERN_GT, GT, TEXT, TEXT, TEXT),
	PCMP(F_TEXT_PATTERN_GE, GE, TEXT, TEXT, TEXT),
	CMP6(F_BPCHAR, , BPCHAR, BPCHAR, BPCHAR),
	PCMP(F_BPCHAR_PATTERN_LT, LT, BPCHAR, BPCHAR, BPCHAR),
	PCMP(F_BPCHAR_PATTERN_LE, LE, BPCHAR, BPCHAR, BPCHAR),
	PCMP(F_BPCHAR_PATTERN_GT, GT, BPCHAR, BPCHAR, BPCHAR),
	PCMP(F_BPCHAR_PATTERN_GE, GE, BPCHAR, BPCHAR, BPCHAR),

	/* arithmetic */
	ARI4(F_INT2, INT2, INT2, INT2),
	ARI4(F_INT4, INT4, INT4, INT4),
	ARI4(F_INT8, INT8, INT8, INT8),
	ARI(F_INT2MOD, MOD, INT2, INT2, INT2),
	ARI(F_INT4MOD, MOD, INT4, INT4, INT4),
	ARI(F_INT8MOD, MOD, INT8, INT8, INT8),
	ARI(F_MOD_INT2_INT2, MOD, INT2, INT2, INT2),	/* mod(): same C function */
	ARI(F_MOD_INT4_INT4, MOD, INT4, INT4, INT4),
	ARI(F_MOD_INT8_INT8, MOD, INT8, INT8, INT8),
	ARI4(F_INT24, INT2, INT4, INT4),
	ARI4(F_INT42, INT4, INT2, INT4),
	ARI4(F_INT28, INT2, INT8, INT8),
	ARI4(F_INT82, INT8, INT2, INT8),
	ARI4(F_INT48, INT4, INT8, INT8),
	ARI4(F_INT84, INT8, INT4, INT8),
	ARI4(F_FLOAT4, FLOAT4, FLOAT4, FLOAT4),
	ARI4(F_FLOAT8, FLOAT8, FLOAT8, FLOAT8),
	ARI4(F_FLOAT48, FLOAT4, FLOAT8, FLOAT8),
	ARI4(F_FLOAT84, FLOAT8, FLOAT4, FLOAT8),
	ARI(F_NUMERIC_ADD, ADD, NUMERIC, NUMERIC, NUMERIC),
	ARI(F_NUMERIC_SUB, SUB, NUMERIC, NUMERIC, NUMERIC),
	ARI(F_NUMERIC_MUL, MUL, NUMERIC, NUMERIC, NUMERIC),
	UNA(F_INT2UM, NEG, INT2),
	UNA(F_INT4UM, NEG, INT4),
	UNA(F_INT8UM, NEG, INT8),
	UNA(F_FLOAT4UM, NEG, FLOAT4),
	UNA(F_FLOAT8UM, NEG, FLOAT8),
	UNA(F_NUMERIC_UMINUS, NEG, NUMERIC),
	UNA(F_INT2ABS, ABS, INT2),
	UNA(F_INT4ABS, ABS, INT4),
	UNA(F_INT8ABS, ABS, INT8),
	UNA(F_FLOAT4ABS, ABS, FLOAT4),
	UNA(F_FLOAT8ABS, ABS, FLOAT8),
	UNA(F_NUMERIC_ABS, ABS, NUMERIC),
	UNA(F_ABS_INT2, ABS, INT2),		/* abs(): same C functions as @ */
	UNA(F_ABS_INT4, ABS, INT4),
	UNA(F_ABS_INT8, ABS, INT8),
	UNA(F_ABS_FLOAT4, ABS, FLOAT4),
	UNA(F_ABS_FLOAT8, ABS, FLOAT8),
	UNA(F_ABS_NUMERIC, ABS, NUMERIC),
	NOOP(F_INT2UP, INT2),
	NOOP(F_INT4UP, INT4),
	NOOP(F_INT8UP, INT8),
	NOOP(F_FLOAT4UP, FLOAT4),
	NOOP(F_FLOAT8UP, FLOAT8),
	NOOP(F_NUMERIC_UPLUS, NUMERIC),

	/* casts: F_<to>_<from> */
	CAST(F_INT2_INT4, INT4, INT2),
	CAST(F_INT2_INT8, INT8, INT2),
	CAST(F_INT4_INT2, INT2, INT4),
	CAST(F_INT4_INT8, INT8, INT4),
	CAST(F_INT8_INT2, INT2, INT8),
	CAST(F_INT8_INT4, INT4, INT8),
	CAST(F_FLOAT4_INT2, INT2, FLOAT4),
	CAST(F_FLOAT4_INT4, INT4, FLOAT4),
	CAST(F_FLOAT4_INT8, INT8, FLOAT4),
	CAST(F_FLOAT8_INT2, INT2, FLOAT8),
	CAST(F_FLOAT8_INT4, INT4, FLOAT8),
	CAST(F_FLOAT8_INT8, INT8, FLOAT8),
	CAST(F_NUMERIC_INT2, INT2, NUMERIC),
	CAST(F_NUMERIC_INT4, INT4, NUMERIC),
	CAST(F_NUMERIC_INT8, INT8, NUMERIC),
	CAST(F_FLOAT8_FLOAT4, FLOAT4, FLOAT8),
	CAST(F_FLOAT4_FLOAT8, FLOAT8, FLOAT4),
	CAST(F_INT2_FLOAT4, FLOAT4, INT2),
	CAST(F_INT2_FLOAT8, FLOAT8, INT2),
	CAST(F_INT4_FLOAT4, FLOAT4, INT4),
	CAST(F_INT4_FLOAT8, FLOAT8, INT4),
	CAST(F_INT8_FLOAT4, FLOAT4, INT8),
	CAST(F_INT8_FLOAT8, FLOAT8, INT8),
	CAST(F_INT2_NUMERIC, NUMERIC, INT2),
	CAST(F_INT4_NUMERIC, NUMERIC, INT4),
	CAST(F_INT8_NUMERIC, NUMERIC, INT8),
	CAST(F_TIMESTAMP_DATE, DATE, TIMESTAMP),

	/* date arithmetic */
	F(F_DATE_PLI, FK_DATE, 0, DATE_PLI, DATE, INT4, DATE, DATE),
	F(F_INTEGER_PL_DATE, FK_DATE_SWAP, 0, DATE_PLI, INT4, DATE, DATE, DATE),
	F(F_DATE_MII, FK_DATE, 0, DATE_MII, DATE, INT4, DATE, DATE),
	F(F_DATE_MI, FK_DATE, 0, DATE_MI, DATE, DATE, DATE, INT4),

	/* extract / date_part: arg1 is the field name (a text constant) */
	F(F_EXTRACT_TEXT_DATE, FK_EXTRACT, 0, EXTRACT, TEXT, DATE, DATE, NUMERIC),
	F(F_EXTRACT_TEXT_TIMESTAMP, FK_EXTRACT, 0, EXTRACT, TEXT, TIMESTAMP, TIMESTAMP, NUMERIC),
	F(F_DATE_PART_TEXT_TIMESTAMP, FK_EXTRACT, 0, DATE_PART, TEXT, TIMESTAMP, TIMESTAMP, FLOAT8),
	F(F_DATE_PART_TEXT_DATE, FK_EXTRACT, FF_DATE_AS_TS, DATE_PART, TEXT, DATE, TIMESTAMP, FLOAT8),

	/* LIKE */
	F(F_TEXTLIKE, FK_LIKE, 0, LIKE, TEXT, TEXT, TEXT, BOOL),
	F(F_LIKE_TEXT_TEXT, FK_LIKE, 0, LIKE, TEXT, TEXT, TEXT, BOOL),
	F(F_TEXTNLIKE, FK_LIKE, 0, NOT_LIKE, TEXT, TEXT, TEXT, BOOL),
	F(F_NOTLIKE_TEXT_TEXT, FK_LIKE, 0, NOT_LIKE, TEXT, TEXT, TEXT, BOOL),
};

#undef T
#undef F

static const CgFuncInfo *
lookup_func(Oid funcid)
{
	int			i;

	for (i = 0; i < lengthof(cg_func_table); i++)
	{
		if (cg_func_table[i].funcid == funcid)
			return &cg_func_table[i];
	}
	return NULL;
}

static int	refuse_func(CgContext *ctx, Oid funcid);

static const char *
func_name(const CgFuncInfo *f)
{
	char	   *name = get_func_name(f->funcid);

	return name ? name : "???";
}

/* the function table, for the debugging function */
int
cg_func_table_size(void)
{
	return lengthof(cg_func_table);
}

void
cg_func_table_entry(int i, Oid *funcid, const char **name, int *opcode,
					int *arg1, int *arg2, int *restype)
{
	const CgFuncInfo *f = &cg_func_table[i];

	*funcid = f->funcid;
	*name = func_name(f);
	*opcode = f->opcode;
	*arg1 = f->arg1;
	*arg2 = f->arg2;
	*restype = f->restype;
}

/* ----------------------------------------------------------------
 * Collations and encodings
 * ----------------------------------------------------------------
 */
static bool
collation_is_deterministic(Oid collid)
{
	return OidIsValid(collid) && get_collation_isdeterministic(collid);
}

/* LIKE flags, or -1 when the database encoding is not offered */
static int
like_encoding_flags(void)
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
static int
check_arg_type(CgContext *ctx, const CgFuncInfo *f, int idx, int declared)
{
	if (idx < 0)
		return idx;
	if (ctx->nodes[idx].restype != declared)
		return cg_refuse(ctx, "argument of %s is %s, expected %s",
						 func_name(f),
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
	a1 = check_arg_type(ctx, f, a1, f->arg1);
	if (f->arg2 != XPU_TYPE_INVALID)
		a2 = check_arg_type(ctx, f, a2, f->arg2);
	if (a1 < 0 || a2 < 0)
		return -1;

	switch ((CgFuncKind) f->kind)
	{
		case FK_CMP:
			if (xtype_is_text(f->optype))
			{
				if (f->flags & FF_PATTERN)
					flags |= XPU_NODE_TEXT_BYTEWISE;
				else if (f->opcode == XPU_OP_EQ || f->opcode == XPU_OP_NE)
				{
					if (!collation_is_deterministic(inputcollid))
						return cg_refuse(ctx, "text equality under a non-deterministic collation");
				}
				else
				{
					if (!OidIsValid(inputcollid) || !lc_collate_is_c(inputcollid))
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
				int			enc = like_encoding_flags();
				XpuNode    *pat = &ctx->nodes[a2];

				if (enc < 0)
					return cg_refuse(ctx, "LIKE is not supported on the device in encoding \"%s\"",
									 GetDatabaseEncodingName());
				if (OidIsValid(inputcollid) &&
					!get_collation_isdeterministic(inputcollid))
					return cg_refuse(ctx, "LIKE under a non-deterministic collation");
				if (pat->opcode != XPU_OP_CONST)
					return cg_refuse(ctx, "LIKE pattern is not a constant");
				/* textlike is strict: NULL pattern, NULL result */
				if (pat->flags & XPU_NODE_CONST_NULL)
					return cg_add_node(ctx, XPU_OP_CONST, XPU_TYPE_BOOL,
									   XPU_NODE_CONST_NULL, 0, 0, NULL);
				argv[0] = a1;
				argv[1] = a2;
				return cg_add_node(ctx, f->opcode, XPU_TYPE_BOOL, (uint16) enc,
								   0, 2, argv);
			}

		case FK_EXTRACT:
			break;				/* handled by emit_extract */
	}
	return cg_refuse(ctx, "function %s cannot be applied here", func_name(f));
}

/* ----------------------------------------------------------------
 * Expressions
 * ----------------------------------------------------------------
 */

/*
 * A Const or Param (possibly under RelabelType) as a CONST node of type
 * xtype; other expressions as usual.  Used for LIKE patterns, which must
 * be CONST TEXT nodes, and to encode varchar/text constants without a
 * CAST node.
 */
static int
emit_maybe_const(CgContext *ctx, Expr *expr, XpuType xtype)
{
	Expr	   *e = expr;
	XpuType		t;

	while (IsA(e, RelabelType))
		e = ((RelabelType *) e)->arg;
	if (IsA(e, Const) || IsA(e, Param))
	{
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
			return cg_emit_param(ctx, (Param *) e, xtype);
		}
	}
	return cg_emit_expr(ctx, expr);
}

/* extract(field from x) and date_part(field, x) */
static int
emit_extract(CgContext *ctx, const CgFuncInfo *f, List *args)
{
	Expr	   *field = linitial(args);
	Const	   *c;
	text	   *units;
	char	   *lowunits;
	int			type;
	int			val;
	int32		xfield;
	int			idx;

	while (IsA(field, RelabelType))
		field = ((RelabelType *) field)->arg;
	if (!IsA(field, Const) || ((Const *) field)->consttype != TEXTOID)
		return cg_refuse(ctx, "%s field is not a text constant", func_name(f));
	c = (Const *) field;
	if (c->constisnull)
		return cg_refuse(ctx, "%s field is NULL", func_name(f));

	/* as timestamp_part_common / extract_date decode it */
	units = DatumGetTextPP(c->constvalue);
	lowunits = downcase_truncate_identifier(VARDATA_ANY(units),
											VARSIZE_ANY_EXHDR(units), false);
	type = DecodeUnits(0, lowunits, &val);
	if (type == UNKNOWN_FIELD)
		type = DecodeSpecial(0, lowunits, &val);
	if (type != UNITS)
		return cg_refuse(ctx, "field \"%s\" is not supported on the device", lowunits);
	switch (val)
	{
		case DTK_YEAR:
			xfield = XPU_FIELD_YEAR;
			break;
		case DTK_MONTH:
			xfield = XPU_FIELD_MONTH;
			break;
		case DTK_DAY:
			xfield = XPU_FIELD_DAY;
			break;
		case DTK_DOW:
			xfield = XPU_FIELD_DOW;
			break;
		case DTK_ISODOW:
			xfield = XPU_FIELD_ISODOW;
			break;
		case DTK_DOY:
			xfield = XPU_FIELD_DOY;
			break;
		case DTK_QUARTER:
			xfield = XPU_FIELD_QUARTER;
			break;
		case DTK_HOUR:
			xfield = XPU_FIELD_HOUR;
			break;
		case DTK_MINUTE:
			xfield = XPU_FIELD_MINUTE;
			break;
		default:
			return cg_refuse(ctx, "field \"%s\" is not supported on the device", lowunits);
	}

	idx = check_arg_type(ctx, f, cg_emit_expr(ctx, lsecond(args)), f->arg2);
	if (idx < 0)
		return -1;
	if (f->flags & FF_DATE_AS_TS)
		idx = cg_coerce(ctx, idx, XPU_TYPE_TIMESTAMP);	/* SQL: $2::timestamp */
	else if (f->arg2 == XPU_TYPE_DATE &&
			 (xfield == XPU_FIELD_HOUR || xfield == XPU_FIELD_MINUTE))
		return cg_refuse(ctx, "field \"%s\" of a date", lowunits);	/* an error in PG */
	return cg_add_node(ctx, f->opcode, f->restype, 0, xfield, 1, &idx);
}

static int
emit_func(CgContext *ctx, Oid funcid, Oid inputcollid, Oid rettype, List *args)
{
	const CgFuncInfo *f = lookup_func(funcid);
	int			nargs = list_length(args);
	int			a1;
	int			a2 = 0;

	if (f == NULL)
		return refuse_func(ctx, funcid);
	if (nargs != (f->arg2 != XPU_TYPE_INVALID ? 2 : 1) ||
		cg_xtype_of_oid(rettype) != f->restype)
		return cg_refuse(ctx, "unexpected signature of function %s", func_name(f));

	switch ((CgFuncKind) f->kind)
	{
		case FK_EXTRACT:
			return emit_extract(ctx, f, args);
		case FK_LIKE:
			a1 = cg_emit_expr(ctx, linitial(args));
			a2 = emit_maybe_const(ctx, lsecond(args), XPU_TYPE_TEXT);
			break;
		default:
			a1 = cg_emit_expr(ctx, linitial(args));
			if (nargs == 2)
				a2 = cg_emit_expr(ctx, lsecond(args));
			break;
	}
	return apply_func(ctx, f, inputcollid, a1, a2);
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
	const CgFuncInfo *f = lookup_func(funcid);
	Expr	   *arrexpr;
	int			scalar;
	int		   *items;
	int			nitems = 0;
	int			i;
	int			result;

	if (f == NULL)
		return refuse_func(ctx, funcid);
	if ((f->kind != FK_CMP && f->kind != FK_LIKE) || list_length(saop->args) != 2)
		return cg_refuse(ctx, "%s is not supported in ANY/ALL", func_name(f));
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

				if (op->opretset)
					return cg_refuse(ctx, "set-returning operator");
				return emit_func(ctx, funcid, op->inputcollid,
								 op->opresulttype, op->args);
			}

		case T_FuncExpr:
			{
				FuncExpr   *fe = (FuncExpr *) expr;

				if (fe->funcretset)
					return cg_refuse(ctx, "set-returning function");
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
			return cg_refuse(ctx, "IS DISTINCT FROM is not supported on the device");
		case T_NullIfExpr:
			return cg_refuse(ctx, "NULLIF is not supported on the device");
		case T_CoerceViaIO:
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
