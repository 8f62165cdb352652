/*
 * xpu_gather.h
 *
 * Zero-copy chunks (XPU_BUFFER_SHARED, see pg_strom_xpu.h): the pages a
 * chunk's XpuPageRefs name are read where they lie in PostgreSQL's shared
 * buffers (registered with the device, mapped read-only) and gathered into
 * the chunk's contiguous page area in device memory; each copy then gets
 * its ref applied (pd_lower cut to nlines, invisible line pointers
 * LP_UNUSED), so the scan and preagg kernels see the page image an inline
 * chunk would carry and run unchanged.
 *
 *   extern "C" __global__ void
 *   kern_gather_pages(const char *shared,      // device pointer of buffer 0
 *                     uint64_t nbuffers,       // registered shared buffers
 *                     const XpuPageRef *refs,  // nblocks refs, device memory
 *                     uint32_t nblocks,
 *                     const uint32_t *in_place, // nblocks bits, or NULL
 *                     char *pages)             // nblocks * XPU_BLCKSZ bytes
 *
 * launched with gridDim.x = nblocks (one CUDA block per page) and
 * blockDim.x = XPU_GATHER_THREADS.  A ref the service should have refused
 * (buffer >= nbuffers, nlines or flags out of range) is never followed:
 * its page is written as a malformed header, which the next kernel reports
 * as XPU_STATUS_BAD_PAGE.
 *
 * Block b's page is already in place when bit b of in_place is set (bit
 * b % 32 of word b / 32): the service copied a run of consecutive buffers
 * there by DMA (cuMemcpyHtoDAsync on the same stream, so it completed
 * before the launch), and the kernel only applies the ref.  Reading pages
 * with SM loads takes SMs from the compute kernels of other streams; the
 * copy engines do not.  The service never sets the bit of an invalid ref,
 * and the kernel checks validity first anyway, so such a page is poisoned
 * whatever the bit says.
 *
 * The host executor (gosvc/hostexec) gathers with memcpy and applies the
 * refs with the same helpers.
 */
#ifndef XPU_GATHER_H
#define XPU_GATHER_H

#include "xpu_common.h"
#include "xpu_heap.h"

#define XPU_KERNEL_GATHER		"kern_gather_pages"
#define XPU_GATHER_THREADS		256

/* refs are loaded as 16-byte vectors */
static_assert(sizeof(XpuPageRef) % 16 == 0, "XpuPageRef is not a multiple of 16 bytes");
static_assert(XPU_PAGE_VISIBLE_WORDS * 32 >= XPU_MAX_TUPLES_PER_PAGE, "visible[] too small");

/* does the service accept ref (as xpu.CheckPageRefs)? */
XPU_FUNC bool
xpu_page_ref_valid(const XpuPageRef *ref, uint64_t nbuffers)
{
	return ref->buffer < nbuffers &&
		ref->nlines <= XPU_MAX_TUPLES_PER_PAGE &&
		(ref->flags & ~XPU_PAGE_FLAGS_MASK) == 0 &&
		((ref->flags & XPU_PAGE_STAMPED) == 0 ||
		 (ref->flags & XPU_PAGE_ALL_VISIBLE) != 0);
}

/* is line pointer off (1-based) visible according to ref? */
XPU_FUNC bool
xpu_page_ref_visible(const XpuPageRef *ref, uint32_t off)
{
	if (ref->flags & XPU_PAGE_ALL_VISIBLE)
		return true;
	return (ref->visible[(off - 1) / 32] >> ((off - 1) % 32)) & 1;
}

/*
 * xpu_apply_page_ref - applies a valid ref to the service's copy of its
 * page: pd_lower ends after line pointer nlines, and unless the page is
 * all-visible every one of the first nlines line pointers whose visible bit
 * is clear becomes LP_UNUSED (0, as ItemIdSetUnused).  The line pointers
 * first, first + step, ... are done by this call, so the threads of a CUDA
 * block share a page (first = threadIdx.x, step = blockDim.x) and the host
 * passes 0, 1; the call with first == 0 also sets pd_lower.  A new page
 * (pd_upper 0) keeps counting as empty whatever pd_lower says.
 */
