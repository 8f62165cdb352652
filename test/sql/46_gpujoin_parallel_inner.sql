--
-- Parallel GpuJoin over partial inner plans: every participant runs each
-- depth's partial inner plan (a Parallel Seq Scan with its filter, a
-- parallel GpuScan) and loads its share into the one shared copy of the
-- inner rows.  The answers are PostgreSQL's for INNER, LEFT, SEMI and ANTI
-- depths, 1 to 4 of them, with 0, 2 and 4 workers; EXPLAIN shows the
-- partial inner and, with ANALYZE, the real inner rows of all shares; an
-- error in one participant's share fails the query and nothing waits for
-- ever.
--
SET pg_strom.regression_test_mode = on;
SET search_path = public;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET statement_timeout = '300s';
CREATE TABLE pi_fact (id int, k1 int, k2 bigint, k3 text, k4 int, v int)
	WITH (parallel_workers = 4);
INSERT INTO pi_fact
SELECT i, CASE WHEN i % 101 = 0 THEN NULL ELSE (i * 7) % 30011 END,
       (i % 5003)::bigint, 'k' || (i % 997), i % 211, i % 1000
  FROM generate_series(1, 120000) i;
-- duplicates of 1 key in 97 and a NULL key among the inner rows
CREATE TABLE pi_d1 (id int, name text, w int) WITH (parallel_workers = 4);
INSERT INTO pi_d1 SELECT i, 'd1 ' || i, i % 10 FROM generate_series(1, 30000) i;
INSERT INTO pi_d1 SELECT i, 'dup ' || i, 99 FROM generate_series(1, 30000, 97) i;
INSERT INTO pi_d1 VALUES (NULL, 'null key', 5);
CREATE TABLE pi_d2 (k bigint, x int) WITH (parallel_workers = 2);
INSERT INTO pi_d2 SELECT i, i * 3 FROM generate_series(0, 5002, 2) i;
CREATE TABLE pi_d3 (t text, y int) WITH (parallel_workers = 2);
INSERT INTO pi_d3 SELECT 'k' || i, i FROM generate_series(0, 1500, 3) i;
CREATE TABLE pi_d4 (c int, z text) WITH (parallel_workers = 2);
INSERT INTO pi_d4 SELECT i % 150, 'z' || i FROM generate_series(1, 300) i;
-- a numeric NaN (no device slot holds it) amid many pages: only the
-- participant that scans it sees it, and every one must take the CPU path
CREATE TABLE pi_dn (n numeric, label text) WITH (parallel_workers = 4);
INSERT INTO pi_dn SELECT i / 4.0, 'n ' || i FROM generate_series(0, 12000) i;
INSERT INTO pi_dn VALUES ('NaN', 'nan');
INSERT INTO pi_dn SELECT i / 4.0, 'm ' || i FROM generate_series(12001, 24000) i;
ALTER TABLE pi_fact ADD COLUMN kn numeric;
UPDATE pi_fact SET kn = (id % 7001) / 2.0;
VACUUM ANALYZE pi_fact, pi_d1, pi_d2, pi_d3, pi_d4, pi_dn;

-- check_gpujoin (40_gpujoin_setup) with 0, 2 and 4 workers, and how many
-- of the plan's inner plans are partial
CREATE FUNCTION pi_check(query text)
RETURNS TABLE (workers int, nrows bigint, missing bigint, extra bigint,
			   depths int, partial_inners int)
LANGUAGE plpgsql AS $$
DECLARE
	line text;
	c record;
BEGIN
	FOREACH workers IN ARRAY ARRAY[0, 2, 4] LOOP
		PERFORM set_config('max_parallel_workers_per_gather', workers::text, true);
		partial_inners := 0;
		FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
			IF line ~ '->  Parallel (Seq Scan|Custom Scan \(GpuScan\)) on pi_d' THEN
				partial_inners := partial_inners + 1;
			END IF;
		END LOOP;
		SELECT * INTO c FROM check_gpujoin(query);
		nrows := c.nrows;
		missing := c.missing;
		extra := c.extra;
		depths := c.depths;
		RETURN NEXT;
	END LOOP;
END
$$;

-- the Inner Rows of EXPLAIN ANALYZE against the real count of each depth's
-- inner rows, and whether the depth was built in parallel
CREATE FUNCTION pi_inner_rows(query text, counts text[])
RETURNS TABLE (depth int, inner_rows bigint, real_rows bigint, parallel_build bool)
LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || query LOOP
		IF line ~ '^\s*Depth \d: ' THEN
			depth := substring(line FROM 'Depth (\d):')::int;
			inner_rows := substring(line FROM 'Inner Rows: (\d+)')::bigint;
			EXECUTE counts[depth] INTO real_rows;
			parallel_build := line ~ 'Inner Build: parallel, [1-9]\d* participants?';
			RETURN NEXT;
		END IF;
	END LOOP;
END
$$;

-- 1 to 4 depths, each join type, the inner filters run by the participants
SELECT * FROM pi_check($$
	SELECT f.id, d1.name FROM pi_fact f JOIN pi_d1 d1 ON f.k1 = d1.id WHERE d1.w < 5$$);
