/*
 * pg_strom_xpu.h
 *
 * The device program ("xPU program") of a GpuScan and the chunk/result
 * layouts that travel in TaskExec messages.  The C code generator writes
 * these bytes, the Go service validates them, and the CUDA kernels execute
 * them: this header is the one definition for all three.
 *
 * Design:
 *  - A program is a flat array of XpuNode in post-order: every argument of
 *    node i is a node j < i, and the last node (root) is the boolean qual.
 *    The kernel evaluates nodes 0..root in order, each into its own slot.
 *    There is no short-circuit: AND/OR/CASE/COALESCE evaluate all their
 *    arguments and then combine them with PostgreSQL's three-valued rules.
 *  - The device never raises an error.  Any condition under which
 *    PostgreSQL could raise an error or behave in a way the device does not
 *    model (integer overflow, division by zero, numeric out of the 128-bit
 *    range, numeric NaN/Inf, infinite dates in date arithmetic, compressed
 *    or external varlena, a tuple with fewer attributes than needed, ...)
 *    marks the row RECHECK.  The backend evaluates the device quals of such
 *    rows with PostgreSQL's own executor, which then raises exactly
 *    PostgreSQL's error if, and only if, PostgreSQL would.
 *  - The device returns tuple positions, not values: the backend still holds
 *    the page copies it shipped, so it forms the tuples itself and
 *    projects on the CPU.  Values are therefore always PostgreSQL's own.
 */
#ifndef PG_STROM_XPU_H
#define PG_STROM_XPU_H

#include <stdint.h>

#define XPU_PROGRAM_MAGIC		0x58505531U		/* "XPU1" */
#define XPU_MAX_NODES			1024
#define XPU_GPUSCAN_MAX_NODES	128		/* per-thread evaluation slots of the
										 * GpuScan kernel: programs with more
										 * nodes are refused */
#define XPU_MAX_ATTRS			1600			/* MaxHeapAttributeNumber */
#define XPU_BLCKSZ				8192
#define XPU_MAX_BLOCKS_PER_CHUNK	8192		/* 64MB of pages */
#define XPU_MAX_TUPLES_PER_PAGE	291				/* MaxHeapTuplesPerPage at 8kB */

/*
 * Device types.  X(name, pg_type_oid, fixed_len)
 */
#define XPU_TYPE_LIST(X) \
	X(BOOL,        16,   1) \
	X(INT2,        21,   2) \
	X(INT4,        23,   4) \
	X(INT8,        20,   8) \
	X(FLOAT4,     700,   4) \
	X(FLOAT8,     701,   8) \
	X(NUMERIC,   1700,  -1) \
	X(DATE,      1082,   4) \
	X(TIMESTAMP, 1114,   8) \
	X(TIMESTAMPTZ, 1184, 8) \
	X(TEXT,        25,  -1) \
	X(VARCHAR,   1043,  -1) \
	X(BPCHAR,    1042,  -1)

typedef enum XpuType
{
	XPU_TYPE_INVALID = 0,
#define XPU_TYPE_ENUM(name, oid, len) XPU_TYPE_##name,
	XPU_TYPE_LIST(XPU_TYPE_ENUM)
#undef XPU_TYPE_ENUM
	XPU_TYPE__COUNT
} XpuType;

/*
 * Opcodes.  X(name, nargs, signature)
 *   nargs: exact count, or -1 for a variable count (AND/OR: 2 or more,
 *   COALESCE: 1 or more, CASE: 2k+1; see below).
 *   signature (what validation checks; restype is the node's restype):
 *     LEAF     no args (VAR, CONST)
 *     CMP      2 args of the same type T, T comparable, restype BOOL
 *     ARITH    args of restype's type (1 or 2 args by opcode)
 *     CAST     1 arg of any type, restype = target (pair must be supported)
 *     BOOLOP   args BOOL, restype BOOL
 *     TEST     1 arg of any type, restype BOOL
 *     SPECIAL  checked per opcode
 */
#define XPU_OPCODE_LIST(X) \
	X(VAR,        0, LEAF) \
	X(CONST,      0, LEAF) \
	X(EQ,         2, CMP) \
	X(NE,         2, CMP) \
	X(LT,         2, CMP) \
	X(LE,         2, CMP) \
	X(GT,         2, CMP) \
	X(GE,         2, CMP) \
	X(ADD,        2, ARITH) \
	X(SUB,        2, ARITH) \
	X(MUL,        2, ARITH) \
	X(DIV,        2, ARITH) \
	X(MOD,        2, ARITH) \
	X(NEG,        1, ARITH) \
	X(ABS,        1, ARITH) \
	X(CAST,       1, CAST) \
	X(AND,       -1, BOOLOP) \
	X(OR,        -1, BOOLOP) \
	X(NOT,        1, BOOLOP) \
	X(IS_NULL,    1, TEST) \
	X(IS_NOT_NULL, 1, TEST) \
	X(IS_TRUE,    1, TEST) \
	X(IS_NOT_TRUE, 1, TEST) \
	X(IS_FALSE,   1, TEST) \
	X(IS_NOT_FALSE, 1, TEST) \
	X(IS_UNKNOWN, 1, TEST) \
	X(IS_NOT_UNKNOWN, 1, TEST) \
	X(CASE,      -1, SPECIAL) \
	X(COALESCE,  -1, SPECIAL) \
	X(DATE_PLI,   2, SPECIAL) \
	X(DATE_MII,   2, SPECIAL) \
	X(DATE_MI,    2, SPECIAL) \
	X(EXTRACT,    1, SPECIAL) \
	X(DATE_PART,  1, SPECIAL) \
	X(LIKE,       2, SPECIAL) \
	X(NOT_LIKE,   2, SPECIAL) \
	X(DATE_TRUNC, 1, SPECIAL) \
	X(TZ_LOCAL,   1, SPECIAL) \
	X(TZ_UTC,     1, SPECIAL) \
	X(NUM_ROUND,  1, SPECIAL) \
	X(NUM_TRUNC,  1, SPECIAL) \
	X(SUBSTR,    -1, SPECIAL) \
	X(CHAR_LENGTH, 1, SPECIAL) \
	X(OCTET_LENGTH, 1, SPECIAL) \
	X(STRPOS,     2, SPECIAL) \
	X(STARTS_WITH, 2, SPECIAL) \
	X(LEFT,       2, SPECIAL) \
	X(RIGHT,      2, SPECIAL) \
	X(TRIM_SPACES, 1, SPECIAL) \
	X(LOWER,      1, SPECIAL) \
	X(UPPER,      1, SPECIAL) \
	X(TEXTCAT,    2, SPECIAL) \
	X(TO_TEXT,    1, SPECIAL) \
	X(SPLIT_PART, 3, SPECIAL) \
	X(TO_CHAR,    2, SPECIAL) \
	X(TS_PL_INTERVAL, 4, SPECIAL) \
	X(FLOOR,      1, ARITH) \
	X(CEIL,       1, ARITH) \
	X(RINT,       1, ARITH) \
	X(TRUNC,      1, ARITH) \
	X(SIGN,       1, ARITH) \
	X(REVERSE,    1, SPECIAL) \
	X(REPLACE,    3, SPECIAL)

typedef enum XpuOpcode
{
	XPU_OP_INVALID = 0,
#define XPU_OPCODE_ENUM(name, nargs, sig) XPU_OP_##name,
	XPU_OPCODE_LIST(XPU_OPCODE_ENUM)
#undef XPU_OPCODE_ENUM
	XPU_OP__COUNT
} XpuOpcode;

/*
 * INNER_VAR: a column of the inner row that a fused GpuJoin + GpuPreAgg
 * session (XPU_KIND_GPUJOIN_PREAGG) matched at one depth.  aux = index
 * into the join descriptor's XpuJoinCol array (the column names its
 * depth); restype = that column's inner_xtype; NULL where a LEFT depth
 * NULL-extends.  Only nodes after the root may be INNER_VARs: they are
 * evaluated once per join combination.  Outside XPU_OPCODE_LIST on
 * purpose: every other session's validator refuses it as an unknown
 * opcode.
 */
#define XPU_OP_INNER_VAR		64

