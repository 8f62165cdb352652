--
-- Columns of enum types on the device: a value is the OID of its label, so
-- equality, IN lists, IS DISTINCT FROM, grouping keys and DISTINCT
-- arguments run there; ordering (the labels' sort order, which a label
-- added BEFORE another breaks away from the OIDs'), min/max and the text
-- of a label stay on the CPU.
--
SET pg_strom.regression_test_mode = on;
SET search_path = public;
SET max_parallel_workers_per_gather = 0;
CREATE TYPE en_mood AS ENUM ('sad', 'ok', 'happy');
ALTER TYPE en_mood ADD VALUE 'meh' BEFORE 'ok';
CREATE TABLE en_fact (id int, m en_mood, v int);
INSERT INTO en_fact
SELECT i, CASE WHEN i % 17 = 0 THEN NULL ELSE (ARRAY['sad','ok','happy','meh'])[i % 4 + 1]::en_mood END, i % 100
  FROM generate_series(1, 20000) i;
VACUUM ANALYZE en_fact;
SELECT * FROM check_gpuscan($$SELECT * FROM en_fact WHERE m = 'ok' OR m IN ('meh', 'happy') AND v > 50$$);
SELECT * FROM check_gpuscan($$SELECT * FROM en_fact WHERE m <> 'sad' AND m IS DISTINCT FROM 'meh'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM en_fact WHERE NULLIF(m, 'ok') IS NULL$$);
SELECT * FROM check_gpupreagg('SELECT m, count(*) AS n, sum(v) AS s FROM en_fact GROUP BY m', 'm');
SELECT * FROM check_gpupreagg('SELECT v % 10 AS k, count(DISTINCT m) AS c, min(m) AS lo, max(m) AS hi, count(*) AS n FROM en_fact GROUP BY 1', 'k');
-- the labels' order, and their text: on the CPU
SELECT * FROM check_gpuscan($$SELECT * FROM en_fact WHERE m < 'ok'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM en_fact WHERE m::text LIKE 'm%'$$);
SELECT m, count(*) FROM en_fact GROUP BY m ORDER BY m;
DROP TABLE en_fact;
DROP TYPE en_mood;
