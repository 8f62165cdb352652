--
-- Parallel GpuPreAgg: every participant feeds one device table per query;
-- the result is the same with 0, 2 and 4 workers
--
SET pg_strom.regression_test_mode = on;
-- a role named like the extension's schema would put it first in the search path
SET search_path = public;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 4;
EXPLAIN (COSTS OFF) SELECT g, count(*), sum(b) FROM t_pa GROUP BY g;
EXPLAIN (COSTS OFF) SELECT count(*), sum(b) FROM t_pa WHERE b > 0;
SELECT * FROM check_gpupreagg($$SELECT g, count(*) AS v1, sum(b) AS v2, avg(c) AS v3, sum(f8) AS v4, stddev(f8) AS v5, min(d) AS v6 FROM t_pa GROUP BY g$$, 'g');
SELECT * FROM check_gpupreagg($$SELECT gt, count(*) AS v1, sum(c) AS v2 FROM t_pa WHERE b > 0 GROUP BY gt$$, 'gt');
SELECT * FROM check_gpupreagg($$SELECT count(*) AS v1, sum(b) AS v2, avg(c) AS v3, max(f8) AS v4 FROM t_pa WHERE a > 0$$);
SELECT * FROM check_gpupreagg($$SELECT k % 100000 AS k, count(*) AS v1, sum(v) AS v2 FROM t_pa_many GROUP BY 1$$, 'k');
-- the same answers with 0, 2 and 4 workers
CREATE TEMP TABLE pa_w (workers int, g int, n bigint, s bigint, a numeric);
SET max_parallel_workers_per_gather = 0;
INSERT INTO pa_w SELECT 0, g, count(*), sum(b), avg(c) FROM t_pa GROUP BY g;
SET max_parallel_workers_per_gather = 2;
INSERT INTO pa_w SELECT 2, g, count(*), sum(b), avg(c) FROM t_pa GROUP BY g;
SET max_parallel_workers_per_gather = 4;
INSERT INTO pa_w SELECT 4, g, count(*), sum(b), avg(c) FROM t_pa GROUP BY g;
SELECT w.workers, count(*) AS groups,
       count(*) FILTER (WHERE (w.n, w.s, w.a) IS DISTINCT FROM (z.n, z.s, z.a)) AS differ
  FROM pa_w w JOIN pa_w z ON z.workers = 0 AND z.g = w.g
 GROUP BY w.workers ORDER BY w.workers;