/*
 * Per-opcode details (fields of XpuNode not named here must be 0):
 *
 * VAR       aux = attribute index (0-based, attnum - 1) into the attribute
 *           descriptors; restype = that attribute's xtype.
 * CONST     aux = byte offset of the value in the constant pool, flags has
 *           XPU_NODE_CONST_NULL for NULL (then aux is 0).  Pool encoding by
 *           type: BOOL 1 byte; INT2/INT4/INT8/DATE/TIMESTAMP/TIMESTAMPTZ as
 *           int16/int32/int64/int32/int64/int64 little-endian; FLOAT4/FLOAT8
 *           IEEE; NUMERIC as XpuNumericConst; TEXT/VARCHAR/BPCHAR as
 *           XpuTextConst followed by the bytes.  Each value starts at a
 *           multiple of 16 in the pool.
 * CMP       TEXT/VARCHAR/BPCHAR comparisons: flags XPU_NODE_TEXT_BYTEWISE
 *           must be set for LT/LE/GT/GE (the collation orders by bytes, i.e.
 *           "C" or "POSIX"); EQ/NE need a deterministic collation only.
 *           BPCHAR compares ignore trailing spaces, as bpchareq/bpcharcmp.
 *           BOOL supports EQ/NE only.
 * ARITH     INT2/INT4/INT8/FLOAT4/FLOAT8: ADD, SUB, MUL, DIV, MOD, NEG,
 *           ABS; NUMERIC: ADD, SUB, MUL, DIV (numeric_div's result scale
 *           and rounding), NEG, ABS; MOD on integers only.  FLOOR, CEIL,
 *           RINT (half to even), TRUNC and SIGN (1, -1 or 0, 0 for NaN and
 *           both zeros) on FLOAT4/FLOAT8 only, as dfloor, dceil, dround,
 *           dtrunc and dsign: infinities and NaN pass through the first
 *           four unchanged, and a negative argument may give -0.  Overflow, division by zero, a numeric quotient
 *           past 128 bits and float overflow/underflow (as PostgreSQL's
 *           float checks) give RECHECK.
 * CAST      supported (from -> to): any of INT2/INT4/INT8 -> any of
 *           INT2/INT4/INT8/FLOAT4/FLOAT8/NUMERIC; FLOAT4 <-> FLOAT8;
 *           FLOAT4/FLOAT8 -> INT2/INT4/INT8 (rint, range check);
 *           FLOAT4/FLOAT8 -> NUMERIC (as float4_numeric/float8_numeric: the
 *           value rounded half to even to 6/15 significant digits, the
 *           display scale its digits after the point; RECHECK for NaN,
 *           infinities and magnitudes outside [1e-8, 1e38));
 *           BPCHAR -> TEXT (trailing spaces removed, as rtrim1);
 *           NUMERIC -> INT2/INT4/INT8 (round half away from zero, range
 *           check); NUMERIC -> FLOAT4/FLOAT8 (the correctly rounded value,
 *           as strtof/strtod of the printed numeric; RECHECK past 24/53
 *           significant bits or a power of ten the float type does not
 *           hold); DATE -> TIMESTAMP; TIMESTAMP -> DATE (the day
 *           holding it, infinities kept; RECHECK outside the valid
 *           range); VARCHAR <-> TEXT (no-op);
 *           anything else is refused.
 * AND/OR    nargs >= 2.
 * CASE      nargs = 2k+1 (k >= 1): cond1, val1, ..., condk, valk, else.
 *           conds are BOOL, vals and else have restype's type.  The code
 *           generator supplies a CONST NULL for a missing ELSE.
 * COALESCE  nargs >= 1, all of restype's type.
 *
 * Offsets: the kernel bounds-checks every offset against the message
 * header's length and does not require the attrs/nodes/args arrays to be
 * aligned; the code generator aligns them to 16 bytes anyway.
 * DATE_PLI  (DATE, INT4) -> DATE;  DATE_MII (DATE, INT4) -> DATE;
 *           DATE_MI (DATE, DATE) -> INT4.  Infinite dates give RECHECK.
 * EXTRACT   (DATE or TIMESTAMP) -> NUMERIC (scale 0); aux = XpuDateField.
 * DATE_PART (DATE or TIMESTAMP) -> FLOAT8; aux = XpuDateField.
 *           Infinite inputs give RECHECK.
 * LIKE      (TEXT/VARCHAR/BPCHAR, CONST TEXT pattern) -> BOOL; backslash
 *           escape; BPCHAR as stored, its padding included (bpcharlike).
 *           flags XPU_NODE_LIKE_UTF8 when the database encoding is UTF8 (so
 *           '_' matches one UTF-8 character, not one byte); only UTF8 and
 *           single-byte encodings are offered to the device.  With
 *           XPU_NODE_LIKE_ICASE (ILIKE under a collation whose ctype is
 *           "C") the ASCII letters of text and pattern compare without
 *           case, as PostgreSQL lowers both there; other bytes as they are.
 * DATE_TRUNC (TIMESTAMP) -> TIMESTAMP, as timestamp_trunc; aux =
 *           XpuDateField: YEAR, QUARTER, MONTH, WEEK, DAY, HOUR, MINUTE or
 *           SECOND.  Infinite inputs are returned as they are; a result
 *           outside the timestamp range gives RECHECK.
 * TS_PL_INTERVAL (TIMESTAMP, INT4 months, INT4 days, INT8 microseconds)
 *           -> TIMESTAMP, as timestamp_pl_interval of that span: months on
 *           the calendar (the day clamped to the month's end), then days,
 *           then microseconds; infinite inputs are returned as they are; a
 *           result outside the timestamp range gives RECHECK.
 * TZ_LOCAL  (TIMESTAMPTZ) -> TIMESTAMP: the local time of a zone with a
 *           fixed UTC offset, aux = its offset in seconds east of UTC
 *           (|aux| < 86400), as timestamptz_timestamp in such a zone.
 *           With flags XPU_NODE_TZ_RULES, aux is instead the pool offset
 *           of the zone's XpuZoneRules, and the offset is the one in force
 *           at the instant (as pg_localtime finds it).
 * TZ_UTC    (TIMESTAMP) -> TIMESTAMPTZ: the inverse, as
 *           timestamp_timestamptz.  With XPU_NODE_TZ_RULES the offset of
 *           the local time is DetermineTimeZoneOffset's: the one in force
 *           around it, and for a local time that a transition skips or
 *           repeats, the earlier offset when clocks went forward and the
 *           later one when they went back.  Infinite inputs are returned
 *           as they are; an input or result outside the timestamp range,
 *           or an instant outside the rules' span, gives RECHECK.
 * NUM_ROUND (NUMERIC) -> NUMERIC, as numeric_round with the constant
 *           scale aux (|aux| <= 2000): half away from zero, display scale
 *           aux or 0 when aux is negative.  NUM_TRUNC likewise as
 *           numeric_trunc.  A result past the 128-bit range gives RECHECK.
 *
 * The text functions take TEXT or VARCHAR arguments; a TEXT result of those
 * below is a part of the argument's bytes.  flags XPU_NODE_LIKE_UTF8 where
 * they count characters: set when the database encoding is UTF8 (a
 * character is a UTF-8 sequence), clear for single-byte encodings; no
 * other encoding is offered.
 * SUBSTR    (TEXT, INT4 start [, INT4 count]) -> TEXT, as text_substr:
 *           the characters from start (1-based; before 1 counts from 1)
 *           for count; a negative count gives RECHECK (the CPU's error).
 * CHAR_LENGTH (TEXT) -> INT4 characters; OCTET_LENGTH (TEXT) -> INT4 bytes.
 * STRPOS    (TEXT, TEXT) -> INT4, as text_position: the character position
 *           of the first occurrence, 0 for none, 1 for an empty needle;
 *           bytewise, so only under a deterministic collation.
 * STARTS_WITH (TEXT, TEXT) -> BOOL, bytewise likewise.
 * LEFT/RIGHT (TEXT, INT4 n) -> TEXT, as text_left/text_right: the first
 *           (last) n characters; a negative n all but the last (first) -n.
 * TRIM_SPACES (TEXT) -> TEXT: leading (aux 1), trailing (aux 2) or both
 *           (aux 3) spaces removed, as ltrim/rtrim/btrim with one argument.
 * SPLIT_PART (TEXT, TEXT sep, INT4 n) -> TEXT, as split_part: the n-th
 *           part between non-overlapping occurrences of sep, from the end
 *           when n is negative; bytewise (deterministic collation, UTF8 or
 *           a single-byte encoding); no flag; n = 0 gives RECHECK (the
 *           CPU's error).
 *
 * The text functions whose results are new bytes write them into a
 * scratch region of the thread's evaluation slots: the slots past the
 * program's nodes, XPU_SCRATCH_BYTES(nnodes) bytes in all.  Their aux is
 * the node's region, XPU_SCRATCH_REGION(offset, capacity): offset a
 * multiple of 8, offset + capacity within the scratch bytes.  A result
 * longer than its region's capacity gives RECHECK.
 * LOWER/UPPER (TEXT) -> TEXT: the ASCII letters mapped to lower (upper)
 *           case, every other byte kept, as lower()/upper() do under a
 *           collation whose ctype is C; no flag.
 * TEXTCAT   (TEXT, TEXT) -> TEXT: the two values' bytes one after the
 *           other, as textcat (text || text); no flag.
 * REVERSE   (TEXT) -> TEXT, as reverse(): the characters in reverse
 *           order (flags XPU_NODE_LIKE_UTF8: a UTF-8 sequence's bytes kept
 *           in order).
 * REPLACE   (TEXT, TEXT from, TEXT to) -> TEXT, as replace(): every
 *           occurrence of from, left to right and not overlapping,
 *           replaced by to; bytewise (deterministic collation, UTF8 or a
 *           single-byte encoding, where a match of valid text begins a
 *           character); an empty from or value is returned as it is; no
 *           flag.
 * TO_CHAR   (TIMESTAMP, CONST TEXT format) -> TEXT, as to_char(timestamp,
 *           text): the format is the code generator's parse of the SQL
 *           format, pairs of bytes (XpuCharKey, flags): XPU_CHAR_LITERAL
 *           with the byte to copy, or a field with XPU_CHAR_FM for its FM
 *           prefix.  An infinite timestamp gives NULL, as PostgreSQL's.
 * TO_TEXT   (INT2, INT4, INT8, BOOL, NUMERIC, DATE or TIMESTAMP) -> TEXT:
 *           the value as the cast to text prints it (int8out, booltext's
 *           "true"/"false", numeric_out at the value's display scale,
 *           date_out and timestamp_out under DateStyle ISO); no flag.
 */
