/*
 * xpu_join_desc.h
 *
 * The join part of a GPUJOIN session's program: its wire layout
 * (XpuJoinDesc, XpuJoinDepth, XpuJoinKey), loading it from the
 * OpenSession message, and checking every depth and key against the
 * program and the inner row layout, in the style of xpu_preagg_desc.h.
 *
 * The wire structs (XpuJoinDesc, XpuJoinDepth, XpuJoinKey) are in
 * include/pg_strom_xpu.h, section "GpuJoin".
 *
 * A GPUJOIN session is a GPUSCAN program over the outer (fact) table: its
 * root is the outer quals (a CONST true when there are none), and the
 * nodes below the root include the outer side of every join key.  The
 * inner sides are not programs: the backend sends each inner row as
 * normalized key slots (the XpuGroupKey slot encoding of pg_strom_xpu.h),
 * so the device compares them exactly as GpuPreAgg compares group keys.
 */
#ifndef XPU_JOIN_DESC_H
#define XPU_JOIN_DESC_H

#include "xpu_eval.h"
#include "xpu_keys.h"

/*
 * Where the descriptor is: XpuSession.join_offset, byte 60 of the session
 * payload (the kernels load the session's fields by offset; test_join.cu
 * checks this against offsetof).
 */
#define XPU_SESSION_JOIN_OFFSET	60

/* a depth as the kernel keeps it (with its keys) in shared memory */
typedef struct xpu_join_depth
{
	int16_t		join_type;
	int16_t		nkeys;
	uint32_t	row_size;
	uint32_t	key_first;
	uint32_t	reserved;
	XpuJoinKey	keys[XPU_JOIN_MAX_KEYS];
} xpu_join_depth;

/* the join part of the program (about 1.1kB) */
typedef struct xpu_join
{
	uint32_t	ndepths;
	uint32_t	nkeys;
	uint32_t	depths_offset;
	uint32_t	keys_offset;
	uint32_t	ncols;
	uint32_t	cols_offset;
	uint32_t	quals_offset;
	/* each depth's residual qual node, -1 none (fused sessions) */
	int32_t		quals[XPU_JOIN_MAX_DEPTHS];
	/*
	 * The per-combination stage of a fused session, by reach (the deepest
	 * depth whose INNER_VAR a node depends on): nodes of reach r - 1 are
	 * [stage_end[r - 1], stage_end[r]) for r >= 1, those of reach -1
	 * (outer only) [root + 1, stage_end[0]).
	 */
	uint32_t	stage_end[XPU_JOIN_MAX_DEPTHS + 1];
	/* the deepest depth with a qual (-1: none): stages up to it are
	 * evaluated as the walk makes choices, the others per combination */
	int32_t		eager_depth;
	xpu_join_depth depths[XPU_JOIN_MAX_DEPTHS];
	XpuJoinCol	cols[XPU_JOIN_MAX_COLS];	/* payload columns */
} xpu_join;

/*
 * Outer and inner key types that PostgreSQL's hash join equality treats
 * like xpu_key_equal / xpu_hash_key do: the integer family (int2, int4,
 * int8: one hash opfamily; the device sign-extends all of them to int64),
 * text with varchar (varchar uses texteq), else the same type.  Not float4
 * with float8 (they hash differently here), nor date with timestamp (no
 * hash opfamily holds both).
 */
XPU_FUNC bool
xpu_join_types_joinable(int outer, int inner)
{
	if (outer <= XPU_TYPE_INVALID || outer >= XPU_TYPE__COUNT ||
		inner <= XPU_TYPE_INVALID || inner >= XPU_TYPE__COUNT)
		return false;
	if (xpu_type_is_int(outer) && xpu_type_is_int(inner))
		return true;
	return xpu_type_compatible(outer, inner);
}

XPU_FUNC XpuJoinKey
xpu_load_join_key(const char *p)
{
	XpuJoinKey	k;

	k.node = (int32_t) xpu_load_u32(p);
	k.outer_xtype = (int16_t) xpu_load_u16(p + 4);
	k.inner_xtype = (int16_t) xpu_load_u16(p + 6);
	k.offset = xpu_load_u32(p + 8);
	k.width = xpu_load_u32(p + 12);
	return k;
}

