--
-- GpuPreAgg: every supported aggregate over every supported argument type,
-- grouped and ungrouped, with NULLs, an empty input, extremes and FILTER
--
SET pg_strom.regression_test_mode = on;
-- a role named like the extension's schema would put it first in the search path
SET search_path = public;
SET max_parallel_workers_per_gather = 0;

-- count
SELECT * FROM check_gpupreagg($$SELECT g, count(*) AS v1, count(a) AS v2, count(f8) AS v3, count(gt) AS v4, count(gn) AS v5, count(d) AS v6 FROM t_pa GROUP BY g$$, 'g');
-- integer sums and averages (int8 sums are exact numerics, also beyond int8)
SELECT * FROM check_gpupreagg($$SELECT g, sum(a) AS v1, sum(b) AS v2, sum(c) AS v3, avg(a) AS v4, avg(b) AS v5, avg(c) AS v6 FROM t_pa GROUP BY g$$, 'g');
-- min and max of integers, dates and timestamps
SELECT * FROM check_gpupreagg($$SELECT g, min(a) AS v1, max(a) AS v2, min(b) AS v3, max(b) AS v4, min(c) AS v5, max(c) AS v6 FROM t_pa GROUP BY g$$, 'g');
SELECT * FROM check_gpupreagg($$SELECT g, min(d) AS v1, max(d) AS v2, min(ts) AS v3, max(ts) AS v4, min(tz) AS v5, max(tz) AS v6 FROM t_pa GROUP BY g$$, 'g');
-- floats: sums, averages, min and max with NaN, infinities and signed zeros
SELECT * FROM check_gpupreagg($$SELECT g, sum(f4) AS v1, sum(f8) AS v2, avg(f4) AS v3, avg(f8) AS v4, min(f4) AS v5, max(f4) AS v6, min(f8) AS v7, max(f8) AS v8 FROM t_pa GROUP BY g$$, 'g');
-- variance and standard deviation over integers and floats
SELECT * FROM check_gpupreagg($$SELECT g, stddev(a) AS v1, stddev_samp(b) AS v2, stddev_pop(b) AS v3, variance(a) AS v4, var_samp(b) AS v5, var_pop(b) AS v6 FROM t_pa GROUP BY g$$, 'g');
SELECT * FROM check_gpupreagg($$SELECT g, stddev(f4) AS v1, stddev_pop(f8) AS v2, variance(f8) AS v3, var_samp(f4) AS v4, var_pop(f8) AS v5, stddev_samp(f8) AS v6 FROM t_pa GROUP BY g$$, 'g');
-- int8 variance: the sum of squares needs more than 128 bits (groups 100,
-- 101 and 105 hold int8's extremes)
SELECT * FROM check_gpupreagg($$SELECT g, stddev(c) AS v1, variance(c) AS v2, var_pop(c) AS v3, stddev_pop(c) AS v4 FROM t_pa GROUP BY g$$, 'g');
SELECT g, variance(c), stddev_samp(c) FROM t_pa WHERE g >= 100 GROUP BY g ORDER BY g;
-- FILTER clauses, also on the device-evaluated quals
SELECT * FROM check_gpupreagg($$SELECT g, count(*) FILTER (WHERE b > 0) AS v1, sum(c) FILTER (WHERE a % 2 = 0) AS v2, avg(f8) FILTER (WHERE f4 < 50) AS v3, max(d) FILTER (WHERE gb) AS v4 FROM t_pa WHERE id > 100 GROUP BY g$$, 'g');
-- a FILTER that is the WHERE clause itself, and a constant one (the device
-- program shares their nodes with the qual)
SELECT * FROM check_gpupreagg($$SELECT g, count(*) FILTER (WHERE b > 0) AS v1, sum(a) FILTER (WHERE true) AS v2 FROM t_pa WHERE b > 0 GROUP BY g$$, 'g');
SELECT * FROM check_gpupreagg($$SELECT g, count(*) FILTER (WHERE true) AS v1, count(*) FILTER (WHERE false) AS v2 FROM t_pa GROUP BY g$$, 'g');
-- expressions as arguments
SELECT * FROM check_gpupreagg($$SELECT g, sum(b::int8 * 3 + 1) AS v1, avg(f8 * 2) AS v2, min(a + 1) AS v3, max(c - 1) AS v4 FROM t_pa WHERE b IS NOT NULL AND g < 100 GROUP BY g$$, 'g');
-- no GROUP BY: one group; and over an empty input
SELECT * FROM check_gpupreagg($$SELECT count(*) AS v1, sum(b) AS v2, avg(c) AS v3, min(f8) AS v4, max(d) AS v5, stddev(b) AS v6 FROM t_pa$$);
SELECT * FROM check_gpupreagg($$SELECT count(*) AS v1, sum(b) AS v2, avg(c) AS v3, min(f8) AS v4, max(d) AS v5, stddev(b) AS v6 FROM t_pa WHERE id < -1000$$);
SELECT * FROM check_gpupreagg($$SELECT count(*) AS v1, sum(b) AS v2, avg(c) AS v3, min(f8) AS v4, max(d) AS v5, stddev(b) AS v6 FROM t_pa_empty$$);
SELECT * FROM check_gpupreagg($$SELECT g, count(*) AS v1, sum(b) AS v2 FROM t_pa_empty GROUP BY g$$, 'g');
-- all-NULL groups
SELECT * FROM check_gpupreagg($$SELECT g, count(a) AS v1, sum(a) AS v2, avg(b) AS v3, min(c) AS v4, max(f8) AS v5, stddev(f4) AS v6 FROM t_pa WHERE g = 102 GROUP BY g$$, 'g');
-- the extreme groups, ungrouped over them, and sum(int8) past the int8 range
SELECT * FROM check_gpupreagg($$SELECT g, sum(c) AS v1, avg(c) AS v2, sum(b) AS v3, avg(b) AS v4, sum(a) AS v5, avg(a) AS v6, sum(f8) AS v7, avg(f8) AS v8, min(f8) AS v9, max(f8) AS v10, variance(f8) AS v11 FROM t_pa WHERE g >= 100 GROUP BY g$$, 'g');
SELECT * FROM check_gpupreagg($$SELECT sum(c) AS v1, avg(c) AS v2, count(c) AS v3 FROM t_pa WHERE g = 105$$);
-- HAVING is evaluated by the final Agg
SELECT * FROM check_gpupreagg($$SELECT g, count(*) AS v1, sum(b) AS v2 FROM t_pa GROUP BY g HAVING sum(b) > 0 AND count(*) > 10$$, 'g');
-- the results themselves, so a wrong combination on both sides would show
SELECT g, count(*), count(a), sum(b), sum(c), min(a), max(c), round(avg(b), 6) AS avg_b FROM t_pa WHERE g < 100 OR g = 105 GROUP BY g ORDER BY g;
SELECT count(*), sum(c), avg(c) FROM t_pa WHERE g = 105;
-- numeric(p,s) with p <= 18: sum, avg, min, max are exact on the device (an
-- int64 at the declared scale); NaN is aggregated on the CPU
CREATE TABLE t_pa_num (g int, m numeric(12,2), p numeric(18,0), q numeric(5,4), u numeric);
INSERT INTO t_pa_num
SELECT i % 7,
       CASE WHEN i % 31 = 0 THEN NULL ELSE round(((i * 7919) % 2000003 - 1000001) / 100.0, 2) END,
       CASE WHEN i % 37 = 0 THEN NULL ELSE (i::int8 * 104729) % 999999999999999999 - 499999999999999999 END,
       CASE WHEN i % 41 = 0 THEN NULL ELSE ((i * 13) % 19999 - 9999) / 10000.0 END,
       i / 3.0
  FROM generate_series(1, 30000) i;
INSERT INTO t_pa_num VALUES (7, 'NaN', 1, 'NaN', 1), (7, 1.5, 2, 0.5, 2), (8, 'NaN', 3, 'NaN', 3), (9, NULL, NULL, NULL, NULL);
ANALYZE t_pa_num;
EXPLAIN (COSTS OFF) SELECT g, sum(m), avg(p), min(q), max(m) FROM t_pa_num GROUP BY g;
SELECT * FROM check_gpupreagg($$SELECT g, sum(m) AS v1, avg(m) AS v2, min(m) AS v3, max(m) AS v4, sum(p) AS v5, avg(p) AS v6, min(p) AS v7, max(p) AS v8, sum(q) AS v9, avg(q) AS v10, min(q) AS v11, max(q) AS v12 FROM t_pa_num GROUP BY g$$, 'g');
SELECT * FROM check_gpupreagg($$SELECT sum(m) AS v1, avg(q) AS v2, min(p) AS v3, max(q) AS v4, count(m) AS v5 FROM t_pa_num WHERE m > 0$$);
SELECT g, sum(m), avg(m), min(q), max(q), sum(p) FROM t_pa_num WHERE g >= 6 GROUP BY g ORDER BY g;
-- a numeric sum that comes to zero keeps the column's scale, as PostgreSQL's
CREATE TABLE t_pa_zero (g int, m numeric(12,2));
INSERT INTO t_pa_zero SELECT i % 2, CASE WHEN i % 4 < 2 THEN 1.50 ELSE -1.50 END FROM generate_series(1, 1000) i;
ANALYZE t_pa_zero;
EXPLAIN (COSTS OFF) SELECT g, sum(m), avg(m) FROM t_pa_zero GROUP BY g;
SELECT g, sum(m), avg(m) FROM t_pa_zero GROUP BY g ORDER BY g;
-- unconstrained numeric stays on the CPU
EXPLAIN (COSTS OFF) SELECT g, sum(u) FROM t_pa_num GROUP BY g;
-- errors are PostgreSQL's: float sums that overflow, and overflow in an argument
CREATE TABLE t_pa_ovf AS SELECT 1e308::float8 AS x, 3e38::float4 AS y, 2147483647 AS z FROM generate_series(1, 3);
ANALYZE t_pa_ovf;
EXPLAIN (COSTS OFF) SELECT sum(x), sum(y) FROM t_pa_ovf;
SELECT sum(x) FROM t_pa_ovf;
SELECT sum(y) FROM t_pa_ovf;
SELECT avg(x) FROM t_pa_ovf;
SELECT sum(z + 1) FROM t_pa_ovf;
SET pg_strom.enabled = off;
SELECT sum(x) FROM t_pa_ovf;
SELECT sum(y) FROM t_pa_ovf;
SELECT avg(x) FROM t_pa_ovf;
SELECT sum(z + 1) FROM t_pa_ovf;
SET pg_strom.enabled = on;
