/*
 * test_join_preagg.cu - host tests of GpuPreAgg fused over GpuJoin
 * (xpu_join_preagg.h): random star joins of 1 to 4 depths of every join
 * type (NULL keys, duplicates, skew, empty sides) whose combinations are
 * grouped by inner payload columns and an outer column and aggregated
 * over outer, inner and computed arguments with a per-combination FILTER,
 * run as the kernel runs them (blocks with a block-local table, a device
 * table small enough to fill, then grow-and-retry passes), against a
 * nested-loop join (test_join.cu's reference) followed by an independent
 * aggregation (test_preagg.cu's).  Rows with a combination the device
 * cannot evaluate (an overflow, a text key longer than its slot) must be
 * RECHECK with nothing of them folded.  Also the validator's refusals, and
 * the vectors page through the per-tuple step (test_join_preagg.cu's page
 * passes are what gpu_test_join_preagg.cu compares the device with).
 *
 * Built by run.sh with nvcc as host code; no GPU is needed.
 */
#define TEST_JOIN_NO_MAIN
#include "test_join.cu"
#undef TEST_JOIN_NO_MAIN
#include "xpu_join_preagg.h"

#define PAYLOAD_BYTES	64		/* int8 slot at +0, text slot (width 48) at +16 */
#define TEXT_PAYLOAD	48
#define TEXT_GROUP_KEY	32		/* 8 + 24: longer payload texts RECHECK */

/* a VAR over a made-up attribute of type xtype */
static int
ovar(Prog &p, int xtype)
{
	XpuAttr a;
	int len = xpu_type_attlen(xtype);

	memset(&a, 0, sizeof(a));
	a.attlen = (int16_t) len;
	a.attalign = (int8_t) (len > 0 ? len : 4);
	a.attbyval = len > 0;
	a.xtype = (int16_t) xtype;
	p.attrs.push_back(a);
	return p.add(XPU_OP_VAR, xtype, {}, 0, (int) p.attrs.size() - 1);
}

/*
 * The fused session's message: p's program with its root at `root`, the
 * grouping s, the join jn's depths and keys and the payload columns.
 */
static std::vector<char>
fused_message(Prog &p, PreAggSpec &s, const xpu_join &jn, const std::vector<XpuJoinCol> &cols,
			  int root, const std::vector<int32_t> &quals = {})
{
	std::vector<char> m = s.message(p);

	while (m.size() % 16)
		m.push_back(0);
	size_t desc_off = m.size();
	size_t depths_off = desc_off + sizeof(XpuJoinDesc);
	size_t keys_off = depths_off + jn.ndepths * sizeof(XpuJoinDepth);
	size_t cols_off = keys_off + jn.nkeys * sizeof(XpuJoinKey);
	size_t quals_off = cols_off + cols.size() * sizeof(XpuJoinCol);
	XpuJoinDesc d;
	memset(&d, 0, sizeof(d));
	d.ndepths = jn.ndepths;
	d.depths_offset = (uint32_t) depths_off;
	d.nkeys = jn.nkeys;
	d.keys_offset = (uint32_t) keys_off;
	d.ncols = (uint32_t) cols.size();
	d.cols_offset = cols.empty() ? 0 : (uint32_t) cols_off;
	d.quals_offset = quals.empty() ? 0 : (uint32_t) quals_off;
	m.resize(quals_off + quals.size() * 4);
	if (!quals.empty())
		memcpy(m.data() + quals_off, quals.data(), quals.size() * 4);
	memcpy(m.data() + desc_off, &d, sizeof(d));
	for (uint32_t i = 0; i < jn.ndepths; i++)
	{
		const xpu_join_depth *jd = &jn.depths[i];
		XpuJoinDepth w;
		memset(&w, 0, sizeof(w));
		w.join_type = jd->join_type;
		w.nkeys = (uint32_t) jd->nkeys;
		w.key_first = jd->key_first;
		w.row_size = jd->row_size;
		memcpy(m.data() + depths_off + i * sizeof(w), &w, sizeof(w));
		memcpy(m.data() + keys_off + jd->key_first * sizeof(XpuJoinKey), jd->keys,
			   jd->nkeys * sizeof(XpuJoinKey));
	}
	if (!cols.empty())
		memcpy(m.data() + cols_off, cols.data(), cols.size() * sizeof(XpuJoinCol));
	XpuSession *ses = (XpuSession *) (m.data() + sizeof(PgStromMsgHeader));
	ses->kind = XPU_KIND_GPUJOIN_PREAGG;
	ses->join_offset = (uint32_t) desc_off;
	ses->root = (uint32_t) root;
	((PgStromMsgHeader *) m.data())->length = (uint32_t) m.size();
	return m;
}

/* a random join with payload columns, its program and grouping */
struct Fused
{
	Trial		t;
	Prog		p;
	PreAggSpec	s;
	std::vector<XpuJoinCol> cols;
	std::vector<char> msg;
	xpu_program prog;
	xpu_join	jn;
	xpu_preagg	pa;
	int			node_m = -1, node_g = -1, root = -1;
	int			node_p[XPU_JOIN_MAX_DEPTHS] = {-1, -1, -1, -1};
	int			node_t = -1, node_s = -1, node_f = -1;
	int			node_q = -1;					/* an outer int8 the quals compare */
	int			node_g2 = -1;					/* G + 10, after the root */
	std::vector<int32_t> quals;					/* per depth, -1 none; empty: none */
	int			qual_other[XPU_JOIN_MAX_DEPTHS];	/* the qual's other side: -1 Q, else a depth */
	int			pdepth = -1, tdepth = -1;		/* depths of P (first) and T */
	std::vector<std::vector<int64_t>> pval;		/* [depth][row], INT64_MIN NULL */
	std::vector<std::string> tval;				/* rows of tdepth, "\1" NULL */
	std::vector<std::vector<xpu_datum>> outer;	/* outer stage slots */
};

static const int64_t PNULL = INT64_MIN;

static int64_t
pick_payload(void)
{
	switch (rng() % 10)
	{
		case 0: return PNULL;
		case 1: return INT64_MAX / 2 + (int64_t) (rng() % 5);	/* with a big M: overflow */
		default: return (int64_t) (rng() % 16) - 5;
	}
}

/*
 * qual_mode 1: residual quals P_d <> (Q or an earlier depth's P) at some
 * INNER/LEFT depths but the last (whose stage holds M + P, so quals never
 * evaluate it early); 2: at any of them, M never large enough to overflow.
 */
