#!/usr/bin/env bash
# test/device/checks.sh: after bench_suite.sh has loaded w1_narrow: a
# GpuPreAgg plan with ten million groups against PostgreSQL's result, and a
# planted wrong result that must make the benchmark fail.
# Needs: a GPU; the running cluster (cluster.sh, env.sh) with w1_narrow
# loaded; PGSTROM_STAGE/pgstrom-bench.
# Takes about 1-3 minutes (at most 300 s and 120 s for its two parts).
# No -e: a failed step is reported and the next one runs.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/env.sh" || exit 2
eval "$(bash "$R" env)"
device_need_staged pgstrom-bench
echo "=== 10M groups over w1_narrow, GPU plan forced (regression mode offers it"
echo "    whatever PostgreSQL's group estimate; execution still uses the GPU)"
Q="SELECT id % 10000000 AS k, count(*) AS n, sum(a) AS s, avg(y) AS av FROM w1_narrow GROUP BY 1"
timeout 300 bash "$R" psql -v ON_ERROR_STOP=1 <<SQL
SET max_parallel_workers_per_gather = 16; SET parallel_setup_cost = 0; SET statement_timeout = '240s';
SET work_mem = '1GB';
\timing on
SET pg_strom.enabled = off;
CREATE TEMP TABLE r_pg AS $Q;
SET pg_strom.enabled = on; SET pg_strom.regression_test_mode = on;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $Q;
CREATE TEMP TABLE r_gpu AS $Q;
\timing off
SELECT (SELECT count(*) FROM r_gpu) AS groups,
  (SELECT count(*) FROM (SELECT k, n, s FROM r_pg EXCEPT ALL SELECT k, n, s FROM r_gpu) m) AS missing,
  (SELECT count(*) FROM (SELECT k, n, s FROM r_gpu EXCEPT ALL SELECT k, n, s FROM r_pg) e) AS extra,
  (SELECT count(*) FROM r_pg p JOIN r_gpu g USING (k) WHERE abs(p.av - g.av) > 1e-9 * greatest(abs(p.av), 1)) AS avg_differ;
SQL
echo "=== a planted wrong result must fail the run"
timeout 120 "$STAGE/pgstrom-bench" run -tables w1_narrow -queries preagg_10 -runs 1 -plant-wrong-result preagg_10 > /tmp/plant.txt 2>&1
echo "plant run exit: $? (want 1)"
grep -E "FAILURE|failures" /tmp/plant.txt | head -5
