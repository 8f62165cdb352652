/*-------------------------------------------------------------------------
 *
 * task_kept.c
 *		Nodes whose rows stay on the device until TaskFinal (GpuPreAgg):
 *		which participant collects them, and the CPU redo of a
 *		participant's blocks when they are lost with the service.
 *
 * The device keeps the rows of every participant of a plan together (the
 * service's query buffer for the plan_id), so no participant can fetch only
 * its own.  The rules:
 *
 *	- A participant whose session opened counts itself among the plan's
 *	  active sessions (GpuTaskShared.nactive) before it sends a chunk, and
 *	  remembers which service holds its rows (the peer pid).  A session
 *	  opened after the plan was closed is not used.
 *	- Each participant keeps the block numbers of its chunks the device
 *	  answered: their rows are on the device.  (Chunks in flight when the
 *	  service is lost were never answered; the pipeline evaluates them on
 *	  the CPU.)
 *	- At the end of its scan a participant leaves the count.  The one that
 *	  leaves it at zero closes the plan and collects: TaskFinal with
 *	  PGSTROM_FINAL_COLLECT, whose reply the node reads whole before it
 *	  emits anything.  It then publishes which service delivered the rows,
 *	  or none.  The others keep their sessions open (the rows stay on the
 *	  device) and wait for that; none of them emits a row meanwhile (the
 *	  node keeps its overflow in a tuplestore), so nobody can block on a
 *	  tuple queue a waiting participant should read.
 *	- A participant that loses its session (the service died, or an error
 *	  reply made it leave, maybe after part of a chunk was accumulated)
 *	  taints the plan: its rows on the device are then not delivered.
 *	- A participant whose service delivered its rows is done.  Any other
 *	  (the plan was tainted, or the collector's service was another one:
 *	  ours died while we waited) drops what it made of the answered
 *	  chunks' replies (ops->discard_kept) and evaluates their blocks again
 *	  on the CPU.  Every row is so counted exactly once.
 *
 * Without a parallel plan the only participant collects.  One service runs
 * at a time, and the collector's TaskFinal comes after every participant's
 * last answer, so "the same service pid" means "the same table".
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "pgstat.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "core/pg_strom.h"
#include "runtime/gpu_task.h"

/*
 * After OpenSession: join the plan's active sessions.  False when the plan
 * is already being collected (this session must add nothing).
 */
bool
gpu_task_kept_register(GpuTaskState *gts)
{
	GpuTaskShared *shared = gts->shared;
	bool		ok = true;

	if (shared)
	{
		SpinLockAcquire(&shared->mutex);
		if (shared->closed)
			ok = false;
		else
			shared->nactive++;
		SpinLockRelease(&shared->mutex);
	}
	gts->kept_registered = ok;
	gts->kept_service_pid = ok ? pgstrom_gpu_conn_service_pid(gts->conn) : 0;
	/*
	 * Without knowing which service holds our rows we could not tell a
	 * delivery of them from another service's: no delivery, then.
	 */
	if (ok && gts->kept_service_pid == 0)
		gpu_task_kept_rows_lost(gts);
	return ok;
}

/*
 * Whether the plan is being collected: every participant that joined it
 * finished its scan, so every block was handed out already.
 */
bool
gpu_task_kept_closed(GpuTaskState *gts)
{
	GpuTaskShared *shared = gts->shared;
	bool		closed;

	if (shared == NULL)
		return false;
	SpinLockAcquire(&shared->mutex);
	closed = shared->closed;
	SpinLockRelease(&shared->mutex);
	return closed;
}

/* a chunk's SUCCESS came: its rows (but the RECHECK ones) are on the device */
void
gpu_task_kept_note_answer(GpuTaskState *gts, GpuTaskChunk *chunk)
{
	MemoryContext oldcxt;

	if (!gts->kept_registered || gts->redoing)
		return;
	if (gts->nredo + chunk->nblocks > gts->redo_cap)
	{
		uint32		cap = Max(gts->redo_cap * 2, gts->nredo + chunk->nblocks);

		oldcxt = MemoryContextSwitchTo(gts->css.ss.ps.state->es_query_cxt);
		gts->redo_blocks = gts->redo_blocks ?
			repalloc_huge(gts->redo_blocks, sizeof(BlockNumber) * (Size) cap) :
			MemoryContextAllocHuge(CurrentMemoryContext, sizeof(BlockNumber) * (Size) cap);
		MemoryContextSwitchTo(oldcxt);
		gts->redo_cap = cap;
	}
	if (chunk->nbounced == 0)
	{
		memcpy(gts->redo_blocks + gts->nredo, chunk->blknos,
			   sizeof(BlockNumber) * chunk->nblocks);
		gts->nredo += chunk->nblocks;
	}
	else
	{
		uint32		i;

		/* blocks the service sent back are read (and redone) elsewhere */
		for (i = 0; i < chunk->nblocks; i++)
			if (!chunk->bounced[i])
				gts->redo_blocks[gts->nredo++] = chunk->blknos[i];
	}
}

/*
 * The session is gone (the service died, or the node left it after an
 * error reply, which may come after part of a chunk was accumulated): the
 * plan's rows on the device can no longer be trusted to be whole or
 * counted once, so nobody delivers them and every participant redoes its
 * answered blocks.
 */
