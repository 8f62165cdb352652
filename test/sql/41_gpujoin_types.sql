--
-- GpuJoin, one depth: each join type, each kind of key, results equal to
-- PostgreSQL's as multisets
--
SET pg_strom.regression_test_mode = on;
SET search_path = public;
SET max_parallel_workers_per_gather = 0;
-- integers (int4 = int4, cross-type int4 = int2, int8 = int8)
SELECT * FROM check_gpujoin($$SELECT f.id, d.name FROM gj_fact f JOIN gj_d1 d ON f.k_int = d.id$$);
SELECT * FROM check_gpujoin($$SELECT f.id, d.name FROM gj_fact f LEFT JOIN gj_d1 d ON f.k_int = d.id$$);
SELECT * FROM check_gpujoin($$SELECT f.id, f.v FROM gj_fact f WHERE EXISTS (SELECT 1 FROM gj_d1 d WHERE d.id = f.k_int)$$);
SELECT * FROM check_gpujoin($$SELECT f.id, f.v FROM gj_fact f WHERE NOT EXISTS (SELECT 1 FROM gj_d1 d WHERE d.id = f.k_int)$$);
SELECT * FROM check_gpujoin($$SELECT f.id, d.c FROM gj_fact f JOIN gj_d4 d ON f.k_small = d.s$$);
SELECT * FROM check_gpujoin($$SELECT f.id, d.name FROM gj_fact f JOIN gj_d1 d ON f.k_small = d.id$$);
SELECT * FROM check_gpujoin($$SELECT f.id, d.v FROM gj_fact f JOIN gj_d2 d ON f.k_big = d.k$$);
SELECT * FROM check_gpujoin($$SELECT f.id, d.v FROM gj_fact f LEFT JOIN gj_d2 d ON f.k_big = d.k$$);
SELECT * FROM check_gpujoin($$SELECT f.id FROM gj_fact f WHERE NOT EXISTS (SELECT 1 FROM gj_d2 d WHERE d.k = f.k_big)$$);
-- text (with compressed outer values: RECHECK rows) and bpchar
SELECT * FROM check_gpujoin($$SELECT f.id, d.w FROM gj_fact f JOIN gj_d3 d ON f.k_text = d.t$$);
SELECT * FROM check_gpujoin($$SELECT f.id, d.w FROM gj_fact f LEFT JOIN gj_d3 d ON f.k_text = d.t$$);
SELECT * FROM check_gpujoin($$SELECT f.id FROM gj_fact f WHERE EXISTS (SELECT 1 FROM gj_d3 d WHERE d.t = f.k_text)$$);
SELECT * FROM check_gpujoin($$SELECT f.id FROM gj_fact f WHERE NOT EXISTS (SELECT 1 FROM gj_d3 d WHERE d.t = f.k_text)$$);
SELECT * FROM check_gpujoin($$SELECT f.id, d.s FROM gj_fact f JOIN gj_d4 d ON f.k_char = d.c$$);
-- numeric by value across scales, date, timestamp, float8 (-0 = 0)
SELECT * FROM check_gpujoin($$SELECT f.id, d.label FROM gj_fact f JOIN gj_dn d ON f.k_num = d.n$$);
SELECT * FROM check_gpujoin($$SELECT f.id, d.label FROM gj_fact f LEFT JOIN gj_dn d ON f.k_num = d.n$$);
SELECT * FROM check_gpujoin($$SELECT f.id, d.ts FROM gj_fact f JOIN gj_dd d ON f.k_date = d.d$$);
SELECT * FROM check_gpujoin($$SELECT f.id, d.d FROM gj_fact f JOIN gj_dd d ON f.k_ts = d.ts$$);
SELECT * FROM check_gpujoin($$SELECT f.id, d.d FROM gj_fact f JOIN gj_dd d ON f.k_f8 = d.f$$);
-- two keys in one depth, and outer quals on the device
SELECT * FROM check_gpujoin($$SELECT f.id, d.name FROM gj_fact f JOIN gj_d1 d ON f.k_int = d.id AND f.v = d.id % 13 WHERE f.id % 3 = 0$$);
SELECT * FROM check_gpujoin($$SELECT f.id, d.name FROM gj_fact f LEFT JOIN gj_d1 d ON f.k_int = d.id WHERE f.k_big > 100000000000$$);
-- an outer key expression computed on the device
SELECT * FROM check_gpujoin($$SELECT f.id, d.name FROM gj_fact f JOIN gj_d1 d ON f.k_int + 1 = d.id$$);
-- skew: a fan-out of 1000 inner rows per outer row
SELECT * FROM check_gpujoin($$SELECT f.id, s.n FROM gj_fact f JOIN gj_skew s ON f.k_int = s.id$$);
-- empty inner, empty outer
SELECT * FROM check_gpujoin($$SELECT f.id, e.name FROM gj_fact f JOIN gj_empty e ON f.k_int = e.id$$);
SELECT * FROM check_gpujoin($$SELECT f.id, e.name FROM gj_fact f LEFT JOIN gj_empty e ON f.k_int = e.id$$);
SELECT * FROM check_gpujoin($$SELECT f.id FROM gj_fact f WHERE NOT EXISTS (SELECT 1 FROM gj_empty e WHERE e.id = f.k_int)$$);
SELECT * FROM check_gpujoin($$SELECT f.id, d.c FROM gj_fact_empty f JOIN gj_d4 d ON f.k_small = d.s$$);
SELECT * FROM check_gpujoin($$SELECT f.id, d.c FROM gj_fact_empty f LEFT JOIN gj_d4 d ON f.k_small = d.s$$);
-- an inner larger than pg_strom.gpujoin_max_inner_size is not planned;
-- one that grew past it after planning makes the whole node run on the CPU
SET pg_strom.gpujoin_max_inner_size = '1kB';
EXPLAIN (COSTS OFF) SELECT f.id, d.name FROM gj_fact f JOIN gj_d1 d ON f.k_int = d.id;
RESET pg_strom.gpujoin_max_inner_size;
SET plan_cache_mode = force_generic_plan;
PREPARE gj_big AS SELECT f.id, d.name FROM gj_fact f JOIN gj_d1 d ON f.k_int = d.id;
EXPLAIN (COSTS OFF) EXECUTE gj_big;
SET pg_strom.gpujoin_max_inner_size = '1kB';
-- the reason is the size where a service runs (not here without a GPU)
DO $$
DECLARE
	line text;
	reason text := '';
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE gj_big' LOOP
		IF line ~ 'CPU Path: ' THEN
			reason := substring(line from 'CPU Path: (.*)$');
		END IF;
	END LOOP;
	IF reason !~ '^(depth 1: \d+ bytes of inner rows, above pg_strom.gpujoin_max_inner_size|service not ready: )' THEN
		RAISE EXCEPTION 'unexpected CPU path reason "%"', reason;
	END IF;
END
$$;
CREATE TEMP TABLE gj_big_on AS EXECUTE gj_big;
RESET pg_strom.gpujoin_max_inner_size;
SET pg_strom.enabled = off;
CREATE TEMP TABLE gj_big_off AS SELECT f.id, d.name FROM gj_fact f JOIN gj_d1 d ON f.k_int = d.id;
RESET pg_strom.enabled;
SELECT (SELECT count(*) FROM gj_big_off) AS nrows,
       (SELECT count(*) FROM (SELECT * FROM gj_big_off EXCEPT ALL SELECT * FROM gj_big_on) a) AS missing,
       (SELECT count(*) FROM (SELECT * FROM gj_big_on EXCEPT ALL SELECT * FROM gj_big_off) b) AS extra;
DEALLOCATE gj_big;
RESET plan_cache_mode;
-- an inner text key too long for a device slot: the whole node on the CPU
SELECT * FROM check_gpujoin($$SELECT f.id, d.w FROM gj_fact f JOIN gj_d3_long d ON f.k_text = d.t$$);
-- an inner numeric NaN: the whole node on the CPU
SELECT * FROM check_gpujoin($$SELECT f.id, d.label FROM gj_fact f LEFT JOIN gj_dn_nan d ON f.k_num = d.n$$);
