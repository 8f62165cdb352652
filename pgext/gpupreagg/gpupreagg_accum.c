/*
 * gpupreagg_accum.c
 *
 * The group entry layout of GpuPreAgg, the CPU side of its accumulators,
 * and the conversion of an accumulator into PostgreSQL's own partial
 * aggregate state.  CPU accumulators use the device's byte layout (see
 * pg_strom_xpu.h), so an entry forms the same partial state whether the
 * device or the CPU filled it.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "common/int128.h"
#include "libpq/pqformat.h"
#include "mb/pg_wchar.h"
#include "nodes/nodeFuncs.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/float.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

#include "codegen/codegen.h"
#include "gpupreagg/gpupreagg.h"

#ifndef HAVE_INT128
#error "GpuPreAgg needs a compiler with 128-bit integers"
#endif

#define ALIGN16(x)			(((x) + 15) & ~((uint32) 15))

/* text keys of unbounded length get this many bytes in the slot */
#define TEXT_KEY_DEFAULT_BYTES	56

/* bytes of each accumulator, from the contract's list */
static uint32
accum_bytes(XpuAggKind kind)
{
	switch (kind)
	{
#define ACCUM_BYTES_CASE(name, bytes) case XPU_AGG_##name: return bytes;
			XPU_AGG_LIST(ACCUM_BYTES_CASE)
#undef ACCUM_BYTES_CASE
		default:
			elog(ERROR, "unknown GpuPreAgg accumulator kind %d", (int) kind);
	}
	return 0;					/* keep compiler quiet */
}

/* the slot width of a key: see "Key slot encoding" in pg_strom_xpu.h */
static uint32
key_slot_width(Expr *key, int xtype)
{
	int32		typmod;
	int			made;
	uint32		bytes;

	switch (xtype)
	{
		case XPU_TYPE_NUMERIC:
			return 32;
		case XPU_TYPE_TEXT:
		case XPU_TYPE_VARCHAR:
		case XPU_TYPE_BPCHAR:
			typmod = exprTypmod((Node *) key);
			made = pgstrom_codegen_text_bound(key);
			if (typmod > VARHDRSZ &&
				(int64) (typmod - VARHDRSZ) * pg_database_encoding_max_length() <=
				XPU_PREAGG_MAX_TEXT_KEY)
				bytes = (typmod - VARHDRSZ) * pg_database_encoding_max_length();
			else if (made >= 0)
				bytes = made;
			else
				bytes = TEXT_KEY_DEFAULT_BYTES;
			/* the slot width is a multiple of 16 within 8 + MAX_TEXT_KEY */
			return Min(ALIGN16(8 + bytes), XPU_PREAGG_MAX_TEXT_KEY);
		default:
			return 16;
	}
}

void
gpupreagg_compute_layout(const GpuPreAggInfo *info, GpuPreAggLayout *layout)
{
	int			nkeys = list_length(info->keys);
	int			naggs = list_length(info->aggs);
	uint32		off = XPU_PREAGG_ENTRY_HEADER;
	ListCell   *lc;
	int			i;

	if (nkeys > XPU_PREAGG_MAX_KEYS || naggs > XPU_PREAGG_MAX_AGGS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("GpuPreAgg supports at most %d grouping keys and %d aggregates",
						XPU_PREAGG_MAX_KEYS, XPU_PREAGG_MAX_AGGS)));
	layout->key_offset = palloc0(sizeof(uint32) * Max(nkeys, 1));
	layout->key_width = palloc0(sizeof(uint32) * Max(nkeys, 1));
	layout->key_xtype = palloc0(sizeof(int) * Max(nkeys, 1));
	layout->agg_offset = palloc0(sizeof(uint32) * Max(naggs, 1));

	i = 0;
	foreach(lc, info->keys)
	{
		Expr	   *key = (Expr *) lfirst(lc);
		int			xtype = pgstrom_codegen_xpu_type(exprType((Node *) key));

		if (xtype == XPU_TYPE_INVALID)
			elog(ERROR, "GpuPreAgg key of type %u has no device type",
				 exprType((Node *) key));
		layout->key_xtype[i] = xtype;
		layout->key_offset[i] = off;
		layout->key_width[i] = key_slot_width(key, xtype);
		off += layout->key_width[i];
		i++;
	}
	i = 0;
	foreach(lc, info->aggs)
	{
		GpuPreAggAgg *agg = (GpuPreAggAgg *) lfirst(lc);

		layout->agg_offset[i] = off;
		off += ALIGN16(accum_bytes(agg->kind));
		i++;
	}
	layout->entry_size = ALIGN16(off);
	if (layout->entry_size > XPU_PREAGG_MAX_ENTRY)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("GpuPreAgg group entry of %u bytes exceeds the device limit of %d bytes",
						layout->entry_size, XPU_PREAGG_MAX_ENTRY)));
}

