--
-- date_trunc and to_char of timestamp and timestamptz, and the casts
-- between timestamptz and date or timestamp, as grouping keys, aggregate arguments
-- and WHERE clauses.  The timestamptz forms run on the device in the
-- session's time zone, a fixed UTC offset or a zone with transitions
-- (54_timezones tests those across them).  Answers are compared with
-- pg_strom on and off (check_gpupreagg of 30_gpupreagg_setup).
--
SET pg_strom.regression_test_mode = on;
SET max_parallel_workers_per_gather = 0;
SET TimeZone = 'UTC';
CREATE TABLE dt (id int, d date, ts timestamp, tz timestamptz, v int);
-- days across year and ISO-week boundaries, times of day to the microsecond
INSERT INTO dt
SELECT i, date '2019-12-20' + (i % 800),
       timestamp '2019-12-28 00:00' + (i * interval '37 minutes 13.000217 seconds'),
       timestamptz '2020-12-27 22:00+00' + (i * interval '11 minutes 7.5 seconds'),
       i % 100
  FROM generate_series(1, 30000) i;
INSERT INTO dt VALUES (-1, NULL, NULL, NULL, 1),
       (-2, 'infinity', 'infinity', 'infinity', 2),
       (-3, '-infinity', '-infinity', '-infinity', 3);
VACUUM ANALYZE dt;

