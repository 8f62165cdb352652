/*-------------------------------------------------------------------------
 *
 * sql_status.c
 *		SQL functions that show the GPU service's state.
 *
 * They read the supervisor's copy in shared memory; none talks to the
 * service, so they answer instantly whatever state the service is in.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "storage/lwlock.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "core/pg_strom.h"
#include "service/service_state.h"

PG_FUNCTION_INFO_V1(pgstrom_gpu_device_info);
PG_FUNCTION_INFO_V1(pgstrom_gpu_service_status);
PG_FUNCTION_INFO_V1(pgstrom_gpu_service_clients);

#define GPU_DEVICE_INFO_COLS		11
#define GPU_SERVICE_STATUS_COLS		16
#define GPU_SERVICE_CLIENTS_COLS	5

/* a consistent snapshot of the shared state */
static PgStromServiceShared *
snapshot_service_state(void)
{
	PgStromServiceShared *ss = pgstrom_service_shared;
	PgStromServiceShared *copy;

	if (ss == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("pg_strom must be loaded via shared_preload_libraries")));

	copy = palloc(sizeof(PgStromServiceShared));
	LWLockAcquire(ss->lock, LW_SHARED);
	memcpy(copy, ss, sizeof(PgStromServiceShared));
	LWLockRelease(ss->lock);
	return copy;
}

Datum
pgstrom_gpu_device_info(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	PgStromServiceShared *snap;
	uint32		i;

	InitMaterializedSRF(fcinfo, 0);
	snap = snapshot_service_state();

	for (i = 0; i < Min(snap->devices.ndevices, PGSTROM_MAX_DEVICES); i++)
	{
		PgStromDeviceInfo *dev = &snap->devices.devices[i];
		Datum		values[GPU_DEVICE_INFO_COLS];
		bool		nulls[GPU_DEVICE_INFO_COLS];

		memset(nulls, 0, sizeof(nulls));
		values[0] = Int32GetDatum(dev->index);
		values[1] = CStringGetTextDatum(dev->name);
		values[2] = Int64GetDatum((int64) dev->total_memory);
		values[3] = CStringGetTextDatum(psprintf("%d.%d",
												 dev->cc_major, dev->cc_minor));
		values[4] = Int32GetDatum(dev->multiprocessors);
		values[5] = CStringGetTextDatum(dev->pcie_link);
		values[6] = CStringGetTextDatum(dev->pci_bus_id);
		/* zero-copy: shared buffers registered with the device, or why not */
		values[7] = Int64GetDatum((int64) dev->shared_registered);
		values[8] = Float8GetDatum((double) dev->shared_register_us / 1000.0);
		dev->shared_reason[PGSTROM_REASON_LEN - 1] = '\0';
		if (dev->shared_reason[0] != '\0')
			values[9] = CStringGetTextDatum(dev->shared_reason);
		else
			nulls[9] = true;
		/* the device page cache: 0 when the device keeps none */
		values[10] = Int64GetDatum((int64) dev->page_cache_bytes);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc,
							 values, nulls);
	}
	return (Datum) 0;
}

static PgStromDeviceStats *
find_device_stats(PgStromCtlStats *stats, int32 index)
{
	uint32		i;

	for (i = 0; i < Min(stats->ndevices, PGSTROM_MAX_DEVICES); i++)
	{
		if (stats->devices[i].index == index)
			return &stats->devices[i];
	}
	return NULL;
}