#define XPU_EVAL_SLOT_BYTES		32		/* one thread's slot of a node */
#define XPU_SCRATCH_BYTES(nnodes) \
	((XPU_GPUSCAN_MAX_NODES - (int) (nnodes)) * XPU_EVAL_SLOT_BYTES)
#define XPU_SCRATCH_REGION(offset, capacity) \
	((int32_t) ((uint32_t) (offset) | ((uint32_t) (capacity) << 16)))
#define XPU_SCRATCH_OFFSET(aux)		((int32_t) ((uint32_t) (aux) & 0xFFFF))
#define XPU_SCRATCH_CAPACITY(aux)	((int32_t) ((uint32_t) (aux) >> 16))
typedef enum XpuDateField
{
	XPU_FIELD_YEAR = 1,
	XPU_FIELD_MONTH,
	XPU_FIELD_DAY,
	XPU_FIELD_DOW,
	XPU_FIELD_ISODOW,
	XPU_FIELD_DOY,
	XPU_FIELD_QUARTER,
	XPU_FIELD_HOUR,			/* TIMESTAMP only */
	XPU_FIELD_MINUTE,		/* TIMESTAMP only */
	XPU_FIELD_WEEK,			/* the ISO week */
	XPU_FIELD_SECOND,
	XPU_FIELD_DECADE,
	XPU_FIELD_CENTURY,
	XPU_FIELD_MILLENNIUM,
	XPU_FIELD_ISOYEAR,		/* EXTRACT/DATE_PART only */
	XPU_FIELD_JULIAN,		/* DATE only: a timestamp's is fractional */
	XPU_FIELD_EPOCH,
	XPU_FIELD_MILLISEC,		/* TIMESTAMP only, as SECOND and MICROSEC */
	XPU_FIELD_MICROSEC
} XpuDateField;

/* the fields of a TO_CHAR format (see formatting.c's DCH keywords) */
typedef enum XpuCharKey
{
	XPU_CHAR_LITERAL = 0,
	XPU_CHAR_YYYY, XPU_CHAR_YYY, XPU_CHAR_YY, XPU_CHAR_Y,
	XPU_CHAR_IYYY, XPU_CHAR_IYY, XPU_CHAR_IY, XPU_CHAR_I,
	XPU_CHAR_MM,
	XPU_CHAR_MONTH_UPPER, XPU_CHAR_MONTH_CAP, XPU_CHAR_MONTH_LOWER,
	XPU_CHAR_MON_UPPER, XPU_CHAR_MON_CAP, XPU_CHAR_MON_LOWER,
	XPU_CHAR_DD, XPU_CHAR_DDD, XPU_CHAR_D, XPU_CHAR_ID,
	XPU_CHAR_DAY_UPPER, XPU_CHAR_DAY_CAP, XPU_CHAR_DAY_LOWER,
	XPU_CHAR_DY_UPPER, XPU_CHAR_DY_CAP, XPU_CHAR_DY_LOWER,
	XPU_CHAR_HH12, XPU_CHAR_HH24, XPU_CHAR_MI, XPU_CHAR_SS,
	XPU_CHAR_MS, XPU_CHAR_US, XPU_CHAR_SSSS,
	XPU_CHAR_AM_UPPER, XPU_CHAR_AM_LOWER,		/* AM, PM / am, pm */
	XPU_CHAR_AM_DOTS_UPPER, XPU_CHAR_AM_DOTS_LOWER,	/* A.M., P.M. */
	XPU_CHAR_AD_UPPER, XPU_CHAR_AD_LOWER,		/* AD, BC / ad, bc */
	XPU_CHAR_AD_DOTS_UPPER, XPU_CHAR_AD_DOTS_LOWER,	/* A.D., B.C. */
	XPU_CHAR_Q, XPU_CHAR_WW, XPU_CHAR_IW, XPU_CHAR_W, XPU_CHAR_J,
	XPU_CHAR__COUNT
} XpuCharKey;
#define XPU_CHAR_FM				0x01

#define XPU_NODE_CONST_NULL		0x0001
#define XPU_NODE_TEXT_BYTEWISE	0x0002
#define XPU_NODE_LIKE_UTF8		0x0004
#define XPU_NODE_LIKE_ICASE		0x0008
#define XPU_NODE_TZ_RULES		0x0010	/* TZ_LOCAL/TZ_UTC: aux names an
										 * XpuZoneRules in the pool */

/*
 * A time zone's UTC offsets over a span of time, for TZ_LOCAL and TZ_UTC
 * with XPU_NODE_TZ_RULES: at pool offset aux (16-byte aligned), then
 * ntrans XpuZoneTransition in ascending order of at.  Times are seconds
 * since 1970-01-01 00:00 UTC.  The offset is first_gmtoff before the first
 * transition and each transition's gmtoff from its at on; the rules are
 * those of the zone for instants in [lo, hi), and list every transition
 * before hi.  Offsets are seconds east of UTC, |gmtoff| < 86400.  The
 * service checks the order and the bounds; the kernels never read past the
 * pool whatever they hold.
 */
typedef struct XpuZoneRules
{
	int64_t		lo;
	int64_t		hi;
	int32_t		ntrans;
	int32_t		first_gmtoff;
} XpuZoneRules;

typedef struct XpuZoneTransition
{
	int64_t		at;
	int32_t		gmtoff;
	int32_t		reserved;
} XpuZoneTransition;

#define XPU_ZONE_MAX_TRANSITIONS	4096

typedef struct XpuNode
{
	int16_t		opcode;			/* XpuOpcode */
	int16_t		restype;		/* XpuType */
	int16_t		nargs;
	uint16_t	flags;			/* XPU_NODE_* */
	int32_t		args;			/* index of the first argument in the
								 * program's argument array */
	int32_t		aux;			/* see per-opcode details */
} XpuNode;

typedef struct XpuNumericConst
{
	int64_t		lo;				/* two's complement 128-bit value, low half */
	int64_t		hi;				/* high half */
	int32_t		scale;			/* value = (hi:lo) * 10^-scale, scale >= 0 */
	int32_t		reserved;
} XpuNumericConst;

typedef struct XpuTextConst
{
	int32_t		len;			/* bytes that follow */
	int32_t		reserved;
} XpuTextConst;

/*
 * Attribute descriptor: one per attribute from attnum 1 up to the highest
 * attnum referenced, so the kernel can walk a heap tuple's data area.
 */
typedef struct XpuAttr
{
	int16_t		attlen;			/* > 0 fixed, -1 varlena, -2 cstring */
	int8_t		attalign;		/* 1, 2, 4 or 8 */
	int8_t		attbyval;
	int16_t		xtype;			/* XpuType if referenced, else 0 */
	int16_t		reserved;
} XpuAttr;

/*
 * OpenSession payload (PGSTROM_MSG_OPEN_SESSION).  All *_offset fields are
 * byte offsets from the start of the message (header included); the
 * service checks every one of them against the message length.
 */
