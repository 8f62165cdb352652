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
#define XPU_NUMERIC_MAX_RESULT_SCALE	2000

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

/*
 * The weight (base-NBASE exponent) and first base-NBASE digit of |v| for
 * v = m * 10^-s, m != 0: what numeric.c's select_div_scale reads from a
 * value's stored digits, whose decimal point lies on a four-digit boundary.
 */
XPU_FUNC void
xpu_numeric_lead(xpu_int128 m, int32_t s, int32_t *weight, int32_t *first)
{
	xpu_int128	am = xpu_abs128(m);
	int32_t		ndigits = 1;
	int32_t		e10;
	int32_t		w;
	int32_t		shift;

	while (ndigits < XPU_NUMERIC_MAX_DIGITS && am >= xpu_pow10_i128(ndigits))
		ndigits++;
	e10 = ndigits - 1 - s;		/* floor(log10 |v|) */
	w = (e10 >= 0) ? e10 / 4 : -((3 - e10) / 4);
	shift = s + 4 * w;			/* first = floor(|m| / 10^shift) */
	if (shift >= 0)
		*first = (int32_t) (am / xpu_pow10_i128(shift));
	else
		*first = (int32_t) (am * xpu_pow10_i128(-shift));	/* -shift <= 3 */
	*weight = w;
}

/*
 * a / b as numeric_div: the result scale of select_div_scale (at least 16
 * significant digits, at least either operand's display scale), the exact
 * quotient rounded half away from zero at that scale.  False (RECHECK) for
 * a zero divisor, whose error the CPU raises, and where the quotient or
 * its scaling needs more than the 128-bit range.
 */
XPU_FUNC bool
xpu_numeric_div(xpu_int128 a, int32_t as, xpu_int128 b, int32_t bs,
				xpu_int128 *r, int32_t *rs)
{
	int32_t		w1 = 0,
				f1 = 0,
				w2,
				f2;
	int32_t		qweight;
	int32_t		rscale;
	int32_t		k;
	xpu_int128	num;
	xpu_int128	den;
	xpu_int128	q;
	xpu_int128	rem;

	if (b == 0)
		return false;
	if (a != 0)
		xpu_numeric_lead(a, as, &w1, &f1);
	xpu_numeric_lead(b, bs, &w2, &f2);
	qweight = w1 - w2;
	if (f1 <= f2)
		qweight--;
	rscale = 16 - qweight * 4;	/* NUMERIC_MIN_SIG_DIGITS, DEC_DIGITS */
	if (rscale < as)
		rscale = as;
	if (rscale < bs)
		rscale = bs;
	if (rscale < 0)
		rscale = 0;
	if (rscale > XPU_NUMERIC_MAX_DISPLAY_SCALE)
		rscale = XPU_NUMERIC_MAX_DISPLAY_SCALE;

	/* |a| / |b| * 10^rscale = |a| * 10^k / |b|, k = rscale + bs - as */
	num = xpu_abs128(a);
	den = xpu_abs128(b);
	k = rscale + bs - as;
	if (k >= 0)
	{
		if (!xpu_scale_up128(num, k, &num))
			return false;
	}
	else if (!xpu_scale_up128(den, -k, &den))
		return false;
	q = num / den;
	rem = num - q * den;
	if (rem >= den - rem)
		q += 1;
	if (q > xpu_numeric_bound())
		return false;
	*r = ((a < 0) != (b < 0)) ? -q : q;
	*rs = rscale;
	return true;
}

/*
 * a rounded (or truncated) to scale t as numeric_round/numeric_trunc: the
 * display scale becomes t, or 0 when t is negative.  False on overflow.
 */
XPU_FUNC bool
xpu_numeric_round(xpu_int128 a, int32_t as, int32_t t, bool trunc,
				  xpu_int128 *r, int32_t *rs)
{
	xpu_int128	m = xpu_abs128(a);
	xpu_int128	q;

	*rs = (t < 0) ? 0 : t;
	if (t >= as)
		return xpu_scale_up128(a, t - as, r);
	if (as - t > XPU_NUMERIC_MAX_DIGITS)
		q = 0;					/* |a| < 10^38 <= half of 10^(as - t) */
	else
	{
		xpu_int128	p = xpu_pow10_i128(as - t);
		xpu_int128	rem;

		q = m / p;
		rem = m - q * p;
		if (!trunc && rem >= p - rem)
			q += 1;
	}
	if (t < 0 && !xpu_scale_up128(q, -t, &q))
		return false;
	if (q > xpu_numeric_bound())
		return false;
	*r = (a < 0) ? -q : q;
	return true;
}

/*
 * value = m * 10^-s with its decimal trailing zeros moved into the
 * exponent, so that a short value at a long display scale has a small m.
 */
XPU_FUNC void
xpu_numeric_strip(xpu_int128 *m, int32_t *s)
{
	if (*m == 0)
	{
		*s = 0;
		return;
	}
	while (*m % 10 == 0)
	{
		*m /= 10;
		(*s)--;
	}
}

/*
 * NUMERIC -> FLOAT8 as numeric_float8, which prints the value and reads it
 * with strtod: the correctly rounded double.  When |m| < 2^53 and
 * |s| <= 22 both m and 10^|s| are doubles, so one IEEE division or
 * multiplication rounds the exact value once, correctly.  Otherwise false
 * (RECHECK).
 */