XPU_FUNC XpuJoinCol
xpu_load_join_col(const char *p)
{
	XpuJoinCol	c;

	c.depth = (int16_t) xpu_load_u16(p);
	c.inner_xtype = (int16_t) xpu_load_u16(p + 2);
	c.offset = xpu_load_u32(p + 4);
	c.width = xpu_load_u32(p + 8);
	c.reserved = xpu_load_u32(p + 12);
	return c;
}

/*
 * xpu_join_desc_header - the scalar fields of the session's XpuJoinDesc
 * (the program header checked).  Depths, keys and columns are loaded
 * separately.  Returns an XPU_STATUS_*.
 */
XPU_FUNC int
xpu_join_desc_header(const char *msg, xpu_join *jn)
{
	const char *s = msg + sizeof(PgStromMsgHeader);
	uint32_t	length = xpu_load_u32(msg + 8);
	uint32_t	desc_off = xpu_load_u32(s + XPU_SESSION_JOIN_OFFSET);
	const char *d;
	int			i;

	if (!xpu_msg_span_ok(desc_off, sizeof(XpuJoinDesc), length))
		return XPU_STATUS_BAD_PROGRAM;
	d = msg + desc_off;
	jn->ndepths = xpu_load_u32(d + 0);
	jn->depths_offset = xpu_load_u32(d + 4);
	jn->nkeys = xpu_load_u32(d + 8);
	jn->keys_offset = xpu_load_u32(d + 12);
	jn->ncols = xpu_load_u32(d + 20);
	jn->cols_offset = xpu_load_u32(d + 24);
	jn->quals_offset = xpu_load_u32(d + 28);
	/* no qual, until xpu_join_validate_inner_stage loads them */
	jn->eager_depth = -1;
	for (i = 0; i < XPU_JOIN_MAX_DEPTHS; i++)
		jn->quals[i] = -1;
	if (xpu_load_u32(d + 16) != 0)
		return XPU_STATUS_BAD_PROGRAM;
	if (jn->ndepths < 1 || jn->ndepths > XPU_JOIN_MAX_DEPTHS ||
		jn->nkeys < jn->ndepths || jn->nkeys > XPU_JOIN_MAX_DEPTHS * XPU_JOIN_MAX_KEYS ||
		jn->ncols > XPU_JOIN_MAX_COLS)
		return XPU_STATUS_BAD_PROGRAM;
	if (!xpu_msg_span_ok(jn->depths_offset, sizeof(XpuJoinDepth) * (uint64_t) jn->ndepths, length) ||
		!xpu_msg_span_ok(jn->keys_offset, sizeof(XpuJoinKey) * (uint64_t) jn->nkeys, length) ||
		(jn->ncols > 0 &&
		 !xpu_msg_span_ok(jn->cols_offset, sizeof(XpuJoinCol) * (uint64_t) jn->ncols, length)) ||
		(jn->quals_offset != 0 &&
		 !xpu_msg_span_ok(jn->quals_offset, 4 * (uint64_t) jn->ndepths, length)))
		return XPU_STATUS_BAD_PROGRAM;
	return XPU_STATUS_OK;
}

/*
 * xpu_join_program_header - xpu_program_header for a GPUJOIN session plus
 * the scalar fields of its XpuJoinDesc.  Returns an XPU_STATUS_*.
 */
