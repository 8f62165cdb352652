--
-- GpuPreAgg fused over GpuJoin with a partitioned (or inheritance) outer
-- side: one fused GpuPreAgg per surviving leaf under an Append (a Parallel
-- Append under a Gather), the dimension tables as its inner plans, and
-- without aggregation one GpuJoin per leaf.
-- Answers compared with pg_strom on and off (check_gpupreagg of
-- 30_gpupreagg_setup): INNER and LEFT depths, two depths, plan-time
-- pruning, a partition whose columns lie in another order after a dropped
-- one, multi-level partitioning, inheritance, parallel plans.
--
SET pg_strom.regression_test_mode = on;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE jf (id int, d date, dk int, ck int, v int, price numeric(12,2))
  PARTITION BY RANGE (d);
DO $$
BEGIN
	FOR m IN 1..5 LOOP
		EXECUTE format('CREATE TABLE jf_%s PARTITION OF jf FOR VALUES FROM (%L) TO (%L)',
					   m, make_date(2024, m, 1), make_date(2024, m + 1, 1));
	END LOOP;
END $$;
CREATE TABLE jf_6 (junk int, ck int, price numeric(12,2), v int, dk int, d date, id int);
ALTER TABLE jf_6 DROP COLUMN junk;
ALTER TABLE jf ATTACH PARTITION jf_6 FOR VALUES FROM ('2024-06-01') TO ('2024-07-01');
CREATE TABLE jf_rest PARTITION OF jf DEFAULT;
INSERT INTO jf
SELECT i, date '2024-01-01' + (i % 200), i % 97, (i * 7) % 503, (i * 7919) % 1000,
       ((i * 31) % 10000) / 100.0
  FROM generate_series(1, 40000) i;
CREATE TABLE jdim (dk int, name text, cat int);
INSERT INTO jdim SELECT i, 'dim ' || i, i % 6 FROM generate_series(0, 89) i;
CREATE TABLE jcust (ck int, region text);
INSERT INTO jcust SELECT i, (ARRAY['east', 'west', 'north'])[1 + i % 3] FROM generate_series(0, 502) i;
VACUUM ANALYZE jf, jdim, jcust;

SELECT * FROM check_gpupreagg('SELECT j.cat, count(*) AS n, sum(f.v) AS s, max(f.price) AS p FROM jf f JOIN jdim j ON f.dk = j.dk GROUP BY j.cat', 'cat');
SELECT * FROM check_gpupreagg('SELECT j.cat, c.region, count(*) AS n, sum(f.price) AS s FROM jf f JOIN jdim j ON f.dk = j.dk JOIN jcust c ON f.ck = c.ck WHERE f.v > 100 GROUP BY j.cat, c.region', 'cat,region');
-- a LEFT depth: the keys 90..96 of jf.dk match no row of jdim
SELECT * FROM check_gpupreagg('SELECT j.cat, count(*) AS n, sum(f.v) AS s FROM jf f LEFT JOIN jdim j ON f.dk = j.dk GROUP BY j.cat', 'cat');
-- no aggregation key from the fact: one group
SELECT * FROM check_gpupreagg('SELECT count(*) AS n, sum(f.v) AS s, max(j.dk) AS hi FROM jf f JOIN jdim j ON f.dk = j.dk WHERE j.cat = 2');
-- pruned at plan time to June and the default
SELECT * FROM check_gpupreagg('SELECT c.region, count(*) AS n, sum(f.v) AS s FROM jf f JOIN jcust c ON f.ck = c.ck WHERE f.d >= ''2024-06-01'' GROUP BY c.region', 'region');
EXPLAIN (COSTS OFF)
SELECT j.cat, c.region, count(*), sum(f.price)
  FROM jf f JOIN jdim j ON f.dk = j.dk JOIN jcust c ON f.ck = c.ck
 WHERE f.d >= '2024-06-01'
 GROUP BY j.cat, c.region;
-- an outer qual the device cannot run: no fused GpuPreAgg, same answer
SELECT * FROM check_gpupreagg('SELECT j.cat, count(*) AS n FROM jf f JOIN jdim j ON f.dk = j.dk WHERE md5(f.d::text) <> ''x'' GROUP BY j.cat', 'cat');

