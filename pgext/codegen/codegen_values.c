/*
 * codegen_values.c
 *
 * xPU code generator: the leaves of a program, i.e. the encoding of
 * constants (Const and PARAM_EXTERN values) into the constant pool and the
 * Vars of the scan relation, and the CAST node that converts a value to
 * another device type.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "nodes/params.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

#include "codegen/codegen_program.h"
#include "codegen/codegen_types.h"
#include "codegen/codegen_values.h"

#ifndef HAVE_INT128
#error "the xPU code generator needs a 128-bit integer type"
#endif

/*
 * Node idx converted to type 'to': idx itself when it already has that
 * type, else a new CAST node.
 */
int
cg_coerce(CgContext *ctx, int idx, XpuType to)
{
	XpuType		from;

	if (idx < 0)
		return idx;
	from = (XpuType) ctx->nodes[idx].restype;
	if (from == to)
		return idx;
	if (!cg_cast_supported(from, to))
		return cg_refuse(ctx, "cast from %s to %s is not supported on the device",
						 cg_xtype_name(from), cg_xtype_name(to));
	return cg_add_node(ctx, XPU_OP_CAST, to, 0, 0, 1, &idx);
}

/* ----------------------------------------------------------------
 * Constant pool
 * ----------------------------------------------------------------
 */

/* appends a value at the next multiple of 16; returns its pool offset */
int32
cg_pool_append(CgContext *ctx, const void *data, int len)
{
	StringInfo	pool = &ctx->consts;
	int32		offset;

	while (pool->len % 16 != 0)
		appendStringInfoCharMacro(pool, '\0');
	offset = pool->len;
	appendBinaryStringInfo(pool, data, len);
	return offset;
}

/*
 * A numeric datum as a 128-bit unscaled integer and a scale (= dscale).
 * Returns false, with *why set, for NaN, infinities, 38 digits or more and
 * scales beyond CODEGEN_MAX_NUMERIC_SCALE.  numeric_out prints exactly
 * dscale fraction digits, so its text is an exact rendering of the value.
 */
bool
cg_encode_numeric(Datum value, XpuNumericConst *nc, const char **why)
{
	char	   *str = DatumGetCString(DirectFunctionCall1(numeric_out, value));
	const char *p = str;
	bool		negative = false;
	bool		seen_point = false;
	int			ndigits = 0;	/* significant digits */
	int			scale = 0;
	int128		v = 0;

	if (*p == '-')
	{
		negative = true;
		p++;
	}
	if (!isdigit((unsigned char) *p))
	{
		/* NaN, Infinity, -Infinity */
		*why = "numeric NaN or infinity";
		return false;
	}
	for (; *p; p++)
	{
		if (*p == '.' && !seen_point)
		{
			seen_point = true;
			continue;
		}
		if (!isdigit((unsigned char) *p))
		{
			*why = "unexpected numeric text";
			return false;
		}
		if (seen_point)
			scale++;
		if (v != 0 || *p != '0')
		{
			if (++ndigits > CODEGEN_MAX_NUMERIC_DIGITS)
			{
				*why = "numeric constant of 38 digits or more";
				return false;
			}
			v = v * 10 + (*p - '0');
		}
	}
	if (scale > CODEGEN_MAX_NUMERIC_SCALE)
	{
		*why = "numeric constant with more than 38 fraction digits";
		return false;
	}
	if (negative)
		v = -v;
	memset(nc, 0, sizeof(XpuNumericConst));
	nc->lo = (int64) ((uint128) v & UINT64CONST(0xFFFFFFFFFFFFFFFF));
	nc->hi = (int64) (v >> 64);
	nc->scale = scale;
	pfree(str);
	return true;
}

/*
 * A CONST node of device type xtype for a datum of PostgreSQL type typid.
 * The caller has checked that typid maps to xtype, or that the datum's
 * representation is the one of xtype (varchar/text).
 */
