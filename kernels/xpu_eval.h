/*
 * xpu_eval.h
 *
 * The xPU program: validation of its structure (so that evaluation never
 * reads out of bounds nor reinterprets a value as another type), the
 * attribute walk that fills VAR slots, and the interpreter.
 *
 * Evaluation never fails: anything the device does not model exactly as
 * PostgreSQL 15 does makes the row RECHECK.
 */
#ifndef XPU_EVAL_H
#define XPU_EVAL_H

#include "xpu_common.h"
#include "xpu_heap.h"
#include "xpu_numeric.h"
#include "xpu_datetime.h"
#include "xpu_text.h"
#include "xpu_format.h"

/* outcome of one row */
#define XPU_ROW_NOMATCH		0
#define XPU_ROW_MATCH		1
#define XPU_ROW_RECHECK		2

/*
 * The program, as the kernel keeps it in shared memory (about 2.6kB).
 * Node and argument reads never assume alignment of the message layout.
 */
typedef struct xpu_program
{
	const char *msg;			/* the OpenSession message */
	const char *attrs;			/* XpuAttr[nattrs] */
	const char *args;			/* int32_t[nargs] */
	const char *consts;			/* constant pool */
	uint32_t	nattrs;
	uint32_t	nargs;
	uint32_t	consts_len;
	uint32_t	nnodes;
	uint32_t	root;
	int32_t		nvars;			/* VAR nodes at or below root */
	int32_t		max_attr;		/* highest attribute index a VAR reads, -1 none */
	int32_t		inner_stage;	/* fused GpuJoin + GpuPreAgg only: nodes after
								 * root are evaluated once per join
								 * combination and may be INNER_VARs */
	int16_t		var_attr[XPU_GPUSCAN_MAX_SLOTS];	/* sorted by (attr, node) */
	int16_t		var_node[XPU_GPUSCAN_MAX_SLOTS];
	XpuNode		nodes[XPU_GPUSCAN_MAX_SLOTS];
} xpu_program;

/* ---- type properties ---- */
XPU_FUNC bool
xpu_type_is_int(int t)
{
	return t == XPU_TYPE_INT2 || t == XPU_TYPE_INT4 || t == XPU_TYPE_INT8;
}

XPU_FUNC bool
xpu_type_is_float(int t)
{
	return t == XPU_TYPE_FLOAT4 || t == XPU_TYPE_FLOAT8;
}

XPU_FUNC bool
xpu_type_is_text(int t)
{
	return t == XPU_TYPE_TEXT || t == XPU_TYPE_VARCHAR || t == XPU_TYPE_BPCHAR;
}

/* the text functions' argument types: bpchar reaches them through a CAST */
/* a text-making node's scratch region lies within the program's */
XPU_FUNC bool
xpu_scratch_region_ok(const xpu_program *prog, const XpuNode *n)
{
	return n->aux >= 0 && XPU_SCRATCH_OFFSET(n->aux) % 8 == 0 &&
		XPU_SCRATCH_OFFSET(n->aux) + XPU_SCRATCH_CAPACITY(n->aux) <=
		XPU_SCRATCH_BYTES(prog->nnodes);
}

XPU_FUNC bool
xpu_type_is_varlena_text(int t)
{
	return t == XPU_TYPE_TEXT || t == XPU_TYPE_VARCHAR;
}

/* same device representation and the same semantics */
XPU_FUNC bool
xpu_type_compatible(int a, int b)
{
	if (a == b)
		return true;
	return (a == XPU_TYPE_TEXT || a == XPU_TYPE_VARCHAR) &&
		(b == XPU_TYPE_TEXT || b == XPU_TYPE_VARCHAR);
}

/* attlen a heap attribute of the device type must have */
XPU_FUNC int
xpu_type_attlen(int t)
{
	switch (t)
	{
		case XPU_TYPE_BOOL:			return 1;
		case XPU_TYPE_INT2:			return 2;
		case XPU_TYPE_INT4:			return 4;
		case XPU_TYPE_INT8:			return 8;
		case XPU_TYPE_FLOAT4:		return 4;
		case XPU_TYPE_FLOAT8:		return 8;
		case XPU_TYPE_DATE:			return 4;
		case XPU_TYPE_TIMESTAMP:	return 8;
		case XPU_TYPE_TIMESTAMPTZ:	return 8;
		case XPU_TYPE_NUMERIC:
		case XPU_TYPE_TEXT:
		case XPU_TYPE_VARCHAR:
		case XPU_TYPE_BPCHAR:		return -1;
		default:					return 0;
	}
}

/* bytes of a CONST of the type in the pool (text: the fixed part) */
XPU_FUNC int
xpu_type_const_size(int t)
{
	switch (t)
	{
		case XPU_TYPE_BOOL:			return 1;
		case XPU_TYPE_INT2:			return 2;
		case XPU_TYPE_INT4:
		case XPU_TYPE_FLOAT4:
		case XPU_TYPE_DATE:			return 4;
		case XPU_TYPE_INT8:
		case XPU_TYPE_FLOAT8:
		case XPU_TYPE_TIMESTAMP:
		case XPU_TYPE_TIMESTAMPTZ:	return 8;
		case XPU_TYPE_NUMERIC:		return (int) sizeof(XpuNumericConst);
		case XPU_TYPE_TEXT:
		case XPU_TYPE_VARCHAR:
		case XPU_TYPE_BPCHAR:		return (int) sizeof(XpuTextConst);
		default:					return -1;
	}
}

XPU_FUNC bool
xpu_cast_supported(int from, int to)
{
	if (xpu_type_is_int(from))
		return xpu_type_is_int(to) || xpu_type_is_float(to) || to == XPU_TYPE_NUMERIC;
	if (xpu_type_is_float(from))
		return xpu_type_is_float(to) || xpu_type_is_int(to) || to == XPU_TYPE_NUMERIC;
	if (from == XPU_TYPE_NUMERIC)
		return xpu_type_is_int(to) || xpu_type_is_float(to);
	if (from == XPU_TYPE_DATE)
		return to == XPU_TYPE_TIMESTAMP;
	if (from == XPU_TYPE_TIMESTAMP)
		return to == XPU_TYPE_DATE;
	if (from == XPU_TYPE_VARCHAR || from == XPU_TYPE_TEXT)
		return to == XPU_TYPE_VARCHAR || to == XPU_TYPE_TEXT;
	if (from == XPU_TYPE_BPCHAR)
		return to == XPU_TYPE_TEXT;
	return false;
}

/* ---- reading the message ---- */
XPU_FUNC XpuNode
xpu_load_node(const char *p)
{
	XpuNode		n;

	n.opcode = (int16_t) xpu_load_u16(p);
	n.restype = (int16_t) xpu_load_u16(p + 2);
	n.nargs = (int16_t) xpu_load_u16(p + 4);
	n.flags = xpu_load_u16(p + 6);
	n.args = (int32_t) xpu_load_u32(p + 8);
	n.aux = (int32_t) xpu_load_u32(p + 12);
	return n;
}

XPU_FUNC int32_t
xpu_prog_arg(const xpu_program *prog, const XpuNode *node, int k)
{
	return (int32_t) xpu_load_u32(prog->args + 4 * ((int64_t) node->args + k));
}

XPU_FUNC void
xpu_prog_attr(const xpu_program *prog, int a, int *attlen, int *attalign, int *xtype)
{
	const char *p = prog->attrs + 8 * a;

	*attlen = (int16_t) xpu_load_u16(p);
	*attalign = (int8_t) p[2];
	*xtype = (int16_t) xpu_load_u16(p + 4);
}

/*
 * xpu_msg_span_ok - bytes at offset off lie inside a message of length
 * bytes, after its header (offsets come from the message: never trusted).
 */
XPU_FUNC bool
xpu_msg_span_ok(uint32_t off, uint64_t bytes, uint32_t length)
{
	return off >= sizeof(PgStromMsgHeader) && (uint64_t) off + bytes <= length;
}

/*
 * xpu_program_header_kind - check the message and session header (of a
 * session of the given kind) and fill the scalar fields of prog.  Node data is loaded separately.  Returns an
 * XPU_STATUS_*.
 */
