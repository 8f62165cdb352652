--
-- Values the device has no column for: stable expressions without columns
-- (now() - interval, current_date - n, current_setting()), evaluated once
-- when the node starts and sent to the device as constants (volatile ones
-- keep their clause on the CPU); and the text the device makes itself
-- (lower, upper, ||), in quals, grouping keys and join keys, with values
-- longer than its scratch space left to the CPU.
--
SET pg_strom.regression_test_mode = on;
SET max_parallel_workers_per_gather = 0;
SET TimeZone = 'UTC';
SET pgstrom_test.tag = 'b';
SET pgstrom_test.pattern = 'c%';
SET pgstrom_test.min_amount = '42.5';
CREATE TABLE se (id int, ts timestamptz, d date, tag text, amt int);
INSERT INTO se
SELECT i, now() - i * interval '1 minute', current_date - i / 100,
       chr(97 + i % 4) || (i % 10)::text, i % 97
  FROM generate_series(1, 5000) i;
INSERT INTO se VALUES (0, NULL, NULL, NULL, NULL);
CREATE TABLE se_tags (tag text, label text);
INSERT INTO se_tags SELECT chr(97 + i % 4) || i::text, 'l' || i FROM generate_series(0, 9) i;
VACUUM ANALYZE se;
VACUUM ANALYZE se_tags;

