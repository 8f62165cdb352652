/*
 * xpu_format.h
 *
 * Values printed as PostgreSQL's output functions print them, for the
 * casts to text (TO_TEXT): int2out/int4out/int8out, booltext, numeric_out,
 * and date_out/timestamp_out under DateStyle ISO (the code generator
 * offers no other style).  Each writer returns the length it wrote into
 * dst, or -1 when the text would not fit cap bytes (RECHECK).
 */
#ifndef XPU_FORMAT_H
#define XPU_FORMAT_H

#include "xpu_common.h"
#include "xpu_datetime.h"

/* the decimal digits of v, most significant first; returns their count */
XPU_FUNC int32_t
xpu_format_digits(unsigned __int128 v, char *digits)
{
	char		rev[40];
	int32_t		n = 0;
	int32_t		i;

	do
	{
		rev[n++] = (char) ('0' + (int) (v % 10));
		v /= 10;
	} while (v != 0);
	for (i = 0; i < n; i++)
		digits[i] = rev[n - 1 - i];
	return n;
}

/* int8out and its narrower forms */
XPU_FUNC int32_t
xpu_format_int(int64_t v, char *dst, int32_t cap)
{
	char		digits[40];
	unsigned __int128 mag = v < 0 ? (unsigned __int128) (-(__int128) v) : (unsigned __int128) v;
	int32_t		n = xpu_format_digits(mag, digits);
	int32_t		len = n + (v < 0);
	int32_t		i;

	if (len > cap)
		return -1;
	if (v < 0)
		*dst++ = '-';
	for (i = 0; i < n; i++)
		dst[i] = digits[i];
	return len;
}

/* booltext: the words of a cast to text (boolout's "t"/"f" are not) */
XPU_FUNC int32_t
xpu_format_bool(bool v, char *dst, int32_t cap)
{
	const char *w = v ? "true" : "false";
	int32_t		len = v ? 4 : 5;
	int32_t		i;

	if (len > cap)
		return -1;
	for (i = 0; i < len; i++)
		dst[i] = w[i];
	return len;
}

/*
 * numeric_out of num * 10^-scale: a sign, the integer digits (at least
 * one), and when scale > 0 a point and exactly scale digits.
 */
XPU_FUNC int32_t
xpu_format_numeric(xpu_int128 num, int32_t scale, char *dst, int32_t cap)
{
	char		digits[40];
	bool		neg = num < 0;
	unsigned __int128 mag = neg ? (unsigned __int128) (-num) : (unsigned __int128) num;
	int32_t		n = xpu_format_digits(mag, digits);
	int32_t		nint = (n > scale) ? n - scale : 1;
	int32_t		len;
	int32_t		pos = 0;
	int32_t		i;

	if (scale < 0)
		return -1;
	len = neg + nint + (scale > 0 ? 1 + scale : 0);
	if (len > cap)
		return -1;
	if (neg)
		dst[pos++] = '-';
	/* digit k of the value counted from the point: 10^(nint - 1 - k) */
	for (i = 0; i < nint + scale; i++)
	{
		int32_t		from_right = nint + scale - 1 - i;	/* index from the last digit */

		if (i == nint)
			dst[pos++] = '.';
		dst[pos++] = (from_right < n) ? digits[n - 1 - from_right] : '0';
	}
	return pos;
}

/* pg_ultostr_zeropad: v in at least width digits */
XPU_FUNC int32_t
xpu_format_zeropad(int64_t v, int32_t width, char *dst)
{
	char		digits[40];
	int32_t		n = xpu_format_digits((unsigned __int128) v, digits);
	int32_t		pos = 0;
	int32_t		i;

	for (i = n; i < width; i++)
		dst[pos++] = '0';
	for (i = 0; i < n; i++)
		dst[pos++] = digits[i];
	return pos;
}

/*
 * EncodeDateOnly under ISO: the year in at least four digits (year 0 and
 * before as 1 BC and before, with " BC" after the whole value), month and
 * day in two.  Writes at most 16 bytes ("5874897-12-31 BC" is 16).
 */
