/*
 * codegen_zone.c
 *
 * xPU code generator: the session's time zone as TZ_LOCAL and TZ_UTC see
 * it.  A zone with one offset is that offset.  A zone with transitions
 * (daylight saving time, changes of its standard offset) is sent as its
 * offsets and transitions (XpuZoneRules) from 1970 to 2200, read from
 * PostgreSQL's own zone data: the transitions pg_next_dst_boundary reports,
 * each checked against pg_localtime at its first second, so that the device
 * finds the offsets timestamp2tm and DetermineTimeZoneOffset find.  Times
 * outside that span are evaluated on the CPU.  The rules are built once per
 * program, and again at each execution, under the zone then in force.
 */
#include "postgres.h"

#include "datatype/timestamp.h"
#include "pgtime.h"

#include "codegen/codegen_expr.h"
#include "codegen/codegen_values.h"
#include "codegen/codegen_zone.h"

/*
 * the span of the rules, in Unix seconds: 1970-01-01 to 2200-01-01 UTC
 * (earlier, many zones kept local mean time, whose offsets in seconds
 * would keep date_trunc to the hour or minute off the device)
 */
#define ZONE_RULES_FROM		((pg_time_t) 0)
#define ZONE_RULES_UNTIL	((pg_time_t) INT64CONST(7258118400))

/* the largest of 3600, 60 and 1 that divides secs */
static int32
offset_unit(long int secs)
{
	if (secs % 3600 == 0)
		return 3600;
	if (secs % 60 == 0)
		return 60;
	return 1;
}

/*
 * Builds the session zone's XpuZoneRules into the pool; false, refused,
 * where PostgreSQL's zone data does not give the device a consistent model
 * (an offset of a day or more, too many transitions, a transition whose
 * offsets disagree with pg_localtime's).
 */
static bool
build_zone_rules(CgContext *ctx, pg_tz *tz)
{
	const char *name = pg_get_timezone_name(tz);
	StringInfoData buf;
	XpuZoneRules rules;
	pg_time_t	t = ZONE_RULES_FROM;
	pg_time_t	boundary;
	long int	before;
	long int	after;
	int			before_isdst;
	int			after_isdst;
	int			res;
	int32		unit;
	struct pg_tm *tm;

	res = pg_next_dst_boundary(&t, &before, &before_isdst, &boundary,
							   &after, &after_isdst, tz);
	tm = pg_localtime(&t, tz);
	if (res < 0 || tm == NULL || tm->tm_gmtoff != before ||
		before <= -SECS_PER_DAY || before >= SECS_PER_DAY)
	{
		cg_refuse(ctx, "time zone \"%s\" has no offset the device can take in 1970", name);
		return false;
	}
	MemSet(&rules, 0, sizeof(rules));
	rules.lo = ZONE_RULES_FROM;
	rules.hi = PG_INT64_MAX;
	rules.first_gmtoff = (int32) before;
	unit = offset_unit(before);
	initStringInfo(&buf);
	while (res == 1)
	{
		XpuZoneTransition tr;
		long int	prev = (rules.ntrans == 0) ? rules.first_gmtoff :
			((XpuZoneTransition *) buf.data)[rules.ntrans - 1].gmtoff;

		if (boundary >= ZONE_RULES_UNTIL)
		{
			rules.hi = ZONE_RULES_UNTIL;
			break;
		}
		tm = pg_localtime(&boundary, tz);
		if (boundary < t || before != prev || tm == NULL ||
			tm->tm_gmtoff != after || after <= -SECS_PER_DAY ||
			after >= SECS_PER_DAY || rules.ntrans >= XPU_ZONE_MAX_TRANSITIONS)
		{
			pfree(buf.data);
			cg_refuse(ctx, "time zone \"%s\" has transitions the device cannot take", name);
			return false;
		}
		MemSet(&tr, 0, sizeof(tr));
		tr.at = boundary;
		tr.gmtoff = (int32) after;
		appendBinaryStringInfo(&buf, (char *) &tr, sizeof(tr));
		rules.ntrans++;
		unit = Min(unit, offset_unit(after));
		t = boundary + 1;
		res = pg_next_dst_boundary(&t, &before, &before_isdst, &boundary,
								   &after, &after_isdst, tz);
	}
	if (res < 0)
	{
		pfree(buf.data);
		cg_refuse(ctx, "time zone \"%s\" has transitions the device cannot take", name);
		return false;
	}
	/* the header and the transitions, one value of the pool */
	{
		StringInfoData all;

		initStringInfo(&all);
		appendBinaryStringInfo(&all, (char *) &rules, sizeof(rules));
		appendBinaryStringInfo(&all, buf.data, buf.len);
		ctx->zone_rules_off = cg_pool_append(ctx, all.data, all.len);
		pfree(all.data);
	}
	pfree(buf.data);
	ctx->zone_unit = unit;
	return true;
}

/*
 * The session's zone for TZ_LOCAL and TZ_UTC nodes; false, refused,
 * without one the device can model.
 */
bool
cg_session_zone(CgContext *ctx, CgZone *zone)
{
	long int	gmtoff;

	if (session_timezone == NULL)
	{
		cg_refuse(ctx, "no session time zone");
		return false;
	}
	if (pg_get_timezone_offset(session_timezone, &gmtoff) &&
		gmtoff > -SECS_PER_DAY && gmtoff < SECS_PER_DAY)
	{
		zone->flags = 0;
		zone->aux = (int32) gmtoff;
		zone->unit = offset_unit(gmtoff);
		return true;
	}
	if (ctx->zone_rules_off < 0 && !build_zone_rules(ctx, session_timezone))
		return false;
	zone->flags = XPU_NODE_TZ_RULES;
	zone->aux = ctx->zone_rules_off;
	zone->unit = ctx->zone_unit;
	return true;
}

int
cg_zone_node(CgContext *ctx, XpuOpcode opcode, XpuType restype,
			 const CgZone *zone, int arg)
{
	if (arg < 0)
		return -1;
	return cg_add_node(ctx, opcode, restype, zone->flags, zone->aux, 1, &arg);
}