-- the GPU nodes of the plan, whether a Filter stayed on the CPU, then
-- whether the answers with pg_strom on and off are equal as multisets
CREATE FUNCTION se_check(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	plan text := '';
	line text;
	nodes text := '';
	diff bigint;
	n bigint;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		plan := plan || line || E'\n';
	END LOOP;
	SELECT string_agg(DISTINCT m[1], ' ' ORDER BY m[1]) INTO nodes
	  FROM regexp_matches(plan, '(Gpu[A-Za-z]+)', 'g') m;
	DROP TABLE IF EXISTS se_on, se_off;
	EXECUTE 'CREATE TEMP TABLE se_on AS ' || q;
	PERFORM set_config('pg_strom.enabled', 'off', true);
	EXECUTE 'CREATE TEMP TABLE se_off AS ' || q;
	PERFORM set_config('pg_strom.enabled', 'on', true);
	SELECT count(*) INTO diff FROM
		((SELECT t::text FROM se_on t EXCEPT ALL SELECT t::text FROM se_off t)
		 UNION ALL
		 (SELECT t::text FROM se_off t EXCEPT ALL SELECT t::text FROM se_on t)) d;
	SELECT count(*) INTO n FROM se_on;
	RETURN coalesce(nodes, 'cpu') ||
		CASE WHEN plan ~ '\n *Filter:' THEN ', CPU filter' ELSE '' END ||
		CASE WHEN n > 0 THEN ', rows' ELSE ', no rows' END || ', ' ||
		CASE WHEN diff = 0 THEN 'equal' ELSE 'DIFFERENT (' || diff || ' rows)' END;
END $$;

-- timestamps and dates relative to the statement's time
SELECT se_check('SELECT id, amt FROM se WHERE ts > now() - interval ''3 hours''');
SELECT se_check('SELECT id FROM se WHERE ts >= current_timestamp - interval ''90 minutes'' AND amt > 10');
SELECT se_check('SELECT id FROM se WHERE ts < statement_timestamp() - interval ''1 day''');
SELECT se_check('SELECT id FROM se WHERE d >= current_date - 3');
SELECT se_check('SELECT id FROM se WHERE d = (now() - interval ''2 days'')::date');
SELECT se_check('SELECT id FROM se WHERE ts >= date_trunc(''day'', now())');
SELECT se_check('SELECT id FROM se WHERE d > current_date - NULL::int');
-- settings as values and LIKE patterns
SELECT se_check('SELECT id FROM se WHERE tag LIKE current_setting(''pgstrom_test.tag'') || ''%''');
SELECT se_check('SELECT id FROM se WHERE tag LIKE current_setting(''pgstrom_test.pattern'')');
SELECT se_check('SELECT id FROM se WHERE amt > current_setting(''pgstrom_test.min_amount'')::numeric');
SELECT se_check('SELECT id FROM se WHERE amt::float8 > current_setting(''pgstrom_test.min_amount'')::float8 / 2');
-- in GpuPreAgg's quals, keys and arguments
SELECT se_check('SELECT count(*), sum(amt) FROM se WHERE ts > now() - interval ''2 hours''');
SELECT se_check('SELECT d, count(*) FROM se WHERE d >= current_date - 10 GROUP BY d');
SELECT se_check('SELECT tag, sum(amt) FROM se WHERE tag LIKE current_setting(''pgstrom_test.tag'') || ''%'' GROUP BY tag');
SELECT se_check('SELECT current_date - d AS age, count(*) FROM se GROUP BY 1');
SELECT se_check('SELECT tag, count(*) FILTER (WHERE ts > now() - interval ''1 hour'') FROM se GROUP BY tag');
-- in a GpuJoin's outer quals
SELECT se_check('SELECT t.label, count(*) FROM se JOIN se_tags t ON se.tag = t.tag WHERE se.ts > now() - interval ''4 hours'' GROUP BY t.label');
-- a prepared statement's generic plan: $1 under a stable expression
PREPARE se_prep(interval) AS SELECT count(*) FROM se WHERE ts > now() - $1;
SET plan_cache_mode = force_generic_plan;
SELECT se_check('EXECUTE se_prep(''1 hour'')');
SELECT se_check('EXECUTE se_prep(''5 hours'')');
RESET plan_cache_mode;
-- volatile: the clause stays on the CPU
SELECT se_check('SELECT id FROM se WHERE ts > clock_timestamp() - interval ''1 hour'' AND amt > 10');
SELECT se_check('SELECT count(*) FROM se WHERE ts > clock_timestamp() - interval ''1 hour''');
-- time-zone dependent on the device only with a fixed offset: the value
-- is exact under any zone
SET TimeZone = 'America/New_York';
SELECT se_check('SELECT id FROM se WHERE ts > now() - interval ''3 hours''');
SELECT se_check('SELECT id FROM se WHERE d >= current_date - 3');
RESET TimeZone;

-- lower, upper and || (the database's collation has ctype C)
CREATE TABLE tm (id int, t text, v varchar(20), c char(6));
INSERT INTO tm
SELECT i, (ARRAY['Abc', 'aBC', 'ABC', 'abc', 'Xyz', 'ÉCOLE', 'école', '', 'a-B c'])[1 + i % 9],
       (ARRAY['x', 'Y', 'xY', 'zz', NULL])[1 + i % 5],
       (ARRAY['Ab', 'aB ', 'AB', NULL])[1 + i % 4]
  FROM generate_series(1, 3000) i;
INSERT INTO tm SELECT 10000 + i, repeat('Ab', 1000 * i), 'x', 'c' FROM generate_series(1, 3) i;
INSERT INTO tm VALUES (0, NULL, NULL, NULL);
CREATE TABLE tm_keys (k text, label text);
INSERT INTO tm_keys VALUES ('abc', 'l1'), ('xyz', 'l2'), ('école', 'l3'), ('', 'l4');
VACUUM ANALYZE tm;
VACUUM ANALYZE tm_keys;
SELECT se_check('SELECT id FROM tm WHERE lower(t) = ''abc''');
SELECT se_check('SELECT id FROM tm WHERE upper(t) LIKE ''AB%'' OR upper(v) = ''XY''');
SELECT se_check('SELECT id FROM tm WHERE t || ''-'' || v = ''abc-xY''');
SELECT se_check('SELECT id FROM tm WHERE lower(c) || upper(t) = ''abABC''');
SELECT se_check('SELECT id FROM tm WHERE length(lower(t) || v) > 4 AND upper(t) <> t');
SELECT se_check('SELECT id FROM tm WHERE lower(t) LIKE ''%ab%''');
SELECT se_check('SELECT lower(t) AS k, count(*) FROM tm GROUP BY 1');
SELECT se_check('SELECT upper(t) || coalesce(v, ''?'') AS k, count(*), min(id) FROM tm GROUP BY 1');
SELECT se_check('SELECT lower(t) AS k, count(*) FROM tm WHERE id < 10000 GROUP BY 1');
SELECT se_check('SELECT k.label, count(*) FROM tm JOIN tm_keys k ON lower(tm.t) = k.k GROUP BY k.label');
SELECT se_check('SELECT count(*) FROM tm JOIN tm_keys k ON tm.t = k.k WHERE upper(tm.v) = ''XY''');

DROP FUNCTION se_check(text);
DROP TABLE se, se_tags, tm, tm_keys;
