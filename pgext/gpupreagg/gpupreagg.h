/*
 * gpupreagg.h
 *
 * GpuPreAgg: partial aggregation of a heap scan on the GPU.  The planner
 * (gpupreagg_path.c, gpupreagg_plan.c) puts a CustomScan "GpuPreAgg" below
 * a Finalize Agg (AGGSPLIT_FINAL_DESERIAL), with a Gather between them for
 * parallel plans.  The executor (gpupreagg_exec.c and friends) scans the
 * relation with the GPU runtime (runtime/), lets the device accumulate the rows
 * it can, accumulates the rest (RECHECK rows, or every row on the CPU path)
 * on the CPU with the same accumulators, and emits one partial-aggregate
 * tuple per group entry: PostgreSQL's own final Agg combines them, so
 * several entries for one group are fine.
 *
 * Contract between planner and executor:
 *  - The CustomScan's custom_scan_tlist is the key expressions (in key
 *    order), then one partial Aggref (AGGSPLIT_INITIAL_SERIAL) per
 *    aggregate (in aggregate order).  Its targetlist references those
 *    entries (INDEX_VAR after set_plan_refs).  The scan tuple the executor
 *    emits has exactly nkeys + naggs columns, in that order.
 *  - custom_private is gpupreagg_info_to_list() of a GpuPreAggInfo; all
 *    expressions in it reference the scan relation (scanrelid).
 */
#ifndef PGSTROM_GPUPREAGG_H
#define PGSTROM_GPUPREAGG_H

#include "postgres.h"
#include "nodes/execnodes.h"
#include "nodes/extensible.h"
#include "nodes/pathnodes.h"
#include "nodes/plannodes.h"

#include "pg_strom_xpu.h"

/* buckets a participant's CPU group tables start with (they grow) */
#define GPA_CPU_GROUPS_INITIAL_BUCKETS	1024

/*
 * How a partial aggregate state is formed from an XpuAggKind accumulator;
 * the form is PostgreSQL's own transition state of the aggregate, so the
 * final Agg's combine/deserialize/final functions take it unchanged.
 */
typedef enum GpuPreAggStateForm
{
	GPA_STATE_COUNT = 1,		/* count(*), count(x): int8 n */
	GPA_STATE_INT8_SUM,			/* sum(int2/int4): int8, NULL when n = 0 */
	GPA_STATE_INT8_AVG_ARRAY,	/* avg(int2/int4): int8[2] {n, sum} */
	GPA_STATE_POLY_SUM,			/* sum/avg(int8): bytea as int8_avg_serialize
								 * (int64 N, numericvar sumX) */
	GPA_STATE_POLY_VAR,			/* var/stddev(int2/int4): bytea as
								 * numeric_poly_serialize (N, sumX, sumX2) */
	GPA_STATE_FLOAT4_SUM,		/* sum(float4): float4, NULL when n = 0 */
	GPA_STATE_FLOAT8_SUM,		/* sum(float8): float8, NULL when n = 0 */
	GPA_STATE_FLOAT8_ACCUM,		/* avg/var/stddev(float4/float8): float8[3]
								 * {N, Sx, Sxx} as float8_accum */
	GPA_STATE_MINMAX,			/* min/max: the argument's type, NULL when
								 * n = 0 */
	GPA_STATE_NUMERIC_AVG,		/* sum/avg(numeric(p,s), p <= 18): bytea as
								 * numeric_avg_serialize (N, sumX, maxScale,
								 * maxScaleCount, NaN/+Inf/-Inf counts) */
	GPA_STATE_NUMERIC_MINMAX,	/* min/max(numeric(p,s), p <= 18): numeric */
	GPA_STATE_BOOL,				/* bool_and/bool_or: bool from the min/max
								 * of the argument as 0/1, NULL when n = 0 */
	GPA_STATE_NUMERIC_VAR		/* var/stddev(int8): bytea as numeric_serialize
								 * (N, sumX, sumX2, maxScale, maxScaleCount,
								 * NaN/+Inf/-Inf counts) */
} GpuPreAggStateForm;

