--
-- Residual join quals: a join's clauses other than its hashed equalities.
-- At INNER and LEFT depths they stay in GpuJoin and the device evaluates
-- them, also fused under GpuPreAgg; one the device cannot take (a regular
-- expression) is checked on the CPU over the device's key matches (a LEFT
-- depth's matched rows joined on the CPU).  SEMI and ANTI joins with such
-- clauses keep PostgreSQL's plan (depths 0).  Tables of
-- 40_gpujoin_setup.sql and 45_gpujoin_preagg.sql.
--
SET pg_strom.regression_test_mode = on;
SET search_path = public;
SET max_parallel_workers_per_gather = 0;

-- INNER: outer and inner columns, duplicates and NULL keys on both sides
SELECT * FROM check_gpujoin($$
	SELECT f.id, d1.name FROM gj_fact f
	  JOIN gj_d1 d1 ON f.k_int = d1.id AND f.v > d1.id % 13$$);
-- a qual that is NULL for some rows is not true: no match
SELECT * FROM check_gpujoin($$
	SELECT f.id, dn.label FROM gj_fact f
	  JOIN gj_dn dn ON f.k_num = dn.n AND dn.label < f.k_text$$);
-- LEFT: a row whose matches all fail is NULL-extended once, a row with a
-- passing match never is
SELECT * FROM check_gpujoin($$
	SELECT f.id, d1.name FROM gj_fact f
	  LEFT JOIN gj_d1 d1 ON f.k_int = d1.id AND f.v > d1.id % 13$$);
-- LEFT with a qual of the outer row only, and of the inner row only
SELECT * FROM check_gpujoin($$
	SELECT f.id, d3.w FROM gj_fact f
	  LEFT JOIN gj_d3 d3 ON d3.t = f.k_text AND f.v < 6$$);
SELECT * FROM check_gpujoin($$
	SELECT f.id, d3.w FROM gj_fact f
	  LEFT JOIN gj_d3 d3 ON d3.t = f.k_text AND d3.w > 0$$);
-- a qual reading an earlier depth's columns (NULL when that depth is
-- NULL-extended), over 2 to 4 depths of mixed types
SELECT * FROM check_gpujoin($$
	SELECT f.id, d1.name, d2.v FROM gj_fact f
	  JOIN gj_d1 d1 ON f.k_int = d1.id AND d1.name <> 'd1_7'
	  LEFT JOIN gj_d2 d2 ON f.k_big = d2.k AND d2.v > d1.name$$);
SELECT * FROM check_gpujoin($$
	SELECT f.id, d1.name, d3.w, d4.s FROM gj_fact f
	  LEFT JOIN gj_d1 d1 ON f.k_int = d1.id AND f.v <> 3
	  LEFT JOIN gj_d3 d3 ON d3.t = f.k_text AND (d3.w > d1.id % 20 OR d1.id IS NULL)
	  JOIN gj_d4 d4 ON d4.c = f.k_char AND d4.s + coalesce(d3.w, 0) > 2$$);
SELECT * FROM check_gpujoin($$
	SELECT f.id, d1.name, d2.v, d3.w, dd.f FROM gj_fact f
	  JOIN gj_d1 d1 ON f.k_int = d1.id
	  LEFT JOIN gj_d2 d2 ON f.k_big = d2.k AND d2.v LIKE 'd2_1%'
	  JOIN gj_d3 d3 ON d3.t = f.k_text AND d3.w <> f.v
	  LEFT JOIN gj_dd dd ON dd.d = f.k_date AND dd.f > f.k_f8$$);
-- skew: one key matching a thousand rows, half of which pass
SELECT * FROM check_gpujoin($$
	SELECT f.id, s.n FROM gj_fact f
	  JOIN gj_skew s ON f.k_int = s.id AND s.n % 2 = f.v % 2$$);
SELECT * FROM check_gpujoin($$
	SELECT f.id, s.n FROM gj_fact f
	  LEFT JOIN gj_skew s ON f.k_int = s.id AND s.n > 990$$);
-- empty inner
SELECT * FROM check_gpujoin($$
	SELECT f.id, e.name FROM gj_fact f
	  LEFT JOIN gj_empty e ON f.k_small = e.id AND e.name <> f.k_text$$);
-- compressed text keys (RECHECK rows joined on the CPU) read by the qual
SELECT * FROM check_gpujoin($$
	SELECT f.id, d3.w FROM gj_fact f
	  LEFT JOIN gj_d3 d3 ON d3.t = f.k_text AND length(f.k_text) > d3.w$$);
