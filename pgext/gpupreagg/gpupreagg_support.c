/*-------------------------------------------------------------------------
 *
 * gpupreagg_support.c
 *		What GpuPreAgg can aggregate on the device, and which grouping keys
 *		it can compare there.
 *
 * Aggregates are recognized by their transition function, and their
 * combine and serial functions are checked too: the partial state the
 * executor forms must be exactly the transition value the final Agg's
 * combine/deserialize functions expect.  Everything else (numeric
 * aggregates other than sum/avg/min/max of numeric(p<=18,s), text min/max, user aggregates, DISTINCT or ORDER BY inside the call,
 * ordered-set aggregates) is refused.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/syscache.h"

#include "codegen/codegen.h"
#include "gpupreagg/gpupreagg_internal.h"

/* an aggregate family: transfn, the combine/serial functions it needs */
typedef struct PreAggFunc
{
	Oid			transfn;
	Oid			combinefn;
	Oid			serialfn;		/* InvalidOid: none */
	XpuAggKind	kind;
	GpuPreAggStateForm form;
	Oid			argtypes[3];	/* accepted argument types; count(x): any */
} PreAggFunc;

#define ANYTYPE		((Oid) 1)	/* count(x): any device type */

static const PreAggFunc preagg_funcs[] = {
	{F_INT8INC, F_INT8PL, InvalidOid, XPU_AGG_COUNT, GPA_STATE_COUNT, {InvalidOid}},
	{F_INT8INC_ANY, F_INT8PL, InvalidOid, XPU_AGG_COUNT, GPA_STATE_COUNT, {ANYTYPE}},
	{F_INT2_SUM, F_INT8PL, InvalidOid, XPU_AGG_SUM_INT, GPA_STATE_INT8_SUM, {INT2OID}},
	{F_INT4_SUM, F_INT8PL, InvalidOid, XPU_AGG_SUM_INT, GPA_STATE_INT8_SUM, {INT4OID}},
	{F_INT2_AVG_ACCUM, F_INT4_AVG_COMBINE, InvalidOid, XPU_AGG_SUM_INT, GPA_STATE_INT8_AVG_ARRAY, {INT2OID}},
	{F_INT4_AVG_ACCUM, F_INT4_AVG_COMBINE, InvalidOid, XPU_AGG_SUM_INT, GPA_STATE_INT8_AVG_ARRAY, {INT4OID}},
	{F_INT8_AVG_ACCUM, F_INT8_AVG_COMBINE, F_INT8_AVG_SERIALIZE, XPU_AGG_SUM_INT, GPA_STATE_POLY_SUM, {INT8OID}},
	{F_INT2_ACCUM, F_NUMERIC_POLY_COMBINE, F_NUMERIC_POLY_SERIALIZE, XPU_AGG_VAR_INT, GPA_STATE_POLY_VAR, {INT2OID}},
	{F_INT4_ACCUM, F_NUMERIC_POLY_COMBINE, F_NUMERIC_POLY_SERIALIZE, XPU_AGG_VAR_INT, GPA_STATE_POLY_VAR, {INT4OID}},
	{F_INT8_ACCUM, F_NUMERIC_COMBINE, F_NUMERIC_SERIALIZE, XPU_AGG_VAR_INT8, GPA_STATE_NUMERIC_VAR, {INT8OID}},
	{F_FLOAT4PL, F_FLOAT4PL, InvalidOid, XPU_AGG_SUM_FP, GPA_STATE_FLOAT4_SUM, {FLOAT4OID}},
	{F_FLOAT8PL, F_FLOAT8PL, InvalidOid, XPU_AGG_SUM_FP, GPA_STATE_FLOAT8_SUM, {FLOAT8OID}},
	{F_FLOAT4_ACCUM, F_FLOAT8_COMBINE, InvalidOid, XPU_AGG_VAR_FP, GPA_STATE_FLOAT8_ACCUM, {FLOAT4OID}},
	{F_FLOAT8_ACCUM, F_FLOAT8_COMBINE, InvalidOid, XPU_AGG_VAR_FP, GPA_STATE_FLOAT8_ACCUM, {FLOAT8OID}},
	{F_INT2SMALLER, F_INT2SMALLER, InvalidOid, XPU_AGG_MIN_INT, GPA_STATE_MINMAX, {INT2OID}},
	{F_INT4SMALLER, F_INT4SMALLER, InvalidOid, XPU_AGG_MIN_INT, GPA_STATE_MINMAX, {INT4OID}},
	{F_INT8SMALLER, F_INT8SMALLER, InvalidOid, XPU_AGG_MIN_INT, GPA_STATE_MINMAX, {INT8OID}},
	{F_DATE_SMALLER, F_DATE_SMALLER, InvalidOid, XPU_AGG_MIN_INT, GPA_STATE_MINMAX, {DATEOID}},
	{F_TIMESTAMP_SMALLER, F_TIMESTAMP_SMALLER, InvalidOid, XPU_AGG_MIN_INT, GPA_STATE_MINMAX, {TIMESTAMPOID}},
	{F_TIMESTAMPTZ_SMALLER, F_TIMESTAMPTZ_SMALLER, InvalidOid, XPU_AGG_MIN_INT, GPA_STATE_MINMAX, {TIMESTAMPTZOID}},
	{F_INT2LARGER, F_INT2LARGER, InvalidOid, XPU_AGG_MAX_INT, GPA_STATE_MINMAX, {INT2OID}},
	{F_INT4LARGER, F_INT4LARGER, InvalidOid, XPU_AGG_MAX_INT, GPA_STATE_MINMAX, {INT4OID}},
	{F_INT8LARGER, F_INT8LARGER, InvalidOid, XPU_AGG_MAX_INT, GPA_STATE_MINMAX, {INT8OID}},
	{F_DATE_LARGER, F_DATE_LARGER, InvalidOid, XPU_AGG_MAX_INT, GPA_STATE_MINMAX, {DATEOID}},
	{F_TIMESTAMP_LARGER, F_TIMESTAMP_LARGER, InvalidOid, XPU_AGG_MAX_INT, GPA_STATE_MINMAX, {TIMESTAMPOID}},
	{F_TIMESTAMPTZ_LARGER, F_TIMESTAMPTZ_LARGER, InvalidOid, XPU_AGG_MAX_INT, GPA_STATE_MINMAX, {TIMESTAMPTZOID}},
	{F_NUMERIC_AVG_ACCUM, F_NUMERIC_AVG_COMBINE, F_NUMERIC_AVG_SERIALIZE, XPU_AGG_SUM_INT, GPA_STATE_NUMERIC_AVG, {NUMERICOID}},
	{F_NUMERIC_SMALLER, F_NUMERIC_SMALLER, InvalidOid, XPU_AGG_MIN_INT, GPA_STATE_NUMERIC_MINMAX, {NUMERICOID}},
	{F_NUMERIC_LARGER, F_NUMERIC_LARGER, InvalidOid, XPU_AGG_MAX_INT, GPA_STATE_NUMERIC_MINMAX, {NUMERICOID}},
	{F_FLOAT4SMALLER, F_FLOAT4SMALLER, InvalidOid, XPU_AGG_MIN_FP, GPA_STATE_MINMAX, {FLOAT4OID}},
	{F_FLOAT8SMALLER, F_FLOAT8SMALLER, InvalidOid, XPU_AGG_MIN_FP, GPA_STATE_MINMAX, {FLOAT8OID}},
	{F_FLOAT4LARGER, F_FLOAT4LARGER, InvalidOid, XPU_AGG_MAX_FP, GPA_STATE_MINMAX, {FLOAT4OID}},
	{F_FLOAT8LARGER, F_FLOAT8LARGER, InvalidOid, XPU_AGG_MAX_FP, GPA_STATE_MINMAX, {FLOAT8OID}},
	/* bool_and/every and bool_or: min and max of the argument as 0 or 1 */
	{F_BOOLAND_STATEFUNC, F_BOOLAND_STATEFUNC, InvalidOid, XPU_AGG_MIN_INT, GPA_STATE_BOOL, {BOOLOID}},
	{F_BOOLOR_STATEFUNC, F_BOOLOR_STATEFUNC, InvalidOid, XPU_AGG_MAX_INT, GPA_STATE_BOOL, {BOOLOID}},
};

