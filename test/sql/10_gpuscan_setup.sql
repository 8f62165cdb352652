--
-- GpuScan test harness.  check_gpuscan(query) runs the query with
-- pg_strom.enabled on and off, stores both results, and reports the row
-- count, the rows missing from and extra in the GPU result (EXCEPT ALL both
-- ways), and whether the plan used GpuScan.  With a GPU the device does the
-- work; without one, regression_test_mode makes the planner offer GpuScan
-- and execution takes the CPU path.  The expected output is the same.
--
-- a role named like the extension's schema would put it first in the search path
SET search_path = public;
CREATE FUNCTION check_gpuscan(query text)
RETURNS TABLE (nrows bigint, missing bigint, extra bigint, gpuscan bool)
LANGUAGE plpgsql AS $$
DECLARE
	line text;
	plan text := '';
BEGIN
	PERFORM set_config('pg_strom.enabled', 'on', true);
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		plan := plan || line || E'\n';
	END LOOP;
	gpuscan := plan LIKE '%Custom Scan (GpuScan)%';
	EXECUTE 'CREATE TEMP TABLE check_gpuscan_on AS ' || query;
	PERFORM set_config('pg_strom.enabled', 'off', true);
	EXECUTE 'CREATE TEMP TABLE check_gpuscan_off AS ' || query;
	PERFORM set_config('pg_strom.enabled', 'on', true);
	SELECT count(*) INTO nrows FROM check_gpuscan_off;
	SELECT count(*) INTO missing
	  FROM (SELECT * FROM check_gpuscan_off EXCEPT ALL SELECT * FROM check_gpuscan_on) d;
	SELECT count(*) INTO extra
	  FROM (SELECT * FROM check_gpuscan_on EXCEPT ALL SELECT * FROM check_gpuscan_off) d;
	DROP TABLE check_gpuscan_on, check_gpuscan_off;
	RETURN NEXT;
END
$$;

-- integers: extremes, zeros, NULLs, over enough rows for many pages.  Every
-- predicate in the tests finds rows on both sides of its boundary: a and b
-- wrap around their ranges, c wraps over int8 values of both signs, a run of
-- small values sits around zero (a: -4..4, b: -101..101, c: -2..2), and
-- b = a on every seventh row
CREATE TABLE t_int (id int, a int2, b int4, c int8);
INSERT INTO t_int
SELECT i,
       CASE WHEN i % 17 = 0 THEN NULL ELSE a END,
       CASE WHEN i % 19 = 0 THEN NULL
            WHEN i % 7 = 0 THEN a
            WHEN i % 13 = 0 THEN i % 203 - 101
            ELSE (i * 7919) % 200003 - 100000 END,
       CASE WHEN i % 23 = 0 THEN NULL
            WHEN i % 29 = 0 THEN i % 5 - 2
            ELSE (i::int8 * 1000003 * 7919) % 100000000007 - 50000000000 END
  FROM (SELECT i, CASE WHEN i % 11 = 0 THEN (i % 9 - 4)::int2
                       ELSE ((i * 37) % 65536 - 32768)::int2 END AS a
          FROM generate_series(1, 30000) i) s;
INSERT INTO t_int VALUES
	(-1, 32767, 2147483647, 9223372036854775807),
	(-2, -32768, -2147483648, -9223372036854775808),
	(-3, 0, 0, 0),
	(-4, NULL, NULL, NULL),
	(-5, -1, -1, -1),
	(-6, 32766, 2147483599, 9223372036854775806),
	(-7, -32767, -2147483599, -9223372036854775807);

-- floats: NaN, infinities, signed zeros, tiny and huge values; rows -100..
-- pair every special value of f4 with every special value of f8
CREATE TABLE t_float (id int, f4 float4, f8 float8);
INSERT INTO t_float
SELECT i,
       CASE WHEN i % 13 = 0 THEN NULL ELSE ((i * 7919) % 10007 - 5003) / 97.0 END,
       CASE WHEN i % 11 = 0 THEN NULL ELSE ((i * 104729) % 1000003 - 500001) / 1013.0 END
  FROM generate_series(1, 20000) i;
INSERT INTO t_float VALUES
	(-1, 'NaN', 'NaN'), (-2, 'Infinity', 'Infinity'), (-3, '-Infinity', '-Infinity'),
	(-4, '-0', '-0'), (-5, 0, 0), (-6, 1e-38, 1e-300), (-7, 3e38, 1e300),
	(-8, -3e38, -1e300), (-9, NULL, NULL), (-10, 1.5, 2.5), (-11, 2.5, 1.5);
INSERT INTO t_float
SELECT -100 - i, (v[i % 9 + 1])::float4, (v[i / 9 + 1])::float8
  FROM generate_series(0, 80) i,
       (SELECT '{NaN,Infinity,-Infinity,-0,0,1.5,2.5,-1.5,NULL}'::text[] AS v) s;

