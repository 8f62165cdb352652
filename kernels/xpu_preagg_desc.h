/*
 * xpu_preagg_desc.h
 *
 * The grouping part of a GPUPREAGG session's program (XpuPreAggDesc, its
 * XpuGroupKeys and XpuAggDescs): loading it from the message and checking
 * every key and aggregate against the program and the entry layout.
 */
#ifndef XPU_PREAGG_DESC_H
#define XPU_PREAGG_DESC_H

#include "xpu_eval.h"
#include "xpu_keys.h"

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
		case XPU_AGG_SUM_NUMV:
			return t == XPU_TYPE_NUMERIC;
		default:
			return false;
	}
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
xpu_preagg_desc_header(const char *msg, xpu_preagg *pa)
{
	const char *s = msg + sizeof(PgStromMsgHeader);
	uint32_t	length = xpu_load_u32(msg + 8);
	uint32_t	desc_off = xpu_load_u32(s + 56);
	const char *d;

	/* the XpuPreAggDesc */
	if (!xpu_msg_span_ok(desc_off, sizeof(XpuPreAggDesc), length))
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
	if ((pa->nkeys > 0 &&
		 !xpu_msg_span_ok(pa->keys_offset, sizeof(XpuGroupKey) * (uint64_t) pa->nkeys, length)) ||
		(pa->naggs > 0 &&
		 !xpu_msg_span_ok(pa->aggs_offset, sizeof(XpuAggDesc) * (uint64_t) pa->naggs, length)))
		return XPU_STATUS_BAD_PROGRAM;
	return XPU_STATUS_OK;
}

XPU_FUNC int
xpu_preagg_program_header(const char *msg, xpu_program *prog, xpu_preagg *pa)
{
	int			st = xpu_program_header_kind(msg, prog, XPU_KIND_GPUPREAGG);

	if (st != XPU_STATUS_OK)
		return st;
	return xpu_preagg_desc_header(msg, pa);
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

/*
 * node j exists, is evaluated for every qualifying row and has type t:
 * before the qual, or (fused over a join) after it, per combination
 */
XPU_FUNC bool
xpu_preagg_node_ok(const xpu_program *prog, int32_t j, int t)
{
	if (j < 0 || (uint32_t) j >= prog->nnodes || (uint32_t) j == prog->root)
		return false;
	if ((uint32_t) j > prog->root && !prog->inner_stage)
		return false;
	return prog->nodes[j].restype == t;
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
			? (a->param < 0 || a->param > (a->kind == XPU_AGG_SUM_NUMV
										   ? XPU_PREAGG_MAX_NUMV_SCALE
										   : XPU_PREAGG_MAX_NUMERIC_SCALE))
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
 * xpu_preagg_load_validate - after the program's nodes: load and check
 * every key and aggregate.  Returns an XPU_STATUS_*.
 */
XPU_FUNC int
xpu_preagg_load_validate(const xpu_program *prog, xpu_preagg *pa)
{
	int			i;

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

/*
 * xpu_preagg_setup_serial - the whole set-up in one thread (host tests;
 * the kernel does the same steps in parallel).  Returns an XPU_STATUS_*.
 */
XPU_FUNC int
xpu_preagg_setup_serial(const char *msg, xpu_program *prog, xpu_preagg *pa)
{
	int			st = xpu_preagg_program_header(msg, prog, pa);

	if (st != XPU_STATUS_OK)
		return st;
	st = xpu_program_load_serial(prog);
	if (st != XPU_STATUS_OK)
		return st;
	return xpu_preagg_load_validate(prog, pa);
}

#endif							/* XPU_PREAGG_DESC_H */
