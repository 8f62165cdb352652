--
-- GpuScan over date, timestamp and timestamptz
--
SET pg_strom.regression_test_mode = on;
-- a role named like the extension's schema would put it first in the search path
SET search_path = public;
SELECT * FROM check_gpuscan($$SELECT * FROM t_datetime WHERE d > '2010-06-15'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_datetime WHERE d = 'infinity' OR d = '-infinity'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_datetime WHERE ts BETWEEN '1990-01-01' AND '2005-12-31 23:59:59'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_datetime WHERE tz < '2020-01-01 00:00:00+09'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_datetime WHERE d < ts$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_datetime WHERE ts::date = d OR ts::date < '1970-01-01'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_datetime WHERE ts > d AND ts <= d + 1000$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_datetime WHERE id > 0 AND d + 30 > '2030-01-01'$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_datetime WHERE id > 0 AND d - 365 < '1970-01-01'$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_datetime WHERE id > 0 AND d - date '2000-01-01' > 5000$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_datetime WHERE extract(year FROM d) = 2003$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_datetime WHERE extract(month FROM ts) = 2 AND extract(day FROM ts) = 29$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_datetime WHERE date_part('dow', ts) = 0$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_datetime WHERE extract(doy FROM d) > 360 OR extract(quarter FROM d) = 2$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_datetime WHERE extract(isodow FROM d) = 7 AND extract(hour FROM ts) < 3$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_datetime WHERE date_part('minute', ts) = 30$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_datetime WHERE extract(year FROM d) < 0$$);
-- the other integral fields: the ISO week and year (which differs from the
-- calendar's around New Year), decades, centuries and millennia (around
-- 1 BC and 1 AD too), and a date's julian day and epoch
SELECT * FROM check_gpuscan($$SELECT id FROM t_datetime WHERE extract(week FROM d) IN (1, 52, 53)$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_datetime WHERE extract(isoyear FROM d) <> extract(year FROM d)$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_datetime WHERE extract(week FROM ts) = 53 OR date_part('week', ts) = 1$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_datetime WHERE extract(isoyear FROM ts) <> extract(year FROM ts)$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_datetime WHERE extract(decade FROM d) IN (-1, 0, 1) OR extract(century FROM d) IN (-1, 1) OR extract(millennium FROM d) IN (-1, 1)$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_datetime WHERE extract(isoyear FROM d) < 1 OR extract(isoyear FROM d) = 2004$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_datetime WHERE extract(decade FROM ts) % 7 = 3 AND extract(century FROM ts) = 20$$);
-- date_part of a date is of the date as a timestamp (an error past its range)
SELECT * FROM check_gpuscan($$SELECT id FROM t_datetime WHERE id > 0 AND (date_part('decade', d) = 199 OR date_part('isoyear', d) < 1)$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_datetime WHERE date_part('millennium', ts) = 3 OR date_part('century', ts) < 0$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_datetime WHERE extract(julian FROM d) BETWEEN 2451545 AND 2451900 OR extract(epoch FROM d) < -1e10$$);
-- a timestamp's seconds, milliseconds, microseconds and epoch
SELECT * FROM check_gpuscan($$SELECT id FROM t_datetime WHERE extract(second FROM ts) > 30.5 AND date_part('milliseconds', ts) < 45000$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_datetime WHERE extract(microseconds FROM ts) < 1000000 OR date_part('second', ts) = 0$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_datetime WHERE extract(epoch FROM ts) > 1e9 OR date_part('epoch', ts) < -1e10$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_datetime WHERE id > 0 AND date_part('epoch', d) BETWEEN 0 AND 1e9$$);
-- a timestamp's julian day has a fraction of a day: on the CPU
SELECT * FROM check_gpuscan($$SELECT id FROM t_datetime WHERE extract(julian FROM ts) > 2451545$$);
