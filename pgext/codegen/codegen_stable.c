/*
 * codegen_stable.c
 *
 * xPU code generator: expressions whose value is the same for every row of
 * a statement but unknown while planning, such as now() - interval '1 day',
 * current_date - 7 or current_setting('app.region').  PostgreSQL folds
 * immutable expressions while planning; stable ones it evaluates per row,
 * except where it evaluates them once as a scan starts (an index scan's
 * run-time keys, run-time partition pruning).  The device takes them the
 * second way: at plan time a placeholder CONST node stands for the value,
 * as for a PARAM_EXTERN, and when the node's program is built for
 * execution the expression is evaluated once, in the executor's context,
 * and its value becomes a constant.  An error of that evaluation is raised
 * then, as an index scan raises its run-time keys' errors.
 */
#include "postgres.h"

#include "executor/executor.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"

#include "codegen/codegen_types.h"
#include "codegen/codegen_values.h"

/* true at the first node that ties a value to a row, a plan or a sub-query */
static bool
varies_within_statement(Node *node, void *context)
{
	if (node == NULL)
		return false;
	switch (nodeTag(node))
	{
		case T_Var:
		case T_PlaceHolderVar:
		case T_Aggref:
		case T_WindowFunc:
		case T_GroupingFunc:
		case T_SubLink:
		case T_SubPlan:
		case T_AlternativeSubPlan:
		case T_CaseTestExpr:
		case T_CoerceToDomainValue:
		case T_SetToDefault:
		case T_CurrentOfExpr:
		case T_NextValueExpr:
			return true;
		case T_Param:
			return ((Param *) node)->paramkind != PARAM_EXTERN;
		default:
			break;
	}
	return expression_tree_walker(node, varies_within_statement, context);
}

/*
 * Is expr a stable expression the device can take as a constant?  A Const
 * or a lone Param is not one (they have their own nodes), nor is an
 * expression of immutable functions over Params, which the device
 * evaluates per row as before.
 */
bool
cg_is_statement_constant(Expr *expr)
{
	if (IsA(expr, Const) || IsA(expr, Param) || IsA(expr, RelabelType))
		return false;
	if (cg_xtype_of_oid(exprType((Node *) expr)) == XPU_TYPE_INVALID)
		return false;
	if (!contain_mutable_functions((Node *) expr) ||
		contain_volatile_functions((Node *) expr) ||
		expression_returns_set((Node *) expr))
		return false;
	return !varies_within_statement((Node *) expr, NULL);
}

/* a CONST node of type xtype for an expression cg_is_statement_constant took */
int
cg_emit_statement_constant(CgContext *ctx, Expr *expr, XpuType xtype)
{
	ExprContext *econtext = ctx->econtext;
	ExprContext *own = NULL;
	ExprState  *state;
	Datum		value;
	bool		isnull;
	int			idx;

	if (!ctx->build)
		return cg_add_node(ctx, XPU_OP_CONST, xtype, 0, 0, 0, NULL);
	if (econtext == NULL)
		econtext = own = CreateStandaloneExprContext();
	state = ExecInitExprWithParams(expr, econtext->ecxt_param_list_info);
	value = ExecEvalExprSwitchContext(state, econtext, &isnull);

	/* a value past the device's range makes rows RECHECK, as for a Param */
	ctx->build_param = true;
	idx = cg_emit_const(ctx, xtype, exprType((Node *) expr), value, isnull);
	ctx->build_param = false;
	if (own)
		FreeExprContext(own, true);
	return idx;
}
