/*
 * xpu_preagg_acc.h
 *
 * GpuPreAgg's accumulators: the initial value of each XPU_AGG_* kind and
 * the atomic update that folds a contributing row's argument into it; over
 * the descriptor, whether a row's NUMERIC arguments are exact at their
 * scale, and folding a row into its group entry.
 */
#ifndef XPU_PREAGG_ACC_H
#define XPU_PREAGG_ACC_H

#include "xpu_eval.h"
#include "xpu_atomic.h"
#include "xpu_preagg_desc.h"

/*
 * xpu_acc_add_i128w - (hi:lo) += (vhi:vlo), with 64-bit atomics.  The
 * carry out of lo is exact for each addition because it is taken from the
 * value lo had just before it; hi collects the high words and carries in any
 * order (modulo 2^64, as the 128-bit sum wants), so (hi:lo) is exact once
 * every update has finished.
 */
XPU_FUNC void
xpu_acc_add_i128w(uint64_t *lo, int64_t *hi, uint64_t vlo, int64_t vhi)
{
	uint64_t	old = xpu_atomic_add_u64(lo, vlo);
	int64_t		dhi = vhi + (old + vlo < old ? 1 : 0);

	if (dhi != 0)
		xpu_atomic_add_u64((uint64_t *) hi, (uint64_t) dhi);
}

XPU_FUNC void
xpu_acc_add_i128(uint64_t *lo, int64_t *hi, int64_t v)
{
	xpu_acc_add_i128w(lo, hi, (uint64_t) v, v < 0 ? -1 : 0);
}

/*
 * xpu_acc_add_u192w - (w2:w1:w0) += (v2:v1:v0), unsigned, modulo 2^192, with
 * 64-bit atomics.  As in xpu_acc_add_i128w, every addition's carry comes
 * from the value the word had just before it, so the sum is exact once all
 * updates have finished; the low words get their own additions (never
 * v + carry, which could wrap unseen), the top word wraps harmlessly.
 */
XPU_FUNC void
xpu_acc_add_u192w(uint64_t *w, uint64_t v0, uint64_t v1, uint64_t v2)
{
	uint64_t	carry2 = 0;

	if (v0 != 0)
	{
		uint64_t	old = xpu_atomic_add_u64(&w[0], v0);

		if (old + v0 < old)
		{
			uint64_t	o1 = xpu_atomic_add_u64(&w[1], 1);

			carry2 += (o1 == UINT64_MAX);
		}
	}
	if (v1 != 0)
	{
		uint64_t	old = xpu_atomic_add_u64(&w[1], v1);

		carry2 += (old + v1 < old);
	}
	if (v2 + carry2 != 0)
		xpu_atomic_add_u64(&w[2], v2 + carry2);
}

XPU_FUNC void
xpu_acc_add_u192(uint64_t *w, unsigned __int128 v)
{
	xpu_acc_add_u192w(w, (uint64_t) v, (uint64_t) (v >> 64), 0);
}

/* float8 in PostgreSQL's order (NaN above +Inf, -0 = 0): min/max updates */
XPU_FUNC void
xpu_acc_minmax_fp(uint64_t *bits, double x, bool is_max)
{
	uint64_t	cur = xpu_ld_cg_u64(bits);
	union { double f; uint64_t u; } xv;

	xv.f = x;
	for (;;)
	{
		int			c = xpu_float8_cmp(x, xpu_bits_to_f8(cur));
		uint64_t	prev;

		if (is_max ? c <= 0 : c >= 0)
			return;
		prev = xpu_atomic_cas_u64(bits, cur, xv.u);
		if (prev == cur)
			return;
		cur = prev;
	}
}

/*
 * A NUMERIC argument of an integer accumulator as int64 * 10^-param; false
 * when it has more fractional digits or does not fit (the row is RECHECK).
 */
XPU_FUNC bool
xpu_agg_numeric_scaled(const XpuAggDesc *a, const xpu_datum *d, int64_t *v)
{
	xpu_int128	x = d->v.num;

	if (d->scale > a->param)
		return false;
	if (d->scale < a->param && !xpu_scale_up128(x, a->param - d->scale, &x))
		return false;
	if (x < (xpu_int128) INT64_MIN || x > (xpu_int128) INT64_MAX)
		return false;
	*v = (int64_t) x;
	return true;
}

