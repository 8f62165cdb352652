/*
 * codegen_build.c
 *
 * xPU code generator: the GpuScan program (the AND of the device quals as
 * its root) and the entry points of codegen.h, the plan-time checks and
 * the building of GpuScan's OpenSession message.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"

#include "codegen/codegen.h"
#include "codegen/codegen_build.h"
#include "codegen/codegen_node.h"

/*
 * Translates one qual, and makes sure its value is BOOL and that its root is
 * the last node (the program's root must be nnodes - 1: a qual such as
 * "+x" may end on an existing node, which IS_TRUE re-roots; for a qual,
 * TRUE and IS TRUE accept the same rows).
 */
static int
cg_emit_qual(CgContext *ctx, Expr *qual)
{
	int			idx = cg_emit_expr(ctx, qual);

	if (idx < 0)
		return -1;
	if (ctx->nodes[idx].restype != XPU_TYPE_BOOL)
		return cg_refuse(ctx, "qual is not of type boolean");
	if (idx != ctx->nnodes - 1)
		idx = cg_add_root_node(ctx, XPU_OP_IS_TRUE, 1, &idx);
	return idx;
}

/* plan-time check of one qual, with the reason and the node count */
bool
cg_check_qual(Expr *qual, Index scanrelid, char **reason, int *nnodes)
{
	CgContext	ctx;
	bool		ok;

	if (reason)
		*reason = NULL;
	if (nnodes)
		*nnodes = 0;
	if (contain_volatile_functions((Node *) qual))
	{
		if (reason)
			*reason = pstrdup("volatile function");
		return false;
	}
	cg_init_context(&ctx, false, scanrelid, NULL,
					is_andclause(qual) ? CODEGEN_MAX_NODES : CODEGEN_MAX_NODES_PER_QUAL);
	ok = (cg_emit_qual(&ctx, qual) >= 0);
	if (!ok && reason)
		*reason = pstrdup(ctx.refused ? ctx.refused : "unknown reason");
	if (nnodes)
		*nnodes = ctx.nnodes;
	cg_free_context(&ctx);
	return ok;
}

/*
 * A single clause may use CODEGEN_MAX_NODES_PER_QUAL nodes.  An AND at the
 * top, which a RestrictInfo's clause never is (the planner flattens them),
 * is taken as a whole list of device quals, make_ands_explicit(dev_quals),
 * and checked against the kernel's CODEGEN_MAX_NODES: the node count of
 * that check equals the one of pgstrom_build_gpuscan_session for the list.
 */
bool
pgstrom_codegen_qual_supported(Expr *qual, Index scanrelid)
{
	return cg_check_qual(qual, scanrelid, NULL, NULL);
}

bool
pgstrom_codegen_qual_check(Expr *qual, Index scanrelid, char **reason)
{
	return cg_check_qual(qual, scanrelid, reason, NULL);
}

StringInfo
pgstrom_build_gpuscan_session(List *dev_quals,
							  Index scanrelid,
							  Relation rel,
							  ExprContext *econtext,
							  uint64 plan_id,
							  uint32 request_id,
							  const char **cpu_reason)
{
	CgContext	ctx;
	int		   *roots;
	int			nquals = list_length(dev_quals);
	int			root;
	int			i = 0;
	ListCell   *lc;
	StringInfo	result;

	cg_init_context(&ctx, true, scanrelid, econtext, CODEGEN_MAX_NODES);
	roots = palloc(sizeof(int) * Max(nquals, 1));
	foreach(lc, dev_quals)
	{
		Expr	   *qual = (Expr *) lfirst(lc);

		roots[i] = cg_emit_expr(&ctx, qual);
		if (roots[i] >= 0 && ctx.nodes[roots[i]].restype != XPU_TYPE_BOOL)
			roots[i] = cg_refuse(&ctx, "qual is not of type boolean");
		if (roots[i] < 0)
			return cg_refused_session(&ctx, cpu_reason);
		i++;
	}

	if (nquals == 0)
		root = cg_emit_const(&ctx, XPU_TYPE_BOOL, BOOLOID, BoolGetDatum(true), false);
	else if (nquals == 1)
	{
		root = roots[0];
		if (root != ctx.nnodes - 1)
			root = cg_add_root_node(&ctx, XPU_OP_IS_TRUE, 1, &root);
	}
	else
		root = cg_add_root_node(&ctx, XPU_OP_AND, nquals, roots);
	if (root < 0)
		return cg_refused_session(&ctx, cpu_reason);

	result = cg_assemble_message(&ctx, root, rel, plan_id, request_id);
	pfree(roots);
	cg_free_context(&ctx);
	return result;
}

/* plan-time check of an expression of any device type */
bool
pgstrom_codegen_expr_supported(Expr *expr, Index scanrelid, char **reason)
{
	CgContext	ctx;
	bool		ok;

	if (reason)
		*reason = NULL;
	if (contain_volatile_functions((Node *) expr))
	{
		if (reason)
			*reason = pstrdup("volatile function");
		return false;
	}
	cg_init_context(&ctx, false, scanrelid, NULL, CODEGEN_MAX_NODES_PER_QUAL);
	ok = (cg_emit_expr(&ctx, expr) >= 0);
	if (!ok && reason)
		*reason = pstrdup(ctx.refused ? ctx.refused : "unknown reason");
	cg_free_context(&ctx);
	return ok;
}

int
pgstrom_codegen_xpu_type(Oid typid)
{
	return (int) cg_xtype_of_oid(typid);
}
