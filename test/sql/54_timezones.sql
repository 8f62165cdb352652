--
-- timestamptz under session time zones with transitions (daylight saving
-- time, changes of standard offset): extract, date_trunc, casts to and from
-- date and timestamp, to_char and calendar interval arithmetic run on the
-- device with the zone's offsets and transitions from 1970 to 2200, and
-- give PostgreSQL's answers: local times that a transition skips or
-- repeats, offsets of 30 and 45 minutes, a 30-minute DST, a skipped day,
-- and instants before 1970 and after 2200 (evaluated on the CPU).
-- Answers are compared with pg_strom on and off (check_gpuscan of
-- 10_gpuscan_setup, check_gpupreagg of 30_gpupreagg_setup).
--
SET pg_strom.regression_test_mode = on;
SET search_path = public;
SET max_parallel_workers_per_gather = 0;

-- every 20 minutes of 2011 to 2014 (Samoa skipped 2011-12-30, Moscow
-- moved its standard offset in 2011 and 2014), then every 1777 minutes
-- from 1890 to 2210; ts is tz's UTC clock reading, so as a local time it
-- falls into every gap and overlap of any zone
CREATE TABLE tzx (id int, tz timestamptz, ts timestamp, d date);
INSERT INTO tzx
SELECT i, t, t AT TIME ZONE 'UTC', (t AT TIME ZONE 'UTC')::date
  FROM (SELECT i, timestamptz '2011-01-01 00:00:00+00' + i * interval '20 minutes' AS t
          FROM generate_series(0, 105190) i) s;
INSERT INTO tzx
SELECT 200000 + i, t, t AT TIME ZONE 'UTC', (t AT TIME ZONE 'UTC')::date
  FROM (SELECT i, timestamptz '1890-01-01 00:07:00+00' + i * interval '1777 minutes' AS t
          FROM generate_series(0, 95000) i) s;
INSERT INTO tzx VALUES (-1, 'infinity', 'infinity', 'infinity'),
	(-2, '-infinity', '-infinity', '-infinity'), (-3, NULL, NULL, NULL);
VACUUM ANALYZE tzx;

CREATE FUNCTION tz_checks(zone text)
RETURNS TABLE (query text, nrows bigint, missing bigint, extra bigint, differ bigint, gpu bool)
LANGUAGE plpgsql AS $$
DECLARE
	q text;
	r record;
BEGIN
	PERFORM set_config('TimeZone', zone, true);
	FOREACH q IN ARRAY ARRAY[
		'SELECT date_trunc(''day'', tz) AS k, count(*) AS n, min(extract(hour FROM tz)) AS h FROM tzx GROUP BY 1',
		'SELECT tz::date AS k, extract(hour FROM tz) AS h, extract(minute FROM tz) AS m, count(*) AS n FROM tzx WHERE id < 200000 GROUP BY 1, 2, 3',
		'SELECT date_trunc(''month'', tz + interval ''1 month 1 day'') AS k, date_trunc(''week'', tz - interval ''1 day'') AS w, count(*) AS n FROM tzx GROUP BY 1, 2',
		'SELECT date_trunc(''hour'', tz) AS k, count(*) AS n FROM tzx WHERE id % 5 = 0 GROUP BY 1',
		'SELECT tz::timestamp AS k, count(*) AS n FROM tzx WHERE id % 3 = 0 GROUP BY 1',
		'SELECT ts::timestamptz AS k, count(*) AS n FROM tzx WHERE id % 3 = 1 GROUP BY 1',
		'SELECT d::timestamptz AS k, count(*) AS n FROM tzx GROUP BY 1',
		'SELECT to_char(tz, ''YYYY-MM-DD HH24:MI'') AS k, count(*) AS n FROM tzx WHERE id % 11 = 0 GROUP BY 1',
		'SELECT extract(year FROM tz) AS k, extract(doy FROM tz) AS y, count(*) AS n FROM tzx GROUP BY 1, 2']
	LOOP
		SELECT * INTO r FROM check_gpupreagg(q, CASE WHEN q LIKE '% AS w, %' THEN 'k, w'
													 WHEN q LIKE '% AS m, %' THEN 'k, h, m'
													 WHEN q LIKE '% AS y, %' THEN 'k, y'
													 ELSE 'k' END);
		query := q; nrows := r.nrows; missing := r.missing; extra := r.extra;
		differ := r.differ; gpu := r.gpupreagg;
		RETURN NEXT;
	END LOOP;
	FOREACH q IN ARRAY ARRAY[
		'SELECT id FROM tzx WHERE ts::timestamptz < tz',
		'SELECT id FROM tzx WHERE d <= tz AND tz < d + 1',
		'SELECT id FROM tzx WHERE ts > tz AND extract(dow FROM tz) = 0',
		'SELECT id FROM tzx WHERE tz + interval ''1 day'' - interval ''24 hours'' <> tz']
	LOOP
		SELECT * INTO r FROM check_gpuscan(q);
		query := q; nrows := r.nrows; missing := r.missing; extra := r.extra;
		differ := 0; gpu := r.gpuscan;
		RETURN NEXT;
	END LOOP;
END
$$;

SELECT * FROM tz_checks('Europe/Paris');
SELECT * FROM tz_checks('America/New_York');
SELECT * FROM tz_checks('Australia/Lord_Howe');
SELECT * FROM tz_checks('America/St_Johns');
SELECT * FROM tz_checks('Europe/Moscow');
SELECT * FROM tz_checks('Pacific/Apia');
SELECT * FROM tz_checks('Asia/Kolkata');
SELECT * FROM tz_checks('America/Sao_Paulo');

-- the plan: the casts and fields on the device, the zone's rules in the
-- program (no fixed offset refused)
SET TimeZone = 'Europe/Paris';
EXPLAIN (COSTS OFF)
SELECT date_trunc('day', tz), count(*) FROM tzx WHERE ts::timestamptz < tz GROUP BY 1;
-- Kolkata's offsets are not whole hours: date_trunc to the hour stays on
-- the CPU, to the minute runs on the device
SET TimeZone = 'Asia/Kolkata';
SET client_min_messages = debug2;
EXPLAIN (COSTS OFF) SELECT date_trunc('hour', tz), count(*) FROM tzx GROUP BY 1;
RESET client_min_messages;
EXPLAIN (COSTS OFF) SELECT date_trunc('minute', tz), count(*) FROM tzx GROUP BY 1;
RESET TimeZone;

DROP FUNCTION tz_checks(text);
DROP TABLE tzx;