XPU_FUNC int
xpu_program_header_kind(const char *msg, xpu_program *prog, uint32_t kind)
{
	uint32_t	length;
	const char *s = msg + sizeof(PgStromMsgHeader);
	uint32_t	attrs_off,
				nodes_off,
				args_off,
				consts_off;

	if (xpu_load_u32(msg) != PGSTROM_MSG_MAGIC)
		return XPU_STATUS_BAD_PROGRAM;
	length = xpu_load_u32(msg + 8);
	if (length < sizeof(PgStromMsgHeader) + sizeof(XpuSession))
		return XPU_STATUS_BAD_PROGRAM;
	if (xpu_load_u32(s + 0) != XPU_PROGRAM_MAGIC ||
		xpu_load_u32(s + 4) != kind)
		return XPU_STATUS_BAD_PROGRAM;
	prog->msg = msg;
	prog->nattrs = xpu_load_u32(s + 16);
	attrs_off = xpu_load_u32(s + 20);
	prog->nnodes = xpu_load_u32(s + 24);
	nodes_off = xpu_load_u32(s + 28);
	prog->nargs = xpu_load_u32(s + 32);
	args_off = xpu_load_u32(s + 36);
	prog->consts_len = xpu_load_u32(s + 40);
	consts_off = xpu_load_u32(s + 44);
	prog->root = xpu_load_u32(s + 48);
	prog->inner_stage = 0;		/* set by the fused session's own header */

	if (prog->nnodes < 1 || prog->nnodes > XPU_GPUSCAN_MAX_SLOTS ||
		prog->nnodes > XPU_MAX_NODES ||
		prog->root >= prog->nnodes ||
		prog->nattrs > XPU_MAX_ATTRS)
		return XPU_STATUS_BAD_PROGRAM;
	if ((prog->nattrs > 0 && !xpu_msg_span_ok(attrs_off, 8 * (uint64_t) prog->nattrs, length)) ||
		!xpu_msg_span_ok(nodes_off, 16 * (uint64_t) prog->nnodes, length) ||
		(prog->nargs > 0 && !xpu_msg_span_ok(args_off, 4 * (uint64_t) prog->nargs, length)) ||
		(prog->consts_len > 0 && !xpu_msg_span_ok(consts_off, prog->consts_len, length)))
		return XPU_STATUS_BAD_PROGRAM;
	prog->attrs = msg + attrs_off;
	prog->args = msg + args_off;
	prog->consts = msg + consts_off;
	prog->nodes[0] = xpu_load_node(msg + nodes_off);	/* rest by the caller */
	return XPU_STATUS_OK;
}

XPU_FUNC int
xpu_program_header(const char *msg, xpu_program *prog)
{
	return xpu_program_header_kind(msg, prog, XPU_KIND_GPUSCAN);
}

XPU_FUNC const char *
xpu_program_node_ptr(const xpu_program *prog, int i)
{
	const char *s = prog->msg + sizeof(PgStromMsgHeader);

	return prog->msg + xpu_load_u32(s + 28) + 16 * i;
}

/* attribute descriptor a is well formed (only those up to max_attr are walked) */
XPU_FUNC bool
xpu_validate_attr(const xpu_program *prog, int a)
{
	int			attlen,
				attalign,
				xtype;

	xpu_prog_attr(prog, a, &attlen, &attalign, &xtype);
	if (!(attlen > 0 || attlen == -1 || attlen == -2))
		return false;
	if (attalign != 1 && attalign != 2 && attalign != 4 && attalign != 8)
		return false;
	if (xtype != 0)
	{
		if (xtype < 0 || xtype >= XPU_TYPE__COUNT)
			return false;
		if (xpu_type_attlen(xtype) != attlen)
			return false;
	}
	return true;
}

/*
 * xpu_validate_node - node i (nodes[0..nnodes-1] loaded) is well formed and
 * well typed.
 */
/* XPU_ZONE_* of xpu_datetime.h read the rules at these offsets */
static_assert(sizeof(XpuZoneRules) == 24 && sizeof(XpuZoneTransition) == 16,
			  "XpuZoneRules or XpuZoneTransition changed size");

/*
 * Whether an XpuZoneRules at pool offset off, with its transitions, lies
 * inside the pool (what the kernels read of it; the service checks the
 * rest).
 */
XPU_FUNC bool
xpu_zone_rules_fit(const xpu_program *prog, int32_t off)
{
	int32_t		ntrans;

	if (off < 0 || off % 16 != 0 ||
		(int64_t) off + (int64_t) sizeof(XpuZoneRules) > (int64_t) prog->consts_len)
		return false;
	ntrans = (int32_t) xpu_load_u32(prog->consts + off + 16);
	return ntrans >= 0 && ntrans <= XPU_ZONE_MAX_TRANSITIONS &&
		(int64_t) off + (int64_t) sizeof(XpuZoneRules) +
		(int64_t) ntrans * (int64_t) sizeof(XpuZoneTransition) <= (int64_t) prog->consts_len;
}

