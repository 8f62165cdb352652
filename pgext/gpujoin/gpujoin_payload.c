/*-------------------------------------------------------------------------
 *
 * gpujoin_payload.c
 *		The join row's inner columns on the device: payload slots and the
 *		expressions that read them (docs/internals/join-kernels.md, "Fused GpuPreAgg",
 *		"Residual join quals").
 *
 * A column of an inner depth that a device expression reads travels in
 * the depth's inner rows as a payload slot after the key slots (same
 * encoder, gpujoin_inner.c), and the expression reads it through an
 * INNER_VAR of its XpuJoinCol.  Which columns: every inner column of the
 * join row under a fused GpuPreAgg (its keys and arguments), those the
 * residual join quals read under a plain GpuJoin (`wanted`).  The payload
 * is chosen before the inner build and the XpuJoinCols after it (the
 * slots' widths come from the rows), both in join row order.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"

#include "codegen/codegen.h"
#include "codegen/codegen_node.h"
#include "gpujoin/gpujoin.h"

/* column k of the join row travels as a payload slot */
static inline bool
is_payload(const GpuJoinState *gjs, const bool *wanted, int k)
{
	return gjs->col_source[k] > 0 && (wanted == NULL || wanted[k]);
}

/*
 * The payload columns of every depth (wanted NULL: all the join row's
 * inner columns), set before the build; false, with none set, if one is
 * of a type without a slot encoding or there are too many.  desc is the
 * join row's descriptor.
 */
bool
gpujoin_set_payload(GpuJoinState *gjs, TupleDesc desc, const bool *wanted)
{
	int			npayload = 0;
	int			k;

	for (k = 0; k < gjs->ncols; k++)
	{
		if (is_payload(gjs, wanted, k) &&
			(++npayload > GPUJOIN_MAX_PAYLOAD ||
			 !gpujoin_slot_encodable(gpujoin_key_xtype(TupleDescAttr(desc, k)->atttypid))))
			return false;
	}
	for (k = 0; k < gjs->ncols; k++)
	{
		int			d = gjs->col_source[k] - 1;
		int			j;

		if (!is_payload(gjs, wanted, k))
			continue;
		j = gjs->npayload[d]++;
		gjs->payload_resno[d][j] = gjs->col_attno[k];
		gjs->payload_xtype[d][j] = (int16) gpujoin_key_xtype(TupleDescAttr(desc, k)->atttypid);
	}
	return true;
}

/*
 * The XpuJoinCol of each payload column, from the built inner rows'
 * layout (with_layout; without, only the columns' numbers, for a check
 * before the build), in the order gpujoin_set_payload chose them with the
 * same wanted.
 */
void
gpujoin_row_map(GpuJoinState *gjs, Index scanrelid, const bool *wanted,
				bool with_layout, GpuJoinRowMap *map)
{
	int			seen[GPUJOIN_MAX_DEPTHS] = {0};
	int			k;

	map->gjs = gjs;
	map->scanrelid = scanrelid;
	map->ncols = 0;
	map->col_index = palloc(sizeof(int) * Max(gjs->ncols, 1));
	for (k = 0; k < gjs->ncols; k++)
	{
		int			d = gjs->col_source[k] - 1;
		GpuJoinInner *inner;
		int			slot;
		XpuJoinCol *col;

		map->col_index[k] = -1;
		if (!is_payload(gjs, wanted, k))
			continue;
		if (!with_layout)
		{
			map->col_index[k] = map->ncols++;
			continue;
		}
		inner = &gjs->inner[d];
		slot = inner->nkeys + seen[d]++;
		if (map->ncols >= GPUJOIN_MAX_PAYLOAD || slot >= inner->nslots)
			elog(ERROR, "GpuJoin: join row column %d has no payload slot", k);
		col = &map->cols[map->ncols];
		memset(col, 0, sizeof(XpuJoinCol));
		col->depth = (int16) d;
		col->inner_xtype = inner->key_xtype[slot];
		col->offset = inner->key_offset[slot];
		col->width = inner->key_width[slot];
		map->col_index[k] = map->ncols++;
	}
}

/*
 * An expression over the join row (Var k + 1 is its column k, with varno
 * the scan relation or INDEX_VAR) over the device's row: the outer
 * table's Var, or Var(INNER_VAR, XpuJoinCol + 1) of a payload column.
 */
Node *
gpujoin_row_map_expr(Node *node, GpuJoinRowMap *map)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varlevelsup == 0)
	{
		Var		   *var = (Var *) copyObject(node);
		int			k = var->varattno - 1;

		/* keys and arguments name the scan relation, join quals INDEX_VAR */
		if ((var->varno != map->scanrelid && var->varno != INDEX_VAR) ||
			k < 0 || k >= map->gjs->ncols)
			elog(ERROR, "GpuJoin: a column outside the join row");
		if (map->gjs->col_source[k] == 0)
		{
			var->varno = map->scanrelid;
			var->varattno = map->gjs->col_attno[k];
		}
		else if (map->col_index[k] >= 0)
		{
			var->varno = INNER_VAR;
			var->varattno = map->col_index[k] + 1;
		}
		else
			elog(ERROR, "GpuJoin: join row column %d is no payload column", k);
		return (Node *) var;
	}
	return expression_tree_mutator(node, gpujoin_row_map_expr, (void *) map);
}