/*
 * A NUMERIC argument of SUM_NUMV as the int128 value * 10^param; false when
 * it has more fractional digits or does not fit (the row is RECHECK).
 */
XPU_FUNC bool
xpu_agg_numeric_at_scale(const XpuAggDesc *a, const xpu_datum *d, xpu_int128 *v)
{
	*v = d->v.num;
	if (d->scale > a->param)
		return false;
	return d->scale == a->param || xpu_scale_up128(*v, a->param - d->scale, v);
}

/* a signed int128 into a 192-bit two's complement sum */
XPU_FUNC void
xpu_acc_add_s192(uint64_t *w, xpu_int128 v)
{
	xpu_acc_add_u192w(w, (uint64_t) v, (uint64_t) ((unsigned __int128) v >> 64),
					  v < 0 ? UINT64_MAX : 0);
}

/* the argument of an integer accumulator */
XPU_FUNC int64_t
xpu_agg_int_arg(const XpuAggDesc *a, const xpu_datum *d)
{
	int64_t		v = 0;

	if (a->argtype != XPU_TYPE_NUMERIC)
		return d->v.i64;
	(void) xpu_agg_numeric_scaled(a, d, &v);	/* checked by args_fit */
	return v;
}

/* the argument of a float accumulator, widened exactly */
XPU_FUNC double
xpu_agg_fp_arg(int argtype, const xpu_datum *d)
{
	return argtype == XPU_TYPE_FLOAT4 ? (double) d->v.f4 : d->v.f8;
}

XPU_FUNC bool
xpu_agg_contributes(const XpuAggDesc *a, const xpu_datum *slots)
{
	if (a->filter >= 0)
	{
		const xpu_datum *f = &slots[a->filter];

		if (f->isnull || f->v.i64 == 0)
			return false;
	}
	return a->arg < 0 || !slots[a->arg].isnull;
}

/*
 * xpu_acc_init - initial accumulator (the entry is zeroed).  VAR_FP's shift
 * is the creating row's argument when that row contributes a finite value,
 * so that s1 and s2 stay small for data far from 0.
 */
XPU_FUNC void
xpu_acc_init(const XpuAggDesc *a, char *acc, const xpu_datum *slots)
{
	union { double f; uint64_t u; } x;

	switch (a->kind)
	{
		case XPU_AGG_MIN_INT:
			*((int64_t *) (acc + 8)) = INT64_MAX;
			break;
		case XPU_AGG_MAX_INT:
			*((int64_t *) (acc + 8)) = INT64_MIN;
			break;
		case XPU_AGG_MIN_FP:
			x.u = 0x7ff8000000000000ULL;	/* NaN: above everything */
			*((uint64_t *) (acc + 8)) = x.u;
			break;
		case XPU_AGG_MAX_FP:
			x.u = 0xfff0000000000000ULL;	/* -Inf */
			*((uint64_t *) (acc + 8)) = x.u;
			break;
		case XPU_AGG_VAR_FP:
			if (xpu_agg_contributes(a, slots))
			{
				double		v = xpu_agg_fp_arg(a->argtype, &slots[a->arg]);

				if (!xpu_isnan8(v) && !xpu_isinf8(v))
					*((double *) (acc + 8)) = v;
			}
			break;
		default:
			break;
	}
}

/*
 * xpu_acc_update - fold a contributing row's argument into an accumulator.
 * NaN/Inf inputs of float sums are added as well (so the sum follows IEEE
 * rules, as float8pl) and counted in nspecial, which tells them apart from
 * an overflow of finite inputs.
 */