XPU_FUNC bool
xpu_validate_node(const xpu_program *prog, int i)
{
	const XpuNode *n = &prog->nodes[i];
	int			op = n->opcode;
	int			rt = n->restype;
	int			na = n->nargs;
	int			t0 = 0,
				t1 = 0;
	int			k;

	/*
	 * An inner row's column exists only per join combination: after the
	 * root, in a session that evaluates those nodes per combination.  Its
	 * column and type are checked against the join
	 * (xpu_join_validate_inner_stage in xpu_join_desc.h).
	 */
	if (op == XPU_OP_INNER_VAR)
		return prog->inner_stage && (uint32_t) i > prog->root && na == 0 &&
			n->flags == 0 && n->args == 0 && rt > XPU_TYPE_INVALID && rt < XPU_TYPE__COUNT;
	if (op <= XPU_OP_INVALID || op >= XPU_OP__COUNT)
		return false;
	if (rt <= XPU_TYPE_INVALID || rt >= XPU_TYPE__COUNT)
		return false;
	if (na < 0)
		return false;
	if (na > 0)
	{
		if (n->args < 0 || (int64_t) n->args + na > (int64_t) prog->nargs)
			return false;
		for (k = 0; k < na; k++)
		{
			int32_t		a = xpu_prog_arg(prog, n, k);

			if (a < 0 || a >= i)
				return false;
		}
		t0 = prog->nodes[xpu_prog_arg(prog, n, 0)].restype;
		if (na > 1)
			t1 = prog->nodes[xpu_prog_arg(prog, n, 1)].restype;
	}

	switch (op)
	{
		case XPU_OP_VAR:
			{
				int			attlen,
							attalign,
							xtype;

				if (na != 0 || n->aux < 0 || (uint32_t) n->aux >= prog->nattrs)
					return false;
				xpu_prog_attr(prog, n->aux, &attlen, &attalign, &xtype);
				return xtype == rt;
			}
		case XPU_OP_CONST:
			{
				int			sz = xpu_type_const_size(rt);

				if (na != 0)
					return false;
				if (n->flags & XPU_NODE_CONST_NULL)
					return true;
				if (n->aux < 0 || (n->aux & 15) != 0 || sz < 0 ||
					(int64_t) n->aux + sz > (int64_t) prog->consts_len)
					return false;
				if (xpu_type_is_text(rt))
				{
					int32_t		len = (int32_t) xpu_load_u32(prog->consts + n->aux);

					if (len < 0 || (int64_t) n->aux + sz + len > (int64_t) prog->consts_len)
						return false;
				}
				return true;
			}
		case XPU_OP_EQ:
		case XPU_OP_NE:
		case XPU_OP_LT:
		case XPU_OP_LE:
		case XPU_OP_GT:
		case XPU_OP_GE:
			if (na != 2 || rt != XPU_TYPE_BOOL || !xpu_type_compatible(t0, t1))
				return false;
			if (t0 == XPU_TYPE_BOOL)
				return op == XPU_OP_EQ || op == XPU_OP_NE;
			if (xpu_type_is_text(t0))
				return op == XPU_OP_EQ || op == XPU_OP_NE ||
					(n->flags & XPU_NODE_TEXT_BYTEWISE) != 0;
			return true;
		case XPU_OP_ADD:
		case XPU_OP_SUB:
		case XPU_OP_MUL:
		case XPU_OP_DIV:
		case XPU_OP_MOD:
			if (na != 2 || t0 != rt || t1 != rt)
				return false;
			if (xpu_type_is_int(rt))
				return true;
			if (xpu_type_is_float(rt))
				return op != XPU_OP_MOD;
			if (rt == XPU_TYPE_NUMERIC)
				return op != XPU_OP_MOD;
			return false;
		case XPU_OP_NEG:
		case XPU_OP_ABS:
			if (na != 1 || t0 != rt)
				return false;
			return xpu_type_is_int(rt) || xpu_type_is_float(rt) || rt == XPU_TYPE_NUMERIC;
		case XPU_OP_FLOOR:
		case XPU_OP_CEIL:
		case XPU_OP_RINT:
		case XPU_OP_TRUNC:
		case XPU_OP_SIGN:
			return na == 1 && t0 == rt && xpu_type_is_float(rt);
		case XPU_OP_CAST:
			return na == 1 && xpu_cast_supported(t0, rt);
		case XPU_OP_AND:
		case XPU_OP_OR:
			if (na < 2 || rt != XPU_TYPE_BOOL)
				return false;
			for (k = 0; k < na; k++)
			{
				if (prog->nodes[xpu_prog_arg(prog, n, k)].restype != XPU_TYPE_BOOL)
					return false;
			}
			return true;
		case XPU_OP_NOT:
			return na == 1 && rt == XPU_TYPE_BOOL && t0 == XPU_TYPE_BOOL;
		case XPU_OP_IS_NULL:
		case XPU_OP_IS_NOT_NULL:
			return na == 1 && rt == XPU_TYPE_BOOL;
		case XPU_OP_IS_TRUE:
		case XPU_OP_IS_NOT_TRUE:
		case XPU_OP_IS_FALSE:
		case XPU_OP_IS_NOT_FALSE:
		case XPU_OP_IS_UNKNOWN:
		case XPU_OP_IS_NOT_UNKNOWN:
			return na == 1 && rt == XPU_TYPE_BOOL && t0 == XPU_TYPE_BOOL;
		case XPU_OP_CASE:
			if (na < 3 || (na & 1) == 0)
				return false;
			for (k = 0; k < na; k++)
			{
				int			t = prog->nodes[xpu_prog_arg(prog, n, k)].restype;

				if (k < na - 1 && (k & 1) == 0)
				{
					if (t != XPU_TYPE_BOOL)
						return false;
				}
				else if (!xpu_type_compatible(t, rt))
					return false;
			}
			return true;
		case XPU_OP_COALESCE:
			if (na < 1)
				return false;
			for (k = 0; k < na; k++)
			{
				if (!xpu_type_compatible(prog->nodes[xpu_prog_arg(prog, n, k)].restype, rt))
					return false;
			}
			return true;
		case XPU_OP_DATE_PLI:
		case XPU_OP_DATE_MII:
			return na == 2 && t0 == XPU_TYPE_DATE && t1 == XPU_TYPE_INT4 &&
				rt == XPU_TYPE_DATE;
		case XPU_OP_DATE_MI:
			return na == 2 && t0 == XPU_TYPE_DATE && t1 == XPU_TYPE_DATE &&
				rt == XPU_TYPE_INT4;
		case XPU_OP_DATE_TRUNC:
			if (na != 1 || t0 != XPU_TYPE_TIMESTAMP || rt != XPU_TYPE_TIMESTAMP)
				return false;
			return n->aux == XPU_FIELD_YEAR || n->aux == XPU_FIELD_QUARTER ||
				n->aux == XPU_FIELD_MONTH || n->aux == XPU_FIELD_WEEK ||
				n->aux == XPU_FIELD_DAY || n->aux == XPU_FIELD_HOUR ||
				n->aux == XPU_FIELD_MINUTE || n->aux == XPU_FIELD_SECOND ||
				n->aux == XPU_FIELD_DECADE || n->aux == XPU_FIELD_CENTURY ||
				n->aux == XPU_FIELD_MILLENNIUM;
		case XPU_OP_TS_PL_INTERVAL:
			return na == 4 && n->flags == 0 && n->aux == 0 &&
				t0 == XPU_TYPE_TIMESTAMP && t1 == XPU_TYPE_INT4 &&
				prog->nodes[xpu_prog_arg(prog, n, 2)].restype == XPU_TYPE_INT4 &&
				prog->nodes[xpu_prog_arg(prog, n, 3)].restype == XPU_TYPE_INT8 &&
				rt == XPU_TYPE_TIMESTAMP;
		case XPU_OP_TZ_LOCAL:
		case XPU_OP_TZ_UTC:
			if (na != 1 ||
				t0 != (op == XPU_OP_TZ_LOCAL ? XPU_TYPE_TIMESTAMPTZ : XPU_TYPE_TIMESTAMP) ||
				rt != (op == XPU_OP_TZ_LOCAL ? XPU_TYPE_TIMESTAMP : XPU_TYPE_TIMESTAMPTZ))
				return false;
			if (n->flags == 0)
				return n->aux > -86400 && n->aux < 86400;
			return n->flags == XPU_NODE_TZ_RULES && xpu_zone_rules_fit(prog, n->aux);
		case XPU_OP_NUM_ROUND:
		case XPU_OP_NUM_TRUNC:
			return na == 1 && t0 == XPU_TYPE_NUMERIC && rt == XPU_TYPE_NUMERIC &&
				n->aux >= -XPU_NUMERIC_MAX_RESULT_SCALE &&
				n->aux <= XPU_NUMERIC_MAX_RESULT_SCALE;
		case XPU_OP_SUBSTR:
			if ((na != 2 && na != 3) || !xpu_type_is_varlena_text(t0) ||
				t1 != XPU_TYPE_INT4 || rt != XPU_TYPE_TEXT)
				return false;
			return na == 2 ||
				prog->nodes[xpu_prog_arg(prog, n, 2)].restype == XPU_TYPE_INT4;
		case XPU_OP_CHAR_LENGTH:
		case XPU_OP_OCTET_LENGTH:
			return na == 1 && xpu_type_is_varlena_text(t0) && rt == XPU_TYPE_INT4;
		case XPU_OP_STRPOS:
		case XPU_OP_STARTS_WITH:
			return na == 2 && xpu_type_is_varlena_text(t0) &&
				xpu_type_is_varlena_text(t1) &&
				rt == (op == XPU_OP_STRPOS ? XPU_TYPE_INT4 : XPU_TYPE_BOOL);
		case XPU_OP_LEFT:
		case XPU_OP_RIGHT:
			return na == 2 && xpu_type_is_varlena_text(t0) &&
				t1 == XPU_TYPE_INT4 && rt == XPU_TYPE_TEXT;
		case XPU_OP_TRIM_SPACES:
			return na == 1 && xpu_type_is_varlena_text(t0) && rt == XPU_TYPE_TEXT &&
				n->aux >= 1 && n->aux <= 3;
		case XPU_OP_SPLIT_PART:
			return na == 3 && n->flags == 0 && xpu_type_is_varlena_text(t0) &&
				xpu_type_is_varlena_text(t1) && rt == XPU_TYPE_TEXT &&
				prog->nodes[xpu_prog_arg(prog, n, 2)].restype == XPU_TYPE_INT4;
		case XPU_OP_REPLACE:
			if (na != 3 || n->flags != 0 || !xpu_type_is_varlena_text(t0) ||
				!xpu_type_is_varlena_text(t1) || rt != XPU_TYPE_TEXT ||
				!xpu_type_is_varlena_text(prog->nodes[xpu_prog_arg(prog, n, 2)].restype))
				return false;
			return xpu_scratch_region_ok(prog, n);
		case XPU_OP_REVERSE:
			if (na != 1 || (n->flags & ~XPU_NODE_LIKE_UTF8) != 0 ||
				!xpu_type_is_varlena_text(t0) || rt != XPU_TYPE_TEXT)
				return false;
			return xpu_scratch_region_ok(prog, n);
		case XPU_OP_LOWER:
		case XPU_OP_UPPER:
		case XPU_OP_TEXTCAT:
			if (na != (op == XPU_OP_TEXTCAT ? 2 : 1) || n->flags != 0 ||
				!xpu_type_is_varlena_text(t0) || rt != XPU_TYPE_TEXT ||
				(op == XPU_OP_TEXTCAT && !xpu_type_is_varlena_text(t1)))
				return false;
			return xpu_scratch_region_ok(prog, n);
		case XPU_OP_TO_CHAR:
			if (na != 2 || n->flags != 0 || rt != XPU_TYPE_TEXT ||
				t0 != XPU_TYPE_TIMESTAMP || t1 != XPU_TYPE_TEXT ||
				prog->nodes[xpu_prog_arg(prog, n, 1)].opcode != XPU_OP_CONST)
				return false;
			return xpu_scratch_region_ok(prog, n);
		case XPU_OP_TO_TEXT:
			if (na != 1 || n->flags != 0 || rt != XPU_TYPE_TEXT ||
				!(t0 == XPU_TYPE_INT2 || t0 == XPU_TYPE_INT4 ||
				  t0 == XPU_TYPE_INT8 || t0 == XPU_TYPE_BOOL ||
				  t0 == XPU_TYPE_NUMERIC || t0 == XPU_TYPE_DATE ||
				  t0 == XPU_TYPE_TIMESTAMP))
				return false;
			return xpu_scratch_region_ok(prog, n);
		case XPU_OP_EXTRACT:
		case XPU_OP_DATE_PART:
			if (na != 1 || (t0 != XPU_TYPE_DATE && t0 != XPU_TYPE_TIMESTAMP))
				return false;
			if (n->aux < XPU_FIELD_YEAR || n->aux > XPU_FIELD_MICROSEC)
				return false;
			return rt == (op == XPU_OP_EXTRACT ? XPU_TYPE_NUMERIC : XPU_TYPE_FLOAT8);
		case XPU_OP_LIKE:
		case XPU_OP_NOT_LIKE:
			{
				const XpuNode *pat;

				if (na != 2 || rt != XPU_TYPE_BOOL ||
					(t0 != XPU_TYPE_TEXT && t0 != XPU_TYPE_VARCHAR &&
					 t0 != XPU_TYPE_BPCHAR) ||
					(t1 != XPU_TYPE_TEXT && t1 != XPU_TYPE_VARCHAR))
					return false;
				pat = &prog->nodes[xpu_prog_arg(prog, n, 1)];
				return pat->opcode == XPU_OP_CONST;
			}
		default:
			return false;
	}
}

