/*
 * gpupreagg.h
 *
 * GpuPreAgg: the GpuScan program decides which rows qualify, and each
 * qualifying row is folded into a group entry of a device hash table shared
 * by every session of the plan (see "GpuPreAgg" in pg_strom_xpu.h).
 *
 * The per-row steps (key normalization and comparison, find-or-insert,
 * accumulator arithmetic) are XPU_FUNC helpers whose atomics become plain
 * operations on the host, so kernels/test/ can check them serially.
 */
#ifndef GPUPREAGG_H
#define GPUPREAGG_H

#include "xpu_eval.h"
#include "xpu_hash.h"
#include "gpuscan.h"

/* outcome of a qualifying row that found no room for a new group */
#define XPU_ROW_RETRY		3

/* ---- memory operations: device atomics, plain operations on the host ---- */

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
 * Loads of table memory that other SMs write during the kernel: L2 only,
 * since an SM's L1 is not coherent and may hold a line of a neighbouring
 * entry from before the entry was filled.
 */
XPU_FUNC uint32_t
xpu_ld_cg_u32(const void *p)
{
#ifdef __CUDA_ARCH__
	return __ldcg((const unsigned int *) p);
#else
	return *((const uint32_t *) p);
#endif
}

XPU_FUNC uint64_t
xpu_ld_cg_u64(const void *p)
{
#ifdef __CUDA_ARCH__
	return __ldcg((const unsigned long long *) p);
#else
	return *((const uint64_t *) p);
#endif
}

/* a hash slot: acquire, so the entry it links to is seen filled */
XPU_FUNC uint32_t
xpu_ld_acquire_u32(const uint32_t *p)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
	uint32_t	v;

	asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
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

/* ---- the descriptor ---- */

/*
 * The grouping part of the program, as the kernel keeps it in shared
 * memory (1.5kB).
 */
typedef struct xpu_preagg
{
	uint32_t	nkeys;
	uint32_t	naggs;
	uint32_t	entry_size;
	uint32_t	keys_offset;
	uint32_t	aggs_offset;
	XpuGroupKey	keys[XPU_PREAGG_MAX_KEYS];
	XpuAggDesc	aggs[XPU_PREAGG_MAX_AGGS];
} xpu_preagg;

XPU_FUNC int
xpu_agg_bytes(int kind)
{
	switch (kind)
	{
#define XPU_AGG_BYTES_CASE(name, bytes) case XPU_AGG_##name: return bytes;
		XPU_AGG_LIST(XPU_AGG_BYTES_CASE)
#undef XPU_AGG_BYTES_CASE
		default:
			return -1;
	}
}

XPU_FUNC bool
xpu_type_is_intlike(int t)
{
	return xpu_type_is_int(t) || t == XPU_TYPE_DATE ||
		t == XPU_TYPE_TIMESTAMP || t == XPU_TYPE_TIMESTAMPTZ;
}

/* argument types each accumulator takes (COUNT's arg -1 is checked apart) */
XPU_FUNC bool
xpu_agg_argtype_ok(int kind, int t)
{
	switch (kind)
	{
		case XPU_AGG_COUNT:
			return t > XPU_TYPE_INVALID && t < XPU_TYPE__COUNT;
		case XPU_AGG_SUM_INT:
			return xpu_type_is_int(t) || t == XPU_TYPE_NUMERIC;
		case XPU_AGG_MIN_INT:
		case XPU_AGG_MAX_INT:
			return xpu_type_is_intlike(t) || t == XPU_TYPE_NUMERIC;
		case XPU_AGG_SUM_FP:
		case XPU_AGG_MIN_FP:
		case XPU_AGG_MAX_FP:
		case XPU_AGG_VAR_FP:
			return xpu_type_is_float(t);
		case XPU_AGG_VAR_INT:
			return t == XPU_TYPE_INT2 || t == XPU_TYPE_INT4;
		case XPU_AGG_VAR_INT8:
			return t == XPU_TYPE_INT8;
		default:
			return false;
	}
}

/* slot width a key of the type must have; text: -1 (checked apart) */
XPU_FUNC int
xpu_key_width(int t)
{
	if (xpu_type_is_text(t))
		return -1;
	if (t == XPU_TYPE_NUMERIC)
		return 32;
	if (t > XPU_TYPE_INVALID && t < XPU_TYPE__COUNT)
		return 16;
	return 0;
}

XPU_FUNC XpuGroupKey
xpu_load_group_key(const char *p)
{
	XpuGroupKey k;

	k.node = (int32_t) xpu_load_u32(p);
	k.xtype = (int16_t) xpu_load_u16(p + 4);
	k.reserved = (int16_t) xpu_load_u16(p + 6);
	k.offset = xpu_load_u32(p + 8);
	k.width = xpu_load_u32(p + 12);
	return k;
}

