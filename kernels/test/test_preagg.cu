/*
 * test_preagg.cu - host-side tests of the GpuPreAgg device helpers: key
 * normalization, hashing and equality, the accumulator arithmetic, the
 * descriptor validation, and whole find-or-insert / accumulate / retry /
 * rehash runs over the vectors.txt page checked against a reference
 * computed independently from the interpreter's slots.
 *
 * Built by run.sh with nvcc as host code; no GPU is needed.
 */
#define main test_kernels_main
#include "test_kernels.cu"
#undef main
#include "xpu_preagg.h"
#include <math.h>
#include <algorithm>

/* ------------------------------------------------------------------ */
/* keys                                                                */
/* ------------------------------------------------------------------ */
static xpu_datum
d_i64(int64_t v)
{
	xpu_datum d;
	memset(&d, 0, sizeof(d));
	d.v.i64 = v;
	return d;
}

static xpu_datum
d_f8(double v)
{
	xpu_datum d;
	memset(&d, 0, sizeof(d));
	d.v.f8 = v;
	return d;
}

static xpu_datum
d_f4(float v)
{
	xpu_datum d;
	memset(&d, 0, sizeof(d));
	d.v.f4 = v;
	return d;
}

static xpu_datum
d_num(xpu_int128 v, int32_t scale)
{
	xpu_datum d;
	memset(&d, 0, sizeof(d));
	d.v.num = v;
	d.scale = scale;
	return d;
}

static xpu_datum
d_str(const char *s)
{
	xpu_datum d;
	memset(&d, 0, sizeof(d));
	d.v.s.ptr = s;
	d.v.s.len = (int32_t) strlen(s);
	return d;
}

static xpu_datum
d_null(void)
{
	xpu_datum d;
	memset(&d, 0, sizeof(d));
	d.isnull = 1;
	return d;
}

/* a and b group together: same hash, and each equals the other's slot */
static bool
same_group(int t, xpu_datum a, xpu_datum b)
{
	alignas(16) char sa[272];
	alignas(16) char sb[272];

	memset(sa, 0, sizeof(sa));
	memset(sb, 0, sizeof(sb));
	xpu_key_store(t, sa, &a);
	xpu_key_store(t, sb, &b);
	bool eq1 = xpu_key_equal(t, sa, &b);
	bool eq2 = xpu_key_equal(t, sb, &a);
	bool eqa = xpu_key_equal(t, sa, &a);
	bool heq = xpu_hash_key(1, t, &a) == xpu_hash_key(1, t, &b);

	if (!eqa || eq1 != eq2 || (eq1 && !heq))
	{
		fprintf(stderr, "FAIL inconsistent key ops type %d: self %d eq %d/%d hash %d\n",
				t, eqa, eq1, eq2, heq);
		nfailed++;
	}
	return eq1;
}

static double
nan_payload(uint64_t payload, bool neg)
{
	union { uint64_t u; double f; } x;
	x.u = 0x7ff0000000000000ULL | (payload & 0xfffffffffffffULL) | (neg ? 0x8000000000000000ULL : 0);
	return x.f;
}

static float
nan_payload4(uint32_t payload, bool neg)
{
	union { uint32_t u; float f; } x;
	x.u = 0x7f800000U | (payload & 0x7fffffU) | (neg ? 0x80000000U : 0);
	return x.f;
}

static void
test_keys(void)
{
	xpu_int128 e37 = xpu_pow10_i128(37);

	CHECK(same_group(F8, d_f8(0.0), d_f8(-0.0)));
	CHECK(same_group(F8, d_f8(nan_payload(1, false)), d_f8(nan_payload(0x8000000000000ULL | 77, true))));
	CHECK(same_group(F8, d_f8(0.0 / 0.0), d_f8(nan_payload(12345, false))));
	CHECK(!same_group(F8, d_f8(0.0 / 0.0), d_f8(1.0 / 0.0)));
	CHECK(!same_group(F8, d_f8(1.0), d_f8(1.0000000000000002)));
	CHECK(same_group(F4, d_f4(0.0f), d_f4(-0.0f)));
	CHECK(same_group(F4, d_f4(nan_payload4(1, true)), d_f4(nan_payload4(0x400000, false))));
	CHECK(!same_group(F4, d_f4(1.5f), d_f4(-1.5f)));
	CHECK(same_group(NUM, d_num(10, 1), d_num(100, 2)));
	CHECK(same_group(NUM, d_num(1, 0), d_num(1000000, 6)));
	CHECK(same_group(NUM, d_num(0, 0), d_num(0, 7)));
	CHECK(same_group(NUM, d_num(-150, 2), d_num(-15, 1)));
	CHECK(!same_group(NUM, d_num(150, 2), d_num(-15, 1)));
	CHECK(!same_group(NUM, d_num(1, 0), d_num(11, 1)));
	CHECK(!same_group(NUM, d_num(1, 0), d_num(1, 1)));
	/* beyond 64 bits: 10^37 * 10^-30 = 10^7 = 10^8 * 10^-1 */
	CHECK(same_group(NUM, d_num(e37, 30), d_num(100000000, 1)));
	CHECK(same_group(NUM, d_num(-e37 * 3, 38), d_num(-3, 1)));
	CHECK(!same_group(NUM, d_num(e37 + 1, 37), d_num(1, 0)));
	/* scales far beyond the digits: value 0 or tiny */
	CHECK(same_group(NUM, d_num(5, 900), d_num(50, 901)));
	CHECK(same_group(BPCHAR, d_str("a"), d_str("a  ")));
	CHECK(same_group(BPCHAR, d_str(""), d_str("    ")));
	CHECK(same_group(BPCHAR, d_str("ab c "), d_str("ab c")));
	CHECK(!same_group(BPCHAR, d_str("ab c"), d_str("ab")));
	CHECK(!same_group(BPCHAR, d_str(" a"), d_str("a")));
	CHECK(!same_group(TEXT, d_str("a"), d_str("a ")));
	CHECK(same_group(TEXT, d_str("0123456789abcdefX"), d_str("0123456789abcdefX")));
	CHECK(!same_group(TEXT, d_str("0123456789abcdefX"), d_str("0123456789abcdefY")));
	CHECK(!same_group(VARCHAR, d_str(""), d_null()));
	CHECK(same_group(VARCHAR, d_null(), d_null()));
	CHECK(!same_group(I8, d_i64(0), d_null()));
	CHECK(same_group(I8, d_i64(INT64_MIN), d_i64(INT64_MIN)));
	CHECK(!same_group(I8, d_i64(INT64_MIN), d_i64(INT64_MAX)));
	CHECK(!same_group(BOOL, d_i64(0), d_i64(1)));

	/* the slot encoding of the contract */
	alignas(16) char s[64];
	memset(s, 0, sizeof(s));
	xpu_datum n = d_num(-12345, 3);
	xpu_key_store(NUM, s, &n);
	int32_t sc;
	int64_t lo, hi;
	memcpy(&sc, s + 4, 4);
	memcpy(&lo, s + 16, 8);
	memcpy(&hi, s + 24, 8);
	CHECK(s[0] == 0 && sc == 3 && lo == -12345 && hi == -1);
	memset(s, 0, sizeof(s));
	xpu_datum t = d_str("ab  ");
	xpu_key_store(BPCHAR, s, &t);
	int32_t len;
	memcpy(&len, s + 4, 4);
	CHECK(len == 4 && memcmp(s + 8, "ab  ", 4) == 0 && s[12] == 0);
	memset(s, 0, sizeof(s));
	xpu_datum nl = d_null();
	xpu_key_store(I4, s, &nl);
	CHECK(s[0] == 1 && s[8] == 0);
	memset(s, 0, sizeof(s));
	xpu_datum m = d_i64(-2);
	xpu_key_store(I2, s, &m);
	memcpy(&lo, s + 8, 8);
	CHECK(s[0] == 0 && lo == -2);

	/* numeric normalization */
	xpu_int128 v = 1200;
	int32_t vs = 3;
	xpu_numeric_normalize(&v, &vs);
	CHECK(v == 12 && vs == 1);
	v = 1200;
	vs = 0;
	xpu_numeric_normalize(&v, &vs);
	CHECK(v == 1200 && vs == 0);
	v = e37 * 7;
	vs = 40;
	xpu_numeric_normalize(&v, &vs);
	CHECK(v == 7 && vs == 3);

	/* text key that does not fit its slot */
	xpu_preagg pa;
	memset(&pa, 0, sizeof(pa));
	pa.nkeys = 1;
	pa.keys[0].node = 0;
	pa.keys[0].xtype = TEXT;
	pa.keys[0].width = 16;
	xpu_datum sl[1];
	sl[0] = d_str("12345678");
	CHECK(xpu_preagg_keys_fit(&pa, sl));
	sl[0] = d_str("123456789");
	CHECK(!xpu_preagg_keys_fit(&pa, sl));
	sl[0] = d_null();
	CHECK(xpu_preagg_keys_fit(&pa, sl));
}

