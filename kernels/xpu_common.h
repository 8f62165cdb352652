/*
 * xpu_common.h
 *
 * Common definitions of the device code: function qualifiers, unaligned
 * loads, the per-node evaluation slot, 128-bit helpers and rounding-exact
 * float arithmetic.
 *
 * Every helper is __host__ __device__ so that kernels/test/ can compile the
 * pure functions into a host program and check them against known answers.
 */
#ifndef XPU_COMMON_H
#define XPU_COMMON_H

#include <stdint.h>
#include "pg_strom_xpu.h"
#include "pg_strom_proto.h"

#ifdef __CUDACC__
#define XPU_FUNC		__host__ __device__ __forceinline__
#define XPU_NOINLINE	__host__ __device__ __noinline__
#else
#define XPU_FUNC		static inline
/* a host build may use only some of them (the host executor: no fused join) */
#define XPU_NOINLINE	static __attribute__((unused))
#endif

/*
 * The most nodes a program may have on this device.  Each thread keeps one
 * xpu_datum (32 bytes) per node in local memory: 128 slots are 4kB of stack
 * per thread.  The code generator must not produce larger programs; the
 * kernel answers XPU_STATUS_BAD_PROGRAM for them.
 */
#define XPU_GPUSCAN_MAX_SLOTS	XPU_GPUSCAN_MAX_NODES

typedef __int128 xpu_int128;

/*
 * One evaluated value.  Which member of v is valid depends on the node's
 * restype:
 *   BOOL, INT2, INT4, INT8, DATE, TIMESTAMP, TIMESTAMPTZ: i64 (sign-extended)
 *   FLOAT4: f4;  FLOAT8: f8
 *   NUMERIC: num, with scale (value = num * 10^-scale, |num| < 10^38)
 *   TEXT, VARCHAR, BPCHAR: s.ptr/s.len (the bytes, no header)
 */
typedef struct xpu_datum
{
	union
	{
		int64_t		i64;
		double		f8;
		float		f4;
		xpu_int128	num;
		struct
		{
			const char *ptr;
			int32_t		len;
		}			s;
	}			v;
	int32_t		scale;
	int32_t		isnull;
} xpu_datum;

/* the scratch regions of XPU_SCRATCH_BYTES are counted in these slots */
static_assert(sizeof(xpu_datum) == XPU_EVAL_SLOT_BYTES, "xpu_datum is one evaluation slot");

/* ---- unaligned little-endian loads ---- */
XPU_FUNC uint16_t
xpu_load_u16(const char *p)
{
	const uint8_t *b = (const uint8_t *) p;

	if (((uintptr_t) p & 1) == 0)
		return *((const uint16_t *) p);
	return (uint16_t) (b[0] | (b[1] << 8));
}

XPU_FUNC uint32_t
xpu_load_u32(const char *p)
{
	const uint8_t *b = (const uint8_t *) p;

	if (((uintptr_t) p & 3) == 0)
		return *((const uint32_t *) p);
	return ((uint32_t) b[0]) | ((uint32_t) b[1] << 8) |
		((uint32_t) b[2] << 16) | ((uint32_t) b[3] << 24);
}

XPU_FUNC uint64_t
xpu_load_u64(const char *p)
{
	if (((uintptr_t) p & 7) == 0)
		return *((const uint64_t *) p);
	return (uint64_t) xpu_load_u32(p) | ((uint64_t) xpu_load_u32(p + 4) << 32);
}

XPU_FUNC float
xpu_bits_to_f4(uint32_t u)
{
	union { uint32_t u; float f; } x;

	x.u = u;
	return x.f;
}

XPU_FUNC double
xpu_bits_to_f8(uint64_t u)
{
	union { uint64_t u; double f; } x;

	x.u = u;
	return x.f;
}

/* ---- classification that never depends on fast-math ---- */
XPU_FUNC bool
xpu_isnan4(float f)
{
	return f != f;
}

XPU_FUNC bool
xpu_isnan8(double f)
{
	return f != f;
}

XPU_FUNC bool
xpu_isinf4(float f)
{
	union { float f; uint32_t u; } x;

	x.f = f;
	return (x.u & 0x7fffffffU) == 0x7f800000U;
}

XPU_FUNC bool
xpu_isinf8(double f)
{
	union { double f; uint64_t u; } x;

	x.f = f;
	return (x.u & 0x7fffffffffffffffULL) == 0x7ff0000000000000ULL;
}

/*
 * IEEE round-to-nearest arithmetic that the compiler may never contract
 * into an FMA, whatever -fmad says (PostgreSQL's float4pl etc. round after
 * every operation).
 */
#ifdef __CUDA_ARCH__
#define xpu_fadd(a, b)	__fadd_rn((a), (b))
#define xpu_fsub(a, b)	__fsub_rn((a), (b))
#define xpu_fmul(a, b)	__fmul_rn((a), (b))
#define xpu_fdiv(a, b)	__fdiv_rn((a), (b))
#define xpu_dadd(a, b)	__dadd_rn((a), (b))
#define xpu_dsub(a, b)	__dsub_rn((a), (b))
#define xpu_dmul(a, b)	__dmul_rn((a), (b))
#define xpu_ddiv(a, b)	__ddiv_rn((a), (b))
#define xpu_rint8(x)	rint(x)
#define xpu_rint4(x)	rintf(x)
#else
#include <math.h>
XPU_FUNC float xpu_fadd(float a, float b) { volatile float r = a + b; return r; }
XPU_FUNC float xpu_fsub(float a, float b) { volatile float r = a - b; return r; }
XPU_FUNC float xpu_fmul(float a, float b) { volatile float r = a * b; return r; }
XPU_FUNC float xpu_fdiv(float a, float b) { volatile float r = a / b; return r; }
XPU_FUNC double xpu_dadd(double a, double b) { volatile double r = a + b; return r; }
XPU_FUNC double xpu_dsub(double a, double b) { volatile double r = a - b; return r; }
XPU_FUNC double xpu_dmul(double a, double b) { volatile double r = a * b; return r; }
XPU_FUNC double xpu_ddiv(double a, double b) { volatile double r = a / b; return r; }
#define xpu_rint8(x)	rint(x)
#define xpu_rint4(x)	rintf(x)
#endif

