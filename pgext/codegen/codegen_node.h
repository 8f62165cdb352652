/*
 * codegen_node.h
 *
 * The interface of the xPU code generator for node code generators: the
 * files that build the OpenSession message of one node kind
 * (codegen_build.c for GpuScan, gpupreagg/gpupreagg_codegen.c for
 * GpuPreAgg, and the next node's own file).  Planner and executor code
 * uses codegen.h instead.
 *
 * A node code generator
 *	- starts a program with cg_init_context (plan-time check or build),
 *	- emits its expressions with cg_emit_expr, converting a value to the
 *	  device type it needs with cg_coerce and adding constants with
 *	  cg_emit_const,
 *	- ends the program with a BOOL root that is its last node
 *	  (cg_add_root_node never merges the root into an existing node;
 *	  cg_emit_quals_root makes that root of the device quals),
 *	- on -1 from any of them, reports ctx->refused: "not supported" at plan
 *	  time, ERROR at build time,
 *	- and turns the program into a message with cg_assemble_message, to
 *	  which it may append node-specific parts at CG_ALIGN16 offsets.
 *
 * The layers it gathers, each using only those before it: codegen_types.h,
 * codegen_program.h and codegen_functable.h (independent of each other),
 * codegen_values.h, codegen_expr.h, codegen_message.h.  None of them
 * includes this file, and the debugging functions (codegen_debug.c) sit on
 * top of codegen_build.c.
 */
#ifndef PGSTROM_CODEGEN_NODE_H
#define PGSTROM_CODEGEN_NODE_H

#include "codegen/codegen_types.h"
#include "codegen/codegen_program.h"
#include "codegen/codegen_values.h"
#include "codegen/codegen_expr.h"
#include "codegen/codegen_message.h"

#endif							/* PGSTROM_CODEGEN_NODE_H */