XPU_FUNC void
xpu_acc_update(const XpuAggDesc *a, char *acc, const xpu_datum *slots)
{
	const xpu_datum *d = a->arg >= 0 ? &slots[a->arg] : (const xpu_datum *) 0;

	xpu_atomic_add_u64((uint64_t *) acc, 1);
	switch (a->kind)
	{
		case XPU_AGG_COUNT:
			break;
		case XPU_AGG_SUM_INT:
			xpu_acc_add_i128((uint64_t *) (acc + 16), (int64_t *) (acc + 24),
							 xpu_agg_int_arg(a, d));
			break;
		case XPU_AGG_SUM_FP:
			{
				double		x = xpu_agg_fp_arg(a->argtype, d);

				xpu_atomic_add_f64((double *) (acc + 8), x);
				if (xpu_isnan8(x) || xpu_isinf8(x))
					xpu_atomic_add_u64((uint64_t *) (acc + 16), 1);
			}
			break;
		case XPU_AGG_MIN_INT:
			xpu_atomic_min_i64((int64_t *) (acc + 8), xpu_agg_int_arg(a, d));
			break;
		case XPU_AGG_MAX_INT:
			xpu_atomic_max_i64((int64_t *) (acc + 8), xpu_agg_int_arg(a, d));
			break;
		case XPU_AGG_MIN_FP:
		case XPU_AGG_MAX_FP:
			xpu_acc_minmax_fp((uint64_t *) (acc + 8), xpu_agg_fp_arg(a->argtype, d),
							  a->kind == XPU_AGG_MAX_FP);
			break;
		case XPU_AGG_VAR_FP:
			{
				double		x = xpu_agg_fp_arg(a->argtype, d);
				double		shift = xpu_bits_to_f8(xpu_ld_cg_u64(acc + 8));
				double		dx = xpu_dsub(x, shift);

				xpu_atomic_add_f64((double *) (acc + 16), dx);
				xpu_atomic_add_f64((double *) (acc + 24), xpu_dmul(dx, dx));
				if (xpu_isnan8(x) || xpu_isinf8(x))
					xpu_atomic_add_u64((uint64_t *) (acc + 32), 1);
			}
			break;
		case XPU_AGG_VAR_INT:
			{
				int64_t		x = d->v.i64;

				/* INT2/INT4 only: x * x < 2^62 */
				xpu_acc_add_i128((uint64_t *) (acc + 16), (int64_t *) (acc + 24), x);
				xpu_acc_add_i128((uint64_t *) (acc + 32), (int64_t *) (acc + 40), x * x);
			}
			break;
		case XPU_AGG_VAR_INT8:
			{
				int64_t		x = d->v.i64;

				xpu_acc_add_i128((uint64_t *) (acc + 16), (int64_t *) (acc + 24), x);
				xpu_acc_add_u192((uint64_t *) (acc + 32),
								 (unsigned __int128) ((xpu_int128) x * x));
			}
			break;
		case XPU_AGG_SUM_NUMV:
			{
				xpu_int128	x = 0;

				(void) xpu_agg_numeric_at_scale(a, d, &x);	/* checked by args_fit */
				xpu_atomic_max_i64((int64_t *) (acc + 16), d->scale);
				xpu_acc_add_s192((uint64_t *) (acc + 24), x);
			}
			break;
		default:
			break;
	}
}

/* false when a contributing NUMERIC argument is not exact at its scale */
XPU_FUNC bool
xpu_preagg_args_fit(const xpu_preagg *pa, const xpu_datum *slots)
{
	int			i;

	for (i = 0; i < (int) pa->naggs; i++)
	{
		const XpuAggDesc *a = &pa->aggs[i];
		int64_t		v;
		xpu_int128	w;

		if (a->argtype != XPU_TYPE_NUMERIC || a->kind == XPU_AGG_COUNT ||
			!xpu_agg_contributes(a, slots))
			continue;
		if (a->kind == XPU_AGG_SUM_NUMV
			? !xpu_agg_numeric_at_scale(a, &slots[a->arg], &w)
			: !xpu_agg_numeric_scaled(a, &slots[a->arg], &v))
			return false;
	}
	return true;
}

XPU_FUNC void
xpu_preagg_accumulate(const xpu_preagg *pa, char *entry, const xpu_datum *slots)
{
	int			i;

	for (i = 0; i < (int) pa->naggs; i++)
	{
		const XpuAggDesc *a = &pa->aggs[i];

		if (xpu_agg_contributes(a, slots))
			xpu_acc_update(a, entry + a->offset, slots);
	}
}

/*
 * xpu_acc_combine - fold src, a finished partial of the same group and
 * aggregate (a block's shared-memory entry), into dst.  Integer kinds stay
 * exact.  VAR_FP's partial is relative to its own shift L, dst's to shift G:
 * with d = L - G, the sums relative to G are s1 + n d and
 * s2 + 2 d s1 + n d^2, which is what one pass over the rows at shift G
 * would give up to rounding.
 */
