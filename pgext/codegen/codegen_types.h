/*
 * codegen_types.h
 *
 * xPU code generator, lowest layer: which PostgreSQL types the device has,
 * the names of device types and opcodes, and the casts between device
 * types.  It knows nothing of a program under construction, so every other
 * layer may use it.
 */
#ifndef PGSTROM_CODEGEN_TYPES_H
#define PGSTROM_CODEGEN_TYPES_H

#include "postgres.h"

#include "pg_strom_xpu.h"

extern XpuType cg_xtype_of_oid(Oid typid);
extern bool cg_type_is_enum(Oid typid);
extern const char *cg_xtype_name(int xtype);
extern const char *cg_opcode_name(int opcode);
extern bool cg_cast_supported(XpuType from, XpuType to);
extern int	cg_align_attr(char attalign);

#endif							/* PGSTROM_CODEGEN_TYPES_H */
