/*
 * xpu_preagg_table.h
 *
 * GpuPreAgg's device hash table (XpuPreAggTable) shared by every session
 * of the plan: opening its header, a row's grouping key over the
 * descriptor (fit, hash, equality), creating an entry, find-or-insert, and
 * copying an entry into a larger table (rehash).
 */
#ifndef XPU_PREAGG_TABLE_H
#define XPU_PREAGG_TABLE_H

#include "xpu_atomic.h"
#include "xpu_hash.h"
#include "xpu_keys.h"
#include "xpu_preagg_desc.h"
#include "xpu_preagg_acc.h"

/* what a thread needs of an XpuPreAggTable, checked once */
typedef struct xpu_preagg_table
{
	uint32_t   *slots;
	char	   *entries;
	uint32_t   *nentries;
	uint32_t	nslots;
	uint32_t	capacity;
	uint32_t	entry_size;
} xpu_preagg_table;

/* false when the header is inconsistent (the kernel reports BAD_PROGRAM) */
XPU_FUNC bool
xpu_preagg_table_open(XpuPreAggTable *t, uint32_t entry_size, xpu_preagg_table *v)
{
	uint64_t	slots_end;
	uint64_t	entries_end;

	if (t->nslots == 0 || (t->nslots & (t->nslots - 1)) != 0 ||
		t->capacity > t->nslots ||
		t->entry_size != entry_size ||
		(entry_size & 15) != 0 || entry_size < XPU_PREAGG_ENTRY_HEADER ||
		entry_size > XPU_PREAGG_MAX_ENTRY)
		return false;
	/* 16-byte alignment makes every accumulator field 8-byte aligned */
	if ((t->slots_offset & 15) != 0 || (t->entries_offset & 15) != 0 ||
		t->slots_offset < sizeof(XpuPreAggTable) ||
		t->entries_offset < sizeof(XpuPreAggTable))
		return false;
	slots_end = t->slots_offset + 4 * (uint64_t) t->nslots;
	entries_end = t->entries_offset + (uint64_t) entry_size * t->capacity;
	if (!(slots_end <= t->entries_offset || entries_end <= t->slots_offset))
		return false;
	v->slots = (uint32_t *) ((char *) t + t->slots_offset);
	v->entries = (char *) t + t->entries_offset;
	v->nentries = &t->nentries;
	v->nslots = t->nslots;
	v->capacity = t->capacity;
	v->entry_size = entry_size;
	return true;
}

XPU_FUNC char *
xpu_preagg_entry(const xpu_preagg_table *tab, uint32_t idx)
{
	return tab->entries + (size_t) idx * tab->entry_size;
}

/* ---- the row's key ---- */

/* false when a text key is longer than its slot holds (RECHECK) */
XPU_FUNC bool
xpu_preagg_keys_fit(const xpu_preagg *pa, const xpu_datum *slots)
{
	int			i;

	for (i = 0; i < (int) pa->nkeys; i++)
	{
		const XpuGroupKey *k = &pa->keys[i];
		const xpu_datum *d = &slots[k->node];

		if (xpu_type_is_text(k->xtype) && !d->isnull &&
			(d->v.s.len < 0 || (uint32_t) d->v.s.len > k->width - 8))
			return false;
	}
	return true;
}

XPU_FUNC uint32_t
xpu_preagg_hash(const xpu_preagg *pa, const xpu_datum *slots)
{
	uint64_t	h = 0x2545f4914f6cdd1dULL;
	int			i;

	for (i = 0; i < (int) pa->nkeys; i++)
		h = xpu_hash_key(h, pa->keys[i].xtype, &slots[pa->keys[i].node]);
	return xpu_hash_final(h);
}

XPU_FUNC bool
xpu_preagg_keys_equal(const xpu_preagg *pa, const char *entry, const xpu_datum *slots)
{
	int			i;

	for (i = 0; i < (int) pa->nkeys; i++)
	{
		const XpuGroupKey *k = &pa->keys[i];

		if (!xpu_key_equal(k->xtype, entry + k->offset, &slots[k->node]))
			return false;
	}
	return true;
}

/* ---- entries ---- */

XPU_FUNC void
xpu_preagg_entry_init(const xpu_preagg *pa, char *e, uint32_t entry_size,
					  uint32_t hash, const xpu_datum *slots)
{
	uint32_t	off;
	int			i;

	for (off = 0; off < entry_size; off += 8)
		*((uint64_t *) (e + off)) = 0;
	((XpuPreAggEntryHeader *) e)->hash = hash;
	/* VALID before linking: whoever finds the link sees a valid entry */
	((XpuPreAggEntryHeader *) e)->flags = XPU_PREAGG_ENTRY_VALID;
	for (i = 0; i < (int) pa->nkeys; i++)
		xpu_key_store(pa->keys[i].xtype, e + pa->keys[i].offset, &slots[pa->keys[i].node]);
	for (i = 0; i < (int) pa->naggs; i++)
		xpu_acc_init(&pa->aggs[i], e + pa->aggs[i].offset, slots);
}