/*
 * xpu_var_rank - position of VAR node i in the (attr, node) order among the
 * VAR nodes at or below root; -1 when node i is not such a VAR.
 */
XPU_FUNC int
xpu_var_rank(const xpu_program *prog, int i)
{
	const XpuNode *n = &prog->nodes[i];
	int			rank = 0;
	int			j;

	if (n->opcode != XPU_OP_VAR || (uint32_t) i > prog->root)
		return -1;
	for (j = 0; j <= (int) prog->root; j++)
	{
		const XpuNode *m = &prog->nodes[j];

		if (m->opcode == XPU_OP_VAR &&
			(m->aux < n->aux || (m->aux == n->aux && j < i)))
			rank++;
	}
	return rank;
}

/*
 * xpu_program_setup_serial - the whole set-up in one thread (host tests;
 * the kernel does the same steps in parallel).  Returns an XPU_STATUS_*.
 */
/*
 * xpu_program_load_serial - after the header: load and validate the nodes
 * and the attributes the VARs read, in one thread.
 */
XPU_FUNC int
xpu_program_load_serial(xpu_program *prog)
{
	int			i;

	for (i = 0; i < (int) prog->nnodes; i++)
		prog->nodes[i] = xpu_load_node(xpu_program_node_ptr(prog, i));
	for (i = 0; i < (int) prog->nnodes; i++)
	{
		if (!xpu_validate_node(prog, i))
			return XPU_STATUS_BAD_PROGRAM;
	}
	if (prog->nodes[prog->root].restype != XPU_TYPE_BOOL)
		return XPU_STATUS_BAD_PROGRAM;
	prog->nvars = 0;
	for (i = 0; i < (int) prog->nnodes; i++)
	{
		int			r = xpu_var_rank(prog, i);

		if (r >= 0)
		{
			prog->var_attr[r] = (int16_t) prog->nodes[i].aux;
			prog->var_node[r] = (int16_t) i;
			prog->nvars++;
		}
	}
	prog->max_attr = prog->nvars > 0 ? prog->var_attr[prog->nvars - 1] : -1;
	for (i = 0; i <= prog->max_attr; i++)
	{
		if (!xpu_validate_attr(prog, i))
			return XPU_STATUS_BAD_PROGRAM;
	}
	return XPU_STATUS_OK;
}

XPU_FUNC int
xpu_program_setup_serial(const char *msg, xpu_program *prog)
{
	int			st = xpu_program_header(msg, prog);

	if (st != XPU_STATUS_OK)
		return st;
	return xpu_program_load_serial(prog);
}

/* ---- values ---- */

/* the payload of an inline, uncompressed varlena; false otherwise */
XPU_FUNC bool
xpu_varlena_payload(const char *p, int32_t size, int kind, const char **data, int32_t *len)
{
	if (kind == 1)
	{
		*data = p + 1;
		*len = size - 1;
		return true;
	}
	if (kind == 0)
	{
		*data = p + 4;
		*len = size - 4;
		return true;
	}
	return false;				/* external or compressed: CPU */
}

/*
 * xpu_decode_fixed - a value of a fixed-length type as PostgreSQL stores
 * it, which heap tuples and the constant pool share; false for the other
 * types, which each decodes its own way.
 */
XPU_FUNC bool
xpu_decode_fixed(int xtype, const char *p, xpu_datum *d)
{
	switch (xtype)
	{
		case XPU_TYPE_BOOL:
			d->v.i64 = (p[0] != 0);
			return true;
		case XPU_TYPE_INT2:
			d->v.i64 = (int16_t) xpu_load_u16(p);
			return true;
		case XPU_TYPE_INT4:
		case XPU_TYPE_DATE:
			d->v.i64 = (int32_t) xpu_load_u32(p);
			return true;
		case XPU_TYPE_INT8:
		case XPU_TYPE_TIMESTAMP:
		case XPU_TYPE_TIMESTAMPTZ:
			d->v.i64 = (int64_t) xpu_load_u64(p);
			return true;
		case XPU_TYPE_FLOAT4:
			d->v.f4 = xpu_bits_to_f4(xpu_load_u32(p));
			return true;
		case XPU_TYPE_FLOAT8:
			d->v.f8 = xpu_bits_to_f8(xpu_load_u64(p));
			return true;
		default:
			return false;
	}
}

/* decode a non-null heap attribute into a slot; false => RECHECK */
XPU_FUNC bool
xpu_decode_attr(int xtype, const char *p, int32_t size, int kind, xpu_datum *d)
{
	d->isnull = 0;
	d->scale = 0;
	if (xpu_decode_fixed(xtype, p, d))
		return true;
	switch (xtype)
	{
		case XPU_TYPE_NUMERIC:
			{
				const char *data;
				int32_t		len;

				if (!xpu_varlena_payload(p, size, kind, &data, &len))
					return false;
				return xpu_numeric_decode(data, len, &d->v.num, &d->scale);
			}
		case XPU_TYPE_TEXT:
		case XPU_TYPE_VARCHAR:
		case XPU_TYPE_BPCHAR:
			return xpu_varlena_payload(p, size, kind, &d->v.s.ptr, &d->v.s.len);
		default:
			return false;
	}
}

/*
 * xpu_walk_tuple - walk the heap tuple's attributes up to max_attr and fill
 * the VAR slots.  False => RECHECK (malformed tuple, an attribute beyond
 * the tuple's natts, external/compressed varlena, numeric out of range).
 */
XPU_FUNC bool
xpu_walk_tuple(const xpu_program *prog, const char *tup, int32_t tuplen, xpu_datum *slots)
{
	uint16_t	infomask2;
	uint16_t	infomask;
	int32_t		t_hoff;
	int32_t		natts;
	bool		hasnull;
	const char *bits;
	const char *data;
	int32_t		dlen;
	int32_t		off = 0;
	int			k = 0;
	int			a;

	if (prog->nvars == 0)
		return true;
	if (tuplen < XPU_SIZEOF_HEAP_TUPLE_HEADER)
		return false;
	infomask2 = xpu_load_u16(tup + 18);
	infomask = xpu_load_u16(tup + 20);
	t_hoff = (uint8_t) tup[22];
	natts = infomask2 & XPU_HEAP_NATTS_MASK;
	hasnull = (infomask & XPU_HEAP_HASNULL) != 0;
	if (t_hoff < XPU_SIZEOF_HEAP_TUPLE_HEADER || t_hoff > tuplen || (t_hoff & 7) != 0)
		return false;
	if (hasnull && XPU_SIZEOF_HEAP_TUPLE_HEADER + (natts + 7) / 8 > t_hoff)
		return false;
	if (prog->max_attr >= natts)
		return false;			/* may have a missing default: CPU */
	bits = tup + XPU_SIZEOF_HEAP_TUPLE_HEADER;
	data = tup + t_hoff;
	dlen = tuplen - t_hoff;

	for (a = 0; a <= prog->max_attr; a++)
	{
		int			attlen,
					attalign,
					xtype;
		int32_t		size;
		int			kind = 0;
		bool		referenced = (k < prog->nvars && prog->var_attr[k] == a);

		if (hasnull && (((uint8_t) bits[a >> 3]) & (1 << (a & 7))) == 0)
		{
			while (k < prog->nvars && prog->var_attr[k] == a)
			{
				slots[prog->var_node[k]].isnull = 1;
				k++;
			}
			continue;
		}
		xpu_prog_attr(prog, a, &attlen, &attalign, &xtype);
		if (attlen > 0)
		{
			off = xpu_align(off, attalign);
			size = attlen;
			if (off + size > dlen)
				return false;
		}
		else if (attlen == -1)
		{
			if (off >= dlen)
				return false;
			/* att_align_pointer: a non-zero byte starts the datum itself */
			if (data[off] == 0)
				off = xpu_align(off, attalign);
			if (off >= dlen)
				return false;
			size = xpu_varsize_any(data + off, dlen - off, &kind);
			if (size < 0)
				return false;
		}
		else
		{
			int32_t		n = 0;

			off = xpu_align(off, attalign);
			while (off + n < dlen && data[off + n] != 0)
				n++;
			if (off + n >= dlen)
				return false;
			size = n + 1;
		}
		if (referenced)
		{
			xpu_datum  *first = &slots[prog->var_node[k]];

			if (!xpu_decode_attr(xtype, data + off, size, kind, first))
				return false;
			k++;
			while (k < prog->nvars && prog->var_attr[k] == a)
			{
				slots[prog->var_node[k]] = *first;
				k++;
			}
		}
		off += size;
	}
	return true;
}

