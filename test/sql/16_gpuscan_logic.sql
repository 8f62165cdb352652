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
