--
-- Aggregates over DISTINCT arguments (and min, max, bool_and, bool_or
-- beside them): GpuPreAgg returns each distinct combination of the
-- grouping keys and the aggregates' arguments, and the final Agg runs the
-- aggregates as written.  NULLs, numerics equal at different scales,
-- float zeros and NaN, FILTER, HAVING, no input rows, a fused join,
-- partitions and parallel workers; aggregates over every row beside a
-- DISTINCT one.
--
SET pg_strom.regression_test_mode = on;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE da (id int, g int, x int, n numeric, f float8, t text);
INSERT INTO da
SELECT i, i % 37,
       CASE WHEN i % 11 = 0 THEN NULL ELSE (i * 7) % 500 END,
       -- 1, 1.0 and 1.00 are one value at three scales
       CASE i % 4 WHEN 0 THEN NULL WHEN 1 THEN (i % 9)::numeric
                  WHEN 2 THEN round((i % 9)::numeric, 1) ELSE round((i % 9)::numeric, 2) END,
       CASE i % 5 WHEN 0 THEN 0.0 WHEN 1 THEN -0.0 WHEN 2 THEN 'NaN' ELSE (i % 23) / 4.0 END,
       CASE WHEN i % 17 = 0 THEN NULL ELSE 'w' || (i % 61) END
  FROM generate_series(1, 40000) i;
