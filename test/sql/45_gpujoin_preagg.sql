--
-- GpuPreAgg fused over GpuJoin: the join's combinations are aggregated
-- where they are made.  check_fused(query, keys) is check_gpupreagg (the
-- results with pg_strom on and off, matched on the keys, floats within a
-- tolerance) plus the number of join depths of the GpuPreAgg node (0: not
-- fused).  Tables of 40_gpujoin_setup.sql; gj_fact's every 499th text key
-- is compressed, a RECHECK row the CPU joins and aggregates.
--
SET pg_strom.regression_test_mode = on;
SET search_path = public;
SET max_parallel_workers_per_gather = 0;
CREATE FUNCTION check_fused(query text, keys text DEFAULT '')
RETURNS TABLE (nrows bigint, missing bigint, extra bigint, differ bigint, fused_depths int)
LANGUAGE plpgsql AS $$
DECLARE
	line text;
	in_preagg bool := false;
BEGIN
	fused_depths := 0;
	PERFORM set_config('pg_strom.enabled', 'on', true);
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		IF line ~ 'Custom Scan \(GpuPreAgg\)' THEN
			in_preagg := true;
		ELSIF line ~ 'Custom Scan' THEN
			in_preagg := false;
		END IF;
		IF in_preagg AND line ~ '^\s*Depth \d: ' THEN
			fused_depths := fused_depths + 1;
		END IF;
	END LOOP;
	SELECT c.nrows, c.missing, c.extra, c.differ
	  INTO nrows, missing, extra, differ
	  FROM check_gpupreagg(query, keys) c;
	RETURN NEXT;
END
$$;

-- SSB-like dimensions: a date dimension (year), a part dimension (brand)
CREATE TABLE gpa_date (d_datekey int, d_year int, d_month int2);
INSERT INTO gpa_date SELECT i, 1992 + i / 120, (i % 12 + 1)::int2 FROM generate_series(0, 999) i;
CREATE TABLE gpa_part (p_partkey int, p_brand text, p_size numeric(6,2), p_weight float8);
INSERT INTO gpa_part SELECT i, 'MFGR#' || (i % 7), (i % 9) / 4.0, i / 8.0 FROM generate_series(0, 49) i;
INSERT INTO gpa_part VALUES (NULL, 'MFGR#null', 1, 1);
ALTER TABLE gpa_date SET (parallel_workers = 0);
ALTER TABLE gpa_part SET (parallel_workers = 0);
ANALYZE gpa_date, gpa_part;

-- one depth: keys and aggregates over inner and outer columns
SELECT * FROM check_fused($$
	SELECT dt.d_year, count(*), sum(f.v), avg(f.k_small), min(dt.d_month), max(f.k_big)
	  FROM gj_fact f JOIN gpa_date dt ON f.k_int = dt.d_datekey
	 GROUP BY dt.d_year$$, 'd_year');
-- SSB Q2-like: two depths, year and brand, revenue-like sums
SELECT * FROM check_fused($$
	SELECT dt.d_year, p.p_brand, sum(f.v) AS revenue, count(*) AS n
	  FROM gj_fact f
	  JOIN gpa_date dt ON f.k_int = dt.d_datekey
	  JOIN gpa_part p ON f.k_small = p.p_partkey
	 WHERE f.v > 2
	 GROUP BY dt.d_year, p.p_brand$$, 'd_year, p_brand');
-- aggregates of inner columns of every payload kind: numeric, float, text key
SELECT * FROM check_fused($$
	SELECT p.p_brand, sum(p.p_size) AS s1, avg(p.p_weight) AS a1, min(p.p_weight) AS m1,
	       max(p.p_size) AS m2, sum(f.k_f8 * p.p_weight) AS s2, count(p.p_partkey) AS n
	  FROM gj_fact f JOIN gpa_part p ON f.k_small = p.p_partkey
	 GROUP BY p.p_brand$$, 'p_brand');
-- LEFT depths: NULL-extended columns in keys and aggregates
SELECT * FROM check_fused($$
	SELECT d3.w, count(*) AS n, count(d3.w) AS nw, sum(d3.w) AS s, max(d1.id) AS m1, min(f.id) AS m2
	  FROM gj_fact f
	  JOIN gj_d1 d1 ON f.k_int = d1.id
	  LEFT JOIN gj_d3 d3 ON d3.t = f.k_text
	 GROUP BY d3.w$$, 'w');
SELECT * FROM check_fused($$
	SELECT d1.name IS NULL AS unmatched, d2.v, count(*) AS n, sum(f.v) AS s, avg(d1.id) AS a
	  FROM gj_fact f
	  LEFT JOIN gj_d1 d1 ON f.k_int = d1.id
	  LEFT JOIN gj_d2 d2 ON f.k_big = d2.k
	 GROUP BY 1, 2$$, 'unmatched, v');
