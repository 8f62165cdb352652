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

/* emits the whole program; false (ctx->refused says why) if it cannot */
static bool
emit_preagg_program(CgContext *ctx, const GpuPreAggInfo *info, PreAggNodes *pn)
{
	int			nkeys = list_length(info->keys);
	int			naggs = list_length(info->aggs);
	int			nquals = list_length(info->dev_quals);
	int		   *roots = palloc(sizeof(int) * Max(nquals, 1));
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

	i = 0;
	foreach(lc, info->dev_quals)
	{
		roots[i] = cg_emit_expr(ctx, (Expr *) lfirst(lc));
		if (roots[i] < 0)
			return false;
		if (ctx->nodes[roots[i]].restype != XPU_TYPE_BOOL)
		{
			cg_refuse(ctx, "qual is not of type boolean");
			return false;
		}
		i++;
	}
	if (nquals > 1)
		pn->root = cg_add_root_node(ctx, XPU_OP_AND, nquals, roots);
	else
	{
		/* a CONST true may be merged into one a FILTER already made */
		pn->root = (nquals == 1) ? roots[0] :
			cg_emit_const(ctx, XPU_TYPE_BOOL, BOOLOID, BoolGetDatum(true), false);
		if (pn->root >= 0 &&
			(pn->root != ctx->nnodes - 1 || pn->root <= max_used))
			pn->root = cg_add_root_node(ctx, XPU_OP_IS_TRUE, 1, &pn->root);
	}
	pfree(roots);
	if (pn->root < 0)
		return false;
	Assert(pn->root == ctx->nnodes - 1 && pn->root > max_used);
	return true;
}

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
	return ok;
}

StringInfo
pgstrom_build_gpupreagg_session(const GpuPreAggInfo *info,
								Index scanrelid,
								Relation rel,
								ExprContext *econtext,
								uint64 plan_id,
								uint32 request_id)
{
	CgContext	ctx;
	PreAggNodes pn;
	GpuPreAggLayout layout;
	StringInfo	buf;
	int			nkeys = list_length(info->keys);
	int			naggs = list_length(info->aggs);
	size_t		desc_off,
				keys_off,
				aggs_off,
				total;
	PgStromMsgHeader *hdr;
	XpuSession *sess;
	XpuPreAggDesc *desc;
	XpuGroupKey *keys;
	XpuAggDesc *aggs;
	ListCell   *lc;
	int			i;

	cg_init_context(&ctx, true, scanrelid, econtext, CODEGEN_MAX_NODES);
	if (!emit_preagg_program(&ctx, info, &pn))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("GpuPreAgg cannot run on the GPU: %s",
						ctx.refused ? ctx.refused : "unknown reason")));
	gpupreagg_compute_layout(info, &layout);

	buf = cg_assemble_message(&ctx, pn.root, rel, plan_id, request_id);
	Assert(buf->len % 16 == 0);
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
	sess = (XpuSession *) (buf->data + sizeof(PgStromMsgHeader));
	sess->kind = XPU_KIND_GPUPREAGG;
	sess->preagg_offset = (uint32) desc_off;

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
	return buf;
}

StringInfo
gpa_join_build_session(GpuPreAggState *pas, const char **cpu_reason)
{
	*cpu_reason = "the fused device program is not built yet";
	return NULL;
}
