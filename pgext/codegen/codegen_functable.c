/*
 * codegen_functable.c
 *
 * xPU code generator: the functions the device evaluates.  They are
 * identified by their pg_proc OID (fmgroids.h); the table below is the
 * complete list.  Every other function is refused by the expression
 * emitter.
 */
#include "postgres.h"

#include "utils/fmgroids.h"
#include "utils/lsyscache.h"

#include "codegen/codegen_functable.h"

/*
 * NA stands for INVALID in the table: "INVALID" is also a macro of
 * utils/datetime.h, which would break the table wherever both are visible.
 */
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
	ARI(F_NUMERIC_DIV, DIV, NUMERIC, NUMERIC, NUMERIC),
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
	CAST(F_FLOAT4_NUMERIC, NUMERIC, FLOAT4),
	CAST(F_FLOAT8_NUMERIC, NUMERIC, FLOAT8),
	CAST(F_TIMESTAMP_DATE, DATE, TIMESTAMP),

	/* round(numeric, int4) and trunc(numeric, int4), a constant scale */
	F(F_ROUND_NUMERIC_INT4, FK_NUM_SCALE, 0, NUM_ROUND, NUMERIC, INT4, NUMERIC, NUMERIC),
	F(F_TRUNC_NUMERIC_INT4, FK_NUM_SCALE, 0, NUM_TRUNC, NUMERIC, INT4, NUMERIC, NUMERIC),

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

	/*
	 * date_trunc, and the casts between timestamptz and date or timestamp:
	 * in the session's time zone, offered only where it has a fixed UTC
	 * offset (codegen_datetime.c)
	 */
	F(F_DATE_TRUNC_TEXT_TIMESTAMP, FK_DATE_TRUNC, 0, DATE_TRUNC, TEXT, TIMESTAMP, TIMESTAMP, TIMESTAMP),
	F(F_DATE_TRUNC_TEXT_TIMESTAMPTZ, FK_DATE_TRUNC, 0, DATE_TRUNC, TEXT, TIMESTAMPTZ, TIMESTAMP, TIMESTAMPTZ),
	F(F_TIMESTAMPTZ_DATE, FK_ZONE, 0, TZ_UTC, DATE, NA, TIMESTAMP, TIMESTAMPTZ),
	F(F_TIMESTAMPTZ_TIMESTAMP, FK_ZONE, 0, TZ_UTC, TIMESTAMP, NA, TIMESTAMP, TIMESTAMPTZ),
	F(F_TIMESTAMP_TIMESTAMPTZ, FK_ZONE, 0, TZ_LOCAL, TIMESTAMPTZ, NA, TIMESTAMPTZ, TIMESTAMP),

	/* LIKE */
	F(F_TEXTLIKE, FK_LIKE, 0, LIKE, TEXT, TEXT, TEXT, BOOL),
	F(F_LIKE_TEXT_TEXT, FK_LIKE, 0, LIKE, TEXT, TEXT, TEXT, BOOL),
	F(F_TEXTNLIKE, FK_LIKE, 0, NOT_LIKE, TEXT, TEXT, TEXT, BOOL),
	F(F_NOTLIKE_TEXT_TEXT, FK_LIKE, 0, NOT_LIKE, TEXT, TEXT, TEXT, BOOL),
	/* ILIKE: under a "C" ctype only (codegen_expr.c) */
	F(F_TEXTICLIKE, FK_LIKE, FF_ICASE, LIKE, TEXT, TEXT, TEXT, BOOL),
	F(F_TEXTICNLIKE, FK_LIKE, FF_ICASE, NOT_LIKE, TEXT, TEXT, TEXT, BOOL),
};

#undef T
#undef F

const CgFuncInfo *
cg_lookup_func(Oid funcid)
{
	int			i;

	for (i = 0; i < lengthof(cg_func_table); i++)
	{
		if (cg_func_table[i].funcid == funcid)
			return &cg_func_table[i];
	}
	return NULL;
}

const char *
cg_func_name(const CgFuncInfo *f)
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
	*name = cg_func_name(f);
	*opcode = f->opcode;
	*arg1 = f->arg1;
	*arg2 = f->arg2;
	*restype = f->restype;
}
