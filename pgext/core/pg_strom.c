/*-------------------------------------------------------------------------
 *
 * pg_strom.c
 *		Entry point of the pg_strom extension.
 *
 * pg_strom needs shared memory and a background worker (the supervisor of
 * the GPU service), and both can only be had while the postmaster loads
 * shared_preload_libraries.  Loading it any other way is refused outright
 * instead of half-working.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"

#include "client/gpu_client.h"
#include "client/role_quota.h"
#include "core/pg_strom.h"
#include "gpujoin/gpujoin.h"
#include "gpupreagg/gpupreagg.h"
#include "gpuscan/gpuscan.h"
#include "service/service_state.h"
#include "service/supervisor.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

void
_PG_init(void)
{
	if (!process_shared_preload_libraries_in_progress)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("pg_strom must be loaded via shared_preload_libraries"),
				 errhint("Add pg_strom to shared_preload_libraries in postgresql.conf and restart the server.")));

	/* GUCs first: the shared state is initialized from their values */
	pgstrom_init_gucs();
	pgstrom_init_service_state();
	pgstrom_register_supervisor();
	pgstrom_init_gpu_client();
	pgstrom_init_role_quota();
	/* each node: planner hook, custom scan methods */
	pgstrom_init_gpuscan();
	pgstrom_init_gpupreagg();
	pgstrom_init_gpujoin();
}