-- three and four depths, duplicates in the inners (several combinations
-- per outer row), keys mixing outer and inner columns, a FILTER on an
-- inner column
SELECT * FROM check_fused($$
	SELECT f.k_small % 5 AS g, d4.s, count(*) AS n, sum(d1.id + f.v) AS s1,
	       count(*) FILTER (WHERE d3.w < 0) AS nneg, max(d3.w) AS m
	  FROM gj_fact f
	  JOIN gj_d1 d1 ON f.k_int = d1.id
	  JOIN gj_d3 d3 ON d3.t = f.k_text
	  LEFT JOIN gj_d4 d4 ON d4.c = f.k_char
	 GROUP BY 1, 2$$, 'g, s');
SELECT * FROM check_fused($$
	SELECT d2.v, dn.n, count(*) AS c, sum(dn.n) AS s, avg(d2.k) AS a, min(d1.id) AS m
	  FROM gj_fact f
	  LEFT JOIN gj_d1 d1 ON f.k_int = d1.id
	  JOIN gj_d2 d2 ON f.k_big = d2.k
	  LEFT JOIN gj_d3 d3 ON d3.t = f.k_text
	  LEFT JOIN gj_dn dn ON dn.n = f.k_num
	 GROUP BY d2.v, dn.n$$, 'v, n');
-- SEMI and ANTI depths under the aggregation
SELECT * FROM check_fused($$
	SELECT d1.id % 10 AS g, count(*) AS n, sum(f.v) AS s
	  FROM gj_fact f JOIN gj_d1 d1 ON f.k_int = d1.id
	 WHERE EXISTS (SELECT 1 FROM gj_d3 d3 WHERE d3.t = f.k_text)
	   AND NOT EXISTS (SELECT 1 FROM gj_d2 d2 WHERE d2.k = f.k_big)
	 GROUP BY 1$$, 'g');
-- no grouping keys; a skewed inner (1000 matches of one key)
SELECT * FROM check_fused($$
	SELECT count(*) AS c, sum(s.n) AS s, max(s.n) AS m1, min(f.id) AS m2
	  FROM gj_fact f JOIN gj_skew s ON f.k_int = s.id$$);
-- empty inners: INNER gives no group, LEFT all NULL-extended
SELECT * FROM check_fused($$
	SELECT e.name, count(*) FROM gj_fact f JOIN gj_empty e ON f.k_int = e.id GROUP BY e.name$$, 'name');
SELECT * FROM check_fused($$
	SELECT e.name, count(*) AS n, count(e.id) AS ne, sum(f.v) AS s
	  FROM gj_fact f LEFT JOIN gj_empty e ON f.k_int = e.id GROUP BY e.name$$, 'name');
-- an inner value no device slot holds: the whole node on the CPU
SELECT * FROM check_fused($$
	SELECT d3.w, count(*) FROM gj_fact f JOIN gj_d3_long d3 ON d3.t = f.k_text GROUP BY d3.w$$, 'w');
SELECT * FROM check_fused($$
	SELECT dn.label, count(*) FROM gj_fact f JOIN gj_dn_nan dn ON dn.n = f.k_num GROUP BY dn.label$$, 'label');
-- HAVING and an expression over the aggregates stay with the final Agg
SELECT * FROM check_fused($$
	SELECT dt.d_year, sum(f.v) * 2 AS s2
	  FROM gj_fact f JOIN gpa_date dt ON f.k_int = dt.d_datekey
	 GROUP BY dt.d_year HAVING count(*) > 100$$, 'd_year');
-- many groups under a tiny work_mem: the CPU's groups (RECHECK rows, CPU
-- chunks) spill to a tuplestore and come out as several partial tuples
SET work_mem = '64kB';
SELECT * FROM check_fused($$
	SELECT f.id % 20000 AS g, d3.w, count(*) AS n, sum(d1.id) AS s
	  FROM gj_fact f JOIN gj_d1 d1 ON f.k_int = d1.id LEFT JOIN gj_d3 d3 ON d3.t = f.k_text
	 GROUP BY 1, 2$$, 'g, w');