/*
 * xpu_preagg_lookup_created - the entry of the row's group, created if there is
 * none; NULL when the table has no room for a new entry.
 *
 * Linear probing.  A new entry is filled and fenced before the CAS that
 * links it, so a reader that sees the link (acquire) sees it whole.  A
 * thread that loses a CAS re-reads the slot and keeps its prepared entry
 * for the next empty slot; if the winner (or any entry further along) has
 * its key, the prepared entry stays unlinked and loses VALID.  *created
 * tells the one thread that linked the entry (the caller sets it false).
 * The loads are generic, so the table may be in global or shared memory.
 */
XPU_FUNC char *
xpu_preagg_lookup_created(const xpu_preagg *pa, const xpu_preagg_table *tab,
						  const xpu_datum *slots, uint32_t hash, bool *created)
{
	const uint32_t none = 0xffffffffU;
	uint32_t	mask = tab->nslots - 1;
	uint32_t	pos = hash & mask;
	uint32_t	prepared = none;
	uint32_t	probe = 0;

	while (probe < tab->nslots)
	{
		uint32_t	s = xpu_ld_acquire_u32(&tab->slots[pos]);

		if (s == 0)
		{
			if (prepared == none)
			{
				uint32_t	idx = xpu_atomic_add_u32(tab->nentries, 1);

				if (idx >= tab->capacity)
					return (char *) 0;
				xpu_preagg_entry_init(pa, xpu_preagg_entry(tab, idx), tab->entry_size,
									  hash, slots);
				xpu_fence();
				prepared = idx;
			}
			if (xpu_atomic_cas_u32(&tab->slots[pos], 0, prepared + 1) == 0)
			{
				*created = true;
				return xpu_preagg_entry(tab, prepared);
			}
			continue;			/* read the winner's link with acquire */
		}
		if (s - 1 < tab->capacity)
		{
			char	   *e = xpu_preagg_entry(tab, s - 1);

			if (xpu_ld_cg_u32(e) == hash && xpu_preagg_keys_equal(pa, e, slots))
			{
				if (prepared != none)
					((XpuPreAggEntryHeader *) xpu_preagg_entry(tab, prepared))->flags = 0;
				return e;
			}
		}
		probe++;
		pos = (pos + 1) & mask;
	}
	/* every slot taken: only with capacity > nslots / 2 */
	if (prepared != none)
		((XpuPreAggEntryHeader *) xpu_preagg_entry(tab, prepared))->flags = 0;
	return (char *) 0;
}

XPU_FUNC char *
xpu_preagg_lookup(const xpu_preagg *pa, const xpu_preagg_table *tab,
				  const xpu_datum *slots, uint32_t hash)
{
	bool		created = false;

	return xpu_preagg_lookup_created(pa, tab, slots, hash, &created);
}

/*
 * xpu_preagg_rehash_entry - copy entry i of `from`, if VALID, into `to`.
 * Keys of `from` are distinct, so no comparison is needed.  False when `to`
 * has no room (the caller sized it wrongly).
 */
XPU_FUNC bool
xpu_preagg_rehash_entry(const xpu_preagg_table *from, const xpu_preagg_table *to, uint32_t i)
{
	const char *src = xpu_preagg_entry(from, i);
	uint32_t	hash = ((const XpuPreAggEntryHeader *) src)->hash;
	uint32_t	mask = to->nslots - 1;
	uint32_t	idx;
	uint32_t	off;
	uint32_t	probe;
	char	   *dst;

	if ((((const XpuPreAggEntryHeader *) src)->flags & XPU_PREAGG_ENTRY_VALID) == 0)
		return true;
	idx = xpu_atomic_add_u32(to->nentries, 1);
	if (idx >= to->capacity)
		return false;
	dst = xpu_preagg_entry(to, idx);
	for (off = 0; off < from->entry_size; off += 8)
		*((uint64_t *) (dst + off)) = *((const uint64_t *) (src + off));
	xpu_fence();
	for (probe = 0; probe < to->nslots; probe++)
	{
		if (xpu_atomic_cas_u32(&to->slots[(hash + probe) & mask], 0, idx + 1) == 0)
			return true;
	}
	((XpuPreAggEntryHeader *) dst)->flags = 0;
	return false;
}

#endif							/* XPU_PREAGG_TABLE_H */