/* accumulator bytes of each kind, as XPU_AGG_LIST */
static const int agg_kind_bytes[] = {
	0,
#define XPU_AGG_BYTES(name, bytes) bytes,
	XPU_AGG_LIST(XPU_AGG_BYTES)
#undef XPU_AGG_BYTES
};

/*
 * A boolean argument as the int4 the device's min/max accumulate:
 * CASE WHEN x THEN 1 WHEN NOT x THEN 0 END, NULL where x is.
 */
static Expr *
bool_as_int4(Expr *arg)
{
	CaseExpr   *ce = makeNode(CaseExpr);
	CaseWhen   *is_true = makeNode(CaseWhen);
	CaseWhen   *is_false = makeNode(CaseWhen);

	is_true->expr = copyObject(arg);
	is_true->result = (Expr *) makeConst(INT4OID, -1, InvalidOid, sizeof(int32),
										 Int32GetDatum(1), false, true);
	is_true->location = -1;
	is_false->expr = make_notclause(copyObject(arg));
	is_false->result = (Expr *) makeConst(INT4OID, -1, InvalidOid, sizeof(int32),
										  Int32GetDatum(0), false, true);
	is_false->location = -1;
	ce->casetype = INT4OID;
	ce->casecollid = InvalidOid;
	ce->arg = NULL;
	ce->args = list_make2(is_true, is_false);
	ce->defresult = (Expr *) makeNullConst(INT4OID, -1, InvalidOid);
	ce->location = -1;
	return (Expr *) ce;
}