-- parallel: each leaf's node run by one participant of a Parallel Append
SET max_parallel_workers_per_gather = 3;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF)
SELECT j.cat, count(*), sum(f.v) FROM jf f JOIN jdim j ON f.dk = j.dk GROUP BY j.cat;
SELECT * FROM check_gpupreagg('SELECT j.cat, c.region, count(*) AS n, sum(f.price) AS s, max(f.id) AS m FROM jf f JOIN jdim j ON f.dk = j.dk JOIN jcust c ON f.ck = c.ck GROUP BY j.cat, c.region', 'cat,region');
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- parallel with a large inner table: the leaves' nodes build its rows once,
-- the participants that come to the build each scanning a share of the
-- owner's partial inner plan (a participant's own copy would return every
-- row again)
CREATE TABLE jp (id int, d date, bk int, v int) PARTITION BY RANGE (d);
DO $$
BEGIN
	FOR m IN 1..7 LOOP
		EXECUTE format('CREATE TABLE jp_%s PARTITION OF jp FOR VALUES FROM (%L) TO (%L)',
					   m, make_date(2024, m, 1), make_date(2024, m + 1, 1));
	END LOOP;
END $$;
INSERT INTO jp SELECT i, date '2024-01-01' + (i % 200), i % 500000, i % 100
  FROM generate_series(1, 600000) i;
