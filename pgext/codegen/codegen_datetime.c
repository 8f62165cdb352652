/*
 * codegen_datetime.c
 *
 * xPU code generator: extract/date_part, date_trunc, to_char, interval
 * arithmetic and the casts between timestamptz and date or timestamp.
 *
 * A timestamptz is shown, truncated, cast and moved by months and days in
 * the session's time zone, which the device takes as codegen_zone.c models
 * it: a fixed offset, or the zone's offsets and transitions from 1900 to
 * 2200.  The device program is built again when each execution starts, so
 * a zone set after planning is the one used.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "parser/scansup.h"
#include "pgtime.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/timestamp.h"

#include "codegen/codegen_datetime.h"
#include "codegen/codegen_expr.h"
#include "codegen/codegen_to_char.h"
#include "codegen/codegen_types.h"
#include "codegen/codegen_values.h"
#include "codegen/codegen_zone.h"

/*
 * The field name of extract, date_part or date_trunc (a text constant) as
 * DecodeUnits gives it: the DTK_* value, or -1 refused.
 */
static int
field_units(CgContext *ctx, const CgFuncInfo *f, Expr *field, char **lowunits)
{
	Const	   *c;
	text	   *units;
	int			type;
	int			val;

	while (IsA(field, RelabelType))
		field = ((RelabelType *) field)->arg;
	if (!IsA(field, Const) || ((Const *) field)->consttype != TEXTOID)
		return cg_refuse(ctx, "%s field is not a text constant", cg_func_name(f));
	c = (Const *) field;
	if (c->constisnull)
		return cg_refuse(ctx, "%s field is NULL", cg_func_name(f));

	/* as timestamp_part_common, extract_date and timestamp_trunc decode it */
	units = DatumGetTextPP(c->constvalue);
	*lowunits = downcase_truncate_identifier(VARDATA_ANY(units),
											 VARSIZE_ANY_EXHDR(units), false);
	type = DecodeUnits(0, *lowunits, &val);
	if (type == UNKNOWN_FIELD)
		type = DecodeSpecial(0, *lowunits, &val);
	/* "epoch" is a reserved word, not a unit, for extract and date_trunc */
	if (type != UNITS && !(type == RESERV && val == DTK_EPOCH))
		return cg_refuse(ctx, "field \"%s\" is not supported on the device", *lowunits);
	return val;
}

/* the device's field for a DTK_* unit, 0 where it has none */
static int32
device_field(int dtk)
{
	switch (dtk)
	{
		case DTK_YEAR:
			return XPU_FIELD_YEAR;
		case DTK_QUARTER:
			return XPU_FIELD_QUARTER;
		case DTK_MONTH:
			return XPU_FIELD_MONTH;
		case DTK_WEEK:
			return XPU_FIELD_WEEK;
		case DTK_DAY:
			return XPU_FIELD_DAY;
		case DTK_DOW:
			return XPU_FIELD_DOW;
		case DTK_ISODOW:
			return XPU_FIELD_ISODOW;
		case DTK_DOY:
			return XPU_FIELD_DOY;
		case DTK_HOUR:
			return XPU_FIELD_HOUR;
		case DTK_MINUTE:
			return XPU_FIELD_MINUTE;
		case DTK_SECOND:
			return XPU_FIELD_SECOND;
		case DTK_DECADE:
			return XPU_FIELD_DECADE;
		case DTK_CENTURY:
			return XPU_FIELD_CENTURY;
		case DTK_MILLENNIUM:
			return XPU_FIELD_MILLENNIUM;
		case DTK_ISOYEAR:
			return XPU_FIELD_ISOYEAR;
		case DTK_JULIAN:
			return XPU_FIELD_JULIAN;
		case DTK_EPOCH:
			return XPU_FIELD_EPOCH;
		case DTK_MILLISEC:
			return XPU_FIELD_MILLISEC;
		case DTK_MICROSEC:
			return XPU_FIELD_MICROSEC;
	}
	return 0;
}