static bool
make_fused(Fused &f, int ndepths, const int *types, const int *nrows, int nouter,
		   int domain, bool skew, bool with_text, int qual_mode = 0)
{
	make_trial(f.t, ndepths, types, nrows, nouter, domain, skew, PAYLOAD_BYTES);

	/* the program: outer keys (node = global key index), M, G; root; the
	 * per-combination stage */
	for (uint32_t d = 0; d < f.t.jn.ndepths; d++)
	{
		const xpu_join_depth *jd = &f.t.jn.depths[d];
		for (int k = 0; k < jd->nkeys; k++)
		{
			int n = ovar(f.p, jd->keys[k].outer_xtype);
			CHECK(n == jd->keys[k].node);
		}
	}
	f.node_m = ovar(f.p, I8);
	f.node_g = ovar(f.p, I4);
	if (qual_mode > 0)
	{
		f.node_q = ovar(f.p, I8);
		f.quals.assign(f.t.jn.ndepths, -1);
	}
	f.root = f.p.b(true);
	/* an outer-only node after the root (stage -1): the group key G + 10 */
	f.node_g2 = f.p.op(OP(ADD), I4, {f.node_g, f.p.i4(10)});
	int last_row_depth = -1;
	for (uint32_t d = 0; d < f.t.jn.ndepths; d++)
		if (f.t.jn.depths[d].join_type == XPU_JOIN_INNER || f.t.jn.depths[d].join_type == XPU_JOIN_LEFT)
			last_row_depth = (int) d;
	for (uint32_t d = 0; d < f.t.jn.ndepths; d++)
	{
		const xpu_join_depth *jd = &f.t.jn.depths[d];
		if (jd->join_type != XPU_JOIN_INNER && jd->join_type != XPU_JOIN_LEFT)
			continue;
		XpuJoinCol c;
		memset(&c, 0, sizeof(c));
		c.depth = (int16_t) d;
		c.inner_xtype = I8;
		c.offset = jd->row_size - PAYLOAD_BYTES;
		c.width = 16;
		f.node_p[d] = f.p.add(XPU_OP_INNER_VAR, I8, {}, 0, (int) f.cols.size());
		f.cols.push_back(c);
		/* the qual right after the column: its stage is this depth */
		if (qual_mode > 0 && (qual_mode == 2 || (int) d < last_row_depth) && rng() % 3 != 0)
		{
			f.qual_other[d] = f.pdepth >= 0 && rng() % 2 ? f.pdepth : -1;
			f.quals[d] = f.p.op(OP(NE), BOOL, {f.node_p[d], f.qual_other[d] < 0 ? f.node_q :
											   f.node_p[f.qual_other[d]]});
		}
		if (f.pdepth < 0)
			f.pdepth = (int) d;
		f.tdepth = (int) d;
	}
	if (f.tdepth >= 0 && with_text)
	{
		XpuJoinCol c;
		memset(&c, 0, sizeof(c));
		c.depth = (int16_t) f.tdepth;
		c.inner_xtype = TEXT;
		c.offset = f.t.jn.depths[f.tdepth].row_size - PAYLOAD_BYTES + 16;
		c.width = TEXT_PAYLOAD;
		f.node_t = f.p.add(XPU_OP_INNER_VAR, TEXT, {}, 0, (int) f.cols.size());
		f.cols.push_back(c);
	}
	else
		f.tdepth = -1;
	if (f.pdepth >= 0)
	{
		f.node_s = f.p.op(OP(ADD), I8, {f.node_m, f.node_p[f.pdepth]});
		f.node_f = f.p.op(OP(GT), BOOL, {f.node_p[f.pdepth], f.p.i8(3)});
	}

	/* group by G + 10, the first and last payload columns; aggregate */
	f.s.key(f.node_g2, I4);
	if (f.pdepth >= 0)
		f.s.key(f.node_p[f.pdepth], I8);
	if (f.node_t >= 0)
		f.s.key(f.node_t, TEXT, TEXT_GROUP_KEY);
	f.s.agg(XPU_AGG_COUNT, -1, 0);
	f.s.agg(XPU_AGG_SUM_INT, f.node_m, I8);
	if (f.pdepth >= 0)
	{
		f.s.agg(XPU_AGG_SUM_INT, f.node_s, I8, f.node_f);
		f.s.agg(XPU_AGG_MIN_INT, f.node_p[f.pdepth], I8);
		f.s.agg(XPU_AGG_MAX_INT, f.node_p[f.tdepth >= 0 ? f.tdepth : f.pdepth], I8);
		f.s.agg(XPU_AGG_COUNT, f.node_p[f.pdepth], I8);
	}
	f.msg = fused_message(f.p, f.s, f.t.jn, f.cols, f.root, f.quals);
	int st = xpu_join_preagg_setup_serial(f.msg.data(), &f.prog, &f.jn, &f.pa);
	if (st != XPU_STATUS_OK)
	{
		fprintf(stderr, "FAIL fused session refused: status %d\n", st);
		nfailed++;
		return false;
	}

	/* the payload of every inner row */
	f.pval.assign(f.t.jn.ndepths, {});
	for (uint32_t d = 0; d < f.t.jn.ndepths; d++)
	{
		HostInner *b = f.t.bufs[d];
		for (uint32_t r = 0; r < b->h->nrows; r++)
		{
			int64_t v = pick_payload();
			char *slot = b->row(r) + f.t.jn.depths[d].row_size - PAYLOAD_BYTES;
			xpu_datum dv = v == PNULL ? d_null() : d_i64(v);
			xpu_key_store(I8, slot, &dv);
			f.pval[d].push_back(v);
			if ((int) d == f.tdepth)
			{
				std::string s;
				switch (rng() % 6)
				{
					case 0: s = "\1"; break;
					case 1: s = std::string(24 + rng() % 17, 'w'); break;	/* no room in the key */
					default: s = "t" + std::to_string(rng() % 3); break;
				}
				strpool.push_back(s);
				xpu_datum tv = s == "\1" ? d_null() : d_str(strpool.back().c_str());
				xpu_key_store(TEXT, slot + 16, &tv);
				f.tval.push_back(s);
			}
			CHECK(xpu_join_payload_valid(&f.jn, d, b->row(r)));
		}
	}

	/* the outer stage of every row */
	for (size_t o = 0; o < f.t.outer.size(); o++)
	{
		std::vector<xpu_datum> sl(XPU_GPUSCAN_MAX_SLOTS, d_null());
		for (size_t k = 0; k < f.t.outer[o].size(); k++)
			sl[k] = f.t.outer[o][k];
		int r = (int) (rng() % 40);
		sl[f.node_m] = r == 0 ? d_null() : r == 1 && qual_mode != 2 ? d_i64(INT64_MAX / 2 + 7) :
			d_i64((int64_t) (rng() % 1000) - 300);
		if (f.node_q >= 0)
			sl[f.node_q] = rng() % 9 == 0 ? d_null() : d_i64((int64_t) (rng() % 16) - 5);
		sl[f.node_g] = rng() % 9 == 0 ? d_null() : d_i64((int64_t) (rng() % 3));
		sl[f.root] = d_i64(1);
		f.outer.push_back(sl);
	}
	return true;
}

/* reference outcome of the whole run */
struct FusedRef
{
	Run			dev;					/* groups of the rows the device folds */
	std::set<std::string> partial_keys;	/* groups a RECHECK row may have created */
	std::set<uint32_t> recheck;			/* outer rows */
	size_t		ncombinations = 0;
};

