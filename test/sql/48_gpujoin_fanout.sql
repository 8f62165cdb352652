--
-- A join that fans out: the device's answer to one chunk is bounded by
-- pg_strom.gpujoin_max_chunk_result (the backend keeps a chunk's whole
-- answer before it emits its rows).  Past the bound the node goes on on
-- the CPU, from the chunks in flight, with the same rows.  With a GPU (or
-- the host executor) EXPLAIN ANALYZE says why; without one the CPU path
-- runs from the start and only the rows are compared.
--
SET pg_strom.regression_test_mode = on;
SET search_path = public;
SET max_parallel_workers_per_gather = 0;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;

CREATE TABLE fan_out (id int, k int);
INSERT INTO fan_out SELECT i, i % 20 FROM generate_series(1, 4000) i;
CREATE TABLE fan_in (id int, k int, w text);
INSERT INTO fan_in SELECT j, j % 20, 'w' || j FROM generate_series(1, 2000) j;
VACUUM ANALYZE fan_out, fan_in;

-- ran_on reports, for a query, the plan's GpuJoin and its CPU Path reason
-- (NULL when the device answered every chunk) when the service is ready,
-- else 'no service'.
CREATE FUNCTION ran_on(query text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	line text;
	reason text;
	node bool := false;
BEGIN
	IF (SELECT state FROM pgstrom.gpu_service_status() LIMIT 1) <> 'ready' THEN
		RETURN 'no service';
	END IF;
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || query LOOP
		node := node OR line ~ 'Custom Scan \(GpuJoin\)';
		IF line ~ 'CPU Path: ' THEN
			reason := regexp_replace(line, '^.*CPU Path: ', '');
		END IF;
	END LOOP;
	RETURN CASE WHEN NOT node THEN 'no GpuJoin'
		WHEN reason IS NULL THEN 'GPU'
		WHEN reason ~ 'exceeds pg_strom.gpujoin_max_chunk_result' THEN 'CPU past the bound'
		ELSE 'CPU: ' || reason END;
END
$$;

-- 400,000 rows from one chunk of 4,000 outer rows
SELECT * FROM check_gpujoin($$
	SELECT o.id, i.id AS iid, i.w FROM fan_out o JOIN fan_in i ON o.k = i.k$$);
SELECT ran_on($$SELECT o.id, i.id, i.w FROM fan_out o JOIN fan_in i ON o.k = i.k$$)
	IN ('GPU', 'no service') AS within_bound;

-- the same under a bound of 1 MB: the first replies are dropped and the
-- chunk is joined on the CPU, with the same rows
SET pg_strom.gpujoin_max_chunk_result = '1MB';
SELECT * FROM check_gpujoin($$
	SELECT o.id, i.id AS iid, i.w FROM fan_out o JOIN fan_in i ON o.k = i.k$$);
SELECT ran_on($$SELECT o.id, i.id, i.w FROM fan_out o JOIN fan_in i ON o.k = i.k$$)
	IN ('CPU past the bound', 'no service') AS past_bound;
SET pg_strom.gpujoin_max_chunk_result = '512kB';
RESET pg_strom.gpujoin_max_chunk_result;

DROP FUNCTION ran_on(text);
DROP TABLE fan_out, fan_in;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_nestloop;
RESET max_parallel_workers_per_gather;
RESET pg_strom.regression_test_mode;