SELECT * FROM check_gpupreagg('SELECT date_trunc(''month'', ts) AS k, count(*) AS n, sum(v) AS s FROM dt GROUP BY 1', 'k');
SELECT * FROM check_gpupreagg('SELECT date_trunc(''week'', ts) AS k, count(*) AS n, min(ts) AS lo, max(ts) AS hi FROM dt GROUP BY 1', 'k');
SELECT * FROM check_gpupreagg('SELECT date_trunc(''year'', ts) AS k, date_trunc(''quarter'', ts) AS q, count(*) AS n FROM dt GROUP BY 1, 2', 'k, q');
SELECT * FROM check_gpupreagg('SELECT date_trunc(''hour'', ts) AS k, count(*) AS n FROM dt WHERE id < 3000 GROUP BY 1', 'k');
SELECT * FROM check_gpupreagg('SELECT date_trunc(''minute'', ts) AS k, date_trunc(''second'', ts) AS s, count(*) AS n FROM dt WHERE id < 500 GROUP BY 1, 2', 'k, s');
SELECT * FROM check_gpupreagg('SELECT date_trunc(''day'', ts) AS k, count(*) AS n FROM dt GROUP BY 1', 'k');
-- a timestamp's day as a date: the monthly-report key, the day holding
-- times before the epoch and the infinities
SELECT * FROM check_gpupreagg('SELECT date_trunc(''month'', ts)::date AS k, count(*) AS n, sum(v) AS s FROM dt GROUP BY 1', 'k');
SELECT * FROM check_gpupreagg('SELECT (ts - interval ''20 years 3 hours'')::date AS k, count(*) AS n FROM dt WHERE ts::date <> d GROUP BY 1', 'k');
-- date_trunc of a date is date_trunc of timestamptz: the session's zone
SELECT * FROM check_gpupreagg('SELECT date_trunc(''month'', d) AS k, count(*) AS n, sum(v) AS s FROM dt GROUP BY 1', 'k');
SELECT * FROM check_gpupreagg('SELECT date_trunc(''week'', tz) AS k, count(*) AS n, max(tz) AS hi FROM dt GROUP BY 1', 'k');
SELECT * FROM check_gpupreagg('SELECT tz::timestamp AS k, count(*) AS n FROM dt WHERE id % 100 = 7 GROUP BY 1', 'k');
SELECT * FROM check_gpupreagg('SELECT count(*) AS n, sum(v) AS s FROM dt WHERE d::timestamptz >= timestamptz ''2021-03-01 00:00+00'' AND ts::timestamptz < tz');
-- dates and timestamps far in the past and the future (t_datetime of
-- 10_gpuscan_setup: years 1 BC to 2110, infinities)
SELECT * FROM check_gpupreagg('SELECT date_trunc(''year'', ts) AS k, count(*) AS n FROM t_datetime WHERE id <> -3 GROUP BY 1', 'k');
SELECT * FROM check_gpupreagg('SELECT date_trunc(''week'', ts) AS k, count(*) AS n FROM t_datetime WHERE id % 5 = 0 OR id < 0 GROUP BY 1', 'k');
SELECT * FROM check_gpupreagg('SELECT date_trunc(''quarter'', tz) AS k, count(*) AS n FROM t_datetime GROUP BY 1', 'k');
SELECT * FROM check_gpupreagg('SELECT date_trunc(''month'', d) AS k, count(*) AS n, max(id) AS m FROM t_datetime WHERE id NOT IN (-3, -4) GROUP BY 1', 'k');
SELECT * FROM check_gpupreagg('SELECT date_trunc(''decade'', ts) AS k, date_trunc(''century'', ts) AS c, count(*) AS n FROM t_datetime WHERE id <> -3 GROUP BY 1, 2', 'k, c');
SELECT * FROM check_gpupreagg('SELECT date_trunc(''millennium'', tz) AS k, date_trunc(''decade'', d) AS dd, count(*) AS n FROM t_datetime WHERE id NOT IN (-3, -4) GROUP BY 1, 2', 'k, dd');
SELECT * FROM check_gpupreagg('SELECT extract(isoyear FROM d) AS y, extract(week FROM d) AS w, count(*) AS n FROM t_datetime WHERE id % 3 = 0 GROUP BY 1, 2', 'y, w');
-- fractions of a second as keys: their values and, as text above the
-- aggregation, their display scales
SELECT * FROM check_gpupreagg('SELECT s::text AS s, ms::text AS ms, us, n FROM (SELECT extract(second FROM ts) AS s, extract(milliseconds FROM ts) AS ms, date_part(''microseconds'', ts) AS us, count(*) AS n FROM dt WHERE id % 7 = 0 GROUP BY 1, 2, 3) g', 's, ms, us');
SELECT * FROM check_gpupreagg('SELECT e::text AS e, n FROM (SELECT extract(epoch FROM ts) AS e, count(*) AS n FROM dt WHERE id % 50 = 0 GROUP BY 1) g', 'e');
-- to_char with a constant format, as keys: every field the device prints,
-- with and without FM, BC years, years past 9999, infinities (NULL)
SELECT * FROM check_gpupreagg('SELECT to_char(ts, ''YYYY-MM'') AS k, to_char(d, ''YYYY-MM-DD Dy'') AS dk, count(*) AS n, sum(v) AS s FROM dt GROUP BY 1, 2', 'k, dk');
SELECT * FROM check_gpupreagg('SELECT to_char(ts, ''YYYY YYY YY Y IYYY IYY IY I MM Mon mon MON'') AS a, to_char(ts, ''Month|month|MONTH|DD DDD D ID'') AS b, count(*) AS n FROM t_datetime GROUP BY 1, 2', 'a, b');
SELECT * FROM check_gpupreagg('SELECT to_char(ts, ''Day|DAY|day Dy dy DY HH HH12 HH24 MI SS'') AS a, to_char(ts, ''MS US SSSS SSSSS AM pm A.M. p.m. Q WW IW W J'') AS b, count(*) AS n FROM dt WHERE id % 3 = 0 OR id < 0 GROUP BY 1, 2', 'a, b');
SELECT * FROM check_gpupreagg('SELECT to_char(ts, ''BC AD b.c. a.d. YYYY-MM-DD'') AS a, to_char(ts, ''FMYYYY FMMM FMDD FMMonth FMDay FMHH FMHH24 FMMI'') AS b, to_char(ts, ''FMSS FMMS FMUS FMDDD FMWW FMIW FMD hh24:mi:ss.us'') AS c, count(*) AS n FROM t_datetime GROUP BY 1, 2, 3', 'a, b, c');
SELECT * FROM check_gpupreagg('SELECT to_char(tz, ''YYYY-MM-DD HH24:MI'') AS k, to_char(ts, ''Yyyy'') AS y, to_char(ts, '''') AS e, count(*) AS n FROM dt GROUP BY 1, 2, 3', 'k, y, e');
-- date and timestamp plus or minus a constant interval: months on the
-- calendar (the day clamped to the month's end), then days, then time
SELECT * FROM check_gpupreagg('SELECT ts + interval ''1 month'' AS k, ts - interval ''1 mon 3 days 04:05:06.789'' AS k2, count(*) AS n FROM dt GROUP BY 1, 2', 'k, k2');
SELECT * FROM check_gpupreagg('SELECT d + interval ''13 months'' AS k, d - interval ''-25 months 1 second'' AS k2, date_trunc(''month'', ts) + interval ''1 month'' - interval ''1 day'' AS eom, count(*) AS n FROM dt GROUP BY 1, 2, 3', 'k, k2, eom');
SELECT * FROM check_gpupreagg('SELECT count(*) AS n, sum(v) AS s FROM dt WHERE ts + interval ''1 month 2 days 3 hours'' > tz::timestamp AND d - interval ''1 year'' < ts - interval ''11 months 29 days''');
-- an interval that is not a constant keeps the CPU plan
SELECT * FROM check_gpupreagg('SELECT ts + v * interval ''1 day'' AS k, count(*) AS n FROM dt GROUP BY 1', 'k');
-- formats the device does not print (quoted text, a letter outside a
-- field, the TM prefix, a TH suffix, an unsupported field, a format
-- that is not a constant) keep the CPU plan
SELECT * FROM check_gpupreagg('SELECT to_char(ts, ''YYYY"Q"Q'') AS k, count(*) AS n FROM dt GROUP BY 1', 'k');
SELECT * FROM check_gpupreagg('SELECT to_char(ts, ''YYYY-MM-DDTHH24'') AS k, count(*) AS n FROM dt GROUP BY 1', 'k');
SELECT * FROM check_gpupreagg('SELECT to_char(ts, ''TMMonth'') AS k, count(*) AS n FROM dt GROUP BY 1', 'k');
SELECT * FROM check_gpupreagg('SELECT to_char(ts, ''DDth'') AS k, count(*) AS n FROM dt GROUP BY 1', 'k');
SELECT * FROM check_gpupreagg('SELECT to_char(ts, ''CC RM'') AS k, count(*) AS n FROM dt GROUP BY 1', 'k');
SELECT * FROM check_gpupreagg('SELECT to_char(ts, CASE WHEN v > 50 THEN ''YYYY'' ELSE ''MM'' END) AS k, count(*) AS n FROM dt GROUP BY 1', 'k');
-- results outside the timestamp range: PostgreSQL's errors
SELECT date_trunc('year', ts), count(*) FROM t_datetime WHERE id = -3 GROUP BY 1;
SELECT date_trunc('month', d), count(*) FROM t_datetime WHERE id = -4 GROUP BY 1;
-- a fixed offset east of UTC, and one west
SET TimeZone = 'Etc/GMT-9';
SELECT * FROM check_gpupreagg('SELECT date_trunc(''month'', d) AS k, count(*) AS n, sum(v) AS s FROM dt GROUP BY 1', 'k');
SELECT * FROM check_gpupreagg('SELECT date_trunc(''day'', tz) AS k, date_trunc(''day'', tz::timestamp) AS dd, count(*) AS n FROM dt GROUP BY 1, 2', 'k, dd');
SELECT * FROM check_gpupreagg('SELECT to_char(tz, ''YYYY-MM-DD HH24'') AS k, to_char(d, ''YYYY-MM-DD HH24'') AS dk, count(*) AS n FROM dt GROUP BY 1, 2', 'k, dk');
-- timestamptz plus or minus an interval: months and days on the zone's
-- calendar (2024-01-30 20:00 UTC is the 31st there: a month later is
-- 2024-02-28 20:00 UTC), then the time
SELECT * FROM check_gpupreagg('SELECT tz + interval ''1 month'' AS k, tz - interval ''1 mon 3 days 04:05:06.789'' AS k2, count(*) AS n FROM dt GROUP BY 1, 2', 'k, k2');
SELECT * FROM check_gpupreagg('SELECT date_trunc(''month'', tz) + interval ''1 month'' - interval ''1 day'' AS eom, count(*) AS n FROM dt GROUP BY 1', 'eom');
CREATE TEMP TABLE tz_edge (id int, tz timestamptz);
INSERT INTO tz_edge VALUES (1, '294276-12-31 23:59:59+00'), (2, '4714-11-24 00:00:00+00 BC'),
	(3, 'infinity'), (4, '-infinity'), (5, '2024-01-30 20:00:00+00'), (6, NULL);
