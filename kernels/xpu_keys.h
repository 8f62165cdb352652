/*
 * xpu_keys.h
 *
 * Grouping (and, for a join, join) keys: the width a key slot of a type
 * takes, storing a value in a slot, and PostgreSQL's grouping equality of a
 * stored slot and a value, consistent with xpu_hash_key (xpu_hash.h).
 *
 * The slot encoding is XpuGroupKey's in pg_strom_xpu.h.  Slots live in
 * tables other threads fill, so they are read with xpu_ld_cg_*.  Nothing
 * here knows about GpuPreAgg: a hash join's keys use the same pieces.
 */
#ifndef XPU_KEYS_H
#define XPU_KEYS_H

#include "xpu_common.h"
#include "xpu_atomic.h"
#include "xpu_numeric.h"
#include "xpu_text.h"
#include "xpu_eval.h"

/* slot width a key of the type must have; text: -1 (checked apart) */
XPU_FUNC int
xpu_key_width(int t)
{
	if (xpu_type_is_text(t))
		return -1;
	if (t == XPU_TYPE_NUMERIC)
		return 32;
	if (t > XPU_TYPE_INVALID && t < XPU_TYPE__COUNT)
		return 16;
	return 0;
}

/*
 * xpu_key_store - write a key slot (the entry is zeroed).  The slot holds
 * the value as it is: trailing spaces and numeric scale are the creating
 * row's.
 */
XPU_FUNC void
xpu_key_store(int xtype, char *slot, const xpu_datum *d)
{
	if (d->isnull)
	{
		slot[0] = 1;
		return;
	}
	switch (xtype)
	{
		case XPU_TYPE_FLOAT4:
			*((float *) (slot + 8)) = d->v.f4;
			break;
		case XPU_TYPE_FLOAT8:
			*((double *) (slot + 8)) = d->v.f8;
			break;
		case XPU_TYPE_NUMERIC:
			*((int32_t *) (slot + 4)) = d->scale;
			*((uint64_t *) (slot + 16)) = (uint64_t) d->v.num;
			*((uint64_t *) (slot + 24)) = (uint64_t) (d->v.num >> 64);
			break;
		case XPU_TYPE_TEXT:
		case XPU_TYPE_VARCHAR:
		case XPU_TYPE_BPCHAR:
			{
				int32_t		i;

				*((int32_t *) (slot + 4)) = d->v.s.len;
				for (i = 0; i < d->v.s.len; i++)
					slot[8 + i] = d->v.s.ptr[i];
			}
			break;
		default:
			*((int64_t *) (slot + 8)) = d->v.i64;
			break;
	}
}

/* stored text bytes [0, len) of a slot equal p[0, len)? */
XPU_FUNC bool
xpu_key_bytes_equal(const char *slot, const char *p, int32_t len)
{
	int32_t		i = 0;

	while (i < len)
	{
		uint64_t	w = xpu_ld_cg_u64(slot + 8 + i);
		int			k;

		for (k = 0; k < 8 && i < len; k++, i++)
		{
			if ((uint8_t) (w >> (8 * k)) != (uint8_t) p[i])
				return false;
		}
	}
	return true;
}

/*
 * xpu_key_equal - PostgreSQL's grouping equality of a stored key slot and a
 * value; consistent with xpu_hash_key.
 */
XPU_FUNC bool
xpu_key_equal(int xtype, const char *slot, const xpu_datum *d)
{
	uint64_t	w0 = xpu_ld_cg_u64(slot);
	bool		snull = (w0 & 0xff) != 0;
	int32_t		aux = (int32_t) (uint32_t) (w0 >> 32);

	if (snull || d->isnull)
		return snull && d->isnull;
	switch (xtype)
	{
		case XPU_TYPE_FLOAT4:
			return xpu_float4_cmp(xpu_bits_to_f4(xpu_ld_cg_u32(slot + 8)), d->v.f4) == 0;
		case XPU_TYPE_FLOAT8:
			return xpu_float8_cmp(xpu_bits_to_f8(xpu_ld_cg_u64(slot + 8)), d->v.f8) == 0;
		case XPU_TYPE_NUMERIC:
			{
				uint64_t	lo = xpu_ld_cg_u64(slot + 16);
				uint64_t	hi = xpu_ld_cg_u64(slot + 24);
				xpu_int128	v = (xpu_int128) (((unsigned __int128) hi << 64) | lo);
				int			c = 1;

				/* exact within the device range: scaling up never loses */
				return xpu_numeric_cmp(v, aux, d->v.num, d->scale, &c) && c == 0;
			}
		case XPU_TYPE_TEXT:
		case XPU_TYPE_VARCHAR:
			return aux == d->v.s.len && xpu_key_bytes_equal(slot, d->v.s.ptr, aux);
		case XPU_TYPE_BPCHAR:
			{
				int32_t		len = d->v.s.len;
				int32_t		slen = aux;

				/* the stored trailing spaces: read back from the slot */
				while (slen > 0 &&
					   (uint8_t) (xpu_ld_cg_u64(slot + 8 + ((slen - 1) & ~7)) >>
								  (8 * ((slen - 1) & 7))) == ' ')
					slen--;
				len = xpu_bpchar_truelen(d->v.s.ptr, len);
				return slen == len && xpu_key_bytes_equal(slot, d->v.s.ptr, len);
			}
		default:
			return (int64_t) xpu_ld_cg_u64(slot + 8) == d->v.i64;
	}
}

#endif							/* XPU_KEYS_H */
