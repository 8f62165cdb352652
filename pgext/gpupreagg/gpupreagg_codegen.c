/*
 * gpupreagg_codegen.c
 *
 * xPU code generator for GpuPreAgg: one program computes the grouping
 * keys, the aggregate arguments and the FILTER clauses, and has the device
 * quals as its root (a CONST true when there are none).  The nodes of keys,
 * arguments and filters are emitted first, so each is below the root; the
 * root is made a fresh last node whenever the quals' own last node is one
 * the descriptor names, since the contract wants every such node < root.
 *
 * Message: the scan program as cg_assemble_message() lays it out, with
 * kind XPU_KIND_GPUPREAGG, then (16-byte aligned each)
 *		XpuPreAggDesc | XpuGroupKey[nkeys] | XpuAggDesc[naggs]
 * at XpuSession.preagg_offset.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/builtins.h"

#include "pg_strom_proto.h"
#include "codegen/codegen.h"
#include "codegen/codegen_node.h"
#include "gpujoin/gpujoin.h"
#include "gpupreagg/gpupreagg_internal.h"

typedef struct PreAggNodes
{
	int		   *key_node;		/* [nkeys] */
	int		   *key_xtype;		/* [nkeys] */
	int		   *arg_node;		/* [naggs], -1 for count(*) */
	int		   *arg_xtype;		/* [naggs] */
	int		   *filter_node;	/* [naggs], -1 for none */
	int			root;
} PreAggNodes;

/* an expression's node, of the device type of typid */
static int
emit_typed(CgContext *ctx, Expr *expr, Oid typid, int *xtype)
{
	int			idx = cg_emit_expr(ctx, expr);
	XpuType		want = cg_xtype_of_oid(typid);

	*xtype = want;
	if (idx < 0)
		return -1;
	if (want == XPU_TYPE_INVALID)
		return cg_refuse(ctx, "type %s is not a device type", format_type_be(typid));
	if (ctx->nodes[idx].restype != want)
		idx = cg_coerce(ctx, idx, want);
	return idx;
}

/*
 * The keys, arguments and FILTERs; false (ctx->refused says why) if they
 * cannot be.  *max_used is the highest node the descriptor names.
 */
static bool
emit_preagg_values(CgContext *ctx, const GpuPreAggInfo *info, PreAggNodes *pn,
				   int *max_used_p)
{
	int			nkeys = list_length(info->keys);
	int			naggs = list_length(info->aggs);
	int			max_used = -1;
	int			i = 0;
	ListCell   *lc;

	pn->key_node = palloc(sizeof(int) * Max(nkeys, 1));
	pn->key_xtype = palloc(sizeof(int) * Max(nkeys, 1));
	pn->arg_node = palloc(sizeof(int) * Max(naggs, 1));
	pn->arg_xtype = palloc(sizeof(int) * Max(naggs, 1));
	pn->filter_node = palloc(sizeof(int) * Max(naggs, 1));

	foreach(lc, info->keys)
	{
		Expr	   *key = lfirst(lc);

		pn->key_node[i] = emit_typed(ctx, key, exprType((Node *) key),
									 &pn->key_xtype[i]);
		if (pn->key_node[i] < 0)
			return false;
		max_used = Max(max_used, pn->key_node[i]);
		i++;
	}
	i = 0;
	foreach(lc, info->aggs)
	{
		GpuPreAggAgg *agg = lfirst(lc);

		pn->arg_node[i] = -1;
		pn->arg_xtype[i] = 0;
		pn->filter_node[i] = -1;
		if (agg->arg)
		{
			pn->arg_node[i] = emit_typed(ctx, agg->arg, agg->argtype,
										 &pn->arg_xtype[i]);
			if (pn->arg_node[i] < 0)
				return false;
			max_used = Max(max_used, pn->arg_node[i]);
		}
		if (agg->filter)
		{
			int			xt;

			pn->filter_node[i] = emit_typed(ctx, agg->filter, BOOLOID, &xt);
			if (pn->filter_node[i] < 0)
				return false;
			max_used = Max(max_used, pn->filter_node[i]);
		}
		i++;
	}
	*max_used_p = max_used;
	return true;
}

/* emits the whole program; false (ctx->refused says why) if it cannot */
static bool
emit_preagg_program(CgContext *ctx, const GpuPreAggInfo *info, PreAggNodes *pn)
{
	int			max_used;

	if (!emit_preagg_values(ctx, info, pn, &max_used))
		return false;
	pn->root = cg_emit_quals_root(ctx, info->dev_quals, max_used);
	return pn->root >= 0;
}

static size_t append_preagg_desc(StringInfo buf, const GpuPreAggInfo *info,
								 const PreAggNodes *pnp);

