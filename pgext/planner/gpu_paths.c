/*-------------------------------------------------------------------------
 *
 * gpu_paths.c
 *		What the planner code of every GPU node asks alike.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

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
