--
-- GpuScan over numeric: exact arithmetic; values outside the device's range
-- and NaN/Infinity are evaluated on the CPU
--
SET pg_strom.regression_test_mode = on;
-- a role named like the extension's schema would put it first in the search path
SET search_path = public;
SELECT * FROM check_gpuscan($$SELECT * FROM t_numeric WHERE n > 100$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_numeric WHERE n = 'NaN' OR n = 'Infinity'$$);
-- a comparison with a NaN or infinite constant runs on the device (every
-- finite value is below NaN and Infinity, above -Infinity); rows whose
-- value is NaN or infinite are evaluated on the CPU
SELECT * FROM check_gpuscan($$SELECT id FROM t_numeric WHERE n <> 'NaN'$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_numeric WHERE n < 'Infinity' AND m > '-Infinity'$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_numeric WHERE 'NaN'::numeric <= n OR '-Infinity'::numeric >= m$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_numeric WHERE NOT (n > '-Infinity') OR n >= 'NaN'$$);
SELECT * FROM check_gpuscan($$SELECT id, n < 'NaN' AS lt, m = '-Infinity' AS eq, n <> 'Infinity' AS ne FROM t_numeric WHERE id % 3 = 0$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_numeric WHERE (n * 2 > '-Infinity') IS NULL$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_numeric WHERE n > 1e30$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_numeric WHERE m BETWEEN -1000.50 AND 1000.25$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_numeric WHERE n + m > 0$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_numeric WHERE n * m < -1000$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_numeric WHERE m - 0.005 > n$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_numeric WHERE -m > 10 OR abs(n) < 0.5$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_numeric WHERE id > 0 AND m::int4 = 0$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_numeric WHERE m = 12.30$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_numeric WHERE n IN (0, 1.5, -0.01, 99999999999999999999999999999999999999)$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_numeric WHERE id::numeric * 0.5 > m$$);
-- division (numeric_div's result scale and rounding), round and trunc to a
-- constant scale, casts to float4/float8; a zero divisor, a quotient past
-- the device's range and values a float does not hold exactly are
-- evaluated on the CPU
SELECT * FROM check_gpuscan($$SELECT id FROM t_numeric WHERE n / 3 > 10$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_numeric WHERE m / 7 = round(m / 7, 20)$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_numeric WHERE id > 0 AND m <> 0 AND m / 0.03 > n$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_numeric WHERE round(m, 1) = 12.3 OR trunc(m, -2) = -100$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_numeric WHERE round(n, 2) BETWEEN -1.5 AND 1.5$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_numeric WHERE trunc(n / 1000, 3) >= 0.5$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_numeric WHERE n::float8 > 100.5$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_numeric WHERE m::float4 < -12.3$$);
SELECT * FROM check_gpuscan($$SELECT id, (m / 3)::text FROM t_numeric WHERE m / 3 < -100$$);
-- ceil, ceiling and floor: negative values, exact integers of any scale,
-- NaN and the infinities (their own value), values past the device's range
SELECT * FROM check_gpuscan($$SELECT id, floor(m) AS f, ceil(n) AS c FROM t_numeric WHERE floor(m) >= -3 AND ceil(m) <= 3$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_numeric WHERE floor(n) = n OR ceiling(n) - n > 0.5$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_numeric WHERE floor(m / 3) - ceil(m / 3) = -1 AND floor(-m) = -ceil(m)$$);
