/*
 * codegen_program.h
 *
 * xPU code generator, lowest layer beside codegen_types.h: the program
 * under construction (CgContext) and the appending of nodes to it.
 *
 * One translator serves both the planner and the executor.  It walks an
 * expression tree and appends nodes in post-order to a program under
 * construction.  A construct it cannot encode makes the walker return -1
 * with ctx->refused set to the reason (cg_refuse); at plan time that is a
 * plain "not supported", at build time it becomes an ERROR.
 */
#ifndef PGSTROM_CODEGEN_PROGRAM_H
#define PGSTROM_CODEGEN_PROGRAM_H

#include "postgres.h"
#include "lib/stringinfo.h"
#include "nodes/execnodes.h"

#include "pg_strom_xpu.h"

/*
 * Node limits.  The kernel keeps one value slot per node and thread and
 * allows CODEGEN_MAX_NODES (XPU_GPUSCAN_MAX_SLOTS) of them.  The planner
 * asks about each clause separately, so a single clause may use at most
 * CODEGEN_MAX_NODES_PER_QUAL nodes; the AND of every device qual of a scan
 * must still fit into CODEGEN_MAX_NODES, which pgstrom_build_gpuscan_session
 * checks (ERROR otherwise).  To keep within it, the planner can ask
 * pgstrom_codegen_qual_supported about make_ands_explicit(list): a top-level
 * AND is checked against CODEGEN_MAX_NODES, with the very node count the
 * build of that list will have.
 */
#define CODEGEN_MAX_NODES			XPU_GPUSCAN_MAX_NODES
#define CODEGEN_MAX_NODES_PER_QUAL	64
#define CODEGEN_MAX_ARRAY_ELEMS		1000	/* ScalarArrayOpExpr elements */
#define CODEGEN_MAX_TEXT_CONST		(1024 * 1024)	/* bytes of a text const */
#define CODEGEN_MAX_NUMERIC_DIGITS	38		/* |unscaled value| < 10^38 */
#define CODEGEN_MAX_NUMERIC_SCALE	38

typedef struct CgContext
{
	bool		build;			/* false: plan-time check, Params are
								 * placeholders */
	Index		scanrelid;
	ExprContext *econtext;		/* build only: PARAM_EXTERN values */
	int			max_nodes;

	/* the program under construction */
	XpuNode    *nodes;
	int			nnodes;
	int			nodes_cap;
	int32	   *args;
	int			nargs;
	int			args_cap;
	StringInfoData consts;		/* constant pool, values 16-byte aligned */
	int16	   *attr_xtype;		/* [XPU_MAX_ATTRS], by attnum - 1 */
	int			max_attno;		/* highest attnum referenced */

	bool		no_dedup;		/* cg_add_node: always append */
	bool		build_param;	/* cg_emit_const: a Param's value at build
								 * time, which must not be refused */

	/*
	 * A fused GpuPreAgg's program after the join's root: a Var with varno
	 * INNER_VAR is payload column varattno - 1 (XPU_OP_INNER_VAR).
	 */
	bool		inner_vars;

	/* simple CASE: the node that CaseTestExpr stands for, or -1 */
	int			case_test_node;

	/*
	 * the session zone's XpuZoneRules in the pool (codegen_zone.c), -1
	 * until built; zone_unit: 3600, 60 or 1, the largest that divides
	 * every offset of the rules
	 */
	int32		zone_rules_off;
	int32		zone_unit;

	/* why the expression was refused, when a walker returned -1 */
	char	   *refused;
} CgContext;

extern void cg_init_context(CgContext *ctx, bool build, Index scanrelid,
							ExprContext *econtext, int max_nodes);
extern void cg_free_context(CgContext *ctx);
extern void cg_assign_scratch(int nnodes, XpuNode *nodes);
extern StringInfo cg_refused_session(CgContext *ctx, const char **cpu_reason);
extern int	cg_refuse(CgContext *ctx, const char *fmt,...) pg_attribute_printf(2, 3);
extern int	cg_add_node(CgContext *ctx, XpuOpcode opcode, XpuType restype,
						uint16 flags, int32 aux, int nargs, const int *argv);
extern int	cg_add_root_node(CgContext *ctx, XpuOpcode opcode, int nargs,
							 const int *argv);

#endif							/* PGSTROM_CODEGEN_PROGRAM_H */
