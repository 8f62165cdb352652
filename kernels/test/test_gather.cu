/*
 * test_gather.cu - host-side tests of the zero-copy helpers (xpu_gather.h):
 * ref validation, visibility bits, applying a ref to a page copy serially
 * and split among "threads" as the kernel does, and the poisoned page.
 *
 * Built by run.sh with nvcc as host code; no GPU is needed.
 */
#define main test_kernels_main
#include "test_kernels.cu"
#undef main
#include "xpu_gather.h"

/* line pointer off (1-based) of page */
static uint32_t
lp_word(const char *page, int off)
{
	return xpu_load_u32(page + XPU_SIZE_OF_PAGE_HEADER + 4 * (off - 1));
}

/* a heap page with n LP_NORMAL items of 32 bytes each */
static void
make_page(char *page, int n)
{
	uint16_t	lower = XPU_SIZE_OF_PAGE_HEADER + 4 * n;
	uint16_t	upper = XPU_BLCKSZ - 32 * n;
	uint16_t	special = XPU_BLCKSZ;

	memset(page, 0, XPU_BLCKSZ);
	memcpy(page + 12, &lower, 2);
	memcpy(page + 14, &upper, 2);
	memcpy(page + 16, &special, 2);
	for (int i = 0; i < n; i++)
	{
		uint32_t	lp = (uint32_t) (upper + 32 * i) | (XPU_LP_NORMAL << 15) | (32u << 17);

		memcpy(page + XPU_SIZE_OF_PAGE_HEADER + 4 * i, &lp, 4);
	}
}

static XpuPageRef
ref_of(uint32_t buffer, int nlines, uint16_t flags)
{
	XpuPageRef	r;

	memset(&r, 0, sizeof(r));
	r.buffer = buffer;
	r.nlines = (uint16_t) nlines;
	r.flags = flags;
	return r;
}

static void
set_visible(XpuPageRef *r, int off)
{
	r->visible[(off - 1) / 32] |= 1u << ((off - 1) % 32);
}

static void
test_valid(void)
{
	XpuPageRef	r = ref_of(9, XPU_MAX_TUPLES_PER_PAGE, XPU_PAGE_ALL_VISIBLE);

	CHECK(xpu_page_ref_valid(&r, 10));
	CHECK(!xpu_page_ref_valid(&r, 9));
	r.nlines = XPU_MAX_TUPLES_PER_PAGE + 1;
	CHECK(!xpu_page_ref_valid(&r, 10));
	r = ref_of(0, 0, 0x0002);
	CHECK(!xpu_page_ref_valid(&r, 1));
	r = ref_of(0, 0, 0);
	CHECK(xpu_page_ref_valid(&r, 1));
}

static void
test_visible_bits(void)
{
	XpuPageRef	r = ref_of(0, XPU_MAX_TUPLES_PER_PAGE, 0);

	set_visible(&r, 1);
	set_visible(&r, 32);
	set_visible(&r, 33);
	set_visible(&r, XPU_MAX_TUPLES_PER_PAGE);
	CHECK(r.visible[0] == 0x80000001u && r.visible[1] == 1u);
	CHECK(xpu_page_ref_visible(&r, 1) && xpu_page_ref_visible(&r, 32) && xpu_page_ref_visible(&r, 33));
	CHECK(!xpu_page_ref_visible(&r, 2) && !xpu_page_ref_visible(&r, 31) && !xpu_page_ref_visible(&r, 34));
	CHECK(xpu_page_ref_visible(&r, XPU_MAX_TUPLES_PER_PAGE));
	CHECK(!xpu_page_ref_visible(&r, XPU_MAX_TUPLES_PER_PAGE - 1));
	r.flags = XPU_PAGE_ALL_VISIBLE;
	CHECK(xpu_page_ref_visible(&r, 2));
}

