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
#include "nodes/pg_list.h"
#include "nodes/primnodes.h"

#include "codegen/codegen_program.h"

extern int	cg_emit_expr(CgContext *ctx, Expr *expr);
extern bool cg_collation_is_deterministic(Oid collid);
extern int	cg_text_encoding_flags(void);

/* idx (a node), or -1 refused when its type is not the declared one */
struct CgFuncInfo;
extern int	cg_check_arg_type(CgContext *ctx, const struct CgFuncInfo *f,
							  int idx, int declared);

/*
 * The device quals as the program's root, its last node and above
 * max_used (the highest node the caller emitted for its own use, or -1);
 * -1 with ctx->refused set if they cannot run on the device.
 */
extern int	cg_emit_quals_root(CgContext *ctx, List *quals, int max_used);

#endif							/* PGSTROM_CODEGEN_EXPR_H */