/*
 * The same operations overloaded by type, so float4 and float8 arithmetic
 * share one template (xpu_float_arith).
 */
XPU_FUNC bool xpu_isinf(float f) { return xpu_isinf4(f); }
XPU_FUNC bool xpu_isinf(double f) { return xpu_isinf8(f); }
XPU_FUNC float xpu_add_rn(float a, float b) { return xpu_fadd(a, b); }
XPU_FUNC double xpu_add_rn(double a, double b) { return xpu_dadd(a, b); }
XPU_FUNC float xpu_sub_rn(float a, float b) { return xpu_fsub(a, b); }
XPU_FUNC double xpu_sub_rn(double a, double b) { return xpu_dsub(a, b); }
XPU_FUNC float xpu_mul_rn(float a, float b) { return xpu_fmul(a, b); }
XPU_FUNC double xpu_mul_rn(double a, double b) { return xpu_dmul(a, b); }
XPU_FUNC float xpu_div_rn(float a, float b) { return xpu_fdiv(a, b); }
XPU_FUNC double xpu_div_rn(double a, double b) { return xpu_ddiv(a, b); }
XPU_FUNC float xpu_fabs(float a) { return fabsf(a); }
XPU_FUNC double xpu_fabs(double a) { return fabs(a); }
XPU_FUNC float xpu_floor(float a) { return floorf(a); }
XPU_FUNC double xpu_floor(double a) { return floor(a); }
XPU_FUNC float xpu_ceil(float a) { return ceilf(a); }
XPU_FUNC double xpu_ceil(double a) { return ceil(a); }
XPU_FUNC float xpu_rint(float a) { return xpu_rint4(a); }
XPU_FUNC double xpu_rint(double a) { return xpu_rint8(a); }
XPU_FUNC float xpu_trunc(float a) { return truncf(a); }
XPU_FUNC double xpu_trunc(double a) { return trunc(a); }

/* ---- 128-bit helpers ---- */

/* |value| of a device NUMERIC must stay below 10^38 */
XPU_FUNC uint64_t
xpu_pow10_u64(int k)
{
	uint64_t	r = 1;

	/* k <= 19: a short loop the compiler unrolls well enough */
	while (k-- > 0)
		r *= 10;
	return r;
}

/* 10^k for 0 <= k <= 38 */
XPU_FUNC xpu_int128
xpu_pow10_i128(int k)
{
	if (k <= 19)
		return (xpu_int128) xpu_pow10_u64(k);
	return (xpu_int128) xpu_pow10_u64(19) * (xpu_int128) xpu_pow10_u64(k - 19);
}

#define XPU_NUMERIC_MAX_DIGITS	38
/* 10^38 - 1 */
XPU_FUNC xpu_int128
xpu_numeric_bound(void)
{
	return xpu_pow10_i128(38) - 1;
}

XPU_FUNC xpu_int128
xpu_abs128(xpu_int128 v)
{
	return v < 0 ? -v : v;
}

/* a + b within the numeric bound; false on overflow */
XPU_FUNC bool
xpu_add128(xpu_int128 a, xpu_int128 b, xpu_int128 *r)
{
	xpu_int128	bound = xpu_numeric_bound();

	/*
	 * bound = 10^38 - 1 > 2^126: a + b of two values within it can exceed
	 * 2^127 (signed overflow, undefined), so compare before adding.
	 */
	if (xpu_abs128(a) > bound || xpu_abs128(b) > bound)
		return false;
	if ((b > 0 && a > bound - b) || (b < 0 && a < -bound - b))
		return false;
	*r = a + b;
	return true;
}

/* a * b within the numeric bound; false on overflow */
XPU_FUNC bool
xpu_mul128(xpu_int128 a, xpu_int128 b, xpu_int128 *r)
{
	xpu_int128	bound = xpu_numeric_bound();
	xpu_int128	aa = xpu_abs128(a);
	xpu_int128	ab = xpu_abs128(b);

	if (aa > bound || ab > bound)
		return false;
	if (aa == 0 || ab == 0)
	{
		*r = 0;
		return true;
	}
	if (aa > bound / ab)
		return false;
	*r = a * b;
	return true;
}

/* v * 10^k within the numeric bound (k >= 0); false on overflow */
XPU_FUNC bool
xpu_scale_up128(xpu_int128 v, int32_t k, xpu_int128 *r)
{
	if (v == 0)
	{
		*r = 0;
		return true;
	}
	if (k < 0 || k > XPU_NUMERIC_MAX_DIGITS)
		return false;
	return xpu_mul128(v, xpu_pow10_i128(k), r);
}

#endif							/* XPU_COMMON_H */
