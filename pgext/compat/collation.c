/*-------------------------------------------------------------------------
 *
 * collation.c
 *		Whether a collation sorts text bytewise, as the device compares it,
 *		and whether its case rules are ASCII's.
 *
 * 18 removed lc_collate_is_c() and lc_ctype_is_c(); the collation's
 * pg_locale_t says them (collate_is_c, ctype_is_c), including for the
 * database's default collation.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/pg_locale.h"

#include "compat/pg_compat.h"

bool
pgstrom_collation_is_c(Oid collid)
{
	if (!OidIsValid(collid))
		return false;
#if PG_VERSION_NUM >= 180000
	return pg_newlocale_from_collation(collid)->collate_is_c;
#else
	return lc_collate_is_c(collid);
#endif
}

bool
pgstrom_collation_ctype_is_c(Oid collid)
{
	if (!OidIsValid(collid))
		return false;
#if PG_VERSION_NUM >= 180000
	return pg_newlocale_from_collation(collid)->ctype_is_c;
#else
	return lc_ctype_is_c(collid);
#endif
}
