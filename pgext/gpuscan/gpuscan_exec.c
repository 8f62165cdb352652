/*-------------------------------------------------------------------------
 *
 * gpuscan_exec.c
 *		Executor of GpuScan: its runtime ops and EXPLAIN.
 *
 * The session is the device quals; each chunk's reply lists the positions
 * of the rows that passed or that the device could not decide (RECHECK),
 * which go through ExecQual of the device quals, so PostgreSQL itself
 * raises any error they cause.  On the CPU every visible tuple goes that
 * way.  The runtime (runtime/) does the rest.
 *
 * EXPLAIN shows "GPU Quals" after the node's ordinary Filter (the host
 * quals) and, with ANALYZE, the runtime's counters.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/executor.h"

#include "codegen/codegen.h"
#include "gpuscan/gpuscan.h"

static StringInfo
gpuscan_build_session(GpuTaskState *gts, const char **cpu_reason)
{
	CustomScan *cscan = (CustomScan *) gts->css.ss.ps.plan;

	if (gts->dev_quals == NIL)
	{
		*cpu_reason = "no device quals";
		return NULL;
	}
	return pgstrom_build_gpuscan_session(gts->dev_quals,
										 cscan->scan.scanrelid,
										 gts->rel,
										 gts->css.ss.ps.ps_ExprContext,
										 gts->plan_id,
										 PGSTROM_SESSION_REQUEST_ID,
										 cpu_reason);
}

static bool
gpuscan_gpu_next_row(GpuTaskState *gts, GpuTaskChunk *chunk,
					 TupleTableSlot *slot)
{
	return gpu_task_position_next_row(gts, chunk, slot, false);
}

static const GpuTaskOps gpuscan_ops = {
	.build_session = gpuscan_build_session,
	.item_size = sizeof(uint32),
	.max_items_per_tuple = 1,
	.gpu_next_row = gpuscan_gpu_next_row,
	.cpu_next_row = gpu_task_qual_next_row,
	.finish = NULL,
	.device_keeps_rows = false,
};

static TupleTableSlot *
gpuscan_next(ScanState *node)
{
	TupleTableSlot *slot = node->ss_ScanTupleSlot;

	if (gpu_task_next_tuple((GpuTaskState *) node, slot))
		return slot;
	return ExecClearTuple(slot);
}

static bool
gpuscan_recheck(ScanState *node, TupleTableSlot *slot)
{
	GpuTaskState *gts = (GpuTaskState *) node;
	ExprContext *econtext = node->ps.ps_ExprContext;

	econtext->ecxt_scantuple = slot;
	return ExecQual(gts->dev_qual_state, econtext);
}

void
gpuscan_begin(CustomScanState *node, EState *estate, int eflags)
{
	GpuTaskState *gts = (GpuTaskState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;

	/* the scan slot holds heap tuples (15 made it virtual) */
	pgstrom_scan_slot_begin(node, estate);

	gts->dev_quals = cscan->custom_exprs;
	gts->dev_qual_state = ExecInitQual(cscan->custom_exprs, &node->ss.ps);
	gpu_task_begin(gts, &gpuscan_ops, estate);
}

TupleTableSlot *
gpuscan_exec(CustomScanState *node)
{
	return ExecScan(&node->ss, gpuscan_next, gpuscan_recheck);
}

void
gpuscan_end(CustomScanState *node)
{
	gpu_task_end((GpuTaskState *) node);
}

void
gpuscan_rescan(CustomScanState *node)
{
	gpu_task_rescan((GpuTaskState *) node);
}

void
gpuscan_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	GpuTaskState *gts = (GpuTaskState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	const GpuTaskCounters *c;

	gpu_task_explain_quals(gts, "GPU Quals", cscan->custom_exprs,
						   ancestors, es);
	if (!es->analyze)
		return;
	c = gpu_task_explain_totals(gts);
	{
		GpuExplainCounter items[] = {
			{"Chunks", c->nchunks},
			{"Pages", c->npages},
			{"Zero-Copy Pages", c->npages_zero_copy},
			{"Rows In", c->nrows_in},
			{"Rows Out", c->nrows_out},
			{"Recheck Rows", c->nrecheck},
		};

		gpu_task_explain_counters(gts, items, lengthof(items), es);
	}
}
