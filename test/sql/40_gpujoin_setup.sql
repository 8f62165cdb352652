--
-- GpuJoin test harness.  check_gpujoin(query) runs a join with
-- pg_strom.enabled on and off and compares the results as multisets
-- (EXCEPT ALL both ways): it reports the row count, the rows missing from
-- and extra in the pg_strom result, and how many GpuJoin depths the plan
-- has.  With a GPU (or the host executor) the service does the joins; without
-- one, regression_test_mode makes the planner offer GpuJoin and execution
-- takes the CPU path.  The expected output is the same.
--
-- a role named like the extension's schema would put it first in the search path
SET search_path = public;
CREATE FUNCTION check_gpujoin(query text)
RETURNS TABLE (nrows bigint, missing bigint, extra bigint, depths int)
LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	depths := 0;
	PERFORM set_config('pg_strom.enabled', 'on', true);
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		IF line ~ '^\s*Depth \d: ' THEN
			depths := depths + 1;
		END IF;
	END LOOP;
	EXECUTE 'CREATE TEMP TABLE gj_on AS ' || query;
	PERFORM set_config('pg_strom.enabled', 'off', true);
	EXECUTE 'CREATE TEMP TABLE gj_off AS ' || query;
	PERFORM set_config('pg_strom.enabled', 'on', true);
	SELECT count(*) INTO nrows FROM gj_off;
	SELECT count(*) INTO missing FROM (SELECT * FROM gj_off EXCEPT ALL SELECT * FROM gj_on) d;
	SELECT count(*) INTO extra FROM (SELECT * FROM gj_on EXCEPT ALL SELECT * FROM gj_off) d;
	DROP TABLE gj_on;
	DROP TABLE gj_off;
	RETURN NEXT;
END
$$;

-- the outer (fact) table: keys of every joinable type, NULLs every 97th
-- row, and every 499th row's text key compressed (the device cannot read
-- it: a RECHECK row joined on the CPU)
CREATE TABLE gj_fact (
	id		int,
	k_int	int,
	k_big	bigint,
	k_small	smallint,
	k_text	text,
	k_char	char(6),
	k_num	numeric,
	k_date	date,
	k_ts	timestamp,
	k_f8	float8,
	v		int
) WITH (parallel_workers = 2);
INSERT INTO gj_fact
SELECT i,
	   CASE WHEN i % 97 = 0 THEN NULL ELSE i % 1000 END,
	   CASE WHEN i % 89 = 0 THEN NULL ELSE (i % 300)::bigint * 1000000000 END,
	   (i % 50)::smallint,
	   CASE WHEN i % 499 = 0 THEN repeat('t' || (i % 40), 3000)
			WHEN i % 83 = 0 THEN NULL
			ELSE 't' || (i % 40) END,
	   'c' || (i % 30),
	   CASE WHEN i % 79 = 0 THEN NULL ELSE (i % 25) / 4.0 END,
	   date '2020-01-01' + (i % 400),
	   timestamp '2020-01-01 00:00' + (i % 200) * interval '1 hour',
	   CASE WHEN i % 7 = 0 THEN -0.0::float8 ELSE (i % 20) / 2.0 END,
	   i % 13
  FROM generate_series(1, 60000) i;
ANALYZE gj_fact;

-- inner tables: duplicates, NULL keys, keys that match nothing
CREATE TABLE gj_d1 (id int, name text);
INSERT INTO gj_d1 SELECT i, 'd1_' || i FROM generate_series(0, 799) i;
INSERT INTO gj_d1 SELECT i, 'd1_dup_' || i FROM generate_series(0, 799, 7) i;
INSERT INTO gj_d1 VALUES (NULL, 'd1_null'), (5000, 'd1_nomatch');
CREATE TABLE gj_d2 (k bigint, v text);
INSERT INTO gj_d2 SELECT i::bigint * 1000000000, 'd2_' || i FROM generate_series(0, 250) i;
INSERT INTO gj_d2 VALUES (NULL, 'd2_null');
CREATE TABLE gj_d3 (t text, w int);
INSERT INTO gj_d3 SELECT 't' || i, i FROM generate_series(0, 30) i;
INSERT INTO gj_d3 SELECT 't' || i, -i FROM generate_series(0, 30, 3) i;
INSERT INTO gj_d3 VALUES (NULL, -1);
-- one inner text key longer than a device slot (the node runs on the CPU)
CREATE TABLE gj_d3_long AS SELECT * FROM gj_d3;
INSERT INTO gj_d3_long VALUES (repeat('t1', 3000), 99);
CREATE TABLE gj_d4 (c char(6), s int2);
INSERT INTO gj_d4 SELECT 'c' || i, i::int2 FROM generate_series(0, 20) i;
-- numeric keys at other scales (1.5 = 1.50), dates, timestamps, floats
CREATE TABLE gj_dn (n numeric(10,2), label text);
INSERT INTO gj_dn SELECT i / 4.0, 'n_' || i FROM generate_series(0, 20) i;
INSERT INTO gj_dn VALUES (NULL, 'n_null');
-- a numeric NaN, which no device slot holds (the node runs on the CPU)
CREATE TABLE gj_dn_nan AS SELECT * FROM gj_dn;
INSERT INTO gj_dn_nan VALUES ('NaN', 'n_nan');
CREATE TABLE gj_dd (d date, ts timestamp, f float8);
INSERT INTO gj_dd SELECT date '2020-01-01' + i * 3, timestamp '2020-01-01 00:00' + i * interval '5 hours', i / 2.0
  FROM generate_series(0, 100) i;
INSERT INTO gj_dd VALUES (NULL, NULL, 0.0::float8);
-- skew: key 1 matches 1000 inner rows; the 60 outer rows with k_int = 1
-- make 60,000 records of one chunk, more than one reply of some services
CREATE TABLE gj_skew (id int, n int);
INSERT INTO gj_skew SELECT 1, i FROM generate_series(1, 1000) i;
INSERT INTO gj_skew SELECT i, i FROM generate_series(2, 50) i;
CREATE TABLE gj_empty (id int, name text);
CREATE TABLE gj_fact_empty (LIKE gj_fact);
-- the inner tables are read whole: no parallel scans of them, so that a
-- parallel plan is a Gather over GpuJoin
DO $$
DECLARE r text;
BEGIN
	FOREACH r IN ARRAY ARRAY['gj_d1', 'gj_d2', 'gj_d3', 'gj_d3_long', 'gj_d4', 'gj_dn', 'gj_dn_nan', 'gj_dd', 'gj_skew', 'gj_empty'] LOOP
		EXECUTE format('ALTER TABLE %I SET (parallel_workers = 0)', r);
	END LOOP;
END
$$;
ANALYZE gj_d1, gj_d2, gj_d3, gj_d3_long, gj_d4, gj_dn, gj_dn_nan, gj_dd, gj_skew, gj_empty;
-- gj_fact_empty is never analyzed: the planner takes it for a few pages
