/*
 * codegen_message.c
 *
 * xPU code generator: the assembly of a finished program into an
 * OpenSession message.
 *
 * Message layout (offsets from the message start, see pg_strom_xpu.h):
 *
 *     0   PgStromMsgHeader
 *    16   XpuSession
 *         XpuAttr[nattrs]      16-byte aligned
 *         XpuNode[nnodes]      16-byte aligned
 *         int32[nargs]         16-byte aligned
 *         constant pool        16-byte aligned, every value at a multiple
 *                              of 16 from the pool start
 *         (zero padding to a multiple of 16: length covers it)
 */
#include "postgres.h"

#include "access/tupdesc.h"
#include "mb/pg_wchar.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "pg_strom_proto.h"
#include "codegen/codegen_message.h"
#include "codegen/codegen_program.h"
#include "codegen/codegen_types.h"

StaticAssertDecl(sizeof(PgStromMsgHeader) == 16, "unexpected PgStromMsgHeader size");
StaticAssertDecl(sizeof(XpuNode) == 16, "unexpected XpuNode size");
StaticAssertDecl(sizeof(XpuAttr) == 8, "unexpected XpuAttr size");
StaticAssertDecl(sizeof(XpuNumericConst) == 24, "unexpected XpuNumericConst size");
StaticAssertDecl(sizeof(XpuTextConst) == 8, "unexpected XpuTextConst size");

/*
 * The OpenSession message of a complete program whose root is node 'root'.
 */
StringInfo
cg_assemble_message(CgContext *ctx, int root, Relation rel,
					uint64 plan_id, uint32 request_id)
{
	TupleDesc	tupdesc = RelationGetDescr(rel);
	int			nattrs = ctx->max_attno;
	size_t		sess_off,
				attrs_off,
				nodes_off,
				args_off,
				consts_off,
				consts_len,
				total;
	StringInfo	buf;
	PgStromMsgHeader *hdr;
	XpuSession *sess;
	XpuAttr    *attrs;
	int			i;

	/* a fused GpuPreAgg evaluates the nodes after the root per join row */
	Assert(root == ctx->nnodes - 1 || ctx->inner_vars);
	if (ctx->nodes[root].restype != XPU_TYPE_BOOL)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("device qual is not of type boolean")));
	if (nattrs > tupdesc->natts)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("device qual references attribute %d of relation \"%s\", which has %d",
						nattrs, RelationGetRelationName(rel), tupdesc->natts)));

	consts_len = CG_ALIGN16(ctx->consts.len);
	sess_off = sizeof(PgStromMsgHeader);
	attrs_off = CG_ALIGN16(sess_off + sizeof(XpuSession));
	nodes_off = CG_ALIGN16(attrs_off + sizeof(XpuAttr) * nattrs);
	args_off = CG_ALIGN16(nodes_off + sizeof(XpuNode) * ctx->nnodes);
	consts_off = CG_ALIGN16(args_off + sizeof(int32) * ctx->nargs);
	total = CG_ALIGN16(consts_off + consts_len);
	if (total > (size_t) PGSTROM_MSG_MAX_LENGTH || total >= (size_t) MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("device program of %zu bytes is too large", total)));

	buf = makeStringInfo();
	enlargeStringInfo(buf, (int) total);
	memset(buf->data, 0, total);
	buf->len = (int) total;
	buf->data[total] = '\0';

	hdr = (PgStromMsgHeader *) buf->data;
	hdr->magic = PGSTROM_MSG_MAGIC;
	hdr->tag = PGSTROM_MSG_OPEN_SESSION;
	hdr->flags = 0;
	hdr->length = (uint32) total;
	hdr->request_id = request_id;

	sess = (XpuSession *) (buf->data + sess_off);
	sess->magic = XPU_PROGRAM_MAGIC;
	sess->kind = XPU_KIND_GPUSCAN;
	sess->plan_id = plan_id;
	sess->nattrs = nattrs;
	sess->attrs_offset = attrs_off;
	sess->nnodes = ctx->nnodes;
	sess->nodes_offset = nodes_off;
	sess->nargs = ctx->nargs;
	sess->args_offset = args_off;
	sess->consts_len = consts_len;
	sess->consts_offset = consts_off;
	sess->root = root;
	sess->encoding = GetDatabaseEncoding();

	attrs = (XpuAttr *) (buf->data + attrs_off);
	for (i = 0; i < nattrs; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, i);

		/* dropped columns keep attlen/attalign, which walking needs */
		attrs[i].attlen = att->attlen;
		attrs[i].attalign = cg_align_attr(att->attalign);
		attrs[i].attbyval = att->attbyval ? 1 : 0;
		attrs[i].xtype = ctx->attr_xtype[i];
		if (ctx->attr_xtype[i] != XPU_TYPE_INVALID &&
			(att->attisdropped ||
			 cg_xtype_of_oid(att->atttypid) != ctx->attr_xtype[i]))
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("device qual's column %d does not match relation \"%s\"",
							i + 1, RelationGetRelationName(rel))));
	}
	memcpy(buf->data + nodes_off, ctx->nodes, sizeof(XpuNode) * ctx->nnodes);
	cg_assign_scratch(ctx->nnodes, (XpuNode *) (buf->data + nodes_off));
	memcpy(buf->data + args_off, ctx->args, sizeof(int32) * ctx->nargs);
	memcpy(buf->data + consts_off, ctx->consts.data, ctx->consts.len);

	return buf;
}
