/*-------------------------------------------------------------------------
 *
 * gpupreagg_groups.c
 *		GpuPreAgg's groups aggregated on the CPU, and the partial tuples the
 *		node emits.
 *
 * A GpaGroups is a hash table from the group keys to accumulators in the
 * device's layout (gpupreagg_accum_*), or one entry when there are no keys.
 * It is bounded by hash_mem, as PostgreSQL's own partial HashAgg: past it
 * the groups are written to a tuplestore as partial tuples and the table
 * starts over (the final Agg combines a group that comes more than once).
 * Nothing is emitted before the scan is over: a parallel participant may
 * have to wait for the others then (runtime/task_kept.c), and must not be
 * blocked on its tuple queue meanwhile.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/executor.h"
#include "executor/nodeHash.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/typcache.h"

#include "gpupreagg/gpupreagg_internal.h"

/*
 * The partial tuple of one group entry, into slot (virtual, the scan
 * tuple's descriptor): the keys come from keys_from (a CPU group's key
 * tuple) or from the entry's key slots (a device entry).
 */
TupleTableSlot *
gpa_form_tuple(GpuPreAggState *pas, TupleTableSlot *slot, const char *entry,
			   TupleTableSlot *keys_from)
{
	int			i;

	ExecClearTuple(slot);
	for (i = 0; i < pas->nkeys; i++)
	{
		if (keys_from)
		{
			slot->tts_values[i] = keys_from->tts_values[i];
			slot->tts_isnull[i] = keys_from->tts_isnull[i];
		}
		else
			slot->tts_values[i] =
				gpupreagg_key_datum(pas->key_types[i], pas->layout.key_xtype[i],
									entry + pas->layout.key_offset[i],
									pas->layout.key_width[i],
									&slot->tts_isnull[i]);
	}
	for (i = 0; i < pas->naggs; i++)
		slot->tts_values[pas->nkeys + i] =
			gpupreagg_partial_state(pas->aggs[i],
									entry + pas->layout.agg_offset[i],
									&slot->tts_isnull[pas->nkeys + i]);
	return ExecStoreVirtualTuple(slot);
}

/*
 * Appends the partial tuple of entry to *store (created on first use, in
 * the query's memory, spilling to disk past work_mem).
 */
void
gpa_store_entry(GpuPreAggState *pas, Tuplestorestate **store, const char *entry,
				TupleTableSlot *keys_from)
{
	MemoryContext oldcxt;

	if (*store == NULL)
	{
		oldcxt = MemoryContextSwitchTo(pas->gts.css.ss.ps.state->es_query_cxt);
		*store = tuplestore_begin_heap(false, false, work_mem);
		MemoryContextSwitchTo(oldcxt);
	}
	/* not the per-tuple memory: the scan's current row may live there */
	oldcxt = MemoryContextSwitchTo(pas->form_cxt);
	gpa_form_tuple(pas, pas->form_slot, entry, keys_from);
	tuplestore_puttupleslot(*store, pas->form_slot);
	ExecClearTuple(pas->form_slot);
	MemoryContextSwitchTo(oldcxt);
	MemoryContextReset(pas->form_cxt);
}

static char *
new_entry(GpuPreAggState *pas, GpaGroups *g)
{
	char	   *entry = MemoryContextAllocZero(g->cxt, pas->layout.entry_size);
	int			j;

	for (j = 0; j < pas->naggs; j++)
		gpupreagg_accum_init(pas->aggs[j], entry + pas->layout.agg_offset[j]);
	return entry;
}

void
gpa_groups_init(GpuPreAggState *pas, GpaGroups *g, const char *name)
{
	EState	   *estate = pas->gts.css.ss.ps.state;

	memset(g, 0, sizeof(GpaGroups));
	g->cxt = AllocSetContextCreate(estate->es_query_cxt, "GpuPreAgg groups",
								   ALLOCSET_DEFAULT_SIZES);
	MemoryContextSetIdentifier(g->cxt, name);
}

/*
 * The hash table, at the first group: these groups hold only what the CPU
 * aggregates (RECHECK rows, CPU chunks), usually nothing, and a table made
 * at the node's start cost each leaf's node of a partitioned table, in
 * every participant, its comparison expressions and buckets before any
 * scan began.
 */
