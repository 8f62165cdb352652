--
-- GpuScan sees exactly the rows of its snapshot, and values the device
-- cannot read (compressed or external TOAST) are evaluated on the CPU
--
SET pg_strom.regression_test_mode = on;
-- a role named like the extension's schema would put it first in the search path
SET search_path = public;
CREATE TABLE t_mvcc AS SELECT i AS id, i % 100 AS k FROM generate_series(1, 50000) i;
DELETE FROM t_mvcc WHERE id % 10 = 0;
UPDATE t_mvcc SET k = k + 1000 WHERE id % 7 = 0;
SELECT * FROM check_gpuscan($$SELECT * FROM t_mvcc WHERE k > 50$$);
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT count(*) FROM t_mvcc WHERE k > 1000;
DELETE FROM t_mvcc WHERE k > 1050;
SELECT count(*) FROM t_mvcc WHERE k > 1000;
ROLLBACK;
SELECT count(*) FROM t_mvcc WHERE k > 1000;
VACUUM FREEZE t_mvcc;
SELECT * FROM check_gpuscan($$SELECT * FROM t_mvcc WHERE k > 50$$);

CREATE TABLE t_toast (id int, t text);
ALTER TABLE t_toast ALTER COLUMN t SET STORAGE EXTERNAL;
INSERT INTO t_toast SELECT i, repeat(chr(65 + i % 26), 3000 + i) FROM generate_series(1, 200) i;
INSERT INTO t_toast SELECT i, repeat(md5(i::text), 200) FROM generate_series(201, 400) i;
ALTER TABLE t_toast ALTER COLUMN t SET STORAGE MAIN;
INSERT INTO t_toast SELECT i, repeat(chr(65 + i % 26), 5000) FROM generate_series(401, 600) i;
INSERT INTO t_toast SELECT i, chr(65 + i % 26) FROM generate_series(601, 800) i;
SELECT * FROM check_gpuscan($$SELECT id FROM t_toast WHERE t LIKE 'B%'$$);
SELECT * FROM check_gpuscan($$SELECT id, length(t) FROM t_toast WHERE t > 'M'$$);
