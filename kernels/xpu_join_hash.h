/*
 * xpu_join_hash.h
 *
 * The inner side of a GpuJoin depth: its rows (normalized key slots, as
 * the backend sends them) and the hash index the device builds over them
 * (a bucket array and a next link per row), the build step of one row,
 * and the probe: the inner rows whose keys equal an outer row's.
 *
 * Hashing is xpu_hash_key and equality xpu_key_equal, exactly as
 * GpuPreAgg's keys, so integer keys of any width, numeric by value (1.0 =
 * 1.00), bpchar without trailing spaces and text bytewise (deterministic
 * collations only) match as PostgreSQL's equality does.  Unlike grouping,
 * a NULL key matches nothing: rows with one are never linked, and an outer
 * row with one is not probed.
 */
#ifndef XPU_JOIN_HASH_H
#define XPU_JOIN_HASH_H

#include "xpu_atomic.h"
#include "xpu_hash.h"
#include "xpu_keys.h"
#include "xpu_join_desc.h"

/* no inner row (probe results; never a row index) */
#define XPU_JOIN_NONE			0xfffffffeU
/* XPU_JOIN_MAX_ROWS (pg_strom_xpu.h) keeps row indexes below the markers */

/* XpuJoinInner, the device buffer of one depth: pg_strom_xpu.h */

/* what a thread needs of an XpuJoinInner, checked once */
typedef struct xpu_join_inner
{
	const char *rows;
	uint32_t   *buckets;
	uint32_t   *next;
	uint32_t   *hashes;
	uint32_t	nrows;
	uint32_t	row_size;
	uint32_t	nbuckets;
	uint32_t	reserved;
} xpu_join_inner;

/*
 * xpu_join_inner_layout - fill h for nrows rows of row_size bytes with
 * nbuckets buckets (the service and the tests lay buffers out with it);
 * returns the bytes of the whole buffer.  Regions are 256-byte aligned.
 */
XPU_FUNC uint64_t
xpu_join_inner_layout(XpuJoinInner *h, uint32_t depth, uint32_t nrows,
					  uint32_t row_size, uint32_t nbuckets)
{
	uint64_t	off = 256;

	h->nrows = nrows;
	h->row_size = row_size;
	h->nbuckets = nbuckets;
	h->depth = depth;
	h->rows_offset = off;
	off = (off + (uint64_t) nrows * row_size + 255) & ~(uint64_t) 255;
	h->buckets_offset = off;
	off = (off + 4 * (uint64_t) nbuckets + 255) & ~(uint64_t) 255;
	h->next_offset = off;
	off = (off + 4 * (uint64_t) nrows + 255) & ~(uint64_t) 255;
	h->hashes_offset = off;
	return off + 4 * (uint64_t) nrows;
}

/* [a, a + alen) and [b, b + blen) are disjoint */
XPU_FUNC bool
xpu_join_disjoint(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return alen == 0 || blen == 0 || a + alen <= b || b + blen <= a;
}

/* false when the header is inconsistent (the kernel reports BAD_INNER) */
XPU_FUNC bool
xpu_join_inner_open(XpuJoinInner *h, const xpu_join_depth *jd, uint32_t depth,
					xpu_join_inner *v)
{
	uint64_t	rows_len,
				buckets_len,
				arr_len;
	uint64_t	hsize = sizeof(XpuJoinInner);

	if (h->nrows > XPU_JOIN_MAX_ROWS || h->row_size != jd->row_size ||
		h->depth != depth ||
		h->nbuckets == 0 || (h->nbuckets & (h->nbuckets - 1)) != 0)
		return false;
	if ((h->rows_offset & 15) != 0 || (h->buckets_offset & 3) != 0 ||
		(h->next_offset & 3) != 0 || (h->hashes_offset & 3) != 0 ||
		h->rows_offset < hsize || h->buckets_offset < hsize ||
		h->next_offset < hsize || h->hashes_offset < hsize)
		return false;
	rows_len = (uint64_t) h->nrows * h->row_size;
	buckets_len = 4 * (uint64_t) h->nbuckets;
	arr_len = 4 * (uint64_t) h->nrows;
	if (!xpu_join_disjoint(h->rows_offset, rows_len, h->buckets_offset, buckets_len) ||
		!xpu_join_disjoint(h->rows_offset, rows_len, h->next_offset, arr_len) ||
		!xpu_join_disjoint(h->rows_offset, rows_len, h->hashes_offset, arr_len) ||
		!xpu_join_disjoint(h->buckets_offset, buckets_len, h->next_offset, arr_len) ||
		!xpu_join_disjoint(h->buckets_offset, buckets_len, h->hashes_offset, arr_len) ||
		!xpu_join_disjoint(h->next_offset, arr_len, h->hashes_offset, arr_len))
		return false;
	v->rows = (const char *) h + h->rows_offset;
	v->buckets = (uint32_t *) ((char *) h + h->buckets_offset);
	v->next = (uint32_t *) ((char *) h + h->next_offset);
	v->hashes = (uint32_t *) ((char *) h + h->hashes_offset);
	v->nrows = h->nrows;
	v->row_size = h->row_size;
	v->nbuckets = h->nbuckets;
	v->reserved = 0;
	return true;
}