typedef struct XpuSession
{
	uint32_t	magic;			/* XPU_PROGRAM_MAGIC */
	uint32_t	kind;			/* XPU_KIND_GPUSCAN */
	uint64_t	plan_id;		/* query-buffer table key, for later use */
	uint32_t	nattrs;
	uint32_t	attrs_offset;	/* XpuAttr[nattrs] */
	uint32_t	nnodes;
	uint32_t	nodes_offset;	/* XpuNode[nnodes] */
	uint32_t	nargs;
	uint32_t	args_offset;	/* int32_t[nargs]: node indexes */
	uint32_t	consts_len;
	uint32_t	consts_offset;	/* constant pool, 16-byte aligned */
	uint32_t	root;			/* node index of the qual: BOOL, = nnodes-1 */
	uint32_t	encoding;		/* PostgreSQL encoding id of the database */
	uint32_t	preagg_offset;	/* GPUPREAGG: XpuPreAggDesc; others: 0 */
	uint32_t	join_offset;	/* GPUJOIN: XpuJoinDesc; others: 0 */
} XpuSession;

#define XPU_KIND_GPUSCAN		1
#define XPU_KIND_GPUPREAGG		2
#define XPU_KIND_GPUJOIN		3
#define XPU_KIND_GPUJOIN_PREAGG	4	/* GpuPreAgg fused over GpuJoin: both
									 * preagg_offset and join_offset */

/*
 * TaskExec payload (PGSTROM_MSG_TASK_EXEC): a BLOCK chunk.  Raw 8kB heap
 * pages follow the header at pages_offset (a multiple of 8192 from the
 * message start is NOT required; 16-byte alignment is).  MVCC is resolved:
 * invisible tuples' line pointers are LP_UNUSED in the copy.
 */
typedef struct XpuChunk
{
	uint32_t	nblocks;		/* <= XPU_MAX_BLOCKS_PER_CHUNK */
	uint32_t	pages_offset;	/* the pages (buffer_id 0) or the XpuPageRefs
								 * (XPU_BUFFER_SHARED) or the block
								 * numbers (XPU_BUFFER_DIRECT), from the
								 * message start; 16-byte aligned */
	uint32_t	chunk_id;		/* echoed in the result */
	uint32_t	buffer_id;		/* 0: pages follow in this message;
								 * XPU_BUFFER_SHARED: XpuPageRefs follow, the
								 * pages are in PostgreSQL's shared buffers;
								 * XPU_BUFFER_DIRECT: block numbers follow,
								 * the service reads the relation's files;
								 * any other value is a protocol error (the
								 * memfd buffers of ATTACH_BUFFER are gone) */
} XpuChunk;

/*
 * Zero-copy chunks.  buffer_id XPU_BUFFER_SHARED names a chunk whose pages
 * lie in PostgreSQL's shared buffers, which the service mapped read-only
 * and registered with each device at start (PgStromCtlConfig.shared_*).
 * The message carries nblocks XpuPageRef at pages_offset (from the message
 * start, 16-byte aligned) and ends after them; no page byte travels.
 *
 * The service gathers each referenced page into device memory and applies
 * its ref to that copy (never to shared buffers): pd_lower is set to the
 * end of line pointer nlines, and unless XPU_PAGE_ALL_VISIBLE is set, every
 * one of the first nlines line pointers whose bit in visible[] is clear
 * becomes LP_UNUSED (bit (off - 1) % 32 of word (off - 1) / 32 stands for
 * offset off).  The kernels then see the page image an inline chunk would
 * carry, and item positions refer to the chunk's page order as before.
 *
 * The backend keeps every referenced buffer pinned until the chunk's answer
 * has been emitted, so the tuples the refs name stay where they are while
 * the device reads them; the line pointers past nlines and the free space
 * may change meanwhile, which the ref makes irrelevant.  The service checks
 * buffer < PgStromCtlConfig.shared_nbuffers, nlines <=
 * XPU_MAX_TUPLES_PER_PAGE and flags before use.
 */
#define XPU_BUFFER_SHARED			0xffffffffU
#define XPU_PAGE_VISIBLE_WORDS		10	/* 320 bits >= XPU_MAX_TUPLES_PER_PAGE */
#define XPU_PAGE_ALL_VISIBLE		0x0001	/* every LP_NORMAL of the first
											 * nlines is visible (visible[]
											 * is zero): only for a page on
											 * which no LP_NORMAL can appear
											 * below nlines while it is
											 * pinned, i.e. all-visible
											 * without PD_HAS_FREE_LINES
											 * (runtime/task_pages.c); the
											 * backend checked no line
											 * pointer of such a page */
#define XPU_PAGE_STAMPED			0x0002	/* only with XPU_PAGE_ALL_VISIBLE:
											 * visible[] holds the page's
											 * cache stamp (below) */
#define XPU_PAGE_FLAGS_MASK			0x0003

typedef struct XpuPageRef
{
	uint32_t	buffer;			/* shared buffer index, 0-based (Buffer - 1) */
	uint16_t	nlines;			/* line pointers the backend examined */
	uint16_t	flags;			/* XPU_PAGE_* */
	uint32_t	visible[XPU_PAGE_VISIBLE_WORDS];
} XpuPageRef;

/*
 * A stamped zero-copy page (XPU_PAGE_STAMPED, which requires
 * XPU_PAGE_ALL_VISIBLE, so visible[] is otherwise unused) may enter the
 * device page cache as a direct-read page would: visible[] then holds its
 * block number, its relation's file and its visibility-map stamp, read by
 * the backend before the page's image could be copied (see "The device
 * page cache" below).  The stamp is never 0, the OIDs are as in
 * XpuDirectFile, and every stamped ref of a chunk names the same file; the
 * service refuses the chunk otherwise.  With the all-visible ref applied
 * the device's copy is the page as it was (pd_lower already ends after
 * the nlines line pointers), so the cache holds the page's own image.
 */
#define XPU_PAGE_STAMP_LO			0	/* visible[] words */
#define XPU_PAGE_STAMP_HI			1
#define XPU_PAGE_STAMP_BLKNO		2
#define XPU_PAGE_STAMP_SPCOID		3
#define XPU_PAGE_STAMP_DBOID		4
#define XPU_PAGE_STAMP_RELFILENODE	5

/*
 * Direct-read chunks.  buffer_id XPU_BUFFER_DIRECT names a chunk whose
 * pages the service reads itself from the relation's files.  The message
 * is
 *
 *		PgStromMsgHeader | XpuChunk | XpuDirectFile | uint32_t blknos[nblocks]
 *
 * with the XpuDirectFile at the first multiple of 16 after the XpuChunk
 * (XPU_DIRECT_FILE_OFFSET) and pages_offset naming the block numbers (16-byte
 * aligned, right after the XpuDirectFile); the message ends after them.
 *
 * The backend sends a block by number only when, at the time it decided,
 * the visibility map said all-visible and the page was either not in shared
 * buffers or there and not dirty (so the file holds what the buffer holds),
 * the relation is not temporary and the block lies below the relation's
 * size at scan start.  The scan's lock keeps the file from being truncated
 * or rewritten.  A page modified after that decision can only have been
 * changed by transactions the scan's snapshot does not see, and such a
 * change clears PD_ALL_VISIBLE; so the service checks each page it reads:
 *
 *  - all zeros (a new page): no tuples, as PostgreSQL skips it;
 *  - with XPU_DIRECT_CHECKSUMS, the page checksum (pg_checksum_page);
 *  - the header as PageIsVerified checks it;
 *  - PD_ALL_VISIBLE set.
 *
 * A page that fails a check is *bounced*: the kernels see it without line
 * pointers, and the backend reads that block again through the buffer
 * manager (which raises PostgreSQL's own error for a page that is corrupt
 * on disk, and uses the buffer when the file was being written meanwhile).
 * A page that passes is given to the kernels as it is: every LP_NORMAL
 * tuple on it is visible to every snapshot.
 *
 * The answer to a direct-read chunk starts with one SUCCESS_HALFWAY reply,
 * the read report: an XpuChunkResult whose items (uint32_t each) are the
 * bounced blocks, (block index in chunk) | (XPU_BOUNCE_* << XPU_BOUNCE_SHIFT),
 * ascending; ntuples = the blocks served from the device page cache (0
 * without XPU_DIRECT_STAMPS), nrecheck = 0, gpu_time_ns the time of the
 * reads.
 * The replies that follow are those of an inline chunk of the same pages.
 * Items of the later replies never name a bounced block.
 *
 * The service validates every field: spcoid, dboid and relfilenode are
 * non-zero OIDs (spcoid XPU_GLOBAL_TABLESPACE is refused), seg_blocks is
 * 1..XPU_DIRECT_MAX_SEG_BLOCKS, every block is below rel_nblocks, flags has
 * no bit outside XPU_DIRECT_FLAGS_MASK.  The path is built from these
 * numbers only: PGDATA/base/<dboid>/<relfilenode>[.<segment>] or
 * PGDATA/pg_tblspc/<spcoid>/PG_<pg_major>_<catversion>/<dboid>/...
 * A read error or a short read is an error reply naming the file and block.
 *
 * The device page cache (pg_strom.gpu_page_cache_size).  With
 * XPU_DIRECT_STAMPS in flags, nblocks uint64_t stamps follow the block
 * numbers at XPU_DIRECT_STAMPS_OFFSET(nblocks) (8-byte aligned) and end the
 * message.  A block's stamp is the LSN of the visibility-map page that
 * covers it, read by the backend under that page's share lock at the same
 * moment as the block's all-visible bit; 0 means "do not cache".  The
 * service may then keep in device memory the image of a page it read
 * (one that passed every check above and is not new), tagged with the
 * relation, the block and the stamp, and serve a later block of the same
 * relation whose stamp is equal from that memory instead of the file.
 * This is exact because every change to a heap page clears its
 * all-visible bit, and every setting of a bit is WAL-logged with a new LSN
 * on the map page (visibilitymap_set): an equal stamp with the bit set
 * means no change since the image was read (README, "Device page cache").
 * Unlogged and temporary relations are never stamped.  A zero-copy page may
 * carry a stamp too (XPU_PAGE_STAMPED), which fills the cache from the
 * image gathered from shared buffers.  In the read report
 * ntuples counts the blocks served from the cache; with a cache the backend
 * also sends blocks whose pages lie clean in shared buffers by number.
 *
 * XPU_DIRECT_CACHE_ONLY (only with XPU_DIRECT_STAMPS): the backend sent the
 * blocks without asking whether their files are current (it skipped the
 * buffer mapping lookup, the largest part of its cost a block), so the
 * service reads no file for this chunk: a block the cache does not hold
 * under its stamp is bounced with XPU_BOUNCE_NOT_CACHED, and the backend
 * decides it again the ordinary way.
 */
