/*
 * xpu_numeric.h
 *
 * PostgreSQL NUMERIC on the device: a signed 128-bit integer with a decimal
 * scale (value = num * 10^-scale), |num| < 10^38.  Anything outside that
 * range, and NaN/Infinity, is left to the CPU (RECHECK).
 */
#ifndef XPU_NUMERIC_H
#define XPU_NUMERIC_H

#include "xpu_common.h"

/* src/backend/utils/adt/numeric.c (PostgreSQL 15) */
#define XPU_NUMERIC_SIGN_MASK			0xC000
#define XPU_NUMERIC_POS					0x0000
#define XPU_NUMERIC_NEG					0x4000
#define XPU_NUMERIC_SHORT				0x8000
#define XPU_NUMERIC_SPECIAL				0xC000
#define XPU_NUMERIC_DSCALE_MASK			0x3FFF
#define XPU_NUMERIC_SHORT_SIGN_MASK		0x2000
#define XPU_NUMERIC_SHORT_DSCALE_MASK	0x1F80
#define XPU_NUMERIC_SHORT_DSCALE_SHIFT	7
#define XPU_NUMERIC_SHORT_WEIGHT_SIGN_MASK	0x0040
#define XPU_NUMERIC_SHORT_WEIGHT_MASK	0x003F
#define XPU_NBASE						10000
#define XPU_NUMERIC_MAX_DISPLAY_SCALE	1000

/*
 * xpu_numeric_decode - decode the payload of an (uncompressed, inline)
 * numeric varlena: data points just past the varlena header, len is the
 * payload length.  Returns true and sets num and scale on success; false
 * for NaN/Inf, a value out of range, or malformed bytes (RECHECK).
 */
XPU_FUNC bool
xpu_numeric_decode(const char *data, int32_t len, xpu_int128 *num, int32_t *scale)
{
	uint16_t	n_header;
	int32_t		weight;
	int32_t		dscale;
	bool		neg;
	int32_t		hdrsz;
	int32_t		ndigits;
	xpu_int128	acc = 0;
	xpu_int128	bound = xpu_numeric_bound();
	int32_t		exp10;
	int32_t		i;

	if (len < 2)
		return false;
	n_header = xpu_load_u16(data);
	if ((n_header & XPU_NUMERIC_SIGN_MASK) == XPU_NUMERIC_SPECIAL)
		return false;			/* NaN, +Inf, -Inf */
	if ((n_header & XPU_NUMERIC_SIGN_MASK) == XPU_NUMERIC_SHORT)
	{
		neg = (n_header & XPU_NUMERIC_SHORT_SIGN_MASK) != 0;
		dscale = (n_header & XPU_NUMERIC_SHORT_DSCALE_MASK) >> XPU_NUMERIC_SHORT_DSCALE_SHIFT;
		weight = (n_header & XPU_NUMERIC_SHORT_WEIGHT_MASK);
		if (n_header & XPU_NUMERIC_SHORT_WEIGHT_SIGN_MASK)
			weight |= ~XPU_NUMERIC_SHORT_WEIGHT_MASK;
		hdrsz = 2;
	}
	else
	{
		if (len < 4)
			return false;
		neg = (n_header & XPU_NUMERIC_SIGN_MASK) == XPU_NUMERIC_NEG;
		dscale = n_header & XPU_NUMERIC_DSCALE_MASK;
		weight = (int16_t) xpu_load_u16(data + 2);
		hdrsz = 4;
	}
	if (((len - hdrsz) & 1) != 0)
		return false;
	ndigits = (len - hdrsz) / 2;

	/* integer of all the digits: acc * 10000^(weight - ndigits + 1) */
	for (i = 0; i < ndigits; i++)
	{
		int32_t		d = (int16_t) xpu_load_u16(data + hdrsz + 2 * i);

		if (d < 0 || d >= XPU_NBASE)
			return false;
		if (acc > (bound - d) / XPU_NBASE)
			return false;
		acc = acc * XPU_NBASE + d;
	}
	if (acc == 0)
	{
		*num = 0;
		*scale = dscale;
		return true;
	}
	/* value * 10^dscale = acc * 10^exp10 */
	exp10 = 4 * (weight - ndigits + 1) + dscale;
	if (exp10 >= 0)
	{
		if (!xpu_scale_up128(acc, exp10, &acc))
			return false;
	}
	else
	{
		xpu_int128	p;

		/* only trailing zeros of the last digit may lie beyond dscale */
		if (-exp10 > XPU_NUMERIC_MAX_DIGITS)
			return false;
		p = xpu_pow10_i128(-exp10);
		if (acc % p != 0)
			return false;
		acc /= p;
	}
	*num = neg ? -acc : acc;
	*scale = dscale;
	return true;
}