XPU_FUNC int
xpu_join_program_header(const char *msg, xpu_program *prog, xpu_join *jn)
{
	const char *s = msg + sizeof(PgStromMsgHeader);
	int			st = xpu_program_header_kind(msg, prog, XPU_KIND_GPUJOIN);

	if (st != XPU_STATUS_OK)
		return st;
	/* a fused GpuPreAgg is a session of its own kind: refuse, not ignore */
	if (xpu_load_u32(s + 56) != 0)
		return XPU_STATUS_BAD_PROGRAM;
	/*
	 * Residual quals make the nodes after the root an inner stage, which
	 * the walk evaluates per combination (xpu_join_row_quals); without
	 * them the plain kernel evaluates nothing per combination.
	 */
	prog->inner_stage = false;
	st = xpu_join_desc_header(msg, jn);
	if (st != XPU_STATUS_OK)
		return st;
	/* only residual quals read inner values: no payload columns without them */
	if (jn->quals_offset == 0 && (jn->ncols != 0 || jn->cols_offset != 0))
		return XPU_STATUS_BAD_PROGRAM;
	prog->inner_stage = (jn->quals_offset != 0);
	return st;
}

/*
 * xpu_join_load_depth - depth d and its keys from the message (header
 * checked).  False when its key range is not the one that follows depth
 * d - 1's (key_first of every depth below d loaded already).
 */
XPU_FUNC bool
xpu_join_load_depth(const xpu_program *prog, xpu_join *jn, int d)
{
	const char *p = prog->msg + jn->depths_offset + sizeof(XpuJoinDepth) * d;
	xpu_join_depth *jd = &jn->depths[d];
	uint32_t	nkeys = xpu_load_u32(p + 4);
	uint32_t	first = xpu_load_u32(p + 8);
	uint32_t	expect = 0;
	int			i;

	jd->join_type = (int16_t) xpu_load_u16(p);
	jd->reserved = (uint32_t) xpu_load_u16(p + 2);	/* checked by validate */
	jd->row_size = xpu_load_u32(p + 12);
	jd->key_first = first;
	jd->nkeys = 0;
	if (d > 0)
		expect = jn->depths[d - 1].key_first + (uint32_t) jn->depths[d - 1].nkeys;
	if (nkeys < 1 || nkeys > XPU_JOIN_MAX_KEYS || first != expect ||
		(uint64_t) first + nkeys > jn->nkeys)
		return false;
	/* the last depth's keys end where the descriptor's do */
	if (d == (int) jn->ndepths - 1 && first + nkeys != jn->nkeys)
		return false;
	jd->nkeys = (int16_t) nkeys;
	for (i = 0; i < (int) nkeys; i++)
		jd->keys[i] = xpu_load_join_key(prog->msg + jn->keys_offset +
										sizeof(XpuJoinKey) * (first + i));
	return true;
}

/*
 * xpu_join_validate_depth - depth d (loaded; nodes loaded and validated)
 * has a known join type, and every key names an outer node evaluated
 * before the qual, joinable types, a slot of the right width inside the
 * inner row that overlaps no other key's.
 */
XPU_FUNC bool
xpu_join_validate_depth(const xpu_program *prog, const xpu_join *jn, int d)
{
	const xpu_join_depth *jd = &jn->depths[d];
	int			i,
				j;

	if (jd->join_type < XPU_JOIN_INNER || jd->join_type > XPU_JOIN_ANTI ||
		jd->reserved != 0)
		return false;
	if ((jd->row_size & 15) != 0 || jd->row_size < 16 || jd->row_size > XPU_JOIN_MAX_ROW)
		return false;
	if (jd->nkeys < 1 || jd->nkeys > XPU_JOIN_MAX_KEYS)
		return false;
	for (i = 0; i < jd->nkeys; i++)
	{
		const XpuJoinKey *k = &jd->keys[i];
		int			w = xpu_key_width(k->inner_xtype);

		if (!xpu_join_types_joinable(k->outer_xtype, k->inner_xtype) || w == 0)
			return false;
		if (k->node < 0 || (uint32_t) k->node >= prog->root ||
			prog->nodes[k->node].restype != k->outer_xtype)
			return false;
		if (w > 0 ? k->width != (uint32_t) w :
			((k->width & 15) != 0 || k->width < 16 ||
			 k->width > 8 + XPU_JOIN_MAX_TEXT_KEY))
			return false;
		if ((k->offset & 15) != 0 || (uint64_t) k->offset + k->width > jd->row_size)
			return false;
		for (j = i + 1; j < jd->nkeys; j++)
		{
			const XpuJoinKey *o = &jd->keys[j];

			if (k->offset < (uint64_t) o->offset + o->width &&
				o->offset < (uint64_t) k->offset + k->width)
				return false;
		}
	}
	return true;
}