/* ------------------------------------------------------------------ */
/* accumulators                                                        */
/* ------------------------------------------------------------------ */
#define TEST_RNG_SEED 0x9e3779b97f4a7c15ULL
static uint64_t rng_state = TEST_RNG_SEED;

static uint64_t
rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void
test_int128(void)
{
	static const int64_t special[] = {
		INT64_MIN, INT64_MAX, -1, 0, 1, INT64_MIN + 1, INT64_MAX - 1, (int64_t) 1 << 62, -((int64_t) 1 << 62)
	};

	for (int round = 0; round < 6; round++)
	{
		uint64_t lo = 0;
		int64_t hi = 0;
		xpu_int128 ref = 0;

		if (round == 1)
		{
			/* start right below a carry */
			lo = UINT64_MAX - 3;
			hi = 5;
			ref = ((xpu_int128) 5 << 64) + (xpu_int128) (UINT64_MAX - 3);
		}
		for (int i = 0; i < 200000; i++)
		{
			int64_t v;
			uint64_t r = rng();

			switch (round)
			{
				case 2: v = special[r % 2]; break;			/* only the extremes */
				case 3: v = INT64_MIN; break;
				case 4: v = INT64_MAX; break;
				default:
					if (r % 5 == 0)
						v = special[(r >> 8) % (sizeof(special) / sizeof(special[0]))];
					else if (r % 5 == 1)
						v = (int64_t) (r >> 40) - (1 << 23);	/* small */
					else
						v = (int64_t) rng();
					break;
			}
			xpu_acc_add_i128(&lo, &hi, v);
			ref += v;
		}
		xpu_int128 got = (xpu_int128) (((unsigned __int128) (uint64_t) hi << 64) | lo);
		if (got != ref)
			fprintf(stderr, "FAIL int128 round %d: hi %lld lo %llu\n", round,
					(long long) hi, (unsigned long long) lo);
		CHECK(got == ref);
	}

	/* VAR_INT's square of an INT4 fits an int64 */
	int64_t x = INT32_MIN;
	CHECK(x * x == ((int64_t) 1 << 62));

	/*
	 * VAR_INT8's 192-bit sum of squares against a reference kept as
	 * (uint128 low part, uint64 high part), including INT64_MIN/MAX whose
	 * squares fill the low 126 bits.
	 */
	for (int round = 0; round < 4; round++)
	{
		uint64_t	w[3] = {0, 0, 0};
		unsigned __int128 ref_lo = 0;
		uint64_t	ref_hi = 0;

		for (int i = 0; i < 200000; i++)
		{
			int64_t		v = (round == 0) ? INT64_MIN :
				(round == 1) ? INT64_MAX :
				(i % 3 == 0) ? INT64_MIN + (int64_t) (rng() % 1000) : (int64_t) rng();
			unsigned __int128 sq = (unsigned __int128) ((xpu_int128) v * v);

			xpu_acc_add_u192(w, sq);
			ref_lo += sq;
			ref_hi += (ref_lo < sq);
		}
		unsigned __int128 got_lo = ((unsigned __int128) w[1] << 64) | w[0];
		if (got_lo != ref_lo || w[2] != ref_hi)
			fprintf(stderr, "FAIL u192 round %d: w2 %llu\n", round, (unsigned long long) w[2]);
		CHECK(got_lo == ref_lo && w[2] == ref_hi);
	}
}

static double
acc_f8(const char *acc, int off)
{
	double v;
	memcpy(&v, acc + off, 8);
	return v;
}

static uint64_t
acc_u64(const char *acc, int off)
{
	uint64_t v;
	memcpy(&v, acc + off, 8);
	return v;
}

/* min and max over vals with XpuAggDesc kind MIN_FP / MAX_FP on slot 0 */
static double
minmax_of(int kind, const std::vector<double> &vals, uint64_t *n)
{
	alignas(16) char acc[16];
	XpuAggDesc a;
	xpu_datum sl[1];

	memset(acc, 0, sizeof(acc));
	memset(&a, 0, sizeof(a));
	a.kind = kind;
	a.argtype = F8;
	a.arg = 0;
	a.filter = -1;
	sl[0] = d_f8(0);
	xpu_acc_init(&a, acc, sl);
	for (double x : vals)
	{
		sl[0] = d_f8(x);
		xpu_acc_update(&a, acc, sl);
	}
	*n = acc_u64(acc, 0);
	return acc_f8(acc, 8);
}

