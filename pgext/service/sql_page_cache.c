/*-------------------------------------------------------------------------
 *
 * sql_page_cache.c
 *		pgstrom.gpu_page_cache_relations(): what each device's page cache
 *		holds, and its hits and misses, per relation.
 *
 * The service reports each device's cache once a second (PAGE_CACHE, at
 * most PGSTROM_PAGE_CACHE_RELS relations, those holding the most pages);
 * like the other status functions this reads the supervisor's copy in
 * shared memory and never waits for the service.  The cache knows a
 * relation by its file (tablespace, database, relfilenode); only the
 * current database's catalog can say which relation a file is, so the
 * relation column is NULL for the files of other databases.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/lwlock.h"
#include "utils/fmgrprotos.h"
#include "utils/tuplestore.h"

#include "core/pg_strom.h"
#include "service/service_state.h"

PG_FUNCTION_INFO_V1(pgstrom_gpu_page_cache_relations);

#define GPU_PAGE_CACHE_RELATIONS_COLS	12

/*
 * The devices' last reports; none unless the service is ready, since a
 * cache lives and dies with its service process.
 */
static PgStromPageCacheShared *
snapshot_page_caches(void)
{
	PgStromServiceShared *ss = pgstrom_service_shared;
	PgStromPageCacheShared *pcs = pgstrom_page_cache_shared;
	PgStromPageCacheShared *copy;

	if (ss == NULL || pcs == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("pg_strom must be loaded via shared_preload_libraries")));

	copy = palloc0(sizeof(PgStromPageCacheShared));
	LWLockAcquire(ss->lock, LW_SHARED);
	if (ss->state == PGSTROM_SERVICE_READY)
		memcpy(copy, pcs, sizeof(PgStromPageCacheShared));
	LWLockRelease(ss->lock);
	return copy;
}

/*
 * pg_filenode_relation() itself, which returns NULL where no relation of
 * the current database has the file (dropped, rewritten since): called
 * directly, since DirectFunctionCall2 raises an error on a NULL result.
 */
static Oid
relation_of_file(Oid spc, Oid relnumber)
{
	LOCAL_FCINFO(fcinfo, 2);
	Datum		relid;

	InitFunctionCallInfoData(*fcinfo, NULL, 2, InvalidOid, NULL, NULL);
	fcinfo->args[0].value = ObjectIdGetDatum(spc);
	fcinfo->args[0].isnull = false;
	fcinfo->args[1].value = ObjectIdGetDatum(relnumber);
	fcinfo->args[1].isnull = false;
	relid = pg_filenode_relation(fcinfo);
	return fcinfo->isnull ? InvalidOid : DatumGetObjectId(relid);
}

Datum
pgstrom_gpu_page_cache_relations(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	PgStromPageCacheShared *snap;
	uint32		i;

	InitMaterializedSRF(fcinfo, 0);
	snap = snapshot_page_caches();

	for (i = 0; i < Min(snap->ndevices, PGSTROM_MAX_DEVICES); i++)
	{
		PgStromCtlPageCache *dev = &snap->devices[i];
		uint32		j;

		for (j = 0; j < Min(dev->nrels, PGSTROM_PAGE_CACHE_RELS); j++)
		{
			PgStromPageCacheRel *rel = &dev->rels[j];
			Datum		values[GPU_PAGE_CACHE_RELATIONS_COLS];
			bool		nulls[GPU_PAGE_CACHE_RELATIONS_COLS];
			Oid			relid = InvalidOid;

			if (rel->db_oid == MyDatabaseId)
				relid = relation_of_file(rel->spc_oid, rel->rel_number);

			memset(nulls, 0, sizeof(nulls));
			values[0] = Int32GetDatum(dev->index);
			values[1] = ObjectIdGetDatum(rel->db_oid);
			values[2] = ObjectIdGetDatum(rel->spc_oid);
			values[3] = ObjectIdGetDatum(relid);
			nulls[3] = !OidIsValid(relid);
			values[4] = ObjectIdGetDatum(rel->rel_number);
			values[5] = Int64GetDatum((int64) rel->cached_pages);
			values[6] = Int64GetDatum((int64) rel->cached_pages * BLCKSZ);
			values[7] = Int64GetDatum((int64) rel->hits);
			values[8] = Int64GetDatum((int64) rel->misses);
			values[9] = Int64GetDatum((int64) rel->fills);
			values[10] = Int64GetDatum((int64) rel->evictions);
			values[11] = Int64GetDatum((int64) rel->refills);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc,
								 values, nulls);
		}
	}
	return (Datum) 0;
}
