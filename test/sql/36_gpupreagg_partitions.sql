--
-- GpuPreAgg over partitioned tables and inheritance trees: one GpuPreAgg
-- per surviving leaf under an Append (Parallel Append under a Gather), the
-- final Agg above.  Answers are compared with pg_strom on and off
-- (check_gpupreagg of 30_gpupreagg_setup) for RANGE, LIST, HASH and
-- multi-level partitioning, a default partition, a partition whose columns
-- lie in another order after a dropped one, pruning at plan time and at
-- run time, old-style inheritance, and UNION ALL views.
--
SET pg_strom.regression_test_mode = on;
SET max_parallel_workers_per_gather = 0;

-- RANGE by month: eleven partitions made in place, December made apart
-- with its columns in another order after a dropped one, and a default
CREATE TABLE pt (id int, d date, g int, v int, price numeric(12,2))
  PARTITION BY RANGE (d);
DO $$
BEGIN
	FOR m IN 1..11 LOOP
		EXECUTE format('CREATE TABLE pt_%s PARTITION OF pt FOR VALUES FROM (%L) TO (%L)',
					   m, make_date(2024, m, 1), make_date(2024, m + 1, 1));
	END LOOP;
END $$;
CREATE TABLE pt_12 (junk text, price numeric(12,2), v int, g int, d date, id int);
ALTER TABLE pt_12 DROP COLUMN junk;
ALTER TABLE pt ATTACH PARTITION pt_12 FOR VALUES FROM ('2024-12-01') TO ('2025-01-01');
CREATE TABLE pt_default PARTITION OF pt DEFAULT;
INSERT INTO pt
SELECT i, date '2024-01-01' + (i % 400), i % 13, (i * 7919) % 1000,
       ((i * 31) % 10000) / 100.0
  FROM generate_series(1, 60000) i;
UPDATE pt SET v = NULL WHERE id % 211 = 0;
VACUUM ANALYZE pt;

SELECT * FROM check_gpupreagg('SELECT g, count(*) AS n, sum(v) AS s, min(d) AS dmin, max(price) AS p, avg(v) AS a FROM pt GROUP BY g', 'g');
SELECT * FROM check_gpupreagg('SELECT count(*) AS n, count(v) AS nv, sum(price) AS s, min(id) AS lo, max(id) AS hi FROM pt');
SELECT * FROM check_gpupreagg('SELECT g, sum(v) FILTER (WHERE price > 50) AS s, sum(price * 2) AS p2 FROM pt WHERE v % 7 <> 3 GROUP BY g', 'g');
-- the partition key as the grouping key
SELECT * FROM check_gpupreagg('SELECT d, count(*) AS n, sum(v) AS s FROM pt GROUP BY d', 'd');
-- pruned at plan time to one partition, to December and the default, to none
SELECT * FROM check_gpupreagg('SELECT g, count(*) AS n, sum(v) AS s FROM pt WHERE d >= ''2024-12-01'' AND d < ''2025-01-01'' GROUP BY g', 'g');
SELECT * FROM check_gpupreagg('SELECT g, count(*) AS n, sum(v) AS s FROM pt WHERE d >= ''2024-12-01'' GROUP BY g', 'g');
SELECT * FROM check_gpupreagg('SELECT count(*) AS n, sum(v) AS s FROM pt WHERE d < ''2024-03-01'' AND d >= ''2024-05-01''');
EXPLAIN (COSTS OFF)
SELECT g, count(*), sum(v) FROM pt WHERE d >= '2024-12-01' GROUP BY g;
-- with partition-wise aggregation asked for, the same plan
SET enable_partitionwise_aggregate = on;
SELECT * FROM check_gpupreagg('SELECT d, count(*) AS n, sum(v) AS s FROM pt GROUP BY d', 'd');
SELECT * FROM check_gpupreagg('SELECT g, count(*) AS n, max(price) AS p FROM pt GROUP BY g', 'g');
RESET enable_partitionwise_aggregate;

-- a WHERE clause the device cannot run keeps the whole aggregate on the CPU
SELECT * FROM check_gpupreagg('SELECT g, count(*) AS n FROM pt WHERE md5(d::text) <> ''x'' GROUP BY g', 'g');

-- run-time pruning of a generic plan: the Append removes subplans
SET plan_cache_mode = force_generic_plan;
PREPARE pt_from(date) AS
  SELECT g, count(*) AS n, sum(v) AS s FROM pt WHERE d >= $1 GROUP BY g;
EXPLAIN (COSTS OFF) EXECUTE pt_from('2024-11-15');
CREATE TEMP TABLE pt_gen AS EXECUTE pt_from('2024-11-15');
SET pg_strom.enabled = off;
CREATE TEMP TABLE pt_cpu AS
  SELECT g, count(*) AS n, sum(v) AS s FROM pt WHERE d >= '2024-11-15' GROUP BY g;