/* slots [a, a + alen) and [b, b + blen) of a row overlap */
XPU_FUNC bool
xpu_join_slots_overlap(uint32_t a, uint32_t alen, uint32_t b, uint32_t blen)
{
	return a < (uint64_t) b + blen && b < (uint64_t) a + alen;
}

/*
 * xpu_join_validate_col - payload column c (every depth and column
 * loaded; depths validated) lies in an INNER or LEFT depth's row, has a
 * slot of the right width for its type, and overlaps none of the depth's
 * key slots nor another column of the depth.
 */
XPU_FUNC bool
xpu_join_validate_col(const xpu_join *jn, int c)
{
	const XpuJoinCol *col = &jn->cols[c];
	const xpu_join_depth *jd;
	int			w = xpu_key_width(col->inner_xtype);
	int			i;

	if (col->reserved != 0 || col->depth < 0 || (uint32_t) col->depth >= jn->ndepths)
		return false;
	jd = &jn->depths[col->depth];
	/* SEMI and ANTI depths have no matched row to read */
	if (jd->join_type != XPU_JOIN_INNER && jd->join_type != XPU_JOIN_LEFT)
		return false;
	if (col->inner_xtype <= XPU_TYPE_INVALID || col->inner_xtype >= XPU_TYPE__COUNT || w == 0)
		return false;
	if (w > 0 ? col->width != (uint32_t) w :
		((col->width & 15) != 0 || col->width < 16 ||
		 col->width > 8 + XPU_JOIN_MAX_TEXT_KEY))
		return false;
	if ((col->offset & 15) != 0 || (uint64_t) col->offset + col->width > jd->row_size)
		return false;
	for (i = 0; i < jd->nkeys; i++)
	{
		if (xpu_join_slots_overlap(col->offset, col->width,
								   jd->keys[i].offset, jd->keys[i].width))
			return false;
	}
	for (i = 0; i < (int) jn->ncols; i++)
	{
		const XpuJoinCol *o = &jn->cols[i];

		if (i != c && o->depth == col->depth &&
			xpu_join_slots_overlap(col->offset, col->width, o->offset, o->width))
			return false;
	}
	return true;
}

/*
 * xpu_join_load_validate - after the program's nodes: load and check
 * every depth, key and payload column.  False on the first bad one.
 */
XPU_FUNC bool
xpu_join_load_validate(const xpu_program *prog, xpu_join *jn)
{
	int			d,
				c;

	for (d = 0; d < (int) jn->ndepths; d++)
	{
		if (!xpu_join_load_depth(prog, jn, d) || !xpu_join_validate_depth(prog, jn, d))
			return false;
	}
	for (c = 0; c < (int) jn->ncols; c++)
		jn->cols[c] = xpu_load_join_col(prog->msg + jn->cols_offset + sizeof(XpuJoinCol) * c);
	for (c = 0; c < (int) jn->ncols; c++)
	{
		if (!xpu_join_validate_col(jn, c))
			return false;
	}
	return true;
}

/*
 * xpu_join_validate_inner_stage - in a fused session (nodes validated,
 * the join loaded and validated): every INNER_VAR (after the root, as
 * xpu_validate_node checks) names a payload column of its own type, and
 * no VAR lies after the root (the tuple walk fills only those up to it).
 * Nodes up to the root cannot depend on an INNER_VAR: their arguments
 * come before them.  Fills the stage ranges (xpu_join.stage_end) and
 * loads and checks the residual quals: a depth's qual is evaluated when
 * the depth's choice is made, so it may not follow a node that reads a
 * deeper depth.
 */
