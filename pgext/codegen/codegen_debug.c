/*
 * codegen_debug.c
 *
 * Debugging aids of the xPU code generator: a human-readable dump of an
 * OpenSession message, and SQL-callable functions that plan a query, take
 * the quals of its first sequential scan and show what the code generator
 * makes of them.  They are not part of the extension's SQL script; create
 * them by hand where needed:
 *
 *   CREATE FUNCTION pgstrom_codegen_debug(sql text, params text[] DEFAULT NULL)
 *     RETURNS text AS 'pg_strom', 'pgstrom_codegen_debug' LANGUAGE C;
 *   CREATE FUNCTION pgstrom_codegen_message(sql text, params text[] DEFAULT NULL)
 *     RETURNS bytea AS 'pg_strom', 'pgstrom_codegen_message' LANGUAGE C;
 *   CREATE FUNCTION pgstrom_codegen_functions()
 *     RETURNS text AS 'pg_strom', 'pgstrom_codegen_functions' LANGUAGE C;
 *
 * params are the text values of $1, $2, ...; their types are inferred from
 * the query, which is planned generically so that the Params remain.
 */
#include "postgres.h"

#include "access/table.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "fmgr.h"
#include "nodes/makefuncs.h"
#include "nodes/params.h"
#include "nodes/plannodes.h"
#include "parser/parsetree.h"
#include "tcop/tcopprot.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "pg_strom_proto.h"
#include "codegen/codegen.h"
#include "codegen/codegen_build.h"
#include "codegen/codegen_functable.h"
#include "codegen/codegen_types.h"

PG_FUNCTION_INFO_V1(pgstrom_codegen_debug);
PG_FUNCTION_INFO_V1(pgstrom_codegen_message);
PG_FUNCTION_INFO_V1(pgstrom_codegen_functions);

/* a human-readable dump of an OpenSession message */
static char *
cg_dump_message(const char *msg, size_t len)
{
	StringInfoData buf;
	const PgStromMsgHeader *hdr = (const PgStromMsgHeader *) msg;
	const XpuSession *s = (const XpuSession *) (msg + sizeof(PgStromMsgHeader));
	const XpuAttr *attrs;
	const XpuNode *nodes;
	const int32 *args;
	const char *pool;
	uint32		i;

	initStringInfo(&buf);
	if (len < sizeof(PgStromMsgHeader) + sizeof(XpuSession))
		return "message too short";
	appendStringInfo(&buf, "header: magic=%08x tag=%u flags=%u length=%u request_id=%u\n",
					 hdr->magic, hdr->tag, hdr->flags, hdr->length, hdr->request_id);
	appendStringInfo(&buf, "session: magic=%08x kind=%u plan_id=" UINT64_FORMAT " encoding=%u root=%u\n",
					 s->magic, s->kind, (uint64) s->plan_id, s->encoding, s->root);
	appendStringInfo(&buf, "  attrs %u @%u, nodes %u @%u, args %u @%u, consts %u bytes @%u\n",
					 s->nattrs, s->attrs_offset, s->nnodes, s->nodes_offset,
					 s->nargs, s->args_offset, s->consts_len, s->consts_offset);
	if ((uint64) s->attrs_offset + sizeof(XpuAttr) * s->nattrs > len ||
		(uint64) s->nodes_offset + sizeof(XpuNode) * s->nnodes > len ||
		(uint64) s->args_offset + sizeof(int32) * s->nargs > len ||
		(uint64) s->consts_offset + s->consts_len > len)
	{
		appendStringInfoString(&buf, "BAD OFFSETS\n");
		return buf.data;
	}
	attrs = (const XpuAttr *) (msg + s->attrs_offset);
	nodes = (const XpuNode *) (msg + s->nodes_offset);
	args = (const int32 *) (msg + s->args_offset);
	pool = msg + s->consts_offset;

	for (i = 0; i < s->nattrs; i++)
		appendStringInfo(&buf, "attr %u: len=%d align=%d byval=%d xtype=%s\n",
						 i + 1, attrs[i].attlen, attrs[i].attalign,
						 attrs[i].attbyval,
						 attrs[i].xtype ? cg_xtype_name(attrs[i].xtype) : "-");
	for (i = 0; i < s->nnodes; i++)
	{
		const XpuNode *n = &nodes[i];
		int			j;

		appendStringInfo(&buf, "node %u: %s %s", i, cg_opcode_name(n->opcode),
						 cg_xtype_name(n->restype));
		if (n->nargs > 0)
		{
			appendStringInfoString(&buf, " (");
			for (j = 0; j < n->nargs; j++)
				appendStringInfo(&buf, "%s%d", j > 0 ? ", " : "",
								 (n->args + j < (int) s->nargs) ? args[n->args + j] : -999);
			appendStringInfoChar(&buf, ')');
		}
		if (n->flags)
			appendStringInfo(&buf, " flags=%x", n->flags);
		if (n->opcode == XPU_OP_VAR)
			appendStringInfo(&buf, " attr=%d", n->aux + 1);
		else if (n->opcode == XPU_OP_CONST && (n->flags & XPU_NODE_CONST_NULL))
			appendStringInfoString(&buf, " NULL");
		else if (n->opcode == XPU_OP_CONST)
		{
			const char *v = pool + n->aux;

			appendStringInfo(&buf, " @%d = ", n->aux);
			switch (n->restype)
			{
				case XPU_TYPE_BOOL:
					appendStringInfo(&buf, "%s", *v ? "true" : "false");
					break;
				case XPU_TYPE_INT2:
					appendStringInfo(&buf, "%d", *(const int16 *) v);
					break;
				case XPU_TYPE_INT4:
				case XPU_TYPE_DATE:
					appendStringInfo(&buf, "%d", *(const int32 *) v);
					break;
				case XPU_TYPE_INT8:
				case XPU_TYPE_TIMESTAMP:
				case XPU_TYPE_TIMESTAMPTZ:
					appendStringInfo(&buf, INT64_FORMAT, *(const int64 *) v);
					break;
				case XPU_TYPE_FLOAT4:
					appendStringInfo(&buf, "%.9g", *(const float4 *) v);
					break;
				case XPU_TYPE_FLOAT8:
					appendStringInfo(&buf, "%.17g", *(const float8 *) v);
					break;
				case XPU_TYPE_NUMERIC:
					{
						const XpuNumericConst *nc = (const XpuNumericConst *) v;

						appendStringInfo(&buf, "hi=" INT64_FORMAT " lo=" INT64_FORMAT " scale=%d",
										 (int64) nc->hi, (int64) nc->lo, nc->scale);
						break;
					}
				case XPU_TYPE_TEXT:
				case XPU_TYPE_VARCHAR:
				case XPU_TYPE_BPCHAR:
					{
						const XpuTextConst *tc = (const XpuTextConst *) v;

						appendStringInfo(&buf, "len=%d '%.*s'", tc->len, tc->len,
										 v + sizeof(XpuTextConst));
						break;
					}
			}
		}
		else if (n->aux != 0)
			appendStringInfo(&buf, " aux=%d", n->aux);
		appendStringInfoChar(&buf, '\n');
	}
	return buf.data;
}

