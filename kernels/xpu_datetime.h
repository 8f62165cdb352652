/*
 * xpu_datetime.h
 *
 * DATE / TIMESTAMP helpers as PostgreSQL 15's datetime.c, date.c and
 * timestamp.c compute them (days and microseconds since 2000-01-01).
 */
#ifndef XPU_DATETIME_H
#define XPU_DATETIME_H

#include "xpu_common.h"

#define XPU_POSTGRES_EPOCH_JDATE	2451545
#define XPU_UNIX_EPOCH_JDATE		2440588
#define XPU_DATETIME_MIN_JULIAN		0
#define XPU_DATE_END_JULIAN			2147483494
#define XPU_TIMESTAMP_END_JULIAN	109203528
#define XPU_DATEVAL_NOBEGIN			((int32_t) 0x80000000)
#define XPU_DATEVAL_NOEND			((int32_t) 0x7fffffff)
#define XPU_DT_NOBEGIN				((int64_t) 0x8000000000000000LL)
#define XPU_DT_NOEND				((int64_t) 0x7fffffffffffffffLL)
#define XPU_USECS_PER_DAY			86400000000LL
#define XPU_USECS_PER_HOUR			3600000000LL
#define XPU_USECS_PER_MINUTE		60000000LL
#define XPU_USECS_PER_SEC			1000000LL
/* timestamp.h: MIN_TIMESTAMP, END_TIMESTAMP */
#define XPU_MIN_TIMESTAMP			(-211813488000000000LL)
#define XPU_END_TIMESTAMP			9223371331200000000LL

/* date.h: IS_VALID_DATE */
XPU_FUNC bool
xpu_date_is_valid(int64_t d)
{
	return (XPU_DATETIME_MIN_JULIAN - XPU_POSTGRES_EPOCH_JDATE) <= d &&
		d < (XPU_DATE_END_JULIAN - XPU_POSTGRES_EPOCH_JDATE);
}

XPU_FUNC bool
xpu_date_not_finite(int32_t d)
{
	return d == XPU_DATEVAL_NOBEGIN || d == XPU_DATEVAL_NOEND;
}

/* datetime.c: j2date, verbatim */
XPU_FUNC void
xpu_j2date(int jd, int *year, int *month, int *day)
{
	unsigned int julian;
	unsigned int quad;
	unsigned int extra;
	int			y;

	julian = jd;
	julian += 32044;
	quad = julian / 146097;
	extra = (julian - quad * 146097) * 4 + 3;
	julian += 60 + quad * 3 + extra / 146097;
	quad = julian / 1461;
	julian -= quad * 1461;
	y = julian * 4 / 1461;
	julian = ((y != 0) ? ((julian + 305) % 365) : ((julian + 306) % 366))
		+ 123;
	y += quad * 4;
	*year = y - 4800;
	quad = julian * 2141 / 65536;
	*day = julian - 7834 * quad / 256;
	*month = (quad + 10) % 12 + 1;
}

/* datetime.c: date2j, verbatim */
XPU_FUNC int
xpu_date2j(int y, int m, int d)
{
	int			julian;
	int			century;

	if (m > 2)
	{
		m += 1;
		y += 4800;
	}
	else
	{
		m += 13;
		y += 4799;
	}

	century = y / 100;
	julian = y * 365 - 32167;
	julian += y / 4 - century + century / 4;
	julian += 7834 * m / 256 + d;

	return julian;
}

/* datetime.c: j2day */
XPU_FUNC int
xpu_j2day(int date)
{
	date += 1;
	date %= 7;
	if (date < 0)
		date += 7;
	return date;
}

/*
 * DATE_PLI / DATE_MII: false (RECHECK) for infinite input, int32 overflow
 * or a result outside IS_VALID_DATE.
 */
XPU_FUNC bool
xpu_date_pli(int32_t d, int32_t days, int32_t *r)
{
	int64_t		v;

	if (xpu_date_not_finite(d))
		return false;
	v = (int64_t) d + (int64_t) days;
	if (v < INT32_MIN || v > INT32_MAX || !xpu_date_is_valid(v))
		return false;
	*r = (int32_t) v;
	return true;
}

XPU_FUNC bool
xpu_date_mii(int32_t d, int32_t days, int32_t *r)
{
	int64_t		v;

	if (xpu_date_not_finite(d))
		return false;
	v = (int64_t) d - (int64_t) days;
	if (v < INT32_MIN || v > INT32_MAX || !xpu_date_is_valid(v))
		return false;
	*r = (int32_t) v;
	return true;
}

