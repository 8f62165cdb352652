--
-- GpuScan over int2/int4/int8: comparisons, arithmetic, casts
--
SET pg_strom.regression_test_mode = on;
-- a role named like the extension's schema would put it first in the search path
SET search_path = public;
SELECT * FROM check_gpuscan($$SELECT * FROM t_int WHERE a > 100$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_int WHERE b <= -5000 AND c >= 0$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_int WHERE a = b$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_int WHERE a < c$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_int WHERE b <> 0 AND c <> 1$$);
SELECT id, b FROM t_int WHERE b >= 2147483599 OR b < -2147483599 ORDER BY id;
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE id > 0 AND a + 1000 > 20000$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE id > 0 AND b * 3 - c / 1000 > 0$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE id > 0 AND b % 7 = 3$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE -(a::int4) > 50 OR abs(a::int4) < 1000$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE id > 0 AND c / (b % 5 + 10) > 1000$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE a::int8 * 100000 > c$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE b::float8 / 3 > 100.5$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE b::numeric > 49999.5$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE b BETWEEN -100 AND 100$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE b NOT BETWEEN SYMMETRIC 100 AND -100$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE a IN (1, 2, 3, -32768, 32767)$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE c NOT IN (0, -1, 9223372036854775807)$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE b = ANY ('{1,2,NULL,100}'::int[])$$);
-- overflow on rows the other quals already reject must not raise an error
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE id = -3 AND b + 2147483647 > 0$$);
