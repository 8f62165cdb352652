/*-------------------------------------------------------------------------
 *
 * role_quota.c
 *		GPU service connections per role: pg_strom.max_connections_per_role.
 *
 * Every backend of the cluster connects as the same operating system user,
 * so the service cannot tell roles apart; the backends count for it.  A
 * table in shared memory holds, per login role (the session user, which a
 * parallel worker shares with its leader), the connections its backends
 * hold open to the GPU service, over every device.  A backend that would
 * pass the bound does not connect: its node runs on the CPU and EXPLAIN
 * says why.  The client (gpu_client.c) gives a connection's share back
 * whenever it frees one, including at abort and at backend exit, so a
 * backend that dies with connections open does not leave them counted.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/acl.h"

#include "client/role_quota.h"
#include "core/pg_strom.h"

typedef struct RoleConns
{
	Oid			role;			/* InvalidOid: a free entry */
	int32		nconns;
} RoleConns;

typedef struct RoleQuotaShared
{
	slock_t		mutex;
	int			nentries;
	RoleConns	entries[FLEXIBLE_ARRAY_MEMBER];
} RoleQuotaShared;

static RoleQuotaShared *role_quota = NULL;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

/* one entry per backend is enough: a role without a backend holds none */
static Size
role_quota_size(void)
{
	return add_size(offsetof(RoleQuotaShared, entries),
					mul_size(MaxBackends, sizeof(RoleConns)));
}

static void
role_quota_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(MAXALIGN(role_quota_size()));
}

static void
role_quota_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	role_quota = ShmemInitStruct("pg_strom GPU connections per role",
								 role_quota_size(), &found);
	if (!found)
	{
		memset(role_quota, 0, role_quota_size());
		SpinLockInit(&role_quota->mutex);
		role_quota->nentries = MaxBackends;
	}
	LWLockRelease(AddinShmemInitLock);
}

void
pgstrom_init_role_quota(void)
{
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = role_quota_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = role_quota_shmem_startup;
}

/* role's entry (made when create and there is room), under the mutex */
static RoleConns *
role_entry(Oid role, bool create)
{
	RoleConns  *free_entry = NULL;
	int			i;

	for (i = 0; i < role_quota->nentries; i++)
	{
		RoleConns  *e = &role_quota->entries[i];

		if (e->role == role)
			return e;
		if (e->role == InvalidOid && free_entry == NULL)
			free_entry = e;
	}
	if (create && free_entry != NULL)
	{
		free_entry->role = role;
		free_entry->nconns = 0;
	}
	return create ? free_entry : NULL;
}

/*
 * Takes one connection of role's quota; false, with the reason in errbuf,
 * when the role holds pg_strom.max_connections_per_role already (or the
 * table is full, which takes more roles than backends).
 */
bool
pgstrom_role_quota_take(Oid role, char *errbuf, size_t errlen)
{
	int			limit = pgstrom_max_connections_per_role;
	RoleConns  *e;
	int32		held = 0;
	bool		ok;
	const char *name;

	if (role_quota == NULL)
		return true;			/* not preloaded: nothing is counted */
	SpinLockAcquire(&role_quota->mutex);
	e = role_entry(role, true);
	if (e != NULL)
		held = e->nconns;
	ok = (e != NULL && (limit == 0 || e->nconns < limit));
	if (ok)
		e->nconns++;
	else if (e != NULL && e->nconns == 0)
		e->role = InvalidOid;
	SpinLockRelease(&role_quota->mutex);

	if (!ok)
	{
		name = GetUserNameFromId(role, true);
		snprintf(errbuf, errlen,
				 "role \"%s\" holds %d GPU service connections, the most pg_strom.max_connections_per_role allows",
				 name ? name : "?", held);
	}
	return ok;
}

/* gives back one connection of role taken by pgstrom_role_quota_take */
void
pgstrom_role_quota_release(Oid role)
{
	RoleConns  *e;

	if (role_quota == NULL || !OidIsValid(role))
		return;
	SpinLockAcquire(&role_quota->mutex);
	e = role_entry(role, false);
	if (e != NULL && --e->nconns <= 0)
	{
		e->nconns = 0;
		e->role = InvalidOid;
	}
	SpinLockRelease(&role_quota->mutex);
}