/*
 * The nested loop's combinations, each evaluated independently of
 * xpu_eval.h: a row is RECHECK when one of its combinations overflows
 * M + P or has a text key longer than the entry's slot; otherwise all of
 * them are aggregated by test_preagg.cu's reference.
 */
/* depth d's qual for candidate row r (NO_INNER never asked) under prefix cur */
static bool
qual_passes(const Fused &f, size_t o, int d, const Rec &cur, uint32_t r)
{
	if (f.quals.empty() || f.quals[d] < 0)
		return true;
	int64_t a = f.pval[d][r], b;
	if (f.qual_other[d] < 0)
		b = f.outer[o][f.node_q].isnull ? PNULL : f.outer[o][f.node_q].v.i64;
	else
	{
		uint32_t pr = cur[1 + f.qual_other[d]];
		b = pr == XPU_JOIN_NO_INNER ? PNULL : f.pval[f.qual_other[d]][pr];
	}
	return a != PNULL && b != PNULL && a != b;		/* NULL <> x is not true */
}

/* test_join.cu's nested loop with each depth's residual qual */
static void
fused_ref_rows(const Fused &f, size_t o, int d, Rec &cur, std::vector<Rec> &acc)
{
	const Trial &t = f.t;
	if (d == (int) t.jn.ndepths)
	{
		acc.push_back(cur);
		return;
	}
	int jt = t.jn.depths[d].join_type;
	ref_depth(t, o, d, cur,
			  [&](uint32_t r) {
				  return jt == XPU_JOIN_SEMI || jt == XPU_JOIN_ANTI || qual_passes(f, o, d, cur, r);
			  },
			  [&]() { fused_ref_rows(f, o, d + 1, cur, acc); });
}

static std::vector<Rec>
fused_combinations(const Fused &f)
{
	std::vector<Rec> acc;
	for (size_t o = 0; o < f.outer.size(); o++)
	{
		Rec cur(1 + f.t.jn.ndepths, 0);
		cur[0] = (uint32_t) o;
		fused_ref_rows(f, o, 0, cur, acc);
	}
	return acc;
}

static void
fused_reference(const Fused &f, FusedRef &ref)
{
	std::vector<Rec> recs = fused_combinations(f);
	/* without quals, the same combinations as test_join.cu's reference */
	if (f.quals.empty())
	{
		std::vector<Rec> plain = reference(f.t);
		std::sort(plain.begin(), plain.end());
		std::sort(recs.begin(), recs.end());
		CHECK(plain == recs);
	}
	std::map<uint32_t, std::vector<Rec>> by_row;
	for (const Rec &r : recs)
		by_row[r[0]].push_back(r);
	ref.ncombinations = recs.size();
	for (auto &it : by_row)
	{
		uint32_t o = it.first;
		std::vector<std::vector<xpu_datum>> combos;
		bool recheck = false;
		for (const Rec &r : it.second)
		{
			std::vector<xpu_datum> sl = f.outer[o];
			bool bad = false;
			sl[f.node_g2] = sl[f.node_g].isnull ? d_null() : d_i64(sl[f.node_g].v.i64 + 10);
			for (uint32_t d = 0; d < f.t.jn.ndepths; d++)
			{
				if (f.node_p[d] < 0)
					continue;
				int64_t v = r[1 + d] == XPU_JOIN_NO_INNER ? PNULL : f.pval[d][r[1 + d]];
				sl[f.node_p[d]] = v == PNULL ? d_null() : d_i64(v);
			}
			if (f.node_t >= 0)
			{
				uint32_t row = r[1 + f.tdepth];
				const std::string *s = row == XPU_JOIN_NO_INNER ? NULL : &f.tval[row];
				if (s == NULL || *s == "\1")
					sl[f.node_t] = d_null();
				else
				{
					sl[f.node_t] = d_str(s->c_str());
					bad |= s->size() > TEXT_GROUP_KEY - 8;
				}
			}
			if (f.node_s >= 0)
			{
				const xpu_datum &m = sl[f.node_m], &pv = sl[f.node_p[f.pdepth]];
				int64_t sum;
				if (m.isnull || pv.isnull)
					sl[f.node_s] = d_null();
				else if (__builtin_add_overflow(m.v.i64, pv.v.i64, &sum))
					bad = true;
				else
					sl[f.node_s] = d_i64(sum);
				sl[f.node_f] = pv.isnull ? d_null() : d_i64(pv.v.i64 > 3);
			}
			/* every other combination may have made its group first */
			if (bad)
				recheck = true;
			else
				combos.push_back(sl);
		}
		if (recheck)
		{
			ref.recheck.insert(o);
			for (const auto &sl : combos)
				ref.partial_keys.insert(ref_key(f.prog, f.s, sl.data()));
			continue;
		}
		for (const auto &sl : combos)
			ref_accumulate(ref.dev.ref[ref_key(f.prog, f.s, sl.data())], f.s, sl.data());
	}
}

/* a larger table with every VALID entry of h, as the service grows one */
static HostTable *
grow_table(HostTable *h, uint32_t entry_size)
{
	HostTable *g = new HostTable(h->t->nslots * 2, entry_size);
	xpu_preagg_table from, to;
	CHECK(xpu_preagg_table_open(h->t, entry_size, &from));
	CHECK(xpu_preagg_table_open(g->t, entry_size, &to));
	uint32_t n = std::min(h->t->nentries, h->t->capacity);
	for (uint32_t i = 0; i < n; i++)
		CHECK(xpu_preagg_rehash_entry(&from, &to, i));
	delete h;
	return g;
}

/* every accumulator of an entry is empty */
static bool
entry_empty(const PreAggSpec &s, const char *e)
{
	for (const XpuAggDesc &a : s.aggs)
		if (acc_u64(e + a.offset, 0) != 0)
			return false;
	return true;
}

/*
 * The table holds exactly the reference groups, each linked once with its
 * accumulators, plus at most empty groups that a RECHECK row created.
 */
static bool
check_fused_table(const char *name, const PreAggSpec &s, HostTable *h, const FusedRef &ref)
{
	bool ok = true;
	std::map<std::string, int> seen;
	xpu_preagg_table tab;
	CHECK(xpu_preagg_table_open(h->t, h->t->entry_size, &tab));
	for (uint32_t i = 0; i < std::min(h->t->nentries, h->t->capacity); i++)
	{
		const char *e = h->entry(i);
		if (!(((const XpuPreAggEntryHeader *) e)->flags & XPU_PREAGG_ENTRY_VALID))
			continue;
		std::string k = entry_key(s, e);
		if (seen[k]++ > 0)
		{
			fprintf(stderr, "FAIL %s: group %s twice\n", name, k.c_str());
			ok = false;
		}
		uint32_t links = 0;
		for (uint32_t j = 0; j < tab.nslots; j++)
			links += tab.slots[j] == i + 1;
		if (links != 1)
		{
			fprintf(stderr, "FAIL %s: group %s linked %u times\n", name, k.c_str(), links);
			ok = false;
		}
		auto it = ref.dev.ref.find(k);
		if (it != ref.dev.ref.end())
			ok &= check_entry(s, e, it->second);
		else if (!entry_empty(s, e) || !ref.partial_keys.count(k))
		{
			fprintf(stderr, "FAIL %s: unexpected group %s\n", name, k.c_str());
			ok = false;
		}
	}
	for (auto &it : ref.dev.ref)
		if (!seen.count(it.first))
		{
			fprintf(stderr, "FAIL %s: group %s missing\n", name, it.first.c_str());
			ok = false;
		}
	return ok;
}

