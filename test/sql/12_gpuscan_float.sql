--
-- GpuScan over float4/float8: NaN and infinities order as PostgreSQL does
--
SET pg_strom.regression_test_mode = on;
-- a role named like the extension's schema would put it first in the search path
SET search_path = public;
SELECT * FROM check_gpuscan($$SELECT * FROM t_float WHERE f8 > 100$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_float WHERE f8 = 'NaN'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_float WHERE f4 > 'Infinity'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_float WHERE f8 < '-Infinity' OR f8 >= 'Infinity'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_float WHERE f4 = 0$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_float WHERE f4 < f8$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_float WHERE f4 <> f8$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_float WHERE f4 * 2.5 > 10 AND f4 * 2.5 < 40$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_float WHERE f8 + f4 > 0$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_float WHERE id > 0 AND f8 / 7.0 - f4 < 3$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_float WHERE abs(f8) < 10 OR -f4 > 40$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_float WHERE id > 0 AND f8::int4 % 3 = 0$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_float WHERE f4::float8 = f8$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_float WHERE f8 BETWEEN -1.5 AND 1.5$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_float WHERE f8 IN (1.5, 2.5, 'NaN')$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_float WHERE f8 IS NULL OR f4 IS NULL$$);
-- float to numeric: the value rounded to 15 (float4: 6) significant
-- digits, at the display scale of its digits after the point; NaN,
-- infinities and magnitudes outside [1e-8, 1e38) are converted on the CPU
SELECT * FROM check_gpuscan($$SELECT id FROM t_float WHERE f8::numeric = round(f8::numeric, 3) OR f4::numeric > 20$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_float WHERE (f8::numeric)::text LIKE '%.%5' OR (f4::numeric)::text LIKE '-%3'$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_float WHERE f8::numeric IN (0, 1.5, 2.5) OR f4::numeric::text = 'NaN' OR (f8 * 1e-3)::numeric::text LIKE '0.00%'$$);
-- floor, ceil(ing), round (half to even), trunc and sign of double
-- precision (a real argument is cast): infinities and NaN pass through,
-- sign of NaN and of both zeros is 0, NULL stays NULL
SELECT * FROM check_gpuscan($$SELECT id FROM t_float WHERE floor(f8) = -3 OR ceil(f4) = 2 OR ceiling(f8) >= 'Infinity'$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_float WHERE round(f8) <> f8 AND round(f4 * 2) / 2 = f4$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_float WHERE round(f8) IN (2, -2) OR round(f4) = 2$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_float WHERE trunc(f8) = 0 AND f8 <> 0 OR trunc(f4) = 'NaN'$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_float WHERE sign(f8) = 0 OR sign(f4) + sign(f8) = -2$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_float WHERE floor(f8 / 100) * 100 > ceil(f4 * 3) AND trunc(f8) IS NOT NULL$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_float WHERE sign(f4) IS NULL AND floor(f8) IS NOT NULL$$);
