/*-------------------------------------------------------------------------
 *
 * gpujoin_codegen.c
 *		The OpenSession message of GpuJoin (kind XPU_KIND_GPUJOIN): a GpuScan
 *		program over the outer table whose root is the device quals (a CONST
 *		true when there are none), the outer side of every join key a node
 *		below the root, and at XpuSession.join_offset (16-byte aligned each)
 *			XpuJoinDesc | XpuJoinDepth[ndepths] | XpuJoinKey[nkeys]
 *		with each key's inner slot as the inner build laid it out.  With
 *		residual quals the device evaluates, each depth's qual is a node
 *		after the root over INNER_VARs of payload columns
 *		(gpujoin_payload.c), and XpuJoinCol[ncols] | int32 qual[ndepths]
 *		follow.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/nodeFuncs.h"
#include "utils/builtins.h"

#include "pg_strom_proto.h"
#include "codegen/codegen.h"
#include "codegen/codegen_node.h"
#include "gpujoin/gpujoin.h"

/* emits the whole program; false (ctx->refused says why) if it cannot */
bool
gpujoin_emit_program(CgContext *ctx, const GpuJoinInfo *info, GpuJoinNodes *jn)
{
	int			max_used = -1;
	int			d;
	ListCell   *lc;

	jn->has_quals = false;
	for (d = 0; d < info->ndepths; d++)
	{
		int			k = 0;

		jn->qual_node[d] = -1;

		foreach(lc, info->depths[d].outer_keys)
		{
			Expr	   *key = lfirst(lc);
			int			idx = cg_emit_expr(ctx, key);
			int			want = gpujoin_key_xtype(exprType((Node *) key));

			if (idx < 0)
				return false;
			if (want == XPU_TYPE_INVALID)
			{
				cg_refuse(ctx, "join key of type %s", format_type_be(exprType((Node *) key)));
				return false;
			}
			if (ctx->nodes[idx].restype != want)
				idx = cg_coerce(ctx, idx, want);
			if (idx < 0)
				return false;
			jn->key_node[d][k] = idx;
			jn->key_xtype[d][k] = want;
			max_used = Max(max_used, idx);
			k++;
		}
	}
	jn->root = cg_emit_quals_root(ctx, info->dev_quals, max_used);
	return jn->root >= 0;
}

bool
gpujoin_codegen_check(const GpuJoinInfo *info, Index scanrelid, char **reason)
{
	CgContext	ctx;
	GpuJoinNodes jn;
	bool		ok;

	if (reason)
		*reason = NULL;
	cg_init_context(&ctx, false, scanrelid, NULL, CODEGEN_MAX_NODES);
	ok = gpujoin_emit_program(&ctx, info, &jn);
	if (!ok && reason)
		*reason = pstrdup(ctx.refused ? ctx.refused : "unknown reason");
	cg_free_context(&ctx);
	return ok;
}

static int16
xpu_join_type(JoinType jt)
{
	switch (jt)
	{
		case JOIN_INNER:
			return XPU_JOIN_INNER;
		case JOIN_LEFT:
			return XPU_JOIN_LEFT;
		case JOIN_SEMI:
			return XPU_JOIN_SEMI;
		case JOIN_ANTI:
			return XPU_JOIN_ANTI;
		default:
			elog(ERROR, "GpuJoin: join type %d on the device", (int) jt);
	}
	return 0;					/* keep compiler quiet */
}

/*
 * The OpenSession message, once the inner rows are built (the keys' slot
 * widths and each depth's row size come from them).
 */
StringInfo
gpujoin_build_session(GpuJoinState *gjs, const char **cpu_reason)
{
	GpuTaskState *gts = gjs->task;
	GpuJoinInfo *info = gjs->info;
	CgContext	ctx;
	GpuJoinNodes jn;
	GpuJoinRowMap map;
	StringInfo	buf;
	size_t		desc_off;
	XpuSession *sess;
	bool		with_quals = false;

	cg_init_context(&ctx, true, info->outer_relid,
					gts->css.ss.ps.ps_ExprContext, CODEGEN_MAX_NODES);
	/*
	 * The residual quals where the executor found the device can take
	 * them (else the backend checks them, gpujoin_exec.c)
	 */
	if (gjs->quals_device)
	{
		gpujoin_row_map(gjs, info->outer_relid, gjs->qual_payload, true, &map);
		with_quals = gpujoin_emit_program_quals(&ctx, gjs, &map, &jn);
		if (!with_quals)
		{
			cg_free_context(&ctx);
			cg_init_context(&ctx, true, info->outer_relid,
							gts->css.ss.ps.ps_ExprContext, CODEGEN_MAX_NODES);
		}
	}
	if (!with_quals && !gpujoin_emit_program(&ctx, info, &jn))
		return cg_refused_session(&ctx, cpu_reason);
	gjs->quals_on_device = with_quals;

	buf = cg_assemble_message(&ctx, jn.root, gts->rel, gts->plan_id,
							  PGSTROM_SESSION_REQUEST_ID);
	desc_off = with_quals ? gpujoin_append_desc(buf, gjs, &jn, map.cols, map.ncols) :
		gpujoin_append_desc(buf, gjs, &jn, NULL, 0);
	if (desc_off == 0)
	{
		*cpu_reason = "the device program is too large";
		return NULL;
	}
	sess = (XpuSession *) (buf->data + sizeof(PgStromMsgHeader));
	sess->kind = XPU_KIND_GPUJOIN;
	sess->join_offset = (uint32) desc_off;
	sess->preagg_offset = 0;
	return buf;
}