#define XPU_BUFFER_DIRECT			0xfffffffeU
#define XPU_DEFAULT_TABLESPACE		1663	/* DEFAULTTABLESPACE_OID: base/ */
#define XPU_GLOBAL_TABLESPACE		1664	/* GLOBALTABLESPACE_OID: refused */
#define XPU_DIRECT_MAX_SEG_BLOCKS	(1U << 22)	/* 32GB segments at 8kB */
#define XPU_DIRECT_CHECKSUMS		0x0001	/* data_checksums is on */
#define XPU_DIRECT_STAMPS			0x0002	/* stamps follow the block numbers */
#define XPU_DIRECT_CACHE_ONLY		0x0004	/* with STAMPS: bounce what the
											 * cache does not hold, read no
											 * file (XPU_BOUNCE_NOT_CACHED) */
#define XPU_DIRECT_FLAGS_MASK		0x0007

typedef struct XpuDirectFile
{
	uint32_t	spcoid;			/* tablespace OID */
	uint32_t	dboid;			/* database OID (the relation's) */
	uint32_t	relfilenode;	/* main fork */
	uint32_t	flags;			/* XPU_DIRECT_* */
	uint32_t	seg_blocks;		/* RELSEG_SIZE: blocks per segment file */
	uint32_t	rel_nblocks;	/* blocks at scan start: every blkno is below */
	uint32_t	pg_major;		/* PG_MAJORVERSION_NUM, for the tablespace path */
	uint32_t	catversion;		/* CATALOG_VERSION_NO, likewise */
} XpuDirectFile;

#define XPU_DIRECT_FILE_OFFSET		32	/* header (16) + XpuChunk (16) */
#define XPU_DIRECT_BLKNOS_OFFSET	(XPU_DIRECT_FILE_OFFSET + 32)
#define XPU_DIRECT_STAMPS_OFFSET(nblocks) \
	(XPU_DIRECT_BLKNOS_OFFSET + ((((uint64_t) (nblocks)) * 4 + 7) & ~(uint64_t) 7))

#define XPU_BOUNCE_SHIFT			24
#define XPU_BOUNCE_INDEX_MASK		0x00ffffffU
#define XPU_BOUNCE_NOT_ALL_VISIBLE	1	/* PD_ALL_VISIBLE is off */
#define XPU_BOUNCE_CHECKSUM			2	/* the checksum does not match */
#define XPU_BOUNCE_BAD_HEADER		3	/* PageIsVerified would refuse it */
#define XPU_BOUNCE_NOT_CACHED		4	/* XPU_DIRECT_CACHE_ONLY: not in the
										 * cache under that stamp */

/*
 * TaskExec replies (SUCCESS_HALFWAY parts, then SUCCESS; see
 * pg_strom_proto.h): each is an XpuChunkResult, then nitems items whose
 * shape is the node kind's.  GpuScan and GpuPreAgg answer a chunk with one
 * SUCCESS whose items are uint32_t entries.  The entries of one block are
 * contiguous and in ascending line pointer order; blocks come in any
 * order.  An entry is
 *     (block index in chunk << XPU_ITEM_BLOCK_SHIFT) | line pointer number
 * (1-based, as OffsetNumber), with XPU_ITEM_RECHECK set for a row the CPU
 * must evaluate.  Rows absent from the list do not satisfy the quals.
 */
#define XPU_ITEM_BLOCK_SHIFT	10
#define XPU_ITEM_OFFSET_MASK	0x3ffU
#define XPU_ITEM_RECHECK		0x80000000U

typedef struct XpuChunkResult
{
	uint32_t	chunk_id;
	uint32_t	nitems;			/* entries that follow */
	uint32_t	ntuples;		/* LP_NORMAL tuples examined */
	uint32_t	nrecheck;		/* entries with XPU_ITEM_RECHECK */
	uint64_t	gpu_time_ns;	/* kernel + transfers, measured by the service */
} XpuChunkResult;

/*
 * TaskFinal has no payload.  For a GPUSCAN session its reply is a plain
 * Success header.  For a GPUPREAGG session, see "GpuPreAgg" below.
 */

/*
 * The GpuScan kernel:
 *
 *   extern "C" __global__ void
 *   kern_gpuscan_block(const char *session,   // the whole OpenSession message
 *                      const char *pages,     // nblocks * XPU_BLCKSZ bytes
 *                      uint32_t nblocks,
 *                      uint32_t *items,       // capacity nblocks * XPU_MAX_TUPLES_PER_PAGE
 *                      uint32_t *counters)    // XPU_COUNTER_*, zeroed by the caller
 *
 * launched with gridDim.x = nblocks (one CUDA block per heap page) and
 * blockDim.x = XPU_GPUSCAN_THREADS.  The kernel re-checks the program's
 * structure it relies on and sets counters[XPU_COUNTER_STATUS] to a non-zero
 * XPU_STATUS_* instead of reading out of bounds.
 */
#define XPU_KERNEL_GPUSCAN		"kern_gpuscan_block"
#define XPU_GPUSCAN_THREADS		256
#define XPU_COUNTER_NITEMS		0
#define XPU_COUNTER_NTUPLES		1
#define XPU_COUNTER_NRECHECK	2
#define XPU_COUNTER_STATUS		3
#define XPU_COUNTER__COUNT		4
#define XPU_STATUS_OK			0
#define XPU_STATUS_BAD_PROGRAM	1
#define XPU_STATUS_BAD_PAGE		2
#define XPU_STATUS_BAD_INNER	3	/* GpuJoin: a depth's inner buffer or
									 * row is inconsistent */

/* ================================================================
 * GpuPreAgg
 *
 * A GPUPREAGG session is a GPUSCAN program (attrs, nodes, args, consts,
 * root = the BOOL qual, a CONST true when there is none) plus, at
 * XpuSession.preagg_offset, an XpuPreAggDesc naming the nodes that compute
 * the grouping keys, the aggregate arguments and the FILTER clauses.  Every
 * node index used by the descriptor is < root, so one pass of the
 * interpreter over nodes 0..root evaluates all of them; a row is aggregated
 * only when the root is true, and a RECHECK anywhere (any node) sends the
 * whole row to the CPU, which then evaluates quals, keys and arguments with
 * PostgreSQL's executor.  A row is therefore either accumulated on the
 * device or returned as a RECHECK item, never both.
 *
 * The device keeps one hash table per (plan_id, device): every session with
 * that plan_id (the parallel workers of one query) accumulates into it.
 * The partial results it returns may hold several entries for one group
 * key (rows that went to the CPU, sessions that did not share the table):
 * the final Agg above GpuPreAgg combines them, so that is never wrong.
 * ================================================================
 */
