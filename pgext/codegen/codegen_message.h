/*
 * codegen_message.h
 *
 * xPU code generator: the assembly of a finished program into an
 * OpenSession message.  A node whose message carries more than the program
 * (GpuPreAgg's descriptor) appends it after the assembled message, each
 * part CG_ALIGN16'd as the program's parts are.
 */
#ifndef PGSTROM_CODEGEN_MESSAGE_H
#define PGSTROM_CODEGEN_MESSAGE_H

#include "postgres.h"
#include "lib/stringinfo.h"
#include "utils/rel.h"

#include "codegen/codegen_program.h"

#define CG_ALIGN16(x)	(((x) + 15) & ~((size_t) 15))

extern StringInfo cg_assemble_message(CgContext *ctx, int root, Relation rel,
									  uint64 plan_id, uint32 request_id);

#endif							/* PGSTROM_CODEGEN_MESSAGE_H */