static void
test_minmax(void)
{
	double inf = 1.0 / 0.0, nan = 0.0 / 0.0;
	uint64_t n;
	double r;

	r = minmax_of(XPU_AGG_MAX_FP, {1.0, inf, nan, -inf}, &n);
	CHECK(isnan(r) && n == 4);
	r = minmax_of(XPU_AGG_MIN_FP, {1.0, inf, nan, -inf}, &n);
	CHECK(r == -inf);
	r = minmax_of(XPU_AGG_MIN_FP, {nan, 3.0, nan}, &n);
	CHECK(r == 3.0 && n == 3);
	r = minmax_of(XPU_AGG_MIN_FP, {nan}, &n);
	CHECK(isnan(r) && n == 1);
	r = minmax_of(XPU_AGG_MAX_FP, {-inf}, &n);
	CHECK(r == -inf && n == 1);
	r = minmax_of(XPU_AGG_MAX_FP, {}, &n);
	CHECK(r == -inf && n == 0);
	r = minmax_of(XPU_AGG_MIN_FP, {}, &n);
	CHECK(isnan(r) && n == 0);
	r = minmax_of(XPU_AGG_MAX_FP, {-0.0, 0.0, -5.0}, &n);
	CHECK(r == 0.0);
	r = minmax_of(XPU_AGG_MIN_FP, {inf, 2.5, -1e308, 7.0}, &n);
	CHECK(r == -1e308);
	r = minmax_of(XPU_AGG_MAX_FP, {inf, 2.5, -1e308, 7.0}, &n);
	CHECK(r == inf);

	/* random orders against a sort in PostgreSQL's order */
	for (int round = 0; round < 200; round++)
	{
		std::vector<double> v;
		int len = 1 + (int) (rng() % 9);
		static const double pool[] = {0.0, -0.0, 1.0, -1.0, 1e300, -1e300, 1.0 / 0.0, -1.0 / 0.0, 0.0 / 0.0, 5e-324};

		for (int i = 0; i < len; i++)
			v.push_back(pool[rng() % 10]);
		std::vector<double> s = v;
		std::sort(s.begin(), s.end(), [](double a, double b) { return xpu_float8_cmp(a, b) < 0; });
		uint64_t nn;
		double mx = minmax_of(XPU_AGG_MAX_FP, v, &nn);
		double mn = minmax_of(XPU_AGG_MIN_FP, v, &nn);
		CHECK(xpu_float8_cmp(mx, s.back()) == 0 && xpu_float8_cmp(mn, s.front()) == 0);
	}

	/* SUM_FP keeps IEEE results and counts the special inputs */
	alignas(16) char acc[48];
	XpuAggDesc a;
	xpu_datum sl[1];
	memset(acc, 0, sizeof(acc));
	memset(&a, 0, sizeof(a));
	a.kind = XPU_AGG_SUM_FP;
	a.argtype = F4;
	a.filter = -1;
	for (float x : {1.5f, 1.0f / 0.0f, 2.0f})
	{
		sl[0] = d_f4(x);
		xpu_acc_update(&a, acc, sl);
	}
	CHECK(acc_u64(acc, 0) == 3 && isinf(acc_f8(acc, 8)) && acc_u64(acc, 16) == 1);

	/* VAR_FP: shift from the creating row, sums of deviations */
	memset(acc, 0, sizeof(acc));
	a.kind = XPU_AGG_VAR_FP;
	a.argtype = F8;
	sl[0] = d_f8(1e9 + 1);
	xpu_acc_init(&a, acc, sl);
	CHECK(acc_f8(acc, 8) == 1e9 + 1);
	for (double x : {1e9 + 1, 1e9 + 2, 1e9 + 4})
	{
		sl[0] = d_f8(x);
		xpu_acc_update(&a, acc, sl);
	}
	CHECK(acc_u64(acc, 0) == 3 && acc_f8(acc, 16) == 4.0 && acc_f8(acc, 24) == 10.0 &&
		  acc_u64(acc, 32) == 0);
	memset(acc, 0, sizeof(acc));
	sl[0] = d_f8(0.0 / 0.0);
	xpu_acc_init(&a, acc, sl);
	CHECK(acc_f8(acc, 8) == 0.0);
	a.filter = 0;			/* a NULL filter: no shift either */
	sl[0] = d_null();
	memset(acc, 0, sizeof(acc));
	xpu_acc_init(&a, acc, sl);
	CHECK(acc_f8(acc, 8) == 0.0);
}

/* ------------------------------------------------------------------ */
/* GpuPreAgg sessions                                                  */
/* ------------------------------------------------------------------ */
struct PreAggSpec
{
	std::vector<XpuGroupKey> keys;
	std::vector<XpuAggDesc> aggs;
	uint32_t entry_size = 0;

	uint32_t place(uint32_t bytes)
	{
		uint32_t off = entry_size < XPU_PREAGG_ENTRY_HEADER ? XPU_PREAGG_ENTRY_HEADER : entry_size;
		entry_size = (off + bytes + 15) & ~15U;
		return off;
	}
	void key(int node, int xtype, uint32_t width = 0)
	{
		XpuGroupKey k;
		memset(&k, 0, sizeof(k));
		k.node = node;
		k.xtype = xtype;
		k.width = width ? width : (uint32_t) xpu_key_width(xtype);
		k.offset = place(k.width);
		keys.push_back(k);
	}
	void agg(int kind, int arg, int argtype, int filter = -1, int param = 0)
	{
		XpuAggDesc a;
		memset(&a, 0, sizeof(a));
		a.kind = kind;
		a.arg = arg;
		a.argtype = argtype;
		a.filter = filter;
		a.param = param;
		a.offset = place(xpu_agg_bytes(kind));
		aggs.push_back(a);
	}
	std::vector<char> message(Prog &p)
	{
		std::vector<char> m = p.message();
		while (m.size() % 16)
			m.push_back(0);
		size_t desc_off = m.size();
		size_t keys_off = desc_off + 32;
		size_t aggs_off = keys_off + keys.size() * sizeof(XpuGroupKey);
		XpuPreAggDesc d;
		memset(&d, 0, sizeof(d));
		d.nkeys = (uint32_t) keys.size();
		d.keys_offset = keys.empty() ? 0 : (uint32_t) keys_off;
		d.naggs = (uint32_t) aggs.size();
		d.aggs_offset = aggs.empty() ? 0 : (uint32_t) aggs_off;
		d.entry_size = entry_size < 16 ? 16 : entry_size;
		m.resize(aggs_off + aggs.size() * sizeof(XpuAggDesc));
		memcpy(m.data() + desc_off, &d, sizeof(d));
		if (!keys.empty())
			memcpy(m.data() + keys_off, keys.data(), keys.size() * sizeof(XpuGroupKey));
		if (!aggs.empty())
			memcpy(m.data() + aggs_off, aggs.data(), aggs.size() * sizeof(XpuAggDesc));
		XpuSession *s = (XpuSession *) (m.data() + sizeof(PgStromMsgHeader));
		s->kind = XPU_KIND_GPUPREAGG;
		s->preagg_offset = (uint32_t) desc_off;
		((PgStromMsgHeader *) m.data())->length = (uint32_t) m.size();
		return m;
	}
};

/* a device table in host memory */
struct HostTable
{
	std::vector<uint64_t> mem;		/* 8-byte aligned backing store */
	XpuPreAggTable *t;

