--
-- EXPLAIN shapes of GpuScan (COSTS OFF output is the same with or without
-- a GPU)
--
SET pg_strom.regression_test_mode = on;
-- a role named like the extension's schema would put it first in the search path
SET search_path = public;
EXPLAIN (COSTS OFF) SELECT id FROM t_int WHERE a > 0 AND b < 100;
-- a qual the device cannot run stays a CPU Filter above the device quals
EXPLAIN (COSTS OFF) SELECT id FROM t_int WHERE b > 0 AND md5(id::text) LIKE '1%';
EXPLAIN (COSTS OFF, VERBOSE) SELECT id, c FROM t_int WHERE c % 3 = 1 OR a IS NULL;
EXPLAIN (COSTS OFF) SELECT * FROM t_text WHERE t LIKE 'k1%' AND c = 'c12';
EXPLAIN (COSTS OFF) SELECT * FROM t_datetime WHERE extract(year FROM d) = 2003;
-- nothing for the device: no GpuScan
EXPLAIN (COSTS OFF) SELECT * FROM t_text WHERE md5(t) = 'x';
EXPLAIN (COSTS OFF) SELECT * FROM t_int;
-- timestamptz field extraction depends on the time zone: CPU only
EXPLAIN (COSTS OFF) SELECT * FROM t_datetime WHERE extract(hour FROM tz) = 3;
-- the kernel evaluates at most 128 nodes per row: quals that would push the
-- device program over stay on the CPU
EXPLAIN (COSTS OFF) SELECT id FROM t_int
 WHERE a IN (1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31)
   AND b IN (100,101,102,103,104,105,106,107,108,109,110,111,112,113,114,115,116,117,118,119,120,121,122,123,124,125,126,127,128,129,130)
   AND c IN (1000,1001,1002,1003,1004,1005,1006,1007,1008,1009,1010,1011,1012,1013,1014,1015,1016,1017,1018,1019,1020,1021,1022,1023,1024,1025,1026,1027,1028,1029,1030);
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE a IN (1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31) AND b IN (100,101,102,103,104,105,106,107,108,109,110,111,112,113,114,115,116,117,118,119,120,121,122,123,124,125,126,127,128,129,130) AND c IN (1000,1001,1002,1003,1004,1005,1006,1007,1008,1009,1010,1011,1012,1013,1014,1015,1016,1017,1018,1019,1020,1021,1022,1023,1024,1025,1026,1027,1028,1029,1030)$$);
-- switches
SET pg_strom.enable_gpuscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM t_int WHERE a > 0;
RESET pg_strom.enable_gpuscan;
SET pg_strom.enabled = off;
EXPLAIN (COSTS OFF) SELECT id FROM t_int WHERE a > 0;
RESET pg_strom.enabled;
-- EXPLAIN ANALYZE counts chunks, pages and rows; which rows needed a CPU
-- recheck, and whether the CPU path ran, depends on the machine
CREATE FUNCTION gpuscan_analyze(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || query LOOP
		IF line ~ 'Chunks:' THEN
			RETURN NEXT regexp_replace(line, 'Recheck Rows: [0-9]+', 'Recheck Rows: N');
		ELSIF line !~ 'CPU Path:|GPU Quals|Custom Scan|actual rows' THEN
			RETURN NEXT line;
		END IF;
	END LOOP;
END $$;
SELECT * FROM gpuscan_analyze('SELECT id FROM t_int WHERE a > 0 AND b < 100');
