--
-- IS [NOT] DISTINCT FROM and NULLIF on the device, NULLs on either side,
-- over integers of different widths, text and dates
--
SET pg_strom.regression_test_mode = on;
SET search_path = public;
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE a IS DISTINCT FROM c$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE a IS NOT DISTINCT FROM b$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE b IS DISTINCT FROM 5000 AND id < 3000$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE (a IS DISTINCT FROM NULL) = (c IS NOT DISTINCT FROM NULL)$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE nullif(a, 0) IS NULL$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE 100000 / nullif(b % 7, 0) > 20000$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE coalesce(nullif(c, a), -1) < 0$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_text WHERE t IS DISTINCT FROM v$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_text WHERE nullif(v, 'v1') IS NULL$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_datetime WHERE d IS NOT DISTINCT FROM date '2000-02-29' OR nullif(d, date '2000-01-01') IS NULL$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_text WHERE c IS DISTINCT FROM 'c1'$$);
EXPLAIN (COSTS OFF)
SELECT id FROM t_int WHERE a IS DISTINCT FROM c AND nullif(b, 0) > 10;
-- timestamp against timestamptz, the timestamp taken in the session's zone
SELECT * FROM check_gpuscan($$SELECT id FROM t_datetime WHERE ts IS DISTINCT FROM tz$$);