int
cg_emit_const(CgContext *ctx, XpuType xtype, Oid typid, Datum value, bool isnull)
{
	int32		offset;

	if (isnull)
		return cg_add_node(ctx, XPU_OP_CONST, xtype, XPU_NODE_CONST_NULL, 0,
						   0, NULL);

	switch (xtype)
	{
		case XPU_TYPE_BOOL:
			{
				uint8		b = DatumGetBool(value) ? 1 : 0;

				offset = cg_pool_append(ctx, &b, 1);
				break;
			}
		case XPU_TYPE_INT2:
			{
				int16		v = DatumGetInt16(value);

				offset = cg_pool_append(ctx, &v, sizeof(v));
				break;
			}
		case XPU_TYPE_INT4:
			{
				int32		v = DatumGetInt32(value);

				offset = cg_pool_append(ctx, &v, sizeof(v));
				break;
			}
		case XPU_TYPE_DATE:
			{
				int32		v = DatumGetDateADT(value);

				offset = cg_pool_append(ctx, &v, sizeof(v));
				break;
			}
		case XPU_TYPE_INT8:
		case XPU_TYPE_TIMESTAMP:
		case XPU_TYPE_TIMESTAMPTZ:
			{
				int64		v = DatumGetInt64(value);

				offset = cg_pool_append(ctx, &v, sizeof(v));
				break;
			}
		case XPU_TYPE_FLOAT4:
			{
				float4		v = DatumGetFloat4(value);

				offset = cg_pool_append(ctx, &v, sizeof(v));
				break;
			}
		case XPU_TYPE_FLOAT8:
			{
				float8		v = DatumGetFloat8(value);

				offset = cg_pool_append(ctx, &v, sizeof(v));
				break;
			}
		case XPU_TYPE_NUMERIC:
			{
				XpuNumericConst nc;
				const char *why;

				if (!cg_encode_numeric(value, &nc, &why))
				{
					int128		v = 1;
					int			k;

					if (!ctx->build_param)
						return cg_refuse(ctx, "%s", why);

					/*
					 * A PARAM_EXTERN value known only now.  Refusing it
					 * would fail a query PostgreSQL runs fine, so it becomes
					 * a constant beyond the device's numeric range, which
					 * makes every row RECHECK: the CPU then evaluates the
					 * quals with PostgreSQL's own semantics.
					 */
					for (k = 0; k < CODEGEN_MAX_NUMERIC_DIGITS; k++)
						v *= 10;	/* 10^38 > the device's bound */
					memset(&nc, 0, sizeof(nc));
					nc.lo = (int64) ((uint128) v & UINT64CONST(0xFFFFFFFFFFFFFFFF));
					nc.hi = (int64) (v >> 64);
					nc.scale = 0;
				}
				offset = cg_pool_append(ctx, &nc, sizeof(nc));
				break;
			}
		case XPU_TYPE_TEXT:
		case XPU_TYPE_VARCHAR:
		case XPU_TYPE_BPCHAR:
			{
				struct varlena *t = PG_DETOAST_DATUM_PACKED(value);
				XpuTextConst tc;

				memset(&tc, 0, sizeof(tc));
				tc.len = VARSIZE_ANY_EXHDR(t);
				if (tc.len > CODEGEN_MAX_TEXT_CONST && !ctx->build_param)
					return cg_refuse(ctx, "text constant longer than %d bytes",
									 CODEGEN_MAX_TEXT_CONST);
				offset = cg_pool_append(ctx, &tc, sizeof(tc));
				appendBinaryStringInfo(&ctx->consts, VARDATA_ANY(t), tc.len);
				if ((Pointer) t != DatumGetPointer(value))
					pfree(t);
				break;
			}
		default:
			return cg_refuse(ctx, "constant of type %s is not supported",
							 format_type_be(typid));
	}
	return cg_add_node(ctx, XPU_OP_CONST, xtype, 0, offset, 0, NULL);
}

/*
 * A PARAM_EXTERN.  At plan time its value is unknown: a placeholder CONST
 * node stands for it (only the node count matters then).  At build time
 * its value comes from the executor's ParamListInfo, as ExecEvalParamExtern
 * fetches it.
 */
int
cg_emit_param(CgContext *ctx, Param *param, XpuType xtype)
{
	ParamListInfo params;
	ParamExternData prmdata;
	ParamExternData *prm;
	int			idx;

	if (param->paramkind != PARAM_EXTERN)
		return cg_refuse(ctx, "only external parameters are supported");
	if (!ctx->build)
		return cg_add_node(ctx, XPU_OP_CONST, xtype, 0, 0, 0, NULL);

	params = ctx->econtext ? ctx->econtext->ecxt_param_list_info : NULL;
	if (params == NULL || param->paramid <= 0 ||
		param->paramid > params->numParams)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("no value found for parameter %d", param->paramid)));
	if (params->paramFetch != NULL)
		prm = params->paramFetch(params, param->paramid, false, &prmdata);
	else
		prm = &params->params[param->paramid - 1];
	if (!OidIsValid(prm->ptype))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("no value found for parameter %d", param->paramid)));
	if (prm->ptype != param->paramtype)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("type of parameter %d (%s) does not match that when preparing the plan (%s)",
						param->paramid,
						format_type_be(prm->ptype),
						format_type_be(param->paramtype))));
	ctx->build_param = true;
	idx = cg_emit_const(ctx, xtype, param->paramtype, prm->value, prm->isnull);
	ctx->build_param = false;
	return idx;
}

/* a Var of the scan relation */
int
cg_emit_var(CgContext *ctx, Var *var)
{
	XpuType		xtype;
	int			i;

	if (ctx->inner_vars && var->varno == INNER_VAR && var->varlevelsup == 0)
	{
		xtype = cg_xtype_of_oid(var->vartype);
		if (xtype == XPU_TYPE_INVALID || var->varattno <= 0)
			return cg_refuse(ctx, "inner column of type %s is not supported",
							 format_type_be(var->vartype));
		return cg_add_node(ctx, XPU_OP_INNER_VAR, xtype, 0, var->varattno - 1,
						   0, NULL);
	}
	if (var->varno != ctx->scanrelid || var->varlevelsup != 0)
		return cg_refuse(ctx, "reference to a column of another relation");
	if (var->varattno == 0)
		return cg_refuse(ctx, "whole-row reference");
	if (var->varattno < 0)
		return cg_refuse(ctx, "system column reference");
	if (var->varattno > XPU_MAX_ATTRS)
		return cg_refuse(ctx, "attribute number %d out of range", var->varattno);
	xtype = cg_xtype_of_oid(var->vartype);
	if (xtype == XPU_TYPE_INVALID)
		return cg_refuse(ctx, "column of type %s is not supported",
						 format_type_be(var->vartype));

	i = var->varattno - 1;
	if (ctx->attr_xtype[i] != 0 && ctx->attr_xtype[i] != xtype)
		return cg_refuse(ctx, "column %d referenced with two types", var->varattno);
	ctx->attr_xtype[i] = xtype;
	if (var->varattno > ctx->max_attno)
		ctx->max_attno = var->varattno;

	/* cg_add_node reuses the VAR node of this column if there is one */
	return cg_add_node(ctx, XPU_OP_VAR, xtype, 0, i, 0, NULL);
}