VACUUM ANALYZE da;
-- the plan's GPU node, its keys and the aggregation above it
CREATE FUNCTION da_plan(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		IF line ~ 'Aggregate|GpuPreAgg|GPU Group Keys' THEN
			RETURN NEXT line;
		END IF;
	END LOOP;
END $$;
SELECT * FROM da_plan('SELECT g, count(DISTINCT x) FROM da GROUP BY g');
SELECT * FROM check_gpupreagg('SELECT g, count(DISTINCT x) AS c FROM da GROUP BY g', 'g');
SELECT * FROM check_gpupreagg('SELECT count(DISTINCT x) AS cx, count(DISTINCT n) AS cn, count(DISTINCT f) AS cf, count(DISTINCT t) AS ct FROM da');
SELECT * FROM check_gpupreagg('SELECT g, sum(DISTINCT x) AS s, avg(DISTINCT x) AS a, sum(DISTINCT n) AS sn, min(x) AS mi, max(t) AS mt FROM da GROUP BY g', 'g');
SELECT * FROM check_gpupreagg('SELECT x % 7 AS k, count(DISTINCT g) AS c, bool_or(g > 30) AS b FROM da GROUP BY x % 7', 'k');
SELECT * FROM check_gpupreagg('SELECT g, count(DISTINCT x) FILTER (WHERE id % 3 = 0) AS c, count(DISTINCT t) AS ct FROM da WHERE id > 1000 GROUP BY g', 'g');
SELECT * FROM check_gpupreagg('SELECT g, count(DISTINCT x) AS c FROM da GROUP BY g HAVING count(DISTINCT t) > 55', 'g');
SELECT * FROM check_gpupreagg('SELECT count(DISTINCT x) AS c, max(x) AS m FROM da WHERE id < 0');
SELECT * FROM check_gpupreagg('SELECT g, count(DISTINCT x + g) AS c, string_agg(DISTINCT t, '','' ORDER BY t) AS s FROM da WHERE g < 4 GROUP BY g', 'g');
-- many groups: every (g, x) pair is a group of its own on the device
SELECT * FROM check_gpupreagg('SELECT id % 4000 AS k, count(DISTINCT x) AS c FROM da GROUP BY id % 4000', 'k');
-- over a fused join
SELECT * FROM check_gpupreagg('SELECT d.w, count(DISTINCT a.g) AS c, min(a.x) AS m FROM da a JOIN (SELECT i AS k, i % 5 AS w FROM generate_series(0, 499) i) d ON a.x = d.k GROUP BY d.w', 'w');
SELECT * FROM check_gpupreagg('SELECT d.w, count(DISTINCT a.g) AS c, count(*) AS n, sum(a.x) AS s FROM da a JOIN (SELECT i AS k, i % 5 AS w FROM generate_series(0, 499) i) d ON a.x = d.k GROUP BY d.w', 'w');
-- an aggregate over every row beside a DISTINCT one: the device
-- accumulates it per combination of the keys and the DISTINCT arguments, a
-- Finalize Agg merges the participants' states, and a second Agg runs the
-- DISTINCT aggregates and aggregates the per-combination results again
SELECT * FROM da_plan('SELECT g, count(DISTINCT x), count(*) FROM da GROUP BY g');
SELECT * FROM check_gpupreagg('SELECT g, count(DISTINCT x) AS c, count(*) AS n FROM da GROUP BY g', 'g');
SELECT * FROM check_gpupreagg('SELECT g, count(DISTINCT x) AS c, sum(x) AS s FROM da GROUP BY g', 'g');
SELECT * FROM check_gpupreagg('SELECT g, count(DISTINCT t) AS c, count(x) AS n, sum(x) AS s, avg(x) AS a, sum(id::int8) AS s8, avg(id::int8) AS a8, sum(x * 0.25) AS sn, avg(x::numeric) AS an, sum(f) AS sf, avg(f) AS af, min(x) AS mi, max(t) AS mt, bool_or(x > 400) AS b FROM da GROUP BY g', 'g');
SELECT * FROM check_gpupreagg('SELECT count(DISTINCT x) AS c, count(*) AS n, sum(x) AS s, avg(x::numeric) AS an, sum((id % 1000)::int2) AS s2, avg(f::float4) AS a4 FROM da');
-- no rows: count 0, the others NULL
SELECT * FROM check_gpupreagg('SELECT count(DISTINCT x) AS c, count(*) AS n, sum(x) AS s, avg(x::numeric) AS an, avg(f) AS af, sum(x * 0.25) AS sn FROM da WHERE id < 0');
SELECT * FROM check_gpupreagg('SELECT g, count(*) FILTER (WHERE x > 100) AS n, avg(x) FILTER (WHERE id % 3 = 0) AS a, count(DISTINCT x) FILTER (WHERE id % 2 = 0) AS c FROM da GROUP BY g HAVING count(*) > 1000 AND sum(x) > 0', 'g');
-- the plan above finds the query's aggregates (ORDER BY, HAVING)
SELECT g, count(*), count(DISTINCT x), avg(x) FROM da GROUP BY g HAVING count(*) > 1080 ORDER BY count(*) DESC, g LIMIT 4;
SET pg_strom.enabled = off;
SELECT g, count(*), count(DISTINCT x), avg(x) FROM da GROUP BY g HAVING count(*) > 1080 ORDER BY count(*) DESC, g LIMIT 4;
RESET pg_strom.enabled;
-- min and max of text, which the device does not accumulate: their
-- arguments become keys, alone or beside other aggregates
SELECT * FROM check_gpupreagg('SELECT g, max(t) AS mt, min(t) AS nt FROM da GROUP BY g', 'g');
SELECT * FROM check_gpupreagg('SELECT g, count(*) AS n, max(t) AS mt, sum(x) AS s FROM da GROUP BY g', 'g');
-- an aggregate that cannot be aggregated again keeps the CPU's plan
SELECT * FROM check_gpupreagg('SELECT g, count(DISTINCT x) AS c, stddev(x) AS s FROM da GROUP BY g', 'g');
SELECT * FROM check_gpupreagg('SELECT g, count(DISTINCT x) AS c, string_agg(t, '','') AS s FROM da WHERE g < 0 GROUP BY g', 'g');
-- partitions, and parallel workers
CREATE TABLE dap (id int, g int, x int) PARTITION BY RANGE (id);
CREATE TABLE dap1 PARTITION OF dap FOR VALUES FROM (MINVALUE) TO (15000);
CREATE TABLE dap2 PARTITION OF dap FOR VALUES FROM (15000) TO (MAXVALUE);
INSERT INTO dap SELECT id, g, x FROM da;
VACUUM ANALYZE dap;
SELECT * FROM check_gpupreagg('SELECT g, count(DISTINCT x) AS c FROM dap GROUP BY g', 'g');
SELECT * FROM check_gpupreagg('SELECT g, count(DISTINCT x) AS c, count(*) AS n, avg(x) AS a FROM dap GROUP BY g', 'g');
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT * FROM check_gpupreagg('SELECT g, count(DISTINCT x) AS c, count(DISTINCT n) AS cn FROM da GROUP BY g', 'g');
SELECT * FROM check_gpupreagg('SELECT count(DISTINCT x) AS c FROM dap WHERE id > 20000');
SELECT * FROM check_gpupreagg('SELECT g, count(DISTINCT x) AS c, count(*) AS n, sum(x * 0.25) AS s, avg(f) AS a FROM da GROUP BY g', 'g');
SELECT * FROM check_gpupreagg('SELECT count(DISTINCT x) AS c, count(*) AS n FROM dap WHERE id > 20000');
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
DROP TABLE dap;
DROP TABLE da;
DROP FUNCTION da_plan(text);