XPU_FUNC void
xpu_apply_page_ref(char *page, const XpuPageRef *ref, uint32_t first, uint32_t step)
{
	uint32_t	nlines = ref->nlines;

	if (first == 0)
		*((uint16_t *) (page + 12)) = (uint16_t) (XPU_SIZE_OF_PAGE_HEADER + 4 * nlines);
	if (ref->flags & XPU_PAGE_ALL_VISIBLE)
		return;
	for (uint32_t i = first; i < nlines; i += step)
	{
		if (!xpu_page_ref_visible(ref, i + 1))
			*((uint32_t *) (page + XPU_SIZE_OF_PAGE_HEADER + 4 * i)) = 0;
	}
}

/*
 * xpu_page_poison - makes page a header no kernel accepts (pd_flags bits
 * outside PD_VALID_FLAG_BITS): the page of a ref that must not be followed.
 */
XPU_FUNC void
xpu_page_poison(char *page)
{
	for (int i = 0; i < XPU_SIZE_OF_PAGE_HEADER; i++)
		page[i] = 0;
	*((uint16_t *) (page + 10)) = 0xffff;	/* pd_flags */
	*((uint16_t *) (page + 14)) = XPU_BLCKSZ;	/* pd_upper: not a new page */
}

#ifdef __CUDACC__

#define XPU_GATHER_VECS		(XPU_BLCKSZ / 16)

extern "C" __global__ void __launch_bounds__(XPU_GATHER_THREADS)
kern_gather_pages(const char *shared,
				  uint64_t nbuffers,
				  const XpuPageRef *refs,
				  uint32_t nblocks,
				  const uint32_t *in_place,
				  char *pages)
{
	__shared__ uint4 s_ref[sizeof(XpuPageRef) / 16];
	const XpuPageRef *ref = (const XpuPageRef *) s_ref;
	const uint32_t tid = threadIdx.x;
	const uint32_t nthreads = blockDim.x;
	const uint32_t b = blockIdx.x;
	char	   *dst;
	const uint4 *src;
	uint4	   *d;

	if (b >= nblocks)
		return;
	dst = pages + (size_t) b * XPU_BLCKSZ;
	if (tid < sizeof(XpuPageRef) / 16)
		s_ref[tid] = ((const uint4 *) (refs + b))[tid];
	__syncthreads();
	if (!xpu_page_ref_valid(ref, nbuffers))
	{
		if (tid == 0)
			xpu_page_poison(dst);
		return;
	}
	if (in_place && ((in_place[b / 32] >> (b % 32)) & 1))
	{
		/* copied by DMA before the launch: only the ref remains to apply */
		xpu_apply_page_ref(dst, ref, tid, nthreads);
		return;
	}

	/*
	 * The page over PCIe, 16 bytes per load and two loads in flight per
	 * thread before their stores (a 256-thread block moves the 8 kB page
	 * in one round).
	 */
	src = (const uint4 *) (shared + (size_t) ref->buffer * XPU_BLCKSZ);
	d = (uint4 *) dst;
	for (uint32_t i = tid; i < XPU_GATHER_VECS; i += 2 * nthreads)
	{
		uint4		v0 = src[i];
		bool		two = i + nthreads < XPU_GATHER_VECS;
		uint4		v1;

		if (two)
			v1 = src[i + nthreads];
		d[i] = v0;
		if (two)
			d[i + nthreads] = v1;
	}
	__syncthreads();			/* the line pointers are in dst */
	xpu_apply_page_ref(dst, ref, tid, nthreads);
}

#endif							/* __CUDACC__ */

#endif							/* XPU_GATHER_H */
