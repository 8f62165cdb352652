--
-- GROUPING SETS, ROLLUP and CUBE: GpuPreAgg groups by every grouping
-- column, a Finalize Agg merges the participants' states, and
-- PostgreSQL's grouping-sets Agg (its own strategy and rollups) aggregates
-- the combinations again for each set.  GROUPING(), NULL keys beside the
-- rolled-up rows, empty sets, HAVING, DISTINCT aggregates, no input rows,
-- hashed, mixed and sorted strategies, a fused join, partitions and
-- parallel workers.  The key lists name GROUPING() too: a NULL of the data
-- and a NULL of a set that does not group by the column are two rows.
--
SET pg_strom.regression_test_mode = on;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE gs (id int, a int, b text, c int2, x int, n numeric(12,2), f float8, d date);
INSERT INTO gs
SELECT i,
       CASE WHEN i % 13 = 0 THEN NULL ELSE i % 7 END,
       CASE WHEN i % 17 = 0 THEN NULL ELSE 'b' || (i % 5) END,
       (i % 3)::int2,
       CASE WHEN i % 11 = 0 THEN NULL ELSE (i * 7) % 500 END,
       CASE WHEN i % 19 = 0 THEN NULL ELSE round((i % 97) / 8.0, 2) END,
       (i % 23) / 4.0,
       date '2024-01-01' + (i % 400)
  FROM generate_series(1, 30000) i;