XPU_FUNC bool
xpu_date_mi(int32_t a, int32_t b, int32_t *r)
{
	if (xpu_date_not_finite(a) || xpu_date_not_finite(b))
		return false;
	*r = (int32_t) (uint32_t) ((int64_t) a - (int64_t) b);
	return true;
}

/* date2timestamp: false where PostgreSQL reports "date out of range" */
XPU_FUNC bool
xpu_date_to_timestamp(int32_t d, int64_t *r)
{
	if (d == XPU_DATEVAL_NOBEGIN)
		*r = XPU_DT_NOBEGIN;
	else if (d == XPU_DATEVAL_NOEND)
		*r = XPU_DT_NOEND;
	else
	{
		/*
		 * PostgreSQL never holds a date below the valid range, but a page
		 * can: its product would overflow int64 (undefined), so CPU.
		 */
		if (d >= (XPU_TIMESTAMP_END_JULIAN - XPU_POSTGRES_EPOCH_JDATE) ||
			!xpu_date_is_valid(d))
			return false;
		*r = (int64_t) d * XPU_USECS_PER_DAY;
	}
	return true;
}

/* the julian day of the Monday that starts ISO week 1 of year y */
XPU_FUNC int
xpu_iso_week1_monday(int y)
{
	int			jan4 = xpu_date2j(y, 1, 4);

	/* week 1 holds January 4; j2day counts from Sunday */
	return jan4 - (xpu_j2day(jan4) + 6) % 7;
}

/*
 * The ISO 8601 year of a date (year 0 is 1 BC, as j2date gives it), and in
 * *week its ISO week: the days before the year's week 1 belong to the last
 * week of the year before, those from the next year's week 1 on to that.
 */
XPU_FUNC int
xpu_iso_year_week(int year, int mon, int mday, int *week)
{
	int			day = xpu_date2j(year, mon, mday);
	int			start = xpu_iso_week1_monday(year);
	int			next = xpu_iso_week1_monday(year + 1);

	if (day < start)
		start = xpu_iso_week1_monday(--year);
	else if (day >= next)
	{
		start = next;
		year++;
	}
	*week = (day - start) / 7 + 1;
	return year;
}

/*
 * The integer result of EXTRACT/DATE_PART for a julian day plus a time of
 * day in microseconds (0 <= usecs < USECS_PER_DAY); has_time false for DATE.
 * False (RECHECK) for fields this device does not model.
 */
XPU_FUNC bool
xpu_datetime_field(int field, int julian, int64_t usecs, bool has_time, int64_t *r)
{
	int			year,
				mon,
				mday;

	xpu_j2date(julian, &year, &mon, &mday);
	switch (field)
	{
		case XPU_FIELD_YEAR:
			/* there is no year 0, just 1 BC and 1 AD */
			*r = (year > 0) ? year : year - 1;
			return true;
		case XPU_FIELD_MONTH:
			*r = mon;
			return true;
		case XPU_FIELD_DAY:
			*r = mday;
			return true;
		case XPU_FIELD_DOW:
			*r = xpu_j2day(xpu_date2j(year, mon, mday));
			return true;
		case XPU_FIELD_ISODOW:
			{
				int			dow = xpu_j2day(xpu_date2j(year, mon, mday));

				*r = (dow == 0) ? 7 : dow;
				return true;
			}
		case XPU_FIELD_DOY:
			*r = xpu_date2j(year, mon, mday) - xpu_date2j(year, 1, 1) + 1;
			return true;
		case XPU_FIELD_QUARTER:
			*r = (mon - 1) / 3 + 1;
			return true;
		case XPU_FIELD_HOUR:
			if (!has_time)
				return false;
			*r = usecs / XPU_USECS_PER_HOUR;
			return true;
		case XPU_FIELD_MINUTE:
			if (!has_time)
				return false;
			*r = (usecs % XPU_USECS_PER_HOUR) / XPU_USECS_PER_MINUTE;
			return true;
		case XPU_FIELD_WEEK:
		case XPU_FIELD_ISOYEAR:
			{
				int			week;
				int			isoyear = xpu_iso_year_week(year, mon, mday, &week);

				/* BC ISO years shift by one, as the calendar's do */
				*r = (field == XPU_FIELD_WEEK) ? week :
					(isoyear <= 0) ? isoyear - 1 : isoyear;
				return true;
			}

			/*
			 * Decades count from year 0 (1 BC): decade -1 is 11 BC to 2 BC.
			 * Centuries and millennia have no number 0: the first of each
			 * begins in 1 AD, the one before it ends in 1 BC.
			 */
		case XPU_FIELD_DECADE:
			*r = (year >= 0) ? year / 10 : -((8 - (year - 1)) / 10);
			return true;
		case XPU_FIELD_CENTURY:
			*r = (year > 0) ? (year + 99) / 100 : -((99 - (year - 1)) / 100);
			return true;
		case XPU_FIELD_MILLENNIUM:
			*r = (year > 0) ? (year + 999) / 1000 : -((999 - (year - 1)) / 1000);
			return true;
		case XPU_FIELD_JULIAN:
			if (has_time)
				return false;
			*r = julian;
			return true;
		case XPU_FIELD_EPOCH:
			/* seconds since 1970-01-01 */
			if (has_time)
				return false;
			*r = ((int64_t) julian - XPU_UNIX_EPOCH_JDATE) * 86400;
			return true;
		default:
			return false;
	}
}

