/*
 * xpu_format.h
 *
 * Values printed as PostgreSQL's output functions print them, for the
 * casts to text (TO_TEXT): int2out/int4out/int8out, booltext, numeric_out,
 * and date_out/timestamp_out under DateStyle ISO (the code generator
 * offers no other style), and to_char(timestamp, format).  Each writer returns the length it wrote into
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

/* len bytes of w into dst; len, or -1 when they do not fit cap */
XPU_FUNC int32_t
xpu_format_put(const char *w, int32_t len, char *dst, int32_t cap)
{
	int32_t		i;

	if (len > cap)
		return -1;
	for (i = 0; i < len; i++)
		dst[i] = w[i];
	return len;
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
	return v ? xpu_format_put("true", 4, dst, cap) : xpu_format_put("false", 5, dst, cap);
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
	return negative ? xpu_format_put("-infinity", 9, dst, cap) :
		xpu_format_put("infinity", 8, dst, cap);
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

	if (xpu_date_not_finite(d))
		return xpu_format_infinity(d == XPU_DATEVAL_NOBEGIN, dst, cap);
	xpu_j2date(d + XPU_POSTGRES_EPOCH_JDATE, &year, &mon, &mday);
	len = xpu_format_bc(year, buf, xpu_format_ymd(year, mon, mday, buf));
	return xpu_format_put(buf, len, dst, cap);
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
	return xpu_format_put(buf, pos, dst, cap);
}

/* formatting.c's months[] / months_full[] and days[] (English, no TM) */
XPU_FUNC const char *
xpu_month_name(int mon)
{
	switch (mon)
	{
		case 1: return "January";
		case 2: return "February";
		case 3: return "March";
		case 4: return "April";
		case 5: return "May";
		case 6: return "June";
		case 7: return "July";
		case 8: return "August";
		case 9: return "September";
		case 10: return "October";
		case 11: return "November";
		default: return "December";
	}
}

XPU_FUNC const char *
xpu_day_name(int wday)
{
	switch (wday)
	{
		case 0: return "Sunday";
		case 1: return "Monday";
		case 2: return "Tuesday";
		case 3: return "Wednesday";
		case 4: return "Thursday";
		case 5: return "Friday";
		default: return "Saturday";
	}
}

/*
 * A month or day name into dst: its first nchars characters (0: all) in
 * the key's case (case_mode 0 upper, 1 as written, 2 lower), padded with
 * spaces to pad characters; returns its length.
 */
XPU_FUNC int32_t
xpu_format_name(const char *name, int nchars, int case_mode, int pad, char *dst)
{
	int32_t		n = 0;

	while (name[n] != '\0' && (nchars == 0 || n < nchars))
	{
		char		c = name[n];

		if (case_mode == 0 && c >= 'a' && c <= 'z')
			c = (char) (c - 'a' + 'A');
		else if (case_mode == 2 && c >= 'A' && c <= 'Z')
			c = (char) (c - 'A' + 'a');
		dst[n++] = c;
	}
	while (n < pad)
		dst[n++] = ' ';
	return n;
}

/* a string constant into dst */
XPU_FUNC int32_t
xpu_format_word(const char *w, char *dst)
{
	int32_t		n = 0;

	for (; w[n] != '\0'; n++)
		dst[n] = w[n];
	return n;
}

/* ADJUST_YEAR of formatting.c: year 0 and before as 1 BC and before */
XPU_FUNC int
xpu_adjust_year(int year)
{
	return year <= 0 ? -(year - 1) : year;
}

/*
 * to_char(timestamp, format) of a finite timestamp, the format as the
 * code generator encodes it (XpuCharKey pairs), as DCH_to_char prints
 * each field; -1 when a code is unknown or the text would not fit cap.
 */
