--
-- Parallel GpuScan: workers share the block range; results are the same
--
SET pg_strom.regression_test_mode = on;
-- a role named like the extension's schema would put it first in the search path
SET search_path = public;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 4;
-- aggregates over the scan: GpuScan under PostgreSQL's own partial Agg here
-- (33_gpupreagg_parallel covers GpuPreAgg)
SET pg_strom.enable_gpupreagg = off;
CREATE TABLE t_par AS
SELECT i AS id, ((i::int8 * 7919) % 100003)::int4 AS x, (i % 1000) / 10.0 AS y
  FROM generate_series(1, 300000) i;
ANALYZE t_par;
EXPLAIN (COSTS OFF) SELECT count(*) FROM t_par WHERE x > 50000;
SELECT * FROM check_gpuscan($$SELECT * FROM t_par WHERE x > 50000 AND y < 40$$);
SET pg_strom.enabled = off;
SELECT count(*), sum(x) FROM t_par WHERE x % 3 = 1;
SET pg_strom.enabled = on;
SELECT count(*), sum(x) FROM t_par WHERE x % 3 = 1;
