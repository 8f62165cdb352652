--
-- GpuJoin over 2 to 4 inner relations in one node (left-deep), mixed join
-- types, NULL keys, duplicates, empty inners
--
SET pg_strom.regression_test_mode = on;
SET search_path = public;
SET max_parallel_workers_per_gather = 0;
SELECT * FROM check_gpujoin($$
	SELECT f.id, d1.name, d2.v FROM gj_fact f
	  JOIN gj_d1 d1 ON f.k_int = d1.id
	  JOIN gj_d2 d2 ON f.k_big = d2.k$$);
SELECT * FROM check_gpujoin($$
	SELECT f.id, d1.name, d2.v, d3.w FROM gj_fact f
	  JOIN gj_d1 d1 ON f.k_int = d1.id
	  LEFT JOIN gj_d2 d2 ON f.k_big = d2.k
	  JOIN gj_d3 d3 ON d3.t = f.k_text$$);
SELECT * FROM check_gpujoin($$
	SELECT f.id, d1.name, d2.v, d3.w, d4.s FROM gj_fact f
	  LEFT JOIN gj_d1 d1 ON f.k_int = d1.id
	  LEFT JOIN gj_d2 d2 ON f.k_big = d2.k
	  LEFT JOIN gj_d3 d3 ON d3.t = f.k_text
	  LEFT JOIN gj_d4 d4 ON d4.c = f.k_char$$);
SELECT * FROM check_gpujoin($$
	SELECT f.id, d1.name, d4.s FROM gj_fact f
	  JOIN gj_d1 d1 ON f.k_int = d1.id
	  JOIN gj_d4 d4 ON d4.c = f.k_char
	 WHERE EXISTS (SELECT 1 FROM gj_d3 d3 WHERE d3.t = f.k_text)
	   AND NOT EXISTS (SELECT 1 FROM gj_d2 d2 WHERE d2.k = f.k_big)$$);
SELECT * FROM check_gpujoin($$
	SELECT f.id, s.n, d4.s, dn.label FROM gj_fact f
	  JOIN gj_skew s ON f.k_int = s.id
	  LEFT JOIN gj_d4 d4 ON d4.c = f.k_char
	  JOIN gj_dn dn ON dn.n = f.k_num$$);
SELECT * FROM check_gpujoin($$
	SELECT f.id, d1.name, e.name AS e_name FROM gj_fact f
	  JOIN gj_d1 d1 ON f.k_int = d1.id
	  LEFT JOIN gj_empty e ON f.k_small = e.id$$);
SELECT * FROM check_gpujoin($$
	SELECT f.id, d1.name, e.name AS e_name FROM gj_fact f
	  JOIN gj_d1 d1 ON f.k_int = d1.id
	  JOIN gj_empty e ON f.k_small = e.id$$);
-- the output takes columns of every depth and none of the outer
SELECT * FROM check_gpujoin($$
	SELECT d1.name, d2.v, dd.ts FROM gj_fact f
	  JOIN gj_d1 d1 ON f.k_int = d1.id
	  JOIN gj_d2 d2 ON f.k_big = d2.k
	  JOIN gj_dd dd ON dd.d = f.k_date$$);