/*
 * Appends XpuJoinDesc | XpuJoinDepth[ndepths] | XpuJoinKey[nkeys] |
 * XpuJoinCol[ncols] | int32 qual node[ndepths] (with residual quals only;
 * 16-byte aligned each) to the message in buf and sets
 * the header's length; returns the descriptor's offset, 0 if the message
 * would be too large.
 */
size_t
gpujoin_append_desc(StringInfo buf, GpuJoinState *gjs, const GpuJoinNodes *jnp,
					const XpuJoinCol *cols, int ncols)
{
	const GpuJoinNodes jn = *jnp;
	GpuJoinInfo *info = gjs->info;
	int			nkeys = 0;
	size_t		desc_off,
				depths_off,
				keys_off,
				cols_off,
				quals_off,
				total;
	PgStromMsgHeader *hdr;
	XpuJoinDesc *desc;
	XpuJoinDepth *depths;
	XpuJoinKey *keys;
	int			d,
				k;

	for (d = 0; d < info->ndepths; d++)
		nkeys += list_length(info->depths[d].outer_keys);
	desc_off = CG_ALIGN16(buf->len);
	depths_off = CG_ALIGN16(desc_off + sizeof(XpuJoinDesc));
	keys_off = CG_ALIGN16(depths_off + sizeof(XpuJoinDepth) * info->ndepths);
	cols_off = CG_ALIGN16(keys_off + sizeof(XpuJoinKey) * nkeys);
	quals_off = CG_ALIGN16(cols_off + sizeof(XpuJoinCol) * ncols);
	total = CG_ALIGN16(quals_off + (jn.has_quals ? sizeof(int32) * info->ndepths : 0));
	if (total > (size_t) PGSTROM_MSG_MAX_LENGTH)
		return 0;
	enlargeStringInfo(buf, (int) (total - buf->len));
	memset(buf->data + buf->len, 0, total - buf->len);
	buf->len = (int) total;
	buf->data[total] = '\0';

	hdr = (PgStromMsgHeader *) buf->data;
	hdr->length = (uint32) total;

	desc = (XpuJoinDesc *) (buf->data + desc_off);
	desc->ndepths = info->ndepths;
	desc->depths_offset = (uint32) depths_off;
	desc->nkeys = nkeys;
	desc->keys_offset = (uint32) keys_off;
	desc->inner_key = gjs->inner_key;
	if (ncols > 0)
	{
		desc->ncols = ncols;
		desc->cols_offset = (uint32) cols_off;
		memcpy(buf->data + cols_off, cols, sizeof(XpuJoinCol) * ncols);
	}
	if (jn.has_quals)
	{
		/* each depth's residual qual node, -1 none (fused sessions) */
		desc->quals_offset = (uint32) quals_off;
		for (d = 0; d < info->ndepths; d++)
		{
			int32		node = jn.qual_node[d];

			memcpy(buf->data + quals_off + sizeof(int32) * d, &node, sizeof(int32));
		}
	}
	depths = (XpuJoinDepth *) (buf->data + depths_off);
	keys = (XpuJoinKey *) (buf->data + keys_off);
	nkeys = 0;
	for (d = 0; d < info->ndepths; d++)
	{
		GpuJoinInner *inner = &gjs->inner[d];

		depths[d].join_type = xpu_join_type(info->depths[d].join_type);
		depths[d].nkeys = inner->nkeys;
		depths[d].key_first = nkeys;
		depths[d].row_size = inner->row_size;
		for (k = 0; k < inner->nkeys; k++)
		{
			XpuJoinKey *key = &keys[nkeys++];

			key->node = jn.key_node[d][k];
			key->outer_xtype = (int16) jn.key_xtype[d][k];
			key->inner_xtype = inner->key_xtype[k];
			key->offset = inner->key_offset[k];
			key->width = inner->key_width[k];
		}
	}
	return desc_off;
}