#define XPU_PREAGG_MAX_KEYS		32
#define XPU_PREAGG_MAX_AGGS		64
#define XPU_PREAGG_MAX_ENTRY	4096	/* bytes of one group entry */
#define XPU_PREAGG_MAX_TEXT_KEY	256		/* bytes of one text key */

typedef struct XpuPreAggDesc
{
	uint32_t	nkeys;			/* 0..XPU_PREAGG_MAX_KEYS; 0: one group */
	uint32_t	keys_offset;	/* XpuGroupKey[nkeys], from the message start */
	uint32_t	naggs;			/* 0..XPU_PREAGG_MAX_AGGS; 0: DISTINCT */
	uint32_t	aggs_offset;	/* XpuAggDesc[naggs], from the message start */
	uint32_t	entry_size;		/* bytes of one entry: a multiple of 16,
								 * 16 <= entry_size <= XPU_PREAGG_MAX_ENTRY */
	uint32_t	reserved;		/* 0 */
} XpuPreAggDesc;

/*
 * A grouping key: the value of node `node` (restype = xtype) is stored in
 * the entry at [offset, offset + width).  offset is a multiple of 16 and
 * >= XPU_PREAGG_ENTRY_HEADER; key and accumulator regions do not overlap.
 *
 * Key slot encoding (little-endian):
 *   byte 0        1 if the key is NULL (then the rest is zero), else 0
 *   BOOL, INT2, INT4, INT8, DATE, TIMESTAMP, TIMESTAMPTZ:
 *                 int64 at +8 (sign-extended); width 16
 *   FLOAT4        float at +8; width 16
 *   FLOAT8        double at +8; width 16
 *   NUMERIC       int32 scale at +4, int128 at +16 (value = int128 *
 *                 10^-scale, exactly as xpu_datum); width 32
 *   TEXT, VARCHAR, BPCHAR
 *                 int32 length at +4, the bytes (no varlena header) from +8;
 *                 width = 8 + the longest value the slot holds, a multiple
 *                 of 16 and <= 8 + XPU_PREAGG_MAX_TEXT_KEY.  A longer value
 *                 makes the row RECHECK.
 * The slot holds the value of the first row that created the group.
 * Equality is PostgreSQL's grouping equality: floats compare with NaN equal
 * to NaN and -0 equal to 0; numerics by value (1.0 = 1.00); BPCHAR ignoring
 * trailing spaces; TEXT/VARCHAR bytewise (the planner offers text keys only
 * under deterministic collations).  NULL equals NULL.  The hash is computed
 * over the same normalized forms, so equal keys hash alike.
 */
typedef struct XpuGroupKey
{
	int32_t		node;			/* node index, < root */
	int16_t		xtype;			/* the node's restype */
	int16_t		reserved;		/* 0 */
	uint32_t	offset;			/* slot offset in the entry */
	uint32_t	width;			/* slot bytes, see above */
} XpuGroupKey;

/*
 * Accumulators.  X(name, bytes, argument types)
 * A row contributes to an aggregate when the qual is true, the FILTER node
 * (if any) is true, and (except for COUNT with arg = -1) the argument is not
 * NULL.  Layouts, all fields 8 bytes little-endian from the accumulator's
 * offset (a multiple of 16):
 *
 *   COUNT     u64 n                                   (arg -1: count(*))
 *   SUM_INT   u64 n, u64 nnan, u64 sum_lo, i64 sum_hi int128 sum of INT2/INT4/INT8, NUMERIC
 *   SUM_FP    u64 n, f64 sum, u64 nspecial            FLOAT4/FLOAT8 summed in double;
 *                                                     nspecial counts NaN/Inf inputs
 *   MIN_INT   u64 n, i64 v, u64 nnan                  INT2/INT4/INT8/DATE/TIMESTAMP/TIMESTAMPTZ,
 *   MAX_INT   (init v INT64_MAX / INT64_MIN)          NUMERIC (see below)
 *   MIN_FP    u64 n, f64 v    (init NaN)              FLOAT4/FLOAT8 (float4 widened exactly);
 *   MAX_FP    u64 n, f64 v    (init -Inf)             order as PostgreSQL: NaN above +Inf
 *   VAR_FP    u64 n, f64 shift, f64 s1, f64 s2, u64 nspecial
 *                                                     FLOAT4/FLOAT8: s1 = sum(x - shift),
 *                                                     s2 = sum((x - shift)^2); shift is the
 *                                                     creating row's finite argument, else 0
 *   VAR_INT   u64 n, u64 0, u64 s1_lo, i64 s1_hi, u64 s2_lo, i64 s2_hi
 *                                                     INT2/INT4: int128 sum(x), sum(x*x)
 *   VAR_INT8  u64 n, u64 0, u64 s1_lo, i64 s1_hi, u64 s2_w0, u64 s2_w1, u64 s2_w2
 *                                                     INT8: int128 sum(x) and a 192-bit
 *                                                     unsigned sum(x*x) (each x*x < 2^126)
 *   SUM_NUMV  u64 n, u64 nnan, i64 maxscale, u64 w0, u64 w1, u64 w2
 *                                                     NUMERIC of varying display scale: a
 *                                                     192-bit two's complement sum at scale
 *                                                     S and the largest display scale added
 *
 * NUMERIC arguments (SUM_INT, MIN_INT, MAX_INT only): param is a scale S,
 * 0..18, and the argument is taken as the int64 value * 10^S.  A row whose
 * value has more than S fractional digits, does not fit in int64 that way,
 * or is NaN or infinite is RECHECK (the planner offers this only for
 * numeric(p,S) with p <= 18, whose values always fit).  SUM_INT's second
 * field and MIN/MAX_INT's nnan count NaN inputs on the CPU; the device
 * leaves them 0.  For other argument types param is 0.
 *
 * SUM_NUMV (NUMERIC only): param is a scale S, 0..XPU_PREAGG_MAX_NUMV_SCALE,
 * that bounds the display scale of every value the argument can take (the
 * planner derives it from the expression's form).  A value is added as the
 * int128 value * 10^S, and maxscale keeps the largest display scale of the
 * values added, which is the display scale PostgreSQL gives their sum.  A row
 * whose value has more than S fractional digits, whose value * 10^S leaves
 * the device's numeric range (|m| < 10^38), or that is NaN is RECHECK; the
 * CPU adds it with 192 bits.
 *
 * With n = 0 the other fields keep their initial values (0 unless noted).
 * int128 sums are updated with 64-bit atomics: lo += v (unsigned, carry
 * detected from the old value) and hi += sign extension + carry, so the
 * final (hi:lo) is exact once every update has finished.
 */
#define XPU_AGG_LIST(X) \
	X(COUNT,    8) \
	X(SUM_INT, 32) \
	X(SUM_FP,  24) \
	X(MIN_INT, 24) \
	X(MAX_INT, 24) \
	X(MIN_FP,  16) \
	X(MAX_FP,  16) \
	X(VAR_FP,  40) \
	X(VAR_INT, 48) \
	X(VAR_INT8, 56) \
	X(SUM_NUMV, 48)

typedef enum XpuAggKind
{
	XPU_AGG_INVALID = 0,
#define XPU_AGG_ENUM(name, bytes) XPU_AGG_##name,
	XPU_AGG_LIST(XPU_AGG_ENUM)
#undef XPU_AGG_ENUM
	XPU_AGG__COUNT
} XpuAggKind;

typedef struct XpuAggDesc
{
	int16_t		kind;			/* XpuAggKind */
	int16_t		argtype;		/* xtype of node arg; 0 when arg = -1 */
	int32_t		arg;			/* node index (< root); -1 only for COUNT */
	int32_t		filter;			/* BOOL node index (< root), -1 for none */
	uint32_t	offset;			/* accumulator offset in the entry */
	int32_t		param;			/* NUMERIC argument: its scale; else 0 */
} XpuAggDesc;

#define XPU_PREAGG_MAX_NUMERIC_SCALE	18
#define XPU_PREAGG_MAX_NUMV_SCALE		32

/*
 * A group entry: XPU_PREAGG_ENTRY_HEADER bytes of header, then the key
 * slots and accumulators where the descriptor puts them.
 */
#define XPU_PREAGG_ENTRY_HEADER	16
#define XPU_PREAGG_ENTRY_VALID	0x1U	/* linked into the table: a real group */

typedef struct XpuPreAggEntryHeader
{
	uint32_t	hash;
	uint32_t	flags;			/* XPU_PREAGG_ENTRY_* */
	uint64_t	reserved;
} XpuPreAggEntryHeader;