/* ---- raw field access: 8-byte little-endian fields, as the device writes */
static inline uint64
get_u64(const char *acc, int field)
{
	uint64		v;

	memcpy(&v, acc + 8 * field, sizeof(v));
	return v;
}

static inline void
put_u64(char *acc, int field, uint64 v)
{
	memcpy(acc + 8 * field, &v, sizeof(v));
}

static inline double
get_f64(const char *acc, int field)
{
	double		v;

	memcpy(&v, acc + 8 * field, sizeof(v));
	return v;
}

static inline void
put_f64(char *acc, int field, double v)
{
	memcpy(acc + 8 * field, &v, sizeof(v));
}

/* an int128 stored as (u64 lo, i64 hi) at fields lo, lo + 1 */
static inline int128
get_i128(const char *acc, int lo)
{
	uint64		l = get_u64(acc, lo);
	int64		h = (int64) get_u64(acc, lo + 1);

	return (int128) (((uint128) (uint64) h << 64) | l);
}

static inline void
put_i128(char *acc, int lo, int128 v)
{
	put_u64(acc, lo, (uint64) v);
	put_u64(acc, lo + 1, (uint64) ((uint128) v >> 64));
}

/* PostgreSQL's float ordering: NaN sorts above everything, -0 equals 0 */
static inline int
pg_float_cmp(double a, double b)
{
	if (isnan(a))
		return isnan(b) ? 0 : 1;
	if (isnan(b))
		return -1;
	return (a > b) ? 1 : (a < b) ? -1 : 0;
}

/* the argument as int64 (integer and date/time types) or double (floats) */
static int64
datum_as_int64(Oid typid, Datum value)
{
	switch (typid)
	{
		case BOOLOID:
			return DatumGetBool(value) ? 1 : 0;
		case INT2OID:
			return DatumGetInt16(value);
		case INT4OID:
			return DatumGetInt32(value);
		case DATEOID:
			return DatumGetDateADT(value);
		case INT8OID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
		case NUMERICOID:		/* already scaled to int64 */
			return DatumGetInt64(value);
		default:
			elog(ERROR, "GpuPreAgg: type %u is not an integer-like type", typid);
	}
	return 0;					/* keep compiler quiet */
}

static double
datum_as_double(Oid typid, Datum value)
{
	if (typid == FLOAT4OID)
		return (double) DatumGetFloat4(value);
	if (typid == FLOAT8OID)
		return DatumGetFloat8(value);
	elog(ERROR, "GpuPreAgg: type %u is not a float type", typid);
	return 0.0;					/* keep compiler quiet */
}

static Datum numeric_key_datum(const char *slot);

/* 10^k as a numeric, 0 <= k <= 18 */
static Datum
numeric_pow10(int k)
{
	int64		p = 1;

	Assert(k >= 0 && k <= XPU_PREAGG_MAX_NUMERIC_SCALE);
	while (k-- > 0)
		p *= 10;
	return DirectFunctionCall1(int8_numeric, Int64GetDatum(p));
}

/*
 * A numeric value with at most `scale` fractional digits as the int128
 * value * 10^scale: a sum's argument, which the device evaluates on the
 * CPU (RECHECK) when it does not fit an int64.  False when it does not fit
 * an int128 either, or has more fractional digits.
 */