/* ---- the interpreter ---- */

XPU_FUNC bool
xpu_const_value(const xpu_program *prog, const XpuNode *n, xpu_datum *d)
{
	const char *p;

	d->scale = 0;
	if (n->flags & XPU_NODE_CONST_NULL)
	{
		d->isnull = 1;
		return true;
	}
	d->isnull = 0;
	p = prog->consts + n->aux;
	if (xpu_decode_fixed(n->restype, p, d))
		return true;
	switch (n->restype)
	{
		case XPU_TYPE_NUMERIC:
			{
				uint64_t	lo = xpu_load_u64(p);
				uint64_t	hi = xpu_load_u64(p + 8);
				int32_t		scale = (int32_t) xpu_load_u32(p + 16);
				xpu_int128	v = (xpu_int128) (((unsigned __int128) hi << 64) | lo);

				/* not xpu_abs128(v): the pool may hold -2^127, whose negation overflows */
				if (scale < 0 || v > xpu_numeric_bound() || v < -xpu_numeric_bound())
					return false;
				d->v.num = v;
				d->scale = scale;
				return true;
			}
		case XPU_TYPE_TEXT:
		case XPU_TYPE_VARCHAR:
		case XPU_TYPE_BPCHAR:
			d->v.s.len = (int32_t) xpu_load_u32(p);
			d->v.s.ptr = p + sizeof(XpuTextConst);
			return true;
		default:
			return false;
	}
}

XPU_FUNC int64_t
xpu_int_min(int t)
{
	return t == XPU_TYPE_INT2 ? -32768 : t == XPU_TYPE_INT4 ? (int64_t) INT32_MIN : INT64_MIN;
}

XPU_FUNC int64_t
xpu_int_max(int t)
{
	return t == XPU_TYPE_INT2 ? 32767 : t == XPU_TYPE_INT4 ? (int64_t) INT32_MAX : INT64_MAX;
}

/* float8_cmp_internal / float4_cmp_internal: NaN = NaN > everything */
XPU_FUNC int
xpu_float8_cmp(double a, double b)
{
	if (xpu_isnan8(a))
		return xpu_isnan8(b) ? 0 : 1;
	if (xpu_isnan8(b))
		return -1;
	return (a > b) ? 1 : (a < b) ? -1 : 0;
}

XPU_FUNC int
xpu_float4_cmp(float a, float b)
{
	if (xpu_isnan4(a))
		return xpu_isnan4(b) ? 0 : 1;
	if (xpu_isnan4(b))
		return -1;
	return (a > b) ? 1 : (a < b) ? -1 : 0;
}

XPU_FUNC bool
xpu_cmp_result(int op, int c)
{
	switch (op)
	{
		case XPU_OP_EQ:	return c == 0;
		case XPU_OP_NE:	return c != 0;
		case XPU_OP_LT:	return c < 0;
		case XPU_OP_LE:	return c <= 0;
		case XPU_OP_GT:	return c > 0;
		default:		return c >= 0;	/* GE */
	}
}

/* comparison node; false => RECHECK */
XPU_FUNC bool
xpu_eval_cmp(int op, int type, const xpu_datum *a, const xpu_datum *b, xpu_datum *r)
{
	int			c;

	switch (type)
	{
		case XPU_TYPE_BOOL:
			c = ((a->v.i64 != 0) == (b->v.i64 != 0)) ? 0 : 1;
			break;
		case XPU_TYPE_INT2:
		case XPU_TYPE_INT4:
		case XPU_TYPE_INT8:
		case XPU_TYPE_DATE:
		case XPU_TYPE_TIMESTAMP:
		case XPU_TYPE_TIMESTAMPTZ:
			c = (a->v.i64 < b->v.i64) ? -1 : (a->v.i64 > b->v.i64) ? 1 : 0;
			break;
		case XPU_TYPE_FLOAT4:
			c = xpu_float4_cmp(a->v.f4, b->v.f4);
			break;
		case XPU_TYPE_FLOAT8:
			c = xpu_float8_cmp(a->v.f8, b->v.f8);
			break;
		case XPU_TYPE_NUMERIC:
			if (!xpu_numeric_cmp(a->v.num, a->scale, b->v.num, b->scale, &c))
				return false;
			break;
		case XPU_TYPE_TEXT:
		case XPU_TYPE_VARCHAR:
		case XPU_TYPE_BPCHAR:
			{
				int32_t		alen = a->v.s.len;
				int32_t		blen = b->v.s.len;

				if (type == XPU_TYPE_BPCHAR)
				{
					alen = xpu_bpchar_truelen(a->v.s.ptr, alen);
					blen = xpu_bpchar_truelen(b->v.s.ptr, blen);
				}
				if (op == XPU_OP_EQ || op == XPU_OP_NE)
					c = xpu_text_eq(a->v.s.ptr, alen, b->v.s.ptr, blen) ? 0 : 1;
				else
					c = xpu_text_cmp(a->v.s.ptr, alen, b->v.s.ptr, blen);
			}
			break;
		default:
			return false;
	}
	r->v.i64 = xpu_cmp_result(op, c);
	return true;
}

/* integer arithmetic as int2/int4/int8 functions; false => RECHECK */
XPU_FUNC bool
xpu_int_arith(int op, int type, int64_t a, int64_t b, int64_t *r)
{
	int64_t		lo = xpu_int_min(type);
	int64_t		hi = xpu_int_max(type);
	xpu_int128	w;

	switch (op)
	{
		case XPU_OP_ADD:
			w = (xpu_int128) a + b;
			break;
		case XPU_OP_SUB:
			w = (xpu_int128) a - b;
			break;
		case XPU_OP_MUL:
			w = (xpu_int128) a * b;
			break;
		case XPU_OP_DIV:
			if (b == 0)
				return false;
			if (b == -1)
			{
				if (a == lo)
					return false;
				*r = -a;
				return true;
			}
			*r = a / b;
			return true;
		case XPU_OP_MOD:
			if (b == 0)
				return false;
			if (b == -1)
			{
				*r = 0;
				return true;
			}
			*r = a % b;
			return true;
		case XPU_OP_NEG:
			if (a == lo)
				return false;
			*r = -a;
			return true;
		case XPU_OP_ABS:
			if (a == lo)
				return false;
			*r = a < 0 ? -a : a;
			return true;
		default:
			return false;
	}
	if (w < (xpu_int128) lo || w > (xpu_int128) hi)
		return false;
	*r = (int64_t) w;
	return true;
}

/*
 * float4/float8 arithmetic as float.h's float4_pl, float8_mi etc., computed
 * in the type's own precision; false => RECHECK (PostgreSQL would raise
 * "value out of range: overflow/underflow" or "division by zero").
 */
template <typename T>
XPU_FUNC bool
xpu_float_arith(int op, T a, T b, T *r)
{
	const T		zero = 0;
	T			v;

	switch (op)
	{
		case XPU_OP_ADD:
			v = xpu_add_rn(a, b);
			if (xpu_isinf(v) && !xpu_isinf(a) && !xpu_isinf(b))
				return false;
			break;
		case XPU_OP_SUB:
			v = xpu_sub_rn(a, b);
			if (xpu_isinf(v) && !xpu_isinf(a) && !xpu_isinf(b))
				return false;
			break;
		case XPU_OP_MUL:
			v = xpu_mul_rn(a, b);
			if (xpu_isinf(v) && !xpu_isinf(a) && !xpu_isinf(b))
				return false;
			if (v == zero && a != zero && b != zero)
				return false;
			break;
		case XPU_OP_DIV:
			if (b == zero)
				return false;
			v = xpu_div_rn(a, b);
			if (xpu_isinf(v) && !xpu_isinf(a))
				return false;
			if (v == zero && a != zero && !xpu_isinf(b))
				return false;
			break;
		case XPU_OP_NEG:
			v = -a;
			break;
		case XPU_OP_ABS:
			v = xpu_fabs(a);
			break;
		case XPU_OP_FLOOR:
			v = xpu_floor(a);
			break;
		case XPU_OP_CEIL:
			v = xpu_ceil(a);
			break;
		case XPU_OP_RINT:
			v = xpu_rint(a);
			break;
		case XPU_OP_TRUNC:
			v = xpu_trunc(a);
			break;
		case XPU_OP_SIGN:
			/* as dsign: NaN, -0 and 0 give 0 */
			v = a > zero ? T(1) : a < zero ? T(-1) : zero;
			break;
		default:
			return false;
	}
	*r = v;
	return true;
}