XPU_FUNC XpuAggDesc
xpu_load_agg_desc(const char *p)
{
	XpuAggDesc	a;

	a.kind = (int16_t) xpu_load_u16(p);
	a.argtype = (int16_t) xpu_load_u16(p + 2);
	a.arg = (int32_t) xpu_load_u32(p + 4);
	a.filter = (int32_t) xpu_load_u32(p + 8);
	a.offset = xpu_load_u32(p + 12);
	a.param = (int32_t) xpu_load_u32(p + 16);
	return a;
}

/*
 * xpu_preagg_program_header - xpu_program_header for a GPUPREAGG session,
 * plus the scalar fields of its XpuPreAggDesc.  Keys and aggregates are
 * loaded separately.  Returns an XPU_STATUS_*.
 */
XPU_FUNC int
xpu_preagg_program_header(const char *msg, xpu_program *prog, xpu_preagg *pa)
{
	const char *s = msg + sizeof(PgStromMsgHeader);
	const uint32_t hdr = (uint32_t) sizeof(PgStromMsgHeader);
	uint32_t	length;
	uint32_t	desc_off;
	uint64_t	end;
	const char *d;
	int			st = xpu_program_header_kind(msg, prog, XPU_KIND_GPUPREAGG);

	if (st != XPU_STATUS_OK)
		return st;
	length = xpu_load_u32(msg + 8);
	desc_off = xpu_load_u32(s + 56);

	/* the XpuPreAggDesc */
	end = (uint64_t) desc_off + sizeof(XpuPreAggDesc);
	if (desc_off < hdr || end > length)
		return XPU_STATUS_BAD_PROGRAM;
	d = msg + desc_off;
	pa->nkeys = xpu_load_u32(d + 0);
	pa->keys_offset = xpu_load_u32(d + 4);
	pa->naggs = xpu_load_u32(d + 8);
	pa->aggs_offset = xpu_load_u32(d + 12);
	pa->entry_size = xpu_load_u32(d + 16);
	if (xpu_load_u32(d + 20) != 0)
		return XPU_STATUS_BAD_PROGRAM;
	if (pa->nkeys > XPU_PREAGG_MAX_KEYS || pa->naggs > XPU_PREAGG_MAX_AGGS)
		return XPU_STATUS_BAD_PROGRAM;
	if ((pa->entry_size & 15) != 0 ||
		pa->entry_size < XPU_PREAGG_ENTRY_HEADER ||
		pa->entry_size > XPU_PREAGG_MAX_ENTRY)
		return XPU_STATUS_BAD_PROGRAM;
	end = (uint64_t) pa->keys_offset + sizeof(XpuGroupKey) * (uint64_t) pa->nkeys;
	if (pa->nkeys > 0 && (pa->keys_offset < hdr || end > length))
		return XPU_STATUS_BAD_PROGRAM;
	end = (uint64_t) pa->aggs_offset + sizeof(XpuAggDesc) * (uint64_t) pa->naggs;
	if (pa->naggs > 0 && (pa->aggs_offset < hdr || end > length))
		return XPU_STATUS_BAD_PROGRAM;
	return XPU_STATUS_OK;
}

/* region r (keys first, then aggregates) of the entry: [*off, *off + *len) */
XPU_FUNC void
xpu_preagg_region(const xpu_preagg *pa, int r, uint32_t *off, uint32_t *len)
{
	if (r < (int) pa->nkeys)
	{
		*off = pa->keys[r].offset;
		*len = pa->keys[r].width;
	}
	else
	{
		const XpuAggDesc *a = &pa->aggs[r - pa->nkeys];
		int			bytes = xpu_agg_bytes(a->kind);

		*off = a->offset;
		*len = bytes > 0 ? (uint32_t) bytes : 0;
	}
}

/* node j exists, is evaluated before the qual and has type t */
XPU_FUNC bool
xpu_preagg_node_ok(const xpu_program *prog, int32_t j, int t)
{
	return j >= 0 && (uint32_t) j < prog->root && prog->nodes[j].restype == t;
}

/*
 * xpu_preagg_validate_region - key or aggregate r (all of them and every
 * node loaded, nodes validated) is well formed, lies in the entry after its
 * header, and overlaps no region after it.
 */