/* extract(field from x) and date_part(field, x) */
int
cg_emit_extract(CgContext *ctx, const CgFuncInfo *f, List *args)
{
	char	   *lowunits;
	int			val = field_units(ctx, f, linitial(args), &lowunits);
	int32		xfield;
	int			idx;

	if (val < 0)
		return -1;

	/*
	 * extract's fields: all that PostgreSQL has for dates and timestamps
	 * but a timestamp's julian day, a fraction of a day
	 */
	xfield = device_field(val);
	if (xfield == 0)
		return cg_refuse(ctx, "field \"%s\" is not supported on the device", lowunits);
	if (xfield == XPU_FIELD_JULIAN &&
		(f->arg2 != XPU_TYPE_DATE || (f->flags & FF_DATE_AS_TS)))
		return cg_refuse(ctx, "field \"%s\" of a timestamp is not supported on the device", lowunits);

	idx = cg_check_arg_type(ctx, f, cg_emit_expr(ctx, lsecond(args)), f->arg2);
	if (idx < 0)
		return -1;
	if (f->arg2 == XPU_TYPE_TIMESTAMPTZ)
	{
		/*
		 * the fields of the local time, as timestamp2tm gives them; the
		 * epoch counts from 1970-01-01 00:00 UTC, the value itself
		 */
		CgZone		zone = CG_ZONE_UTC;

		if (xfield != XPU_FIELD_EPOCH && !cg_session_zone(ctx, &zone))
			return -1;
		idx = cg_zone_node(ctx, XPU_OP_TZ_LOCAL, XPU_TYPE_TIMESTAMP, &zone, idx);
		if (idx < 0)
			return -1;
	}
	else if (f->flags & FF_DATE_AS_TS)
		idx = cg_coerce(ctx, idx, XPU_TYPE_TIMESTAMP);	/* SQL: $2::timestamp */
	else if (f->arg2 == XPU_TYPE_DATE &&
			 (xfield == XPU_FIELD_HOUR || xfield == XPU_FIELD_MINUTE ||
			  xfield == XPU_FIELD_SECOND || xfield == XPU_FIELD_MILLISEC ||
			  xfield == XPU_FIELD_MICROSEC))
		return cg_refuse(ctx, "field \"%s\" of a date", lowunits);	/* an error in PG */
	return cg_add_node(ctx, f->opcode, f->restype, 0, xfield, 1, &idx);
}

/*
 * date_trunc to the hour, minute or second of a timestamptz node tz in a
 * zone with rules.  timestamptz_trunc keeps the instant's own offset there
 * (it does not call DetermineTimeZoneOffset below a day), so where every
 * offset of the rules is a whole number of the unit, the result is the
 * truncation in UTC; the rules' offset of tz is still looked up, so that
 * an instant outside their span is evaluated on the CPU:
 * CASE WHEN TZ_LOCAL(tz) IS NOT NULL THEN <tz truncated in UTC> END.
 */
static int
trunc_in_utc(CgContext *ctx, const CgZone *zone, int32 xfield,
			 const char *lowunits, int tz)
{
	CgZone		utc = CG_ZONE_UTC;
	int32		unit = (xfield == XPU_FIELD_HOUR) ? 3600 :
		(xfield == XPU_FIELD_MINUTE) ? 60 : 1;
	int			argv[3];
	int			idx;

	if (zone->unit % unit != 0)
		return cg_refuse(ctx, "date_trunc to \"%s\" in a zone whose offsets are not whole %ss",
						 lowunits, lowunits);
	idx = cg_zone_node(ctx, XPU_OP_TZ_LOCAL, XPU_TYPE_TIMESTAMP, zone, tz);
	if (idx < 0)
		return -1;
	argv[0] = cg_add_node(ctx, XPU_OP_IS_NOT_NULL, XPU_TYPE_BOOL, 0, 0, 1, &idx);
	idx = cg_zone_node(ctx, XPU_OP_TZ_LOCAL, XPU_TYPE_TIMESTAMP, &utc, tz);
	if (idx >= 0)
		idx = cg_add_node(ctx, XPU_OP_DATE_TRUNC, XPU_TYPE_TIMESTAMP, 0, xfield, 1, &idx);
	argv[1] = cg_zone_node(ctx, XPU_OP_TZ_UTC, XPU_TYPE_TIMESTAMPTZ, &utc, idx);
	argv[2] = cg_emit_const(ctx, XPU_TYPE_TIMESTAMPTZ, TIMESTAMPTZOID, (Datum) 0, true);
	if (argv[0] < 0 || argv[1] < 0 || argv[2] < 0)
		return -1;
	return cg_add_node(ctx, XPU_OP_CASE, XPU_TYPE_TIMESTAMPTZ, 0, 0, 3, argv);
}