	HostTable(uint32_t nslots, uint32_t entry_size)
	{
		uint64_t slots_off = 256;
		uint64_t entries_off = (slots_off + 4 * (uint64_t) nslots + 255) & ~(uint64_t) 255;
		uint32_t capacity = nslots / 2;
		size_t bytes = entries_off + (size_t) capacity * entry_size;

		mem.assign((bytes + 7) / 8 + 2, 0);
		/* 16-byte aligned start */
		char *base = (char *) mem.data();
		base += (16 - ((uintptr_t) base & 15)) & 15;
		t = (XpuPreAggTable *) base;
		t->nslots = nslots;
		t->capacity = capacity;
		t->nentries = 0;
		t->entry_size = entry_size;
		t->slots_offset = slots_off;
		t->entries_offset = entries_off;
	}
	const char *entry(uint32_t i) { return (const char *) t + t->entries_offset + (size_t) i * t->entry_size; }
	uint32_t nvalid()
	{
		uint32_t n = 0;
		for (uint32_t i = 0; i < std::min(t->nentries, t->capacity); i++)
			n += (((const XpuPreAggEntryHeader *) entry(i))->flags & XPU_PREAGG_ENTRY_VALID) != 0;
		return n;
	}
};

static int
preagg_status(std::vector<char> &m)
{
	static xpu_program prog;
	static xpu_preagg pa;

	return xpu_preagg_setup_serial(m.data(), &prog, &pa);
}

static void
test_bad_descriptors(void)
{
	/* the good one and its variants */
	struct Variant { const char *what; int st; };
	for (int v = 0; v <= 17; v++)
	{
		KtProg p;
		int i2 = p.var(A_I2), f8 = p.var(A_F8), c = p.var(A_C), b = p.var(A_B), n = p.var(A_N);
		p.b(true);
		PreAggSpec s;
		s.key(i2, I2);
		s.key(c, BPCHAR, 32);
		s.key(n, NUM);
		s.agg(XPU_AGG_COUNT, -1, 0);
		s.agg(XPU_AGG_SUM_FP, f8, F8, b);
		s.agg(XPU_AGG_VAR_INT, i2, I2);
		int want = XPU_STATUS_BAD_PROGRAM;
		switch (v)
		{
			case 0: want = XPU_STATUS_OK; break;
			case 1: s.keys[0].offset = s.keys[1].offset + 16; break;	/* overlap */
			case 2: s.keys[0].node = 5; break;						/* the root */
			case 3: s.keys[0].xtype = I4; break;						/* not the node's type */
			case 4: s.keys[1].width = 24; break;						/* not a multiple of 16 */
			case 5: s.keys[1].width = 8 + 256 + 16; break;				/* too wide */
			case 6: s.keys[2].width = 16; break;						/* numeric is 32 */
			case 7: s.aggs[1].argtype = I2; s.aggs[1].arg = i2; break;	/* SUM_FP of an int */
			case 8: s.aggs[1].filter = f8; break;						/* filter not BOOL */
			case 9: s.aggs[0].argtype = I2; break;						/* count(*) with a type */
			case 10: s.aggs[1].arg = -1; s.aggs[1].argtype = 0; break;	/* -1 only for COUNT */
			case 11: s.aggs[2].offset = 8; break;						/* in the header */
			case 12: s.aggs[2].offset += 8; break;						/* misaligned */
			case 13: s.entry_size -= 16; break;						/* past the entry */
			case 14: s.aggs[0].kind = XPU_AGG__COUNT; break;
			case 15: s.aggs[2].argtype = I8; break;					/* VAR_INT of int8 */
			case 16: s.entry_size = XPU_PREAGG_MAX_ENTRY + 16; break;
			case 17: s.keys[1].reserved = 1; break;
		}
		std::vector<char> m = s.message(p);
		int st = preagg_status(m);
		if (st != want)
			fprintf(stderr, "FAIL descriptor variant %d: status %d, want %d\n", v, st, want);
		CHECK(st == want);
	}
	{	/* a GPUSCAN session is not a GpuPreAgg one, nor the reverse */
		KtProg p;
		p.op(OP(GT), BOOL, {p.var(A_I8), p.i8(0)});
		std::vector<char> m = p.message();
		CHECK(preagg_status(m) == XPU_STATUS_BAD_PROGRAM);
		PreAggSpec s;
		std::vector<char> m2 = s.message(p);
		CHECK(preagg_status(m2) == XPU_STATUS_OK);	/* no keys, no aggs: one group, DISTINCT */
		CHECK(setup_status(m2) == XPU_STATUS_BAD_PROGRAM);
	}
	{	/* descriptor past the message */
		KtProg p;
		p.b(true);
		PreAggSpec s;
		s.agg(XPU_AGG_COUNT, -1, 0);
		std::vector<char> m = s.message(p);
		((XpuSession *) (m.data() + sizeof(PgStromMsgHeader)))->preagg_offset = (uint32_t) m.size() - 8;
		CHECK(preagg_status(m) == XPU_STATUS_BAD_PROGRAM);
		m = s.message(p);
		((PgStromMsgHeader *) m.data())->length -= 4;	/* cuts the last agg */
		CHECK(preagg_status(m) == XPU_STATUS_BAD_PROGRAM);
	}
	{	/* table header checks */
		HostTable h(64, 48);
		xpu_preagg_table v;
		CHECK(xpu_preagg_table_open(h.t, 48, &v) && v.capacity == 32);
		CHECK(!xpu_preagg_table_open(h.t, 64, &v));
		h.t->nslots = 48;
		CHECK(!xpu_preagg_table_open(h.t, 48, &v));
		h.t->nslots = 64;
		h.t->entries_offset = 256 + 64;		/* inside the slots */
		CHECK(!xpu_preagg_table_open(h.t, 48, &v));
	}
}

/* ---- whole runs over the vectors page ---- */

/* independent reference of one group */
struct RefGroup
{
	std::vector<uint64_t> n;
	std::vector<xpu_int128> s1, s2;
	std::vector<double> fsum, fmin, fmax;
	std::vector<long double> fsq;	/* VAR_FP: sum of squares, wide */
	std::vector<uint64_t> nspecial;
	std::vector<unsigned __int128> sq_lo;	/* VAR_INT8: 192-bit sum of squares */
	std::vector<uint64_t> sq_hi;
};

/* a normalized, printable key independent of xpu_hash.h */
static std::string
ref_key(const xpu_program &prog, const PreAggSpec &s, const xpu_datum *slots)
{
	std::string k;
	char buf[128];

	for (const XpuGroupKey &g : s.keys)
	{
		const xpu_datum *d = &slots[g.node];

		if (d->isnull)
		{
			k += "N|";
			continue;
		}
		switch (g.xtype)
		{
			case F4:
			case F8:
				{
					double v = g.xtype == F4 ? (double) d->v.f4 : d->v.f8;
					if (v != v)
						snprintf(buf, sizeof(buf), "nan");
					else
						snprintf(buf, sizeof(buf), "%a", v == 0 ? 0.0 : v);
					k += buf;
				}
				break;
			case NUM:
				{
					/* decimal digits, then strip fractional trailing zeros */
					xpu_int128 v = d->v.num;
					bool neg = v < 0;
					std::string digits;
					if (neg)
						v = -v;
					do { digits.insert(digits.begin(), (char) ('0' + (int) (v % 10))); v /= 10; } while (v != 0);
					int scale = d->scale;
					while ((int) digits.size() <= scale)
						digits.insert(digits.begin(), '0');
					std::string ip = digits.substr(0, digits.size() - scale);
					std::string fp = digits.substr(digits.size() - scale);
					while (!fp.empty() && fp.back() == '0')
						fp.pop_back();
					bool zero = ip.find_first_not_of('0') == std::string::npos && fp.empty();
					k += (neg && !zero ? "-" : "") + ip + "." + fp;
				}
				break;
			case TEXT:
			case VARCHAR:
			case BPCHAR:
				{
					std::string t(d->v.s.ptr, d->v.s.len);
					if (g.xtype == BPCHAR)
						while (!t.empty() && t.back() == ' ')
							t.pop_back();
					k += "'" + t + "'";
				}
				break;
			default:
				snprintf(buf, sizeof(buf), "%lld", (long long) d->v.i64);
				k += buf;
				break;
		}
		k += "|";
	}
	return k;
}