/* EXTRACT/DATE_PART of a DATE; for_timestamp applies date2timestamp's check */
XPU_FUNC bool
xpu_date_field(int field, int32_t d, bool for_timestamp, int64_t *r)
{
	if (xpu_date_not_finite(d) || !xpu_date_is_valid(d))
		return false;
	if (for_timestamp && d >= (XPU_TIMESTAMP_END_JULIAN - XPU_POSTGRES_EPOCH_JDATE))
		return false;
	return xpu_datetime_field(field, d + XPU_POSTGRES_EPOCH_JDATE, 0, false, r);
}

/*
 * A finite timestamp as its julian day and time of day in microseconds, as
 * timestamp2tm splits it; false where the day is outside what j2date takes.
 */
XPU_FUNC bool
xpu_timestamp_split(int64_t ts, int64_t *julian, int64_t *time)
{
	int64_t		date = ts / XPU_USECS_PER_DAY;

	*time = ts - date * XPU_USECS_PER_DAY;
	if (*time < 0)
	{
		*time += XPU_USECS_PER_DAY;
		date -= 1;
	}
	*julian = date + XPU_POSTGRES_EPOCH_JDATE;
	return *julian >= 0 && *julian <= (int64_t) INT32_MAX;
}

/* EXTRACT/DATE_PART of a TIMESTAMP (timestamp2tm) */
XPU_FUNC bool
xpu_timestamp_field(int field, int64_t ts, int64_t *r)
{
	int64_t		julian;
	int64_t		time;

	if (ts == XPU_DT_NOBEGIN || ts == XPU_DT_NOEND ||
		!xpu_timestamp_split(ts, &julian, &time))
		return false;
	return xpu_datetime_field(field, (int) julian, time, true, r);
}

/* the fields of a timestamp that have fractions of a second */
XPU_FUNC bool
xpu_field_is_fractional(int field)
{
	return field == XPU_FIELD_SECOND || field == XPU_FIELD_MILLISEC ||
		field == XPU_FIELD_MICROSEC || field == XPU_FIELD_EPOCH;
}

/*
 * EXTRACT/DATE_PART of a timestamp's fields with fractions: the seconds,
 * milliseconds or microseconds of its minute, or its epoch.  *us is the
 * value in microseconds, EXTRACT's numeric at *scale (seconds and the
 * epoch 6, milliseconds 3, microseconds 0); *f8 is DATE_PART's, with
 * PostgreSQL's own float arithmetic.  False for infinities and the
 * timestamps whose distance to the epoch overflows an int64 (PostgreSQL
 * computes those otherwise).
 */