RESET work_mem;
-- rescans: a correlated subquery, its inner plan's parameter changes
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SELECT * FROM check_fused($$
	SELECT g.g, (SELECT count(*) FROM gj_fact f JOIN gj_d1 d ON f.k_int = d.id AND d.id % 4 = g.g) AS n,
	       (SELECT sum(dt.d_month) FROM gj_fact f JOIN gpa_date dt ON f.k_int = dt.d_datekey
	         WHERE f.k_small = g.g) AS s
	  FROM generate_series(0, 3) g(g)$$, 'g');
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;
-- not fused (the plain GpuJoin under PostgreSQL's Agg): an aggregate the
-- device cannot compute, a column of the join the device cannot read
SELECT * FROM check_fused($$
	SELECT dt.d_year, string_agg(d1.name, ',' ORDER BY d1.name)
	  FROM gj_fact f JOIN gpa_date dt ON f.k_int = dt.d_datekey
	  JOIN gj_d1 d1 ON f.k_int = d1.id
	 WHERE f.id < 200
	 GROUP BY dt.d_year$$, 'd_year');
SELECT * FROM check_fused($$
	SELECT d1.name ~ '_[13]' AS m, count(*)
	  FROM gj_fact f JOIN gj_d1 d1 ON f.k_int = d1.id GROUP BY 1$$, 'm');

-- parallel: 2 and 4 workers, the same answers as 0
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT * FROM check_fused($$
	SELECT dt.d_year, p.p_brand, sum(f.v) AS revenue, count(*) AS n
	  FROM gj_fact f
	  JOIN gpa_date dt ON f.k_int = dt.d_datekey
	  JOIN gpa_part p ON f.k_small = p.p_partkey
	 GROUP BY dt.d_year, p.p_brand$$, 'd_year, p_brand');
SELECT * FROM check_fused($$
	SELECT d3.w, count(*) AS n, count(d3.w) AS nw, sum(d3.w) AS s, max(d1.id) AS m
	  FROM gj_fact f
	  JOIN gj_d1 d1 ON f.k_int = d1.id
	  LEFT JOIN gj_d3 d3 ON d3.t = f.k_text
	 GROUP BY d3.w$$, 'w');
CREATE TEMP TABLE gpa_w (workers int, groups bigint, n numeric, s numeric, m int);
SET max_parallel_workers_per_gather = 0;
INSERT INTO gpa_w SELECT 0, count(*), sum(n), sum(s), max(m) FROM (
	SELECT dt.d_year, p.p_brand, count(*) n, sum(f.v + p.p_size) s, max(dt.d_month) m
	  FROM gj_fact f JOIN gpa_date dt ON f.k_int = dt.d_datekey
	  LEFT JOIN gpa_part p ON f.k_small = p.p_partkey GROUP BY 1, 2) x;
SET max_parallel_workers_per_gather = 2;
INSERT INTO gpa_w SELECT 2, count(*), sum(n), sum(s), max(m) FROM (
	SELECT dt.d_year, p.p_brand, count(*) n, sum(f.v + p.p_size) s, max(dt.d_month) m
	  FROM gj_fact f JOIN gpa_date dt ON f.k_int = dt.d_datekey
	  LEFT JOIN gpa_part p ON f.k_small = p.p_partkey GROUP BY 1, 2) x;
ALTER TABLE gj_fact SET (parallel_workers = 4);
SET max_parallel_workers_per_gather = 4;
INSERT INTO gpa_w SELECT 4, count(*), sum(n), sum(s), max(m) FROM (
	SELECT dt.d_year, p.p_brand, count(*) n, sum(f.v + p.p_size) s, max(dt.d_month) m
	  FROM gj_fact f JOIN gpa_date dt ON f.k_int = dt.d_datekey
	  LEFT JOIN gpa_part p ON f.k_small = p.p_partkey GROUP BY 1, 2) x;
ALTER TABLE gj_fact SET (parallel_workers = 2);
SELECT count(DISTINCT (groups, n, s, m)) AS answers, count(*) AS runs FROM gpa_w;
SET pg_strom.enabled = off;
SELECT count(*), sum(n), sum(s), max(m) FROM (
	SELECT dt.d_year, p.p_brand, count(*) n, sum(f.v + p.p_size) s, max(dt.d_month) m
	  FROM gj_fact f JOIN gpa_date dt ON f.k_int = dt.d_datekey
	  LEFT JOIN gpa_part p ON f.k_small = p.p_partkey GROUP BY 1, 2) x;
SELECT groups, n, s, m FROM gpa_w LIMIT 1;
SET pg_strom.enabled = on;
SET max_parallel_workers_per_gather = 0;

-- the plan
EXPLAIN (COSTS OFF) SELECT dt.d_year, p.p_brand, sum(f.v) AS revenue
  FROM gj_fact f
  JOIN gpa_date dt ON f.k_int = dt.d_datekey
  JOIN gpa_part p ON f.k_small = p.p_partkey
 WHERE f.v > 2
 GROUP BY dt.d_year, p.p_brand;
EXPLAIN (COSTS OFF) SELECT d3.w, count(*) FROM gj_fact f
  JOIN gj_d1 d1 ON f.k_int = d1.id LEFT JOIN gj_d3 d3 ON d3.t = f.k_text
 GROUP BY d3.w;
-- (explain_labels of 34_gpupreagg_explain.sql; the device's inner bytes
-- exist on one kind of machine only)
SELECT regexp_replace(l, ', GPU Bytes: N', '') AS labels
  FROM explain_labels($$SELECT dt.d_year, p.p_brand, sum(f.v)
  FROM gj_fact f JOIN gpa_date dt ON f.k_int = dt.d_datekey
  JOIN gpa_part p ON f.k_small = p.p_partkey GROUP BY 1, 2$$) l;
SET pg_strom.enable_gpupreagg = off;
EXPLAIN (COSTS OFF) SELECT dt.d_year, sum(f.v)
  FROM gj_fact f JOIN gpa_date dt ON f.k_int = dt.d_datekey GROUP BY 1;
SET pg_strom.enable_gpupreagg = on;