Datum
pgstrom_gpu_service_status(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	PgStromServiceShared *snap;
	Datum		values[GPU_SERVICE_STATUS_COLS];
	bool		nulls[GPU_SERVICE_STATUS_COLS];
	uint32		ndevices;
	uint32		i;

	InitMaterializedSRF(fcinfo, 0);
	snap = snapshot_service_state();
	snap->reason[PGSTROM_REASON_LEN - 1] = '\0';

	/* the columns that describe the service as a whole */
	memset(nulls, 0, sizeof(nulls));
	if (snap->service_pid > 0)
		values[0] = Int32GetDatum((int32) snap->service_pid);
	else
		nulls[0] = true;
	values[1] = CStringGetTextDatum(pgstrom_service_state_name(snap->state));
	if (snap->reason[0] != '\0')
		values[2] = CStringGetTextDatum(snap->reason);
	else
		nulls[2] = true;
	values[3] = Int32GetDatum(snap->restarts);
	snap->last_exit[PGSTROM_REASON_LEN - 1] = '\0';
	if (snap->last_exit[0] != '\0')
		values[11] = CStringGetTextDatum(snap->last_exit);
	else
		nulls[11] = true;
	values[9] = Int64GetDatum((int64) (snap->dropped_log_lines +
									   snap->stats.dropped_log_lines));

	ndevices = Min(snap->devices.ndevices, PGSTROM_MAX_DEVICES);
	if (ndevices == 0)
	{
		/* still one row, so the state and reason are always visible */
		for (i = 4; i <= 8; i++)
			nulls[i] = true;
		nulls[10] = true;
		for (i = 12; i < GPU_SERVICE_STATUS_COLS; i++)
			nulls[i] = true;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc,
							 values, nulls);
		return (Datum) 0;
	}

	for (i = 0; i < ndevices; i++)
	{
		int32		index = snap->devices.devices[i].index;
		PgStromDeviceStats *st = find_device_stats(&snap->stats, index);
		int			col;

		values[4] = Int32GetDatum(index);
		nulls[4] = false;
		for (col = 5; col <= 8; col++)
			nulls[col] = (st == NULL);
		nulls[10] = (st == NULL);
		for (col = 12; col < GPU_SERVICE_STATUS_COLS; col++)
			nulls[col] = (st == NULL);
		if (st != NULL)
		{
			values[5] = Int32GetDatum((int32) st->workers);
			values[6] = Int64GetDatum((int64) st->pool_used);
			values[7] = Int64GetDatum((int64) st->pool_total);
			values[8] = Int32GetDatum((int32) st->connections);
			values[10] = Int64GetDatum((int64) st->host_pinned);
			values[12] = Int32GetDatum((int32) st->busy);
			values[13] = Int32GetDatum((int32) st->suspended);
			values[14] = Int32GetDatum((int32) st->clients);
			values[15] = Int32GetDatum((int32) st->max_client_conns);
		}
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc,
							 values, nulls);
	}
	return (Datum) 0;
}

/*
 * The client processes using each device's service most, from the last
 * STATUS message: none unless the service is ready, since a service that
 * is gone has no clients.
 */
Datum
pgstrom_gpu_service_clients(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	PgStromServiceShared *snap;
	uint32		i;

	InitMaterializedSRF(fcinfo, 0);
	snap = snapshot_service_state();
	if (snap->state != PGSTROM_SERVICE_READY)
		return (Datum) 0;

	for (i = 0; i < Min(snap->stats.ndevices, PGSTROM_MAX_DEVICES); i++)
	{
		PgStromDeviceStats *st = &snap->stats.devices[i];
		uint32		j;

		for (j = 0; j < Min(st->nclient_stats, PGSTROM_STATUS_CLIENTS); j++)
		{
			PgStromClientStats *cl = &st->client_stats[j];
			Datum		values[GPU_SERVICE_CLIENTS_COLS];
			bool		nulls[GPU_SERVICE_CLIENTS_COLS];

			memset(nulls, 0, sizeof(nulls));
			values[0] = Int32GetDatum(st->index);
			values[1] = Int32GetDatum(cl->pid);
			values[2] = Int32GetDatum((int32) cl->connections);
			values[3] = Int32GetDatum((int32) cl->commands);
			values[4] = Int64GetDatum((int64) cl->reply_bytes);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc,
								 values, nulls);
		}
	}
	return (Datum) 0;
}