static long total_fused_retry = 0, total_fused_recheck = 0, total_fused_growths = 0;
static size_t total_fused_combinations = 0;

/*
 * Run the fused kernel's steps serially: the first pass in blocks of
 * `block` rows in a random order, each with a fresh block-local table
 * (when `local`), flushed at the block's end; then grow and rerun the
 * RETRY rows without one until none is left.  Compare with the reference.
 */
static bool
run_fused(const char *name, Fused &f, uint32_t nslots, size_t block, bool local)
{
	static XpuPreAggLocal loc alignas(16);
	FusedRef ref;
	fused_reference(f, ref);
	HostTable *h = new HostTable(nslots, f.pa.entry_size);
	std::vector<uint32_t> pending(f.outer.size());
	std::set<uint32_t> recheck;
	int ngrowths = 0;
	bool first = true;
	bool ok = true;
	xpu_datum *slots = new xpu_datum[XPU_GPUSCAN_MAX_SLOTS];

	for (size_t o = 0; o < pending.size(); o++)
		pending[o] = (uint32_t) o;
	while (!pending.empty())
	{
		std::vector<uint32_t> retry;
		xpu_preagg_table tab, lt;
		CHECK(xpu_preagg_table_open(h->t, f.pa.entry_size, &tab));
		for (size_t i = pending.size(); i > 1; i--)
			std::swap(pending[i - 1], pending[rng() % i]);
		for (size_t b0 = 0; b0 < pending.size(); b0 += block)
		{
			bool use_local = first && local && xpu_preagg_local_open(&loc, f.pa.entry_size, &lt);
			if (use_local)
				xpu_join_preagg_local_reset(&loc);
			for (size_t k = b0; k < std::min(pending.size(), b0 + block); k++)
			{
				uint32_t o = pending[k];
				memcpy(slots, f.outer[o].data(), sizeof(xpu_datum) * XPU_GPUSCAN_MAX_SLOTS);
				int res = xpu_join_preagg_row(&f.prog, &f.jn, &f.pa, f.t.inners, &tab,
											  &loc, use_local ? &lt : NULL, slots);
				if (res == XPU_ROW_RETRY)
					retry.push_back(o);
				else if (res == XPU_ROW_RECHECK)
					recheck.insert(o);
				else if (res != XPU_ROW_MATCH)
					ok = false;
			}
			if (use_local)
				for (uint32_t i = 0; i < xpu_preagg_local_used(&lt); i++)
					xpu_preagg_local_flush(&f.pa, &loc, &lt, i);
		}
		first = false;
		total_fused_retry += retry.size();
		pending.swap(retry);
		if (!pending.empty())
		{
			h = grow_table(h, f.pa.entry_size);
			ngrowths++;
		}
	}
	ok &= recheck == ref.recheck;
	if (recheck != ref.recheck)
		fprintf(stderr, "FAIL %s: %zu RECHECK rows, reference %zu\n", name,
				recheck.size(), ref.recheck.size());
	ok &= check_fused_table(name, f.s, h, ref);
	if (!ok)
		fprintf(stderr, "FAIL %s: %zu combinations, %zu groups, %d growths\n", name,
				ref.ncombinations, ref.dev.ref.size(), ngrowths);
	CHECK(ok);
	if (getenv("VERBOSE"))
		fprintf(stderr, "note: %s: %zu outer rows, %zu combinations, %zu groups, %zu rechecks, %d growths\n",
				name, f.outer.size(), ref.ncombinations, ref.dev.ref.size(), ref.recheck.size(), ngrowths);
	total_fused_recheck += recheck.size();
	total_fused_growths += ngrowths;
	total_fused_combinations += ref.ncombinations;
	delete[] slots;
	delete h;
	return ok;
}

static void
test_fused_named(void)
{
	static const char *tname[] = {"", "inner", "left", "semi", "anti"};

	for (int type = XPU_JOIN_INNER; type <= XPU_JOIN_ANTI; type++)
		for (int nd = 1; nd <= 4; nd++)
		{
			char name[96];
			int types[4] = {type, type, type, type};
			int nrows[4] = {20, 12, 8, 6};
			Fused f;
			/* ANTI needs keys that often miss; the others fan out */
			if (!make_fused(f, nd, types, nrows, 60, type == XPU_JOIN_ANTI ? 30 : 3, false, true))
				continue;
			snprintf(name, sizeof(name), "fused %s join, %d depths", tname[type], nd);
			run_fused(name, f, 4, 7, true);
			snprintf(name, sizeof(name), "fused %s join, %d depths, no local table", tname[type], nd);
			run_fused(name, f, 256, 64, false);
		}
	for (int type = XPU_JOIN_INNER; type <= XPU_JOIN_LEFT; type++)
		for (int nd = 1; nd <= 4; nd++)
			for (int qm = 1; qm <= 2; qm++)
			{	/* residual quals: many key matches, some of them rejected */
				char name[96];
				int types[4] = {type, type, type, type};
				int nrows[4] = {20, 12, 8, 6};
				Fused f;
				if (!make_fused(f, nd, types, nrows, 60, 3, false, true, qm))
					continue;
				snprintf(name, sizeof(name), "fused %s join, %d depths, residual quals (mode %d)",
						 tname[type], nd, qm);
				run_fused(name, f, 4, 7, true);
			}
	{	/* a star join: each outer row matches one row of every dimension */
		Fused f;
		int types[3] = {XPU_JOIN_INNER, XPU_JOIN_INNER, XPU_JOIN_LEFT};
		int nrows[3] = {1, 1, 1};
		if (make_fused(f, 3, types, nrows, 200, 1, false, true))
			run_fused("fused star join, one match per depth", f, 2, 50, true);
	}
	{	/* skew: most outer rows hit one key matching most of 3000 inner rows */
		Fused f;
		int types[2] = {XPU_JOIN_INNER, XPU_JOIN_LEFT};
		int nrows[2] = {3000, 5};
		if (make_fused(f, 2, types, nrows, 30, 3, true, true))
			run_fused("fused skewed join of 3000", f, 8, 16, true);
	}
	{	/* empty sides */
		Fused f, g;
		int types[2] = {XPU_JOIN_LEFT, XPU_JOIN_INNER};
		int nrows[2] = {0, 10}, nrows2[2] = {10, 10};
		if (make_fused(f, 2, types, nrows, 25, 5, false, true))
			run_fused("fused join, empty inner", f, 4, 9, true);
		if (make_fused(g, 2, types, nrows2, 0, 5, false, true))
			run_fused("fused join, empty outer", g, 4, 9, true);
	}
}