SET pg_strom.enabled = on;
SELECT count(*) AS groups,
       (SELECT count(*) FROM (TABLE pt_gen EXCEPT ALL TABLE pt_cpu) a) AS missing,
       (SELECT count(*) FROM (TABLE pt_cpu EXCEPT ALL TABLE pt_gen) b) AS extra
  FROM pt_gen;
-- a partition detached between two executions: its rows leave the answer
ALTER TABLE pt DETACH PARTITION pt_12;
DROP TABLE pt_gen, pt_cpu;
CREATE TEMP TABLE pt_gen AS EXECUTE pt_from('2024-11-15');
SET pg_strom.enabled = off;
CREATE TEMP TABLE pt_cpu AS
  SELECT g, count(*) AS n, sum(v) AS s FROM pt WHERE d >= '2024-11-15' GROUP BY g;
SET pg_strom.enabled = on;
SELECT count(*) AS groups,
       (SELECT count(*) FROM (TABLE pt_gen EXCEPT ALL TABLE pt_cpu) a) AS missing,
       (SELECT count(*) FROM (TABLE pt_cpu EXCEPT ALL TABLE pt_gen) b) AS extra
  FROM pt_gen;
ALTER TABLE pt ATTACH PARTITION pt_12 FOR VALUES FROM ('2024-12-01') TO ('2025-01-01');
DEALLOCATE pt_from;
RESET plan_cache_mode;
DROP TABLE pt_gen, pt_cpu;

-- parallel: a Parallel Append under the Gather
SET max_parallel_workers_per_gather = 4;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF)
SELECT g, count(*), sum(v) FROM pt GROUP BY g;
SELECT * FROM check_gpupreagg('SELECT g, count(*) AS n, sum(v) AS s, min(d) AS dmin, max(price) AS p FROM pt GROUP BY g', 'g');
SELECT * FROM check_gpupreagg('SELECT count(*) AS n, sum(price) AS s FROM pt WHERE d >= ''2024-06-01''');
SET enable_parallel_append = off;
SELECT * FROM check_gpupreagg('SELECT g, count(*) AS n, sum(v) AS s FROM pt GROUP BY g', 'g');
RESET enable_parallel_append;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- LIST (an unlogged partition among them), HASH, and RANGE
-- subpartitioned by HASH
CREATE TABLE pl (id int, region text, g int, v int) PARTITION BY LIST (region);
CREATE TABLE pl_e PARTITION OF pl FOR VALUES IN ('east');
CREATE TABLE pl_w PARTITION OF pl FOR VALUES IN ('west');
CREATE TABLE pl_ns PARTITION OF pl FOR VALUES IN ('north', 'south');
CREATE UNLOGGED TABLE pl_up PARTITION OF pl FOR VALUES IN ('up');
INSERT INTO pl SELECT i, (ARRAY['east', 'west', 'north', 'south', 'up'])[1 + i % 5], i % 5, i % 1000
  FROM generate_series(1, 20000) i;
CREATE TABLE ph (id int, g int, v int) PARTITION BY HASH (id);
CREATE TABLE ph_0 PARTITION OF ph FOR VALUES WITH (MODULUS 4, REMAINDER 0);
CREATE TABLE ph_1 PARTITION OF ph FOR VALUES WITH (MODULUS 4, REMAINDER 1);
CREATE TABLE ph_2 PARTITION OF ph FOR VALUES WITH (MODULUS 4, REMAINDER 2);
CREATE TABLE ph_3 PARTITION OF ph FOR VALUES WITH (MODULUS 4, REMAINDER 3);
INSERT INTO ph SELECT i, i % 9, (i * 13) % 777 FROM generate_series(1, 20000) i;
CREATE TABLE pm (id int, y int, g int, v int) PARTITION BY RANGE (y);
CREATE TABLE pm_2023 PARTITION OF pm FOR VALUES FROM (2023) TO (2024)
  PARTITION BY HASH (id);
