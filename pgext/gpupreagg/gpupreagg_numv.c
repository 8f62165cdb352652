/*
 * gpupreagg_numv.c
 *
 * The CPU side of SUM_NUMV, the numeric sum whose values' display scales
 * vary: adding a RECHECK row's value to the 192-bit sum at the accumulator's
 * scale S, and the sum as numericvar_serialize() writes it, at the largest
 * display scale added (which is the display scale PostgreSQL gives a sum).
 *
 * Layout (pg_strom_xpu.h): u64 n, u64 nnan, i64 maxscale, then the sum's
 * three 64-bit words, least significant first, two's complement.
 */
#include "postgres.h"

#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/numeric.h"

#include "gpupreagg/gpupreagg.h"

#define NUMV_WORDS		3
#define NUMV_MAXSCALE	2		/* field index of maxscale */
#define NUMV_SUM		3		/* field index of the sum's lowest word */

/* unsigned multi-word numbers, least significant word first */
static bool
words_mul_add(uint64 *w, int nwords, uint32 mul, uint32 add)
{
	uint128		carry = add;
	int			i;

	for (i = 0; i < nwords; i++)
	{
		uint128		cur = (uint128) w[i] * mul + carry;

		w[i] = (uint64) cur;
		carry = cur >> 64;
	}
	return carry == 0;
}

static uint32
words_divmod(uint64 *w, int nwords, uint32 div)
{
	uint128		rem = 0;
	int			i;

	for (i = nwords - 1; i >= 0; i--)
	{
		uint128		cur = (rem << 64) | w[i];

		w[i] = (uint64) (cur / div);
		rem = cur % div;
	}
	return (uint32) rem;
}

static bool
words_zero(const uint64 *w, int nwords)
{
	int			i;

	for (i = 0; i < nwords; i++)
		if (w[i] != 0)
			return false;
	return true;
}

/* two's complement negation */
static void
words_negate(uint64 *w, int nwords)
{
	int			i;
	bool		carry = true;

	for (i = 0; i < nwords; i++)
	{
		w[i] = ~w[i] + (carry ? 1 : 0);
		carry = carry && w[i] == 0;
	}
}

static void
numv_out_of_range(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("numeric sum is out of the range GpuPreAgg accumulates"),
			 errdetail("GpuPreAgg sums these numeric values as 192-bit integers at a fixed scale."),
			 errhint("Set pg_strom.enable_gpupreagg to off for this query.")));
}

/*
 * gpupreagg_numv_add - a finite, non-NaN numeric value into the accumulator.
 * Its display scale is at most the accumulator's scale: the planner derived
 * that bound from the argument's form, and numeric.c gives the value the
 * CPU computed the scale the device would have.
 */
void
gpupreagg_numv_add(const GpuPreAggAgg *agg, char *acc, Datum value)
{
	int32		dscale;
	int64		maxscale;
	char		pow10[16];
	const char *p;
	bool		neg;
	uint64		w[NUMV_WORDS] = {0, 0, 0};
	uint64		sum[NUMV_WORDS];
	uint64		n;
	bool		carry = false;
	bool		sum_neg;
	int			i;

	if (numeric_is_inf(DatumGetNumeric(value)))
		numv_out_of_range();
	dscale = DatumGetInt32(DirectFunctionCall1(numeric_scale, value));
	if (dscale > agg->param)
		elog(ERROR, "GpuPreAgg: a numeric value of display scale %d exceeds the bound %d of its aggregate's argument",
			 dscale, agg->param);

	/* value * 10^S, an integer printed with dscale zeros after the point */
	snprintf(pow10, sizeof(pow10), "1e%d", agg->param);
	value = DirectFunctionCall2(numeric_mul, value,
								DirectFunctionCall3(numeric_in, CStringGetDatum(pow10),
													ObjectIdGetDatum(InvalidOid),
													Int32GetDatum(-1)));
	p = DatumGetCString(DirectFunctionCall1(numeric_out, value));
	neg = (*p == '-');
	if (neg)
		p++;
	for (; *p >= '0' && *p <= '9'; p++)
	{
		if (!words_mul_add(w, NUMV_WORDS, 10, (uint32) (*p - '0')))
			numv_out_of_range();
	}
	if (*p == '.')
	{
		for (p++; *p == '0'; p++)
			;
	}
	if (*p != '\0' || (w[NUMV_WORDS - 1] >> 63) != 0)
		numv_out_of_range();
	if (neg)
		words_negate(w, NUMV_WORDS);

	memcpy(sum, acc + 8 * NUMV_SUM, sizeof(sum));
	sum_neg = (sum[NUMV_WORDS - 1] >> 63) != 0;
	for (i = 0; i < NUMV_WORDS; i++)
	{
		uint64		s = sum[i] + w[i];
		bool		c = s < sum[i];

		s += carry ? 1 : 0;
		carry = c || (carry && s == 0);
		sum[i] = s;
	}
	/* two's complement overflow: operands of one sign, a result of the other */
	if (neg == sum_neg && ((sum[NUMV_WORDS - 1] >> 63) != 0) != neg)
		numv_out_of_range();
	memcpy(acc + 8 * NUMV_SUM, sum, sizeof(sum));

	memcpy(&maxscale, acc + 8 * NUMV_MAXSCALE, sizeof(maxscale));
	if (dscale > maxscale)
	{
		maxscale = dscale;
		memcpy(acc + 8 * NUMV_MAXSCALE, &maxscale, sizeof(maxscale));
	}
	memcpy(&n, acc, sizeof(n));
	n++;
	memcpy(acc, &n, sizeof(n));
}

