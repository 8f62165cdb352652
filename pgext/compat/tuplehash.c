/*-------------------------------------------------------------------------
 *
 * tuplehash.c
 *		Tuple hash tables whose entries each hold one pointer, read and
 *		set through PgStromTupleHashEntryPointer().
 *
 * 18 replaced BuildTupleHashTableExt() by BuildTupleHashTable() with the
 * input slot's operations, and the entry's "additional" pointer by space
 * of the asked size allocated with the entry.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/executor.h"

#include "compat/pg_compat.h"

TupleHashTable
pgstrom_build_tuple_hash_table(PlanState *parent, TupleDesc inputDesc,
							   int numCols, AttrNumber *keyColIdx,
							   const Oid *eqfuncoids, FmgrInfo *hashfunctions,
							   Oid *collations, long nbuckets,
							   MemoryContext metacxt, MemoryContext tablecxt,
							   MemoryContext tempcxt)
{
#if PG_VERSION_NUM >= 180000
	/* the input slots' kind varies: no operations to specialize on */
	return BuildTupleHashTable(parent, inputDesc, NULL, numCols, keyColIdx,
							   eqfuncoids, hashfunctions, collations,
							   nbuckets, sizeof(void *),
							   metacxt, tablecxt, tempcxt, true);
#else
	return BuildTupleHashTableExt(parent, inputDesc, numCols, keyColIdx,
								  eqfuncoids, hashfunctions, collations,
								  nbuckets, 0,
								  metacxt, tablecxt, tempcxt, true);
#endif
}