/* the same printable key from an entry's slots */
static std::string
entry_key(const PreAggSpec &s, const char *e)
{
	static xpu_datum slots[XPU_GPUSCAN_MAX_SLOTS];
	static std::vector<std::string> keep;
	keep.clear();
	keep.reserve(s.keys.size());
	for (const XpuGroupKey &g : s.keys)
	{
		const char *slot = e + g.offset;
		xpu_datum *d = &slots[g.node];
		int32_t aux;

		memset(d, 0, sizeof(*d));
		memcpy(&aux, slot + 4, 4);
		if (slot[0])
		{
			d->isnull = 1;
			continue;
		}
		switch (g.xtype)
		{
			case F4: memcpy(&d->v.f4, slot + 8, 4); break;
			case F8: memcpy(&d->v.f8, slot + 8, 8); break;
			case NUM:
				{
					uint64_t lo, hi;
					memcpy(&lo, slot + 16, 8);
					memcpy(&hi, slot + 24, 8);
					d->v.num = (xpu_int128) (((unsigned __int128) hi << 64) | lo);
					d->scale = aux;
				}
				break;
			case TEXT: case VARCHAR: case BPCHAR:
				keep.push_back(std::string(slot + 8, aux));
				d->v.s.ptr = keep.back().data();
				d->v.s.len = aux;
				break;
			default: memcpy(&d->v.i64, slot + 8, 8); break;
		}
	}
	static xpu_program dummy;
	return ref_key(dummy, s, slots);
}

struct Run
{
	std::map<std::string, RefGroup> ref;
	int nrecheck = 0, nmatch = 0, nretry = 0, ntuples = 0;
};

static void
ref_accumulate(RefGroup &g, const PreAggSpec &s, const xpu_datum *slots)
{
	size_t na = s.aggs.size();
	if (g.n.empty())
	{
		g.n.assign(na, 0);
		g.s1.assign(na, 0);
		g.s2.assign(na, 0);
		g.fsum.assign(na, 0);
		g.fmin.assign(na, 0.0 / 0.0);
		g.fmax.assign(na, -1.0 / 0.0);
		g.fsq.assign(na, 0);
		g.nspecial.assign(na, 0);
		g.sq_lo.assign(na, 0);
		g.sq_hi.assign(na, 0);
	}
	for (size_t i = 0; i < na; i++)
	{
		const XpuAggDesc &a = s.aggs[i];
		if (a.filter >= 0 && (slots[a.filter].isnull || !slots[a.filter].v.i64))
			continue;
		if (a.arg >= 0 && slots[a.arg].isnull)
			continue;
		g.n[i]++;
		const xpu_datum *d = a.arg >= 0 ? &slots[a.arg] : NULL;
		double x = 0;
		if (d && (a.argtype == F4 || a.argtype == F8))
		{
			x = a.argtype == F4 ? (double) d->v.f4 : d->v.f8;
			if (isnan(x) || isinf(x))
				g.nspecial[i]++;
		}
		switch (a.kind)
		{
			case XPU_AGG_SUM_NUMV:
				{
					xpu_int128 v = d->v.num;

					for (int k = d->scale; k < a.param; k++)
						v *= 10;		/* ref_args_fit: no overflow */
					g.s1[i] += v;
					g.s2[i] = std::max<xpu_int128>(g.s2[i], d->scale);
				}
				break;
			case XPU_AGG_SUM_INT: g.s1[i] += d->v.i64; break;
			case XPU_AGG_VAR_INT: g.s1[i] += d->v.i64; g.s2[i] += (xpu_int128) d->v.i64 * d->v.i64; break;
			case XPU_AGG_VAR_INT8:
				{
					unsigned __int128 sq = (unsigned __int128) ((xpu_int128) d->v.i64 * d->v.i64);

					g.s1[i] += d->v.i64;
					g.sq_lo[i] += sq;
					g.sq_hi[i] += (g.sq_lo[i] < sq);
				}
				break;
			case XPU_AGG_MIN_INT: g.s1[i] = g.n[i] == 1 ? d->v.i64 : std::min<xpu_int128>(g.s1[i], d->v.i64); break;
			case XPU_AGG_MAX_INT: g.s1[i] = g.n[i] == 1 ? d->v.i64 : std::max<xpu_int128>(g.s1[i], d->v.i64); break;
			case XPU_AGG_SUM_FP: g.fsum[i] += x; break;
			case XPU_AGG_VAR_FP: g.fsum[i] += x; g.fsq[i] += (long double) x * x; break;
			case XPU_AGG_MIN_FP: if (!isnan(x) && (isnan(g.fmin[i]) || x < g.fmin[i])) g.fmin[i] = x; break;
			case XPU_AGG_MAX_FP: if (isnan(x) || (!isnan(g.fmax[i]) && x > g.fmax[i])) g.fmax[i] = x; break;
			default: break;
		}
	}
}

