/*-------------------------------------------------------------------------
 *
 * task_prune.c
 *		Run-time pruning of a partition's GPU node.
 *
 * PostgreSQL prunes an Append's partitions at execution from the
 * partitioned relation's quals.  The Append over the partitions' GpuJoin
 * nodes (fused with GpuPreAgg or not) belongs to the join relation, which
 * has no such quals, so the planner gives it no pruning: a generic plan of
 * a prepared statement (`WHERE lo_orderdate >= $1`) would scan every
 * partition.  So a GPU node whose relation is a partition checks, before
 * its first row, whether its device quals with the values of the
 * statement's parameters contradict
 * the partition's constraint (the ancestors' included), as constraint
 * exclusion does at plan time; when they do, the node scans nothing and
 * runs no inner plan.  The check is made again after a rescan, whose
 * parameters may differ.  Only immutable functions are folded, so a qual
 * over a stable function prunes nothing.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/executor.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "partitioning/partdesc.h"
#include "utils/lsyscache.h"
#include "utils/partcache.h"
#include "utils/rel.h"

#include "runtime/gpu_task.h"

static bool
contains_param(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Param))
		return true;
	return expression_tree_walker(node, contains_param, context);
}

/* a statement parameter's value as a Const; NULL for any other Param */
static Node *
param_value(Param *param, ParamListInfo params)
{
	ParamExternData prmdata;
	ParamExternData *prm;
	int16		typlen;
	bool		typbyval;

	if (param->paramkind != PARAM_EXTERN || params == NULL ||
		param->paramid <= 0 || param->paramid > params->numParams)
		return NULL;
	prm = params->paramFetch != NULL ?
		params->paramFetch(params, param->paramid, false, &prmdata) :
		&params->params[param->paramid - 1];
	if (prm == NULL || prm->ptype != param->paramtype)
		return NULL;
	get_typlenbyval(param->paramtype, &typlen, &typbyval);
	return (Node *) makeConst(param->paramtype, param->paramtypmod,
							  param->paramcollid, typlen, prm->value,
							  prm->isnull, typbyval);
}

/* the quals with Params as their values and the relation as varno 1 */
static Node *
bind_mutator(Node *node, ParamListInfo params)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Param))
	{
		Node	   *value = param_value((Param *) node, params);

		return value != NULL ? value : copyObject(node);
	}
	if (IsA(node, Var))
	{
		Var		   *var = copyObject((Var *) node);

		if (var->varlevelsup == 0)
			var->varno = 1;
		return (Node *) var;
	}
	return expression_tree_mutator(node, bind_mutator, (void *) params);
}

static bool
partition_pruned(GpuTaskState *gts)
{
	Relation	rel = gts->rel;
	List	   *constraint;
	List	   *quals;

	if (rel == NULL || !rel->rd_rel->relispartition ||
		!contains_param((Node *) gts->dev_quals, NULL))
		return false;
	constraint = RelationGetPartitionQual(rel);
	if (constraint == NIL)
		return false;
	quals = (List *) bind_mutator((Node *) gts->dev_quals,
								  gts->css.ss.ps.state->es_param_list_info);
	quals = (List *) eval_const_expressions(NULL, (Node *) quals);
	return predicate_refuted_by(constraint, quals, false);
}

/*
 * Does the node's partition hold no row its quals accept, given the
 * parameters' values now?  Checked once per scan.
 */
bool
gpu_task_partition_pruned(GpuTaskState *gts)
{
	if (!gts->prune_checked)
	{
		gts->prune_checked = true;
		gts->pruned = partition_pruned(gts);
		if (gts->pruned)
			gts->counters.npruned++;
	}
	return gts->pruned;
}