SELECT * FROM pi_check($$
	SELECT f.id, d1.name FROM pi_fact f LEFT JOIN pi_d1 d1 ON f.k1 = d1.id AND d1.w <> 3$$);
SELECT * FROM pi_check($$
	SELECT f.id FROM pi_fact f WHERE f.k2 IN (SELECT k FROM pi_d2 WHERE x % 4 = 0)$$);
SELECT * FROM pi_check($$
	SELECT f.id FROM pi_fact f WHERE NOT EXISTS (SELECT 1 FROM pi_d3 d WHERE d.t = f.k3)$$);
SELECT * FROM pi_check($$
	SELECT f.id, d1.name, d2.x FROM pi_fact f
	  JOIN pi_d1 d1 ON f.k1 = d1.id
	  LEFT JOIN pi_d2 d2 ON f.k2 = d2.k$$);
SELECT * FROM pi_check($$
	SELECT f.id, d1.w, d2.x, d3.y FROM pi_fact f
	  JOIN pi_d1 d1 ON f.k1 = d1.id
	  JOIN pi_d2 d2 ON f.k2 = d2.k
	  LEFT JOIN pi_d3 d3 ON f.k3 = d3.t
	 WHERE d1.w IN (1, 2, 99)$$);
SELECT * FROM pi_check($$
	SELECT f.id, d1.name, d3.y FROM pi_fact f
	  LEFT JOIN pi_d1 d1 ON f.k1 = d1.id
	  JOIN pi_d3 d3 ON f.k3 = d3.t
	  LEFT JOIN pi_d2 d2 ON f.k2 = d2.k
	 WHERE f.k4 IN (SELECT c FROM pi_d4 WHERE z LIKE 'z1%')$$);
SELECT * FROM pi_check($$
	SELECT f.id, d1.name FROM pi_fact f
	  JOIN pi_d1 d1 ON f.k1 = d1.id
	 WHERE NOT EXISTS (SELECT 1 FROM pi_d2 d2 WHERE d2.k = f.k2)
	   AND EXISTS (SELECT 1 FROM pi_d4 d4 WHERE d4.c = f.k4)
	   AND NOT EXISTS (SELECT 1 FROM pi_d3 d3 WHERE d3.t = f.k3)$$);
SELECT * FROM pi_check($$
	SELECT f.id, d.label FROM pi_fact f LEFT JOIN pi_dn d ON f.kn = d.n$$);
SELECT * FROM pi_check($$
	SELECT f.id, d.label FROM pi_fact f JOIN pi_dn d ON f.kn = d.n WHERE d.label <> 'nan'$$);
-- the fused GpuPreAgg over partial inners
SELECT * FROM pi_check($$
	SELECT d3.y % 5 AS g, count(*), sum(d1.w) FROM pi_fact f
	  JOIN pi_d1 d1 ON f.k1 = d1.id
	  LEFT JOIN pi_d3 d3 ON f.k3 = d3.t
	 WHERE f.k4 IN (SELECT c FROM pi_d4) GROUP BY 1$$);

-- EXPLAIN: the partial inner plans under the parallel GpuJoin, and the
-- inner rows of all participants' shares in the leader's EXPLAIN ANALYZE
SET max_parallel_workers_per_gather = 4;
SET pg_strom.enable_gpuscan = off;
EXPLAIN (COSTS OFF) SELECT f.id, d1.name, d2.x FROM pi_fact f
  JOIN pi_d1 d1 ON f.k1 = d1.id JOIN pi_d2 d2 ON f.k2 = d2.k WHERE d1.w < 5;
SELECT * FROM pi_inner_rows($$SELECT f.id, d1.name, d2.x FROM pi_fact f
	  JOIN pi_d1 d1 ON f.k1 = d1.id JOIN pi_d2 d2 ON f.k2 = d2.k WHERE d1.w < 5$$,
	ARRAY['SELECT count(*) FROM pi_d1 WHERE w < 5', 'SELECT count(*) FROM pi_d2']);
-- the leader does not take part: the workers build it
SET parallel_leader_participation = off;
SELECT * FROM pi_inner_rows($$SELECT f.id, d1.name FROM pi_fact f
	  LEFT JOIN pi_d1 d1 ON f.k1 = d1.id AND d1.w <> 3$$,
	ARRAY['SELECT count(*) FROM pi_d1 WHERE w <> 3']);
RESET parallel_leader_participation;
-- a relation without a partial path keeps the serial inner (one runs it)
ALTER TABLE pi_d2 SET (parallel_workers = 0);
EXPLAIN (COSTS OFF) SELECT f.id, d1.name, d2.x FROM pi_fact f
  JOIN pi_d1 d1 ON f.k1 = d1.id JOIN pi_d2 d2 ON f.k2 = d2.k WHERE d1.w < 5;
SELECT * FROM pi_check($$SELECT f.id, d1.name, d2.x FROM pi_fact f
	  JOIN pi_d1 d1 ON f.k1 = d1.id JOIN pi_d2 d2 ON f.k2 = d2.k WHERE d1.w < 5$$);
