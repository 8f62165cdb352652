--
-- GpuPreAgg: grouping keys of every supported type with NULL keys, several
-- keys, expressions as keys, DISTINCT, and a million groups
--
SET pg_strom.regression_test_mode = on;
-- a role named like the extension's schema would put it first in the search path
SET search_path = public;
SET max_parallel_workers_per_gather = 0;
-- one key of each type (NULL keys form one group, as in PostgreSQL)
SELECT * FROM check_gpupreagg($$SELECT g2, count(*) AS v1, sum(b) AS v2 FROM t_pa GROUP BY g2$$, 'g2');
SELECT * FROM check_gpupreagg($$SELECT gb, count(*) AS v1, sum(b) AS v2 FROM t_pa GROUP BY gb$$, 'gb');
SELECT * FROM check_gpupreagg($$SELECT gt, count(*) AS v1, sum(b) AS v2, max(f8) AS v3 FROM t_pa GROUP BY gt$$, 'gt');
SELECT * FROM check_gpupreagg($$SELECT gv, count(*) AS v1, avg(c) AS v2 FROM t_pa GROUP BY gv$$, 'gv');
SELECT * FROM check_gpupreagg($$SELECT gc, count(*) AS v1, min(a) AS v2 FROM t_pa GROUP BY gc$$, 'gc');
SELECT * FROM check_gpupreagg($$SELECT gd, count(*) AS v1, sum(a) AS v2 FROM t_pa GROUP BY gd$$, 'gd');
SELECT * FROM check_gpupreagg($$SELECT gts, count(*) AS v1, sum(a) AS v2 FROM t_pa GROUP BY gts$$, 'gts');
SELECT * FROM check_gpupreagg($$SELECT gn, count(*) AS v1, sum(c) AS v2 FROM t_pa GROUP BY gn$$, 'gn');
SELECT * FROM check_gpupreagg($$SELECT c, count(*) AS v1 FROM t_pa WHERE g >= 100 GROUP BY c$$, 'c');
SELECT * FROM check_gpupreagg($$SELECT f8, count(*) AS v1 FROM t_pa WHERE g >= 100 GROUP BY f8$$, 'f8');
SELECT * FROM check_gpupreagg($$SELECT f4, count(*) AS v1 FROM t_pa WHERE g >= 100 GROUP BY f4$$, 'f4');
-- several keys, and expressions as keys
SELECT * FROM check_gpupreagg($$SELECT g, gt, gb, count(*) AS v1, sum(c) AS v2, avg(f8) AS v3 FROM t_pa GROUP BY g, gt, gb$$, 'g, gt, gb');
SELECT * FROM check_gpupreagg($$SELECT b % 7 AS k, extract(year FROM d) AS y, count(*) AS v1, sum(a) AS v2 FROM t_pa GROUP BY 1, 2$$, 'k, y');
SELECT * FROM check_gpupreagg($$SELECT substring(gt, 1, 4) AS k, length(gv) AS l, count(*) AS v1, sum(a) AS v2 FROM t_pa GROUP BY 1, 2$$, 'k, l');
SELECT * FROM check_gpupreagg($$SELECT gc::text AS k, count(*) AS v1 FROM t_pa GROUP BY 1$$, 'k');
-- keys with quals, and HAVING on a key
SELECT * FROM check_gpupreagg($$SELECT gt, count(*) AS v1, sum(c) AS v2 FROM t_pa WHERE b > 0 AND gt LIKE 'key1%' GROUP BY gt HAVING gt <> 'key10'$$, 'gt');
-- DISTINCT
SELECT * FROM check_gpupreagg($$SELECT DISTINCT gt FROM t_pa$$, 'gt');
SELECT * FROM check_gpupreagg($$SELECT DISTINCT g, gb FROM t_pa WHERE a > 0$$, 'g, gb');
-- a million groups: every row its own group
CREATE TABLE t_pa_many AS
SELECT i AS k, (i % 1000)::int4 AS v, (i % 7) / 3.0::float8 AS f FROM generate_series(1, 1000000) i;
ANALYZE t_pa_many;
SELECT * FROM check_gpupreagg($$SELECT k, count(*) AS v1, sum(v) AS v2, avg(f) AS v3 FROM t_pa_many GROUP BY k$$, 'k');
SELECT * FROM check_gpupreagg($$SELECT v, count(*) AS v1, sum(k) AS v2 FROM t_pa_many GROUP BY v$$, 'v');
-- the CPU's groups stay within hash_mem: past it they are emitted early
-- (a group may then come out twice; the final Agg combines it)
SET work_mem = '1MB';
SELECT * FROM check_gpupreagg($$SELECT k % 300000 AS k, count(*) AS v1, sum(v) AS v2, min(f) AS v3 FROM t_pa_many GROUP BY 1$$, 'k');
RESET work_mem;
-- the values, not only the agreement
SELECT gt, count(*), sum(b), min(a) FROM t_pa WHERE g < 100 GROUP BY gt ORDER BY gt NULLS FIRST;
SELECT gc, count(*) FROM t_pa GROUP BY gc ORDER BY gc NULLS FIRST;
SELECT count(*) AS groups, sum(n) AS rows FROM (SELECT k, count(*) AS n FROM t_pa_many GROUP BY k) s;
-- rescans: the grouped subquery is the inner side of a nested loop
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
EXPLAIN (COSTS OFF)
SELECT s.i, a.n FROM generate_series(1, 3) s(i)
  JOIN (SELECT g, count(*) AS n FROM t_pa WHERE b > 0 GROUP BY g) a ON a.g = s.i
 ORDER BY 1;
SELECT s.i, a.n FROM generate_series(1, 3) s(i)
  JOIN (SELECT g, count(*) AS n FROM t_pa WHERE b > 0 GROUP BY g) a ON a.g = s.i
 ORDER BY 1;
SET pg_strom.enabled = off;
SELECT s.i, a.n FROM generate_series(1, 3) s(i)
  JOIN (SELECT g, count(*) AS n FROM t_pa WHERE b > 0 GROUP BY g) a ON a.g = s.i
 ORDER BY 1;
RESET pg_strom.enabled;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;
-- a concat of text and integers as a key, made on the device
SELECT * FROM check_gpupreagg($$SELECT concat(gt, '/', g, '/', g2) AS k, count(*) AS n, sum(b) AS s FROM t_pa GROUP BY 1$$, 'k');
SELECT * FROM check_gpupreagg($$SELECT concat_ws('/', gt, g, g2) AS k, count(*) AS n, sum(b) AS s FROM t_pa GROUP BY 1$$, 'k');
