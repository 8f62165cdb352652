/*-------------------------------------------------------------------------
 *
 * task_explain.c
 *		EXPLAIN helpers of GPU nodes.
 *
 * Text format, after the node's ordinary "Filter" (the host quals), each
 * node shows its device expressions (gpu_task_explain_quals), and with
 * ANALYZE one line of counters:
 *
 *	Chunks: N  Pages: N  Rows In: N  ...  GPU Time: X ms
 *	CPU Path: <reason>                  (only when the CPU path was used)
 *	Page Copies: <reason>               (only when pages were copied, not
 *	                                     read in shared buffers)
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

#include "runtime/gpu_task.h"

/* the counters EXPLAIN ANALYZE shows: every participant's once known */
const GpuTaskCounters *
gpu_task_explain_totals(GpuTaskState *gts)
{
	return gts->have_totals ? &gts->totals : &gts->counters;
}

/* implicitly ANDed expressions over the scan relation, deparsed as a Filter */
void
gpu_task_explain_quals(GpuTaskState *gts, const char *label, List *quals,
					   List *ancestors, ExplainState *es)
{
	Plan	   *plan = gts->css.ss.ps.plan;
	List	   *context;
	bool		useprefix;

	if (quals == NIL)
		return;
	context = set_deparse_context_plan(es->deparse_cxt, plan, ancestors);
	useprefix = (PgStromExplainRtableSize(es) > 1 || es->verbose);
	ExplainPropertyText(label,
						deparse_expression((Node *) make_ands_explicit(quals),
										   context, useprefix, false),
						es);
}

/*
 * The EXPLAIN ANALYZE figures of a GPU node: the counters given, on one
 * line in text format, then the GPU time and the CPU path's reason.
 */
void
gpu_task_explain_counters(GpuTaskState *gts, const GpuExplainCounter *items,
						  int nitems, ExplainState *es)
{
	const GpuTaskCounters *c = gpu_task_explain_totals(gts);
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
	gpu_task_direct_explain(gts, c, es);
	if (c->npruned > 0)
		ExplainPropertyUInteger("Partition Pruned at Execution", NULL,
								c->npruned, es);
	if (c->nempty_inner > 0)
		ExplainPropertyUInteger("Scans Skipped for Empty Inner", NULL,
								c->nempty_inner, es);
	if (c->nkeys_pruned > 0)
		ExplainPropertyUInteger("Partition Pruned by Join Keys", NULL,
								c->nkeys_pruned, es);
	if (gts->cpu_reason[0] != '\0')
		ExplainPropertyText("CPU Path", gts->cpu_reason, es);
	if (gts->copy_reason[0] != '\0')
		ExplainPropertyText("Page Copies", gts->copy_reason, es);
}