XPU_FUNC int32_t
xpu_format_to_char(int64_t ts, const char *fmt, int32_t fmtlen, char *dst,
				   int32_t cap)
{
	int64_t		julian;
	int64_t		time;
	int			year,
				mon,
				mday,
				wday,
				yday,
				isoweek,
				isoyear,
				hour;
	int32_t		pos = 0;
	int32_t		i;

	if (!xpu_timestamp_split(ts, &julian, &time) || (fmtlen & 1) != 0)
		return -1;
	xpu_j2date((int) julian, &year, &mon, &mday);
	wday = xpu_j2day((int) julian);
	yday = (int) julian - xpu_date2j(year, 1, 1) + 1;
	isoyear = xpu_iso_year_week(year, mon, mday, &isoweek);
	hour = (int) (time / XPU_USECS_PER_HOUR);
	for (i = 0; i < fmtlen; i += 2)
	{
		int			key = (uint8_t) fmt[i];
		int			arg = (uint8_t) fmt[i + 1];
		bool		fm = (arg & XPU_CHAR_FM) != 0;
		char		buf[24];
		int32_t		n = 0;

#define ZEROPAD(v, width)	xpu_format_zeropad((v), fm ? 0 : (width), buf)
		switch (key)
		{
			case XPU_CHAR_LITERAL:
				buf[n++] = (char) arg;
				break;
			case XPU_CHAR_YYYY:
				n = ZEROPAD(xpu_adjust_year(year), 4);
				break;
			case XPU_CHAR_YYY:
				n = ZEROPAD(xpu_adjust_year(year) % 1000, 3);
				break;
			case XPU_CHAR_YY:
				n = ZEROPAD(xpu_adjust_year(year) % 100, 2);
				break;
			case XPU_CHAR_Y:
				n = xpu_format_zeropad(xpu_adjust_year(year) % 10, 1, buf);
				break;
			case XPU_CHAR_IYYY:
				n = ZEROPAD(xpu_adjust_year(isoyear), 4);
				break;
			case XPU_CHAR_IYY:
				n = ZEROPAD(xpu_adjust_year(isoyear) % 1000, 3);
				break;
			case XPU_CHAR_IY:
				n = ZEROPAD(xpu_adjust_year(isoyear) % 100, 2);
				break;
			case XPU_CHAR_I:
				n = xpu_format_zeropad(xpu_adjust_year(isoyear) % 10, 1, buf);
				break;
			case XPU_CHAR_MM:
				n = ZEROPAD(mon, 2);
				break;
			case XPU_CHAR_MONTH_UPPER:
			case XPU_CHAR_MONTH_CAP:
			case XPU_CHAR_MONTH_LOWER:
				n = xpu_format_name(xpu_month_name(mon), 0, key - XPU_CHAR_MONTH_UPPER,
									fm ? 0 : 9, buf);
				break;
			case XPU_CHAR_MON_UPPER:
			case XPU_CHAR_MON_CAP:
			case XPU_CHAR_MON_LOWER:
				n = xpu_format_name(xpu_month_name(mon), 3, key - XPU_CHAR_MON_UPPER, 0, buf);
				break;
			case XPU_CHAR_DD:
				n = ZEROPAD(mday, 2);
				break;
			case XPU_CHAR_DDD:
				n = ZEROPAD(yday, 3);
				break;
			case XPU_CHAR_D:
				n = xpu_format_zeropad(wday + 1, 1, buf);
				break;
			case XPU_CHAR_ID:
				n = xpu_format_zeropad(wday == 0 ? 7 : wday, 1, buf);
				break;
			case XPU_CHAR_DAY_UPPER:
			case XPU_CHAR_DAY_CAP:
			case XPU_CHAR_DAY_LOWER:
				n = xpu_format_name(xpu_day_name(wday), 0, key - XPU_CHAR_DAY_UPPER,
									fm ? 0 : 9, buf);
				break;
			case XPU_CHAR_DY_UPPER:
			case XPU_CHAR_DY_CAP:
			case XPU_CHAR_DY_LOWER:
				n = xpu_format_name(xpu_day_name(wday), 3, key - XPU_CHAR_DY_UPPER, 0, buf);
				break;
			case XPU_CHAR_HH12:
				n = ZEROPAD(hour % 12 == 0 ? 12 : hour % 12, 2);
				break;
			case XPU_CHAR_HH24:
				n = ZEROPAD(hour, 2);
				break;
			case XPU_CHAR_MI:
				n = ZEROPAD(time / XPU_USECS_PER_MINUTE % 60, 2);
				break;
			case XPU_CHAR_SS:
				n = ZEROPAD(time / XPU_USECS_PER_SEC % 60, 2);
				break;
			case XPU_CHAR_MS:	/* "%03d" whatever FM says */
				n = xpu_format_zeropad(time % XPU_USECS_PER_SEC / 1000, 3, buf);
				break;
			case XPU_CHAR_US:
				n = xpu_format_zeropad(time % XPU_USECS_PER_SEC, 6, buf);
				break;
			case XPU_CHAR_SSSS:
				n = xpu_format_zeropad(time / XPU_USECS_PER_SEC, 1, buf);
				break;
			case XPU_CHAR_AM_UPPER:
				n = xpu_format_word(hour >= 12 ? "PM" : "AM", buf);
				break;
			case XPU_CHAR_AM_LOWER:
				n = xpu_format_word(hour >= 12 ? "pm" : "am", buf);
				break;
			case XPU_CHAR_AM_DOTS_UPPER:
				n = xpu_format_word(hour >= 12 ? "P.M." : "A.M.", buf);
				break;
			case XPU_CHAR_AM_DOTS_LOWER:
				n = xpu_format_word(hour >= 12 ? "p.m." : "a.m.", buf);
				break;
			case XPU_CHAR_AD_UPPER:
				n = xpu_format_word(year <= 0 ? "BC" : "AD", buf);
				break;
			case XPU_CHAR_AD_LOWER:
				n = xpu_format_word(year <= 0 ? "bc" : "ad", buf);
				break;
			case XPU_CHAR_AD_DOTS_UPPER:
				n = xpu_format_word(year <= 0 ? "B.C." : "A.D.", buf);
				break;
			case XPU_CHAR_AD_DOTS_LOWER:
				n = xpu_format_word(year <= 0 ? "b.c." : "a.d.", buf);
				break;
			case XPU_CHAR_Q:
				n = xpu_format_zeropad((mon - 1) / 3 + 1, 1, buf);
				break;
			case XPU_CHAR_WW:
				n = ZEROPAD((yday - 1) / 7 + 1, 2);
				break;
			case XPU_CHAR_IW:
				n = ZEROPAD(isoweek, 2);
				break;
			case XPU_CHAR_W:
				n = xpu_format_zeropad((mday - 1) / 7 + 1, 1, buf);
				break;
			case XPU_CHAR_J:
				n = xpu_format_zeropad(julian, 1, buf);
				break;
			default:
				return -1;
		}
#undef ZEROPAD
		if (xpu_format_put(buf, n, dst + pos, cap - pos) < 0)
			return -1;
		pos += n;
	}
	return pos;
}

#endif							/* XPU_FORMAT_H */
