/*
 * xpu_preagg_local.h
 *
 * GpuPreAgg's block-local group table: a small table in a thread block's
 * shared memory where the block folds the rows of its pages before it
 * folds each group once into the device table.  With few groups, every row
 * of the chunk would otherwise update the same few device entries with
 * global atomics, and those serialize in L2: the local table turns one
 * global update per row into one per group and block.
 *
 * The find-or-insert and accumulate steps are the device table's own
 * (xpu_preagg_lookup_created, xpu_preagg_accumulate), run over a
 * xpu_preagg_table view of this memory; xpu_preagg_combine folds a
 * finished local entry into its device entry.  kernels/test/ runs the same
 * steps serially on the host.
 */
#ifndef XPU_PREAGG_LOCAL_H
#define XPU_PREAGG_LOCAL_H

#include "xpu_preagg_table.h"

#define XPU_PREAGG_LOCAL_SLOTS		128		/* a power of two */
#define XPU_PREAGG_LOCAL_ENTRIES	64		/* at most half the slots */
#define XPU_PREAGG_LOCAL_BYTES		(16 * 1024)
/* fewer entries than this fit: the rows go straight to the device table */
#define XPU_PREAGG_LOCAL_MIN_ENTRIES	4

typedef struct XpuPreAggLocal
{
	uint64_t	entries[XPU_PREAGG_LOCAL_BYTES / 8];	/* 16-byte aligned */
	/* each entry's device entry; NULL: the device table had no room */
	char	   *global[XPU_PREAGG_LOCAL_ENTRIES];
	uint32_t	slots[XPU_PREAGG_LOCAL_SLOTS];
	uint32_t	nentries;
} XpuPreAggLocal;

/* how many entries of entry_size bytes the local table holds */
XPU_FUNC uint32_t
xpu_preagg_local_capacity(uint32_t entry_size)
{
	uint32_t	n = XPU_PREAGG_LOCAL_BYTES / entry_size;

	return n < XPU_PREAGG_LOCAL_ENTRIES ? n : XPU_PREAGG_LOCAL_ENTRIES;
}

/*
 * xpu_preagg_local_open - the table view of an emptied local table; false
 * when too few entries fit for it to pay (the caller does without it).
 */
XPU_FUNC bool
xpu_preagg_local_open(XpuPreAggLocal *l, uint32_t entry_size, xpu_preagg_table *v)
{
	uint32_t	cap = xpu_preagg_local_capacity(entry_size);

	if (cap < XPU_PREAGG_LOCAL_MIN_ENTRIES)
		return false;
	v->slots = l->slots;
	v->entries = (char *) l->entries;
	v->nentries = &l->nentries;
	v->nslots = XPU_PREAGG_LOCAL_SLOTS;
	v->capacity = cap;
	v->entry_size = entry_size;
	return true;
}

/* entries of the local table that are linked groups (losers lost VALID) */
XPU_FUNC uint32_t
xpu_preagg_local_used(const xpu_preagg_table *v)
{
	uint32_t	n = *v->nentries;

	return n < v->capacity ? n : v->capacity;
}

/*
 * xpu_preagg_local_flush - fold local entry i into its device entry, if it
 * is a group with one; run once per entry after every row is folded.
 */
XPU_FUNC void
xpu_preagg_local_flush(const xpu_preagg *pa, const XpuPreAggLocal *l,
					   const xpu_preagg_table *v, uint32_t i)
{
	const char *e = xpu_preagg_entry(v, i);

	if ((((const XpuPreAggEntryHeader *) e)->flags & XPU_PREAGG_ENTRY_VALID) != 0 &&
		l->global[i] != (char *) 0)
		xpu_preagg_combine(pa, l->global[i], e);
}

#endif							/* XPU_PREAGG_LOCAL_H */