static void
test_fused_random(void)
{
	static const uint32_t slots[] = {2, 4, 16, 1024};
	int nfail = 0;

	for (int trial = 0; trial < 600 && nfail < 5; trial++)
	{
		Fused f;
		int nd = 1 + trial % 4;
		int qm = (trial / 4) % 3;
		if (!make_fused(f, nd, NULL, NULL, -1, 1 + (int) (rng() % 10), rng() % 4 == 0, rng() % 3 != 0, qm))
		{
			nfail++;
			continue;
		}
		if (reference(f.t).size() > 20000)
			continue;
		char name[64];
		snprintf(name, sizeof(name), "fused random join %d (%d depths, quals %d)", trial, nd, qm);
		if (!run_fused(name, f, slots[rng() % 4], 1 + rng() % 40, rng() % 4 != 0))
			nfail++;
	}
}

/* ---- the validator ---- */

static void
test_fused_validator(void)
{
	for (int v = 0; v <= 32; v++)
	{
		Fused f;
		int types[3] = {XPU_JOIN_INNER, XPU_JOIN_LEFT, XPU_JOIN_SEMI};
		int nrows[3] = {4, 4, 4};
		if (!make_fused(f, 3, types, nrows, 2, 3, false, true))
			continue;
		Prog &p = f.p;
		int want = XPU_STATUS_BAD_PROGRAM;
		int root = f.root;
		switch (v)
		{
			case 0: want = XPU_STATUS_OK; break;
			case 1: p.nodes[f.node_p[0]].aux = (int) f.cols.size(); break;		/* no such column */
			case 2: f.cols[0].inner_xtype = I4; break;					/* not the INNER_VAR's type */
			case 3: f.cols[0].depth = 3; break;								/* past ndepths */
			case 4: f.cols[0].depth = 2; break;								/* a SEMI depth */
			case 5: f.cols[0].depth = -1; break;
			case 6: f.cols[0].offset += 8; break;							/* misaligned */
			case 7: f.cols[0].offset = 0; break;							/* over a key */
			case 8: f.cols[2].offset = f.cols[1].offset; break;				/* over a column */
			case 9: f.cols[0].offset = f.t.jn.depths[0].row_size; break;	/* past the row */
			case 10: f.cols[0].width = 32; break;							/* int8 is 16 */
			case 11: f.cols[2].width = 40; break;							/* not a multiple of 16 */
			case 12: f.cols[1].reserved = 1; break;
			case 13: p.nodes[f.node_p[0]].flags = 1; break;
			case 14: root = f.node_p[0]; break;							/* an INNER_VAR at the root */
			case 15: root = f.node_f; break;							/* the root depends on one */
			case 16: ovar(p, I8); break;								/* a VAR after the root */
			case 17: f.s.keys[0].node = f.root; break;					/* the root as a key */
			case 18: f.s.aggs[1].arg = (int) p.nodes.size(); break;		/* no such node */
			case 19: f.s.aggs[2].filter = f.node_s; break;				/* FILTER not BOOL */
			case 20: f.t.jn.depths[1].join_type = XPU_JOIN_ANTI; break;	/* column at an ANTI depth */
			case 21: while (f.cols.size() <= XPU_JOIN_MAX_COLS) f.cols.push_back(f.cols[0]); break;
			case 22: f.s.aggs[2].filter = f.node_f; want = XPU_STATUS_OK; break;
			case 23: p.nodes[f.node_t].aux = 0; p.nodes[f.node_t].restype = I8; f.s.keys[2].xtype = I8;
				f.s.keys[2].width = 16; want = XPU_STATUS_OK; break;	/* the same column twice */
			case 24: f.cols[2].width = 8 + XPU_JOIN_MAX_TEXT_KEY + 16; break;
			case 25: f.cols[0].depth = 1; f.cols[0].offset = f.cols[1].offset; break;	/* two on one slot */
			/* residual quals: F = P0 > 3 comes after T, a column of depth 1 */
			case 26: f.quals = {-1, f.node_f, -1}; want = XPU_STATUS_OK; break;
			case 27: f.quals = {f.node_f, -1, -1}; break;				/* after a deeper node */
			case 28: f.quals = {-1, -1, f.node_f}; break;				/* a SEMI depth */
			case 29: f.quals = {-1, f.node_s, -1}; break;				/* not BOOL */
			case 30: f.quals = {-1, f.root, -1}; break;					/* not after the root */
			case 31: f.quals = {-1, (int32_t) p.nodes.size(), -1}; break;
			case 32: f.quals = {-1, -1, -1}; want = XPU_STATUS_OK; break;
		}
		std::vector<char> m = fused_message(p, f.s, f.t.jn, f.cols, root, f.quals);
		static xpu_program prog;
		static xpu_join jn;
		static xpu_preagg pa;
		int st = xpu_join_preagg_setup_serial(m.data(), &prog, &jn, &pa);
		if (st != want)
			fprintf(stderr, "FAIL fused validator variant %d: status %d, want %d\n", v, st, want);
		CHECK(st == want);
	}
	{	/* INNER_VARs in sessions of other kinds, kinds crossed, cut messages */
		Fused f;
		int types[1] = {XPU_JOIN_INNER};
		int nrows[1] = {3};
		if (!make_fused(f, 1, types, nrows, 2, 3, false, false))
			return;
		static xpu_program prog;
		static xpu_join jn;
		static xpu_preagg pa;
		std::vector<char> m = f.msg;
		XpuSession *ses = (XpuSession *) (m.data() + sizeof(PgStromMsgHeader));
		ses->kind = XPU_KIND_GPUJOIN;						/* a plain join: no per-combination stage */
		ses->preagg_offset = 0;
		CHECK(xpu_join_setup_serial(m.data(), &prog, &jn) == XPU_STATUS_BAD_PROGRAM);
		m = f.msg;
		ses = (XpuSession *) (m.data() + sizeof(PgStromMsgHeader));
		ses->kind = XPU_KIND_GPUPREAGG;
		CHECK(xpu_preagg_setup_serial(m.data(), &prog, &pa) == XPU_STATUS_BAD_PROGRAM);
		ses->kind = XPU_KIND_GPUSCAN;
		ses->preagg_offset = 0;
		ses->join_offset = 0;
		CHECK(xpu_program_setup_serial(m.data(), &prog) == XPU_STATUS_BAD_PROGRAM);
		m = f.msg;
		ses = (XpuSession *) (m.data() + sizeof(PgStromMsgHeader));
		ses->preagg_offset = 0;								/* no grouping */
		CHECK(xpu_join_preagg_setup_serial(m.data(), &prog, &jn, &pa) == XPU_STATUS_BAD_PROGRAM);
		std::vector<int32_t> q1 = {(int32_t) f.node_f};
		m = fused_message(f.p, f.s, f.t.jn, f.cols, f.root, q1);
		CHECK(xpu_join_preagg_setup_serial(m.data(), &prog, &jn, &pa) == XPU_STATUS_OK);
		ses = (XpuSession *) (m.data() + sizeof(PgStromMsgHeader));
		ses->kind = XPU_KIND_GPUJOIN;						/* quals in a plain join */
		ses->preagg_offset = 0;
		CHECK(xpu_join_setup_serial(m.data(), &prog, &jn) == XPU_STATUS_OK &&
			  jn.eager_depth == 0 && jn.quals[0] == f.node_f);
		m = fused_message(f.p, f.s, f.t.jn, f.cols, f.root, q1);
		((PgStromMsgHeader *) m.data())->length -= 4;		/* cuts the quals */
		CHECK(xpu_join_preagg_setup_serial(m.data(), &prog, &jn, &pa) == XPU_STATUS_BAD_PROGRAM);
		m = f.msg;
		((PgStromMsgHeader *) m.data())->length -= 4;		/* cuts the last column */
		CHECK(xpu_join_preagg_setup_serial(m.data(), &prog, &jn, &pa) == XPU_STATUS_BAD_PROGRAM);
		m = f.msg;
		CHECK(xpu_join_preagg_setup_serial(m.data(), &prog, &jn, &pa) == XPU_STATUS_OK);
		CHECK(xpu_join_setup_serial_kind(m.data(), &prog, &jn, XPU_KIND_GPUJOIN_PREAGG) ==
			  XPU_STATUS_OK);
	}
	{	/* a plain GpuJoin session with residual quals: its kernel has no stage for them */
		KtProg p;
		int i8 = p.var(A_I8);
		p.b(true);
		JoinSpec js;
		js.depth(XPU_JOIN_INNER, 16);
		js.key(i8, I8, I8, 0);
		std::vector<char> m = js.message(p);
		CHECK(join_status(m) == XPU_STATUS_OK);
		XpuSession *ses = (XpuSession *) (m.data() + sizeof(PgStromMsgHeader));
		XpuJoinDesc *jd = (XpuJoinDesc *) (m.data() + ses->join_offset);
		jd->quals_offset = jd->keys_offset;		/* in the message, and -1 there would do */
		CHECK(join_status(m) == XPU_STATUS_BAD_PROGRAM);
	}
	{	/* a payload slot that xpu_key_store could not have written */
		Fused f;
		int types[1] = {XPU_JOIN_LEFT};
		int nrows[1] = {2};
		if (!make_fused(f, 1, types, nrows, 1, 3, false, true))
			return;
		char *row = f.t.bufs[0]->row(0);
		uint32_t toff = f.cols[1].offset;
		CHECK(xpu_join_payload_valid(&f.jn, 0, row));
		int32_t len = TEXT_PAYLOAD - 8 + 1;
		row[toff] = 0;
		memcpy(row + toff + 4, &len, 4);
		CHECK(!xpu_join_payload_valid(&f.jn, 0, row));		/* text past its slot */
		row[toff] = 2;
		CHECK(!xpu_join_payload_valid(&f.jn, 0, row));		/* NULL flag not 0/1 */
		CHECK(xpu_join_payload_valid(&f.jn, 1, row));		/* no column of depth 1 */
	}
}