void
gpu_task_kept_rows_lost(GpuTaskState *gts)
{
	GpuTaskShared *shared = gts->shared;

	if (!gts->kept_registered || gts->kept_lost)
		return;
	gts->kept_lost = true;
	if (shared)
	{
		SpinLockAcquire(&shared->mutex);
		shared->tainted = true;
		SpinLockRelease(&shared->mutex);
	}
}

/* the session is no longer needed: the node goes on (if at all) on the CPU */
void
gpu_task_kept_leave(GpuTaskState *gts)
{
	if (gts->conn)
	{
		pgstrom_gpu_close(gts->conn);
		gts->conn = NULL;
	}
	gts->mode = GPU_TASK_MODE_CPU;
}

/*
 * Leaves the plan's active sessions; true when this one collects, and
 * then *tainted tells whether somebody lost the rows meanwhile.
 */
static bool
deregister(GpuTaskState *gts, bool *tainted)
{
	GpuTaskShared *shared = gts->shared;
	bool		collector;

	gts->kept_settled = true;
	*tainted = gts->kept_lost;
	if (shared == NULL)
		return true;
	SpinLockAcquire(&shared->mutex);
	Assert(shared->nactive > 0);
	shared->nactive--;
	collector = (shared->nactive == 0);
	if (collector)
		shared->closed = true;
	*tainted |= shared->tainted;
	SpinLockRelease(&shared->mutex);
	return collector;
}

static void
publish_collected(GpuTaskState *gts, int delivered_pid)
{
	GpuTaskShared *shared = gts->shared;

	if (shared == NULL)
		return;
	SpinLockAcquire(&shared->mutex);
	shared->delivered_pid = delivered_pid;
	shared->collect_done = true;
	SpinLockRelease(&shared->mutex);
	ConditionVariableBroadcast(&shared->collect_cv);
}

/* the service that delivered the plan's rows (0: none), once collected */
static int
wait_collected(GpuTaskState *gts)
{
	GpuTaskShared *shared = gts->shared;
	int			pid = 0;

	ConditionVariablePrepareToSleep(&shared->collect_cv);
	for (;;)
	{
		bool		done;

		SpinLockAcquire(&shared->mutex);
		done = shared->collect_done;
		pid = shared->delivered_pid;
		SpinLockRelease(&shared->mutex);
		if (done)
			break;
		ConditionVariableSleep(&shared->collect_cv, PG_WAIT_EXTENSION);
	}
	ConditionVariableCancelSleep();
	return pid;
}

/* the redo: the node forgets the answered chunks, the source replays them */
static void
start_redo(GpuTaskState *gts)
{
	gpu_task_kept_leave(gts);
	if (gts->ops->discard_kept)
		gts->ops->discard_kept(gts);
	gts->redoing = true;
	gts->redo_next = 0;
	gts->source_done = false;
	gts->counters.npages_redone += gts->nredo;
	ereport(DEBUG1,
			(errmsg_internal("%s on \"%s\": the GPU's rows of %u blocks were lost, evaluating them on the CPU",
							 gpu_task_node_name(gts),
							 RelationGetRelationName(gts->rel), gts->nredo)));
}

/*
 * End of a participant's scan, every chunk answered or evaluated.  Collects
 * the plan's rows, waits for their collection, or starts the redo of this
 * participant's answered blocks: true then (the scan goes on over them).
 */
bool
gpu_task_kept_settle(GpuTaskState *gts)
{
	int			delivered_pid;
	bool		tainted;

	if (!gts->kept_registered || gts->kept_settled)
		return false;
	if (deregister(gts, &tainted))
	{
		delivered_pid = 0;
		if (!tainted && gts->conn != NULL)
		{
			gts->collecting = true;
			gts->ops->finish(gts);
			gts->collecting = false;
			if (!gts->kept_lost)
				delivered_pid = gts->kept_service_pid;
		}
		publish_collected(gts, delivered_pid);
	}
	else
		delivered_pid = wait_collected(gts);

	if (delivered_pid != 0 && delivered_pid == gts->kept_service_pid &&
		!gts->kept_lost)
	{
		/* our rows came back with the plan's */
		gpu_task_kept_leave(gts);
		return false;
	}
	if (gts->nredo == 0)
	{
		/* nothing of ours was on the device */
		if (gts->ops->discard_kept)
			gts->ops->discard_kept(gts);
		gpu_task_kept_leave(gts);
		return false;
	}
	start_redo(gts);
	return true;
}

/* the next block to evaluate again, InvalidBlockNumber after the last */
BlockNumber
gpu_task_kept_next_redo_block(GpuTaskState *gts)
{
	if (gts->redo_next >= gts->nredo)
		return InvalidBlockNumber;
	return gts->redo_blocks[gts->redo_next++];
}

/* a new run of the node (rescan): nothing kept, nothing to redo */
void
gpu_task_kept_reset(GpuTaskState *gts)
{
	if (gts->redo_blocks)
		pfree(gts->redo_blocks);
	gts->redo_blocks = NULL;
	gts->nredo = 0;
	gts->redo_cap = 0;
	gts->redo_next = 0;
	gts->redoing = false;
	gts->kept_registered = false;
	gts->kept_lost = false;
	gts->kept_settled = false;
	gts->kept_service_pid = 0;
	gts->collecting = false;
}