static bool
refuse(char **reason, const char *fmt, const char *arg) pg_attribute_printf(2, 0);

static bool
refuse(char **reason, const char *fmt, const char *arg)
{
	if (reason)
		*reason = psprintf(fmt, arg);
	return false;
}

bool
gpupreagg_classify_aggref(Aggref *aggref, Index scanrelid,
						  GpuPreAggAgg *out, char **reason)
{
	HeapTuple	tup;
	Form_pg_aggregate aggform;
	Oid			transfn,
				combinefn,
				serialfn;
	const PreAggFunc *f = NULL;
	Expr	   *arg = NULL;
	Oid			argtype = InvalidOid;
	int32		param = 0;
	int			kind;
	char	   *why;
	int			i;

	if (reason)
		*reason = NULL;
	if (aggref->aggkind != AGGKIND_NORMAL)
		return refuse(reason, "%s is an ordered-set aggregate", get_func_name(aggref->aggfnoid));
	if (aggref->agglevelsup != 0)
		return refuse(reason, "%s is an outer-level aggregate", get_func_name(aggref->aggfnoid));
	if (aggref->aggdistinct != NIL || aggref->aggorder != NIL)
		return refuse(reason, "%s has DISTINCT or ORDER BY", get_func_name(aggref->aggfnoid));
	if (aggref->aggvariadic)
		return refuse(reason, "%s is called with VARIADIC", get_func_name(aggref->aggfnoid));

	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggref->aggfnoid));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for aggregate %u", aggref->aggfnoid);
	aggform = (Form_pg_aggregate) GETSTRUCT(tup);
	transfn = aggform->aggtransfn;
	combinefn = aggform->aggcombinefn;
	serialfn = aggform->aggserialfn;
	ReleaseSysCache(tup);

	for (i = 0; i < lengthof(preagg_funcs); i++)
	{
		if (preagg_funcs[i].transfn == transfn)
		{
			f = &preagg_funcs[i];
			break;
		}
	}
	if (f == NULL)
		return refuse(reason, "aggregate %s is not supported on the device",
					  format_procedure(aggref->aggfnoid));
	if (f->combinefn != combinefn || f->serialfn != serialfn)
		return refuse(reason, "aggregate %s has unexpected support functions",
					  format_procedure(aggref->aggfnoid));
	kind = f->kind;

	if (f->argtypes[0] == InvalidOid)
	{
		/* count(*) */
		if (!aggref->aggstar || aggref->args != NIL)
			return refuse(reason, "%s: unexpected arguments", format_procedure(aggref->aggfnoid));
	}
	else
	{
		TargetEntry *tle;

		if (aggref->aggstar || list_length(aggref->args) != 1)
			return refuse(reason, "%s: unexpected arguments", format_procedure(aggref->aggfnoid));
		tle = linitial_node(TargetEntry, aggref->args);
		arg = tle->expr;
		argtype = exprType((Node *) arg);
		if (f->argtypes[0] == ANYTYPE)
		{
			if (pgstrom_codegen_xpu_type(argtype) == XPU_TYPE_INVALID)
				return refuse(reason, "count() of type %s", format_type_be(argtype));
		}
		else if (argtype != f->argtypes[0])
			return refuse(reason, "%s: unexpected argument type", format_procedure(aggref->aggfnoid));
		if (f->form == GPA_STATE_BOOL)
		{
			arg = bool_as_int4(arg);
			argtype = INT4OID;
		}
		if (!pgstrom_codegen_expr_supported(arg, scanrelid, &why))
			return refuse(reason, "aggregate argument: %s", why);
		/*
		 * A sum's value that does not fit an int64 at the scale is added on
		 * the CPU as an int128; a minimum's or maximum's accumulator is an
		 * int64, so its argument is a numeric(p <= 18, s), which fits.
		 */
		if (f->kind != XPU_AGG_COUNT && argtype == NUMERICOID)
		{
			if (f->kind != XPU_AGG_SUM_INT &&
				gpupreagg_numeric_typmod((Node *) arg) < (int32) VARHDRSZ)
				return refuse(reason, "%s of a numeric without a declared precision of at most 18 digits",
							  get_func_name(aggref->aggfnoid));

			/*
			 * One display scale for every value: an int64 per row at that
			 * scale.  Else a bound on the display scales: 128 bits a row at
			 * the bound, and the largest scale seen (SUM_NUMV).
			 */
			if (!gpupreagg_numeric_scale(arg, &param))
			{
				if (f->kind != XPU_AGG_SUM_INT ||
					!gpupreagg_numeric_scale_bound(arg, &param))
					return refuse(reason, "%s of a numeric whose display scale its form does not bound within " CppAsString2(XPU_PREAGG_MAX_NUMV_SCALE) " digits (numeric(p,s) columns and casts, integers and constants, combined by +, -, *, / and round or trunc to a constant scale)",
								  get_func_name(aggref->aggfnoid));
				kind = XPU_AGG_SUM_NUMV;
			}
		}
	}
	if (aggref->aggfilter != NULL)
	{
		if (exprType((Node *) aggref->aggfilter) != BOOLOID)
			return refuse(reason, "%s", "FILTER clause is not boolean");
		if (!pgstrom_codegen_expr_supported(aggref->aggfilter, scanrelid, &why))
			return refuse(reason, "FILTER clause: %s", why);
	}

	if (out)
	{
		out->aggfnoid = aggref->aggfnoid;
		out->kind = kind;
		out->form = f->form;
		out->argtype = argtype;
		out->arg = arg;
		out->filter = aggref->aggfilter;
		out->param = param;
	}
	return true;
}