/*
 * Bring a and b to the same scale (the larger one).  False on overflow.
 */
XPU_FUNC bool
xpu_numeric_align(xpu_int128 *a, int32_t *as, xpu_int128 *b, int32_t *bs)
{
	if (*as < *bs)
	{
		if (!xpu_scale_up128(*a, *bs - *as, a))
			return false;
		*as = *bs;
	}
	else if (*bs < *as)
	{
		if (!xpu_scale_up128(*b, *as - *bs, b))
			return false;
		*bs = *as;
	}
	return true;
}

/* three-way compare; false when the comparison needs more than 128 bits */
XPU_FUNC bool
xpu_numeric_cmp(xpu_int128 a, int32_t as, xpu_int128 b, int32_t bs, int *cmp)
{
	/* signs alone decide many cases without any rescaling */
	int			sa = (a > 0) - (a < 0);
	int			sb = (b > 0) - (b < 0);

	if (sa != sb)
	{
		*cmp = (sa < sb) ? -1 : 1;
		return true;
	}
	if (sa == 0)
	{
		*cmp = 0;
		return true;
	}
	/*
	 * Same non-zero sign.  When bringing one side to the other's scale
	 * overflows the bound, that side's magnitude exceeds the other's (which
	 * is within the bound), so the sign decides.
	 */
	if (as < bs)
	{
		if (!xpu_scale_up128(a, bs - as, &a))
		{
			*cmp = sa;
			return true;
		}
	}
	else if (bs < as)
	{
		if (!xpu_scale_up128(b, as - bs, &b))
		{
			*cmp = -sb;
			return true;
		}
	}
	*cmp = (a < b) ? -1 : (a > b) ? 1 : 0;
	return true;
}

XPU_FUNC bool
xpu_numeric_add(xpu_int128 a, int32_t as, xpu_int128 b, int32_t bs,
				xpu_int128 *r, int32_t *rs)
{
	if (!xpu_numeric_align(&a, &as, &b, &bs))
		return false;
	if (!xpu_add128(a, b, r))
		return false;
	*rs = as;
	return true;
}

XPU_FUNC bool
xpu_numeric_sub(xpu_int128 a, int32_t as, xpu_int128 b, int32_t bs,
				xpu_int128 *r, int32_t *rs)
{
	return xpu_numeric_add(a, as, -b, bs, r, rs);
}

XPU_FUNC bool
xpu_numeric_mul(xpu_int128 a, int32_t as, xpu_int128 b, int32_t bs,
				xpu_int128 *r, int32_t *rs)
{
	/* PG 15 numeric_mul keeps the exact product up to this display scale */
	if (as + bs > XPU_NUMERIC_MAX_DISPLAY_SCALE)
		return false;
	if (!xpu_mul128(a, b, r))
		return false;
	*rs = as + bs;
	return true;
}

/*
 * NUMERIC -> int64, rounding half away from zero at scale 0 (round_var),
 * then checking [lo, hi].  False on overflow.
 */
XPU_FUNC bool
xpu_numeric_to_int(xpu_int128 a, int32_t as, int64_t lo, int64_t hi, int64_t *r)
{
	xpu_int128	m = xpu_abs128(a);
	xpu_int128	q;

	if (as <= 0)
		q = m;
	else if (as > XPU_NUMERIC_MAX_DIGITS)
		q = 0;					/* |value| < 10^38 / 10^39 < 0.5 */
	else
	{
		xpu_int128	p = xpu_pow10_i128(as);
		xpu_int128	rem;

		q = m / p;
		rem = m - q * p;
		if (rem >= p - rem)
			q += 1;
	}
	if (a < 0)
		q = -q;
	if (q < (xpu_int128) lo || q > (xpu_int128) hi)
		return false;
	*r = (int64_t) q;
	return true;
}

#endif							/* XPU_NUMERIC_H */
