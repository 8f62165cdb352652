/*
 * codegen_text.h
 *
 * xPU code generator: the text functions (substring, length, position,
 * starts_with, left, right, trim, split_part, lower, upper, ||) and the
 * casts to text.
 */
#ifndef PGSTROM_CODEGEN_TEXT_H
#define PGSTROM_CODEGEN_TEXT_H

#include "postgres.h"
#include "nodes/pg_list.h"
#include "nodes/primnodes.h"

#include "codegen/codegen_functable.h"
#include "codegen/codegen_program.h"

extern int	cg_emit_text_func(CgContext *ctx, const CgFuncInfo *f,
							  Oid inputcollid, List *args);
extern int	cg_emit_to_text(CgContext *ctx, Expr *arg, Oid argtype,
							Oid resulttype);
extern int	cg_emit_concat(CgContext *ctx, FuncExpr *fe);
extern int	cg_emit_concat_ws(CgContext *ctx, FuncExpr *fe);

#endif							/* PGSTROM_CODEGEN_TEXT_H */
