/*-------------------------------------------------------------------------
 *
 * pg_compat.h
 *		The differences between the PostgreSQL major versions pg_strom
 *		builds against: 15, 16, 17 and 18.
 *
 * Every test of PG_VERSION_NUM in the extension is here or in the small
 * files of this folder, one per concern; the rest of the code is written
 * against the names defined below.  Each entry says in which version the
 * API changed.  16 is built from the API as documented in its release: no
 * 16 server headers were at hand, so its side of each difference is
 * untested (it shares 17's or 15's code wherever the change came in
 * 16 or 17 respectively).
 *
 *	collation.c		whether a collation sorts bytewise ("C"), and whether
 *					its ctype is "C"
 *	tuplehash.c		tuple hash tables with one pointer per entry
 *	buffer_tag.c	the buffer mapping tag of a relation's block
 *	nullingrels.c	the outer joins that null a Var (16)
 *	scan_slot.c		a custom scan's scan slot of heap tuples (16)
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGSTROM_PG_COMPAT_H
#define PGSTROM_PG_COMPAT_H

#if PG_VERSION_NUM < 150000 || PG_VERSION_NUM >= 190000
#error "pg_strom builds against PostgreSQL 15, 16, 17 and 18"
#endif

#include "access/attnum.h"
#include "commands/explain.h"
#include "common/relpath.h"
#include "nodes/execnodes.h"
#include "nodes/pathnodes.h"
#include "storage/block.h"
#include "utils/relcache.h"

/*
 * 18: the EXPLAIN property functions and ExplainState have headers of
 * their own.
 */
#if PG_VERSION_NUM >= 180000
#include "commands/explain_format.h"
#include "commands/explain_state.h"
#endif

/*
 * 18: pg_noreturn, a prefix (C11 _Noreturn), replaced the suffix
 * pg_attribute_noreturn().  GCC and clang take the attribute in front of
 * the declaration too, so one spelling serves every version.
 */
#ifndef pg_noreturn
#define pg_noreturn pg_attribute_noreturn()
#endif

/*
 * 16: RelFileNode became RelFileLocator (spcOid, dbOid, relNumber), and
 * a relation's is rd_locator.
 */
#if PG_VERSION_NUM >= 160000
#define PgStromRelTablespace(rel)	((rel)->rd_locator.spcOid)
#define PgStromRelDatabase(rel)		((rel)->rd_locator.dbOid)
#define PgStromRelFileNumber(rel)	((rel)->rd_locator.relNumber)
#else
#define PgStromRelTablespace(rel)	((rel)->rd_node.spcNode)
#define PgStromRelDatabase(rel)		((rel)->rd_node.dbNode)
#define PgStromRelFileNumber(rel)	((rel)->rd_node.relNode)
#endif

/*
 * 17: old_snapshot_threshold is gone, and with it early pruning and the
 * "snapshot too old" check of a page a scan reads.
 */
#if PG_VERSION_NUM >= 170000
#define PgStromEarlyPruningEnabled(rel)			false
#define PgStromTestForOldSnapshot(snap, rel, page)	((void) 0)
#else
#define PgStromEarlyPruningEnabled(rel)			EarlyPruningEnabled(rel)
#define PgStromTestForOldSnapshot(snap, rel, page) \
	TestForOldSnapshot((snap), (rel), (page))
#endif

/*
 * 17: CreateWaitEventSet takes a ResourceOwner where it took a memory
 * context.  The sets made here outlive any resource owner and are freed
 * explicitly: no owner (TopMemoryContext, as before).  Passing the memory
 * context to 17 compiles with a warning and crashes when the set is
 * released.
 */
#if PG_VERSION_NUM >= 170000
#define PgStromCreateWaitEventSet(nevents)	CreateWaitEventSet(NULL, (nevents))
#else
#define PgStromCreateWaitEventSet(nevents) \
	CreateWaitEventSet(TopMemoryContext, (nevents))
#endif