XPU_FUNC int32_t
xpu_format_ymd(int year, int mon, int mday, char *dst)
{
	int32_t		pos = xpu_format_zeropad(year > 0 ? year : -(year - 1), 4, dst);

	dst[pos++] = '-';
	pos += xpu_format_zeropad(mon, 2, dst + pos);
	dst[pos++] = '-';
	pos += xpu_format_zeropad(mday, 2, dst + pos);
	return pos;
}

/* EncodeSpecialDate / EncodeSpecialTimestamp */
XPU_FUNC int32_t
xpu_format_infinity(bool negative, char *dst, int32_t cap)
{
	const char *w = negative ? "-infinity" : "infinity";
	int32_t		len = negative ? 9 : 8;
	int32_t		i;

	if (len > cap)
		return -1;
	for (i = 0; i < len; i++)
		dst[i] = w[i];
	return len;
}

XPU_FUNC int32_t
xpu_format_bc(int year, char *dst, int32_t pos)
{
	if (year > 0)
		return pos;
	dst[pos++] = ' ';
	dst[pos++] = 'B';
	dst[pos++] = 'C';
	return pos;
}

/* date_out under DateStyle ISO */
XPU_FUNC int32_t
xpu_format_date(int32_t d, char *dst, int32_t cap)
{
	char		buf[24];
	int			year,
				mon,
				mday;
	int32_t		len;
	int32_t		i;

	if (xpu_date_not_finite(d))
		return xpu_format_infinity(d == XPU_DATEVAL_NOBEGIN, dst, cap);
	xpu_j2date(d + XPU_POSTGRES_EPOCH_JDATE, &year, &mon, &mday);
	len = xpu_format_bc(year, buf, xpu_format_ymd(year, mon, mday, buf));
	if (len > cap)
		return -1;
	for (i = 0; i < len; i++)
		dst[i] = buf[i];
	return len;
}

/*
 * timestamp_out under DateStyle ISO: EncodeDateTime's date, a space,
 * hours and minutes, and AppendTimestampSeconds' seconds, whose fraction
 * keeps no trailing zero.
 */
XPU_FUNC int32_t
xpu_format_timestamp(int64_t ts, char *dst, int32_t cap)
{
	char		buf[48];
	int64_t		julian;
	int64_t		time;
	int			year,
				mon,
				mday;
	int32_t		fsec;
	int32_t		pos;
	int32_t		i;

	if (ts == XPU_DT_NOBEGIN || ts == XPU_DT_NOEND)
		return xpu_format_infinity(ts == XPU_DT_NOBEGIN, dst, cap);
	if (!xpu_timestamp_split(ts, &julian, &time))
		return -1;
	xpu_j2date((int) julian, &year, &mon, &mday);
	pos = xpu_format_ymd(year, mon, mday, buf);
	buf[pos++] = ' ';
	pos += xpu_format_zeropad(time / XPU_USECS_PER_HOUR, 2, buf + pos);
	buf[pos++] = ':';
	pos += xpu_format_zeropad(time / XPU_USECS_PER_MINUTE % 60, 2, buf + pos);
	buf[pos++] = ':';
	pos += xpu_format_zeropad(time / XPU_USECS_PER_SEC % 60, 2, buf + pos);
	fsec = (int32_t) (time % XPU_USECS_PER_SEC);
	if (fsec != 0)
	{
		int32_t		ndigits = 6;

		while (fsec % 10 == 0)
		{
			fsec /= 10;
			ndigits--;
		}
		buf[pos++] = '.';
		pos += xpu_format_zeropad(fsec, ndigits, buf + pos);
	}
	pos = xpu_format_bc(year, buf, pos);
	if (pos > cap)
		return -1;
	for (i = 0; i < pos; i++)
		dst[i] = buf[i];
	return pos;
}

#endif							/* XPU_FORMAT_H */