bool
gpupreagg_codegen_check(const GpuPreAggInfo *info, Index scanrelid,
						char **reason)
{
	CgContext	ctx;
	PreAggNodes pn;
	bool		ok;

	if (reason)
		*reason = NULL;
	cg_init_context(&ctx, false, scanrelid, NULL, CODEGEN_MAX_NODES);
	ok = emit_preagg_program(&ctx, info, &pn);
	if (!ok && reason)
		*reason = pstrdup(ctx.refused ? ctx.refused : "unknown reason");
	cg_free_context(&ctx);
	return ok;
}

StringInfo
pgstrom_build_gpupreagg_session(const GpuPreAggInfo *info,
								Index scanrelid,
								Relation rel,
								ExprContext *econtext,
								uint64 plan_id,
								uint32 request_id,
								const char **cpu_reason)
{
	CgContext	ctx;
	PreAggNodes pn;
	StringInfo	buf;
	size_t		desc_off;
	XpuSession *sess;

	cg_init_context(&ctx, true, scanrelid, econtext, CODEGEN_MAX_NODES);
	if (!emit_preagg_program(&ctx, info, &pn))
		return cg_refused_session(&ctx, cpu_reason);

	buf = cg_assemble_message(&ctx, pn.root, rel, plan_id, request_id);
	Assert(buf->len % 16 == 0);
	desc_off = append_preagg_desc(buf, info, &pn);
	sess = (XpuSession *) (buf->data + sizeof(PgStromMsgHeader));
	sess->kind = XPU_KIND_GPUPREAGG;
	sess->preagg_offset = (uint32) desc_off;
	return buf;
}

/*
 * Appends XpuPreAggDesc | XpuGroupKey[nkeys] | XpuAggDesc[naggs] (16-byte
 * aligned each) to the message in buf, and sets the header's length;
 * returns the descriptor's offset.
 */
static size_t
append_preagg_desc(StringInfo buf, const GpuPreAggInfo *info,
				   const PreAggNodes *pnp)
{
	PreAggNodes pn = *pnp;
	GpuPreAggLayout layout;
	int			nkeys = list_length(info->keys);
	int			naggs = list_length(info->aggs);
	size_t		desc_off,
				keys_off,
				aggs_off,
				total;
	PgStromMsgHeader *hdr;
	XpuPreAggDesc *desc;
	XpuGroupKey *keys;
	XpuAggDesc *aggs;
	ListCell   *lc;
	int			i;

	gpupreagg_compute_layout(info, &layout);
	desc_off = CG_ALIGN16(buf->len);
	keys_off = CG_ALIGN16(desc_off + sizeof(XpuPreAggDesc));
	aggs_off = CG_ALIGN16(keys_off + sizeof(XpuGroupKey) * nkeys);
	total = CG_ALIGN16(aggs_off + sizeof(XpuAggDesc) * naggs);
	if (total > (size_t) PGSTROM_MSG_MAX_LENGTH)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("device program of %zu bytes is too large", total)));
	enlargeStringInfo(buf, (int) (total - buf->len));
	memset(buf->data + buf->len, 0, total - buf->len);
	buf->len = (int) total;
	buf->data[total] = '\0';

	hdr = (PgStromMsgHeader *) buf->data;
	hdr->length = (uint32) total;

	desc = (XpuPreAggDesc *) (buf->data + desc_off);
	desc->nkeys = nkeys;
	desc->keys_offset = (uint32) keys_off;
	desc->naggs = naggs;
	desc->aggs_offset = (uint32) aggs_off;
	desc->entry_size = layout.entry_size;

	keys = (XpuGroupKey *) (buf->data + keys_off);
	for (i = 0; i < nkeys; i++)
	{
		if (pn.key_xtype[i] != layout.key_xtype[i])
			elog(ERROR, "GpuPreAgg: key %d is of device type %d, layout says %d",
				 i, pn.key_xtype[i], layout.key_xtype[i]);
		keys[i].node = pn.key_node[i];
		keys[i].xtype = (int16) pn.key_xtype[i];
		keys[i].offset = layout.key_offset[i];
		keys[i].width = layout.key_width[i];
	}
	aggs = (XpuAggDesc *) (buf->data + aggs_off);
	i = 0;
	foreach(lc, info->aggs)
	{
		GpuPreAggAgg *agg = lfirst(lc);

		aggs[i].kind = (int16) agg->kind;
		aggs[i].argtype = (int16) pn.arg_xtype[i];
		aggs[i].arg = pn.arg_node[i];
		aggs[i].filter = pn.filter_node[i];
		aggs[i].offset = layout.agg_offset[i];
		aggs[i].param = agg->param;
		i++;
	}
	return desc_off;
}