XPU_FUNC bool
xpu_timestamp_fraction(int field, int64_t ts, int64_t *us, int32_t *scale,
					   double *f8)
{
	const int64_t epoch = -((int64_t) (XPU_POSTGRES_EPOCH_JDATE - XPU_UNIX_EPOCH_JDATE) *
							XPU_USECS_PER_DAY);
	int64_t		julian;
	int64_t		time;
	int64_t		sec;
	int64_t		fsec;

	if (ts == XPU_DT_NOBEGIN || ts == XPU_DT_NOEND)
		return false;
	if (field == XPU_FIELD_EPOCH)
	{
		if (ts >= INT64_MAX + epoch)
			return false;
		*us = ts - epoch;
		*scale = 6;
		*f8 = (double) (ts - epoch) / 1000000.0;
		return true;
	}
	if (!xpu_timestamp_split(ts, &julian, &time))
		return false;
	sec = (time / XPU_USECS_PER_SEC) % 60;
	fsec = time % XPU_USECS_PER_SEC;
	*us = sec * 1000000 + fsec;
	switch (field)
	{
		case XPU_FIELD_SECOND:
			*scale = 6;
			*f8 = (double) sec + (double) fsec / 1000000.0;
			return true;
		case XPU_FIELD_MILLISEC:
			*scale = 3;
			*f8 = (double) sec * 1000.0 + (double) fsec / 1000.0;
			return true;
		case XPU_FIELD_MICROSEC:
			*scale = 0;
			*f8 = (double) *us;
			return true;
	}
	return false;
}

/* timestamp.h: IS_VALID_TIMESTAMP */
XPU_FUNC bool
xpu_timestamp_is_valid(int64_t ts)
{
	return XPU_MIN_TIMESTAMP <= ts && ts < XPU_END_TIMESTAMP;
}

/*
 * timestamp_date: the day holding ts (floor division: 1999-12-31 23:00 is
 * day -1), infinities to infinities; false (RECHECK, the CPU's error) for
 * a timestamp outside the valid range.
 */
XPU_FUNC bool
xpu_timestamp_to_date(int64_t ts, int64_t *r)
{
	int64_t		d;

	if (ts == XPU_DT_NOBEGIN)
		*r = XPU_DATEVAL_NOBEGIN;
	else if (ts == XPU_DT_NOEND)
		*r = XPU_DATEVAL_NOEND;
	else
	{
		if (!xpu_timestamp_is_valid(ts))
			return false;
		d = ts / XPU_USECS_PER_DAY;
		if (ts % XPU_USECS_PER_DAY < 0)
			d--;
		*r = d;
	}
	return true;
}

/*
 * The first year of the decade, century or millennium holding year (year 0
 * is 1 BC), as date_trunc numbers them: 2020, 2001, 2001 for 2024; -10,
 * -99, -999 for 11 BC.  PostgreSQL goes on from a millennium's first year
 * to its century's, the same year.
 */
XPU_FUNC int
xpu_period_first_year(int field, int year)
{
	int			span;

	if (field == XPU_FIELD_DECADE)
		return (year > 0) ? (year / 10) * 10 : -((8 - (year - 1)) / 10) * 10;
	span = (field == XPU_FIELD_CENTURY) ? 100 : 1000;
	return (year > 0) ? ((year + span - 1) / span) * span - (span - 1) :
		-((span - 1 - (year - 1)) / span) * span + 1;
}

/*
 * DATE_TRUNC: timestamp_trunc.  The week is the ISO week, which starts on
 * the Monday on or before the day.
 */
XPU_FUNC bool
xpu_timestamp_trunc(int field, int64_t ts, int64_t *r)
{
	int64_t		julian;
	int64_t		time;
	int			year,
				mon,
				mday;

	if (ts == XPU_DT_NOBEGIN || ts == XPU_DT_NOEND)
	{
		*r = ts;
		return true;
	}
	if (!xpu_timestamp_is_valid(ts) || !xpu_timestamp_split(ts, &julian, &time))
		return false;
	xpu_j2date((int) julian, &year, &mon, &mday);
	switch (field)
	{
		case XPU_FIELD_DECADE:
		case XPU_FIELD_CENTURY:
		case XPU_FIELD_MILLENNIUM:
			year = xpu_period_first_year(field, year);
			/* fall through */
		case XPU_FIELD_YEAR:
			julian = xpu_date2j(year, 1, 1);
			time = 0;
			break;
		case XPU_FIELD_QUARTER:
			julian = xpu_date2j(year, 3 * ((mon - 1) / 3) + 1, 1);
			time = 0;
			break;
		case XPU_FIELD_MONTH:
			julian = xpu_date2j(year, mon, 1);
			time = 0;
			break;
		case XPU_FIELD_WEEK:
			/* j2day: 0 is Sunday; back to Monday */
			julian -= (xpu_j2day((int) julian) + 6) % 7;
			time = 0;
			break;
		case XPU_FIELD_DAY:
			time = 0;
			break;
		case XPU_FIELD_HOUR:
			time -= time % XPU_USECS_PER_HOUR;
			break;
		case XPU_FIELD_MINUTE:
			time -= time % XPU_USECS_PER_MINUTE;
			break;
		case XPU_FIELD_SECOND:
			time -= time % XPU_USECS_PER_SEC;
			break;
		default:
			return false;
	}
	*r = (julian - XPU_POSTGRES_EPOCH_JDATE) * XPU_USECS_PER_DAY + time;
	return xpu_timestamp_is_valid(*r);
}