XPU_FUNC bool
xpu_float4_arith(int op, float a, float b, float *r)
{
	return xpu_float_arith<float>(op, a, b, r);
}

XPU_FUNC bool
xpu_float8_arith(int op, double a, double b, double *r)
{
	return xpu_float_arith<double>(op, a, b, r);
}

/* rint()ed float value to an integer type, as ftoi4/dtoi8 etc. */
XPU_FUNC bool
xpu_float_to_int(double rinted, int type, int64_t *r)
{
	double		lim;

	if (xpu_isnan8(rinted))
		return false;
	lim = (type == XPU_TYPE_INT2) ? 32768.0 :
		(type == XPU_TYPE_INT4) ? 2147483648.0 : 9223372036854775808.0;
	/* FLOATx_FITS_IN_INTy: num >= (floatx) MIN && num < -((floatx) MIN) */
	if (!(rinted >= -lim && rinted < lim))
		return false;
	*r = (int64_t) rinted;
	return true;
}

/* CAST node (arg not null); false => RECHECK */
XPU_FUNC bool
xpu_eval_cast(int from, int to, const xpu_datum *a, xpu_datum *r)
{
	r->scale = 0;
	if (xpu_type_is_int(from))
	{
		int64_t		v = a->v.i64;

		if (xpu_type_is_int(to))
		{
			if (v < xpu_int_min(to) || v > xpu_int_max(to))
				return false;
			r->v.i64 = v;
			return true;
		}
		if (to == XPU_TYPE_FLOAT4)
		{
			r->v.f4 = (float) v;
			return true;
		}
		if (to == XPU_TYPE_FLOAT8)
		{
			r->v.f8 = (double) v;
			return true;
		}
		if (to == XPU_TYPE_NUMERIC)
		{
			r->v.num = v;
			return true;
		}
		return false;
	}
	if (from == XPU_TYPE_FLOAT4)
	{
		if (to == XPU_TYPE_FLOAT4)
		{
			r->v.f4 = a->v.f4;
			return true;
		}
		if (to == XPU_TYPE_FLOAT8)
		{
			r->v.f8 = (double) a->v.f4;
			return true;
		}
		if (xpu_type_is_int(to))
			return xpu_float_to_int((double) xpu_rint4(a->v.f4), to, &r->v.i64);
		if (to == XPU_TYPE_NUMERIC)
			return xpu_float_to_numeric((double) a->v.f4, 6, &r->v.num, &r->scale);
		return false;
	}
	if (from == XPU_TYPE_FLOAT8)
	{
		if (to == XPU_TYPE_FLOAT8)
		{
			r->v.f8 = a->v.f8;
			return true;
		}
		if (to == XPU_TYPE_FLOAT4)
		{
			/* float84: (float4) num, with overflow/underflow checks */
			float		f = (float) a->v.f8;

			if (xpu_isinf4(f) && !xpu_isinf8(a->v.f8))
				return false;
			if (f == 0.0f && a->v.f8 != 0.0)
				return false;
			r->v.f4 = f;
			return true;
		}
		if (xpu_type_is_int(to))
			return xpu_float_to_int(xpu_rint8(a->v.f8), to, &r->v.i64);
		if (to == XPU_TYPE_NUMERIC)
			return xpu_float_to_numeric(a->v.f8, 15, &r->v.num, &r->scale);
		return false;
	}
	if (from == XPU_TYPE_NUMERIC && xpu_type_is_int(to))
		return xpu_numeric_to_int(a->v.num, a->scale,
								  xpu_int_min(to), xpu_int_max(to), &r->v.i64);
	if (from == XPU_TYPE_NUMERIC && to == XPU_TYPE_FLOAT8)
		return xpu_numeric_to_float8(a->v.num, a->scale, &r->v.f8);
	if (from == XPU_TYPE_NUMERIC && to == XPU_TYPE_FLOAT4)
		return xpu_numeric_to_float4(a->v.num, a->scale, &r->v.f4);
	if (from == XPU_TYPE_DATE && to == XPU_TYPE_TIMESTAMP)
		return xpu_date_to_timestamp((int32_t) a->v.i64, &r->v.i64);
	if (from == XPU_TYPE_TIMESTAMP && to == XPU_TYPE_DATE)
		return xpu_timestamp_to_date(a->v.i64, &r->v.i64);
	if ((from == XPU_TYPE_TEXT || from == XPU_TYPE_VARCHAR) &&
		(to == XPU_TYPE_TEXT || to == XPU_TYPE_VARCHAR))
	{
		r->v.s = a->v.s;
		return true;
	}
	if (from == XPU_TYPE_BPCHAR && to == XPU_TYPE_TEXT)
	{
		r->v.s.ptr = a->v.s.ptr;
		r->v.s.len = xpu_bpchar_truelen(a->v.s.ptr, a->v.s.len);
		return true;
	}
	return false;
}

/*
 * The text functions (SUBSTR .. TRIM_SPACES, SPLIT_PART): strict, so a NULL argument
 * gives NULL; false (RECHECK) for a negative SUBSTR count or a SPLIT_PART
 * field 0, which PostgreSQL rejects with an error the CPU raises.
 */
XPU_FUNC bool
xpu_eval_text_func(const xpu_program *prog, const XpuNode *n,
				   const xpu_datum *slots, xpu_datum *r)
{
	int			op = n->opcode;
	int			na = n->nargs;
	bool		utf8 = (n->flags & XPU_NODE_LIKE_UTF8) != 0;
	const xpu_datum *a = &slots[xpu_prog_arg(prog, n, 0)];
	const xpu_datum *b = (na >= 2) ? &slots[xpu_prog_arg(prog, n, 1)] : NULL;
	const xpu_datum *c = (na >= 3) ? &slots[xpu_prog_arg(prog, n, 2)] : NULL;
	const char *s = a->v.s.ptr;
	int32_t		len = a->v.s.len;
	int32_t		off = 0;
	int32_t		rlen = 0;

	if (a->isnull || (b && b->isnull) || (c && c->isnull))
	{
		r->isnull = 1;
		return true;
	}
	switch (op)
	{
		case XPU_OP_SUBSTR:
			if (c && c->v.i64 < 0)
				return false;
			xpu_text_substr(s, len, b->v.i64, c ? c->v.i64 : -1, utf8, &off, &rlen);
			break;
		case XPU_OP_CHAR_LENGTH:
			r->v.i64 = xpu_text_nchars(s, len, utf8);
			return true;
		case XPU_OP_OCTET_LENGTH:
			r->v.i64 = len;
			return true;
		case XPU_OP_STRPOS:
			r->v.i64 = xpu_text_strpos(s, len, b->v.s.ptr, b->v.s.len, utf8);
			return true;
		case XPU_OP_STARTS_WITH:
			r->v.i64 = (b->v.s.len <= len &&
						xpu_text_eq(s, b->v.s.len, b->v.s.ptr, b->v.s.len));
			return true;
		case XPU_OP_LEFT:
		case XPU_OP_RIGHT:
			xpu_text_left_right(s, len, b->v.i64, op == XPU_OP_RIGHT, utf8, &off, &rlen);
			break;
		case XPU_OP_TRIM_SPACES:
			xpu_text_trim_spaces(s, len, (n->aux & 1) != 0, (n->aux & 2) != 0, &off, &rlen);
			break;
		case XPU_OP_SPLIT_PART:
			if (c->v.i64 == 0)
				return false;
			xpu_text_split_part(s, len, b->v.s.ptr, b->v.s.len, c->v.i64, &off, &rlen);
			break;
		default:
			return false;
	}
	r->v.s.ptr = s + off;
	r->v.s.len = rlen;
	return true;
}

/* TO_TEXT's argument of type t printed into dst: its length, or -1 */
XPU_FUNC int32_t
xpu_format_value(int t, const xpu_datum *a, char *dst, int32_t cap)
{
	switch (t)
	{
		case XPU_TYPE_INT2:
		case XPU_TYPE_INT4:
		case XPU_TYPE_INT8:
			return xpu_format_int(a->v.i64, dst, cap);
		case XPU_TYPE_BOOL:
			return xpu_format_bool(a->v.i64 != 0, dst, cap);
		case XPU_TYPE_NUMERIC:
			return xpu_format_numeric(a->v.num, a->scale, dst, cap);
		case XPU_TYPE_DATE:
			return xpu_format_date((int32_t) a->v.i64, dst, cap);
		case XPU_TYPE_TIMESTAMP:
			return xpu_format_timestamp(a->v.i64, dst, cap);
	}
	return -1;
}