XPU_FUNC bool
xpu_preagg_validate_region(const xpu_program *prog, const xpu_preagg *pa, int r)
{
	uint32_t	off,
				len;
	int			nregions = (int) (pa->nkeys + pa->naggs);
	int			j;

	if (r < (int) pa->nkeys)
	{
		const XpuGroupKey *k = &pa->keys[r];
		int			w = xpu_key_width(k->xtype);

		if (k->reserved != 0 || w == 0)
			return false;
		if (!xpu_preagg_node_ok(prog, k->node, k->xtype))
			return false;
		if (w > 0 ? k->width != (uint32_t) w :
			((k->width & 15) != 0 || k->width < 16 ||
			 k->width > 8 + XPU_PREAGG_MAX_TEXT_KEY))
			return false;
	}
	else
	{
		const XpuAggDesc *a = &pa->aggs[r - pa->nkeys];

		if (xpu_agg_bytes(a->kind) < 0)
			return false;
		if (a->argtype == XPU_TYPE_NUMERIC && a->kind != XPU_AGG_COUNT
			? (a->param < 0 || a->param > XPU_PREAGG_MAX_NUMERIC_SCALE)
			: a->param != 0)
			return false;
		if (a->arg == -1)
		{
			if (a->kind != XPU_AGG_COUNT || a->argtype != 0)
				return false;
		}
		else if (!xpu_agg_argtype_ok(a->kind, a->argtype) ||
				 !xpu_preagg_node_ok(prog, a->arg, a->argtype))
			return false;
		if (a->filter != -1 && !xpu_preagg_node_ok(prog, a->filter, XPU_TYPE_BOOL))
			return false;
	}
	xpu_preagg_region(pa, r, &off, &len);
	if ((off & 15) != 0 || off < XPU_PREAGG_ENTRY_HEADER ||
		(uint64_t) off + len > pa->entry_size)
		return false;
	for (j = r + 1; j < nregions; j++)
	{
		uint32_t	o2,
					l2;

		xpu_preagg_region(pa, j, &o2, &l2);
		if (off < o2 + l2 && o2 < off + len)
			return false;
	}
	return true;
}

/*
 * xpu_preagg_setup_serial - the whole set-up in one thread (host tests;
 * the kernel does the same steps in parallel).  Returns an XPU_STATUS_*.
 */
XPU_FUNC int
xpu_preagg_setup_serial(const char *msg, xpu_program *prog, xpu_preagg *pa)
{
	int			st = xpu_preagg_program_header(msg, prog, pa);
	int			i;

	if (st != XPU_STATUS_OK)
		return st;
	st = xpu_program_load_serial(prog);
	if (st != XPU_STATUS_OK)
		return st;
	for (i = 0; i < (int) pa->nkeys; i++)
		pa->keys[i] = xpu_load_group_key(prog->msg + pa->keys_offset + sizeof(XpuGroupKey) * i);
	for (i = 0; i < (int) pa->naggs; i++)
		pa->aggs[i] = xpu_load_agg_desc(prog->msg + pa->aggs_offset + sizeof(XpuAggDesc) * i);
	for (i = 0; i < (int) (pa->nkeys + pa->naggs); i++)
	{
		if (!xpu_preagg_validate_region(prog, pa, i))
			return XPU_STATUS_BAD_PROGRAM;
	}
	return XPU_STATUS_OK;
}

/* ---- the table ---- */

/* what a thread needs of an XpuPreAggTable, checked once */
typedef struct xpu_preagg_table
{
	uint32_t   *slots;
	char	   *entries;
	uint32_t   *nentries;
	uint32_t	nslots;
	uint32_t	capacity;
	uint32_t	entry_size;
} xpu_preagg_table;

/* false when the header is inconsistent (the kernel reports BAD_PROGRAM) */
XPU_FUNC bool
xpu_preagg_table_open(XpuPreAggTable *t, uint32_t entry_size, xpu_preagg_table *v)
{
	uint64_t	slots_end;
	uint64_t	entries_end;

	if (t->nslots == 0 || (t->nslots & (t->nslots - 1)) != 0 ||
		t->capacity > t->nslots ||
		t->entry_size != entry_size ||
		(entry_size & 15) != 0 || entry_size < XPU_PREAGG_ENTRY_HEADER ||
		entry_size > XPU_PREAGG_MAX_ENTRY)
		return false;
	/* 16-byte alignment makes every accumulator field 8-byte aligned */
	if ((t->slots_offset & 15) != 0 || (t->entries_offset & 15) != 0 ||
		t->slots_offset < sizeof(XpuPreAggTable) ||
		t->entries_offset < sizeof(XpuPreAggTable))
		return false;
	slots_end = t->slots_offset + 4 * (uint64_t) t->nslots;
	entries_end = t->entries_offset + (uint64_t) entry_size * t->capacity;
	if (!(slots_end <= t->entries_offset || entries_end <= t->slots_offset))
		return false;
	v->slots = (uint32_t *) ((char *) t + t->slots_offset);
	v->entries = (char *) t + t->entries_offset;
	v->nentries = &t->nentries;
	v->nslots = t->nslots;
	v->capacity = t->capacity;
	v->entry_size = entry_size;
	return true;
}

