/*
 * xpu_hash.h
 *
 * Hashing of grouping keys over their normalized forms, so that values
 * PostgreSQL's grouping treats as equal (0.0 and -0.0, NaNs of any payload,
 * 1.0 and 1.00, 'a' and 'a  ' as bpchar) hash alike.
 */
#ifndef XPU_HASH_H
#define XPU_HASH_H

#include "xpu_common.h"
#include "xpu_text.h"

/* murmur3's finalizer: every input bit reaches every output bit */
XPU_FUNC uint64_t
xpu_hash_fmix64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return k;
}

/* order-dependent: (a, b) and (b, a) differ */
XPU_FUNC uint64_t
xpu_hash_combine(uint64_t h, uint64_t v)
{
	return (h ^ xpu_hash_fmix64(v)) * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL;
}

/* any NaN hashes as the canonical one, -0 as +0 */
XPU_FUNC uint64_t
xpu_hash_float4_bits(float f)
{
	union { float f; uint32_t u; } x;

	if (xpu_isnan4(f))
		return 0x7fc00000U;
	if (f == 0.0f)
		return 0;
	x.f = f;
	return x.u;
}

XPU_FUNC uint64_t
xpu_hash_float8_bits(double f)
{
	union { double f; uint64_t u; } x;

	if (xpu_isnan8(f))
		return 0x7ff8000000000000ULL;
	if (f == 0.0)
		return 0;
	x.f = f;
	return x.u;
}

/*
 * xpu_numeric_normalize - strip trailing decimal zeros while scale > 0, so
 * that one value has one (num, scale).  Zero becomes (0, 0).
 */
XPU_FUNC void
xpu_numeric_normalize(xpu_int128 *num, int32_t *scale)
{
	xpu_int128	v = *num;
	int32_t		s = *scale;

	if (v == 0)
	{
		*scale = 0;
		return;
	}
	/* 128-bit division is a long software sequence: stay in 64 bits if we can */
	if (v >= -(xpu_int128) INT64_MAX && v <= (xpu_int128) INT64_MAX)
	{
		int64_t		w = (int64_t) v;

		while (s > 0 && w % 10 == 0)
		{
			w /= 10;
			s--;
		}
		v = w;
	}
	else
	{
		while (s > 0 && v % 10 == 0)
		{
			v /= 10;
			s--;
		}
	}
	*num = v;
	*scale = s;
}

/* bytes, read one at a time: text values lie unaligned in heap pages */
XPU_FUNC uint64_t
xpu_hash_bytes(uint64_t h, const char *p, int32_t len)
{
	int32_t		i = 0;

	h = xpu_hash_combine(h, (uint64_t) len);
	while (i < len)
	{
		uint64_t	w = 0;
		int			k;

		for (k = 0; k < 8 && i < len; k++, i++)
			w |= (uint64_t) (uint8_t) p[i] << (8 * k);
		h = xpu_hash_combine(h, w);
	}
	return h;
}

/*
 * xpu_hash_key - fold one key value of device type xtype into h.  The value
 * is the node's evaluation slot.
 */
XPU_FUNC uint64_t
xpu_hash_key(uint64_t h, int xtype, const xpu_datum *d)
{
	if (d->isnull)
		return xpu_hash_combine(h, 0x6e756c6c6e756c6cULL);
	switch (xtype)
	{
		case XPU_TYPE_FLOAT4:
			return xpu_hash_combine(h, xpu_hash_float4_bits(d->v.f4));
		case XPU_TYPE_FLOAT8:
			return xpu_hash_combine(h, xpu_hash_float8_bits(d->v.f8));
		case XPU_TYPE_NUMERIC:
			{
				xpu_int128	v = d->v.num;
				int32_t		s = d->scale;

				xpu_numeric_normalize(&v, &s);
				h = xpu_hash_combine(h, (uint64_t) v);
				h = xpu_hash_combine(h, (uint64_t) (v >> 64));
				return xpu_hash_combine(h, (uint64_t) (uint32_t) s);
			}
		case XPU_TYPE_TEXT:
		case XPU_TYPE_VARCHAR:
			return xpu_hash_bytes(h, d->v.s.ptr, d->v.s.len);
		case XPU_TYPE_BPCHAR:
			return xpu_hash_bytes(h, d->v.s.ptr,
								  xpu_bpchar_truelen(d->v.s.ptr, d->v.s.len));
		default:
			/* BOOL, integers, DATE, TIMESTAMP(TZ): sign-extended i64 */
			return xpu_hash_combine(h, (uint64_t) d->v.i64);
	}
}

XPU_FUNC uint32_t
xpu_hash_final(uint64_t h)
{
	h = xpu_hash_fmix64(h);
	return (uint32_t) (h ^ (h >> 32));
}

#endif							/* XPU_HASH_H */