XPU_FUNC void
xpu_acc_combine(const XpuAggDesc *a, char *dst, const char *src)
{
	uint64_t	n = *((const uint64_t *) src);

	if (n == 0)
		return;
	xpu_atomic_add_u64((uint64_t *) dst, n);
	switch (a->kind)
	{
		case XPU_AGG_COUNT:
			break;
		case XPU_AGG_SUM_INT:
			xpu_acc_add_i128w((uint64_t *) (dst + 16), (int64_t *) (dst + 24),
							  *((const uint64_t *) (src + 16)), *((const int64_t *) (src + 24)));
			break;
		case XPU_AGG_SUM_FP:
			xpu_atomic_add_f64((double *) (dst + 8), *((const double *) (src + 8)));
			if (*((const uint64_t *) (src + 16)) != 0)
				xpu_atomic_add_u64((uint64_t *) (dst + 16), *((const uint64_t *) (src + 16)));
			break;
		case XPU_AGG_MIN_INT:
			xpu_atomic_min_i64((int64_t *) (dst + 8), *((const int64_t *) (src + 8)));
			break;
		case XPU_AGG_MAX_INT:
			xpu_atomic_max_i64((int64_t *) (dst + 8), *((const int64_t *) (src + 8)));
			break;
		case XPU_AGG_MIN_FP:
		case XPU_AGG_MAX_FP:
			xpu_acc_minmax_fp((uint64_t *) (dst + 8), *((const double *) (src + 8)),
							  a->kind == XPU_AGG_MAX_FP);
			break;
		case XPU_AGG_VAR_FP:
			{
				double		nd = (double) n;
				double		s1 = *((const double *) (src + 16));
				double		s2 = *((const double *) (src + 24));
				double		d = xpu_dsub(*((const double *) (src + 8)),
										 xpu_bits_to_f8(xpu_ld_cg_u64(dst + 8)));

				xpu_atomic_add_f64((double *) (dst + 16), xpu_dadd(s1, xpu_dmul(nd, d)));
				xpu_atomic_add_f64((double *) (dst + 24),
								   xpu_dadd(xpu_dadd(s2, xpu_dmul(xpu_dmul(2.0, d), s1)),
											xpu_dmul(nd, xpu_dmul(d, d))));
				if (*((const uint64_t *) (src + 32)) != 0)
					xpu_atomic_add_u64((uint64_t *) (dst + 32), *((const uint64_t *) (src + 32)));
			}
			break;
		case XPU_AGG_VAR_INT:
			xpu_acc_add_i128w((uint64_t *) (dst + 16), (int64_t *) (dst + 24),
							  *((const uint64_t *) (src + 16)), *((const int64_t *) (src + 24)));
			xpu_acc_add_i128w((uint64_t *) (dst + 32), (int64_t *) (dst + 40),
							  *((const uint64_t *) (src + 32)), *((const int64_t *) (src + 40)));
			break;
		case XPU_AGG_VAR_INT8:
			xpu_acc_add_i128w((uint64_t *) (dst + 16), (int64_t *) (dst + 24),
							  *((const uint64_t *) (src + 16)), *((const int64_t *) (src + 24)));
			xpu_acc_add_u192w((uint64_t *) (dst + 32), *((const uint64_t *) (src + 32)),
							  *((const uint64_t *) (src + 40)), *((const uint64_t *) (src + 48)));
			break;
		case XPU_AGG_SUM_NUMV:
			xpu_atomic_max_i64((int64_t *) (dst + 16), *((const int64_t *) (src + 16)));
			xpu_acc_add_u192w((uint64_t *) (dst + 24), *((const uint64_t *) (src + 24)),
							  *((const uint64_t *) (src + 32)), *((const uint64_t *) (src + 40)));
			break;
		default:
			break;
	}
}

/* fold every aggregate of the finished partial entry src into dst */
XPU_FUNC void
xpu_preagg_combine(const xpu_preagg *pa, char *dst, const char *src)
{
	int			i;

	for (i = 0; i < (int) pa->naggs; i++)
		xpu_acc_combine(&pa->aggs[i], dst + pa->aggs[i].offset, src + pa->aggs[i].offset);
}

#endif							/* XPU_PREAGG_ACC_H */
