/*-------------------------------------------------------------------------
 *
 * gpu_not_offered.h
 *		DEBUG2 lines that say why the planner offered no GPU node for a
 *		relation, or which of its WHERE clauses stay on the CPU.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGSTROM_GPU_NOT_OFFERED_H
#define PGSTROM_GPU_NOT_OFFERED_H

#include "nodes/primnodes.h"

/* "<node> not offered for relation "<rel>": <reason>", at DEBUG2 */
extern void gpu_report_not_offered(const char *node, Oid reloid,
								   const char *reason);

/*
 * "<node> on relation "<rel>": WHERE clause <clause> runs on the CPU:
 * <reason>", at DEBUG2, the clause deparsed; relid is the clause's range
 * table index for the relation.
 */
extern void gpu_report_cpu_clause(const char *node, Oid reloid, Index relid,
								  Expr *clause, const char *reason);

#endif							/* PGSTROM_GPU_NOT_OFFERED_H */
