/*-------------------------------------------------------------------------
 *
 * gpujoin_explain.c
 *		EXPLAIN of GpuJoin: the outer quals (on the device and on the CPU),
 *		then one line per depth with its join type and keys (and, with
 *		COSTS, the planner's inner rows); with ANALYZE the runtime's
 *		counters and, per depth, the inner rows and bytes the backend kept,
 *		the device's bytes and build time (from the JoinInner reply), the
 *		backend's build time of the inner rows, and why the node ran on the
 *		CPU if it did.  A depth's residual join quals follow it, with where
 *		they run: on the CPU under GpuJoin, on the GPU fused under
 *		GpuPreAgg.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "commands/explain.h"
#include "nodes/makefuncs.h"
#include "utils/ruleutils.h"

#include "gpujoin/gpujoin.h"

static const char *
join_type_name(JoinType jt)
{
	switch (jt)
	{
		case JOIN_INNER:
			return "Inner";
		case JOIN_LEFT:
			return "Left";
		case JOIN_SEMI:
			return "Semi";
		case JOIN_ANTI:
			return "Anti";
		default:
			return "?";
	}
}

/*
 * keys: list_make3(outer keys, inner keys, residual join quals) to deparse;
 * on_device: where the quals are evaluated.
 */
void
gpujoin_explain_depth(GpuJoinState *gjs, int d, List *keys, List *context,
					  bool useprefix, bool on_device, ExplainState *es)
{
	GpuJoinDepthInfo *dp = &gjs->info->depths[d];
	List	   *outer_keys = linitial(keys);
	List	   *inner_keys = lsecond(keys);
	List	   *quals = lthird(keys);
	StringInfoData buf;
	char		label[32];
	ListCell   *lc1,
			   *lc2;
	bool		first = true;

	initStringInfo(&buf);
	appendStringInfo(&buf, "%s Join on (", join_type_name(dp->join_type));
	forboth(lc1, outer_keys, lc2, inner_keys)
	{
		appendStringInfo(&buf, "%s%s = %s", first ? "" : " AND ",
						 deparse_expression(lfirst(lc1), context, useprefix, false),
						 deparse_expression(lfirst(lc2), context, useprefix, false));
		first = false;
	}
	appendStringInfoChar(&buf, ')');
	if (es->costs)
		appendStringInfo(&buf, ", Planned Inner Rows: %.0f", dp->plan_rows);
	if (es->analyze)
	{
		uint64		rows = gjs->inner[d].nrows;
		uint64		bytes = gjs->inner[d].bytes;

		/* a parallel plan's totals: this process may have built nothing */
		if (gjs->shared_figures)
		{
			rows = gjs->shared_rows[d];
			bytes = gjs->shared_bytes[d];
		}
		appendStringInfo(&buf, ", Inner Rows: " UINT64_FORMAT ", Inner Bytes: " UINT64_FORMAT,
						 rows, bytes);
		if (gjs->shared_figures && dp->inner_partial)
			appendStringInfo(&buf, ", Inner Build: parallel, %d participant%s",
							 gjs->shared_builders[d],
							 gjs->shared_builders[d] == 1 ? "" : "s");
		if (gjs->shared_figures &&
			gjs->shared_cpu_hash[d] == GPUJOIN_CPU_HASH_BUILDING)
			appendStringInfo(&buf, ", CPU Hash: shared by %d participant%s",
							 gjs->shared_cpu_hash_users[d],
							 gjs->shared_cpu_hash_users[d] == 1 ? "" : "s");
		else if (gjs->shared_figures &&
				 gjs->shared_cpu_hash[d] == GPUJOIN_CPU_HASH_LOCAL)
			appendStringInfo(&buf, ", CPU Hash: one per participant");
		if (gjs->device_bytes[d] > 0)
		{
			appendStringInfo(&buf, ", GPU Bytes: " UINT64_FORMAT, gjs->device_bytes[d]);
			if (es->timing)
				appendStringInfo(&buf, ", Build Time: %.3f ms",
								 (double) gjs->build_ns[d] / 1000000.0);
		}
	}
	snprintf(label, sizeof(label), "Depth %d", d + 1);
	ExplainPropertyText(label, buf.data, es);
	pfree(buf.data);
	if (quals != NIL)
	{
		snprintf(label, sizeof(label), "Depth %d Join Filter (%s)", d + 1,
				 on_device ? "GPU" : "CPU");
		ExplainPropertyText(label,
							deparse_expression((Node *) make_ands_explicit(quals),
											   context, useprefix, false),
							es);
	}

	/*
	 * After the last depth (GpuJoin's EXPLAIN and the fused GpuPreAgg's
	 * both come here): the backend's build of every depth's inner rows
	 * (running the inner plans, encoding, in a parallel plan the waits).
	 */
	if (es->analyze && es->timing && d == gjs->info->ndepths - 1 &&
		gjs->host_build_ns > 0)
		ExplainPropertyFloat("Inner Build Time", "ms",
							 (double) gjs->host_build_ns / 1000000.0, 3, es);
}

void
gpujoin_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	GpuJoinState *gjs = (GpuJoinState *) node;
	GpuTaskState *gts = &gjs->gts;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *context;
	bool		useprefix;
	ListCell   *lc;
	int			d = 0;

	gpu_task_explain_quals(gts, "GPU Quals", linitial(cscan->custom_exprs),
						   ancestors, es);
	gpu_task_explain_quals(gts, "Outer Filter", lsecond(cscan->custom_exprs),
						   ancestors, es);
	context = set_deparse_context_plan(es->deparse_cxt, &cscan->scan.plan,
									   ancestors);
	useprefix = (PgStromExplainRtableSize(es) > 1 || es->verbose);
	foreach(lc, (List *) lthird(cscan->custom_exprs))
		gpujoin_explain_depth(gjs, d++, lfirst(lc), context, useprefix,
							  gjs->quals_device, es);

	if (!es->analyze)
		return;
	{
		const GpuTaskCounters *c = gpu_task_explain_totals(gts);
		GpuExplainCounter items[] = {
			{"Chunks", c->nchunks},
			{"Pages", c->npages},
			{"Zero-Copy Pages", c->npages_zero_copy},
			{"Rows In", c->nrows_in},
			{"Rows Out", c->nrows_out},
			{"Recheck Rows", c->nrecheck},
			{"CPU Joined Rows", c->node[GPUJOIN_COUNTER_CPU_JOINED]},
		};

		/* the last only where the backend checked a LEFT depth's quals */
		gpu_task_explain_counters(gts, items,
								  lengthof(items) -
								  (gjs->left_row_quals && !gjs->quals_on_device ? 0 : 1),
								  es);
	}
}