XPU_FUNC char *
xpu_preagg_entry(const xpu_preagg_table *tab, uint32_t idx)
{
	return tab->entries + (size_t) idx * tab->entry_size;
}

/* ---- keys ---- */

/* false when a text key is longer than its slot holds (RECHECK) */
XPU_FUNC bool
xpu_preagg_keys_fit(const xpu_preagg *pa, const xpu_datum *slots)
{
	int			i;

	for (i = 0; i < (int) pa->nkeys; i++)
	{
		const XpuGroupKey *k = &pa->keys[i];
		const xpu_datum *d = &slots[k->node];

		if (xpu_type_is_text(k->xtype) && !d->isnull &&
			(d->v.s.len < 0 || (uint32_t) d->v.s.len > k->width - 8))
			return false;
	}
	return true;
}

XPU_FUNC uint32_t
xpu_preagg_hash(const xpu_preagg *pa, const xpu_datum *slots)
{
	uint64_t	h = 0x2545f4914f6cdd1dULL;
	int			i;

	for (i = 0; i < (int) pa->nkeys; i++)
		h = xpu_hash_key(h, pa->keys[i].xtype, &slots[pa->keys[i].node]);
	return xpu_hash_final(h);
}

/*
 * xpu_key_store - write a key slot (the entry is zeroed).  The slot holds
 * the value as it is: trailing spaces and numeric scale are the creating
 * row's.
 */
XPU_FUNC void
xpu_key_store(int xtype, char *slot, const xpu_datum *d)
{
	if (d->isnull)
	{
		slot[0] = 1;
		return;
	}
	switch (xtype)
	{
		case XPU_TYPE_FLOAT4:
			*((float *) (slot + 8)) = d->v.f4;
			break;
		case XPU_TYPE_FLOAT8:
			*((double *) (slot + 8)) = d->v.f8;
			break;
		case XPU_TYPE_NUMERIC:
			*((int32_t *) (slot + 4)) = d->scale;
			*((uint64_t *) (slot + 16)) = (uint64_t) d->v.num;
			*((uint64_t *) (slot + 24)) = (uint64_t) (d->v.num >> 64);
			break;
		case XPU_TYPE_TEXT:
		case XPU_TYPE_VARCHAR:
		case XPU_TYPE_BPCHAR:
			{
				int32_t		i;

				*((int32_t *) (slot + 4)) = d->v.s.len;
				for (i = 0; i < d->v.s.len; i++)
					slot[8 + i] = d->v.s.ptr[i];
			}
			break;
		default:
			*((int64_t *) (slot + 8)) = d->v.i64;
			break;
	}
}

/* stored text bytes [0, len) of a slot equal p[0, len)? */
XPU_FUNC bool
xpu_key_bytes_equal(const char *slot, const char *p, int32_t len)
{
	int32_t		i = 0;

	while (i < len)
	{
		uint64_t	w = xpu_ld_cg_u64(slot + 8 + i);
		int			k;

		for (k = 0; k < 8 && i < len; k++, i++)
		{
			if ((uint8_t) (w >> (8 * k)) != (uint8_t) p[i])
				return false;
		}
	}
	return true;
}

/*
 * xpu_key_equal - PostgreSQL's grouping equality of a stored key slot and a
 * value; consistent with xpu_hash_key.
 */
XPU_FUNC bool
xpu_key_equal(int xtype, const char *slot, const xpu_datum *d)
{
	uint64_t	w0 = xpu_ld_cg_u64(slot);
	bool		snull = (w0 & 0xff) != 0;
	int32_t		aux = (int32_t) (uint32_t) (w0 >> 32);

	if (snull || d->isnull)
		return snull && d->isnull;
	switch (xtype)
	{
		case XPU_TYPE_FLOAT4:
			return xpu_float4_cmp(xpu_bits_to_f4(xpu_ld_cg_u32(slot + 8)), d->v.f4) == 0;
		case XPU_TYPE_FLOAT8:
			return xpu_float8_cmp(xpu_bits_to_f8(xpu_ld_cg_u64(slot + 8)), d->v.f8) == 0;
		case XPU_TYPE_NUMERIC:
			{
				uint64_t	lo = xpu_ld_cg_u64(slot + 16);
				uint64_t	hi = xpu_ld_cg_u64(slot + 24);
				xpu_int128	v = (xpu_int128) (((unsigned __int128) hi << 64) | lo);
				int			c = 1;

				/* exact within the device range: scaling up never loses */
				return xpu_numeric_cmp(v, aux, d->v.num, d->scale, &c) && c == 0;
			}
		case XPU_TYPE_TEXT:
		case XPU_TYPE_VARCHAR:
			return aux == d->v.s.len && xpu_key_bytes_equal(slot, d->v.s.ptr, aux);
		case XPU_TYPE_BPCHAR:
			{
				int32_t		len = d->v.s.len;
				int32_t		slen = aux;

				/* the stored trailing spaces: read back from the slot */
				while (slen > 0 &&
					   (uint8_t) (xpu_ld_cg_u64(slot + 8 + ((slen - 1) & ~7)) >>
								  (8 * ((slen - 1) & 7))) == ' ')
					slen--;
				len = xpu_bpchar_truelen(d->v.s.ptr, len);
				return slen == len && xpu_key_bytes_equal(slot, d->v.s.ptr, len);
			}
		default:
			return (int64_t) xpu_ld_cg_u64(slot + 8) == d->v.i64;
	}
}