/*
 * ---- fused over a GpuJoin (docs/internals/join-kernels.md, "Fused GpuPreAgg") ----
 *
 * The program: the VARs of the outer table first (the device fills only
 * those up to the root), then the GpuJoin program (outer join keys, the
 * outer quals as the root), then the keys, arguments and FILTERs, where a
 * column of an inner depth is an INNER_VAR of its payload column.  The
 * message is XPU_KIND_GPUJOIN_PREAGG: the program, the XpuJoinDesc with
 * one XpuJoinCol per payload column (in join row order; each depth's
 * payload slots follow its key slots, as gpujoin_inner.c laid them out),
 * then the XpuPreAggDesc.
 */
StringInfo
gpa_join_build_session(GpuPreAggState *pas, const char **cpu_reason)
{
	GpuJoinState *gjs = pas->join;
	GpuTaskState *gts = &pas->gts;
	Index		scanrelid = ((Scan *) gts->css.ss.ps.plan)->scanrelid;
	GpuPreAggInfo dev = *pas->info;
	GpuJoinRowMap map;
	CgContext	ctx;
	GpuJoinNodes jn;
	PreAggNodes pn;
	StringInfo	buf;
	List	   *exprs = NIL;
	List	   *quals[GPUJOIN_MAX_DEPTHS];
	XpuSession *sess;
	size_t		join_off,
				preagg_off;
	int			max_used;
	int			k;
	ListCell   *lc;

	/* every inner column of the join row is a payload column */
	gpujoin_row_map(gjs, scanrelid, NULL, true, &map);

	/* the keys, arguments and FILTERs over the outer table and INNER_VARs */
	dev.keys = (List *) gpujoin_row_map_expr((Node *) pas->info->keys, &map);
	dev.aggs = NIL;
	foreach(lc, pas->info->aggs)
	{
		GpuPreAggAgg *agg = palloc(sizeof(GpuPreAggAgg));

		*agg = *(GpuPreAggAgg *) lfirst(lc);
		agg->arg = (Expr *) gpujoin_row_map_expr((Node *) agg->arg, &map);
		agg->filter = (Expr *) gpujoin_row_map_expr((Node *) agg->filter, &map);
		dev.aggs = lappend(dev.aggs, agg);
		exprs = lappend(exprs, agg->arg);
		exprs = lappend(exprs, agg->filter);
	}
	exprs = list_concat(exprs, dev.keys);
	for (k = 0; k < gjs->info->ndepths; k++)
	{
		quals[k] = (List *) gpujoin_row_map_expr((Node *) gjs->info->depths[k].row_quals,
												 &map);
		exprs = list_concat(exprs, list_copy(quals[k]));
	}

	cg_init_context(&ctx, true, scanrelid, gts->css.ss.ps.ps_ExprContext,
					CODEGEN_MAX_NODES);
	if (!gpujoin_emit_outer_vars(&ctx, exprs, scanrelid) ||
		!gpujoin_emit_program(&ctx, gjs->info, &jn))
		goto refused;
	ctx.inner_vars = true;
	if (!gpujoin_emit_row_quals(&ctx, quals, gjs->info->ndepths, &jn) ||
		!emit_preagg_values(&ctx, &dev, &pn, &max_used))
		goto refused;
	for (k = 0; k < list_length(dev.keys); k++)
	{
		if (pn.key_node[k] == jn.root)
			goto root_reused;
	}
	for (k = 0; k < list_length(dev.aggs); k++)
	{
		if (pn.arg_node[k] == jn.root || pn.filter_node[k] == jn.root)
			goto root_reused;
	}

	buf = cg_assemble_message(&ctx, jn.root, gts->rel, gts->plan_id,
							  PGSTROM_SESSION_REQUEST_ID);
	join_off = gpujoin_append_desc(buf, gjs, &jn, map.cols, map.ncols);
	if (join_off == 0)
	{
		*cpu_reason = "the device program is too large";
		return NULL;
	}
	preagg_off = append_preagg_desc(buf, &dev, &pn);
	sess = (XpuSession *) (buf->data + sizeof(PgStromMsgHeader));
	sess->kind = XPU_KIND_GPUJOIN_PREAGG;
	sess->join_offset = (uint32) join_off;
	sess->preagg_offset = (uint32) preagg_off;
	return buf;

refused:
	*cpu_reason = psprintf("the fused program cannot run on the GPU: %s",
						   ctx.refused ? ctx.refused : "unknown reason");
	return NULL;
root_reused:
	/* the contract names no root as a key, argument or FILTER */
	*cpu_reason = "a key, argument or FILTER is the outer quals' own node";
	return NULL;
}
