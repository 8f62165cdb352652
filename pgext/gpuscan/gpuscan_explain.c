/*-------------------------------------------------------------------------
 *
 * gpuscan_explain.c
 *		EXPLAIN output of GpuScan.
 *
 * Text format, after the node's ordinary "Filter" (the host quals):
 *
 *	GPU Quals: <device quals, deparsed like a Filter>
 *
 * and with ANALYZE:
 *
 *	Chunks: N  Pages: N  Rows In: N  Rows Out: N  Recheck Rows: N  GPU Time: X ms
 *	CPU Path: <reason>                  (only when the CPU path was used)
 *
 * "GPU Time" is left out with TIMING OFF.  Counters of a parallel scan are
 * the sum over the leader and all workers.  The other formats carry the
 * same items as separate properties.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "commands/explain.h"
#include "nodes/makefuncs.h"
#include "optimizer/optimizer.h"
#include "utils/ruleutils.h"

#include "core/pg_strom.h"
#include "gpuscan/gpuscan.h"

void
gpuscan_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	GpuScanState *gss = (GpuScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	GpuScanCounters *c;

	if (cscan->custom_exprs != NIL)
	{
		List	   *context;
		bool		useprefix;
		char	   *exprstr;
		Node	   *qual = (Node *) make_ands_explicit(cscan->custom_exprs);

		context = set_deparse_context_plan(es->deparse_cxt,
										   &cscan->scan.plan, ancestors);
		useprefix = (list_length(es->rtable) > 1 || es->verbose);
		exprstr = deparse_expression(qual, context, useprefix, false);
		ExplainPropertyText("GPU Quals", exprstr, es);
	}

	if (!es->analyze)
		return;

	c = gss->have_totals ? &gss->totals : &gss->counters;
	{
		GpuExplainCounter items[] = {
			{"Chunks", c->nchunks},
			{"Pages", c->npages},
			{"Rows In", c->nrows_in},
			{"Rows Out", c->nrows_out},
			{"Recheck Rows", c->nrecheck},
		};

		gpuscan_explain_counters(gss, c, items, lengthof(items), es);
	}
}

/*
 * The EXPLAIN ANALYZE figures of a GpuScan-based node: the counters given,
 * on one line in text format, then the GPU time and the CPU path's reason.
 */
void
gpuscan_explain_counters(GpuScanState *gss, const GpuScanCounters *c,
						 const GpuExplainCounter *items, int nitems,
						 ExplainState *es)
{
	int			i;

	if (es->format == EXPLAIN_FORMAT_TEXT)
	{
		appendStringInfoSpaces(es->str, es->indent * 2);
		for (i = 0; i < nitems; i++)
			appendStringInfo(es->str, "%s%s: " UINT64_FORMAT,
							 i > 0 ? "  " : "", items[i].label, items[i].value);
		if (es->timing)
			appendStringInfo(es->str, "  GPU Time: %.3f ms",
							 (double) c->gpu_time_ns / 1000000.0);
		appendStringInfoChar(es->str, '\n');
	}
	else
	{
		for (i = 0; i < nitems; i++)
			ExplainPropertyUInteger(items[i].label, NULL, items[i].value, es);
		if (es->timing)
			ExplainPropertyFloat("GPU Time", "ms",
								 (double) c->gpu_time_ns / 1000000.0, 3, es);
	}
	if (gss->cpu_reason[0] != '\0')
		ExplainPropertyText("CPU Path", gss->cpu_reason, es);
}
