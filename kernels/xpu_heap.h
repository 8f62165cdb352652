/*
 * xpu_heap.h
 *
 * PostgreSQL 15 heap pages (8kB, little-endian): page header and line
 * pointer validation, varlena sizes and the attribute walk of a heap tuple
 * (heap_deform_tuple's rules).
 */
#ifndef XPU_HEAP_H
#define XPU_HEAP_H

#include "xpu_common.h"

/* bufpage.h */
#define XPU_SIZE_OF_PAGE_HEADER		24
#define XPU_PD_VALID_FLAG_BITS		0x0007
#define XPU_LP_UNUSED				0
#define XPU_LP_NORMAL				1
#define XPU_LP_REDIRECT				2
#define XPU_LP_DEAD					3

/* htup_details.h */
#define XPU_SIZEOF_HEAP_TUPLE_HEADER	23
#define XPU_HEAP_NATTS_MASK			0x07FF
#define XPU_HEAP_HASNULL			0x0001

/* varatt.h (postgres.h in 15) */
#define XPU_VARTAG_INDIRECT			1
#define XPU_VARTAG_EXPANDED_RO		2
#define XPU_VARTAG_EXPANDED_RW		3
#define XPU_VARTAG_ONDISK			18
#define XPU_VARHDRSZ_EXTERNAL		2

/*
 * xpu_page_nitems - validate a page header; returns the number of line
 * pointers, 0 for a new (all-zero header) page, or -1 for nonsense.
 */
XPU_FUNC int32_t
xpu_page_nitems(const char *page)
{
	uint16_t	pd_flags = xpu_load_u16(page + 10);
	uint16_t	pd_lower = xpu_load_u16(page + 12);
	uint16_t	pd_upper = xpu_load_u16(page + 14);
	uint16_t	pd_special = xpu_load_u16(page + 16);
	int32_t		n;

	if (pd_upper == 0)
		return 0;				/* PageIsNew: no tuples */
	if ((pd_flags & ~XPU_PD_VALID_FLAG_BITS) != 0 ||
		pd_lower < XPU_SIZE_OF_PAGE_HEADER ||
		pd_lower > pd_upper ||
		pd_upper > pd_special ||
		pd_special > XPU_BLCKSZ ||
		(pd_special & 7) != 0)
		return -1;
	n = (pd_lower - XPU_SIZE_OF_PAGE_HEADER) / 4;
	if (n > XPU_MAX_TUPLES_PER_PAGE)
		return -1;
	return n;
}

/* ItemIdData: lp_off:15, lp_flags:2, lp_len:15 from the least significant bit */
XPU_FUNC uint32_t xpu_lp_off(uint32_t lp)	{ return lp & 0x7fff; }
XPU_FUNC uint32_t xpu_lp_flags(uint32_t lp)	{ return (lp >> 15) & 0x03; }
XPU_FUNC uint32_t xpu_lp_len(uint32_t lp)	{ return (lp >> 17) & 0x7fff; }

/* an LP_NORMAL item must hold a whole, MAXALIGNed tuple inside the page */
XPU_FUNC bool
xpu_lp_normal_is_sane(uint32_t lp)
{
	uint32_t	off = xpu_lp_off(lp);
	uint32_t	len = xpu_lp_len(lp);

	return (off & 7) == 0 &&
		off >= XPU_SIZE_OF_PAGE_HEADER &&
		len >= XPU_SIZEOF_HEAP_TUPLE_HEADER &&
		off + len <= XPU_BLCKSZ;
}

XPU_FUNC int32_t
xpu_align(int32_t off, int32_t align)
{
	return (off + (align - 1)) & ~(align - 1);
}

/*
 * xpu_varsize_any - VARSIZE_ANY of the varlena at p, with avail bytes
 * readable from p.  Returns the size, or -1 when the header is nonsense or
 * the datum runs past avail.  *kind: 0 plain 4-byte header, 1 short
 * (1-byte header), 2 external TOAST pointer, 3 compressed inline.
 */