static void
test_apply(void)
{
	static char page[XPU_BLCKSZ], split[XPU_BLCKSZ], orig[XPU_BLCKSZ];
	XpuPageRef	r;

	/* nlines cuts what a page grew after the backend looked */
	make_page(orig, 50);
	memcpy(page, orig, XPU_BLCKSZ);
	r = ref_of(0, 40, XPU_PAGE_ALL_VISIBLE);
	xpu_apply_page_ref(page, &r, 0, 1);
	CHECK(xpu_load_u16(page + 12) == XPU_SIZE_OF_PAGE_HEADER + 4 * 40);
	CHECK(xpu_page_nitems(page) == 40);
	CHECK(memcmp(page + 14, orig + 14, XPU_BLCKSZ - 14) == 0);	/* nothing else */
	CHECK(memcmp(page, orig, 12) == 0);

	/* visibility: only 1, 7, 33 and 40 stay */
	memcpy(page, orig, XPU_BLCKSZ);
	r = ref_of(0, 40, 0);
	set_visible(&r, 1);
	set_visible(&r, 7);
	set_visible(&r, 33);
	set_visible(&r, 40);
	xpu_apply_page_ref(page, &r, 0, 1);
	CHECK(xpu_page_nitems(page) == 40);
	for (int off = 1; off <= 50; off++)
	{
		bool		keep = off == 1 || off == 7 || off == 33 || off == 40 || off > 40;

		if (keep)
			CHECK(lp_word(page, off) == lp_word(orig, off));
		else
			CHECK(lp_word(page, off) == 0 && xpu_lp_flags(lp_word(page, off)) == XPU_LP_UNUSED);
	}

	/* split among 256 "threads" as the kernel runs it: the same bytes */
	memcpy(split, orig, XPU_BLCKSZ);
	for (uint32_t t = 0; t < XPU_GATHER_THREADS; t++)
		xpu_apply_page_ref(split, &r, t, XPU_GATHER_THREADS);
	CHECK(memcmp(split, page, XPU_BLCKSZ) == 0);

	/* no visible bit at all, and nlines 0 */
	memcpy(page, orig, XPU_BLCKSZ);
	r = ref_of(0, 50, 0);
	xpu_apply_page_ref(page, &r, 0, 1);
	for (int off = 1; off <= 50; off++)
		CHECK(lp_word(page, off) == 0);
	memcpy(page, orig, XPU_BLCKSZ);
	r = ref_of(0, 0, 0);
	xpu_apply_page_ref(page, &r, 0, 1);
	CHECK(xpu_page_nitems(page) == 0);

	/* a new page stays empty */
	memset(page, 0, XPU_BLCKSZ);
	r = ref_of(0, 0, XPU_PAGE_ALL_VISIBLE);
	xpu_apply_page_ref(page, &r, 0, 1);
	CHECK(xpu_page_nitems(page) == 0);

	/* a full page */
	make_page(orig, XPU_MAX_TUPLES_PER_PAGE - 60);
	memcpy(page, orig, XPU_BLCKSZ);
	r = ref_of(0, XPU_MAX_TUPLES_PER_PAGE - 60, 0);
	set_visible(&r, XPU_MAX_TUPLES_PER_PAGE - 60);
	xpu_apply_page_ref(page, &r, 0, 1);
	CHECK(lp_word(page, XPU_MAX_TUPLES_PER_PAGE - 60) == lp_word(orig, XPU_MAX_TUPLES_PER_PAGE - 60));
	CHECK(lp_word(page, XPU_MAX_TUPLES_PER_PAGE - 61) == 0);
}

static void
test_poison(void)
{
	static char page[XPU_BLCKSZ];

	make_page(page, 10);
	xpu_page_poison(page);
	CHECK(xpu_page_nitems(page) == -1);
	memset(page, 0, XPU_BLCKSZ);
	xpu_page_poison(page);
	CHECK(xpu_page_nitems(page) == -1);
}

int
gather_tests(int argc, char **argv)
{
	test_valid();
	test_visible_bits();
	test_apply();
	test_poison();
	printf("gather: %d passed, %d failed\n", npassed, nfailed);
	return nfailed == 0 ? 0 : 1;
}

#ifndef TEST_GATHER_NO_MAIN
int
main(int argc, char **argv)
{
	return gather_tests(argc, argv);
}
#endif
