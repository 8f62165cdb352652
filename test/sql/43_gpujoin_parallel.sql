--
-- Parallel GpuJoin: one participant builds the inner rows, every
-- participant probes its share of the outer table; rescans under a nested
-- loop build and join again
--
SET pg_strom.regression_test_mode = on;
SET search_path = public;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT * FROM check_gpujoin($$SELECT f.id, d.name FROM gj_fact f JOIN gj_d1 d ON f.k_int = d.id$$);
SELECT * FROM check_gpujoin($$
	SELECT f.id, d1.name, d2.v, d3.w FROM gj_fact f
	  LEFT JOIN gj_d1 d1 ON f.k_int = d1.id
	  JOIN gj_d2 d2 ON f.k_big = d2.k
	  LEFT JOIN gj_d3 d3 ON d3.t = f.k_text$$);
SELECT * FROM check_gpujoin($$SELECT f.id, s.n FROM gj_fact f JOIN gj_skew s ON f.k_int = s.id$$);
SELECT * FROM check_gpujoin($$SELECT f.id FROM gj_fact f WHERE NOT EXISTS (SELECT 1 FROM gj_d3 d WHERE d.t = f.k_text)$$);
-- the same answer with 0, 2 and 4 workers
CREATE TEMP TABLE gj_w (workers int, n bigint, s bigint, l bigint);
SET max_parallel_workers_per_gather = 0;
INSERT INTO gj_w SELECT 0, count(*), sum(f.id), sum(length(d.name)) FROM gj_fact f JOIN gj_d1 d ON f.k_int = d.id;
SET max_parallel_workers_per_gather = 2;
INSERT INTO gj_w SELECT 2, count(*), sum(f.id), sum(length(d.name)) FROM gj_fact f JOIN gj_d1 d ON f.k_int = d.id;
ALTER TABLE gj_fact SET (parallel_workers = 4);
SET max_parallel_workers_per_gather = 4;
INSERT INTO gj_w SELECT 4, count(*), sum(f.id), sum(length(d.name)) FROM gj_fact f JOIN gj_d1 d ON f.k_int = d.id;
ALTER TABLE gj_fact SET (parallel_workers = 2);
SET max_parallel_workers_per_gather = 2;
SET pg_strom.enabled = off;
INSERT INTO gj_w SELECT -1, count(*), sum(f.id), sum(length(d.name)) FROM gj_fact f JOIN gj_d1 d ON f.k_int = d.id;
SET pg_strom.enabled = on;
SELECT w.workers, w.n = z.n AND w.s = z.s AND w.l = z.l AS same
  FROM gj_w w JOIN gj_w z ON z.workers = -1 WHERE w.workers >= 0 ORDER BY 1;
-- rescans: GpuJoin under a nested loop, once per outer row
SET max_parallel_workers_per_gather = 0;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SELECT * FROM check_gpujoin($$
	SELECT g.g, sub.id, sub.name
	  FROM generate_series(1, 3) g(g),
	       LATERAL (SELECT f.id, d.name FROM gj_fact f JOIN gj_d1 d ON f.k_int = d.id
	                 WHERE f.id % 1000 = g.g) sub$$);
SELECT * FROM check_gpujoin($$
	SELECT g.g, (SELECT count(*) FROM gj_fact f JOIN gj_d1 d ON f.k_int = d.id AND d.id % 4 = g.g) AS n
	  FROM generate_series(0, 3) g(g)$$);
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;