/*
 * The outer table's VARs among exprs, emitted in attribute order: the
 * device fills only the VARs up to the root.
 */
bool
gpujoin_emit_outer_vars(CgContext *ctx, List *exprs, Index scanrelid)
{
	List	   *vars = pull_var_clause((Node *) exprs, 0);
	ListCell   *lc;

	foreach(lc, vars)
	{
		Var		   *var = lfirst(lc);

		if (var->varno == scanrelid && cg_emit_expr(ctx, (Expr *) var) < 0)
			return false;
	}
	return true;
}

/*
 * Each depth's residual join quals (over the device's row), ANDed into one
 * new BOOL node after everything emitted so far: depth by depth, before
 * anything else after the root, so that no node before a depth's qual
 * reads a deeper depth (the stage rule of docs/internals/join-kernels.md).
 */
bool
gpujoin_emit_row_quals(CgContext *ctx, List **quals, int ndepths,
					   GpuJoinNodes *jn)
{
	int			d;

	jn->has_quals = false;
	for (d = 0; d < ndepths; d++)
	{
		jn->qual_node[d] = -1;
		if (quals[d] == NIL)
			continue;
		jn->qual_node[d] = cg_emit_quals_root(ctx, quals[d], ctx->nnodes - 1);
		if (jn->qual_node[d] < 0)
			return false;
		jn->has_quals = true;
	}
	return true;
}

/*
 * The join row's columns a residual qual reads, from an inner depth (a
 * plain GpuJoin's payload).
 */
bool *
gpujoin_qual_columns(GpuJoinState *gjs)
{
	bool	   *wanted = palloc0(sizeof(bool) * Max(gjs->ncols, 1));
	int			d;

	for (d = 0; d < gjs->info->ndepths; d++)
	{
		List	   *vars = pull_var_clause((Node *) gjs->info->depths[d].row_quals, 0);
		ListCell   *lc;

		foreach(lc, vars)
		{
			Var		   *var = lfirst(lc);
			int			k = var->varattno - 1;

			if (var->varno == INDEX_VAR && k >= 0 && k < gjs->ncols &&
				gjs->col_source[k] > 0)
				wanted[k] = true;
		}
	}
	return wanted;
}

/*
 * A plain GpuJoin's program with its residual quals, into ctx: the outer
 * VARs the quals read, the GpuJoin program (keys, the root), then each
 * depth's quals over the payload columns of map.  False (ctx->refused
 * says why) if the device cannot take it.
 */
bool
gpujoin_emit_program_quals(CgContext *ctx, GpuJoinState *gjs,
						   GpuJoinRowMap *map, GpuJoinNodes *jn)
{
	List	   *quals[GPUJOIN_MAX_DEPTHS];
	List	   *exprs = NIL;
	int			d;

	for (d = 0; d < gjs->info->ndepths; d++)
	{
		quals[d] = (List *) gpujoin_row_map_expr((Node *) gjs->info->depths[d].row_quals,
												 map);
		exprs = list_concat(exprs, list_copy(quals[d]));
	}
	if (!gpujoin_emit_outer_vars(ctx, exprs, map->scanrelid) ||
		!gpujoin_emit_program(ctx, gjs->info, jn))
		return false;
	ctx->inner_vars = true;
	return gpujoin_emit_row_quals(ctx, quals, gjs->info->ndepths, jn);
}

/*
 * Whether a plain GpuJoin's device evaluates its residual quals: their
 * inner columns can be payload columns (set here when they can) and the
 * device takes the program with them.  desc is the join row's.
 */
bool
gpujoin_plan_device_quals(GpuJoinState *gjs, TupleDesc desc, Index scanrelid)
{
	GpuJoinRowMap map;
	CgContext	ctx;
	GpuJoinNodes jn;
	bool		ok;

	gjs->quals_device = false;
	if (!gjs->has_row_quals)
		return false;
	gjs->qual_payload = gpujoin_qual_columns(gjs);
	gpujoin_row_map(gjs, scanrelid, gjs->qual_payload, false, &map);
	cg_init_context(&ctx, false, scanrelid, NULL, CODEGEN_MAX_NODES);
	ok = gpujoin_emit_program_quals(&ctx, gjs, &map, &jn);
	cg_free_context(&ctx);
	if (ok)
		ok = gpujoin_set_payload(gjs, desc, gjs->qual_payload);
	gjs->quals_device = ok;
	return ok;
}