static bool
numeric_scaled_int128(Datum value, int scale, int128 *out)
{
	Datum		scaled = DirectFunctionCall2(numeric_mul, value, numeric_pow10(scale));
	const char *p = DatumGetCString(DirectFunctionCall1(numeric_out, scaled));
	bool		neg = (*p == '-');
	int128		v = 0;

	if (neg)
		p++;
	for (; *p >= '0' && *p <= '9'; p++)
	{
		if (__builtin_mul_overflow(v, (int128) 10, &v) ||
			__builtin_add_overflow(v, (int128) (*p - '0'), &v))
			return false;
	}
	if (*p == '.')
	{
		for (p++; *p == '0'; p++)
			;
	}
	if (*p != '\0')
		return false;
	*out = neg ? -v : v;
	return true;
}

static void
numeric_sum_out_of_range(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("numeric sum is out of the range GpuPreAgg accumulates"),
			 errdetail("GpuPreAgg sums numeric values as 128-bit integers at the argument's scale."),
			 errhint("Set pg_strom.enable_gpupreagg to off for this query.")));
}

/* the numeric v * 10^-scale, with display scale `scale` */
static Datum
numeric_from_scaled(int128 v, int scale)
{
	char		slot[32];

	/* the key slot form: int32 scale at +4, int128 at +16 */
	memset(slot, 0, sizeof(slot));
	memcpy(slot + 4, &scale, sizeof(int32));
	memcpy(slot + 16, &v, sizeof(int128));
	return numeric_key_datum(slot);
}

void
gpupreagg_accum_init(const GpuPreAggAgg *agg, char *acc)
{
	memset(acc, 0, ALIGN16(accum_bytes(agg->kind)));
	switch (agg->kind)
	{
		case XPU_AGG_MIN_INT:
			put_u64(acc, 1, (uint64) PG_INT64_MAX);
			break;
		case XPU_AGG_MAX_INT:
			put_u64(acc, 1, (uint64) PG_INT64_MIN);
			break;
		case XPU_AGG_MIN_FP:
			put_f64(acc, 1, get_float8_nan());
			break;
		case XPU_AGG_MAX_FP:
			put_f64(acc, 1, -get_float8_infinity());
			break;
		default:
			break;
	}
}