XPU_FUNC bool
xpu_preagg_keys_equal(const xpu_preagg *pa, const char *entry, const xpu_datum *slots)
{
	int			i;

	for (i = 0; i < (int) pa->nkeys; i++)
	{
		const XpuGroupKey *k = &pa->keys[i];

		if (!xpu_key_equal(k->xtype, entry + k->offset, &slots[k->node]))
			return false;
	}
	return true;
}

/* ---- accumulators ---- */

/*
 * xpu_acc_add_i128 - (hi:lo) += v, with 64-bit atomics.  The carry out of
 * lo is exact for each addition because it is taken from the value lo had
 * just before it; hi collects the sign extensions and carries in any order,
 * so (hi:lo) is exact once every update has finished.
 */
XPU_FUNC void
xpu_acc_add_i128(uint64_t *lo, int64_t *hi, int64_t v)
{
	uint64_t	u = (uint64_t) v;
	uint64_t	old = xpu_atomic_add_u64(lo, u);
	int64_t		dhi = (v < 0 ? -1 : 0) + (old + u < old ? 1 : 0);

	if (dhi != 0)
		xpu_atomic_add_u64((uint64_t *) hi, (uint64_t) dhi);
}

/*
 * xpu_acc_add_u192 - (w2:w1:w0) += v, unsigned, with 64-bit atomics.  As in
 * xpu_acc_add_i128, every addition's carry comes from the value the word had
 * just before it, so the sum is exact once all updates have finished; each
 * word gets its own additions (never v + carry, which could wrap unseen).
 */
XPU_FUNC void
xpu_acc_add_u192(uint64_t *w, unsigned __int128 v)
{
	uint64_t	lo = (uint64_t) v;
	uint64_t	hi = (uint64_t) (v >> 64);
	uint64_t	carry2 = 0;

	if (lo != 0)
	{
		uint64_t	old = xpu_atomic_add_u64(&w[0], lo);

		if (old + lo < old)
		{
			uint64_t	o1 = xpu_atomic_add_u64(&w[1], 1);

			carry2 += (o1 == UINT64_MAX);
		}
	}
	if (hi != 0)
	{
		uint64_t	old = xpu_atomic_add_u64(&w[1], hi);

		carry2 += (old + hi < old);
	}
	if (carry2 != 0)
		xpu_atomic_add_u64(&w[2], carry2);
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
		default:
			break;
	}
}

/* ---- entries ---- */

XPU_FUNC void
xpu_preagg_entry_init(const xpu_preagg *pa, char *e, uint32_t entry_size,
					  uint32_t hash, const xpu_datum *slots)
{
	uint32_t	off;
	int			i;

	for (off = 0; off < entry_size; off += 8)
		*((uint64_t *) (e + off)) = 0;
	((XpuPreAggEntryHeader *) e)->hash = hash;
	/* VALID before linking: whoever finds the link sees a valid entry */
	((XpuPreAggEntryHeader *) e)->flags = XPU_PREAGG_ENTRY_VALID;
	for (i = 0; i < (int) pa->nkeys; i++)
		xpu_key_store(pa->keys[i].xtype, e + pa->keys[i].offset, &slots[pa->keys[i].node]);
	for (i = 0; i < (int) pa->naggs; i++)
		xpu_acc_init(&pa->aggs[i], e + pa->aggs[i].offset, slots);
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

		if (a->argtype == XPU_TYPE_NUMERIC && a->kind != XPU_AGG_COUNT &&
			xpu_agg_contributes(a, slots) &&
			!xpu_agg_numeric_scaled(a, &slots[a->arg], &v))
			return false;
	}
	return true;
}