/* ---- the vectors page through xpu_join_preagg_tuple ---- */

/*
 * The fused session of round r over kt: test_join.cu's page join (depths
 * on i2, (c, n) and (t, i8)) with a payload column on each INNER or LEFT
 * depth (int8, numeric, text), grouped by the first depth's payload (or
 * i2) and the last's text, aggregating outer, inner and computed values;
 * when depth 1 is INNER or LEFT, a residual qual on its payload.
 */
static std::vector<char>
fused_page_session(int round, int types[3])
{
	KtProg p;
	int i2 = p.var(A_I2), c = p.var(A_C), n = p.var(A_N), t = p.var(A_T), i8 = p.var(A_I8);
	int root = p.op(OP(IS_NOT_NULL), BOOL, {p.var(A_ID)});
	types[0] = 1 + round % 4;
	types[1] = 1 + (round / 4 + 1) % 4;
	types[2] = 1 + (round + 2) % 4;
	xpu_join jn;
	memset(&jn, 0, sizeof(jn));
	jn.ndepths = 3;
	jn.nkeys = 5;
	static const uint32_t rows[3] = {32, 128, 80};
	const int kn[5] = {i2, c, n, t, i8};
	static const int ko[5] = {I2, BPCHAR, NUM, TEXT, I8}, ki[5] = {I8, BPCHAR, NUM, VARCHAR, I8};
	static const uint32_t koff[5] = {0, 0, 48, 0, 32}, kw[5] = {16, 48, 32, 32, 16};
	static const int kd[5] = {0, 1, 1, 2, 2};
	for (int k = 0; k < 5; k++)
	{
		xpu_join_depth *jd = &jn.depths[kd[k]];
		if (jd->nkeys == 0)
			jd->key_first = k;
		XpuJoinKey *key = &jd->keys[jd->nkeys++];
		key->node = kn[k];
		key->outer_xtype = ko[k];
		key->inner_xtype = ki[k];
		key->offset = koff[k];
		key->width = kw[k];
	}
	std::vector<XpuJoinCol> cols;
	std::vector<int32_t> quals;
	int pv[3] = {-1, -1, -1};
	static const int pt[3] = {I8, NUM, TEXT};
	static const uint32_t pw[3] = {16, 32, 32};
	for (int d = 0; d < 3; d++)
	{
		jn.depths[d].join_type = types[d];
		jn.depths[d].row_size = rows[d];
		if (types[d] != XPU_JOIN_INNER && types[d] != XPU_JOIN_LEFT)
			continue;
		XpuJoinCol col;
		memset(&col, 0, sizeof(col));
		col.depth = d;
		col.inner_xtype = pt[d];
		col.offset = rows[d] - (d == 1 ? 32 : d == 2 ? 32 : 16);
		col.width = pw[d];
		pv[d] = p.add(XPU_OP_INNER_VAR, pt[d], {}, 0, (int) cols.size());
		cols.push_back(col);
		/* a residual qual at depth 1: numeric payload <> 0.00 (NULL rejects too) */
		if (d == 1)
		{
			quals.assign(3, -1);
			quals[1] = p.op(OP(NE), BOOL, {pv[1], p.num(0, 2)});
		}
	}
	PreAggSpec s;
	s.key(pv[0] >= 0 ? pv[0] : i2, pv[0] >= 0 ? I8 : I2);
	if (pv[2] >= 0)
		s.key(pv[2], TEXT, 16);		/* 8 + 8: longer texts RECHECK */
	s.agg(XPU_AGG_COUNT, -1, 0);
	s.agg(XPU_AGG_SUM_INT, i8, I8);
	if (pv[0] >= 0)
	{
		int sum = p.op(OP(ADD), I8, {i8, pv[0]});		/* kt's extremes overflow */
		s.agg(XPU_AGG_SUM_INT, sum, I8, p.op(OP(IS_NOT_NULL), BOOL, {pv[1] >= 0 ? pv[1] : pv[0]}));
		s.agg(XPU_AGG_MIN_INT, pv[0], I8);
	}
	if (pv[1] >= 0)
	{
		s.agg(XPU_AGG_SUM_INT, pv[1], NUM);
		s.aggs.back().param = 2;
		s.agg(XPU_AGG_MAX_INT, pv[1], NUM);
		s.aggs.back().param = 2;
	}
	if (pv[2] >= 0)
		s.agg(XPU_AGG_COUNT, pv[2], TEXT);
	return fused_message(p, s, jn, cols, root, quals);
}