/*
 * A grouping key: a device type, computed on the device, and compared there
 * exactly as PostgreSQL's grouping compares it.  Text equality is bytewise
 * on the device, which a deterministic collation makes PostgreSQL's too.
 */
bool
gpupreagg_key_supported(Expr *key, Index scanrelid, char **reason)
{
	Oid			typid = exprType((Node *) key);
	int			xtype = pgstrom_codegen_xpu_type(typid);
	char	   *why;

	if (reason)
		*reason = NULL;
	if (xtype == XPU_TYPE_INVALID)
		return refuse(reason, "grouping key of type %s", format_type_be(typid));
	if (xtype == XPU_TYPE_TEXT || xtype == XPU_TYPE_VARCHAR ||
		xtype == XPU_TYPE_BPCHAR)
	{
		Oid			collid = exprCollation((Node *) key);

		if (!OidIsValid(collid) || !get_collation_isdeterministic(collid))
			return refuse(reason, "%s", "text grouping key under a nondeterministic collation");
	}
	if (!pgstrom_codegen_expr_supported(key, scanrelid, &why))
		return refuse(reason, "grouping key: %s", why);
	return true;
}

/*
 * At least the entry size gpupreagg_compute_layout() will find: every
 * text key at its widest slot.  The planner refuses what exceeds the
 * device's limit, so the layout never fails at execution.
 */
Size
gpupreagg_entry_size_bound(const GpuPreAggInfo *info)
{
	Size		size = XPU_PREAGG_ENTRY_HEADER;
	ListCell   *lc;

	foreach(lc, info->keys)
	{
		int			xtype = pgstrom_codegen_xpu_type(exprType(lfirst(lc)));

		if (xtype == XPU_TYPE_NUMERIC)
			size += 32;
		else if (xtype == XPU_TYPE_TEXT || xtype == XPU_TYPE_VARCHAR ||
				 xtype == XPU_TYPE_BPCHAR)
			size += TYPEALIGN(16, 8 + XPU_PREAGG_MAX_TEXT_KEY);
		else
			size += 16;
	}
	foreach(lc, info->aggs)
	{
		GpuPreAggAgg *agg = lfirst(lc);

		size += TYPEALIGN(16, agg_kind_bytes[agg->kind]);
	}
	return size;
}