/* date_trunc(field, timestamp) and date_trunc(field, timestamptz) */
int
cg_emit_date_trunc(CgContext *ctx, const CgFuncInfo *f, List *args)
{
	char	   *lowunits;
	int			val = field_units(ctx, f, linitial(args), &lowunits);
	int32		xfield;
	CgZone		zone = CG_ZONE_UTC;
	bool		zoned = (f->arg2 == XPU_TYPE_TIMESTAMPTZ);
	int			idx;

	if (val < 0)
		return -1;
	/*
	 * date_trunc's fields: none of the days of the week or year, nor the
	 * ISO year, the julian day, the epoch or a fraction of a second
	 */
	xfield = device_field(val);
	if (xfield == 0 || xfield == XPU_FIELD_DOW || xfield == XPU_FIELD_ISODOW ||
		xfield == XPU_FIELD_DOY || xfield > XPU_FIELD_MILLENNIUM)
		return cg_refuse(ctx, "date_trunc to \"%s\" is not supported on the device", lowunits);
	if (zoned && !cg_session_zone(ctx, &zone))
		return -1;
	idx = cg_check_arg_type(ctx, f, cg_emit_expr(ctx, lsecond(args)), f->arg2);
	if (zoned && (zone.flags & XPU_NODE_TZ_RULES) &&
		(xfield == XPU_FIELD_HOUR || xfield == XPU_FIELD_MINUTE ||
		 xfield == XPU_FIELD_SECOND))
		return trunc_in_utc(ctx, &zone, xfield, lowunits, idx);
	if (zoned)
		idx = cg_zone_node(ctx, XPU_OP_TZ_LOCAL, XPU_TYPE_TIMESTAMP, &zone, idx);
	if (idx < 0)
		return -1;
	idx = cg_add_node(ctx, XPU_OP_DATE_TRUNC, XPU_TYPE_TIMESTAMP, 0, xfield, 1, &idx);
	if (zoned)
		idx = cg_zone_node(ctx, XPU_OP_TZ_UTC, XPU_TYPE_TIMESTAMPTZ, &zone, idx);
	return idx;
}

/*
 * a cast between timestamptz and timestamp (arg already of f->optype), or
 * from timestamptz to date: the day of the local time
 */
int
cg_emit_zone_shift(CgContext *ctx, const CgFuncInfo *f, int arg)
{
	CgZone		zone;

	if (arg < 0 || !cg_session_zone(ctx, &zone))
		return -1;
	if (f->restype == XPU_TYPE_DATE)
		return cg_coerce(ctx, cg_zone_node(ctx, f->opcode, XPU_TYPE_TIMESTAMP, &zone, arg),
						 XPU_TYPE_DATE);
	return cg_zone_node(ctx, f->opcode, f->restype, &zone, arg);
}

/*
 * a date, timestamp or timestamptz node as timestamptz: a date's midnight
 * and a timestamp in the session's zone (date2timestamptz,
 * timestamp2timestamptz), out of range RECHECK
 */
int
cg_emit_as_timestamptz(CgContext *ctx, int arg)
{
	CgZone		zone;

	if (arg < 0)
		return -1;
	if (ctx->nodes[arg].restype == XPU_TYPE_TIMESTAMPTZ)
		return arg;
	if (!cg_session_zone(ctx, &zone))
		return -1;
	if (ctx->nodes[arg].restype == XPU_TYPE_DATE)
		arg = cg_coerce(ctx, arg, XPU_TYPE_TIMESTAMP);
	return cg_zone_node(ctx, XPU_OP_TZ_UTC, XPU_TYPE_TIMESTAMPTZ, &zone, arg);
}

/*
 * to_char(timestamp, format) and to_char(timestamptz, format) (and so of a
 * date, which PostgreSQL casts to timestamptz) with a constant format the
 * device prints (codegen_to_char.c); timestamptz in the session's zone,
 * as codegen_zone.c models it.
 */
int
cg_emit_to_char(CgContext *ctx, const CgFuncInfo *f, List *args)
{
	Node	   *fmt = strip_implicit_coercions(lsecond(args));
	Const	   *c;
	StringInfoData tokens;
	char	   *reason;
	CgZone		zone;
	int			argv[2];

	if (!IsA(fmt, Const))
		return cg_refuse(ctx, "to_char with a format that is not a constant");
	c = (Const *) fmt;
	if (c->constisnull)
		return cg_emit_const(ctx, XPU_TYPE_TEXT, TEXTOID, (Datum) 0, true);
	initStringInfo(&tokens);
	if (!cg_parse_to_char_format(TextDatumGetCString(c->constvalue), &tokens, &reason))
		return cg_refuse(ctx, "%s", reason);
	argv[0] = cg_check_arg_type(ctx, f, cg_emit_expr(ctx, linitial(args)), f->arg1);
	if (argv[0] >= 0 && f->arg1 == XPU_TYPE_TIMESTAMPTZ)
	{
		if (!cg_session_zone(ctx, &zone))
			return -1;
		argv[0] = cg_zone_node(ctx, XPU_OP_TZ_LOCAL, XPU_TYPE_TIMESTAMP, &zone, argv[0]);
	}
	if (argv[0] < 0)
		return -1;
	argv[1] = cg_emit_const(ctx, XPU_TYPE_TEXT, TEXTOID,
							PointerGetDatum(cstring_to_text_with_len(tokens.data, tokens.len)),
							false);
	if (argv[1] < 0)
		return -1;
	return cg_add_node(ctx, XPU_OP_TO_CHAR, XPU_TYPE_TEXT, 0, 0, 2, argv);
}

