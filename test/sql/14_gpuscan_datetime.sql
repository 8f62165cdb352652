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