-- quals the device cannot take: checked on the CPU
SELECT * FROM check_gpujoin($$
	SELECT f.id, d1.name FROM gj_fact f
	  JOIN gj_d1 d1 ON f.k_int = d1.id AND d1.name ~ ('^d1_' || f.v % 5)$$);
SELECT * FROM check_gpujoin($$
	SELECT f.id, d1.name, d3.w FROM gj_fact f
	  LEFT JOIN gj_d1 d1 ON f.k_int = d1.id AND d1.name ~ ('^d1_' || f.v % 5)
	  LEFT JOIN gj_d3 d3 ON d3.t = f.k_text AND d3.w > f.v$$);
-- SEMI and ANTI with another clause: PostgreSQL's plan
SELECT * FROM check_gpujoin($$
	SELECT f.id FROM gj_fact f
	 WHERE EXISTS (SELECT 1 FROM gj_d1 d1 WHERE d1.id = f.k_int AND d1.name < f.k_text)$$);
SELECT * FROM check_gpujoin($$
	SELECT f.id FROM gj_fact f
	 WHERE NOT EXISTS (SELECT 1 FROM gj_d3 d3 WHERE d3.t = f.k_text AND d3.w > f.v)$$);
-- a volatile clause: PostgreSQL's plan
SELECT * FROM check_gpujoin($$
	SELECT f.id, d1.name FROM gj_fact f
	  JOIN gj_d1 d1 ON f.k_int = d1.id AND random() >= 0.0$$);

-- fused GpuPreAgg: the quals run on the device
SELECT * FROM check_fused($$
	SELECT dt.d_year, count(*) AS n, sum(f.v) AS s
	  FROM gj_fact f JOIN gpa_date dt ON f.k_int = dt.d_datekey AND dt.d_month > f.v
	 GROUP BY dt.d_year$$, 'd_year');
SELECT * FROM check_fused($$
	SELECT dt.d_year, p.p_brand, count(*) AS n, count(p.p_partkey) AS np, sum(p.p_weight) AS w
	  FROM gj_fact f
	  LEFT JOIN gpa_date dt ON f.k_int = dt.d_datekey AND dt.d_month <> 3
	  LEFT JOIN gpa_part p ON f.k_small = p.p_partkey AND (p.p_size > f.k_num OR dt.d_year IS NULL)
	 GROUP BY 1, 2$$, 'd_year, p_brand');
SELECT * FROM check_fused($$
	SELECT d3.w, count(*) AS n, sum(f.v) AS s
	  FROM gj_fact f
	  JOIN gj_d1 d1 ON f.k_int = d1.id
	  LEFT JOIN gj_d3 d3 ON d3.t = f.k_text AND d3.w < f.v + d1.id % 5
	 GROUP BY d3.w$$, 'w');

-- EXPLAIN: each depth's quals and where they run
EXPLAIN (COSTS OFF)
SELECT f.id, d1.name, d3.w FROM gj_fact f
  JOIN gj_d1 d1 ON f.k_int = d1.id AND f.v > d1.id % 13
  LEFT JOIN gj_d3 d3 ON d3.t = f.k_text AND d3.w > 0;
EXPLAIN (COSTS OFF)
SELECT f.id, d1.name FROM gj_fact f
  LEFT JOIN gj_d1 d1 ON f.k_int = d1.id AND d1.name ~ ('^d1_' || f.v % 5);
EXPLAIN (COSTS OFF)
SELECT dt.d_year, count(*) FROM gj_fact f
  JOIN gpa_date dt ON f.k_int = dt.d_datekey AND dt.d_month > f.v
 GROUP BY dt.d_year;

-- parallel plans
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT * FROM check_gpujoin($$
	SELECT f.id, d1.name, d3.w FROM gj_fact f
	  JOIN gj_d1 d1 ON f.k_int = d1.id AND f.v > d1.id % 13
	  LEFT JOIN gj_d3 d3 ON d3.t = f.k_text AND d3.w > f.v$$);
SELECT * FROM check_fused($$
	SELECT d3.w, count(*) AS n, sum(f.v) AS s
	  FROM gj_fact f
	  LEFT JOIN gj_d3 d3 ON d3.t = f.k_text AND d3.w > f.v
	 GROUP BY d3.w$$, 'w');
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