void
gpupreagg_accum_add(const GpuPreAggAgg *agg, char *acc, Datum value, bool isnull)
{
	uint64		n = get_u64(acc, 0);

	if (agg->kind == XPU_AGG_COUNT)
	{
		if (agg->arg == NULL || !isnull)
			put_u64(acc, 0, n + 1);
		return;
	}
	if (isnull)
		return;
	if (agg->argtype == NUMERICOID)
	{
		/* numeric(p,s) holds no infinities; NaN is counted apart */
		if (numeric_is_nan(DatumGetNumeric(value)))
		{
			int			nan_field = (agg->kind == XPU_AGG_SUM_INT ||
									 agg->kind == XPU_AGG_SUM_NUMV) ? 1 : 2;

			put_u64(acc, nan_field, get_u64(acc, nan_field) + 1);
			return;
		}
		if (agg->kind == XPU_AGG_SUM_NUMV)
		{
			gpupreagg_numv_add(agg, acc, value);
			return;
		}
		if (agg->kind == XPU_AGG_SUM_INT)
		{
			int128		x,
						sum;

			if (!numeric_scaled_int128(value, agg->param, &x) ||
				__builtin_add_overflow(get_i128(acc, 2), x, &sum))
				numeric_sum_out_of_range();
			put_i128(acc, 2, sum);
			put_u64(acc, 0, n + 1);
			return;
		}
		/* a minimum or maximum: of a numeric(p <= 18, s), so an int64 */
		{
			int128		x;

			if (!numeric_scaled_int128(value, agg->param, &x) ||
				x < PG_INT64_MIN || x > PG_INT64_MAX)
				elog(ERROR, "GpuPreAgg: a numeric(p <= 18) value does not fit an int64 at scale %d",
					 agg->param);
			value = Int64GetDatum((int64) x);
		}
	}

	switch (agg->kind)
	{
		case XPU_AGG_SUM_INT:
			put_i128(acc, 2, get_i128(acc, 2) + datum_as_int64(agg->argtype, value));
			break;

		case XPU_AGG_SUM_FP:
			{
				double		x = datum_as_double(agg->argtype, value);

				put_f64(acc, 1, get_f64(acc, 1) + x);
				if (isnan(x) || isinf(x))
					put_u64(acc, 2, get_u64(acc, 2) + 1);
			}
			break;

		case XPU_AGG_MIN_INT:
		case XPU_AGG_MAX_INT:
			{
				int64		x = datum_as_int64(agg->argtype, value);
				int64		v = (int64) get_u64(acc, 1);

				if (agg->kind == XPU_AGG_MIN_INT ? x < v : x > v)
					put_u64(acc, 1, (uint64) x);
			}
			break;

		case XPU_AGG_MIN_FP:
		case XPU_AGG_MAX_FP:
			{
				double		x = datum_as_double(agg->argtype, value);
				int			c = pg_float_cmp(x, get_f64(acc, 1));

				if (agg->kind == XPU_AGG_MIN_FP ? c < 0 : c > 0)
					put_f64(acc, 1, x);
			}
			break;

		case XPU_AGG_VAR_FP:
			{
				double		x = datum_as_double(agg->argtype, value);
				double		d;

				/* the shift is any constant; near the data keeps s2 exact */
				if (n == 0 && !isnan(x) && !isinf(x))
					put_f64(acc, 1, x);
				d = x - get_f64(acc, 1);
				put_f64(acc, 2, get_f64(acc, 2) + d);
				put_f64(acc, 3, get_f64(acc, 3) + d * d);
				if (isnan(x) || isinf(x))
					put_u64(acc, 4, get_u64(acc, 4) + 1);
			}
			break;

		case XPU_AGG_VAR_INT:
			{
				int128		x = datum_as_int64(agg->argtype, value);

				put_i128(acc, 2, get_i128(acc, 2) + x);
				put_i128(acc, 4, get_i128(acc, 4) + x * x);
			}
			break;

		case XPU_AGG_VAR_INT8:
			{
				int128		x = datum_as_int64(agg->argtype, value);
				uint128		sq = (uint128) (x * x);
				uint128		lo = (uint128) get_i128(acc, 4);	/* w1:w0 */

				put_i128(acc, 2, get_i128(acc, 2) + x);
				put_i128(acc, 4, (int128) (lo + sq));
				if (lo + sq < lo)
					put_u64(acc, 6, get_u64(acc, 6) + 1);
			}
			break;

		default:
			elog(ERROR, "unknown GpuPreAgg accumulator kind %d", (int) agg->kind);
	}
	put_u64(acc, 0, n + 1);
}

/* ---- partial states ---- */

static void
float_overflow(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("value out of range: overflow")));
}

/*
 * An int128 in numericvar_serialize()'s form (ndigits, weight, sign, dscale
 * as int32, then base-10000 digits as int16, most significant first), which
 * is what int8_avg_serialize and numeric_poly_serialize write for a sum.
 */
static void
send_scaled_numericvar(StringInfo buf, int128 val, int scale)
{
	int16		digits[48 / 4 + 1];
	int			ndigits = 0;
	uint128		u = (val < 0) ? -(uint128) val : (uint128) val;
	int			pad = (4 - scale % 4) % 4;
	int			frac_digits = (scale + pad) / 4;
	int			i;

	/* align the decimal point to a base-10000 digit boundary */
	for (i = 0; i < pad; i++)
	{
		if (u > PG_UINT64_MAX * (uint128) PG_UINT64_MAX / 10)
			elog(ERROR, "GpuPreAgg: numeric sum out of range");
		u *= 10;
	}
	while (u != 0)
	{
		digits[ndigits++] = (int16) (u % 10000);
		u /= 10000;
	}
	pq_sendint32(buf, ndigits);
	pq_sendint32(buf, ndigits > 0 ? ndigits - 1 - frac_digits : 0);	/* weight */
	pq_sendint32(buf, val < 0 ? 0x4000 : 0x0000);	/* NUMERIC_NEG/POS */
	/* a zero sum of numeric(p,s) values is 0.00..., as PostgreSQL's */
	pq_sendint32(buf, scale);	/* dscale */
	for (i = ndigits - 1; i >= 0; i--)
		pq_sendint16(buf, digits[i]);
}

