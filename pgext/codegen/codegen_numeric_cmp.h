/*
 * codegen_numeric_cmp.h
 *
 * xPU code generator: comparisons of numeric values with a NaN or infinite
 * constant, which the device cannot hold, as an equivalent comparison it
 * can run.
 */
#ifndef PGSTROM_CODEGEN_NUMERIC_CMP_H
#define PGSTROM_CODEGEN_NUMERIC_CMP_H

#include "postgres.h"
#include "nodes/primnodes.h"

extern Expr *cg_numeric_special_compare(OpExpr *op);

#endif							/* PGSTROM_CODEGEN_NUMERIC_CMP_H */