/*
 * The device hash table, in device memory owned by the service:
 *   this header, then uint32_t slots[nslots] at slots_offset (0: empty,
 *   else entry index + 1), then capacity entries of entry_size bytes at
 *   entries_offset (both offsets from the table start, 256-byte aligned).
 * A thread that needs a new entry takes index atomicAdd(&nentries, 1);
 * when that index is >= capacity the table is full and the row is written
 * to the items as XPU_ITEM_RETRY (never accumulated).  An entry is filled
 * (hash, key, initial accumulators), fenced, and only then linked into a
 * slot with atomicCAS; an entry that lost the race for its slot is linked
 * further along or, if its key turned up meanwhile, stays unlinked
 * (flags without XPU_PREAGG_ENTRY_VALID) and is never returned.
 */
typedef struct XpuPreAggTable
{
	uint32_t	nslots;			/* a power of two */
	uint32_t	capacity;		/* entries that fit: nslots / 2 */
	uint32_t	nentries;		/* taken so far; may exceed capacity */
	uint32_t	entry_size;
	uint64_t	slots_offset;
	uint64_t	entries_offset;
} XpuPreAggTable;

#define XPU_ITEM_RETRY			0x40000000U	/* table full: the service grows
											 * the table and runs the row
											 * again; never sent to a backend */

/*
 * The GpuPreAgg kernels:
 *
 *   extern "C" __global__ void
 *   kern_gpupreagg_block(const char *session,   // the whole OpenSession message
 *                        const char *pages,     // nblocks * XPU_BLCKSZ bytes
 *                        uint32_t nblocks,
 *                        const uint32_t *retry, // NULL: every tuple of every page;
 *                        uint32_t nretry,       //  else only these items (no flags)
 *                        XpuPreAggTable *table,
 *                        uint32_t *items,       // capacity nblocks * XPU_MAX_TUPLES_PER_PAGE
 *                        uint32_t *counters)    // XPU_COUNTER_*, zeroed by the caller
 *
 * Launched with blockDim.x = XPU_GPUSCAN_THREADS and, over pages
 * (retry == NULL), any gridDim.x: block b takes the batches of
 * XPU_PREAGG_BATCH_PAGES pages b, b + gridDim.x, ..., and folds their rows
 * into a shared-memory table before it folds each group into `table` once,
 * so fewer blocks mean fewer updates of the device table; blocks past
 * ceil(nblocks / XPU_PREAGG_BATCH_PAGES) do nothing.  Over retry items the
 * grid is ceil(nretry / XPU_GPUSCAN_THREADS), a row per thread.  items receives,
 * in any order, XPU_ITEM_RECHECK entries (rows for the CPU) and
 * XPU_ITEM_RETRY entries (rows not accumulated because the table was full);
 * XPU_COUNTER_NITEMS counts both, XPU_COUNTER_NRECHECK the former.
 * XPU_COUNTER_NTUPLES counts the tuples examined (retry mode: the items).
 *
 *   extern "C" __global__ void
 *   kern_gpupreagg_rehash(const XpuPreAggTable *from, XpuPreAggTable *to)
 *
 * copies every VALID entry of `from` into `to` (an empty table with the same
 * entry_size and room for all of them), one thread per entry of `from`.
 */
#define XPU_KERNEL_GPUPREAGG		"kern_gpupreagg_block"
#define XPU_PREAGG_BATCH_PAGES		8
#define XPU_KERNEL_GPUPREAGG_REHASH	"kern_gpupreagg_rehash"

/*
 * TaskExec reply of a GPUPREAGG session: as for GPUSCAN (XpuChunkResult and
 * items), but every item is a XPU_ITEM_RECHECK row and the items are sorted
 * ascending.  Rows absent from the list were accumulated on the device (or
 * failed the qual).
 *
 * TaskFinal reply of a GPUPREAGG session: zero or more
 * PGSTROM_MSG_SUCCESS_HALFWAY messages (each at most XPU_PREAGG_GROUPS_BYTES
 * of entries), then a plain Success header, all with the TaskFinal's
 * request_id.  The groups come only with the TaskFinal of the last session
 * of the plan_id to finish; the others get the Success alone.  Each groups
 * message is XpuPreAggGroups followed by nentries VALID entries of
 * entry_size bytes, copied from the device table as they are.
 */
#define XPU_PREAGG_GROUPS_BYTES		(64U << 20)

typedef struct XpuPreAggGroups
{
	uint32_t	nentries;		/* entries that follow */
	uint32_t	entry_size;
	uint32_t	ngroups_total;	/* VALID entries of the whole table */
	uint32_t	ngrowths;		/* times the table was grown */
	uint64_t	table_bytes;	/* device memory of the table at the end */
} XpuPreAggGroups;

/* ================================================================
 * GpuJoin (docs/internals/join-kernels.md)
 *
 * A GPUJOIN session is a GPUSCAN program over the outer (fact) table: its
 * root is the outer quals (a CONST true when there are none), and every
 * outer join key is a node < root, so one pass of the interpreter
 * evaluates the quals and all keys.  XpuSession.join_offset locates an
 * XpuJoinDesc; preagg_offset is 0 (a fused GpuPreAgg is XPU_KIND_GPUJOIN_PREAGG).
 *
 * The inner sides are not programs: the backend sends each depth's rows
 * with PGSTROM_MSG_JOIN_INNER (pg_strom_proto.h) as row_size bytes each,
 * the key slots at the keys' offsets in the XpuGroupKey slot encoding
 * (above), every other byte zero (reserved for payload slots of a fused
 * GpuPreAgg).  Row i of a depth is row i of the backend's inner result:
 * that index is all the device returns.
 * ================================================================
 */
#define XPU_JOIN_MAX_DEPTHS		4		/* inner tables of one node */
#define XPU_JOIN_MAX_KEYS		8		/* equi-join keys of one depth */
#define XPU_JOIN_MAX_ROW		4096	/* bytes of one inner row */
#define XPU_JOIN_MAX_TEXT_KEY	256		/* bytes of one text key */
#define XPU_JOIN_MAX_ROWS		0x7fffffffU	/* inner rows of one depth */

/*
 * join type of a depth; RIGHT and FULL are not offered (they need a matched
 * flag per inner row and a pass over the unmatched ones after the scan)
 */
#define XPU_JOIN_INNER			1
#define XPU_JOIN_LEFT			2		/* LEFT OUTER: unmatched outer rows
										 * continue NULL-extended */
#define XPU_JOIN_SEMI			3		/* at most one continuation */
#define XPU_JOIN_ANTI			4		/* only outer rows with no match */

typedef struct XpuJoinDesc
{
	uint32_t	ndepths;		/* 1..XPU_JOIN_MAX_DEPTHS */
	uint32_t	depths_offset;	/* XpuJoinDepth[ndepths], from the message start */
	uint32_t	nkeys;			/* keys of all depths together */
	uint32_t	keys_offset;	/* XpuJoinKey[nkeys], from the message start */
	uint32_t	flags;			/* 0 */
	uint32_t	ncols;			/* payload columns of all depths (0..
								 * XPU_JOIN_MAX_COLS; 0 unless fused or
								 * with residual quals) */
	uint32_t	cols_offset;	/* XpuJoinCol[ncols], from the message start */
	uint32_t	quals_offset;	/* 0, or int32_t[ndepths] from the message
								 * start: each depth's residual join qual
								 * (a BOOL node after the root; -1 none):
								 * the nodes after the root are an inner
								 * stage then, in a GPUJOIN session too */
	uint64_t	inner_key;		/* the key of the inner rows' device
								 * buffers: 0 for the session's plan_id.
								 * The leaves' nodes of a partitioned outer
								 * side share one, a secret of the query
								 * as plan_id is, so the rows are loaded
								 * once for all of them; JOIN_INNER's
								 * plan_id is then this key */
} XpuJoinDesc;

/*
 * Depth d (0-based; depth 0 is joined first).  Its keys are
 * keys[key_first .. key_first + nkeys), and the depths' key ranges follow
 * each other in depth order, the last one ending at XpuJoinDesc.nkeys.
 */
typedef struct XpuJoinDepth
{
	int16_t		join_type;		/* XPU_JOIN_* */
	int16_t		reserved;		/* 0 */
	uint32_t	nkeys;			/* 1..XPU_JOIN_MAX_KEYS */
	uint32_t	key_first;
	uint32_t	row_size;		/* a multiple of 16, 16..XPU_JOIN_MAX_ROW */
} XpuJoinDepth;