XPU_FUNC bool
xpu_numeric_to_float8(xpu_int128 a, int32_t as, double *r)
{
	xpu_int128	m = a;
	int32_t		s = as;
	double		p = 1.0;
	int32_t		k;

	xpu_numeric_strip(&m, &s);
	if (xpu_abs128(m) >= ((xpu_int128) 1 << 53) || s > 22 || s < -22)
		return false;
	for (k = (s < 0 ? -s : s); k > 0; k--)
		p *= 10.0;				/* every 10^k up to 10^22 is a double */
	*r = (s >= 0) ? xpu_div_rn((double) (int64_t) m, p)
		: xpu_mul_rn((double) (int64_t) m, p);
	return true;
}

/*
 * NUMERIC -> FLOAT4 as numeric_float4 (strtof of the printed value): the
 * same with floats, for |m| < 2^24 and |s| <= 10 (5^10 < 2^24, so 10^10
 * is a float).
 */
XPU_FUNC bool
xpu_numeric_to_float4(xpu_int128 a, int32_t as, float *r)
{
	xpu_int128	m = a;
	int32_t		s = as;
	float		p = 1.0f;
	int32_t		k;

	xpu_numeric_strip(&m, &s);
	if (xpu_abs128(m) >= ((xpu_int128) 1 << 24) || s > 10 || s < -10)
		return false;
	for (k = (s < 0 ? -s : s); k > 0; k--)
		p *= 10.0f;				/* every 10^k up to 10^10 is a float */
	*r = (s >= 0) ? xpu_div_rn((float) (int32_t) m, p)
		: xpu_mul_rn((float) (int32_t) m, p);
	return true;
}

/*
 * x * 2^k * 10^p (k and p of either sign) rounded half to even to an
 * integer, exactly; false when a step needs more than 128 bits.
 */
XPU_FUNC bool
xpu_scaled_round(uint64_t m, int k, int p, unsigned __int128 *r)
{
	unsigned __int128 num = m;
	unsigned __int128 den = 1;
	unsigned __int128 q;
	unsigned __int128 rem;
	int			i;

	if (p > 0)
	{
		for (i = 0; i < p; i++)
		{
			if (num > ((~(unsigned __int128) 0) >> 1) / 10)
				return false;
			num *= 10;
		}
	}
	else
	{
		for (i = 0; i < -p; i++)
		{
			if (den > ((~(unsigned __int128) 0) >> 1) / 10)
				return false;
			den *= 10;
		}
	}
	if (k >= 0)
	{
		if (k > 126 || num > (((~(unsigned __int128) 0) >> 1) >> k))
			return false;
		num <<= k;
	}
	else
	{
		if (-k > 126 || den > (((~(unsigned __int128) 0) >> 1) >> -k))
			return false;
		den <<= -k;
	}
	q = num / den;
	rem = num - q * den;
	if (rem * 2 > den || (rem * 2 == den && (q & 1) != 0))
		q++;
	*r = q;
	return true;
}

/*
 * float8_numeric and float4_numeric: the numeric PostgreSQL parses from
 * snprintf's "%.*g" of x with digits significant digits (DBL_DIG 15,
 * FLT_DIG 6): x rounded half to even to that many digits (glibc rounds the
 * exact binary value so), trailing zeros dropped, the display scale the
 * digits left after the point.  False (RECHECK) for NaN and infinities,
 * which the device's numeric does not hold, and for magnitudes outside
 * [1e-8, 1e38), whose exact scaling would need more than 128 bits.
 */
XPU_FUNC bool
xpu_float_to_numeric(double x, int digits, xpu_int128 *num, int32_t *scale)
{
	union { double f; uint64_t u; } b;
	double		ax = x < 0 ? -x : x;
	uint64_t	m;
	int			k;
	int			e;
	int			attempt;
	unsigned __int128 n = 0;
	unsigned __int128 lo = (unsigned __int128) xpu_pow10_i128(digits - 1);
	unsigned __int128 hi = lo * 10;
	int			p = 0;
	int32_t		last;

	if (x == 0.0)
	{
		*num = 0;				/* "-0" parses as 0 too */
		*scale = 0;
		return true;
	}
	if (xpu_isnan8(x) || xpu_isinf8(x) || ax < 1e-8 || ax >= 1e38)
		return false;
	b.f = ax;
	m = (b.u & ((1ULL << 52) - 1)) | (1ULL << 52);
	k = (int) ((b.u >> 52) & 0x7ff) - 1075;
	/* the decimal exponent: log10's estimate, corrected on the exact digits */
	e = (int) floor(log10(ax));
	for (attempt = 0; attempt < 4; attempt++)
	{
		p = digits - 1 - e;
		if (!xpu_scaled_round(m, k, p, &n))
			return false;
		if (n >= hi)
			e++;
		else if (n < lo)
			e--;
		else
			break;
	}
	if (n < lo || n >= hi)
	{
		/* rounding up to the next power of ten: 10^digits at exponent e */
		if (n != hi)
			return false;
		n = lo;
		p--;
	}
	last = -p;
	while (n % 10 == 0)
	{
		n /= 10;
		last++;
	}
	if (last >= 0)
	{
		if (!xpu_scale_up128((xpu_int128) n, last, num))
			return false;
		*scale = 0;
	}
	else
	{
		*num = (xpu_int128) n;
		*scale = -last;
	}
	if (x < 0)
		*num = -*num;
	return true;
}

#endif							/* XPU_NUMERIC_H */