/* a 192-bit unsigned (w2:w1:w0) in numericvar_serialize()'s form */
static void
send_u192_numericvar(StringInfo buf, uint64 w0, uint64 w1, uint64 w2)
{
	int16		digits[60 / 4 + 1];
	int			ndigits = 0;
	uint64		w[3] = {w2, w1, w0};	/* most significant first */
	int			i;

	while (w[0] != 0 || w[1] != 0 || w[2] != 0)
	{
		uint128		rem = 0;

		/* long division of the three words by NBASE */
		for (i = 0; i < 3; i++)
		{
			uint128		cur = (rem << 64) | w[i];

			w[i] = (uint64) (cur / 10000);
			rem = cur % 10000;
		}
		digits[ndigits++] = (int16) rem;
	}
	pq_sendint32(buf, ndigits);
	pq_sendint32(buf, ndigits > 0 ? ndigits - 1 : 0);	/* weight */
	pq_sendint32(buf, 0x0000);	/* NUMERIC_POS */
	pq_sendint32(buf, 0);		/* dscale */
	for (i = ndigits - 1; i >= 0; i--)
		pq_sendint16(buf, digits[i]);
}

static void
send_int128_numericvar(StringInfo buf, int128 val)
{
	send_scaled_numericvar(buf, val, 0);
}