/*
 * gpupreagg_numv_send - the sum in numericvar_serialize()'s form (ndigits,
 * weight, sign, dscale as int32, then base-10000 digits as int16, most
 * significant first) at the largest display scale added.  Every value
 * added is a multiple of 10^-maxscale, so the sum at scale S divides
 * exactly by 10^(S - maxscale).  Returns that display scale.
 */
int32
gpupreagg_numv_send(StringInfo buf, const GpuPreAggAgg *agg, const char *acc)
{
	uint64		n;
	int64		maxscale;
	uint64		w[NUMV_WORDS + 1];
	int16		digits[24];
	int			ndigits = 0;
	bool		neg;
	int			pad;
	int			i;

	memcpy(&n, acc, sizeof(n));
	memcpy(&maxscale, acc + 8 * NUMV_MAXSCALE, sizeof(maxscale));
	memcpy(w, acc + 8 * NUMV_SUM, 8 * NUMV_WORDS);
	w[NUMV_WORDS] = 0;
	if (n == 0)
		maxscale = 0;
	if (maxscale < 0 || maxscale > agg->param)
		ereport(ERROR,
				(errcode(ERRCODE_PROTOCOL_VIOLATION),
				 errmsg("GpuPreAgg: unexpected reply from the GPU service: a numeric sum of display scale " INT64_FORMAT " at scale %d",
						maxscale, agg->param)));
	neg = (w[NUMV_WORDS - 1] >> 63) != 0;
	if (neg)
		words_negate(w, NUMV_WORDS);
	for (i = (int) maxscale; i < agg->param; i++)
	{
		if (words_divmod(w, NUMV_WORDS + 1, 10) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_PROTOCOL_VIOLATION),
					 errmsg("GpuPreAgg: unexpected reply from the GPU service: a numeric sum with digits past its display scale " INT64_FORMAT,
							maxscale)));
	}
	/* the decimal point on a base-10000 digit boundary */
	pad = (4 - (int) (maxscale % 4)) % 4;
	for (i = 0; i < pad; i++)
		(void) words_mul_add(w, NUMV_WORDS + 1, 10, 0);
	while (!words_zero(w, NUMV_WORDS + 1))
		digits[ndigits++] = (int16) words_divmod(w, NUMV_WORDS + 1, 10000);

	pq_sendint32(buf, ndigits);
	pq_sendint32(buf, ndigits > 0 ? ndigits - 1 - (int) ((maxscale + pad) / 4) : 0);
	pq_sendint32(buf, (neg && ndigits > 0) ? 0x4000 : 0x0000);	/* NUMERIC_NEG/POS */
	pq_sendint32(buf, (int32) maxscale);	/* dscale */
	for (i = ndigits - 1; i >= 0; i--)
		pq_sendint16(buf, digits[i]);
	return (int32) maxscale;
}