/*
 * xpu_join_inners_open - every depth's inner buffer (hdrs has
 * XPU_JOIN_MAX_DEPTHS entries, NULL past the join's depths); a missing or
 * inconsistent one is XPU_STATUS_BAD_INNER.
 */
XPU_FUNC int
xpu_join_inners_open(const xpu_join *jn, XpuJoinInner *const *hdrs, xpu_join_inner *inners)
{
	int			d;

	for (d = 0; d < (int) jn->ndepths; d++)
	{
		if (hdrs[d] == NULL ||
			!xpu_join_inner_open(hdrs[d], &jn->depths[d], (uint32_t) d, &inners[d]))
			return XPU_STATUS_BAD_INNER;
	}
	return XPU_STATUS_OK;
}

XPU_FUNC const char *
xpu_join_inner_row(const xpu_join_inner *in, uint32_t r)
{
	return in->rows + (size_t) r * in->row_size;
}

/*
 * xpu_join_slot_valid - a key slot the backend wrote is one xpu_key_store
 * could have written: NULL flag 0 or 1, a text length within the slot, a
 * numeric within the device's range and a scale PostgreSQL allows.
 * Everything else the probe reads is then in bounds.
 */
XPU_FUNC bool
xpu_join_slot_valid(int xtype, const char *slot, uint32_t width)
{
	uint8_t		isnull = (uint8_t) slot[0];

	if (isnull > 1)
		return false;
	if (isnull)
		return true;
	if (xpu_type_is_text(xtype))
	{
		int32_t		len = (int32_t) xpu_load_u32(slot + 4);

		return len >= 0 && (uint32_t) len <= width - 8;
	}
	if (xtype == XPU_TYPE_NUMERIC)
	{
		int32_t		scale = (int32_t) xpu_load_u32(slot + 4);
		uint64_t	lo = xpu_load_u64(slot + 16);
		uint64_t	hi = xpu_load_u64(slot + 24);
		xpu_int128	v = (xpu_int128) (((unsigned __int128) hi << 64) | lo);

		/* 1000: NUMERIC_MAX_DISPLAY_SCALE */
		return scale >= 0 && scale <= 1000 && xpu_abs128(v) <= xpu_numeric_bound();
	}
	return true;
}

/*
 * xpu_join_slot_datum - the value of a key slot as an evaluation slot
 * would hold it (the inverse of xpu_key_store); text points into the slot.
 */
XPU_FUNC void
xpu_join_slot_datum(int xtype, const char *slot, xpu_datum *d)
{
	d->scale = 0;
	d->isnull = slot[0] != 0;
	d->v.num = 0;
	if (d->isnull)
		return;
	switch (xtype)
	{
		case XPU_TYPE_FLOAT4:
			d->v.f4 = xpu_bits_to_f4(xpu_load_u32(slot + 8));
			break;
		case XPU_TYPE_FLOAT8:
			d->v.f8 = xpu_bits_to_f8(xpu_load_u64(slot + 8));
			break;
		case XPU_TYPE_NUMERIC:
			d->scale = (int32_t) xpu_load_u32(slot + 4);
			d->v.num = (xpu_int128) (((unsigned __int128) xpu_load_u64(slot + 24) << 64) |
									 xpu_load_u64(slot + 16));
			break;
		case XPU_TYPE_TEXT:
		case XPU_TYPE_VARCHAR:
		case XPU_TYPE_BPCHAR:
			d->v.s.ptr = slot + 8;
			d->v.s.len = (int32_t) xpu_load_u32(slot + 4);
			break;
		default:
			d->v.i64 = (int64_t) xpu_load_u64(slot + 8);
			break;
	}
}

/* the seed GpuPreAgg's keys start from (xpu_preagg_hash) */
#define XPU_JOIN_HASH_SEED		0x2545f4914f6cdd1dULL

/*
 * xpu_join_inner_hash - the hash of an inner row's keys; *anynull when one
 * of them is NULL (the row matches nothing).
 */
XPU_FUNC uint32_t
xpu_join_inner_hash(const xpu_join_depth *jd, const char *row, bool *anynull)
{
	uint64_t	h = XPU_JOIN_HASH_SEED;
	int			i;

	*anynull = false;
	for (i = 0; i < jd->nkeys; i++)
	{
		xpu_datum	d;

		xpu_join_slot_datum(jd->keys[i].inner_xtype, row + jd->keys[i].offset, &d);
		if (d.isnull)
			*anynull = true;
		h = xpu_hash_key(h, jd->keys[i].inner_xtype, &d);
	}
	return xpu_hash_final(h);
}

/*
 * xpu_join_outer_hash - the hash of an outer row's keys at a depth, from
 * its evaluation slots.  Joinable types hash alike (integers as int64,
 * text and varchar as bytes), so it equals the hash of any inner row
 * whose keys are equal.
 */
