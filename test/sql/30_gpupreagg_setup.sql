--
-- GpuPreAgg test harness.  check_gpupreagg(query, keys) runs an aggregate
-- query with pg_strom.enabled on and off and compares the two results:
-- rows are matched on the key columns (a comma-separated list, '' for a
-- query without GROUP BY), every other column must be equal, floats within
-- a relative tolerance (PostgreSQL's own parallel float sums differ in the
-- last digits, and so does the device's summation order).  It reports the
-- row count, the rows whose key is missing from or extra in the GPU result,
-- the matched rows with a differing value, and whether the plan used
-- GpuPreAgg.  With a GPU the device does the work; without one,
-- regression_test_mode makes the planner offer GpuPreAgg and execution
-- takes the CPU path.  The expected output is the same.
--
-- a role named like the extension's schema would put it first in the search path
SET search_path = public;
-- sum(float4) accumulates in float4 in PostgreSQL, so its result carries
-- an error that grows with the row count: real columns get 1e-3
CREATE FUNCTION pa_close(a float8, b float8, tol float8) RETURNS bool
LANGUAGE sql IMMUTABLE AS $$
	SELECT (a IS NULL AND b IS NULL)
	    OR coalesce(a = b, false)
	    OR coalesce(abs(a - b) <= tol * greatest(abs(a), abs(b)), false)
$$;

CREATE FUNCTION check_gpupreagg(query text, keys text DEFAULT '')
RETURNS TABLE (nrows bigint, missing bigint, extra bigint, differ bigint, gpupreagg bool)
LANGUAGE plpgsql AS $$
DECLARE
	line text;
	plan text := '';
	keylist text[] := CASE WHEN keys = '' THEN '{}'::text[]
						   ELSE string_to_array(replace(keys, ' ', ''), ',') END;
	keysel text;
	nkey text := '';
	fkey text := '';
	joincond text := 'true';
	valcond text := 'true';
	col record;
BEGIN
	PERFORM set_config('pg_strom.enabled', 'on', true);
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		plan := plan || line || E'\n';
	END LOOP;
	gpupreagg := plan LIKE '%Custom Scan (GpuPreAgg)%';
	EXECUTE 'CREATE TEMP TABLE pa_on AS ' || query;
	PERFORM set_config('pg_strom.enabled', 'off', true);
	EXECUTE 'CREATE TEMP TABLE pa_off AS ' || query;
	PERFORM set_config('pg_strom.enabled', 'on', true);

	FOR col IN SELECT a.attname, a.atttypid::regtype::text AS typ
				 FROM pg_attribute a
				WHERE a.attrelid = 'pa_off'::regclass AND a.attnum > 0
				ORDER BY a.attnum LOOP
		IF col.attname = ANY (keylist) THEN
			-- equal keys as equal text, so that the join can hash
			nkey := nkey || ', ' || format(CASE WHEN col.typ IN ('real', 'double precision') THEN '(n.%1$I + 0)'
												WHEN col.typ = 'numeric' THEN 'trim_scale(n.%1$I)'
												ELSE 'n.%1$I' END, col.attname);
			fkey := fkey || ', ' || format(CASE WHEN col.typ IN ('real', 'double precision') THEN '(f.%1$I + 0)'
												WHEN col.typ = 'numeric' THEN 'trim_scale(f.%1$I)'
												ELSE 'f.%1$I' END, col.attname);
		ELSIF col.typ = 'real' THEN
			valcond := valcond || format(' AND pa_close(n.%1$I, f.%1$I, 1e-3)', col.attname);
		ELSIF col.typ = 'double precision' THEN
			valcond := valcond || format(' AND pa_close(n.%1$I, f.%1$I, 1e-9)', col.attname);
		ELSE
			valcond := valcond || format(' AND n.%1$I IS NOT DISTINCT FROM f.%1$I', col.attname);
		END IF;
	END LOOP;
	keysel := CASE WHEN keys = '' THEN '1' ELSE keys END;
	IF nkey <> '' THEN
		joincond := format('ROW(%s)::text = ROW(%s)::text', substr(nkey, 3), substr(fkey, 3));
	END IF;

	SELECT count(*) INTO nrows FROM pa_off;
	EXECUTE format('SELECT count(*) FROM (SELECT %1$s FROM pa_off EXCEPT ALL SELECT %1$s FROM pa_on) d', keysel)
		INTO missing;
	EXECUTE format('SELECT count(*) FROM (SELECT %1$s FROM pa_on EXCEPT ALL SELECT %1$s FROM pa_off) d', keysel)
		INTO extra;
	EXECUTE format('SELECT count(*) FROM pa_on n JOIN pa_off f ON %s WHERE NOT (%s)', joincond, valcond)
		INTO differ;
	DROP TABLE pa_on, pa_off;
	RETURN NEXT;
END
$$;

-- one table with every aggregate argument type, NULLs, and moderate floats
-- (sums of values that cancel in a different order would not be comparable).
-- Integers, dates and timestamps take values on both sides of zero and of
-- PostgreSQL's epoch 2000-01-01 in every group (a min/max that compared them
-- unsigned would show), and b is -1, 0 or 1 on every 43rd row, so the quals
-- b > 0 meet their boundary in every group
CREATE TABLE t_pa (
	id int, g int4, g2 int2, gb bool, gt text, gv varchar(12), gc char(6),
	gd date, gts timestamp, gn numeric,
	a int2, b int4, c int8, f4 float4, f8 float8, d date, ts timestamp, tz timestamptz
);
INSERT INTO t_pa
SELECT i,
       i % 10,
       CASE WHEN i % 101 = 0 THEN NULL ELSE (i % 7)::int2 END,
       CASE WHEN i % 3 = 0 THEN NULL ELSE i % 2 = 0 END,
       CASE WHEN i % 97 = 0 THEN NULL ELSE 'key' || (i % 13)::text || repeat('.', i % 3) END,
       CASE WHEN i % 89 = 0 THEN NULL ELSE 'v' || (i % 11)::text END,
       CASE WHEN i % 83 = 0 THEN NULL ELSE 'c' || (i % 5)::text END,
       date '2020-01-01' + (i % 17),
       timestamp '2020-01-01' + (i % 19) * interval '1 hour',
       CASE WHEN i % 79 = 0 THEN NULL ELSE ((i % 9) / 4.0)::numeric END,
       CASE WHEN i % 17 = 0 THEN NULL ELSE ((i * 37) % 65536 - 32768)::int2 END,
       CASE WHEN i % 19 = 0 THEN NULL WHEN i % 43 = 0 THEN i % 3 - 1 ELSE (i * 7919) % 2000003 - 1000000 END,
       CASE WHEN i % 23 = 0 THEN NULL ELSE (i::int8 * 1000003 * 7919) % 100000000007 - 50000000000 END,
       CASE WHEN i % 13 = 0 THEN NULL ELSE ((i * 7919) % 10007) / 97.0 END,
       CASE WHEN i % 11 = 0 THEN NULL ELSE ((i::int8 * 104729) % 1000003) / 1013.0 END,
       CASE WHEN i % 29 = 0 THEN NULL ELSE date '2000-01-01' + (i * 7919) % 40000 - 20000 END,
       CASE WHEN i % 31 = 0 THEN NULL
            ELSE timestamp '2000-01-01' + ((i::int8 * 104729) % 2000000000 - 1000000000) * interval '1 second' END,
       CASE WHEN i % 37 = 0 THEN NULL
            ELSE timestamptz '2000-01-01 00:00:00+00' + ((i::int8 * 15485863) % 2000000000 - 1000000000) * interval '1 second' END
  FROM generate_series(1, 50000) i;
-- extremes, each in a group of its own (g = 100..)
INSERT INTO t_pa (id, g, a, b, c, f4, f8) VALUES
	(-1, 100, 32767, 2147483647, 9223372036854775807, 'NaN', 'NaN'),
	(-2, 100, 32767, 2147483647, 9223372036854775807, 1, 1),
	(-3, 101, -32768, -2147483648, -9223372036854775808, 'Infinity', 'Infinity'),
	(-4, 101, -32768, -2147483648, -9223372036854775808, 2, 2),
	(-5, 102, NULL, NULL, NULL, NULL, NULL),
	(-6, 103, 0, 0, 0, '-Infinity', '-Infinity'),
	(-7, 103, 0, 0, 0, 'Infinity', 'Infinity'),
	(-8, 104, 1, 1, 1, '-0', '-0'),
	(-9, 104, 1, 1, 1, 0, 0);
-- sum(int8) beyond int8: numeric result
INSERT INTO t_pa (id, g, c)
SELECT -100 - i, 105, 9223372036854775807 FROM generate_series(1, 5) i;
-- an empty table of the same shape
CREATE TABLE t_pa_empty (LIKE t_pa);
ANALYZE t_pa, t_pa_empty;