VACUUM ANALYZE gs;
-- the plan's GPU node, its keys and the aggregation above it
CREATE FUNCTION gs_plan(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		IF line ~ 'Aggregate|GpuPreAgg|GPU Group Keys|GPU Aggregates|Sort Key' THEN
			RETURN NEXT line;
		END IF;
	END LOOP;
END $$;
SELECT * FROM gs_plan('SELECT a, b, count(*), sum(x) FROM gs GROUP BY ROLLUP (a, b)');
SELECT * FROM check_gpupreagg('SELECT a, b, grouping(a, b) AS gr, count(*) AS n, count(x) AS nx, sum(x) AS s, avg(x) AS av, min(x) AS mi, max(d) AS md FROM gs GROUP BY ROLLUP (a, b)', 'a, b, gr');
SELECT * FROM check_gpupreagg('SELECT a, c, grouping(a, c) AS gr, sum(n) AS sn, avg(n) AS an, sum(f) AS sf, avg(f) AS af, avg(f::float4 / 3) AS a4, bool_and(x > 10) AS ba, bool_or(x > 490) AS bo FROM gs GROUP BY CUBE (a, c)', 'a, c, gr');
SELECT * FROM check_gpupreagg('SELECT a, b, grouping(a) AS ga, grouping(b) AS gb, count(*) AS n, sum(id::int8) AS s FROM gs GROUP BY GROUPING SETS ((a), (b), ())', 'a, b, ga, gb');
SELECT * FROM check_gpupreagg('SELECT a, b, c, grouping(a, b, c) AS gr, count(*) AS n FROM gs GROUP BY GROUPING SETS ((a, b), (a), (c), (b, c)) HAVING count(*) > 400', 'a, b, c, gr');
-- expressions as keys, a key in two sets, a set repeated, a WHERE clause
SELECT * FROM check_gpupreagg('SELECT x % 5 AS k, date_trunc(''month'', d::timestamp)::date AS m, grouping(x % 5, date_trunc(''month'', d::timestamp)::date) AS gr, count(*) AS n, sum(x) AS s FROM gs WHERE id > 1000 GROUP BY ROLLUP (x % 5, date_trunc(''month'', d::timestamp)::date)', 'k, m, gr');
SELECT * FROM check_gpupreagg('SELECT a, grouping(a) AS gr, count(*) AS n FROM gs GROUP BY GROUPING SETS ((a), (a), ())', 'a, gr');
SELECT * FROM check_gpupreagg('SELECT a, b, grouping(b) AS gb, count(*) AS n FROM gs GROUP BY a, ROLLUP (b)', 'a, b, gb');
-- no input rows: the empty set's row, count 0 and the others NULL
SELECT * FROM check_gpupreagg('SELECT a, grouping(a) AS gr, count(*) AS n, sum(x) AS s, avg(n) AS an FROM gs WHERE id < 0 GROUP BY ROLLUP (a)', 'a, gr');
SELECT * FROM check_gpupreagg('SELECT count(*) AS n, sum(x) AS s FROM gs WHERE id < 0 GROUP BY GROUPING SETS ((), ())');
-- DISTINCT aggregates beside the others: their arguments are keys too,
-- and the sets are sorted
SELECT * FROM gs_plan('SELECT a, b, count(DISTINCT x), count(*) FROM gs GROUP BY ROLLUP (a, b)');
SELECT * FROM check_gpupreagg('SELECT a, b, grouping(a, b) AS gr, count(DISTINCT x) AS cx, count(*) AS n, sum(x) AS s FROM gs GROUP BY ROLLUP (a, b)', 'a, b, gr');
-- sorted strategy: the rows of the Finalize Agg are sorted for the first
-- rollup, the others sort again inside the grouping-sets Agg
SET enable_hashagg = off;
SELECT * FROM gs_plan('SELECT a, c, count(*) FROM gs GROUP BY CUBE (a, c)');
SELECT * FROM check_gpupreagg('SELECT a, c, grouping(a, c) AS gr, count(*) AS n, sum(n) AS s FROM gs GROUP BY CUBE (a, c)', 'a, c, gr');
RESET enable_hashagg;
-- the plan above finds the query's aggregates and GROUPING() (ORDER BY,
-- HAVING)
SELECT a, b, grouping(a, b), count(*), sum(x) FROM gs GROUP BY ROLLUP (a, b) HAVING sum(x) > 200000 ORDER BY grouping(a, b) DESC, count(*) DESC, a, b LIMIT 6;
SET pg_strom.enabled = off;
SELECT a, b, grouping(a, b), count(*), sum(x) FROM gs GROUP BY ROLLUP (a, b) HAVING sum(x) > 200000 ORDER BY grouping(a, b) DESC, count(*) DESC, a, b LIMIT 6;
RESET pg_strom.enabled;
-- an aggregate that cannot be aggregated again keeps the CPU's plan
SELECT * FROM check_gpupreagg('SELECT a, grouping(a) AS gr, stddev(x) AS sd FROM gs GROUP BY ROLLUP (a)', 'a, gr');
SELECT * FROM check_gpupreagg('SELECT a, grouping(a) AS gr, string_agg(b, '','' ORDER BY b) AS sa FROM gs WHERE id < 100 GROUP BY ROLLUP (a)', 'a, gr');
-- over a fused join
CREATE TABLE gsd AS SELECT i AS k, i % 5 AS w, 'w' || (i % 3) AS t FROM generate_series(0, 499) i;
ANALYZE gsd;
SELECT * FROM gs_plan('SELECT d.w, g.a, count(*) FROM gs g JOIN gsd d ON g.x = d.k GROUP BY ROLLUP (d.w, g.a)');
SELECT * FROM check_gpupreagg('SELECT d.w, d.t, g.a, grouping(d.w, d.t, g.a) AS gr, count(*) AS n, sum(g.x) AS s FROM gs g JOIN gsd d ON g.x = d.k GROUP BY CUBE (d.w, d.t, g.a)', 'w, t, a, gr');
-- partitions, and parallel workers
CREATE TABLE gsp (id int, a int, b text, x int) PARTITION BY RANGE (id);
CREATE TABLE gsp1 PARTITION OF gsp FOR VALUES FROM (MINVALUE) TO (15000);
CREATE TABLE gsp2 PARTITION OF gsp FOR VALUES FROM (15000) TO (MAXVALUE);
INSERT INTO gsp SELECT id, a, b, x FROM gs;
VACUUM ANALYZE gsp;
SELECT * FROM check_gpupreagg('SELECT a, b, grouping(a, b) AS gr, count(*) AS n, sum(x) AS s FROM gsp GROUP BY CUBE (a, b)', 'a, b, gr');
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT * FROM check_gpupreagg('SELECT a, b, grouping(a, b) AS gr, count(*) AS n, sum(x) AS s, avg(n) AS an FROM gs GROUP BY ROLLUP (a, b)', 'a, b, gr');
SELECT * FROM check_gpupreagg('SELECT a, grouping(a) AS gr, count(*) AS n, max(x) AS m FROM gsp WHERE id > 20000 GROUP BY ROLLUP (a)', 'a, gr');
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
DROP TABLE gsp;
DROP TABLE gs, gsd;
DROP FUNCTION gs_plan(text);