static Plan *
find_seqscan(Plan *plan)
{
	Plan	   *result;

	if (plan == NULL)
		return NULL;
	if (IsA(plan, SeqScan))
		return plan;
	if ((result = find_seqscan(plan->lefttree)) != NULL)
		return result;
	return find_seqscan(plan->righttree);
}

/*
 * Plans sql, runs the code generator over the quals of its first SeqScan;
 * *report gets one line per qual, the result is the message (NULL if no
 * qual is supported).
 */
static StringInfo
debug_build(text *sql_text, ArrayType *params_arr, StringInfo report)
{
	char	   *sql = text_to_cstring(sql_text);
	const char *cpu_reason = NULL;
	List	   *raws = pg_parse_query(sql);
	Oid		   *ptypes = NULL;
	int			nptypes = 0;
	List	   *queries;
	PlannedStmt *pstmt;
	Plan	   *scan;
	Index		scanrelid;
	RangeTblEntry *rte;
	Relation	rel;
	ListCell   *lc;
	List	   *dev_quals = NIL;
	ParamListInfo paramLI = NULL;
	ExprContext *econtext;
	StringInfo	msg = NULL;
	int			i = 0;

	if (list_length(raws) != 1)
		elog(ERROR, "exactly one statement expected");
	queries = pg_analyze_and_rewrite_varparams(linitial_node(RawStmt, raws), sql,
											   &ptypes, &nptypes, NULL);
	if (list_length(queries) != 1)
		elog(ERROR, "exactly one query expected");
	pstmt = pg_plan_query(linitial_node(Query, queries), sql,
						  CURSOR_OPT_GENERIC_PLAN, NULL);

	if (nptypes > 0)
	{
		Datum	   *values = NULL;
		bool	   *nulls = NULL;
		int			nvalues = 0;

		if (params_arr)
			deconstruct_array(params_arr, TEXTOID, -1, false, TYPALIGN_INT,
							  &values, &nulls, &nvalues);
		if (nvalues < nptypes)
			elog(ERROR, "query has %d parameters, %d values given", nptypes, nvalues);
		paramLI = makeParamList(nptypes);
		for (i = 0; i < nptypes; i++)
		{
			ParamExternData *prm = &paramLI->params[i];
			Oid			typinput;
			Oid			typioparam;

			getTypeInputInfo(ptypes[i], &typinput, &typioparam);
			prm->ptype = ptypes[i];
			prm->pflags = PARAM_FLAG_CONST;
			prm->isnull = nulls[i];
			prm->value = OidInputFunctionCall(typinput,
											  nulls[i] ? NULL : TextDatumGetCString(values[i]),
											  typioparam, -1);
		}
	}

	scan = find_seqscan(pstmt->planTree);
	if (scan == NULL)
		elog(ERROR, "the plan has no sequential scan");
	scanrelid = ((Scan *) scan)->scanrelid;
	rte = rt_fetch(scanrelid, pstmt->rtable);

	i = 0;
	foreach(lc, scan->qual)
	{
		Expr	   *qual = lfirst(lc);
		char	   *reason;
		int			nnodes;

		if (cg_check_qual(qual, scanrelid, &reason, &nnodes))
		{
			appendStringInfo(report, "qual %d: supported, %d nodes\n", i, nnodes);
			dev_quals = lappend(dev_quals, qual);
		}
		else
			appendStringInfo(report, "qual %d: refused: %s\n", i, reason);
		i++;
	}
	if (dev_quals == NIL)
		return NULL;
	if (list_length(dev_quals) > 1)
	{
		char	   *reason;
		int			nnodes;

		if (cg_check_qual(make_ands_explicit(dev_quals), scanrelid, &reason, &nnodes))
			appendStringInfo(report, "all quals: supported, %d nodes\n", nnodes);
		else
			appendStringInfo(report, "all quals: refused: %s\n", reason);
	}

	rel = table_open(rte->relid, AccessShareLock);
	econtext = CreateStandaloneExprContext();
	econtext->ecxt_param_list_info = paramLI;
	msg = pgstrom_build_gpuscan_session(dev_quals, scanrelid, rel, econtext,
										UINT64CONST(0x1122334455667788), 42,
										&cpu_reason);
	if (msg == NULL)
		appendStringInfo(report, "program: refused: %s\n", cpu_reason);
	FreeExprContext(econtext, true);
	table_close(rel, AccessShareLock);
	return msg;
}