static Datum
int8_array_datum(int64 a, int64 b)
{
	Datum		elems[2] = {Int64GetDatum(a), Int64GetDatum(b)};

	return PointerGetDatum(construct_array(elems, 2, INT8OID, sizeof(int64),
										   FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

/* float8_accum's {N, Sx, Sxx} from the shifted sums */
static Datum
float8_accum_datum(const char *acc)
{
	uint64		n = get_u64(acc, 0);
	double		shift = get_f64(acc, 1);
	double		s1 = get_f64(acc, 2);
	double		s2 = get_f64(acc, 3);
	bool		special = get_u64(acc, 4) > 0;
	double		Sx = 0.0;
	double		Sxx = 0.0;
	Datum		elems[3];

	if (n > 0)
	{
		Sx = s1 + (double) n * shift;
		Sxx = s2 - s1 * s1 / (double) n;
		if (Sxx < 0.0)
			Sxx = 0.0;			/* roundoff: the true value is >= 0 */
		if (special)
			Sxx = get_float8_nan();
		else if (isinf(Sx) || isinf(Sxx))
			float_overflow();
	}
	elems[0] = Float8GetDatum((double) n);
	elems[1] = Float8GetDatum(Sx);
	elems[2] = Float8GetDatum(Sxx);
	return PointerGetDatum(construct_array(elems, 3, FLOAT8OID, sizeof(float8),
										   FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

static Datum
minmax_datum(Oid typid, const char *acc)
{
	switch (typid)
	{
		case INT2OID:
			return Int16GetDatum((int16) get_u64(acc, 1));
		case INT4OID:
			return Int32GetDatum((int32) get_u64(acc, 1));
		case DATEOID:
			return DateADTGetDatum((DateADT) get_u64(acc, 1));
		case INT8OID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return Int64GetDatum((int64) get_u64(acc, 1));
		case FLOAT4OID:
			return Float4GetDatum((float4) get_f64(acc, 1));
		case FLOAT8OID:
			return Float8GetDatum(get_f64(acc, 1));
		default:
			elog(ERROR, "GpuPreAgg: min/max of type %u", typid);
	}
	return (Datum) 0;			/* keep compiler quiet */
}

Datum
gpupreagg_partial_state(const GpuPreAggAgg *agg, const char *acc, bool *isnull)
{
	uint64		n = get_u64(acc, 0);
	StringInfoData buf;

	*isnull = false;
	switch (agg->form)
	{
		case GPA_STATE_COUNT:
			return Int64GetDatum((int64) n);

		case GPA_STATE_INT8_SUM:
			if (n == 0)
				break;
			/* int4_sum adds in int64 without a check: wrap as it does */
			return Int64GetDatum((int64) (uint64) get_i128(acc, 2));

		case GPA_STATE_INT8_AVG_ARRAY:
			return int8_array_datum((int64) n, (int64) (uint64) get_i128(acc, 2));

		case GPA_STATE_POLY_SUM:
			pq_begintypsend(&buf);
			pq_sendint64(&buf, (int64) n);
			send_int128_numericvar(&buf, get_i128(acc, 2));
			return PointerGetDatum(pq_endtypsend(&buf));

		case GPA_STATE_POLY_VAR:
			pq_begintypsend(&buf);
			pq_sendint64(&buf, (int64) n);
			send_int128_numericvar(&buf, get_i128(acc, 2));
			send_int128_numericvar(&buf, get_i128(acc, 4));
			return PointerGetDatum(pq_endtypsend(&buf));

		case GPA_STATE_FLOAT4_SUM:
			if (n == 0)
				break;
			{
				float4		s = (float4) get_f64(acc, 1);

				if (isinf(s) && get_u64(acc, 2) == 0)
					float_overflow();
				return Float4GetDatum(s);
			}

		case GPA_STATE_FLOAT8_SUM:
			if (n == 0)
				break;
			{
				double		s = get_f64(acc, 1);

				if (isinf(s) && get_u64(acc, 2) == 0)
					float_overflow();
				return Float8GetDatum(s);
			}

		case GPA_STATE_FLOAT8_ACCUM:
			return float8_accum_datum(acc);

		case GPA_STATE_MINMAX:
			if (n == 0)
				break;
			return minmax_datum(agg->argtype, acc);

		case GPA_STATE_BOOL:
			if (n == 0)
				break;
			return BoolGetDatum((int64) get_u64(acc, 1) != 0);

		case GPA_STATE_NUMERIC_AVG:
			/* numeric_avg_serialize: NaNs count apart, not in N */
			pq_begintypsend(&buf);
			pq_sendint64(&buf, (int64) n);
			if (agg->kind == XPU_AGG_SUM_NUMV)
			{
				int32		dscale = gpupreagg_numv_send(&buf, agg, acc);

				/*
				 * maxScaleCount below serves only the moving-aggregate
				 * inverse, which a partial aggregate never runs: n bounds it
				 */
				pq_sendint32(&buf, dscale); /* maxScale */
			}
			else
			{
				send_scaled_numericvar(&buf, get_i128(acc, 2), n > 0 ? agg->param : 0);
				pq_sendint32(&buf, n > 0 ? agg->param : 0);	/* maxScale */
			}
			pq_sendint64(&buf, (int64) n);	/* maxScaleCount: all at scale */
			pq_sendint64(&buf, (int64) get_u64(acc, 1));	/* NaNcount */
			pq_sendint64(&buf, 0);	/* pInfcount */
			pq_sendint64(&buf, 0);	/* nInfcount */
			return PointerGetDatum(pq_endtypsend(&buf));

		case GPA_STATE_NUMERIC_VAR:
			/* numeric_serialize of int8_accum's state: inputs of scale 0 */
			pq_begintypsend(&buf);
			pq_sendint64(&buf, (int64) n);
			send_int128_numericvar(&buf, get_i128(acc, 2));
			send_u192_numericvar(&buf, get_u64(acc, 4), get_u64(acc, 5), get_u64(acc, 6));
			pq_sendint32(&buf, 0);	/* maxScale */
			pq_sendint64(&buf, (int64) n);	/* maxScaleCount */
			pq_sendint64(&buf, 0);	/* NaNcount */
			pq_sendint64(&buf, 0);	/* pInfcount */
			pq_sendint64(&buf, 0);	/* nInfcount */
			return PointerGetDatum(pq_endtypsend(&buf));

		case GPA_STATE_NUMERIC_MINMAX:
			{
				bool		has_nan = get_u64(acc, 2) > 0;

				/* NaN sorts above every number, as numeric_cmp has it */
				if (has_nan && (agg->kind == XPU_AGG_MAX_INT || n == 0))
					return DirectFunctionCall3(numeric_in, CStringGetDatum("NaN"),
											   ObjectIdGetDatum(InvalidOid),
											   Int32GetDatum(-1));
				if (n == 0)
					break;
				return numeric_from_scaled((int64) get_u64(acc, 1), agg->param);
			}

		default:
			elog(ERROR, "unknown GpuPreAgg state form %d", (int) agg->form);
	}
	*isnull = true;
	return (Datum) 0;
}

/* ---- keys stored by the device ---- */

/* a NUMERIC key slot (int128 scaled by 10^-scale) through numeric_in */
static Datum
numeric_key_datum(const char *slot)
{
	int32		scale;
	int128		v;
	uint128		u;
	char		digits[64];
	char		text[80];
	int			nd = 0;
	int			pos = 0;
	int			i;

	memcpy(&scale, slot + 4, sizeof(scale));
	memcpy(&v, slot + 16, sizeof(v));
	if (scale < 0 || scale > 38)
		elog(ERROR, "GpuPreAgg: numeric key with scale %d from the device", scale);
	u = (v < 0) ? -(uint128) v : (uint128) v;
	do
	{
		digits[nd++] = '0' + (int) (u % 10);
		u /= 10;
	} while (u != 0 || nd <= scale);
	if (v < 0)
		text[pos++] = '-';
	for (i = nd - 1; i >= 0; i--)
	{
		text[pos++] = digits[i];
		if (i == scale && scale > 0)
			text[pos++] = '.';
	}
	text[pos] = '\0';
	return DirectFunctionCall3(numeric_in, CStringGetDatum(text),
							   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}

/*
 * The key in a device entry's slot of slot_width bytes.  The entry came
 * back from the service, so a text key's length is checked against the
 * slot it must fit, not merely against the largest slot there is.
 */
Datum
gpupreagg_key_datum(Oid typid, int xtype, const char *slot, uint32 slot_width,
					bool *isnull)
{
	int64		i64;

	*isnull = (slot[0] != 0);
	if (*isnull)
		return (Datum) 0;
	memcpy(&i64, slot + 8, sizeof(i64));
	switch (xtype)
	{
		case XPU_TYPE_BOOL:
			return BoolGetDatum(i64 != 0);
		case XPU_TYPE_INT2:
			return Int16GetDatum((int16) i64);
		case XPU_TYPE_INT4:
			return Int32GetDatum((int32) i64);
		case XPU_TYPE_DATE:
			return DateADTGetDatum((DateADT) i64);
		case XPU_TYPE_INT8:
		case XPU_TYPE_TIMESTAMP:
		case XPU_TYPE_TIMESTAMPTZ:
			return Int64GetDatum(i64);
		case XPU_TYPE_FLOAT4:
			{
				float4		f;

				memcpy(&f, slot + 8, sizeof(f));
				return Float4GetDatum(f);
			}
		case XPU_TYPE_FLOAT8:
			{
				float8		f;

				memcpy(&f, slot + 8, sizeof(f));
				return Float8GetDatum(f);
			}
		case XPU_TYPE_NUMERIC:
			return numeric_key_datum(slot);
		case XPU_TYPE_TEXT:
		case XPU_TYPE_VARCHAR:
		case XPU_TYPE_BPCHAR:
			{
				int32		len;

				memcpy(&len, slot + 4, sizeof(len));
				if (len < 0 || (uint32) len > slot_width - 8)
					ereport(ERROR,
							(errcode(ERRCODE_PROTOCOL_VIOLATION),
							 errmsg("GpuPreAgg: unexpected reply from the GPU service: a text key of %d bytes in a slot of %u",
									len, slot_width)));
				return PointerGetDatum(cstring_to_text_with_len(slot + 8, len));
			}
		default:
			elog(ERROR, "GpuPreAgg: key of device type %d (type %u)", xtype, typid);
	}
	return (Datum) 0;			/* keep compiler quiet */
}