typedef struct GpuPreAggAgg
{
	Oid			aggfnoid;		/* pg_aggregate of the aggregate */
	XpuAggKind	kind;			/* device accumulator */
	GpuPreAggStateForm form;	/* partial state built from it */
	Oid			argtype;		/* PostgreSQL type of arg (InvalidOid: count(*)) */
	Expr	   *arg;			/* NULL for count(*) */
	Expr	   *filter;			/* FILTER clause, or NULL */
	int32		param;			/* numeric argument: its scale (XpuAggDesc) */
} GpuPreAggAgg;

typedef struct GpuPreAggInfo
{
	List	   *dev_quals;		/* implicitly ANDed, device-supported */
	List	   *keys;			/* Expr, grouping keys in key order */
	List	   *aggs;			/* GpuPreAggAgg *, in aggregate order */
	double		ngroups;		/* planner's estimate, sizes the table */
} GpuPreAggInfo;

/* gpupreagg_plan.c */
extern List *gpupreagg_info_to_list(const GpuPreAggInfo *info);
extern GpuPreAggInfo *gpupreagg_info_from_list(List *private);
extern CustomPathMethods gpupreagg_path_methods;
extern CustomScanMethods gpupreagg_plan_methods;
extern void pgstrom_init_gpupreagg_plan(void);

/* gpupreagg_path.c */
extern void pgstrom_init_gpupreagg(void);

/*
 * gpupreagg_support.c: what the device can aggregate.  Returns false and
 * sets *reason (palloc'd, for DEBUG output) for anything else.
 */
extern bool gpupreagg_classify_aggref(Aggref *aggref, Index scanrelid,
									  GpuPreAggAgg *out, char **reason);
extern bool gpupreagg_key_supported(Expr *key, Index scanrelid, char **reason);

/*
 * gpupreagg_accum.c: the group entry layout, and the CPU side of the
 * accumulators.  CPU accumulators use the device's byte layout (see
 * pg_strom_xpu.h), so one function forms the partial state of an entry
 * whether the device or the CPU filled it.
 */
typedef struct GpuPreAggLayout
{
	uint32		entry_size;		/* XpuPreAggDesc.entry_size */
	uint32	   *key_offset;		/* [nkeys] */
	uint32	   *key_width;		/* [nkeys] */
	int		   *key_xtype;		/* [nkeys] XpuType */
	uint32	   *agg_offset;		/* [naggs] */
} GpuPreAggLayout;

/* fills *layout (arrays palloc'd); ereport(ERROR) past the device's limits */
extern void gpupreagg_compute_layout(const GpuPreAggInfo *info,
									 GpuPreAggLayout *layout);

/* sets the accumulator of agg at acc to its initial value */
extern void gpupreagg_accum_init(const GpuPreAggAgg *agg, char *acc);

/*
 * Adds one row to the accumulator: value/isnull is agg->arg evaluated by
 * the CPU (ignored for count(*)).  The caller has checked the quals and the
 * FILTER.  Raises PostgreSQL's error where PostgreSQL's transition function
 * would (none of the supported ones do on input alone).
 */
extern void gpupreagg_accum_add(const GpuPreAggAgg *agg, char *acc,
								Datum value, bool isnull);

/*
 * The partial state (PostgreSQL's transition value, serialized where the
 * aggregate has a serial function) of an accumulator, in the current memory
 * context.  Raises PostgreSQL's overflow errors for float sums that
 * PostgreSQL would have raised.
 */
extern Datum gpupreagg_partial_state(const GpuPreAggAgg *agg, const char *acc,
									 bool *isnull);

/* gpupreagg_numv.c: SUM_NUMV, the numeric sum of varying display scales */
extern void gpupreagg_numv_add(const GpuPreAggAgg *agg, char *acc, Datum value);
extern int32 gpupreagg_numv_send(struct StringInfoData *buf,
								 const GpuPreAggAgg *agg, const char *acc);

/*
 * The key value stored in a device entry's key slot, as a Datum of type
 * typid (the key expression's type), in the current memory context.
 */
extern Datum gpupreagg_key_datum(Oid typid, int xtype, const char *slot,
								 uint32 slot_width, bool *isnull);

/* gpupreagg_exec.c */
extern CustomExecMethods gpupreagg_exec_methods;
extern Node *gpupreagg_create_state(CustomScan *cscan);

#endif							/* PGSTROM_GPUPREAGG_H */
