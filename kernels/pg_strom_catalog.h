/*
 * pg_strom_catalog.h
 *
 * What the kernels module tells the service about itself.  The service reads
 * pgstrom_kernel_catalog back with cuModuleGetGlobal after loading the
 * fatbin, to prove the module is ours and to learn which opcodes it knows.
 */
#ifndef PG_STROM_CATALOG_H
#define PG_STROM_CATALOG_H

#define PGSTROM_KERNELS_VERSION		"1.1"
#define PGSTROM_KERNEL_CATALOG		"pg_strom kernels " PGSTROM_KERNELS_VERSION \
	"; gpuscan; max_slots: 128" \
	"; ops: VAR,CONST,EQ,NE,LT,LE,GT,GE,ADD,SUB,MUL,DIV,MOD,NEG,ABS,CAST,AND,OR,NOT," \
	"IS_NULL,IS_NOT_NULL,IS_TRUE,IS_NOT_TRUE,IS_FALSE,IS_NOT_FALSE,IS_UNKNOWN,IS_NOT_UNKNOWN," \
	"CASE,COALESCE,DATE_PLI,DATE_MII,DATE_MI,EXTRACT,DATE_PART,LIKE,NOT_LIKE" \
	"; types: BOOL,INT2,INT4,INT8,FLOAT4,FLOAT8,NUMERIC,DATE,TIMESTAMP,TIMESTAMPTZ,TEXT,VARCHAR,BPCHAR"

/* what kern_gpuservice_probe writes to out[0]: "PSPR" */
#define PGSTROM_PROBE_MAGIC			0x50535052U

#endif							/* PG_STROM_CATALOG_H */
