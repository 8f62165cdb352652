/*
 * xpu_atomic.h
 *
 * Memory operations on memory that other threads write at the same time:
 * device atomics, cache-global loads and fences in device code, plain
 * operations on the host, so kernels/test/ and the host executor can run
 * the same helpers serially.  Also the kernels' status report
 * (xpu_set_status), an atomic on the launch's counters.
 */
#ifndef XPU_ATOMIC_H
#define XPU_ATOMIC_H

#include "xpu_common.h"

XPU_FUNC uint32_t
xpu_atomic_add_u32(uint32_t *p, uint32_t v)
{
#ifdef __CUDA_ARCH__
	return atomicAdd((unsigned int *) p, (unsigned int) v);
#else
	uint32_t	old = *p;

	*p = old + v;
	return old;
#endif
}

XPU_FUNC uint64_t
xpu_atomic_add_u64(uint64_t *p, uint64_t v)
{
#ifdef __CUDA_ARCH__
	return atomicAdd((unsigned long long *) p, (unsigned long long) v);
#else
	uint64_t	old = *p;

	*p = old + v;
	return old;
#endif
}

XPU_FUNC uint32_t
xpu_atomic_cas_u32(uint32_t *p, uint32_t cmp, uint32_t val)
{
#ifdef __CUDA_ARCH__
	return atomicCAS((unsigned int *) p, (unsigned int) cmp, (unsigned int) val);
#else
	uint32_t	old = *p;

	if (old == cmp)
		*p = val;
	return old;
#endif
}

XPU_FUNC uint64_t
xpu_atomic_cas_u64(uint64_t *p, uint64_t cmp, uint64_t val)
{
#ifdef __CUDA_ARCH__
	return atomicCAS((unsigned long long *) p, (unsigned long long) cmp,
					 (unsigned long long) val);
#else
	uint64_t	old = *p;

	if (old == cmp)
		*p = val;
	return old;
#endif
}

XPU_FUNC void
xpu_atomic_min_i64(int64_t *p, int64_t v)
{
#ifdef __CUDA_ARCH__
	atomicMin((long long *) p, (long long) v);
#else
	if (v < *p)
		*p = v;
#endif
}

XPU_FUNC void
xpu_atomic_max_i64(int64_t *p, int64_t v)
{
#ifdef __CUDA_ARCH__
	atomicMax((long long *) p, (long long) v);
#else
	if (v > *p)
		*p = v;
#endif
}

/*
 * Loads of table memory that other threads write during the kernel.  A
 * device table is read through L2 only, since an SM's L1 is not coherent and
 * may hold a line of a neighbouring entry from before the entry was filled.
 * The loads use generic addressing (ld.relaxed.gpu, which bypasses L1 like
 * ld.global.cg) because the same find-or-insert code also runs over a
 * block's table in shared memory (xpu_preagg_local.h).
 */
XPU_FUNC uint32_t
xpu_ld_cg_u32(const void *p)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
	uint32_t	v;

	asm volatile("ld.relaxed.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p));
	return v;
#elif defined(__CUDA_ARCH__)
	return *((const volatile uint32_t *) p);
#else
	return *((const uint32_t *) p);
#endif
}

XPU_FUNC uint64_t
xpu_ld_cg_u64(const void *p)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
	uint64_t	v;

	asm volatile("ld.relaxed.gpu.u64 %0, [%1];" : "=l"(v) : "l"(p));
	return v;
#elif defined(__CUDA_ARCH__)
	return *((const volatile uint64_t *) p);
#else
	return *((const uint64_t *) p);
#endif
}

/* a hash slot: acquire, so the entry it links to is seen filled (generic
 * addressing, as above) */
XPU_FUNC uint32_t
xpu_ld_acquire_u32(const uint32_t *p)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
	uint32_t	v;

	asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
	return v;
#elif defined(__CUDA_ARCH__)
	uint32_t	v = *((const volatile uint32_t *) p);

	__threadfence();
	return v;
#else
	return *p;
#endif
}

XPU_FUNC void
xpu_fence(void)
{
#ifdef __CUDA_ARCH__
	__threadfence();
#endif
}

XPU_FUNC void
xpu_atomic_add_f64(double *p, double v)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 600
	atomicAdd(p, v);
#elif defined(__CUDA_ARCH__)
	unsigned long long *u = (unsigned long long *) p;
	unsigned long long old = *u;
	unsigned long long prev;

	do
	{
		prev = old;
		old = atomicCAS(u, prev, __double_as_longlong(__longlong_as_double(prev) + v));
	} while (old != prev);
#else
	*p = xpu_dadd(*p, v);
#endif
}

#ifdef __CUDACC__

/* counters[XPU_COUNTER_STATUS] of a launch; every kernel reports through it */
__device__ static inline void
xpu_set_status(uint32_t *counters, uint32_t status)
{
	/* the first problem reported wins */
	atomicCAS(&counters[XPU_COUNTER_STATUS], XPU_STATUS_OK, status);
}

#endif							/* __CUDACC__ */

#endif							/* XPU_ATOMIC_H */