/* an entry's accumulators equal the reference group's */
static bool
check_entry(const PreAggSpec &s, const char *e, const RefGroup &g)
{
	bool ok = true;
	for (size_t i = 0; i < s.aggs.size(); i++)
	{
		const XpuAggDesc &a = s.aggs[i];
		const char *acc = e + a.offset;
		uint64_t n = acc_u64(acc, 0);
		bool this_ok = (n == g.n[i]);
		xpu_int128 lo1 = (xpu_int128) ((unsigned __int128) acc_u64(acc, 24) << 64 | acc_u64(acc, 16));
		switch (a.kind)
		{
			case XPU_AGG_SUM_INT:
				this_ok &= lo1 == g.s1[i];
				break;
			case XPU_AGG_SUM_NUMV:
				/* the 192-bit sum: the reference's int128, sign-extended */
				this_ok &= (int64_t) acc_u64(acc, 16) == (int64_t) g.s2[i] &&
					(xpu_int128) ((unsigned __int128) acc_u64(acc, 32) << 64 | acc_u64(acc, 24)) == g.s1[i] &&
					acc_u64(acc, 40) == (g.s1[i] < 0 ? UINT64_MAX : 0) &&
					acc_u64(acc, 8) == 0;
				break;
			case XPU_AGG_VAR_INT:
				this_ok &= lo1 == g.s1[i] &&
					(xpu_int128) ((unsigned __int128) acc_u64(acc, 40) << 64 | acc_u64(acc, 32)) == g.s2[i];
				break;
			case XPU_AGG_VAR_INT8:
				this_ok &= lo1 == g.s1[i] &&
					((unsigned __int128) acc_u64(acc, 40) << 64 | acc_u64(acc, 32)) == g.sq_lo[i] &&
					acc_u64(acc, 48) == g.sq_hi[i];
				break;
			case XPU_AGG_MIN_INT:
				this_ok &= (xpu_int128) (int64_t) acc_u64(acc, 8) == (n ? g.s1[i] : (xpu_int128) INT64_MAX);
				break;
			case XPU_AGG_MAX_INT:
				this_ok &= (xpu_int128) (int64_t) acc_u64(acc, 8) == (n ? g.s1[i] : (xpu_int128) INT64_MIN);
				break;
			case XPU_AGG_SUM_FP:
				{
					double v = acc_f8(acc, 8);
					/* retries change the order of the additions */
					this_ok &= (v == g.fsum[i] || (isnan(v) && isnan(g.fsum[i])) ||
								fabs(v - g.fsum[i]) <= 1e-12 * fabs(g.fsum[i])) &&
						acc_u64(acc, 16) == g.nspecial[i];
				}
				break;
			case XPU_AGG_MIN_FP:
				this_ok &= xpu_float8_cmp(acc_f8(acc, 8), g.fmin[i]) == 0;
				break;
			case XPU_AGG_MAX_FP:
				this_ok &= xpu_float8_cmp(acc_f8(acc, 8), g.fmax[i]) == 0;
				break;
			case XPU_AGG_VAR_FP:
				this_ok &= acc_u64(acc, 32) == g.nspecial[i];
				if (n > 0 && g.nspecial[i] == 0)
				{
					/* the same mean and sum of squared deviations, whatever
					 * the shifts and the order of partials */
					double shift = acc_f8(acc, 8), s1 = acc_f8(acc, 16), s2 = acc_f8(acc, 24);
					double mean = shift + s1 / n, ref_mean = (double) (g.fsum[i] / n);
					double m2 = s2 - s1 * s1 / n;
					double ref_m2 = (double) (g.fsq[i] - (long double) g.fsum[i] * g.fsum[i] / n);

					this_ok &= fabs(mean - ref_mean) <= 1e-9 * (1 + fabs(ref_mean)) &&
						fabs(m2 - ref_m2) <= 1e-9 * (1 + fabs(ref_m2));
				}
				break;
			default:
				break;
		}
		if (!this_ok)
			fprintf(stderr, "FAIL group %s agg %zu (kind %d): n %llu vs %llu\n",
					entry_key(s, e).c_str(), i, a.kind, (unsigned long long) n,
					(unsigned long long) g.n[i]);
		ok &= this_ok;
	}
	return ok;
}

/*
 * SUM_NUMV's arguments, checked apart from the kernels' code: a value of
 * at most param fractional digits whose value * 10^param stays within the
 * device's numeric range, |m| < 10^38
 */
static bool
ref_args_fit(const PreAggSpec &s, const xpu_datum *slots)
{
	for (const XpuAggDesc &a : s.aggs)
	{
		if (a.kind != XPU_AGG_SUM_NUMV)
			continue;
		if (a.filter >= 0 && (slots[a.filter].isnull || !slots[a.filter].v.i64))
			continue;
		const xpu_datum *d = &slots[a.arg];
		if (d->isnull)
			continue;
		if (d->scale > a.param)
			return false;
		xpu_int128 v = d->v.num;
		xpu_int128 limit = 1;
		for (int k = 0; k < 38; k++)
			limit *= 10;
		for (int k = d->scale; k < a.param; k++)
			if (__builtin_mul_overflow(v, (xpu_int128) 10, &v))
				return false;
		if (v >= limit || v <= -limit)
			return false;
	}
	return true;
}

/* the reference of every row of the items, once each */
static void
ref_run(const xpu_program *prog, const xpu_preagg *pa, const PreAggSpec &s,
		const std::vector<char> &page, const std::vector<uint32_t> &items, Run &r)
{
	static xpu_datum slots[XPU_GPUSCAN_MAX_SLOTS];

	for (uint32_t item : items)
	{
		uint32_t lp;
		int lpi = (int) (item & XPU_ITEM_OFFSET_MASK) - 1;
		memcpy(&lp, page.data() + XPU_SIZE_OF_PAGE_HEADER + 4 * lpi, 4);
		if (xpu_lp_flags(lp) != XPU_LP_NORMAL)
			continue;
		r.ntuples++;
		int res = xpu_eval_tuple(prog, page.data() + xpu_lp_off(lp), (int32_t) xpu_lp_len(lp), slots);
		if (res == XPU_ROW_MATCH && (!xpu_preagg_keys_fit(pa, slots) || !ref_args_fit(s, slots)))
			res = XPU_ROW_RECHECK;
		if (res == XPU_ROW_RECHECK)
			r.nrecheck++;
		else if (res == XPU_ROW_MATCH)
			ref_accumulate(r.ref[ref_key(*prog, s, slots)], s, slots);
	}
}

/*
 * check_table - every VALID entry of the table is one reference group, with
 * its accumulators, linked exactly once; all groups are there.
 */
static bool
check_table(const char *name, const PreAggSpec &s, HostTable *h, const Run &r)
{
	bool ok = true;
	std::map<std::string, int> seen;
	uint32_t n = std::min(h->t->nentries, h->t->capacity);
	xpu_preagg_table tab;

	if (!xpu_preagg_table_open(h->t, h->t->entry_size, &tab))
	{
		fprintf(stderr, "FAIL %s: bad table header\n", name);
		return false;
	}
	for (uint32_t i = 0; i < n; i++)
	{
		const char *e = h->entry(i);
		const XpuPreAggEntryHeader *eh = (const XpuPreAggEntryHeader *) e;
		if (!(eh->flags & XPU_PREAGG_ENTRY_VALID))
			continue;
		std::string k = entry_key(s, e);
		auto it = r.ref.find(k);
		if (it == r.ref.end())
		{
			fprintf(stderr, "FAIL %s: unexpected group %s\n", name, k.c_str());
			ok = false;
			continue;
		}
		if (seen[k]++ > 0)
		{
			fprintf(stderr, "FAIL %s: group %s twice\n", name, k.c_str());
			ok = false;
		}
		ok &= check_entry(s, e, it->second);
		uint32_t found = 0;
		for (uint32_t j = 0; j < tab.nslots; j++)
			found += tab.slots[j] == i + 1;
		if (found != 1)
		{
			fprintf(stderr, "FAIL %s: group %s linked %u times\n", name, k.c_str(), found);
			ok = false;
		}
	}
	if (seen.size() != r.ref.size())
	{
		fprintf(stderr, "FAIL %s: %zu groups, device %zu\n", name, r.ref.size(), seen.size());
		ok = false;
	}
	return ok;
}

/*
 * Runs program p + spec s over the page `reps` times into a table of
 * nslots, growing it (rehash) and re-running the RETRY rows as the
 * service does, then checks the table against the reference.
 */
