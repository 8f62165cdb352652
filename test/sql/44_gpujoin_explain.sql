--
-- EXPLAIN of GpuJoin: each depth with its join type and keys; what is not
-- offered keeps PostgreSQL's plan
--
SET pg_strom.regression_test_mode = on;
SET search_path = public;
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF) SELECT f.id, d.name FROM gj_fact f JOIN gj_d1 d ON f.k_int = d.id;
EXPLAIN (COSTS OFF) SELECT f.id, d.name FROM gj_fact f LEFT JOIN gj_d1 d ON f.k_int = d.id WHERE f.v > 3;
EXPLAIN (COSTS OFF) SELECT f.id FROM gj_fact f WHERE NOT EXISTS (SELECT 1 FROM gj_d2 d WHERE d.k = f.k_big);
EXPLAIN (COSTS OFF)
	SELECT f.id, d1.name, d2.v, d3.w, d4.s FROM gj_fact f
	  JOIN gj_d1 d1 ON f.k_int = d1.id
	  LEFT JOIN gj_d2 d2 ON f.k_big = d2.k
	  JOIN gj_d3 d3 ON d3.t = f.k_text
	  JOIN gj_d4 d4 ON d4.c = f.k_char;
-- not offered: a join without an equality the device hashes, a SEMI join
-- with another clause, FULL joins, row locks, pg_strom.enable_gpujoin off
EXPLAIN (COSTS OFF) SELECT f.id, d.name FROM gj_fact f JOIN gj_d1 d ON f.k_int < d.id;
EXPLAIN (COSTS OFF) SELECT f.id FROM gj_fact f WHERE EXISTS (SELECT 1 FROM gj_d1 d WHERE f.k_int = d.id + 1 AND f.k_int < d.id);
EXPLAIN (COSTS OFF) SELECT f.id FROM gj_fact f FULL JOIN gj_d1 d ON f.k_int = d.id;
EXPLAIN (COSTS OFF) SELECT f.id, d.name FROM gj_fact f JOIN gj_d1 d ON f.k_int = d.id FOR UPDATE OF f;
SET pg_strom.enable_gpujoin = off;
EXPLAIN (COSTS OFF) SELECT f.id, d.name FROM gj_fact f JOIN gj_d1 d ON f.k_int = d.id;
RESET pg_strom.enable_gpujoin;
-- an INNER or SEMI depth without inner rows matches nothing: the outer
-- scan (the join's, or the fused GpuPreAgg's) is not run at all (the
-- nodes and counters of EXPLAIN ANALYZE, whose other lines differ
-- between PostgreSQL versions)
CREATE FUNCTION gj_scan_lines(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || query LOOP
		IF line ~ 'Custom Scan|Chunks:|Scans Skipped' THEN
			RETURN NEXT regexp_replace(line, ' \(actual [^)]*\)$', '');
		END IF;
	END LOOP;
END $$;
SELECT * FROM gj_scan_lines($$
	SELECT f.id, e.name FROM gj_fact f
	  JOIN gj_d1 d ON f.k_int = d.id
	  JOIN gj_empty e ON f.k_small = e.id$$);
SELECT * FROM gj_scan_lines($$
	SELECT f.v, count(*) FROM gj_fact f
	 WHERE EXISTS (SELECT 1 FROM gj_empty e WHERE e.id = f.k_small)
	 GROUP BY f.v$$);
DROP FUNCTION gj_scan_lines(text);
-- a LEFT depth without inner rows ends nothing
DO $$
DECLARE
	line text;
	chunks int := 0;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
		SELECT f.id, e.name FROM gj_fact f LEFT JOIN gj_empty e ON f.k_small = e.id' LOOP
		IF line ~ 'Scans Skipped' THEN
			RAISE EXCEPTION 'a LEFT join skipped its scan: %', line;
		END IF;
		chunks := greatest(chunks, coalesce(substring(line from 'Chunks: (\d+)')::int, 0));
	END LOOP;
	IF chunks = 0 THEN
		RAISE EXCEPTION 'a LEFT join over an empty inner scanned no chunk';
	END IF;
END
$$;
-- parallel: GpuJoin under Gather
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT f.id, d.name FROM gj_fact f JOIN gj_d1 d ON f.k_int = d.id;
