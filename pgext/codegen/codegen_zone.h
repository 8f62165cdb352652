/*
 * codegen_zone.h
 *
 * xPU code generator: the session's time zone as the device models it.
 */
#ifndef PGSTROM_CODEGEN_ZONE_H
#define PGSTROM_CODEGEN_ZONE_H

#include "postgres.h"

#include "codegen/codegen_program.h"

/*
 * The session zone of TZ_LOCAL and TZ_UTC nodes: a fixed offset (flags 0,
 * aux its seconds east of UTC) or rules in the pool (XPU_NODE_TZ_RULES,
 * aux their offset); unit is 3600, 60 or 1, the largest that divides every
 * offset the zone takes.
 */
typedef struct CgZone
{
	uint16		flags;
	int32		aux;
	int32		unit;
} CgZone;

/* UTC itself: a shift by 0, which only changes a node's type */
#define CG_ZONE_UTC		((CgZone) {0, 0, 3600})

extern bool cg_session_zone(CgContext *ctx, CgZone *zone);
extern int	cg_zone_node(CgContext *ctx, XpuOpcode opcode, XpuType restype,
						 const CgZone *zone, int arg);

#endif							/* PGSTROM_CODEGEN_ZONE_H */
