--
-- EXPLAIN of GpuJoin: each depth with its join type and keys; what is not
-- offered keeps PostgreSQL's plan
--
SET pg_strom.regression_test_mode = on;
SET search_path = public;
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF) SELECT f.id, d.name FROM gj_fact f JOIN gj_d1 d ON f.k_int = d.id;
EXPLAIN (COSTS OFF) SELECT f.id, d.name FROM gj_fact f LEFT JOIN gj_d1 d ON f.k_int = d.id WHERE f.v > 3;
EXPLAIN (COSTS OFF) SELECT f.id FROM gj_fact f WHERE NOT EXISTS (SELECT 1 FROM gj_d2 d WHERE d.k = f.k_big);
EXPLAIN (COSTS OFF)
	SELECT f.id, d1.name, d2.v, d3.w, d4.s FROM gj_fact f
	  JOIN gj_d1 d1 ON f.k_int = d1.id
	  LEFT JOIN gj_d2 d2 ON f.k_big = d2.k
	  JOIN gj_d3 d3 ON d3.t = f.k_text
	  JOIN gj_d4 d4 ON d4.c = f.k_char;
-- not offered: a join without an equality the device hashes, a SEMI join
-- with another clause, FULL joins, row locks, pg_strom.enable_gpujoin off
EXPLAIN (COSTS OFF) SELECT f.id, d.name FROM gj_fact f JOIN gj_d1 d ON f.k_int < d.id;
EXPLAIN (COSTS OFF) SELECT f.id FROM gj_fact f WHERE EXISTS (SELECT 1 FROM gj_d1 d WHERE f.k_int = d.id + 1 AND f.k_int < d.id);
EXPLAIN (COSTS OFF) SELECT f.id FROM gj_fact f FULL JOIN gj_d1 d ON f.k_int = d.id;
EXPLAIN (COSTS OFF) SELECT f.id, d.name FROM gj_fact f JOIN gj_d1 d ON f.k_int = d.id FOR UPDATE OF f;
SET pg_strom.enable_gpujoin = off;
EXPLAIN (COSTS OFF) SELECT f.id, d.name FROM gj_fact f JOIN gj_d1 d ON f.k_int = d.id;
RESET pg_strom.enable_gpujoin;
-- parallel: GpuJoin under Gather
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT f.id, d.name FROM gj_fact f JOIN gj_d1 d ON f.k_int = d.id;