XPU_FUNC int32_t
xpu_varsize_any(const char *p, int32_t avail, int *kind)
{
	uint8_t		b;
	int32_t		sz;

	if (avail < 1)
		return -1;
	b = (uint8_t) p[0];
	if ((b & 0x01) == 0x01)
	{
		if (b == 0x01)
		{
			uint8_t		tag;

			if (avail < 2)
				return -1;
			tag = (uint8_t) p[1];
			if (tag == XPU_VARTAG_ONDISK)
				sz = XPU_VARHDRSZ_EXTERNAL + 16;
			else if (tag == XPU_VARTAG_INDIRECT ||
					 tag == XPU_VARTAG_EXPANDED_RO ||
					 tag == XPU_VARTAG_EXPANDED_RW)
				sz = XPU_VARHDRSZ_EXTERNAL + 8;
			else
				return -1;
			*kind = 2;
		}
		else
		{
			sz = (b >> 1) & 0x7f;
			*kind = 1;
		}
	}
	else
	{
		uint32_t	w;

		if (avail < 4)
			return -1;
		w = xpu_load_u32(p);
		sz = (int32_t) ((w >> 2) & 0x3FFFFFFF);
		if (sz < 4)
			return -1;
		*kind = ((w & 0x03) == 0x02) ? 3 : 0;
	}
	if (sz > avail)
		return -1;
	return sz;
}

/* line pointer i (0-based) of the page: not LP_NORMAL, or inside the page */
XPU_FUNC bool
xpu_page_lp_sane(const char *page, int i)
{
	uint32_t	lp = xpu_load_u32(page + XPU_SIZE_OF_PAGE_HEADER + 4 * i);

	return xpu_lp_flags(lp) != XPU_LP_NORMAL || xpu_lp_normal_is_sane(lp);
}

/*
 * xpu_item_tuple - the tuple that an item (block index <<
 * XPU_ITEM_BLOCK_SHIFT | line pointer number, no flags: a GpuPreAgg retry
 * item, a GpuJoin cursor's item) names in the chunk's nblocks pages.  The
 * item comes back through the service, so it is checked again rather than
 * trusted: false when it names no sane LP_NORMAL line pointer of a valid
 * page, which the caller reports as XPU_STATUS_BAD_PAGE.  The kernels and
 * the host executor all decode items here, so they accept and reject the
 * same ones.
 */
XPU_FUNC bool
xpu_item_tuple(const char *pages, uint32_t nblocks, uint32_t item,
			   const char **tuple, int32_t *tuple_len)
{
	uint32_t	blk = item >> XPU_ITEM_BLOCK_SHIFT;
	int			lpn = (int) (item & XPU_ITEM_OFFSET_MASK);
	const char *page;
	uint32_t	lp;

	if (blk >= nblocks || lpn < 1)
		return false;
	page = pages + (size_t) blk * XPU_BLCKSZ;
	if (lpn > xpu_page_nitems(page))
		return false;
	lp = xpu_load_u32(page + XPU_SIZE_OF_PAGE_HEADER + 4 * (lpn - 1));
	if (xpu_lp_flags(lp) != XPU_LP_NORMAL || !xpu_lp_normal_is_sane(lp))
		return false;
	*tuple = page + xpu_lp_off(lp);
	*tuple_len = (int32_t) xpu_lp_len(lp);
	return true;
}

#ifdef __CUDACC__
/*
 * xpu_page_lps_sane - every LP_NORMAL line pointer of the page lies inside
 * it.  All threads of the block must call it (it synchronizes them); a bad
 * page is rejected as a whole before any row of it is used.
 */
__device__ static inline bool
xpu_page_lps_sane(const char *page, int nitems)
{
	int			bad = 0;

	for (int i = threadIdx.x; i < nitems; i += blockDim.x)
	{
		if (!xpu_page_lp_sane(page, i))
			bad = 1;
	}
	return !__syncthreads_or(bad);
}

/*
 * xpu_page_checked_nitems - the line pointer count of a page whose header
 * and every LP_NORMAL line pointer are sane, -1 otherwise (the kernel then
 * reports XPU_STATUS_BAD_PAGE).  All threads of the block must call it.
 */
__device__ static inline int
xpu_page_checked_nitems(const char *page)
{
	int			nitems = xpu_page_nitems(page);

	/* the same page for every thread: all return here, or none */
	if (nitems < 0)
		return -1;
	return xpu_page_lps_sane(page, nitems) ? nitems : -1;
}
#endif							/* __CUDACC__ */

#endif							/* XPU_HEAP_H */