/*
 * The text functions that make new bytes (LOWER, UPPER, TEXTCAT, TO_TEXT,
 * TO_CHAR): strict;
 * they write into the node's scratch region, past the program's slots,
 * and give RECHECK when the result does not fit it.
 */
XPU_FUNC bool
xpu_eval_text_make(const xpu_program *prog, const XpuNode *n,
				   xpu_datum *slots, xpu_datum *r)
{
	const xpu_datum *a = &slots[xpu_prog_arg(prog, n, 0)];
	const xpu_datum *b = n->nargs >= 2 ? &slots[xpu_prog_arg(prog, n, 1)] : NULL;
	const xpu_datum *c = n->nargs >= 3 ? &slots[xpu_prog_arg(prog, n, 2)] : NULL;
	char	   *dst = (char *) (slots + prog->nnodes) + XPU_SCRATCH_OFFSET(n->aux);
	int32_t		cap = XPU_SCRATCH_CAPACITY(n->aux);
	int32_t		len;

	if (a->isnull || (b && b->isnull) || (c && c->isnull))
	{
		r->isnull = 1;
		return true;
	}
	if (n->opcode == XPU_OP_REPLACE)
	{
		len = xpu_text_replace(a->v.s.ptr, a->v.s.len, b->v.s.ptr, b->v.s.len,
							   c->v.s.ptr, c->v.s.len, dst, cap);
		if (len < 0)
			return false;
		r->v.s.ptr = dst;
		r->v.s.len = len;
		return true;
	}
	if (n->opcode == XPU_OP_TO_CHAR)
	{
		/* as PostgreSQL's: NULL for an infinite value or an empty format */
		if (a->v.i64 == XPU_DT_NOBEGIN || a->v.i64 == XPU_DT_NOEND || b->v.s.len == 0)
		{
			r->isnull = 1;
			return true;
		}
		len = xpu_format_to_char(a->v.i64, b->v.s.ptr, b->v.s.len, dst, cap);
		if (len < 0)
			return false;
		r->v.s.ptr = dst;
		r->v.s.len = len;
		return true;
	}
	if (n->opcode == XPU_OP_TO_TEXT)
	{
		len = xpu_format_value(prog->nodes[xpu_prog_arg(prog, n, 0)].restype, a, dst, cap);
		if (len < 0)
			return false;
		r->v.s.ptr = dst;
		r->v.s.len = len;
		return true;
	}
	len = a->v.s.len + (b ? b->v.s.len : 0);
	if (len > cap)
		return false;
	switch (n->opcode)
	{
		case XPU_OP_LOWER:
			xpu_text_ascii_case(a->v.s.ptr, a->v.s.len, false, dst);
			break;
		case XPU_OP_UPPER:
			xpu_text_ascii_case(a->v.s.ptr, a->v.s.len, true, dst);
			break;
		case XPU_OP_TEXTCAT:
			xpu_text_copy(a->v.s.ptr, a->v.s.len, dst);
			xpu_text_copy(b->v.s.ptr, b->v.s.len, dst + a->v.s.len);
			break;
		case XPU_OP_REVERSE:
			xpu_text_reverse(a->v.s.ptr, a->v.s.len,
							 (n->flags & XPU_NODE_LIKE_UTF8) != 0, dst);
			break;
		default:
			return false;
	}
	r->v.s.ptr = dst;
	r->v.s.len = len;
	return true;
}

/*
 * xpu_eval_range - evaluate nodes first..last for one row whose VAR (and
 * INNER_VAR) slots are filled: XPU_ROW_MATCH, or XPU_ROW_RECHECK when one
 * of them cannot be evaluated exactly.  Inlined into each caller below,
 * so that GpuScan's and GpuPreAgg's xpu_eval_program compiles as it did
 * before the fused join's stage was added.
 */