/*
 * One equi-join key: the outer side is program node `node` (< root, of
 * restype outer_xtype), the inner side the slot at [offset, offset +
 * width) of the inner row, of type inner_xtype.  The two types hash and
 * compare alike: integers of any width, text with varchar, otherwise the
 * same type; the planner casts anything else.  Widths as XpuGroupKey's:
 * 16, 32 for NUMERIC, 8 + the longest inner value rounded up to 16 (at
 * most 8 + XPU_JOIN_MAX_TEXT_KEY) for text types.  offset is a multiple
 * of 16; the slots of one depth do not overlap and lie inside the row.
 */
typedef struct XpuJoinKey
{
	int32_t		node;
	int16_t		outer_xtype;
	int16_t		inner_xtype;
	uint32_t	offset;
	uint32_t	width;
} XpuJoinKey;

/*
 * A payload column: an inner column that the program reads above the
 * join (a fused GpuPreAgg's group keys and aggregate arguments), sent in
 * every inner row of its depth as a slot in the XpuGroupKey slot encoding
 * at [offset, offset + width), of type inner_xtype, after the key slots.
 * An INNER_VAR node with aux = c reads column c of the combination's row
 * at that depth.  Widths as XpuJoinKey's (text: at most 8 +
 * XPU_JOIN_MAX_TEXT_KEY); offset a multiple of 16; inside the row; no
 * overlap with the depth's key slots or other payload slots.  Only INNER
 * and LEFT depths have rows (not SEMI, ANTI).  Columns may come in any
 * order of depths.
 */
#define XPU_JOIN_MAX_COLS		32		/* payload columns of all depths */

typedef struct XpuJoinCol
{
	int16_t		depth;			/* 0..ndepths-1, an INNER or LEFT depth */
	int16_t		inner_xtype;
	uint32_t	offset;
	uint32_t	width;
	uint32_t	reserved;		/* 0 */
} XpuJoinCol;

/*
 * The device buffer of one depth, in device memory owned by the service
 * (one per plan_id, depth and device, shared by the plan's sessions):
 * this header, then at rows_offset the backend's nrows rows of row_size
 * bytes (copied as they came), then the index kern_gpujoin_build fills:
 *   uint32_t buckets[nbuckets]  0: empty, else row index + 1 (zeroed by
 *                               the service before the build)
 *   uint32_t next[nrows]        the chain: 0 ends it, else row index + 1
 *   uint32_t hashes[nrows]      each row's hash
 * All offsets are from the header's start (xpu_join_inner_layout in
 * kernels/xpu_join_hash.h lays them out, 256-byte aligned).  A row with a
 * NULL key is in no chain.  The chain order depends on the build's
 * scheduling but never changes after the build, so a cursor stays valid
 * across launches.
 */
typedef struct XpuJoinInner
{
	uint32_t	nrows;			/* <= XPU_JOIN_MAX_ROWS */
	uint32_t	row_size;		/* = the depth's XpuJoinDepth.row_size */
	uint32_t	nbuckets;		/* a power of two */
	uint32_t	depth;			/* the depth this buffer serves */
	uint64_t	rows_offset;
	uint64_t	buckets_offset;
	uint64_t	next_offset;
	uint64_t	hashes_offset;
} XpuJoinInner;

/*
 * TaskExec replies of a GPUJOIN session: as GPUSCAN's (XpuChunkResult,
 * SUCCESS_HALFWAY parts then SUCCESS), but the items are records of
 * 1 + ndepths uint32_t and XpuChunkResult.nitems counts records:
 *   [0]      the outer row's item (block index in chunk <<
 *            XPU_ITEM_BLOCK_SHIFT | line pointer number), with
 *            XPU_ITEM_RECHECK for a row the CPU must join (then every
 *            inner field is XPU_JOIN_NO_INNER)
 *   [1 + d]  the inner row index of depth d, or XPU_JOIN_NO_INNER: a LEFT
 *            depth without a match (the backend NULL-extends), and always
 *            at SEMI and ANTI depths (they add no columns)
 * ntuples counts the outer tuples examined, nrecheck the RECHECK records.
 * Records of one outer row need not be contiguous nor in one reply; every
 * combination appears exactly once across the chunk's replies.
 */
#define XPU_JOIN_NO_INNER		0xffffffffU

/*
 * The cursor of one outer row: the kernel writes it to the suspend list
 * when the output is full, and the service passes the list back as the
 * next launch's resume list over the same chunk (never sent to a
 * backend; the kernel checks every resumed cursor).  pos[d] for d >=
 * ndepths is 0.
 */
#define XPU_JOIN_CUR_FRESH		0	/* nothing written yet */
#define XPU_JOIN_CUR_PENDING	1	/* pos is a combination not yet written */
#define XPU_JOIN_CUR_EMITTED	2	/* pos is the last combination written */
#define XPU_JOIN_CUR_DONE		3	/* every combination written */

typedef struct XpuJoinCursor
{
	uint32_t	item;			/* as in the output, without flags */
	uint32_t	state;			/* XPU_JOIN_CUR_* */
	uint32_t	pos[XPU_JOIN_MAX_DEPTHS];
} XpuJoinCursor;

/*
 * The GpuJoin kernels:
 *
 *   extern "C" __global__ void
 *   kern_gpujoin_build(const char *session, uint32_t depth,
 *                      XpuJoinInner *inner, uint32_t *counters)
 *
 * links the rows of one depth's buffer (rows copied, buckets zeroed), a
 * row per thread, any grid.  counters (XPU_COUNTER__COUNT, zeroed):
 * [XPU_COUNTER_NITEMS] the rows linked, [XPU_COUNTER_NTUPLES] the rows
 * seen; a bad header or row sets XPU_STATUS_BAD_PROGRAM or
 * XPU_STATUS_BAD_INNER.
 *
 *   extern "C" __global__ void
 *   kern_gpujoin_block(const char *session, const char *pages, uint32_t nblocks,
 *                      const XpuJoinCursor *resume, uint32_t nresume,
 *                      XpuJoinInner *inner0, ... inner3,   // NULL past ndepths
 *                      uint32_t *out, uint32_t capacity,   // records of 1 + ndepths
 *                      XpuJoinCursor *suspend,             // nblocks * XPU_MAX_TUPLES_PER_PAGE
 *                      uint32_t *counters)                 // XPU_JOIN_COUNTER__COUNT, zeroed
 *
 * Over pages (resume NULL): gridDim.x = nblocks, blockDim.x =
 * XPU_GPUSCAN_THREADS.  Over a resume list: one cursor per thread, grid
 * covering nresume.  Rows that found the output full write their cursor
 * to suspend (counters[XPU_JOIN_COUNTER_NSUSPEND]); the service sends the
 * min(counters[XPU_COUNTER_NITEMS], capacity) records written and
 * launches again over the suspend list until it is empty.
 */
#define XPU_KERNEL_GPUJOIN_BUILD	"kern_gpujoin_build"
#define XPU_KERNEL_GPUJOIN			"kern_gpujoin_block"
#define XPU_JOIN_COUNTER_NSUSPEND	4
#define XPU_JOIN_COUNTER__COUNT		5

/*
 * GpuPreAgg fused over GpuJoin (XPU_KIND_GPUJOIN_PREAGG; docs/internals/join-kernels.md,
 * "Fused GpuPreAgg").  The session is a GPUJOIN one (join_offset, its
 * root the outer quals, the outer join keys below it) that also has a
 * GPUPREAGG descriptor (preagg_offset).  Nodes after the root are
 * evaluated once per join combination and may read inner columns
 * (INNER_VAR over the XpuJoinCol payload columns); no VAR may follow the
 * root.  Group keys, aggregate arguments and FILTERs name any node but
 * the root.  XpuJoinDesc.quals_offset may give INNER and LEFT depths a
 * residual join qual (docs/internals/join-kernels.md, "Residual join quals").  The inner depths are loaded and built as GPUJOIN's
 * (PGSTROM_MSG_JOIN_INNER, kern_gpujoin_build accepts either kind); the
 * chunks run as GPUPREAGG's (items, RETRY passes, growth, groups at the
 * last TaskFinal) through
 *
 *   extern "C" __global__ void
 *   kern_gpujoin_preagg(const char *session, const char *pages, uint32_t nblocks,
 *                       const uint32_t *retry, uint32_t nretry,
 *                       XpuPreAggTable *table,
 *                       XpuJoinInner *inner0, ... inner3,   // NULL past ndepths
 *                       uint32_t *items, uint32_t *counters)
 *
 * with kern_gpupreagg_block's geometry, items and counters.  An item is a
 * whole outer row: RECHECK (the backend joins and aggregates that row on
 * the CPU) or RETRY; none of its combinations was folded then.
 */
#define XPU_KERNEL_GPUJOIN_PREAGG	"kern_gpujoin_preagg"

#endif							/* PG_STROM_XPU_H */