XPU_FUNC bool
xpu_join_validate_inner_stage(const xpu_program *prog, xpu_join *jn)
{
	int8_t		reach[XPU_GPUSCAN_MAX_SLOTS];
	int8_t		stage[XPU_GPUSCAN_MAX_SLOTS];
	int			prev = -1;
	int			i,
				d;

	for (i = (int) prog->root + 1; i < (int) prog->nnodes; i++)
	{
		const XpuNode *n = &prog->nodes[i];
		int			r = -1;
		int			k;

		if (n->opcode == XPU_OP_VAR)
			return false;
		if (n->opcode == XPU_OP_INNER_VAR)
		{
			if (n->aux < 0 || (uint32_t) n->aux >= jn->ncols ||
				jn->cols[n->aux].inner_xtype != n->restype)
				return false;
			r = jn->cols[n->aux].depth;
		}
		for (k = 0; k < n->nargs; k++)
		{
			int32_t		a = xpu_prog_arg(prog, n, k);

			if (a > (int32_t) prog->root && reach[a] > r)
				r = reach[a];
		}
		reach[i] = (int8_t) r;
		/*
		 * Node i is evaluated with the depth its stage names: the deepest
		 * reach of the nodes up to it (its arguments come before it).
		 */
		for (d = prev; d < r; d++)
			jn->stage_end[d + 1] = (uint32_t) i;
		if (r > prev)
			prev = r;
		stage[i] = (int8_t) prev;
	}
	for (d = prev; d < (int) jn->ndepths; d++)
		jn->stage_end[d + 1] = prog->nnodes;
	/* residual quals: BOOL nodes after the root, reaching no deeper */
	jn->eager_depth = -1;
	for (d = 0; d < (int) jn->ndepths; d++)
	{
		int32_t		q = jn->quals_offset == 0 ? -1 :
			(int32_t) xpu_load_u32(prog->msg + jn->quals_offset + 4 * d);

		jn->quals[d] = q;
		if (q == -1)
			continue;
		/* SEMI and ANTI depths: not yet (their rows are not columns) */
		if (jn->depths[d].join_type != XPU_JOIN_INNER &&
			jn->depths[d].join_type != XPU_JOIN_LEFT)
			return false;
		/* evaluated once depth d is chosen, before any deeper one */
		if (q <= (int32_t) prog->root || (uint32_t) q >= prog->nnodes ||
			prog->nodes[q].restype != XPU_TYPE_BOOL || stage[q] > d)
			return false;
		jn->eager_depth = d;
	}
	return true;
}

/*
 * xpu_join_setup_serial_kind - the whole set-up of the program and its
 * join in one thread (host tests, the host executor, and for now thread 0
 * of each kernel block), for a GPUJOIN session or the join part of a
 * GPUJOIN_PREAGG one (its XpuPreAggDesc is loaded by xpu_join_preagg.h).
 * Returns an XPU_STATUS_*.
 */
XPU_FUNC int
xpu_join_setup_serial_kind(const char *msg, xpu_program *prog, xpu_join *jn, uint32_t kind)
{
	int			st;

	if (kind == XPU_KIND_GPUJOIN_PREAGG)
	{
		st = xpu_program_header_kind(msg, prog, kind);
		if (st == XPU_STATUS_OK)
			st = xpu_join_desc_header(msg, jn);
		prog->inner_stage = 1;
	}
	else
		st = xpu_join_program_header(msg, prog, jn);
	if (st != XPU_STATUS_OK)
		return st;
	st = xpu_program_load_serial(prog);
	if (st != XPU_STATUS_OK)
		return st;
	if (!xpu_join_load_validate(prog, jn) ||
		(prog->inner_stage && !xpu_join_validate_inner_stage(prog, jn)))
		return XPU_STATUS_BAD_PROGRAM;
	return XPU_STATUS_OK;
}

XPU_FUNC int
xpu_join_setup_serial(const char *msg, xpu_program *prog, xpu_join *jn)
{
	return xpu_join_setup_serial_kind(msg, prog, jn, XPU_KIND_GPUJOIN);
}

#endif							/* XPU_JOIN_DESC_H */