/*
 * 17: PGPROC lost pgprocno; the index of a backend's PGPROC in
 * ProcGlobal->allProcs is its ProcNumber.
 */
#if PG_VERSION_NUM >= 170000
#define PgStromMyProcIndex()	((int) MyProcNumber)
#else
#define PgStromMyProcIndex()	(MyProc->pgprocno)
#endif

/*
 * 18: the range table EXPLAIN deparses with holds the GROUP BY step's
 * entry (RTE_GROUP); whether column names need their relation's prefix
 * depends on the entries before it, es->rtable_size.
 */
#if PG_VERSION_NUM >= 180000
#define PgStromExplainRtableSize(es)	((es)->rtable_size)
#else
#define PgStromExplainRtableSize(es)	list_length((es)->rtable)
#endif

/* 18: reverse(bytea) was added, and reverse(text)'s OID symbol renamed */
#if PG_VERSION_NUM >= 180000
#define PgStromReverseTextOid	F_REVERSE_TEXT
#else
#define PgStromReverseTextOid	F_REVERSE
#endif

/*
 * 18: a tuple hash table entry lost its "additional" pointer; the space
 * asked of BuildTupleHashTable comes with each entry instead.  Tables
 * built by pgstrom_build_tuple_hash_table have one pointer there, this
 * lvalue on every version.
 */
#if PG_VERSION_NUM >= 180000
#define PgStromTupleHashEntryPointer(table, entry) \
	(*(void **) TupleHashEntryGetAdditional((table), (entry)))
#else
#define PgStromTupleHashEntryPointer(table, entry)	((entry)->additional)
#endif

/*
 * 16: create_groupingsets_path() lost its numGroups argument (the rollups
 * carry their estimates); 17's headers confirm it, 16's side is untested.
 */
#if PG_VERSION_NUM >= 160000
#define PgStromCreateGroupingSetsPath(root, rel, sub, having, strat, rollups, costs, ngroups) \
	create_groupingsets_path((root), (rel), (sub), (having), (strat), (rollups), (costs))
#else
#define PgStromCreateGroupingSetsPath(root, rel, sub, having, strat, rollups, costs, ngroups) \
	create_groupingsets_path((root), (rel), (sub), (having), (strat), (rollups), (costs), (ngroups))
#endif

/* collation.c */
extern bool pgstrom_collation_is_c(Oid collid);
extern bool pgstrom_collation_ctype_is_c(Oid collid);

/* tuplehash.c */
extern TupleHashTable pgstrom_build_tuple_hash_table(PlanState *parent,
													 TupleDesc inputDesc,
													 int numCols,
													 AttrNumber *keyColIdx,
													 const Oid *eqfuncoids,
													 FmgrInfo *hashfunctions,
													 Oid *collations,
													 long nbuckets,
													 MemoryContext metacxt,
													 MemoryContext tablecxt,
													 MemoryContext tempcxt);

/* nullingrels.c */
extern Node *pgstrom_nullingrels_as_tlist(Node *expr, List *tlist);
extern Node *pgstrom_without_grouping_nulls(PlannerInfo *root, Node *expr);

/* scan_slot.c */
extern void pgstrom_scan_slot_create(CustomScanState *css);
extern void pgstrom_scan_slot_begin(CustomScanState *css, EState *estate);
typedef struct PgStromScanOps
{
	const TupleTableSlotOps *ops;
	TupleDesc	desc;
	bool		fixed;
	bool		set;
} PgStromScanOps;
extern void pgstrom_scan_ops_push_heap(PlanState *ps, TupleDesc desc,
									   PgStromScanOps *saved);
extern void pgstrom_scan_ops_pop(PlanState *ps, const PgStromScanOps *saved);

/* buffer_tag.c */
struct buftag;
extern void pgstrom_init_buffer_tag(struct buftag *tag, Relation rel,
									ForkNumber forknum, BlockNumber blkno);

#endif							/* PGSTROM_PG_COMPAT_H */