/* payload values of row r of a depth (NULL now and then) */
static void
fill_page_payload(PageJoin &pj)
{
	for (int d = 0; d < (int) pj.jn.ndepths; d++)
	{
		HostInner *b = pj.bufs[d];
		for (int c = 0; c < (int) pj.jn.ncols; c++)
		{
			const XpuJoinCol *col = &pj.jn.cols[c];
			if (col->depth != d)
				continue;
			for (uint32_t r = 0; r < b->h->nrows; r++)
			{
				xpu_datum v = d_null();
				if (r % 7 != 3)
					switch (col->inner_xtype)
					{
						case I8: v = d_i64((int64_t) (r % 5) - 2); break;
						case NUM: v = d_num((xpu_int128) r * 25 - 100, 2); break;
						default:
							strpool.push_back(r % 4 == 1 ? "a long text" : "p" + std::to_string(r % 3));
							v = d_str(strpool.back().c_str());
							break;
					}
				xpu_key_store(col->inner_xtype, b->row(r) + col->offset, &v);
			}
		}
	}
}

/*
 * The kernel's passes over nblocks copies of the page, serially: batches
 * of XPU_PREAGG_BATCH_PAGES pages each with a fresh local table, then
 * grow-and-retry.  Returns the final table; the RECHECK items in *recheck.
 */
static HostTable *
host_fused_pages(const xpu_program *prog, const xpu_join *jn, const xpu_preagg *pa,
				 const xpu_join_inner *inners, const char *pages, uint32_t nblocks,
				 uint32_t nslots, std::set<uint32_t> *recheck, int *ngrowths)
{
	static xpu_datum slots[XPU_GPUSCAN_MAX_SLOTS];
	static XpuPreAggLocal loc alignas(16);
	HostTable *h = new HostTable(nslots, pa->entry_size);
	std::vector<uint32_t> retry;
	xpu_preagg_table tab, lt;

	*ngrowths = 0;
	CHECK(xpu_preagg_table_open(h->t, pa->entry_size, &tab));
	for (uint32_t b0 = 0; b0 < nblocks; b0 += XPU_PREAGG_BATCH_PAGES)
	{
		bool use_local = xpu_preagg_local_open(&loc, pa->entry_size, &lt);
		if (use_local)
			xpu_join_preagg_local_reset(&loc);
		for (uint32_t b = b0; b < std::min(nblocks, b0 + XPU_PREAGG_BATCH_PAGES); b++)
		{
			const char *page = pages + (size_t) b * XPU_BLCKSZ;
			for (int i = 0; i < xpu_page_nitems(page); i++)
			{
				uint32_t lp = xpu_load_u32(page + XPU_SIZE_OF_PAGE_HEADER + 4 * i);
				uint32_t item = (b << XPU_ITEM_BLOCK_SHIFT) | (uint32_t) (i + 1);
				if (xpu_lp_flags(lp) != XPU_LP_NORMAL)
					continue;
				int res = xpu_join_preagg_tuple(prog, jn, pa, inners, &tab, &loc,
												use_local ? &lt : NULL, page + xpu_lp_off(lp),
												(int32_t) xpu_lp_len(lp), slots);
				if (res == XPU_ROW_RECHECK)
					recheck->insert(item);
				else if (res == XPU_ROW_RETRY)
					retry.push_back(item);
			}
		}
		if (use_local)
			for (uint32_t i = 0; i < xpu_preagg_local_used(&lt); i++)
				xpu_preagg_local_flush(pa, &loc, &lt, i);
	}
	while (!retry.empty())
	{
		std::vector<uint32_t> again;
		h = grow_table(h, pa->entry_size);
		(*ngrowths)++;
		CHECK(xpu_preagg_table_open(h->t, pa->entry_size, &tab));
		for (uint32_t item : retry)
		{
			const char *tup;
			int32_t tuplen;
			CHECK(xpu_item_tuple(pages, nblocks, item, &tup, &tuplen));
			int res = xpu_join_preagg_tuple(prog, jn, pa, inners, &tab, &loc, NULL, tup, tuplen, slots);
			if (res == XPU_ROW_RECHECK)
				recheck->insert(item);
			else if (res == XPU_ROW_RETRY)
				again.push_back(item);
		}
		retry.swap(again);
	}
	return h;
}

/* the non-empty groups of a table by key, as their entries' bytes */
static std::map<std::string, std::string>
table_groups(const PreAggSpec &s, const char *base, const XpuPreAggTable *t)
{
	std::map<std::string, std::string> g;
	for (uint32_t i = 0; i < std::min(t->nentries, t->capacity); i++)
	{
		const char *e = base + t->entries_offset + (size_t) i * t->entry_size;
		if ((((const XpuPreAggEntryHeader *) e)->flags & XPU_PREAGG_ENTRY_VALID) &&
			!entry_empty(s, e))
			g[entry_key(s, e)] = std::string(e + XPU_PREAGG_ENTRY_HEADER, t->entry_size - XPU_PREAGG_ENTRY_HEADER);
	}
	return g;
}

/* the spec of a loaded grouping (for entry_key and entry_empty) */
static PreAggSpec
spec_of_preagg(const xpu_preagg *pa)
{
	PreAggSpec s;
	s.keys.assign(pa->keys, pa->keys + pa->nkeys);
	s.aggs.assign(pa->aggs, pa->aggs + pa->naggs);
	s.entry_size = pa->entry_size;
	return s;
}

/* a fused page join set up on the host (payload filled, index built) */
struct FusedPage
{
	PageJoin	pj;
	xpu_preagg	pa;
	PreAggSpec	spec;
	std::vector<char> msg;
	int			types[3];
};