XPU_FUNC int
xpu_eval_range(const xpu_program *prog, xpu_datum *slots, int first, int last)
{
	int			i;

	for (i = first; i <= last; i++)
	{
		const XpuNode *n = &prog->nodes[i];
		xpu_datum  *r = &slots[i];
		int			op = n->opcode;
		int			na = n->nargs;
		const xpu_datum *a = NULL;
		const xpu_datum *b = NULL;
		bool		ok = true;

		if (op == XPU_OP_VAR || op == XPU_OP_INNER_VAR)
			continue;			/* filled by the tuple walk, or the join */
		if (op == XPU_OP_CONST)
		{
			if (!xpu_const_value(prog, n, r))
				return XPU_ROW_RECHECK;
			continue;
		}
		if (na >= 1)
			a = &slots[xpu_prog_arg(prog, n, 0)];
		if (na >= 2)
			b = &slots[xpu_prog_arg(prog, n, 1)];
		r->scale = 0;
		r->isnull = 0;

		switch (op)
		{
			case XPU_OP_EQ:
			case XPU_OP_NE:
			case XPU_OP_LT:
			case XPU_OP_LE:
			case XPU_OP_GT:
			case XPU_OP_GE:
				if (a->isnull || b->isnull)
					r->isnull = 1;
				else
					ok = xpu_eval_cmp(op, prog->nodes[xpu_prog_arg(prog, n, 0)].restype, a, b, r);
				break;

			case XPU_OP_ADD:
			case XPU_OP_SUB:
			case XPU_OP_MUL:
			case XPU_OP_DIV:
			case XPU_OP_MOD:
			case XPU_OP_NEG:
			case XPU_OP_ABS:
			case XPU_OP_FLOOR:
			case XPU_OP_CEIL:
			case XPU_OP_RINT:
			case XPU_OP_TRUNC:
			case XPU_OP_SIGN:
				if (a->isnull || (b != NULL && b->isnull))
				{
					r->isnull = 1;
					break;
				}
				switch (n->restype)
				{
					case XPU_TYPE_INT2:
					case XPU_TYPE_INT4:
					case XPU_TYPE_INT8:
						ok = xpu_int_arith(op, n->restype, a->v.i64,
										   b ? b->v.i64 : 0, &r->v.i64);
						break;
					case XPU_TYPE_FLOAT4:
						ok = xpu_float4_arith(op, a->v.f4, b ? b->v.f4 : 0.0f, &r->v.f4);
						break;
					case XPU_TYPE_FLOAT8:
						ok = xpu_float8_arith(op, a->v.f8, b ? b->v.f8 : 0.0, &r->v.f8);
						break;
					case XPU_TYPE_NUMERIC:
						if (op == XPU_OP_ADD)
							ok = xpu_numeric_add(a->v.num, a->scale, b->v.num, b->scale,
												 &r->v.num, &r->scale);
						else if (op == XPU_OP_SUB)
							ok = xpu_numeric_sub(a->v.num, a->scale, b->v.num, b->scale,
												 &r->v.num, &r->scale);
						else if (op == XPU_OP_MUL)
							ok = xpu_numeric_mul(a->v.num, a->scale, b->v.num, b->scale,
												 &r->v.num, &r->scale);
						else if (op == XPU_OP_DIV)
							ok = xpu_numeric_div(a->v.num, a->scale, b->v.num, b->scale,
												 &r->v.num, &r->scale);
						else if (op == XPU_OP_NEG)
						{
							r->v.num = -a->v.num;
							r->scale = a->scale;
						}
						else if (op == XPU_OP_ABS)
						{
							r->v.num = xpu_abs128(a->v.num);
							r->scale = a->scale;
						}
						else
							ok = false;
						break;
					default:
						ok = false;
						break;
				}
				break;

			case XPU_OP_CAST:
				if (a->isnull)
					r->isnull = 1;
				else
					ok = xpu_eval_cast(prog->nodes[xpu_prog_arg(prog, n, 0)].restype,
									   n->restype, a, r);
				break;

			case XPU_OP_AND:
			case XPU_OP_OR:
				{
					bool		anynull = false;
					bool		decisive = false;
					int64_t		want = (op == XPU_OP_OR);	/* value that decides */
					int			k;

					for (k = 0; k < na; k++)
					{
						const xpu_datum *x = &slots[xpu_prog_arg(prog, n, k)];

						if (x->isnull)
							anynull = true;
						else if ((x->v.i64 != 0) == (want != 0))
							decisive = true;
					}
					if (decisive)
						r->v.i64 = want;
					else if (anynull)
						r->isnull = 1;
					else
						r->v.i64 = !want;
				}
				break;

			case XPU_OP_NOT:
				if (a->isnull)
					r->isnull = 1;
				else
					r->v.i64 = (a->v.i64 == 0);
				break;

			case XPU_OP_IS_NULL:
				r->v.i64 = (a->isnull != 0);
				break;
			case XPU_OP_IS_NOT_NULL:
				r->v.i64 = (a->isnull == 0);
				break;
			case XPU_OP_IS_TRUE:
				r->v.i64 = (!a->isnull && a->v.i64 != 0);
				break;
			case XPU_OP_IS_NOT_TRUE:
				r->v.i64 = (a->isnull || a->v.i64 == 0);
				break;
			case XPU_OP_IS_FALSE:
				r->v.i64 = (!a->isnull && a->v.i64 == 0);
				break;
			case XPU_OP_IS_NOT_FALSE:
				r->v.i64 = (a->isnull || a->v.i64 != 0);
				break;
			case XPU_OP_IS_UNKNOWN:
				r->v.i64 = (a->isnull != 0);
				break;
			case XPU_OP_IS_NOT_UNKNOWN:
				r->v.i64 = (a->isnull == 0);
				break;

			case XPU_OP_CASE:
				{
					int			k;
					int			pick = na - 1;	/* ELSE */

					for (k = 0; k + 1 < na; k += 2)
					{
						const xpu_datum *c = &slots[xpu_prog_arg(prog, n, k)];

						if (!c->isnull && c->v.i64 != 0)
						{
							pick = k + 1;
							break;
						}
					}
					*r = slots[xpu_prog_arg(prog, n, pick)];
				}
				break;

			case XPU_OP_COALESCE:
				{
					int			k;

					r->isnull = 1;
					for (k = 0; k < na; k++)
					{
						const xpu_datum *x = &slots[xpu_prog_arg(prog, n, k)];

						if (!x->isnull)
						{
							*r = *x;
							break;
						}
					}
				}
				break;

			case XPU_OP_DATE_PLI:
			case XPU_OP_DATE_MII:
			case XPU_OP_DATE_MI:
				if (a->isnull || b->isnull)
				{
					r->isnull = 1;
					break;
				}
				{
					int32_t		v = 0;

					if (op == XPU_OP_DATE_PLI)
						ok = xpu_date_pli((int32_t) a->v.i64, (int32_t) b->v.i64, &v);
					else if (op == XPU_OP_DATE_MII)
						ok = xpu_date_mii((int32_t) a->v.i64, (int32_t) b->v.i64, &v);
					else
						ok = xpu_date_mi((int32_t) a->v.i64, (int32_t) b->v.i64, &v);
					r->v.i64 = v;
				}
				break;

			case XPU_OP_DATE_TRUNC:
			case XPU_OP_TZ_LOCAL:
			case XPU_OP_TZ_UTC:
				if (a->isnull)
				{
					r->isnull = 1;
					break;
				}
				if (op == XPU_OP_DATE_TRUNC)
					ok = xpu_timestamp_trunc(n->aux, a->v.i64, &r->v.i64);
				else
				{
					int64_t		east = n->aux;

					/* a zone with transitions: the offset at that time */
					if ((n->flags & XPU_NODE_TZ_RULES) &&
						a->v.i64 != XPU_DT_NOBEGIN && a->v.i64 != XPU_DT_NOEND)
					{
						const char *z = prog->consts + n->aux;

						ok = xpu_timestamp_is_valid(a->v.i64) &&
							((op == XPU_OP_TZ_LOCAL) ?
							 xpu_zone_offset_utc(z, a->v.i64, &east) :
							 xpu_zone_offset_local(z, a->v.i64, &east));
					}
					if (ok)
						ok = xpu_timestamp_shift(a->v.i64,
												 op == XPU_OP_TZ_LOCAL ? east : -east,
												 &r->v.i64);
				}
				break;

			case XPU_OP_TS_PL_INTERVAL:
				{
					const xpu_datum *d = &slots[xpu_prog_arg(prog, n, 2)];
					const xpu_datum *u = &slots[xpu_prog_arg(prog, n, 3)];

					if (a->isnull || b->isnull || d->isnull || u->isnull)
					{
						r->isnull = 1;
						break;
					}
					ok = xpu_timestamp_pl_interval(a->v.i64, (int32_t) b->v.i64,
												   (int32_t) d->v.i64, u->v.i64,
												   &r->v.i64);
				}
				break;

			case XPU_OP_NUM_ROUND:
			case XPU_OP_NUM_TRUNC:
				if (a->isnull)
				{
					r->isnull = 1;
					break;
				}
				ok = xpu_numeric_round(a->v.num, a->scale, n->aux,
									   op == XPU_OP_NUM_TRUNC, &r->v.num, &r->scale);
				break;

			case XPU_OP_SUBSTR:
			case XPU_OP_CHAR_LENGTH:
			case XPU_OP_OCTET_LENGTH:
			case XPU_OP_STRPOS:
			case XPU_OP_STARTS_WITH:
			case XPU_OP_LEFT:
			case XPU_OP_RIGHT:
			case XPU_OP_TRIM_SPACES:
			case XPU_OP_SPLIT_PART:
				ok = xpu_eval_text_func(prog, n, slots, r);
				break;

			case XPU_OP_LOWER:
			case XPU_OP_UPPER:
			case XPU_OP_TEXTCAT:
			case XPU_OP_TO_TEXT:
			case XPU_OP_TO_CHAR:
			case XPU_OP_REVERSE:
			case XPU_OP_REPLACE:
				ok = xpu_eval_text_make(prog, n, slots, r);
				break;

			case XPU_OP_EXTRACT:
			case XPU_OP_DATE_PART:
				if (a->isnull)
				{
					r->isnull = 1;
					break;
				}
				{
					int64_t		v = 0;
					int			t = prog->nodes[xpu_prog_arg(prog, n, 0)].restype;

					if (t == XPU_TYPE_TIMESTAMP && xpu_field_is_fractional(n->aux))
					{
						int32_t		scale = 0;
						double		f8 = 0.0;

						ok = xpu_timestamp_fraction(n->aux, a->v.i64, &v, &scale, &f8);
						if (op == XPU_OP_EXTRACT)
						{
							r->v.num = v;
							r->scale = scale;
						}
						else
							r->v.f8 = f8;
						break;
					}
					if (t == XPU_TYPE_DATE)
						ok = xpu_date_field(n->aux, (int32_t) a->v.i64,
											op == XPU_OP_DATE_PART, &v);
					else
						ok = xpu_timestamp_field(n->aux, a->v.i64, &v);
					if (op == XPU_OP_EXTRACT)
						r->v.num = v;
					else
						r->v.f8 = (double) v;
				}
				break;

			case XPU_OP_LIKE:
			case XPU_OP_NOT_LIKE:
				if (a->isnull || b->isnull)
				{
					r->isnull = 1;
					break;
				}
				if (!xpu_like_check_pattern(b->v.s.ptr, b->v.s.len))
				{
					ok = false;
					break;
				}
				{
					bool		m = xpu_like_match(a->v.s.ptr, a->v.s.len,
												   b->v.s.ptr, b->v.s.len,
												   (n->flags & XPU_NODE_LIKE_UTF8) != 0,
												   (n->flags & XPU_NODE_LIKE_ICASE) != 0);

					r->v.i64 = (op == XPU_OP_LIKE) ? m : !m;
				}
				break;

			default:
				ok = false;
				break;
		}
		if (!ok)
			return XPU_ROW_RECHECK;
	}
	return XPU_ROW_MATCH;
}

/* xpu_eval_range out of line: the fused join's per-combination stage */
XPU_NOINLINE int
xpu_eval_nodes(const xpu_program *prog, xpu_datum *slots, int first, int last)
{
	return xpu_eval_range(prog, slots, first, last);
}

/*
 * xpu_eval_program - evaluate nodes 0..root for one row whose VAR slots are
 * filled.  Returns XPU_ROW_*.
 */
XPU_NOINLINE int
xpu_eval_program(const xpu_program *prog, xpu_datum *slots)
{
	int			root = (int) prog->root;

	if (xpu_eval_range(prog, slots, 0, root) != XPU_ROW_MATCH)
		return XPU_ROW_RECHECK;
	if (!slots[root].isnull && slots[root].v.i64 != 0)
		return XPU_ROW_MATCH;
	return XPU_ROW_NOMATCH;
}

/*
 * xpu_eval_tuple - the outcome of one LP_NORMAL tuple.
 */
XPU_FUNC int
xpu_eval_tuple(const xpu_program *prog, const char *tup, int32_t tuplen, xpu_datum *slots)
{
	if (!xpu_walk_tuple(prog, tup, tuplen, slots))
		return XPU_ROW_RECHECK;
	return xpu_eval_program(prog, slots);
}

#endif							/* XPU_EVAL_H */
