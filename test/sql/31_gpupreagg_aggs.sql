--
-- GpuPreAgg: every supported aggregate over every supported argument type,
-- grouped and ungrouped, with NULLs, an empty input, extremes and FILTER
--
SET pg_strom.regression_test_mode = on;
-- a role named like the extension's schema would put it first in the search path
SET search_path = public;
SET max_parallel_workers_per_gather = 0;

-- count
SELECT * FROM check_gpupreagg($$SELECT g, count(*), count(a), count(f8), count(gt), count(gn), count(d) FROM t_pa GROUP BY g$$, 'g');
-- integer sums and averages (int8 sums are exact numerics, also beyond int8)
SELECT * FROM check_gpupreagg($$SELECT g, sum(a), sum(b), sum(c), avg(a), avg(b), avg(c) FROM t_pa GROUP BY g$$, 'g');
-- min and max of integers, dates and timestamps
SELECT * FROM check_gpupreagg($$SELECT g, min(a), max(a), min(b), max(b), min(c), max(c) FROM t_pa GROUP BY g$$, 'g');
SELECT * FROM check_gpupreagg($$SELECT g, min(d), max(d), min(ts), max(ts), min(tz), max(tz) FROM t_pa GROUP BY g$$, 'g');
-- floats: sums, averages, min and max with NaN, infinities and signed zeros
SELECT * FROM check_gpupreagg($$SELECT g, sum(f4), sum(f8), avg(f4), avg(f8), min(f4), max(f4), min(f8), max(f8) FROM t_pa GROUP BY g$$, 'g');
-- variance and standard deviation over integers and floats
SELECT * FROM check_gpupreagg($$SELECT g, stddev(a), stddev_samp(b), stddev_pop(b), variance(a), var_samp(b), var_pop(b) FROM t_pa GROUP BY g$$, 'g');
SELECT * FROM check_gpupreagg($$SELECT g, stddev(f4), stddev_pop(f8), variance(f8), var_samp(f4), var_pop(f8), stddev_samp(f8) FROM t_pa GROUP BY g$$, 'g');
-- FILTER clauses, also on the device-evaluated quals
SELECT * FROM check_gpupreagg($$SELECT g, count(*) FILTER (WHERE b > 0), sum(c) FILTER (WHERE a % 2 = 0), avg(f8) FILTER (WHERE f4 < 50), max(d) FILTER (WHERE gb) FROM t_pa WHERE id > 100 GROUP BY g$$, 'g');
-- expressions as arguments
SELECT * FROM check_gpupreagg($$SELECT g, sum(b::int8 * 3 + 1), avg(f8 * 2), min(a + 1), max(c - 1) FROM t_pa WHERE b IS NOT NULL GROUP BY g$$, 'g');
-- no GROUP BY: one group; and over an empty input
SELECT * FROM check_gpupreagg($$SELECT count(*), sum(b), avg(c), min(f8), max(d), stddev(b) FROM t_pa$$);
SELECT * FROM check_gpupreagg($$SELECT count(*), sum(b), avg(c), min(f8), max(d), stddev(b) FROM t_pa WHERE id < -1000$$);
SELECT * FROM check_gpupreagg($$SELECT count(*), sum(b), avg(c), min(f8), max(d), stddev(b) FROM t_pa_empty$$);
SELECT * FROM check_gpupreagg($$SELECT g, count(*), sum(b) FROM t_pa_empty GROUP BY g$$, 'g');
-- all-NULL groups
SELECT * FROM check_gpupreagg($$SELECT g, count(a), sum(a), avg(b), min(c), max(f8), stddev(f4) FROM t_pa WHERE g = 102 GROUP BY g$$, 'g');
-- the extreme groups, ungrouped over them, and sum(int8) past the int8 range
SELECT * FROM check_gpupreagg($$SELECT g, sum(c), avg(c), sum(b), avg(b), sum(a), avg(a), sum(f8), avg(f8), min(f8), max(f8), variance(f8) FROM t_pa WHERE g >= 100 GROUP BY g$$, 'g');
SELECT * FROM check_gpupreagg($$SELECT sum(c), avg(c), count(c) FROM t_pa WHERE g = 105$$);
-- HAVING is evaluated by the final Agg
SELECT * FROM check_gpupreagg($$SELECT g, count(*), sum(b) FROM t_pa GROUP BY g HAVING sum(b) > 0 AND count(*) > 10$$, 'g');
-- the results themselves, so a wrong combination on both sides would show
SELECT g, count(*), count(a), sum(b), sum(c), min(a), max(c), round(avg(b), 6) AS avg_b FROM t_pa WHERE g < 100 OR g = 105 GROUP BY g ORDER BY g;
SELECT count(*), sum(c), avg(c) FROM t_pa WHERE g = 105;