/* months or days beyond which an interval is refused: any result is out of range */
#define INTERVAL_ARITH_BOUND	100000000

/* TS_PL_INTERVAL of a timestamp node by constant months, days and usecs */
static int
ts_pl_interval(CgContext *ctx, int ts, int32 months, int32 days, int64 usecs)
{
	int			argv[4];

	argv[0] = ts;
	argv[1] = cg_emit_const(ctx, XPU_TYPE_INT4, INT4OID, Int32GetDatum(months), false);
	argv[2] = cg_emit_const(ctx, XPU_TYPE_INT4, INT4OID, Int32GetDatum(days), false);
	argv[3] = cg_emit_const(ctx, XPU_TYPE_INT8, INT8OID, Int64GetDatum(usecs), false);
	if (argv[0] < 0 || argv[1] < 0 || argv[2] < 0 || argv[3] < 0)
		return -1;
	return cg_add_node(ctx, XPU_OP_TS_PL_INTERVAL, XPU_TYPE_TIMESTAMP, 0, 0, 4, argv);
}

/*
 * One step of timestamptz_pl_interval on a timestamptz node: in the
 * session's zone when the step is on the calendar, as
 * timestamp2tm and tm2timestamp take it there and back with their range
 * checks; in UTC for the microseconds (a shift by 0 only changes the
 * node's type).
 */
static int
zoned_step(CgContext *ctx, int tz, const CgZone *zone, int32 months,
		   int32 days, int64 usecs)
{
	int			idx = cg_zone_node(ctx, XPU_OP_TZ_LOCAL, XPU_TYPE_TIMESTAMP, zone, tz);

	if (idx >= 0)
		idx = ts_pl_interval(ctx, idx, months, days, usecs);
	return cg_zone_node(ctx, XPU_OP_TZ_UTC, XPU_TYPE_TIMESTAMPTZ, zone, idx);
}

/*
 * timestamp, date and timestamptz +/- interval with a constant interval:
 * its months, days and microseconds as the constants of TS_PL_INTERVAL,
 * negated for minus as timestamp_mi_interval negates them.  A date is
 * added as a timestamp.  A timestamptz takes PostgreSQL's three steps
 * (months, days, then microseconds), each that is not zero, the first two
 * in the session's zone.  Not an infinite
 * interval, nor one so large that adding it overflows PostgreSQL's own
 * arithmetic.
 */
int
cg_emit_interval_shift(CgContext *ctx, const CgFuncInfo *f, List *args)
{
	Node	   *span = strip_implicit_coercions(lsecond(args));
	bool		zoned = (f->arg1 == XPU_TYPE_TIMESTAMPTZ);
	Interval   *iv;
	int32		months;
	int32		days;
	int64		usecs;
	CgZone		zone;
	CgZone		utc = CG_ZONE_UTC;
	int			idx;

	if (!IsA(span, Const) || ((Const *) span)->consttype != INTERVALOID)
		return cg_refuse(ctx, "interval arithmetic with an interval that is not a constant");
	if (((Const *) span)->constisnull)
		return cg_emit_const(ctx, f->restype,
							 zoned ? TIMESTAMPTZOID : TIMESTAMPOID, (Datum) 0, true);
	iv = DatumGetIntervalP(((Const *) span)->constvalue);
	if (iv->month > INTERVAL_ARITH_BOUND || iv->month < -INTERVAL_ARITH_BOUND ||
		iv->day > INTERVAL_ARITH_BOUND || iv->day < -INTERVAL_ARITH_BOUND ||
		iv->time == PG_INT64_MIN || iv->time == PG_INT64_MAX)
		return cg_refuse(ctx, "an infinite or very large interval");
	months = (f->flags & FF_NEGATE) ? -iv->month : iv->month;
	days = (f->flags & FF_NEGATE) ? -iv->day : iv->day;
	usecs = (f->flags & FF_NEGATE) ? -iv->time : iv->time;
	if (zoned && !cg_session_zone(ctx, &zone))
		return -1;

	idx = cg_check_arg_type(ctx, f, cg_emit_expr(ctx, linitial(args)), f->arg1);
	if (idx < 0)
		return -1;
	if (!zoned)
	{
		if (f->arg1 == XPU_TYPE_DATE)
			idx = cg_coerce(ctx, idx, XPU_TYPE_TIMESTAMP);	/* date2timestamp */
		return idx < 0 ? -1 : ts_pl_interval(ctx, idx, months, days, usecs);
	}
	if (months != 0)
		idx = zoned_step(ctx, idx, &zone, months, 0, 0);
	if (days != 0 && idx >= 0)
		idx = zoned_step(ctx, idx, &zone, 0, days, 0);
	if (usecs != 0 && idx >= 0)
		idx = zoned_step(ctx, idx, &utc, 0, 0, usecs);
	return idx;
}