-- numeric: scales, signs, values beyond the device's 128-bit range, NaN,
-- infinities; runs of small values (n: -5..5 in quarters, m: -20.0..20.0),
-- powers of ten around 1e30, and m at the bounds tested
CREATE TABLE t_numeric (id int, n numeric, m numeric(12,2));
INSERT INTO t_numeric
SELECT i,
       CASE WHEN i % 29 = 0 THEN NULL
            WHEN i % 11 = 0 THEN ((i / 11) % 41 - 20) / 4.0
            ELSE ((i * 7919) % 100003 - 50001) / power(10::numeric, i % 7) END,
       CASE WHEN i % 31 = 0 THEN NULL
            WHEN i % 5 = 0 THEN ((i / 5) % 401 - 200) / 10.0
            ELSE round(((i * 104729) % 10000019 - 5000009) / 100.0, 2) END
  FROM generate_series(1, 20000) i;
INSERT INTO t_numeric VALUES
	(-1, 'NaN', 0), (-2, 'Infinity', 1), (-3, '-Infinity', -1),
	(-4, 123456789012345678901234567890123456789012345678901234567890, 0.01),
	(-5, -0.000000000000000000000000000000000000000000001, -0.01),
	(-6, 99999999999999999999999999999999999999, 9999999999.99),
	(-7, 0, NULL), (-8, NULL, 0),
	(-9, 'NaN', -1000.50), (-10, 'Infinity', -1000.51), (-11, '-Infinity', 1000.25), (-12, 'NaN', 1000.26),
	(-13, 1e30, 0.49), (-14, 1000000000000000000000000000000.000001, -0.50);
INSERT INTO t_numeric
SELECT -100 - i, (CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END) * power(10::numeric, 25 + i / 2) + i % 4 / 2, 0
  FROM generate_series(0, 29) i;

-- dates and timestamps: infinities, BC, leap days, ends of range; d has a
-- run of dates around 1 BC / 1 AD, and ts and tz values at and next to the
-- bounds tested
CREATE TABLE t_datetime (id int, d date, ts timestamp, tz timestamptz);
INSERT INTO t_datetime
SELECT i,
       CASE WHEN i % 37 = 0 THEN NULL
            WHEN i % 13 = 0 THEN date '0001-01-01' + ((i * 37) % 1461 - 730)
            ELSE date '2000-01-01' + ((i * 7919) % 40000 - 20000) END,
       CASE WHEN i % 41 = 0 THEN NULL
            ELSE timestamp '2000-01-01' + ((i::int8 * 104729) % 2000000000 - 1000000000) * interval '1 second' END,
       CASE WHEN i % 43 = 0 THEN NULL
            ELSE timestamptz '2000-01-01 00:00:00+00' + ((i::int8 * 15485863) % 2000000000) * interval '1 second' END
  FROM generate_series(1, 20000) i;
INSERT INTO t_datetime VALUES
	(-1, 'infinity', 'infinity', 'infinity'),
	(-2, '-infinity', '-infinity', '-infinity'),
	(-3, '4713-11-24 BC', '4713-11-24 00:00:00 BC', NULL),
	(-4, '5874897-12-31', '294276-12-31 23:59:59', NULL),
	(-5, '2000-02-29', '2000-02-29 12:34:56', '2000-02-29 12:34:56+00'),
	(-6, '0001-01-01 BC', '0001-01-01 00:00:00 BC', NULL),
	(-7, NULL, NULL, NULL),
	(-8, 'infinity', '1990-01-01 00:00:00', '2020-01-01 00:00:00+09'),
	(-9, '-infinity', '1989-12-31 23:59:59', '2019-12-31 15:00:01+00'),
	(-10, '2010-06-15', '2005-12-31 23:59:59', '2019-12-31 14:59:59+00'),
	(-11, '2010-06-16', '2006-01-01 00:00:00', '2020-01-01 00:00:00+00');

-- text: empty strings, trailing spaces, multibyte characters, LIKE
-- metacharacters; t repeats each of its values (with 0, 1 or 2 x's) and
-- rows -10.. sit next to the LIKE patterns tested
CREATE TABLE t_text (id int, t text, v varchar(20), c char(8));
INSERT INTO t_text
SELECT i,
       CASE WHEN i % 47 = 0 THEN NULL ELSE 'k' || ((i * 7919) % 1000)::text || repeat('x', i % 3) END,
       CASE WHEN i % 53 = 0 THEN NULL ELSE 'v' || ((i * 31) % 997)::text END,
       CASE WHEN i % 59 = 0 THEN NULL ELSE 'c' || (i % 89)::text END
  FROM generate_series(1, 20000) i;
INSERT INTO t_text VALUES
	(-1, '', '', ''), (-2, 'a b ', 'a b ', 'a b '), (-3, 'ä漢字', 'ä漢字', 'ä漢'),
	(-4, '100%', '100%', '100%'), (-5, 'a_b', 'a_b', 'a_b'), (-6, 'back\slash', 'x\y', 'z\'),
	(-7, NULL, NULL, NULL), (-8, 'k12', 'v12', 'c12'), (-9, 'K12', 'V12', 'C12'),
	(-10, '100', '漢', 'a b'), (-11, '1000%', 'a漢', 'a  b'), (-12, '100%x', '漢x', 'a b  x'),
	(-13, 'axb', 'ä漢字x', 'ä'), (-14, 'ä漢', 'ää漢', 'ä漢字x'), (-15, 'ä漢字x', '', ' a b');

ANALYZE t_int, t_float, t_numeric, t_datetime, t_text;