CREATE TABLE pm_2023_a PARTITION OF pm_2023 FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE pm_2023_b (v int, g int, id int, y int);
ALTER TABLE pm_2023 ATTACH PARTITION pm_2023_b FOR VALUES WITH (MODULUS 2, REMAINDER 1);
CREATE TABLE pm_2024 PARTITION OF pm FOR VALUES FROM (2024) TO (2025);
INSERT INTO pm SELECT i, 2023 + i % 2, i % 6, i % 500 FROM generate_series(1, 20000) i;
ANALYZE pl, ph, pm;
SELECT * FROM check_gpupreagg('SELECT g, count(*) AS n, sum(v) AS s FROM pl GROUP BY g', 'g');
SELECT * FROM check_gpupreagg('SELECT g, count(*) AS n, sum(v) AS s FROM pl WHERE region IN (''north'', ''west'') GROUP BY g', 'g');
SELECT * FROM check_gpupreagg('SELECT g, count(*) AS n, sum(v) AS s, max(id) AS m FROM ph GROUP BY g', 'g');
SELECT * FROM check_gpupreagg('SELECT g, count(*) AS n, sum(v) AS s FROM pm GROUP BY g', 'g');
SELECT * FROM check_gpupreagg('SELECT y, count(*) AS n, sum(v) AS s FROM pm WHERE y = 2023 GROUP BY y', 'y');
EXPLAIN (COSTS OFF)
SELECT g, count(*), sum(v) FROM pm GROUP BY g;

-- a partition of another table access method (here the heap's handler
-- under another name, which pg_strom does not read): the whole aggregate
-- stays on the CPU
CREATE ACCESS METHOD heap_other TYPE TABLE HANDLER heap_tableam_handler;
CREATE TABLE pl_other PARTITION OF pl FOR VALUES IN ('other') USING heap_other;
INSERT INTO pl SELECT i, 'other', i % 5, i FROM generate_series(1, 500) i;
SELECT * FROM check_gpupreagg('SELECT g, count(*) AS n, sum(v) AS s FROM pl GROUP BY g', 'g');
SELECT * FROM check_gpupreagg('SELECT g, count(*) AS n, sum(v) AS s FROM pl WHERE region IN (''east'', ''west'') GROUP BY g', 'g');
DROP TABLE pl_other;
DROP ACCESS METHOD heap_other;

-- old-style inheritance: the parent's own rows and its children's, one
-- child with a column of its own
CREATE TABLE ih (id int, g int, v int);
CREATE TABLE ih_a () INHERITS (ih);
CREATE TABLE ih_b (extra text) INHERITS (ih);
INSERT INTO ih SELECT i, i % 4, i FROM generate_series(1, 5000) i;
INSERT INTO ih_a SELECT i, i % 4, i * 2 FROM generate_series(1, 5000) i;
INSERT INTO ih_b SELECT i, i % 4, i * 3, 'x' FROM generate_series(1, 5000) i;
ANALYZE ih, ih_a, ih_b;
SELECT * FROM check_gpupreagg('SELECT g, count(*) AS n, sum(v) AS s FROM ih GROUP BY g', 'g');
SELECT * FROM check_gpupreagg('SELECT g, count(*) AS n, sum(v) AS s FROM ONLY ih GROUP BY g', 'g');
EXPLAIN (COSTS OFF)
SELECT g, count(*), sum(v) FROM ih GROUP BY g;

-- UNION ALL of tables of the same shape, in a view: one GpuPreAgg per arm;
-- an arm that is not a plain table scan (a WHERE clause keeps it a
-- subquery) keeps the aggregate on the CPU
CREATE TABLE ua1 (g int, v int);
CREATE TABLE ua2 (v int, junk int, g int);
ALTER TABLE ua2 DROP COLUMN junk;
INSERT INTO ua1 SELECT i % 7, i FROM generate_series(1, 6000) i;
INSERT INTO ua2 SELECT i * 2, i % 5 FROM generate_series(1, 6000) i;
ANALYZE ua1, ua2;
CREATE VIEW uav AS
  SELECT g, v FROM ua1 UNION ALL SELECT g, v FROM ua2;
CREATE VIEW uav_where AS
  SELECT g, v FROM ua1 UNION ALL SELECT g, v FROM ua2 WHERE v > 100;
SELECT * FROM check_gpupreagg('SELECT g, count(*) AS n, sum(v) AS s, max(v) AS m FROM uav GROUP BY g', 'g');
SELECT * FROM check_gpupreagg('SELECT count(*) AS n, sum(v + g) AS s FROM uav WHERE g < 3');
SELECT * FROM check_gpupreagg('SELECT g, count(*) AS n, sum(v) AS s FROM uav_where GROUP BY g', 'g');
EXPLAIN (COSTS OFF)
SELECT g, count(*), sum(v) FROM uav GROUP BY g;

-- SELECT DISTINCT over the partitions: one GpuPreAgg without aggregates
-- per partition, PostgreSQL's HashAggregate above
SELECT * FROM check_gpupreagg('SELECT DISTINCT g, v FROM pt WHERE d >= ''2024-11-01''', 'g, v');
SELECT * FROM check_gpupreagg('SELECT DISTINCT g FROM uav', 'g');
EXPLAIN (COSTS OFF)
SELECT DISTINCT g FROM pt WHERE d >= '2024-12-01';

DROP VIEW uav, uav_where;
DROP TABLE pt, pl, ph, pm, ih, ua1, ua2 CASCADE;
