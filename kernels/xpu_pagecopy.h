/*
 * xpu_pagecopy.h
 *
 * The device page cache (XPU_DIRECT_STAMPS in pg_strom_xpu.h): whole 8 kB
 * pages copied between a chunk's page area and the cache's slots, both in
 * device memory, by index pairs.
 *
 *   extern "C" __global__ void
 *   kern_copy_pages(const char *src,        // page 0 of the source
 *                   char *dst,              // page 0 of the destination
 *                   const uint32_t *pairs,  // npairs (source page, destination page)
 *                   uint32_t npairs)
 *
 * launched with gridDim.x = npairs (one CUDA block per page) and
 * blockDim.x = XPU_PAGECOPY_THREADS.  The service launches it twice per
 * chunk that uses the cache, on the chunk's stream after the upload of the
 * pages read from files: slots to page area for the hits, then page area
 * to slots for the fills.  The pairs come from the service's directory,
 * which checked them against the chunk and the cache; the kernel trusts
 * them.
 */
#ifndef XPU_PAGECOPY_H
#define XPU_PAGECOPY_H

#include "xpu_common.h"

#define XPU_KERNEL_COPY_PAGES	"kern_copy_pages"
#define XPU_PAGECOPY_THREADS	256

#ifdef __CUDACC__

extern "C" __global__ void __launch_bounds__(XPU_PAGECOPY_THREADS)
kern_copy_pages(const char *src, char *dst, const uint32_t *pairs, uint32_t npairs)
{
	const uint32_t b = blockIdx.x;
	const uint4 *s;
	uint4	   *d;

	if (b >= npairs)
		return;
	s = (const uint4 *) (src + (size_t) pairs[2 * b] * XPU_BLCKSZ);
	d = (uint4 *) (dst + (size_t) pairs[2 * b + 1] * XPU_BLCKSZ);
	for (uint32_t i = threadIdx.x; i < XPU_BLCKSZ / 16; i += blockDim.x)
		d[i] = s[i];
}

#endif							/* __CUDACC__ */

#endif							/* XPU_PAGECOPY_H */