/*
 * TZ_LOCAL / TZ_UTC: a timestamp moved by a fixed number of seconds (the
 * zone's offset east of UTC, or its negation), as timestamptz_timestamp
 * and timestamp_timestamptz compute it in a zone without transitions.
 */
XPU_FUNC bool
xpu_timestamp_shift(int64_t ts, int64_t secs, int64_t *r)
{
	if (ts == XPU_DT_NOBEGIN || ts == XPU_DT_NOEND)
	{
		*r = ts;
		return true;
	}
	/* a valid timestamp moved by less than a day cannot overflow int64 */
	if (!xpu_timestamp_is_valid(ts) || secs <= -86400 || secs >= 86400)
		return false;
	*r = ts + secs * XPU_USECS_PER_SEC;
	return xpu_timestamp_is_valid(*r);
}

/* seconds between the Unix epoch and PostgreSQL's (2000-01-01) */
#define XPU_UNIX_TO_POSTGRES_SECS	INT64_C(946684800)

/* the Unix second holding timestamp ts (floor division, as timestamp2tm) */
XPU_FUNC int64_t
xpu_timestamp_unix_secs(int64_t ts)
{
	int64_t		secs = ts / XPU_USECS_PER_SEC;

	if (ts % XPU_USECS_PER_SEC < 0)
		secs--;
	return secs + XPU_UNIX_TO_POSTGRES_SECS;
}

/* the zone rules' fields (XpuZoneRules), read from the pool */
#define XPU_ZONE_LO(z)			((int64_t) xpu_load_u64((z)))
#define XPU_ZONE_HI(z)			((int64_t) xpu_load_u64((z) + 8))
#define XPU_ZONE_NTRANS(z)		((int32_t) xpu_load_u32((z) + 16))
#define XPU_ZONE_FIRST(z)		((int32_t) xpu_load_u32((z) + 20))
#define XPU_ZONE_AT(z, i)		((int64_t) xpu_load_u64((z) + 24 + 16 * (size_t) (i)))
#define XPU_ZONE_OFF(z, i)		((int32_t) xpu_load_u32((z) + 32 + 16 * (size_t) (i)))

