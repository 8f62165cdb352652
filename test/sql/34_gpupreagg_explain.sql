--
-- GpuPreAgg plans: where it is offered, and where it is not
--
SET pg_strom.regression_test_mode = on;
-- a role named like the extension's schema would put it first in the search path
SET search_path = public;
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF) SELECT g, count(*), sum(b), avg(f8) FROM t_pa WHERE a > 0 GROUP BY g;
EXPLAIN (COSTS OFF, VERBOSE) SELECT gt, count(*) FILTER (WHERE b > 0), max(d) FROM t_pa GROUP BY gt;
EXPLAIN (COSTS OFF) SELECT count(*) FROM t_pa;
-- grouping sets: one GpuPreAgg pass on the union of the sets' keys, and
-- PostgreSQL's own grouping over its groups
EXPLAIN (COSTS OFF) SELECT g, gb, count(*) FROM t_pa GROUP BY GROUPING SETS ((g), (gb));
-- a regular expression that is literal text is matched as LIKE
EXPLAIN (COSTS OFF) SELECT g, count(*) FROM t_pa WHERE gt ~ 'x' GROUP BY g;
-- not offered: the planner keeps PostgreSQL's own plan
SET pg_strom.enable_gpupreagg = off;
EXPLAIN (COSTS OFF) SELECT g, count(*) FROM t_pa GROUP BY g;
SET pg_strom.enable_gpupreagg = on;
EXPLAIN (COSTS OFF) SELECT g, count(DISTINCT b), stddev(b) FROM t_pa GROUP BY g;
EXPLAIN (COSTS OFF) SELECT g, sum(gn) FROM t_pa GROUP BY g;
EXPLAIN (COSTS OFF) SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY b) FROM t_pa GROUP BY g;
EXPLAIN (COSTS OFF) SELECT g, string_agg(gt, ',') FROM t_pa GROUP BY g;
EXPLAIN (COSTS OFF) SELECT g, count(*) FROM t_pa WHERE gt ~ 'x[0-9]' GROUP BY g;
-- EXPLAIN ANALYZE reports the work.  Figures vary, so only the labels are
-- shown; the GPU time and the reason for a CPU path exist on one kind of
-- machine only, so they are left out.
CREATE FUNCTION explain_labels(query text) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || query LOOP
		IF line ~ 'GPU|Groups|Chunks|Rows' AND line !~ 'CPU Path|Page Copies' THEN
			RETURN NEXT regexp_replace(regexp_replace(line, '  GPU Time: .*$', ''),
									   '[0-9][0-9.]*', 'N', 'g');
		END IF;
	END LOOP;
END
$$;
SELECT * FROM explain_labels($$SELECT g, count(*), sum(b) FROM t_pa WHERE a > 0 GROUP BY g$$);
SELECT * FROM explain_labels($$SELECT DISTINCT gt FROM t_pa WHERE b > 0$$);
-- DISTINCT is a GpuPreAgg without aggregates under a HashAggregate
EXPLAIN (COSTS OFF) SELECT DISTINCT gt, gb FROM t_pa WHERE b > 0;
EXPLAIN (COSTS OFF) SELECT DISTINCT ON (gt) gt, gb FROM t_pa;
-- a parameter in the device quals (a generic plan of a prepared statement)
SET plan_cache_mode = force_generic_plan;
PREPARE pa_q(int) AS SELECT g, count(*), sum(c) FROM t_pa WHERE b > $1 GROUP BY g ORDER BY g;
EXPLAIN (COSTS OFF) EXECUTE pa_q(0);
CREATE TEMP TABLE pa_prep_on AS EXECUTE pa_q(900000);
-- a cached plan does not see GUC changes: the reference is a plain query
SET pg_strom.enabled = off;
CREATE TEMP TABLE pa_prep_off AS
SELECT g, count(*), sum(c) FROM t_pa WHERE b > 900000 GROUP BY g;
RESET pg_strom.enabled;
SELECT (SELECT count(*) FROM pa_prep_off) AS groups,
       (SELECT count(*) FROM (TABLE pa_prep_on EXCEPT ALL TABLE pa_prep_off) d) AS missing,
       (SELECT count(*) FROM (TABLE pa_prep_off EXCEPT ALL TABLE pa_prep_on) d) AS extra;
DEALLOCATE pa_q;
RESET plan_cache_mode;
