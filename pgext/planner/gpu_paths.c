/*-------------------------------------------------------------------------
 *
 * gpu_paths.c
 *		What the planner code of every GPU node asks alike.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/heapam.h"
#include "access/table.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "storage/lwlock.h"
#include "utils/rel.h"

#include "core/pg_strom.h"
#include "service/service_state.h"
#include "planner/gpu_paths.h"

/* the service is ready with a device (the planner never touches a socket) */
bool
gpu_service_ready(void)
{
	PgStromServiceShared *ss = pgstrom_service_shared;
	bool		ready;

	if (ss == NULL)
		return false;
	LWLockAcquire(ss->lock, LW_SHARED);
	ready = (ss->state == PGSTROM_SERVICE_READY && ss->devices.ndevices > 0);
	LWLockRelease(ss->lock);
	return ready;
}

/* a table or matview of the heap access method: what the runtime scans */
bool
gpu_relation_is_plain_heap(RangeTblEntry *rte)
{
	Relation	rel;
	bool		result;

	/* the planner holds a lock on it already */
	rel = table_open(rte->relid, NoLock);
	result = (rel->rd_rel->relam == HEAP_TABLE_AM_OID &&
			  (rel->rd_rel->relkind == RELKIND_RELATION ||
			   rel->rd_rel->relkind == RELKIND_MATVIEW));
	table_close(rel, NoLock);
	return result;
}

/* as costsize.c's get_parallel_divisor() */
double
gpu_parallel_divisor(int parallel_workers)
{
	double		divisor = parallel_workers;

	if (parallel_leader_participation)
	{
		double		leader_contribution = 1.0 - (0.3 * parallel_workers);

		if (leader_contribution > 0)
			divisor += leader_contribution;
	}
	return divisor;
}

/*
 * The pages of a heap table read by a GPU path.  The CPU never reads them:
 * a page in shared buffers is read by the device where it lies, one that
 * is not is read by the service from the relation's files (direct read)
 * or comes through the buffer manager.  So PostgreSQL's seq_page_cost, its
 * charge for bringing a page to the CPU, is replaced by
 *	pages * gpu_page_cost		(one link, whatever the participants)
 *	+ pages * cpu_tuple_cost * GPU_BACKEND_PAGE_TUPLES / participants
 * (the backends' share).  With the defaults a page costs 0.33 with 16
 * workers against the parallel sequential scan's 1.07 or more: on the
 * H200 the GPU path moved 31-40 GB/s where PostgreSQL moved 5-13.
 */
Cost
gpu_heap_pages_cost(RelOptInfo *rel, int parallel_workers)
{
	double		divisor = (parallel_workers > 0
						   ? gpu_parallel_divisor(parallel_workers) : 1.0);

	return rel->pages * (pgstrom_gpu_page_cost +
						 cpu_tuple_cost * GPU_BACKEND_PAGE_TUPLES / divisor);
}

/*
 * The expected number of a heap relation's pages that hold at least one
 * of the rows a device qual of the given selectivity passes, the rows
 * spread evenly: each page holds tuples/pages rows, and misses every one
 * with probability (1 - selectivity)^(rows per page).
 */
double
gpu_pages_holding_rows(RelOptInfo *rel, double selectivity)
{
	double		rows_per_page;

	if (rel->pages <= 0 || rel->tuples <= 0)
		return 0.0;
	selectivity = Min(Max(selectivity, 0.0), 1.0);
	rows_per_page = Max(rel->tuples / rel->pages, 1.0);
	return rel->pages * (1.0 - pow(1.0 - selectivity, rows_per_page));
}
