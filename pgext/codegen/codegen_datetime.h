/*
 * codegen_datetime.h
 *
 * xPU code generator: extract/date_part, date_trunc, to_char, date and
 * timestamp plus or minus a constant interval, and the casts between
 * timestamptz and date or timestamp.
 */
#ifndef PGSTROM_CODEGEN_DATETIME_H
#define PGSTROM_CODEGEN_DATETIME_H

#include "postgres.h"
#include "nodes/pg_list.h"

#include "codegen/codegen_functable.h"
#include "codegen/codegen_program.h"

extern int	cg_emit_extract(CgContext *ctx, const CgFuncInfo *f, List *args);
extern int	cg_emit_date_trunc(CgContext *ctx, const CgFuncInfo *f, List *args);
extern int	cg_emit_zone_shift(CgContext *ctx, const CgFuncInfo *f, int arg);
extern int	cg_emit_as_timestamptz(CgContext *ctx, int arg);
extern int	cg_emit_to_char(CgContext *ctx, const CgFuncInfo *f, List *args);
extern int	cg_emit_interval_shift(CgContext *ctx, const CgFuncInfo *f, List *args);

#endif							/* PGSTROM_CODEGEN_DATETIME_H */
