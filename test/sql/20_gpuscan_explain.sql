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
-- timestamptz field extraction in the session's zone (pg_regress runs
-- under PST8PDT, a zone with daylight saving time): on the device
EXPLAIN (COSTS OFF) SELECT * FROM t_datetime WHERE extract(hour FROM tz) = 3;
-- the kernel evaluates at most 128 nodes per row: quals that would push the
-- device program over stay on the CPU
EXPLAIN (COSTS OFF) SELECT id FROM t_int
 WHERE a IN (-15,-14,-13,-12,-11,-10,-9,-8,-7,-6,-5,-4,-3,-2,-1,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15)
   AND b IN (-10,-9,-8,-7,-6,-5,-4,-3,-2,-1,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20)
   AND c IN (-1,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29);
SELECT * FROM check_gpuscan($$SELECT id FROM t_int WHERE a IN (-15,-14,-13,-12,-11,-10,-9,-8,-7,-6,-5,-4,-3,-2,-1,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15) AND b IN (-10,-9,-8,-7,-6,-5,-4,-3,-2,-1,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20) AND c IN (-1,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29)$$);
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
			-- chunk sizes follow shared_buffers, rechecks the machine
			RETURN NEXT regexp_replace(regexp_replace(line, 'Recheck Rows: [0-9]+', 'Recheck Rows: N'),
									   'Chunks: [0-9]+', 'Chunks: N');
		ELSIF line !~ 'CPU Path:|Page Copies:|GPU Quals|Custom Scan|actual rows' THEN
			RETURN NEXT line;
		END IF;
	END LOOP;
END $$;
SELECT * FROM gpuscan_analyze('SELECT id FROM t_int WHERE a > 0 AND b < 100');