/*
 * The kernel's first pass with its block-local table, serially (one valid
 * order of the threads' steps): each block of `per_block` items folds its
 * rows into a fresh local table, a new local group finds or creates its
 * device entry, and the block's groups are combined into the device table
 * at its end.  Returns the RETRY items; counts RECHECK rows.
 */
static std::vector<uint32_t>
local_pass(const xpu_program *prog, const xpu_preagg *pa, HostTable *h,
		   const std::vector<char> &page, const std::vector<uint32_t> &items,
		   size_t per_block, int *nrecheck, int *nlocal_groups)
{
	static xpu_datum slots[XPU_GPUSCAN_MAX_SLOTS];
	static XpuPreAggLocal local alignas(16);
	std::vector<uint32_t> retry;
	xpu_preagg_table tab, lt;

	CHECK(xpu_preagg_table_open(h->t, pa->entry_size, &tab));
	for (size_t b0 = 0; b0 < items.size(); b0 += per_block)
	{
		memset(&local, 0, sizeof(local));
		bool use_local = xpu_preagg_local_open(&local, pa->entry_size, &lt);

		for (size_t k = b0; k < std::min(items.size(), b0 + per_block); k++)
		{
			uint32_t item = items[k], lp;
			int lpi = (int) (item & XPU_ITEM_OFFSET_MASK) - 1;
			memcpy(&lp, page.data() + XPU_SIZE_OF_PAGE_HEADER + 4 * lpi, 4);
			if (xpu_lp_flags(lp) != XPU_LP_NORMAL)
				continue;
			int res = xpu_eval_tuple(prog, page.data() + xpu_lp_off(lp), (int32_t) xpu_lp_len(lp), slots);
			if (res == XPU_ROW_MATCH && !xpu_preagg_row_fits(pa, slots))
				res = XPU_ROW_RECHECK;
			if (res == XPU_ROW_MATCH)
			{
				char *le = (char *) 0;
				bool created = false;
				uint32_t hash = xpu_preagg_hash(pa, slots);

				if (use_local)
					le = xpu_preagg_lookup_created(pa, &lt, slots, hash, &created);
				if (le == (char *) 0)
					res = xpu_preagg_row(pa, &tab, slots);
				else
				{
					size_t li = (size_t) (le - lt.entries) / lt.entry_size;

					if (created)
					{
						local.global[li] = xpu_preagg_lookup(pa, &tab, slots, hash);
						(*nlocal_groups)++;
					}
					if (local.global[li] == (char *) 0)
						res = XPU_ROW_RETRY;
					else
						xpu_preagg_accumulate(pa, le, slots);
				}
			}
			if (res == XPU_ROW_RECHECK)
				(*nrecheck)++;
			else if (res == XPU_ROW_RETRY)
				retry.push_back(item);
		}
		if (use_local)
			for (uint32_t i = 0; i < xpu_preagg_local_used(&lt); i++)
				xpu_preagg_local_flush(pa, &local, &lt, i);
	}
	return retry;
}

static void
run_preagg(const char *name, KtProg &p, PreAggSpec &s, const std::vector<char> &page,
		   uint32_t nslots, int reps, int expect_groups = -1, size_t local_block = 0)
{
	std::vector<char> msg = s.message(p);
	static xpu_program prog;
	static xpu_preagg pa;
	static xpu_datum slots[XPU_GPUSCAN_MAX_SLOTS];
	int st = xpu_preagg_setup_serial(msg.data(), &prog, &pa);
	if (st != XPU_STATUS_OK)
	{
		fprintf(stderr, "FAIL %s: status %d\n", name, st);
		nfailed++;
		return;
	}
	HostTable *h = new HostTable(nslots, pa.entry_size);
	Run r;
	int ngrowths = 0;
	int nitems = xpu_page_nitems(page.data());
	std::vector<uint32_t> pending;

	for (int rep = 0; rep < reps; rep++)
		for (int i = 0; i < nitems; i++)
			pending.push_back(((uint32_t) rep << XPU_ITEM_BLOCK_SHIFT) | (uint32_t) (i + 1));
	ref_run(&prog, &pa, s, page, pending, r);

	int nrecheck = 0, nlocal_groups = 0;
	bool first_pass = true;
	while (!pending.empty())
	{
		xpu_preagg_table tab;
		std::vector<uint32_t> retry;

		CHECK(xpu_preagg_table_open(h->t, pa.entry_size, &tab));
		if (first_pass && local_block > 0)
			retry = local_pass(&prog, &pa, h, page, pending, local_block, &nrecheck, &nlocal_groups);
		for (uint32_t item : first_pass && local_block > 0 ? std::vector<uint32_t>() : pending)
		{
			uint32_t lp;
			int lpi = (int) (item & XPU_ITEM_OFFSET_MASK) - 1;
			memcpy(&lp, page.data() + XPU_SIZE_OF_PAGE_HEADER + 4 * lpi, 4);
			if (xpu_lp_flags(lp) != XPU_LP_NORMAL)
				continue;
			int res = xpu_preagg_tuple(&prog, &pa, &tab, page.data() + xpu_lp_off(lp),
									   (int32_t) xpu_lp_len(lp), slots);
			if (res == XPU_ROW_RECHECK)
				nrecheck++;
			else if (res == XPU_ROW_RETRY)
				retry.push_back(item);
		}
		first_pass = false;
		pending.swap(retry);
		if (!pending.empty())
		{
			/* grow as the service does: rehash the VALID entries */
			HostTable *g = new HostTable(h->t->nslots * 2, pa.entry_size);
			xpu_preagg_table f, t;
			CHECK(xpu_preagg_table_open(h->t, pa.entry_size, &f));
			CHECK(xpu_preagg_table_open(g->t, pa.entry_size, &t));
			uint32_t n = std::min(h->t->nentries, h->t->capacity);
			uint32_t before = h->nvalid();
			for (uint32_t i = 0; i < n; i++)
				CHECK(xpu_preagg_rehash_entry(&f, &t, i) || !"rehash: no room");
			CHECK(g->nvalid() == before && g->t->nentries == before);
			delete h;
			h = g;
			ngrowths++;
		}
	}

	bool ok = check_table(name, s, h, r);
	ok &= nrecheck == r.nrecheck;
	if (expect_groups >= 0)
		ok &= (int) r.ref.size() == expect_groups;
	if (!ok)
		fprintf(stderr, "FAIL %s: %zu groups, %d rechecks (device %d), %d growths\n",
				name, r.ref.size(), r.nrecheck, nrecheck, ngrowths);
	CHECK(ok);
	if (getenv("VERBOSE"))
		fprintf(stderr, "note: %s: %d tuples, %zu groups, %d rechecks, %d growths, %d local groups\n",
				name, r.ntuples, r.ref.size(), r.nrecheck, ngrowths, nlocal_groups);
	delete h;
}

static std::vector<char>
vectors_page(const char *path)
{
	FILE *fp = fopen(path, "r");
	char line[40000];
	std::vector<char> page;

	if (!fp)
		return page;
	while (fgets(line, sizeof(line), fp))
	{
		if (strncmp(line, "PAGE ", 5) == 0)
		{
			size_t l = strlen(line);
			while (l > 0 && (line[l - 1] == '\n' || line[l - 1] == '\r'))
				line[--l] = 0;
			page = unhex(line + 5);
			break;
		}
	}
	fclose(fp);
	return page;
}