/* how many transitions of the rules z are at or before Unix second t */
XPU_FUNC int32_t
xpu_zone_count_upto(const char *z, int64_t t)
{
	int32_t		a = 0;
	int32_t		b = XPU_ZONE_NTRANS(z);

	while (a < b)
	{
		int32_t		m = a + (b - a) / 2;

		if (XPU_ZONE_AT(z, m) <= t)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/* the offset in force after the first k transitions */
XPU_FUNC int64_t
xpu_zone_off_after(const char *z, int32_t k)
{
	return k == 0 ? XPU_ZONE_FIRST(z) : XPU_ZONE_OFF(z, k - 1);
}

/*
 * The offset (seconds east of UTC) of the zone at timestamptz ts, as
 * pg_localtime gives it to timestamp2tm; false outside the rules' span.
 */
XPU_FUNC bool
xpu_zone_offset_utc(const char *z, int64_t ts, int64_t *gmtoff)
{
	int64_t		t = xpu_timestamp_unix_secs(ts);

	if (t < XPU_ZONE_LO(z) || t >= XPU_ZONE_HI(z))
		return false;
	*gmtoff = xpu_zone_off_after(z, xpu_zone_count_upto(z, t));
	return true;
}

/*
 * The offset of local timestamp ts, as DetermineTimeZoneOffset finds it:
 * the transition that pg_next_dst_boundary reports from a day before,
 * and its rule for local times that it skips or repeats (the earlier
 * offset when clocks went forward, the later one when they went back).
 * False outside the rules' span, and where that day-before instant is the
 * first transition itself, which PostgreSQL treats apart.
 */
XPU_FUNC bool
xpu_zone_offset_local(const char *z, int64_t ts, int64_t *gmtoff)
{
	int64_t		mytime = xpu_timestamp_unix_secs(ts);
	int64_t		prevtime = mytime - 86400;
	int32_t		n = XPU_ZONE_NTRANS(z);
	int32_t		k;
	int64_t		before;
	int64_t		after;
	int64_t		boundary;

	if (prevtime < XPU_ZONE_LO(z) || mytime > XPU_ZONE_HI(z) - 86400)
		return false;
	if (n > 0 && prevtime == XPU_ZONE_AT(z, 0))
		return false;
	k = xpu_zone_count_upto(z, prevtime);
	before = xpu_zone_off_after(z, k);
	if (k == n)
	{
		/* no transition from a day before up to the span's end */
		*gmtoff = before;
		return true;
	}
	after = XPU_ZONE_OFF(z, k);
	boundary = XPU_ZONE_AT(z, k);
	if (mytime - before < boundary && mytime - after < boundary)
		*gmtoff = before;
	else if (mytime - before > boundary && mytime - after >= boundary)
		*gmtoff = after;
	else
		*gmtoff = (mytime - before > mytime - after) ? before : after;
	return true;
}

/* day_tab of datetime.c: days in month m (1..12) */
XPU_FUNC int
xpu_days_in_month(int y, int m)
{
	bool		leap = (y % 4 == 0) && ((y % 100 != 0) || (y % 400 == 0));

	switch (m)
	{
		case 2:
			return leap ? 29 : 28;
		case 4:
		case 6:
		case 9:
		case 11:
			return 30;
		default:
			return 31;
	}
}

/* tm2timestamp's checks: the day and time as a valid timestamp */
XPU_FUNC bool
xpu_julian_time_to_timestamp(int64_t julian, int64_t time, int64_t *r)
{
	int64_t		days = julian - XPU_POSTGRES_EPOCH_JDATE;

	/* far outside the timestamp range: its product would overflow */
	if (julian < 0 || julian >= XPU_TIMESTAMP_END_JULIAN)
		return false;
	*r = days * XPU_USECS_PER_DAY + time;
	return *r >= XPU_MIN_TIMESTAMP && *r < XPU_END_TIMESTAMP;
}

/*
 * timestamp_pl_interval of a span of months, days and microseconds: the
 * months on the calendar (the day clamped to the month's last), then the
 * days, then the time; an infinite timestamp as it is.  False where
 * PostgreSQL reports "timestamp out of range" (RECHECK: the CPU raises it).
 */
XPU_FUNC bool
xpu_timestamp_pl_interval(int64_t ts, int32_t months, int32_t days,
						  int64_t usecs, int64_t *r)
{
	int64_t		julian;
	int64_t		time;
	int			year,
				mon,
				mday;

	if (ts == XPU_DT_NOBEGIN || ts == XPU_DT_NOEND)
	{
		*r = ts;
		return true;
	}
	if (months != 0)
	{
		int64_t		m;

		if (!xpu_timestamp_split(ts, &julian, &time))
			return false;
		xpu_j2date((int) julian, &year, &mon, &mday);
		m = (int64_t) mon + months;
		if (m > 12)
		{
			year += (int) ((m - 1) / 12);
			m = (m - 1) % 12 + 1;
		}
		else if (m < 1)
		{
			year += (int) (m / 12 - 1);
			m = m % 12 + 12;
		}
		if (year < -4713 || year > 294277)
			return false;
		if (mday > xpu_days_in_month(year, (int) m))
			mday = xpu_days_in_month(year, (int) m);
		if (!xpu_julian_time_to_timestamp(xpu_date2j(year, (int) m, mday), time, &ts))
			return false;
	}
	if (days != 0)
	{
		if (!xpu_timestamp_split(ts, &julian, &time) ||
			!xpu_julian_time_to_timestamp(julian + days, time, &ts))
			return false;
	}
	if ((usecs > 0 && ts > INT64_MAX - usecs) || (usecs < 0 && ts < INT64_MIN - usecs))
		return false;
	ts += usecs;
	if (ts < XPU_MIN_TIMESTAMP || ts >= XPU_END_TIMESTAMP)
		return false;
	*r = ts;
	return true;
}

#endif							/* XPU_DATETIME_H */
