/*
 * codegen_build.c
 *
 * xPU code generator: the program under construction (nodes, argument
 * array, constant pool, attribute references), the assembly of the
 * OpenSession message, and the two entry points of codegen.h.
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
#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "nodes/nodeFuncs.h"
#include "nodes/makefuncs.h"
#include "optimizer/optimizer.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "pg_strom_proto.h"
#include "codegen/codegen.h"
#include "codegen/codegen_internal.h"

StaticAssertDecl(sizeof(PgStromMsgHeader) == 16, "unexpected PgStromMsgHeader size");
StaticAssertDecl(sizeof(XpuNode) == 16, "unexpected XpuNode size");
StaticAssertDecl(sizeof(XpuAttr) == 8, "unexpected XpuAttr size");
StaticAssertDecl(sizeof(XpuNumericConst) == 24, "unexpected XpuNumericConst size");
StaticAssertDecl(sizeof(XpuTextConst) == 8, "unexpected XpuTextConst size");

#define ALIGN16(x)	(((x) + 15) & ~((size_t) 15))

void
cg_init_context(CgContext *ctx, bool build, Index scanrelid,
				ExprContext *econtext, int max_nodes)
{
	memset(ctx, 0, sizeof(CgContext));
	ctx->build = build;
	ctx->scanrelid = scanrelid;
	ctx->econtext = econtext;
	ctx->max_nodes = max_nodes;
	ctx->nodes_cap = 32;
	ctx->nodes = palloc0(sizeof(XpuNode) * ctx->nodes_cap);
	ctx->args_cap = 64;
	ctx->args = palloc0(sizeof(int32) * ctx->args_cap);
	initStringInfo(&ctx->consts);
	ctx->attr_xtype = palloc0(sizeof(int16) * XPU_MAX_ATTRS);
	ctx->max_attno = 0;
	ctx->case_test_node = -1;
	ctx->refused = NULL;
}

static void
cg_free_context(CgContext *ctx)
{
	pfree(ctx->nodes);
	pfree(ctx->args);
	pfree(ctx->consts.data);
	pfree(ctx->attr_xtype);
	if (ctx->refused)
		pfree(ctx->refused);
}

/* records why the expression is refused (the first reason wins); -1 */
int
cg_refuse(CgContext *ctx, const char *fmt,...)
{
	if (ctx->refused == NULL)
	{
		StringInfoData buf;

		initStringInfo(&buf);
		for (;;)
		{
			va_list		ap;
			int			needed;

			va_start(ap, fmt);
			needed = appendStringInfoVA(&buf, fmt, ap);
			va_end(ap);
			if (needed == 0)
				break;
			enlargeStringInfo(&buf, needed);
		}
		ctx->refused = buf.data;
	}
	return -1;
}

/*
 * Appends a node whose arguments are the nodes argv[0..nargs-1], all of
 * which already exist; returns its index, or -1 beyond the node limit.
 */
int
cg_add_node(CgContext *ctx, XpuOpcode opcode, XpuType restype,
			uint16 flags, int32 aux, int nargs, const int *argv)
{
	XpuNode    *node;
	int			i;

	for (i = 0; i < nargs; i++)
	{
		if (argv[i] < 0)
			return -1;			/* refused below; the reason is set */
		Assert(argv[i] < ctx->nnodes);
	}

	/*
	 * The program has no side effects and evaluates every node, so an
	 * existing node of the same operation on the same arguments can stand
	 * for a new one.  Never CONST nodes: at plan time a Param's placeholder
	 * looks alike for any value, and the node count of the check must not
	 * be lower than the one of the build.
	 */
	if (opcode != XPU_OP_CONST && !ctx->no_dedup)
	{
		int			j;

		for (j = 0; j < ctx->nnodes; j++)
		{
			XpuNode    *o = &ctx->nodes[j];

			if (o->opcode != opcode || o->restype != restype ||
				o->flags != flags || o->aux != aux || o->nargs != nargs)
				continue;
			for (i = 0; i < nargs; i++)
			{
				if (ctx->args[o->args + i] != argv[i])
					break;
			}
			if (i == nargs)
				return j;
		}
	}

	if (ctx->nnodes >= ctx->max_nodes)
		return cg_refuse(ctx, "expression needs more than %d device nodes",
						 ctx->max_nodes);
	if (ctx->nnodes >= ctx->nodes_cap)
	{
		ctx->nodes_cap *= 2;
		ctx->nodes = repalloc(ctx->nodes, sizeof(XpuNode) * ctx->nodes_cap);
	}
	if (ctx->nargs + nargs > ctx->args_cap)
	{
		while (ctx->nargs + nargs > ctx->args_cap)
			ctx->args_cap *= 2;
		ctx->args = repalloc(ctx->args, sizeof(int32) * ctx->args_cap);
	}
	node = &ctx->nodes[ctx->nnodes];
	memset(node, 0, sizeof(XpuNode));
	node->opcode = opcode;
	node->restype = restype;
	node->nargs = nargs;
	node->flags = flags;
	node->args = (nargs > 0 ? ctx->nargs : 0);
	node->aux = aux;
	for (i = 0; i < nargs; i++)
		ctx->args[ctx->nargs++] = argv[i];
	return ctx->nnodes++;
}

/* a new last node, never merged into an existing one */
int
cg_add_root_node(CgContext *ctx, XpuOpcode opcode, int nargs, const int *argv)
{
	int			idx;

	ctx->no_dedup = true;
	idx = cg_add_node(ctx, opcode, XPU_TYPE_BOOL, 0, 0, nargs, argv);
	ctx->no_dedup = false;
	return idx;
}

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

	Assert(root == ctx->nnodes - 1);
	if (ctx->nodes[root].restype != XPU_TYPE_BOOL)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("device qual is not of type boolean")));
	if (nattrs > tupdesc->natts)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("device qual references attribute %d of relation \"%s\", which has %d",
						nattrs, RelationGetRelationName(rel), tupdesc->natts)));

	consts_len = ALIGN16(ctx->consts.len);
	sess_off = sizeof(PgStromMsgHeader);
	attrs_off = ALIGN16(sess_off + sizeof(XpuSession));
	nodes_off = ALIGN16(attrs_off + sizeof(XpuAttr) * nattrs);
	args_off = ALIGN16(nodes_off + sizeof(XpuNode) * ctx->nnodes);
	consts_off = ALIGN16(args_off + sizeof(int32) * ctx->nargs);
	total = ALIGN16(consts_off + consts_len);
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
	memcpy(buf->data + args_off, ctx->args, sizeof(int32) * ctx->nargs);
	memcpy(buf->data + consts_off, ctx->consts.data, ctx->consts.len);

	return buf;
}

StringInfo
pgstrom_build_gpuscan_session(List *dev_quals,
							  Index scanrelid,
							  Relation rel,
							  ExprContext *econtext,
							  uint64 plan_id,
							  uint32 request_id)
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
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("GpuScan cannot run a qual on the GPU: %s",
							ctx.refused ? ctx.refused : "unknown reason")));
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
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("GpuScan cannot run its quals on the GPU: %s",
						ctx.refused ? ctx.refused : "unknown reason")));

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
