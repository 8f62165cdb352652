/*
 * codegen_functable.h
 *
 * xPU code generator: the table of PostgreSQL functions (by pg_proc OID)
 * the device evaluates, with the node each becomes.  It is data only; the
 * expression emitter (codegen_expr.c) applies the entries to nodes.
 */
#ifndef PGSTROM_CODEGEN_FUNCTABLE_H
#define PGSTROM_CODEGEN_FUNCTABLE_H

#include "postgres.h"

#include "pg_strom_xpu.h"

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
	FK_LIKE,					/* (TEXT, CONST TEXT) -> BOOL */
	FK_DATE_TRUNC,				/* (field text, a2) -> restype */
	FK_ZONE,					/* (a1) cast to optype, then the zone shift
								 * opcode -> restype */
	FK_NUM_SCALE,				/* (NUMERIC, CONST INT4 scale) -> NUMERIC:
								 * the opcode with aux = the scale */
	FK_NUM_INTEGRAL,			/* (NUMERIC) -> NUMERIC: ceil, or floor with
								 * FF_NEGATE, from NUM_TRUNC to scale 0 */
	FK_TEXT,					/* a text function: the first argument as
								 * TEXT (bpchar cast), the second as arg2,
								 * a third as INT4 (SUBSTR's optional one,
								 * SPLIT_PART's) */
	FK_TO_TEXT,					/* (a1) printed as text: TO_TEXT */
	FK_TO_CHAR,					/* (a1, CONST format): TO_CHAR */
	FK_INTERVAL					/* (a1 as TIMESTAMP, CONST interval):
								 * TS_PL_INTERVAL */
} CgFuncKind;

#define FF_PATTERN		0x01	/* text comparison bytewise under any
								 * collation (text_pattern_lt, ...) */
#define FF_DATE_AS_TS	0x02	/* date_part(text, date): cast to TIMESTAMP */
#define FF_ICASE		0x04	/* ILIKE: ASCII letters without case */
#define FF_TRIM_LEAD	0x08	/* TRIM_SPACES: leading spaces */
#define FF_TRIM_TRAIL	0x10	/* TRIM_SPACES: trailing spaces */
#define FF_NEGATE		0x20	/* TS_PL_INTERVAL: minus the interval;
								 * NUM_INTEGRAL: floor */
#define FF_REGEX		0x40	/* LIKE: the pattern is a regular
								 * expression (codegen_regex.c) */
#define FF_ZONED		0x80	/* CMP: date and timestamp operands as
								 * timestamptz in the session's zone */

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

/* the entry of funcid, NULL when the device does not evaluate it */
extern const CgFuncInfo *cg_lookup_func(Oid funcid);
extern const char *cg_func_name(const CgFuncInfo *f);

/* the whole table, for the debugging function */
extern int	cg_func_table_size(void);
extern void cg_func_table_entry(int i, Oid *funcid, const char **name,
								int *opcode, int *arg1, int *arg2,
								int *restype);

#endif							/* PGSTROM_CODEGEN_FUNCTABLE_H */
