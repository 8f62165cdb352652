/*
 * codegen_build.h
 *
 * xPU code generator: what the GpuScan code generator (codegen_build.c)
 * exports beyond codegen.h, for the debugging functions.
 */
#ifndef PGSTROM_CODEGEN_BUILD_H
#define PGSTROM_CODEGEN_BUILD_H

#include "postgres.h"
#include "nodes/primnodes.h"

/* plan-time check of one qual, with the reason and the node count */
extern bool cg_check_qual(Expr *qual, Index scanrelid, char **reason,
						  int *nnodes);

#endif							/* PGSTROM_CODEGEN_BUILD_H */
