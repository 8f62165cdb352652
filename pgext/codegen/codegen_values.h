/*
 * codegen_values.h
 *
 * xPU code generator, above codegen_program.h and codegen_types.h: the
 * leaves of a program (constants in the constant pool, PARAM_EXTERN values,
 * Vars of the scan relation) and the CAST that converts a node to another
 * device type.
 */
#ifndef PGSTROM_CODEGEN_VALUES_H
#define PGSTROM_CODEGEN_VALUES_H

#include "postgres.h"
#include "nodes/primnodes.h"

#include "codegen/codegen_program.h"

extern int	cg_coerce(CgContext *ctx, int idx, XpuType to);
extern int32 cg_pool_append(CgContext *ctx, const void *data, int len);
extern int	cg_emit_const(CgContext *ctx, XpuType xtype, Oid typid,
						  Datum value, bool isnull);
extern int	cg_emit_param(CgContext *ctx, Param *param, XpuType xtype);
extern int	cg_emit_var(CgContext *ctx, Var *var);

/*
 * Stable expressions without columns (now() - interval '1 day'): one
 * value for the statement, evaluated when the program is built
 * (codegen_stable.c).
 */
extern bool cg_is_statement_constant(Expr *expr);
extern int	cg_emit_statement_constant(CgContext *ctx, Expr *expr,
									   XpuType xtype);

/*
 * A numeric datum as the device holds it (also GpuJoin's inner key slots):
 * false, with *why set, for what the device cannot hold.
 */
extern bool cg_encode_numeric(Datum value, XpuNumericConst *nc,
							  const char **why);

#endif							/* PGSTROM_CODEGEN_VALUES_H */
