/*-------------------------------------------------------------------------
 *
 * scan_slot.c
 *		A custom scan whose scan slot holds heap tuples.
 *
 * 16 lets a custom scan name the kind of its scan slot (css.slotOps).  15
 * makes it virtual, and the expression compiler then leaves out the
 * deforming step of the host quals and the projection: at
 * BeginCustomScan the slot is replaced by a heap-tuple one and both are
 * compiled again.  (16's side is untested.)
 *
 * A GpuJoin's or GpuPreAgg's scan slot holds its own rows (custom_scan_tlist),
 * but its outer keys and quals read the relation's heap tuple: they are
 * compiled with the node's scan descriptor and ops set to the heap tuple's,
 * since the JIT compiler deforms a fixed scan slot by its descriptor, and
 * the node's would read the heap tuple with the wrong columns.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/executor.h"
#include "nodes/extensible.h"
#include "utils/rel.h"

#include "compat/pg_compat.h"

/* when the CustomScanState is created */
void
pgstrom_scan_slot_create(CustomScanState *css)
{
#if PG_VERSION_NUM >= 160000
	css->slotOps = &TTSOpsHeapTuple;
#endif
}

/* at the start of BeginCustomScan, before the node reads its slot */
void
pgstrom_scan_slot_begin(CustomScanState *css, EState *estate)
{
#if PG_VERSION_NUM < 160000
	CustomScan *cscan = (CustomScan *) css->ss.ps.plan;

	ExecInitScanTupleSlot(estate, &css->ss,
						  RelationGetDescr(css->ss.ss_currentRelation),
						  &TTSOpsHeapTuple);
	ExecAssignScanProjectionInfoWithVarno(&css->ss, cscan->scan.scanrelid);
	css->ss.ps.qual = ExecInitQual(cscan->scan.plan.qual, &css->ss.ps);
#endif
}

/* from here on, expressions compiled for ps read heap tuples of desc */
void
pgstrom_scan_ops_push_heap(PlanState *ps, TupleDesc desc, PgStromScanOps *saved)
{
	saved->ops = ps->scanops;
	saved->desc = ps->scandesc;
	saved->fixed = ps->scanopsfixed;
	saved->set = ps->scanopsset;
	ps->scanops = &TTSOpsHeapTuple;
	ps->scandesc = desc;
	ps->scanopsfixed = true;
	ps->scanopsset = true;
}

/* the node's own scan slot again */
void
pgstrom_scan_ops_pop(PlanState *ps, const PgStromScanOps *saved)
{
	ps->scanops = saved->ops;
	ps->scandesc = saved->desc;
	ps->scanopsfixed = saved->fixed;
	ps->scanopsset = saved->set;
}
