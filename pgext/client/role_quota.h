/*-------------------------------------------------------------------------
 *
 * role_quota.h
 *		GPU service connections per role (role_quota.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGSTROM_ROLE_QUOTA_H
#define PGSTROM_ROLE_QUOTA_H

extern void pgstrom_init_role_quota(void);
extern bool pgstrom_role_quota_take(Oid role, char *errbuf, size_t errlen);
extern void pgstrom_role_quota_release(Oid role);

#endif							/* PGSTROM_ROLE_QUOTA_H */
