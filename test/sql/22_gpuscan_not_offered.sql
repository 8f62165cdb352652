--
-- Why a relation got no GpuScan, or which of its WHERE clauses stay on the
-- CPU: DEBUG2 lines naming the relation, the clause and the reason
--
SET pg_strom.regression_test_mode = on;
SET search_path = public;
SET client_min_messages = debug2;
-- one clause on the device, one on the CPU (a function the device lacks)
EXPLAIN (COSTS OFF) SELECT id FROM t_int WHERE b > 0 AND md5(id::text) LIKE '1%';
-- no clause on the device: no GpuScan, and a line says so
EXPLAIN (COSTS OFF) SELECT * FROM t_text WHERE md5(t) = 'x';
-- date_trunc to the hour in a zone whose offsets are not whole hours
SET TimeZone = 'Asia/Kolkata';
EXPLAIN (COSTS OFF) SELECT id FROM t_datetime WHERE date_trunc('hour', tz) = tz AND d > '2000-01-01';
RESET TimeZone;
-- a volatile function
EXPLAIN (COSTS OFF) SELECT id FROM t_int WHERE a > 0 AND b > random() * 10;
-- a clause that names no column of the relation
EXPLAIN (COSTS OFF) SELECT id FROM t_int WHERE a > 0 AND current_setting('search_path') = 'public';
-- the second relation of a join: its clause is printed with its own columns
EXPLAIN (COSTS OFF) SELECT x.id FROM t_int x JOIN t_text y ON x.id = y.id
 WHERE x.a > 0 AND md5(y.t) = 'x';
-- every clause on the device: nothing to say
EXPLAIN (COSTS OFF) SELECT id FROM t_int WHERE a > 0;
RESET client_min_messages;
