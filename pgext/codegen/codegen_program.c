/*
 * codegen_program.c
 *
 * xPU code generator: the program under construction (nodes, argument
 * array, constant pool, attribute references) and the appending of nodes,
 * with the reuse of an equal existing node.
 */
#include "postgres.h"

#include "codegen/codegen_program.h"

static bool
cg_opcode_makes_text(int opcode)
{
	return opcode == XPU_OP_LOWER || opcode == XPU_OP_UPPER ||
		opcode == XPU_OP_TEXTCAT || opcode == XPU_OP_TO_TEXT ||
		opcode == XPU_OP_TO_CHAR || opcode == XPU_OP_REVERSE ||
		opcode == XPU_OP_REPLACE;
}

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
	ctx->zone_rules_off = -1;
	ctx->refused = NULL;
}

void
cg_free_context(CgContext *ctx)
{
	pfree(ctx->nodes);
	pfree(ctx->args);
	pfree(ctx->consts.data);
	pfree(ctx->attr_xtype);
	if (ctx->refused)
		pfree(ctx->refused);
}

/*
 * Gives each node that makes new text bytes (LOWER, UPPER, TEXTCAT,
 * TO_TEXT, TO_CHAR, REVERSE, REPLACE) its
 * region of the evaluating thread's scratch bytes, the slots past the
 * program's nodes: equal shares, so that every such value of up to a
 * share's length is made on the device and a longer one is RECHECK.
 * Applied to the assembled message's nodes, after which none is added.
 */
void
cg_assign_scratch(int nnodes, XpuNode *nodes)
{
	int			nmakers = 0;
	int			share;
	int			offset = 0;
	int			i;

	for (i = 0; i < nnodes; i++)
		nmakers += cg_opcode_makes_text(nodes[i].opcode);
	if (nmakers == 0)
		return;
	share = (XPU_SCRATCH_BYTES(nnodes) / nmakers) & ~7;
	for (i = 0; i < nnodes; i++)
	{
		if (!cg_opcode_makes_text(nodes[i].opcode))
			continue;
		nodes[i].aux = XPU_SCRATCH_REGION(offset, share);
		offset += share;
	}
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
 * A program the device cannot run after all (what the planner checked
 * depends on something that changed since, such as the session's time
 * zone): NULL, and why for the node's CPU path.
 */
StringInfo
cg_refused_session(CgContext *ctx, const char **cpu_reason)
{
	*cpu_reason = psprintf("the device cannot run the program now: %s",
						   ctx->refused ? ctx->refused : "unknown reason");
	cg_free_context(ctx);
	return NULL;
}