/*
 * xpu_preagg_lookup - the entry of the row's group, created if there is
 * none; NULL when the table has no room for a new entry.
 *
 * Linear probing.  A new entry is filled and fenced before the CAS that
 * links it, so a reader that sees the link (acquire) sees it whole.  A
 * thread that loses a CAS re-reads the slot and keeps its prepared entry
 * for the next empty slot; if the winner (or any entry further along) has
 * its key, the prepared entry stays unlinked and loses VALID.
 */
XPU_FUNC char *
xpu_preagg_lookup(const xpu_preagg *pa, const xpu_preagg_table *tab,
				  const xpu_datum *slots, uint32_t hash)
{
	const uint32_t none = 0xffffffffU;
	uint32_t	mask = tab->nslots - 1;
	uint32_t	pos = hash & mask;
	uint32_t	prepared = none;
	uint32_t	probe = 0;

	while (probe < tab->nslots)
	{
		uint32_t	s = xpu_ld_acquire_u32(&tab->slots[pos]);

		if (s == 0)
		{
			if (prepared == none)
			{
				uint32_t	idx = xpu_atomic_add_u32(tab->nentries, 1);

				if (idx >= tab->capacity)
					return (char *) 0;
				xpu_preagg_entry_init(pa, xpu_preagg_entry(tab, idx), tab->entry_size,
									  hash, slots);
				xpu_fence();
				prepared = idx;
			}
			if (xpu_atomic_cas_u32(&tab->slots[pos], 0, prepared + 1) == 0)
				return xpu_preagg_entry(tab, prepared);
			continue;			/* read the winner's link with acquire */
		}
		if (s - 1 < tab->capacity)
		{
			char	   *e = xpu_preagg_entry(tab, s - 1);

			if (xpu_ld_cg_u32(e) == hash && xpu_preagg_keys_equal(pa, e, slots))
			{
				if (prepared != none)
					((XpuPreAggEntryHeader *) xpu_preagg_entry(tab, prepared))->flags = 0;
				return e;
			}
		}
		probe++;
		pos = (pos + 1) & mask;
	}
	/* every slot taken: only with capacity > nslots / 2 */
	if (prepared != none)
		((XpuPreAggEntryHeader *) xpu_preagg_entry(tab, prepared))->flags = 0;
	return (char *) 0;
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
 * xpu_preagg_row - a row whose qual is true: XPU_ROW_MATCH once it is
 * accumulated, XPU_ROW_RECHECK for a key the slot cannot hold, or
 * XPU_ROW_RETRY when its group is new and the table is full.
 */
XPU_NOINLINE int
xpu_preagg_row(const xpu_preagg *pa, const xpu_preagg_table *tab, const xpu_datum *slots)
{
	char	   *entry;

	if (!xpu_preagg_keys_fit(pa, slots) || !xpu_preagg_args_fit(pa, slots))
		return XPU_ROW_RECHECK;
	entry = xpu_preagg_lookup(pa, tab, slots, xpu_preagg_hash(pa, slots));
	if (entry == (char *) 0)
		return XPU_ROW_RETRY;
	xpu_preagg_accumulate(pa, entry, slots);
	return XPU_ROW_MATCH;
}

/* a whole LP_NORMAL tuple: XPU_ROW_NOMATCH, _MATCH, _RECHECK or _RETRY */
XPU_FUNC int
xpu_preagg_tuple(const xpu_program *prog, const xpu_preagg *pa, const xpu_preagg_table *tab,
				 const char *tup, int32_t tuplen, xpu_datum *slots)
{
	int			res = xpu_eval_tuple(prog, tup, tuplen, slots);

	if (res != XPU_ROW_MATCH)
		return res;
	return xpu_preagg_row(pa, tab, slots);
}

/*
 * xpu_preagg_rehash_entry - copy entry i of `from`, if VALID, into `to`.
 * Keys of `from` are distinct, so no comparison is needed.  False when `to`
 * has no room (the caller sized it wrongly).
 */
XPU_FUNC bool
xpu_preagg_rehash_entry(const xpu_preagg_table *from, const xpu_preagg_table *to, uint32_t i)
{
	const char *src = xpu_preagg_entry(from, i);
	uint32_t	hash = ((const XpuPreAggEntryHeader *) src)->hash;
	uint32_t	mask = to->nslots - 1;
	uint32_t	idx;
	uint32_t	off;
	uint32_t	probe;
	char	   *dst;

	if ((((const XpuPreAggEntryHeader *) src)->flags & XPU_PREAGG_ENTRY_VALID) == 0)
		return true;
	idx = xpu_atomic_add_u32(to->nentries, 1);
	if (idx >= to->capacity)
		return false;
	dst = xpu_preagg_entry(to, idx);
	for (off = 0; off < from->entry_size; off += 8)
		*((uint64_t *) (dst + off)) = *((const uint64_t *) (src + off));
	xpu_fence();
	for (probe = 0; probe < to->nslots; probe++)
	{
		if (xpu_atomic_cas_u32(&to->slots[(hash + probe) & mask], 0, idx + 1) == 0)
			return true;
	}
	((XpuPreAggEntryHeader *) dst)->flags = 0;
	return false;
}

/*
 * xpu_preagg_retry_tuple - the tuple that a retry item (block index <<
 * XPU_ITEM_BLOCK_SHIFT | line pointer number, no flags) names in the
 * chunk's nblocks pages.  The item comes back through the service, so it
 * is checked again rather than trusted: false when it names no sane
 * LP_NORMAL line pointer of a valid page, which the caller reports as
 * XPU_STATUS_BAD_PAGE.  The kernel and the host executor both decode retry
 * items here, so they accept and reject the same ones.
 */
XPU_FUNC bool
xpu_preagg_retry_tuple(const char *pages, uint32_t nblocks, uint32_t item,
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
 * xpu_preagg_setup_block - load and validate the program, the descriptor
 * and the table header into shared memory with all the block's threads.
 * False (status reported) when any of them is inconsistent.
 */
__device__ static bool
xpu_preagg_setup_block(const char *session, XpuPreAggTable *table,
					   xpu_program *prog, xpu_preagg *pa, xpu_preagg_table *tab,
					   int *s_status, uint32_t *counters)
{
	const int	tid = threadIdx.x;
	const int	nthreads = blockDim.x;
	int			bad;
	int			i;

	if (tid == 0)
	{
		int			st = xpu_preagg_program_header(session, prog, pa);

		if (st == XPU_STATUS_OK && !xpu_preagg_table_open(table, pa->entry_size, tab))
			st = XPU_STATUS_BAD_PROGRAM;
		*s_status = st;
	}
	__syncthreads();
	if (*s_status != XPU_STATUS_OK)
	{
		if (tid == 0)
			xpu_set_status(counters, *s_status);
		return false;
	}
	for (i = tid; i < (int) prog->nnodes; i += nthreads)
		prog->nodes[i] = xpu_load_node(xpu_program_node_ptr(prog, i));
	for (i = tid; i < (int) pa->nkeys; i += nthreads)
		pa->keys[i] = xpu_load_group_key(session + pa->keys_offset + sizeof(XpuGroupKey) * i);
	for (i = tid; i < (int) pa->naggs; i += nthreads)
		pa->aggs[i] = xpu_load_agg_desc(session + pa->aggs_offset + sizeof(XpuAggDesc) * i);
	__syncthreads();
	bad = 0;
	for (i = tid; i < (int) prog->nnodes; i += nthreads)
	{
		int			r;

		if (!xpu_validate_node(prog, i))
			bad = 1;
		r = xpu_var_rank(prog, i);
		if (r >= 0)
		{
			prog->var_attr[r] = (int16_t) prog->nodes[i].aux;
			prog->var_node[r] = (int16_t) i;
		}
	}
	/* regions refer to nodes by restype only, valid or not: no race */
	for (i = tid; i < (int) (pa->nkeys + pa->naggs); i += nthreads)
	{
		if (!xpu_preagg_validate_region(prog, pa, i))
			bad = 1;
	}
	if (tid == 0 && prog->nodes[prog->root].restype != XPU_TYPE_BOOL)
		bad = 1;
	if (__syncthreads_or(bad))
	{
		if (tid == 0)
			xpu_set_status(counters, XPU_STATUS_BAD_PROGRAM);
		return false;
	}
	if (tid == 0)
	{
		int			nvars = 0;

		for (i = 0; i <= (int) prog->root; i++)
			nvars += (prog->nodes[i].opcode == XPU_OP_VAR);
		prog->nvars = nvars;
		prog->max_attr = nvars > 0 ? prog->var_attr[nvars - 1] : -1;
	}
	__syncthreads();
	bad = 0;
	for (i = tid; i <= prog->max_attr; i += nthreads)
	{
		if (!xpu_validate_attr(prog, i))
			bad = 1;
	}
	if (__syncthreads_or(bad))
	{
		if (tid == 0)
			xpu_set_status(counters, XPU_STATUS_BAD_PROGRAM);
		return false;
	}
	return true;
}

/* RECHECK and RETRY rows go to the items, in any order */
__device__ static inline void
xpu_preagg_emit(uint32_t *items, uint32_t *counters, uint32_t item)
{
	items[atomicAdd(&counters[XPU_COUNTER_NITEMS], 1)] = item;
}

extern "C" __global__ void __launch_bounds__(XPU_GPUSCAN_THREADS)
kern_gpupreagg_block(const char *session,
					 const char *pages,
					 uint32_t nblocks,
					 const uint32_t *retry,
					 uint32_t nretry,
					 XpuPreAggTable *table,
					 uint32_t *items,
					 uint32_t *counters)
{
	__shared__ xpu_program prog;
	__shared__ xpu_preagg pa;
	__shared__ xpu_preagg_table tab;
	__shared__ int s_status;
	__shared__ uint32_t s_ntuples;
	__shared__ uint32_t s_nrecheck;
	xpu_datum	slots[XPU_GPUSCAN_MAX_SLOTS];
	const int	tid = threadIdx.x;
	const int	nthreads = blockDim.x;
	uint32_t	ntuples = 0;
	uint32_t	nrecheck = 0;

	if (retry == NULL ? blockIdx.x >= nblocks :
		(uint64_t) blockIdx.x * nthreads >= nretry)
		return;
	if (!xpu_preagg_setup_block(session, table, &prog, &pa, &tab, &s_status, counters))
		return;
	if (tid == 0)
	{
		s_ntuples = 0;
		s_nrecheck = 0;
	}

	if (retry == NULL)
	{
		const char *page = pages + (size_t) blockIdx.x * XPU_BLCKSZ;
		/* a bad page accumulates nothing: it is checked whole first */
		int			nitems = xpu_page_checked_nitems(page);
		int			i;

		if (nitems < 0)
		{
			if (tid == 0)
				xpu_set_status(counters, XPU_STATUS_BAD_PAGE);
			return;
		}
		for (i = tid; i < nitems; i += nthreads)
		{
			uint32_t	lp = xpu_load_u32(page + XPU_SIZE_OF_PAGE_HEADER + 4 * i);
			uint32_t	item;
			int			res;

			if (xpu_lp_flags(lp) != XPU_LP_NORMAL)
				continue;
			ntuples++;
			res = xpu_preagg_tuple(&prog, &pa, &tab, page + xpu_lp_off(lp),
								   (int32_t) xpu_lp_len(lp), slots);
			item = ((uint32_t) blockIdx.x << XPU_ITEM_BLOCK_SHIFT) | (uint32_t) (i + 1);
			if (res == XPU_ROW_RECHECK)
			{
				xpu_preagg_emit(items, counters, item | XPU_ITEM_RECHECK);
				nrecheck++;
			}
			else if (res == XPU_ROW_RETRY)
				xpu_preagg_emit(items, counters, item | XPU_ITEM_RETRY);
		}
	}
	else
	{
		uint32_t	k = blockIdx.x * (uint32_t) nthreads + tid;

		if (k < nretry)
		{
			uint32_t	item = retry[k];
			const char *tuple;
			int32_t		tuple_len;

			if (!xpu_preagg_retry_tuple(pages, nblocks, item, &tuple, &tuple_len))
				xpu_set_status(counters, XPU_STATUS_BAD_PAGE);
			else
			{
				int			res;

				ntuples++;
				res = xpu_preagg_tuple(&prog, &pa, &tab, tuple, tuple_len, slots);
				if (res == XPU_ROW_RECHECK)
				{
					xpu_preagg_emit(items, counters, item | XPU_ITEM_RECHECK);
					nrecheck++;
				}
				else if (res == XPU_ROW_RETRY)
					xpu_preagg_emit(items, counters, item | XPU_ITEM_RETRY);
			}
		}
	}

	/* after this, tid 0 has zeroed the block counters */
	__syncthreads();
	if (ntuples > 0)
		atomicAdd(&s_ntuples, ntuples);
	if (nrecheck > 0)
		atomicAdd(&s_nrecheck, nrecheck);
	__syncthreads();
	if (tid == 0)
	{
		if (s_ntuples > 0)
			atomicAdd(&counters[XPU_COUNTER_NTUPLES], s_ntuples);
		if (s_nrecheck > 0)
			atomicAdd(&counters[XPU_COUNTER_NRECHECK], s_nrecheck);
	}
}

extern "C" __global__ void
kern_gpupreagg_rehash(const XpuPreAggTable *from, XpuPreAggTable *to)
{
	xpu_preagg_table f;
	xpu_preagg_table t;
	uint32_t	n;
	uint32_t	i;

	/* the tables are only read here: open() needs a mutable pointer */
	if (!xpu_preagg_table_open((XpuPreAggTable *) from, from->entry_size, &f) ||
		!xpu_preagg_table_open(to, from->entry_size, &t))
		return;
	n = from->nentries < f.capacity ? from->nentries : f.capacity;
	for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		xpu_preagg_rehash_entry(&f, &t, i);
}

#endif							/* __CUDACC__ */
#endif							/* GPUPREAGG_H */
