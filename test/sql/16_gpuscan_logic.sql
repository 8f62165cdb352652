--
-- GpuScan boolean logic: three-valued AND/OR/NOT, IS [NOT] tests, CASE,
-- COALESCE, and quals split between the device and the CPU
--
SET pg_strom.regression_test_mode = on;
-- a role named like the extension's schema would put it first in the search path
SET search_path = public;
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE NOT (a > 0 AND b > 0)$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE (a > 0 OR b > 0) IS NOT TRUE$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE (a > c) IS UNKNOWN$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE (b < 0) IS FALSE OR (a < 0) IS NOT FALSE$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE a IS NULL OR c IS NULL$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE coalesce(a, (b % 100)::int2, 7) = 7$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE id > 0 AND CASE WHEN a > 0 THEN b ELSE -b END > 5000$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE CASE a % 3 WHEN 0 THEN 'zero' WHEN 1 THEN 'one' END = 'one'$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE CASE WHEN b = 0 THEN NULL ELSE 100000 / b END > 2$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE (a > 0) = (b > 0)$$);
-- md5() is not a device function: it stays a CPU filter above the GpuScan
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE b > 0 AND md5(id::text) LIKE '1%'$$);
-- GREATEST and LEAST: NULL arguments left out, NULL only when all are;
-- mixed integer widths, NaN above every float, numeric beyond the device's
-- range, text by its collation, char(n) with its padding, dates and
-- timestamps
SELECT * FROM check_gpuscan($$SELECT id, greatest(a, b, c) AS g FROM t_int WHERE greatest(a, b, c) > 1000$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE least(a, b, c) < -1000 OR least(a, b, c) IS NULL$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE greatest(a, NULL, 3) = 3$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_float WHERE greatest(f4, f8) = 'NaN' OR least(f4, f8) < -100$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_float WHERE least(f4, 0) = 0 AND greatest(f8, -0.0) = 0$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_numeric WHERE greatest(n, m) > 10 AND least(n, m, 1000) < 999$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_text WHERE greatest(t COLLATE "C", v) > 'm' AND least(c, 'b') = 'b'$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_datetime WHERE greatest(d, '2000-01-01', NULL) > '2000-06-01' AND least(ts, '2100-01-01 00:00:01') < '2100-01-01'$$);
-- on the device, with the CPU's filter empty
EXPLAIN (COSTS OFF) SELECT id FROM t_text WHERE greatest(t COLLATE "C", v) > 'm' AND least(c, 'b') = 'b';