XPU_FUNC uint32_t
xpu_join_outer_hash(const xpu_join_depth *jd, const xpu_datum *slots, bool *anynull)
{
	uint64_t	h = XPU_JOIN_HASH_SEED;
	int			i;

	*anynull = false;
	for (i = 0; i < jd->nkeys; i++)
	{
		const xpu_datum *d = &slots[jd->keys[i].node];

		if (d->isnull)
			*anynull = true;
		h = xpu_hash_key(h, jd->keys[i].outer_xtype, d);
	}
	return xpu_hash_final(h);
}

/*
 * xpu_join_payload_valid - depth d's payload slots of `row` are ones
 * xpu_key_store could have written, so an INNER_VAR reads them in bounds
 * (checked at the build, with the key slots, once per row).
 */
XPU_FUNC bool
xpu_join_payload_valid(const xpu_join *jn, uint32_t d, const char *row)
{
	int			c;

	for (c = 0; c < (int) jn->ncols; c++)
	{
		const XpuJoinCol *col = &jn->cols[c];

		if ((uint32_t) col->depth == d &&
			!xpu_join_slot_valid(col->inner_xtype, row + col->offset, col->width))
			return false;
	}
	return true;
}

/*
 * xpu_join_build_row - hash inner row r and push it on its bucket's chain
 * (any number of threads at once).  Returns 1 when linked, 0 for a row
 * with a NULL key (not linked), -1 for a row the backend did not write as
 * xpu_key_store would (the kernel reports BAD_INNER).
 */
XPU_FUNC int
xpu_join_build_row(const xpu_join_depth *jd, const xpu_join_inner *in, uint32_t r)
{
	const char *row = xpu_join_inner_row(in, r);
	uint32_t   *bucket;
	uint32_t	hash;
	uint32_t	old;
	bool		anynull;
	int			i;

	for (i = 0; i < jd->nkeys; i++)
	{
		if (!xpu_join_slot_valid(jd->keys[i].inner_xtype, row + jd->keys[i].offset,
								 jd->keys[i].width))
			return -1;
	}
	hash = xpu_join_inner_hash(jd, row, &anynull);
	in->hashes[r] = hash;
	in->next[r] = 0;
	if (anynull)
		return 0;
	bucket = &in->buckets[hash & (in->nbuckets - 1)];
	old = xpu_ld_acquire_u32(bucket);
	for (;;)
	{
		uint32_t	prev;

		/* our hash and link are visible before the row is */
		in->next[r] = old;
		xpu_fence();
		prev = xpu_atomic_cas_u32(bucket, old, r + 1);
		if (prev == old)
			return 1;
		old = prev;
	}
}

/* inner row `row`'s keys equal the outer row's (neither has a NULL) */
XPU_FUNC bool
xpu_join_keys_equal(const xpu_join_depth *jd, const char *row, const xpu_datum *slots)
{
	int			i;

	for (i = 0; i < jd->nkeys; i++)
	{
		const XpuJoinKey *k = &jd->keys[i];

		/* joinable types decode alike, so the inner type reads both */
		if (!xpu_key_equal(k->inner_xtype, row + k->offset, &slots[k->node]))
			return false;
	}
	return true;
}

/*
 * xpu_join_chain_match - the first row matching the outer row (its hash
 * and slots) on the chain from `link` (0 or row index + 1), or
 * XPU_JOIN_NONE.  A chain longer than nrows, or a link past nrows, can
 * only come from an index that was not zeroed before the build: it ends
 * the walk rather than loop or read out of bounds.
 */
XPU_FUNC uint32_t
xpu_join_chain_match(const xpu_join_depth *jd, const xpu_join_inner *in,
					 const xpu_datum *slots, uint32_t hash, uint32_t link)
{
	uint32_t	steps = 0;

	while (link != 0 && link - 1 < in->nrows && steps++ < in->nrows)
	{
		uint32_t	r = link - 1;

		if (in->hashes[r] == hash &&
			xpu_join_keys_equal(jd, xpu_join_inner_row(in, r), slots))
			return r;
		link = in->next[r];
	}
	return XPU_JOIN_NONE;
}

/* the first inner row matching the outer row, or XPU_JOIN_NONE */
XPU_FUNC uint32_t
xpu_join_probe_first(const xpu_join_depth *jd, const xpu_join_inner *in,
					 const xpu_datum *slots, uint32_t hash)
{
	return xpu_join_chain_match(jd, in, slots, hash,
								in->buckets[hash & (in->nbuckets - 1)]);
}

/* the next inner row after match r (< nrows), or XPU_JOIN_NONE */
XPU_FUNC uint32_t
xpu_join_probe_next(const xpu_join_depth *jd, const xpu_join_inner *in,
					const xpu_datum *slots, uint32_t hash, uint32_t r)
{
	return xpu_join_chain_match(jd, in, slots, hash, in->next[r]);
}

/* row r (< nrows) is a match of the outer row: a cursor's position is sane */
XPU_FUNC bool
xpu_join_row_matches(const xpu_join_depth *jd, const xpu_join_inner *in,
					 const xpu_datum *slots, uint32_t hash, uint32_t r)
{
	return r < in->nrows && in->hashes[r] == hash &&
		xpu_join_keys_equal(jd, xpu_join_inner_row(in, r), slots);
}

#endif							/* XPU_JOIN_HASH_H */