static bool
fused_page_setup(FusedPage &fp, int round, const std::vector<char> &page)
{
	fp.msg = fused_page_session(round, fp.types);
	if (!page_join_setup(fp.pj, fp.msg, page, true))
		return false;
	fill_page_payload(fp.pj);
	static xpu_program prog;
	static xpu_join jn;
	if (xpu_join_preagg_setup_serial(fp.msg.data(), &prog, &jn, &fp.pa) != XPU_STATUS_OK)
		return false;
	fp.spec = spec_of_preagg(&fp.pa);
	return true;
}

/*
 * Every round's host passes over 20 copies of the page: a table that never
 * fills and one that fills again and again end with the same groups and
 * the same RECHECK rows.
 */
static void
test_fused_page(const char *path)
{
	std::vector<char> page;
	if (!test_page(path, page))
		return;
	const uint32_t nblocks = 20;
	std::vector<char> pages = repeated_pages(page, nblocks);
	for (int round = 0; round < 8; round++)
	{
		FusedPage fp;
		bool ok = fused_page_setup(fp, round, page);
		CHECK(ok);
		if (!ok)
			continue;
		std::set<uint32_t> r1, r2;
		int g1, g2;
		HostTable *big = host_fused_pages(&fp.pj.prog, &fp.pj.jn, &fp.pa, fp.pj.inners,
										  pages.data(), nblocks, 1 << 14, &r1, &g1);
		HostTable *small = host_fused_pages(&fp.pj.prog, &fp.pj.jn, &fp.pa, fp.pj.inners,
											pages.data(), nblocks, 2, &r2, &g2);
		auto a = table_groups(fp.spec, (const char *) big->t, big->t);
		auto b = table_groups(fp.spec, (const char *) small->t, small->t);
		ok = g1 == 0 && (g2 > 0 || a.size() <= 1) && r1 == r2 && a == b;
		if (!ok || getenv("VERBOSE"))
			fprintf(stderr, "%s fused page join %d/%d/%d: %zu groups (%zu small), %zu rechecks (%zu), growths %d/%d\n",
					ok ? "note:" : "FAIL", fp.types[0], fp.types[1], fp.types[2], a.size(), b.size(),
					r1.size(), r2.size(), g1, g2);
		CHECK(ok);
		delete big;
		delete small;
	}
}

/* ------------------------------------------------------------------ */
/* GpuJoin sessions with residual quals (the plain kernel's walk)       */
/* ------------------------------------------------------------------ */

/* the fused session's join part as a GPUJOIN session: no GpuPreAgg */
static std::vector<char>
plain_message(const Fused &f)
{
	std::vector<char> m = f.msg;
	XpuSession *ses = (XpuSession *) (m.data() + sizeof(PgStromMsgHeader));

	ses->kind = XPU_KIND_GPUJOIN;
	ses->preagg_offset = 0;
	return m;
}

/*
 * Every row through xpu_join_row_quals (xpu_join_tuple after the outer
 * stage, as kern_gpujoin_block runs it), launch after launch at capacity:
 * the records of all launches.  The walk evaluates nodes into the slots:
 * each row gets its outer stage afresh.
 */
static std::vector<Rec>
run_quals_launches(const Fused &f, const xpu_program *prog, const xpu_join *jn,
				   uint32_t capacity, uint32_t *nrecheck, bool *ok)
{
	int			nlaunches;

	*nrecheck = 0;
	return run_launches_with(jn, f.t.inners, f.outer, capacity,
		[&](XpuJoinCursor &cur, uint32_t *out, uint32_t cap, uint32_t *nout) {
			std::vector<xpu_datum> slots = f.outer[cur.item];
			uint32_t	nw = 0;

			return xpu_join_row_quals(prog, jn, f.t.inners, slots.data(), &cur, out,
									  cap, nout, &nw, nrecheck);
		}, &nlaunches, ok);
}

/*
 * Random joins with residual quals in GPUJOIN sessions: the records equal
 * the nested loop's combinations with each depth's qual, and a row one of
 * whose combinations overflows (quals at depths before the last, mode 1)
 * is one RECHECK record and nothing else.
 */
static void
test_plain_quals(void)
{
	static const uint32_t caps[] = {1, 2, 3, 7, 64, 100000};
	int			nfail = 0;
	long		nrecords = 0,
				nrechecks = 0;

	for (int trial = 0; trial < 800 && nfail < 5; trial++)
	{
		Fused		f;
		int			mode = 1 + trial % 2;

		if (!make_fused(f, 1 + trial % 4, NULL, NULL, -1, 1 + (int) (rng() % 8),
						rng() % 4 == 0, false, mode))
		{
			nfail++;
			continue;
		}
		std::vector<char> msg = plain_message(f);
		xpu_program prog;
		xpu_join	jn;
		int			st = xpu_join_setup_serial(msg.data(), &prog, &jn);

		if (st != XPU_STATUS_OK)
		{
			fprintf(stderr, "FAIL plain quals trial %d: session refused, status %d\n", trial, st);
			nfailed++;
			nfail++;
			continue;
		}
		FusedRef	ref;

		fused_reference(f, ref);
		std::vector<Rec> want;
		for (const Rec &r : fused_combinations(f))
			if (!ref.recheck.count(r[0]))
				want.push_back(r);
		for (uint32_t o : ref.recheck)
		{
			Rec		r(1 + jn.ndepths, XPU_JOIN_NO_INNER);

			r[0] = o | XPU_ITEM_RECHECK;
			want.push_back(r);
		}
		if (want.size() > 20000)
			continue;
		uint32_t	cap = caps[rng() % 6];
		uint32_t	nrecheck = 0;
		bool		ok;
		std::vector<Rec> got = run_quals_launches(f, &prog, &jn, cap, &nrecheck, &ok);

		std::sort(want.begin(), want.end());
		std::sort(got.begin(), got.end());
		if (!ok || got != want || nrecheck != ref.recheck.size())
		{
			fprintf(stderr, "FAIL plain quals trial %d (mode %d, %u depths, capacity %u): %zu records, reference %zu; %u RECHECK, reference %zu\n",
					trial, mode, jn.ndepths, cap, got.size(), want.size(), nrecheck, ref.recheck.size());
			nfailed++;
			nfail++;
			continue;
		}
		npassed++;
		nrecords += (long) got.size();
		nrechecks += nrecheck;
	}
	printf("plain joins with residual quals: %ld records, %ld RECHECK rows\n", nrecords, nrechecks);
}

int
join_preagg_tests(int argc, char **argv)
{
	test_fused_validator();
	test_fused_named();
	test_fused_random();
	test_plain_quals();
	test_fused_page(argc > 1 ? argv[1] : "vectors.txt");
	printf("join preagg: %d passed, %d failed (%zu combinations, %ld RETRY rows, %ld RECHECK rows, %ld growths)\n",
		   npassed, nfailed, total_fused_combinations, total_fused_retry, total_fused_recheck,
		   total_fused_growths);
	return nfailed == 0 ? 0 : 1;
}

#ifndef TEST_JOIN_PREAGG_NO_MAIN
int
main(int argc, char **argv)
{
	return join_preagg_tests(argc, argv);
}
#endif