static void
build_table(GpuPreAggState *pas, GpaGroups *g)
{
	PlanState  *ps = &pas->gts.css.ss.ps;
	EState	   *estate = ps->state;
	TupleDesc	kdesc = pas->key_slot->tts_tupleDescriptor;
	MemoryContext oldcxt = MemoryContextSwitchTo(estate->es_query_cxt);
	AttrNumber *keycols;
	Oid		   *eqops;
	Oid		   *collations;
	Oid		   *eqfuncs;
	FmgrInfo   *hashfuncs;
	long		nbuckets;
	ListCell   *lc;
	int			i = 0;

	keycols = palloc(sizeof(AttrNumber) * pas->nkeys);
	eqops = palloc(sizeof(Oid) * pas->nkeys);
	collations = palloc(sizeof(Oid) * pas->nkeys);
	foreach(lc, pas->info->keys)
	{
		Node	   *key = lfirst(lc);
		TypeCacheEntry *tce = lookup_type_cache(exprType(key), TYPECACHE_EQ_OPR);

		if (!OidIsValid(tce->eq_opr))
			elog(ERROR, "GpuPreAgg: no equality operator for type %u", exprType(key));
		keycols[i] = i + 1;
		eqops[i] = tce->eq_opr;
		collations[i] = exprCollation(key);
		i++;
	}
	execTuplesHashPrepare(pas->nkeys, eqops, &eqfuncs, &hashfuncs);

	/*
	 * Sized for the planner's groups up to a bound: two tables of up to a
	 * million buckets cost every participant 10-20 ms of zeroed memory
	 * (the H200's 16 workers started 20-30 ms late, measured with the
	 * DEBUG1 timeline).  The table grows as needed.
	 */
	nbuckets = (long) Min(Max(pas->info->ngroups, 16.0), (double) GPA_CPU_GROUPS_INITIAL_BUCKETS);
	g->hashtable = pgstrom_build_tuple_hash_table(ps, kdesc, pas->nkeys, keycols,
												  eqfuncs, hashfuncs, collations,
												  nbuckets,
												  estate->es_query_cxt,
												  g->cxt,
												  ps->ps_ExprContext->ecxt_per_tuple_memory);
	MemoryContextSwitchTo(oldcxt);
}

/*
 * One row that passed the device quals (econtext's scan tuple): its group,
 * then each aggregate whose FILTER passes.  Evaluated in PostgreSQL's
 * order (keys, then per aggregate the FILTER before the argument), so
 * PostgreSQL's own errors come where they would.
 */
void
gpa_groups_add_row(GpuPreAggState *pas, GpaGroups *g)
{
	ExprContext *econtext = pas->gts.css.ss.ps.ps_ExprContext;
	char	   *entry;
	int			i;

	if (pas->nkeys == 0)
	{
		if (g->plain_entry == NULL)
			g->plain_entry = new_entry(pas, g);
		g->plain_used = true;
		entry = g->plain_entry;
	}
	else
	{
		TupleTableSlot *kslot = pas->key_slot;
		TupleHashEntry he;
		bool		isnew;

		ExecClearTuple(kslot);
		for (i = 0; i < pas->nkeys; i++)
			kslot->tts_values[i] = ExecEvalExprSwitchContext(pas->key_states[i],
															 econtext,
															 &kslot->tts_isnull[i]);
		ExecStoreVirtualTuple(kslot);
		if (g->hashtable == NULL)
			build_table(pas, g);
		he = LookupTupleHashEntry(g->hashtable, kslot, &isnew, NULL);
		if (isnew)
		{
			PgStromTupleHashEntryPointer(g->hashtable, he) = new_entry(pas, g);
			g->ngroups++;
		}
		entry = PgStromTupleHashEntryPointer(g->hashtable, he);
	}

	for (i = 0; i < pas->naggs; i++)
	{
		Datum		value = (Datum) 0;
		bool		isnull = false;

		if (pas->filter_states[i])
		{
			Datum		f = ExecEvalExprSwitchContext(pas->filter_states[i],
													  econtext, &isnull);

			if (isnull || !DatumGetBool(f))
				continue;
			isnull = false;
		}
		if (pas->arg_states[i])
			value = ExecEvalExprSwitchContext(pas->arg_states[i], econtext,
											  &isnull);
		gpupreagg_accum_add(pas->aggs[i], entry + pas->layout.agg_offset[i],
							value, isnull);
	}
}