CREATE TABLE jbig (k int, w int);
INSERT INTO jbig SELECT i, i % 1000 FROM generate_series(1, 400000) i;
VACUUM ANALYZE jp;
VACUUM ANALYZE jbig;
SET max_parallel_workers_per_gather = 3;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF)
SELECT count(*), sum(b.w) FROM jp f JOIN jbig b ON f.bk = b.k;
SELECT * FROM check_gpupreagg('SELECT count(*) AS n, sum(b.w) AS s, sum(f.v) AS t FROM jp f JOIN jbig b ON f.bk = b.k');
SELECT * FROM check_gpupreagg('SELECT b.w % 7 AS g, count(*) AS n, sum(f.v) AS t FROM jp f JOIN jbig b ON f.bk = b.k WHERE f.v < 50 GROUP BY 1', 'g');
SELECT * FROM check_gpujoin('SELECT f.id, b.w FROM jp f JOIN jbig b ON f.bk = b.k WHERE f.v = 7');
-- rescans: the Gather over the leaves is the inner side of a nested loop
-- (a temporary table's scan stays in the leader), so its participants are
-- started again per outer row and build the inner rows again, through the
-- inner plans of the one leaf that holds them in each process
CREATE TEMP TABLE jp_g AS SELECT generate_series(1, 3) AS g;
ANALYZE jp_g;
SET enable_material = off;
EXPLAIN (COSTS OFF) SELECT g.g, s.id FROM jp_g g
  JOIN (SELECT f.id, f.v FROM jp f JOIN jbig b ON f.bk = b.k WHERE b.w = 3) s
    ON s.v < g.g * 10;
SELECT * FROM check_gpujoin('SELECT g.g, s.id FROM jp_g g JOIN (SELECT f.id, f.v FROM jp f JOIN jbig b ON f.bk = b.k WHERE b.w = 3) s ON s.v < g.g * 10');
RESET enable_material;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
DROP TABLE jp, jbig;

-- a join without aggregation: one GpuJoin per partition under an Append
-- (check_gpujoin of 40_gpujoin_setup counts the depths of all of them)
SELECT * FROM check_gpujoin('SELECT f.id, j.name, c.region FROM jf f JOIN jdim j ON f.dk = j.dk JOIN jcust c ON f.ck = c.ck WHERE f.v < 20');
SELECT * FROM check_gpujoin('SELECT f.id, j.name FROM jf f LEFT JOIN jdim j ON f.dk = j.dk WHERE f.d >= ''2024-06-20''');
EXPLAIN (COSTS OFF)
SELECT f.id, j.name FROM jf f JOIN jdim j ON f.dk = j.dk WHERE f.d >= '2024-06-20';

-- an inner side that is a subquery (planned once, so not copied under
-- each partition's node): PostgreSQL's join over the partitions' scans
SELECT * FROM check_gpujoin('SELECT f.id, s.c FROM jf f JOIN (SELECT dk, count(*) AS c FROM jdim GROUP BY dk) s ON f.dk = s.dk WHERE f.v < 50');
SELECT * FROM check_gpupreagg('SELECT s.c, count(*) AS n, sum(f.v) AS s FROM jf f JOIN (SELECT dk, count(*) AS c FROM jdim GROUP BY dk) s ON f.dk = s.dk GROUP BY s.c', 'c');
SELECT * FROM check_gpupreagg('SELECT j.cat, count(*) AS n FROM jf f JOIN jdim j ON f.dk = j.dk WHERE f.id IN (SELECT id FROM jf WHERE v < 100 GROUP BY id) GROUP BY j.cat', 'cat');

-- multi-level partitioning and an inheritance tree as the outer side
CREATE TABLE jm (id int, y int, dk int, v int) PARTITION BY RANGE (y);
CREATE TABLE jm_2023 PARTITION OF jm FOR VALUES FROM (2023) TO (2024)
  PARTITION BY HASH (id);
CREATE TABLE jm_2023_a PARTITION OF jm_2023 FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE jm_2023_b (v int, dk int, id int, y int);
ALTER TABLE jm_2023 ATTACH PARTITION jm_2023_b FOR VALUES WITH (MODULUS 2, REMAINDER 1);
CREATE TABLE jm_2024 PARTITION OF jm FOR VALUES FROM (2024) TO (2025);
INSERT INTO jm SELECT i, 2023 + i % 2, i % 89, i % 500 FROM generate_series(1, 20000) i;
CREATE TABLE ji (id int, dk int, v int);
CREATE TABLE ji_a () INHERITS (ji);
CREATE TABLE ji_b (extra text) INHERITS (ji);
INSERT INTO ji SELECT i, i % 89, i FROM generate_series(1, 5000) i;
INSERT INTO ji_a SELECT i, i % 89, i * 2 FROM generate_series(1, 5000) i;
INSERT INTO ji_b SELECT i, i % 89, i * 3, 'x' FROM generate_series(1, 5000) i;
ANALYZE jm, ji, ji_a, ji_b;
SELECT * FROM check_gpupreagg('SELECT j.cat, count(*) AS n, sum(m.v) AS s FROM jm m JOIN jdim j ON m.dk = j.dk GROUP BY j.cat', 'cat');
SELECT * FROM check_gpupreagg('SELECT j.cat, count(*) AS n, sum(i.v) AS s FROM ji i JOIN jdim j ON i.dk = j.dk GROUP BY j.cat', 'cat');
EXPLAIN (COSTS OFF)
SELECT j.cat, count(*), sum(m.v) FROM jm m JOIN jdim j ON m.dk = j.dk GROUP BY j.cat;

-- run-time pruning: in a generic plan the statement's parameters prune the
-- partitions' nodes at execution (their constraint, the ancestors'
-- included, contradicts the quals), which then run no inner plan
CREATE FUNCTION jf_pruned(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || query LOOP
		IF line ~ 'Custom Scan|Pruned' THEN
			RETURN NEXT regexp_replace(line, ' \(actual .*\)$', '');
		END IF;
	END LOOP;
END $$;
SET plan_cache_mode = force_generic_plan;
PREPARE jf_since(date) AS
  SELECT j.cat, count(*) AS n, sum(f.v) AS s FROM jf f JOIN jdim j ON f.dk = j.dk WHERE f.d >= $1 GROUP BY j.cat;
SELECT * FROM jf_pruned('EXECUTE jf_since(''2024-05-10'')');
SELECT * FROM check_gpupreagg('EXECUTE jf_since(''2024-05-10'')', 'cat');
SELECT * FROM check_gpupreagg('EXECUTE jf_since(''2024-01-01'')', 'cat');
SELECT * FROM check_gpupreagg('EXECUTE jf_since(NULL)', 'cat');
PREPARE jf_rows(date, date) AS
  SELECT f.id, j.name FROM jf f JOIN jdim j ON f.dk = j.dk WHERE f.d BETWEEN $1 AND $2;
SELECT * FROM jf_pruned('EXECUTE jf_rows(''2024-02-03'', ''2024-03-05'')');
SELECT * FROM check_gpujoin('EXECUTE jf_rows(''2024-02-03'', ''2024-03-05'')');
PREPARE jm_year(int) AS
  SELECT j.cat, count(*) AS n, sum(m.v) AS s FROM jm m JOIN jdim j ON m.dk = j.dk WHERE m.y = $1 GROUP BY j.cat;
SELECT * FROM jf_pruned('EXECUTE jm_year(2024)');
SELECT * FROM check_gpupreagg('EXECUTE jm_year(2024)', 'cat');
SELECT * FROM check_gpupreagg('EXECUTE jm_year(2023)', 'cat');
DEALLOCATE jf_since;
DEALLOCATE jf_rows;
DEALLOCATE jm_year;
RESET plan_cache_mode;

-- pruning by the inner keys: a dimension joined on the partition key whose
-- filtered rows' keys lie outside a partition's bounds excludes that
-- partition (INNER and SEMI depths; never a LEFT one)
CREATE TABLE jdate (d date, month int, dow int);
INSERT INTO jdate SELECT day, extract(month FROM day), extract(dow FROM day)
  FROM generate_series(date '2023-12-01', date '2024-12-31', interval '1 day') day;
INSERT INTO jdate VALUES (NULL, 3, NULL);
CREATE TABLE jyear (y int, label text);
INSERT INTO jyear VALUES (2024, 'this year'), (NULL, 'none');
ANALYZE jdate, jyear;
SELECT * FROM jf_pruned('SELECT count(*), sum(f.v) FROM jf f JOIN jdate t ON f.d = t.d WHERE t.month = 3');
SELECT * FROM check_gpupreagg('SELECT count(*) AS n, sum(f.v) AS s FROM jf f JOIN jdate t ON f.d = t.d WHERE t.month = 3');
SELECT * FROM check_gpupreagg('SELECT t.dow, count(*) AS n, sum(f.price) AS s FROM jf f JOIN jdate t ON f.d = t.d JOIN jdim j ON f.dk = j.dk WHERE t.month IN (2, 5) GROUP BY t.dow', 'dow');
-- December: no partition's rows, only the default's bounds admit the keys
SELECT * FROM jf_pruned('SELECT count(*) FROM jf f JOIN jdate t ON f.d = t.d WHERE t.month = 12 AND t.d > ''2024-01-01''');
SELECT * FROM check_gpupreagg('SELECT count(*) AS n FROM jf f JOIN jdate t ON f.d = t.d WHERE t.month = 12 AND t.d > ''2024-01-01''');
-- a LEFT depth keeps every partition: its rows come back null-extended
SELECT * FROM jf_pruned('SELECT count(*), count(t.d) FROM jf f LEFT JOIN jdate t ON f.d = t.d AND t.month = 3');
SELECT * FROM check_gpupreagg('SELECT count(*) AS n, count(t.d) AS m FROM jf f LEFT JOIN jdate t ON f.d = t.d AND t.month = 3');
-- a SEMI depth prunes as an INNER one; an ANTI depth never does
SELECT * FROM jf_pruned('SELECT count(*), sum(f.v) FROM jf f WHERE f.d IN (SELECT d FROM jdate WHERE month = 5)');
SELECT * FROM check_gpupreagg('SELECT count(*) AS n, sum(f.v) AS s FROM jf f WHERE f.d IN (SELECT d FROM jdate WHERE month = 5)');
SELECT * FROM check_gpupreagg('SELECT count(*) AS n, sum(f.v) AS s FROM jf f WHERE NOT EXISTS (SELECT 1 FROM jdate t WHERE t.d = f.d AND t.month = 5)');
-- rows, not aggregates: one GpuJoin per partition
SELECT * FROM check_gpujoin('SELECT f.id, t.dow FROM jf f JOIN jdate t ON f.d = t.d WHERE t.month = 4 AND t.dow = 1');
-- multi-level: the ancestors' bounds exclude both hash partitions of 2023
SELECT * FROM jf_pruned('SELECT count(*), sum(m.v) FROM jm m JOIN jyear y ON m.y = y.y');
SELECT * FROM check_gpupreagg('SELECT y.label, count(*) AS n, sum(m.v) AS s FROM jm m JOIN jyear y ON m.y = y.y GROUP BY y.label', 'label');
-- parallel: every participant decides alike
SET max_parallel_workers_per_gather = 3;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT * FROM check_gpupreagg('SELECT t.dow, count(*) AS n, sum(f.v) AS s FROM jf f JOIN jdate t ON f.d = t.d WHERE t.month = 6 GROUP BY t.dow', 'dow');
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
DROP TABLE jdate, jyear;
DROP FUNCTION jf_pruned(text);

DROP TABLE jf, jdim, jcust, jm, ji CASCADE;
