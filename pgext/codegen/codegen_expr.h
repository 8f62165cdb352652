/*
 * codegen_expr.h
 *
 * xPU code generator: the expression emitter, which translates a PostgreSQL
 * 15 expression tree into nodes of the program under construction.  It
 * uses every layer below (program, types, values, function table) and none
 * above.
 */
#ifndef PGSTROM_CODEGEN_EXPR_H
#define PGSTROM_CODEGEN_EXPR_H

#include "postgres.h"
#include "nodes/primnodes.h"

#include "codegen/codegen_program.h"

extern int	cg_emit_expr(CgContext *ctx, Expr *expr);

#endif							/* PGSTROM_CODEGEN_EXPR_H */