/* a chunk of nblocks copies of the page (for the tests that include this file) */
static std::vector<char> __attribute__((unused))
repeated_pages(const std::vector<char> &page, uint32_t nblocks)
{
	std::vector<char> pages((size_t) nblocks * XPU_BLCKSZ);

	for (uint32_t b = 0; b < nblocks; b++)
		memcpy(pages.data() + (size_t) b * XPU_BLCKSZ, page.data(), XPU_BLCKSZ);
	return pages;
}

/* the page of the vectors file: false, a failure, when there is none */
static bool
test_page(const char *path, std::vector<char> &page)
{
	page = vectors_page(path);
	if (page.size() == XPU_BLCKSZ)
		return true;
	fprintf(stderr, "FAIL no page in %s\n", path);
	nfailed++;
	return false;
}

/*
 * GROUP BY b, c with every accumulator kind and a FILTER: shared with the
 * GPU test (gpu_test_preagg.cu), which runs it on the device.
 */
static void
case_group_by_b_c(KtProg &p, PreAggSpec &s)
{
	int			b = p.var(A_B), c = p.var(A_C), i2 = p.var(A_I2), i8 = p.var(A_I8);
	int			f4 = p.var(A_F4), f8 = p.var(A_F8), d = p.var(A_D), n = p.var(A_N);
	int			i4 = p.op(OP(CAST), I4, {i2});

	p.b(true);
	s.key(b, BOOL);
	s.key(c, BPCHAR, 16);
	s.agg(XPU_AGG_COUNT, -1, 0);
	s.agg(XPU_AGG_COUNT, n, NUM);
	s.agg(XPU_AGG_SUM_INT, i8, I8);
	s.agg(XPU_AGG_SUM_FP, f8, F8);
	s.agg(XPU_AGG_MIN_INT, i2, I2);
	s.agg(XPU_AGG_MAX_INT, d, DATE);
	s.agg(XPU_AGG_MIN_FP, f4, F4);
	s.agg(XPU_AGG_MAX_FP, f8, F8);
	s.agg(XPU_AGG_VAR_FP, f4, F4);
	s.agg(XPU_AGG_VAR_INT, i4, I4);
	s.agg(XPU_AGG_VAR_INT8, i8, I8);
	s.agg(XPU_AGG_COUNT, -1, 0, b);
	s.agg(XPU_AGG_SUM_INT, i8, I8, b);
}

static void
test_runs(const char *path)
{
	std::vector<char> page;
	if (!test_page(path, page))
		return;
	{	/* GROUP BY b, c: 'ab' and 'ab  ' together; NULL bool a group */
		KtProg p;
		PreAggSpec s;

		case_group_by_b_c(p, s);
		run_preagg("group by b, c", p, s, page, 1024, 1);
		run_preagg("group by b, c, small table", p, s, page, 4, 3);
		run_preagg("group by b, c, local", p, s, page, 1024, 3, -1, 40);
		run_preagg("group by b, c, local, small table", p, s, page, 4, 3, -1, 1000);
	}
	{	/* GROUP BY f4, n: -0 with 0, NaN; numeric by value */
		KtProg p;
		int f4 = p.var(A_F4), n = p.var(A_N), i8 = p.var(A_I8);
		p.op(OP(IS_NOT_NULL), BOOL, {p.var(A_ID)});
		PreAggSpec s;
		s.key(f4, F4);
		s.agg(XPU_AGG_SUM_INT, i8, I8);
		run_preagg("group by f4", p, s, page, 64, 2);
		run_preagg("group by f4, local", p, s, page, 64, 2, -1, 7);
		PreAggSpec s2;
		s2.key(n, NUM);
		s2.agg(XPU_AGG_COUNT, -1, 0);
		run_preagg("group by n", p, s2, page, 2, 2);
		run_preagg("group by n, local", p, s2, page, 2, 2, -1, 1000);
	}
	{	/* SUM_NUMV: numerics of scales 0 to 30, at a bound of 6 and of 30 */
		KtProg p;
		int b = p.var(A_B), n = p.var(A_N), f = p.op(OP(IS_NOT_NULL), BOOL, {p.var(A_D)});
		p.b(true);
		PreAggSpec s;
		s.key(b, BOOL);
		s.agg(XPU_AGG_SUM_NUMV, n, NUM, -1, 6);
		s.agg(XPU_AGG_SUM_NUMV, n, NUM, f, 30);
		run_preagg("sum_numv", p, s, page, 64, 2);
		run_preagg("sum_numv, local", p, s, page, 64, 2, -1, 1000);
		PreAggSpec s2;
		s2.agg(XPU_AGG_SUM_NUMV, n, NUM, -1, 30);
		run_preagg("sum_numv, one group", p, s2, page, 64, 3);
	}
	{	/* text keys too long for the slot: RECHECK; a qual that filters */
		KtProg p;
		int t = p.var(A_T), v = p.var(A_V), i2 = p.var(A_I2);
		int q = p.op(OP(GT), BOOL, {p.op(OP(CAST), I4, {i2}), p.i4(-10)});
		(void) q;
		PreAggSpec s;
		s.key(t, TEXT, 16);
		s.key(v, VARCHAR, 32);
		s.agg(XPU_AGG_MAX_INT, i2, I2);
		run_preagg("group by t, v", p, s, page, 8, 2);
		run_preagg("group by t, v, local", p, s, page, 8, 2, -1, 33);
	}
	{	/* no keys: one group; SELECT DISTINCT-like: no aggregates */
		KtProg p;
		int f8 = p.var(A_F8), i2 = p.var(A_I2);
		int i2f8 = p.op(OP(CAST), F8, {i2});
		p.b(true);
		PreAggSpec s;
		s.agg(XPU_AGG_COUNT, -1, 0);
		s.agg(XPU_AGG_SUM_FP, f8, F8);
		s.agg(XPU_AGG_VAR_INT, i2, I2);
		/* a spread of finite values, so that partials' shifts differ */
		s.agg(XPU_AGG_VAR_FP, i2f8, F8);
		run_preagg("no keys", p, s, page, 2, 4, 1);
		run_preagg("no keys, local", p, s, page, 2, 4, 1, 50);
		PreAggSpec s2;
		s2.key(i2, I2);
		run_preagg("distinct i2", p, s2, page, 16, 2);
		run_preagg("distinct i2, local", p, s2, page, 16, 2, -1, 1000);
	}
}

int
preagg_tests(int argc, char **argv)
{
	test_keys();
	test_int128();
	test_minmax();
	test_bad_descriptors();
	test_runs(argc > 1 ? argv[1] : "vectors.txt");
	printf("preagg: %d passed, %d failed\n", npassed, nfailed);
	return nfailed == 0 ? 0 : 1;
}

#ifndef TEST_PREAGG_NO_MAIN
int
main(int argc, char **argv)
{
	return preagg_tests(argc, argv);
}
#endif