SELECT * FROM check_gpuscan($$SELECT id, tz, tz + interval '1 month' AS k FROM tz_edge WHERE id <> 1 AND (tz + interval '1 month' < '2024-03-01' OR id = 3)$$);
SELECT * FROM check_gpuscan($$SELECT id, tz FROM tz_edge WHERE tz - interval '1 month 2 days 3 hours' > '2024-01-01' AND id <> 2$$);
SELECT id, tz + interval '1 month' FROM tz_edge WHERE id = 5;
-- past the range: PostgreSQL's error, from the CPU
SELECT count(*) FROM tz_edge WHERE tz + interval '1 month' > '2024-01-01';
SELECT count(*) FROM tz_edge WHERE tz - interval '1 day' > '2024-01-01';
-- date and timestamp against timestamptz, a timestamptz's date and its
-- fields: in the zone (the epoch counts from 1970-01-01 00:00 UTC)
SELECT * FROM check_gpupreagg('SELECT count(*) AS n, sum(v) AS s FROM dt WHERE d < tz AND ts >= tz - interval ''1 day'' AND tz <> d AND tz::timestamp > d', '');
SELECT * FROM check_gpupreagg('SELECT tz::date AS k, count(*) AS n FROM dt GROUP BY 1', 'k');
SELECT * FROM check_gpupreagg('SELECT extract(hour FROM tz) AS h, date_part(''dow'', tz) AS w, extract(epoch FROM tz) - extract(epoch FROM tz::timestamp) AS off, count(*) AS n FROM dt GROUP BY 1, 2, 3', 'h, w, off');
SELECT * FROM check_gpuscan($$SELECT id, tz, tz::date AS d FROM tz_edge WHERE tz::date > '2024-01-30' OR tz < date '2000-01-01' OR tz >= timestamp '2024-01-31 05:00'$$);
SET TimeZone = '-05:30';
SELECT * FROM check_gpupreagg('SELECT date_trunc(''quarter'', tz) AS k, count(*) AS n, min(tz) AS lo FROM dt GROUP BY 1', 'k');
SELECT * FROM check_gpupreagg('SELECT count(*) AS n FROM dt WHERE tz + interval ''2 days 1 hour'' > ts::timestamptz', '');
SELECT * FROM check_gpupreagg('SELECT date_trunc(''hour'', tz) AS k, count(*) AS n FROM dt WHERE tz::timestamp < ts GROUP BY 1', 'k');
EXPLAIN (COSTS OFF)
SELECT date_trunc('month', d), count(*), sum(v) FROM dt GROUP BY 1;
-- a zone with daylight saving time: the timestamptz forms run on the device
SET TimeZone = 'America/New_York';
SELECT * FROM check_gpupreagg('SELECT date_trunc(''month'', d) AS k, count(*) AS n FROM dt GROUP BY 1', 'k');
SELECT * FROM check_gpupreagg('SELECT date_trunc(''day'', tz) AS k, count(*) AS n FROM dt GROUP BY 1', 'k');
SELECT * FROM check_gpupreagg('SELECT to_char(d, ''YYYY-MM'') AS k, count(*) AS n FROM dt GROUP BY 1', 'k');
SELECT * FROM check_gpupreagg('SELECT tz + interval ''1 day'' AS k, count(*) AS n FROM dt WHERE id < 100 GROUP BY 1', 'k');
SELECT * FROM check_gpupreagg('SELECT count(*) AS n FROM dt WHERE d < tz OR extract(hour FROM tz) = 3', '');
-- date_trunc of a timestamp does not depend on the zone
SELECT * FROM check_gpupreagg('SELECT date_trunc(''month'', ts) AS k, count(*) AS n FROM dt GROUP BY 1', 'k');
-- units the device does not truncate to, and unknown ones (an error)
SELECT * FROM check_gpupreagg('SELECT date_trunc(''milliseconds'', ts) AS k, count(*) AS n FROM dt GROUP BY 1', 'k');
SELECT date_trunc('fortnight', ts), count(*) FROM dt GROUP BY 1;
-- a plan made under a fixed offset, executed under a zone with
-- transitions: the node builds its program then and goes to the CPU
SET TimeZone = 'UTC';
SET plan_cache_mode = force_generic_plan;
PREPARE dt_months AS SELECT date_trunc('month', d) AS k, count(*) AS n FROM dt GROUP BY 1;
CREATE TEMP TABLE dt_utc AS EXECUTE dt_months;
SET TimeZone = 'America/New_York';
CREATE TEMP TABLE dt_ny AS EXECUTE dt_months;
SET pg_strom.enabled = off;
CREATE TEMP TABLE dt_ny_cpu AS SELECT date_trunc('month', d) AS k, count(*) AS n FROM dt GROUP BY 1;
SET pg_strom.enabled = on;
SELECT (SELECT count(*) FROM dt_ny) AS groups,
       (SELECT count(*) FROM (TABLE dt_ny EXCEPT ALL TABLE dt_ny_cpu) a) AS missing,
       (SELECT count(*) FROM (TABLE dt_ny_cpu EXCEPT ALL TABLE dt_ny) b) AS extra,
       (SELECT count(*) FROM (TABLE dt_utc EXCEPT ALL TABLE dt_ny_cpu) c) > 0 AS zones_differ;
DEALLOCATE dt_months;
RESET plan_cache_mode;
RESET TimeZone;
DROP TABLE dt, dt_utc, dt_ny, dt_ny_cpu;