ALTER TABLE pi_d2 SET (parallel_workers = 2);

-- rescans: the Gather over the GpuJoin is the inner side of a nested loop
-- (a temporary table's scan stays in the leader), so its participants are
-- started again per outer row and build the inner rows again
CREATE TEMP TABLE pi_g AS SELECT generate_series(1, 3) AS g;
ANALYZE pi_g;
SET enable_material = off;
SET max_parallel_workers_per_gather = 4;
EXPLAIN (COSTS OFF) SELECT g.g, s.id FROM pi_g g
  JOIN (SELECT f.id, f.v FROM pi_fact f JOIN pi_d1 d1 ON f.k1 = d1.id WHERE d1.w = 3) s
    ON s.v < g.g * 10;
SELECT * FROM pi_check($$SELECT g.g, s.id FROM pi_g g
	  JOIN (SELECT f.id, f.v FROM pi_fact f JOIN pi_d1 d1 ON f.k1 = d1.id WHERE d1.w = 3) s
	    ON s.v < g.g * 10$$);
RESET enable_material;

-- the size limit applies to all shares together, in every participant:
-- the whole node on the CPU, the answer PostgreSQL's
SET max_parallel_workers_per_gather = 4;
SET plan_cache_mode = force_generic_plan;
PREPARE pi_big AS SELECT f.id, d1.name FROM pi_fact f JOIN pi_d1 d1 ON f.k1 = d1.id;
EXPLAIN (COSTS OFF) EXECUTE pi_big;
SET pg_strom.gpujoin_max_inner_size = '64kB';
DO $$
DECLARE
	line text;
	reason text := '';
	hash text := '';
	partial bool := false;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE pi_big' LOOP
		IF line ~ 'CPU Path: ' THEN
			reason := substring(line from 'CPU Path: (.*)$');
		END IF;
		IF line ~ 'Depth 1: ' THEN
			hash := coalesce(substring(line from 'CPU Hash: ([^,]*)'), '');
		END IF;
		partial := partial OR line ~ 'Parallel Seq Scan on pi_d1';
	END LOOP;
	IF NOT partial OR
	   reason !~ '^(depth 1: \d+ bytes of inner rows, above pg_strom.gpujoin_max_inner_size|service not ready: )' THEN
		RAISE EXCEPTION 'unexpected plan or CPU path reason "%"', reason;
	END IF;
	-- the participants join on the CPU against one hash index of the rows
	IF hash !~ '^shared by \d+ participants?$' THEN
		RAISE EXCEPTION 'unexpected CPU hash "%"', hash;
	END IF;
END
$$;
CREATE TEMP TABLE pi_big_on AS EXECUTE pi_big;
RESET pg_strom.gpujoin_max_inner_size;
SET pg_strom.enabled = off;
CREATE TEMP TABLE pi_big_off AS SELECT f.id, d1.name FROM pi_fact f JOIN pi_d1 d1 ON f.k1 = d1.id;
RESET pg_strom.enabled;
SELECT (SELECT count(*) FROM pi_big_off) AS nrows,
       (SELECT count(*) FROM (SELECT * FROM pi_big_off EXCEPT ALL SELECT * FROM pi_big_on) a) AS missing,
       (SELECT count(*) FROM (SELECT * FROM pi_big_on EXCEPT ALL SELECT * FROM pi_big_off) b) AS extra;
DEALLOCATE pi_big;
RESET plan_cache_mode;

-- a division by zero in the inner plan's filter, hit by the one participant
-- that scans its row: the query fails, no participant waits for ever
-- (statement_timeout above would turn a hang into a different error)
\set VERBOSITY terse
EXPLAIN (COSTS OFF) SELECT count(*) FROM pi_fact f JOIN pi_d1 d1 ON f.k1 = d1.id
 WHERE d1.w / (d1.id - 20000) >= 0;
SELECT count(*) FROM pi_fact f JOIN pi_d1 d1 ON f.k1 = d1.id
 WHERE d1.w / (d1.id - 20000) >= 0;
SELECT count(*) FROM pi_fact f JOIN pi_d1 d1 ON f.k1 = d1.id
 WHERE d1.w / (d1.id - 7) >= 0;
-- only workers build: one raises, the others are waiting at the barrier
SET parallel_leader_participation = off;
SELECT count(*) FROM pi_fact f JOIN pi_d1 d1 ON f.k1 = d1.id
 WHERE d1.w / (d1.id - 20000) >= 0;
RESET parallel_leader_participation;
\set VERBOSITY default
-- and the next query runs as ever
SELECT * FROM pi_check($$
	SELECT f.id, d1.name FROM pi_fact f JOIN pi_d1 d1 ON f.k1 = d1.id WHERE d1.w < 5$$);

RESET pg_strom.enable_gpuscan;
RESET max_parallel_workers_per_gather;
RESET statement_timeout;
DROP TABLE pi_fact, pi_d1, pi_d2, pi_d3, pi_d4, pi_dn;
DROP FUNCTION pi_check(text);
DROP FUNCTION pi_inner_rows(text, text[]);