/* the table starts over; its spill and counts stay */
static void
restart_table(GpaGroups *g)
{
	if (g->hashtable)
		ResetTupleHashTable(g->hashtable);
	MemoryContextReset(g->cxt);
	g->plain_entry = NULL;
	g->plain_used = false;
	g->iter_started = false;
}

/*
 * When the groups fill hash_mem: into the spill store with them, and the
 * table starts over.  True when it spilled.
 */
bool
gpa_groups_spill_if_full(GpuPreAggState *pas, GpaGroups *g)
{
	TupleHashIterator iter;
	TupleHashEntry he;

	if (pas->nkeys == 0 || g->hashtable == NULL ||
		MemoryContextMemAllocated(g->cxt, true) <= get_hash_memory_limit())
		return false;
	InitTupleHashIterator(g->hashtable, &iter);
	while ((he = ScanTupleHashTable(g->hashtable, &iter)) != NULL)
	{
		ExecStoreMinimalTuple(he->firstTuple, pas->iter_slot, false);
		slot_getallattrs(pas->iter_slot);
		gpa_store_entry(pas, &g->spill,
						PgStromTupleHashEntryPointer(g->hashtable, he),
						pas->iter_slot);
	}
	ExecClearTuple(pas->iter_slot);
	restart_table(g);
	return true;
}

/* forgets every group (rows whose source is evaluated again) */
void
gpa_groups_discard(GpaGroups *g)
{
	restart_table(g);
	if (g->spill)
		tuplestore_clear(g->spill);
	g->ngroups = 0;
	g->emit_spill_done = false;
}

/* a new run of the node */
void
gpa_groups_reset(GpuPreAggState *pas, GpaGroups *g)
{
	if (pas->iter_slot)
		ExecClearTuple(pas->iter_slot);
	gpa_groups_discard(g);
}

/*
 * Reads the next tuple of a store into slot (the scan slot, virtual): the
 * values point into store_slot's tuple, valid until the next read.  False
 * at its end.
 */
bool
gpa_read_store(GpuPreAggState *pas, Tuplestorestate *store, TupleTableSlot *slot)
{
	int			natts = slot->tts_tupleDescriptor->natts;
	MemoryContext oldcxt;
	bool		found;

	if (store == NULL)
		return false;
	/*
	 * A tuple read back from disk is allocated here and freed by the slot
	 * when the next one comes: not in the per-tuple memory, which ExecScan
	 * resets in between.
	 */
	oldcxt = MemoryContextSwitchTo(pas->gts.css.ss.ps.state->es_query_cxt);
	found = tuplestore_gettupleslot(store, true, false, pas->store_slot);
	MemoryContextSwitchTo(oldcxt);
	if (!found)
		return false;
	slot_getallattrs(pas->store_slot);
	ExecClearTuple(slot);
	memcpy(slot->tts_values, pas->store_slot->tts_values, sizeof(Datum) * natts);
	memcpy(slot->tts_isnull, pas->store_slot->tts_isnull, sizeof(bool) * natts);
	ExecStoreVirtualTuple(slot);
	return true;
}

/* the next partial tuple of the groups, in slot; NULL after the last */
TupleTableSlot *
gpa_groups_next(GpuPreAggState *pas, GpaGroups *g, TupleTableSlot *slot)
{
	TupleHashEntry he;

	if (!g->emit_spill_done)
	{
		if (gpa_read_store(pas, g->spill, slot))
			return slot;
		g->emit_spill_done = true;
	}
	if (pas->nkeys == 0)
	{
		if (!g->plain_used)
			return NULL;
		g->plain_used = false;
		return gpa_form_tuple(pas, slot, g->plain_entry, NULL);
	}
	if (g->hashtable == NULL)
		return NULL;
	if (!g->iter_started)
	{
		InitTupleHashIterator(g->hashtable, &g->iter);
		g->iter_started = true;
	}
	he = ScanTupleHashTable(g->hashtable, &g->iter);
	if (he == NULL)
		return NULL;
	ExecStoreMinimalTuple(he->firstTuple, pas->iter_slot, false);
	slot_getallattrs(pas->iter_slot);
	return gpa_form_tuple(pas, slot,
						  PgStromTupleHashEntryPointer(g->hashtable, he),
						  pas->iter_slot);
}
