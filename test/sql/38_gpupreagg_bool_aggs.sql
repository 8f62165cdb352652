--
-- bool_and, every and bool_or on the device (the minimum and maximum of
-- the argument as 0 or 1), NULLs ignored, a group of NULLs only giving
-- NULL; with FILTER, over a fused join and with parallel workers.
--
SET pg_strom.regression_test_mode = on;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE ba (id int, g int, f bool, v int);
INSERT INTO ba
SELECT i, i % 11,
       CASE WHEN i % 13 = 0 THEN NULL ELSE (i * 7919) % 17 <> 0 END,
       i % 100
  FROM generate_series(1, 30000) i;
-- group 10: f is NULL throughout; group 3: f is true throughout
UPDATE ba SET f = NULL WHERE g = 10;
UPDATE ba SET f = true WHERE g = 3;
VACUUM ANALYZE ba;
SELECT * FROM check_gpupreagg('SELECT g, bool_and(f) AS a, bool_or(f) AS o, every(v < 99) AS e, count(*) AS n FROM ba GROUP BY g', 'g');
SELECT * FROM check_gpupreagg('SELECT bool_and(f) AS a, bool_or(NOT f) AS o, bool_and(v >= 0) AS pos FROM ba');
SELECT * FROM check_gpupreagg('SELECT g, bool_or(f) FILTER (WHERE v > 90) AS o, bool_and(f) FILTER (WHERE v < 5) AS a FROM ba GROUP BY g', 'g');
SELECT * FROM check_gpupreagg('SELECT bool_and(f) AS a, bool_or(f) AS o FROM ba WHERE id < 0');
SELECT * FROM check_gpupreagg('SELECT b.g, bool_and(b.f AND d.ok) AS a, bool_or(d.ok) AS o FROM ba b JOIN (SELECT i AS k, i % 3 = 0 AS ok FROM generate_series(0, 99) i) d ON b.v = d.k GROUP BY b.g', 'g');
EXPLAIN (COSTS OFF)
SELECT g, bool_and(f), bool_or(f) FROM ba GROUP BY g;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT * FROM check_gpupreagg('SELECT g, bool_and(f) AS a, bool_or(f) AS o FROM ba GROUP BY g', 'g');
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
DROP TABLE ba;
