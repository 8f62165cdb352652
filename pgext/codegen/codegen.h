/*
 * codegen.h
 *
 * The boundary between the planner/executor of GpuScan and the xPU code
 * generator (see include/pg_strom_xpu.h for the program format).
 */
#ifndef PGSTROM_CODEGEN_H
#define PGSTROM_CODEGEN_H

#include "postgres.h"
#include "lib/stringinfo.h"
#include "nodes/execnodes.h"
#include "nodes/primnodes.h"
#include "utils/rel.h"

/*
 * Can the device evaluate this qual (a boolean expression over the columns
 * of range table entry scanrelid, as found in baserestrictinfo) with
 * exactly PostgreSQL's result?  Everything not listed as supported in
 * pg_strom_xpu.h, volatile functions, sublinks, whole-row and system
 * columns, non-deterministic or non-bytewise collations where they matter,
 * Params other than PARAM_EXTERN, and programs over the node limit are
 * refused.
 */
extern bool pgstrom_codegen_qual_supported(Expr *qual, Index scanrelid);

/* the same, and on false *reason (palloc'd) says why */
extern bool pgstrom_codegen_qual_check(Expr *qual, Index scanrelid,
									   char **reason);

/*
 * Builds a complete OpenSession message (PgStromMsgHeader + XpuSession +
 * attribute descriptors + nodes + argument array + constant pool) for the
 * implicitly-ANDed list of device quals.  PARAM_EXTERN values are taken
 * from econtext->ecxt_param_list_info at this point.  NULL with *cpu_reason
 * where an expression cannot be encoded now (the planner checked it, but
 * what it depends on, such as the session's time zone, may have changed
 * since): the node then runs on the CPU.
 */
extern StringInfo pgstrom_build_gpuscan_session(List *dev_quals,
												Index scanrelid,
												Relation rel,
												ExprContext *econtext,
												uint64 plan_id,
												uint32 request_id,
												const char **cpu_reason);

/*
 * Can the device compute this expression (of any device type, not only
 * boolean) over the columns of scanrelid with exactly PostgreSQL's value?
 * On false, *reason (if not NULL) says why, palloc'd.
 */
extern bool pgstrom_codegen_expr_supported(Expr *expr, Index scanrelid,
										   char **reason);

/* the device type of a PostgreSQL type, XPU_TYPE_INVALID if none */
extern int	pgstrom_codegen_xpu_type(Oid typid);
extern int	pgstrom_codegen_text_bound(Expr *expr);

/*
 * Builds the OpenSession message of a GpuPreAgg (kind XPU_KIND_GPUPREAGG):
 * the device quals as the root, the keys', arguments' and filters' nodes
 * before it, and the XpuPreAggDesc (implemented in
 * gpupreagg/gpupreagg_codegen.c).  NULL with *cpu_reason as
 * pgstrom_build_gpuscan_session.
 */
struct GpuPreAggInfo;
extern StringInfo pgstrom_build_gpupreagg_session(const struct GpuPreAggInfo *info,
												  Index scanrelid,
												  Relation rel,
												  ExprContext *econtext,
												  uint64 plan_id,
												  uint32 request_id,
												  const char **cpu_reason);

#endif							/* PGSTROM_CODEGEN_H */