Datum
pgstrom_codegen_debug(PG_FUNCTION_ARGS)
{
	StringInfoData report;
	StringInfo	msg;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	initStringInfo(&report);
	msg = debug_build(PG_GETARG_TEXT_PP(0),
					  PG_ARGISNULL(1) ? NULL : PG_GETARG_ARRAYTYPE_P(1),
					  &report);
	if (msg)
		appendStringInfoString(&report, cg_dump_message(msg->data, msg->len));
	PG_RETURN_TEXT_P(cstring_to_text(report.data));
}

Datum
pgstrom_codegen_message(PG_FUNCTION_ARGS)
{
	StringInfoData report;
	StringInfo	msg;
	bytea	   *result;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	initStringInfo(&report);
	msg = debug_build(PG_GETARG_TEXT_PP(0),
					  PG_ARGISNULL(1) ? NULL : PG_GETARG_ARRAYTYPE_P(1),
					  &report);
	if (msg == NULL)
		PG_RETURN_NULL();
	result = palloc(VARHDRSZ + msg->len);
	SET_VARSIZE(result, VARHDRSZ + msg->len);
	memcpy(VARDATA(result), msg->data, msg->len);
	PG_RETURN_BYTEA_P(result);
}

Datum
pgstrom_codegen_functions(PG_FUNCTION_ARGS)
{
	StringInfoData buf;
	int			i;

	initStringInfo(&buf);
	for (i = 0; i < cg_func_table_size(); i++)
	{
		Oid			funcid;
		const char *name;
		int			opcode,
					arg1,
					arg2,
					restype;

		cg_func_table_entry(i, &funcid, &name, &opcode, &arg1, &arg2, &restype);
		appendStringInfo(&buf, "%u\t%s(%s%s%s)\t%s -> %s\n",
						 funcid, name, cg_xtype_name(arg1),
						 arg2 ? ", " : "", arg2 ? cg_xtype_name(arg2) : "",
						 opcode ? cg_opcode_name(opcode) : "(argument)",
						 cg_xtype_name(restype));
	}
	PG_RETURN_TEXT_P(cstring_to_text(buf.data));
}
