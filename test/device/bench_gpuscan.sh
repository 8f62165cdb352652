#!/usr/bin/env bash
# There (GPU machine), with a cluster started by .device/remote.sh: a
# 50-million-row table scanned with a selective filter, pg_strom off (16
# parallel workers) and on, in the same run; results must agree.
set -uo pipefail
R=.device/remote.sh
eval "$(bash $R env)"
psqlc() { bash $R psql "$@"; }
ROWS=${BENCH_ROWS:-50000000}
psqlc -q <<SQL
CREATE EXTENSION IF NOT EXISTS pg_prewarm;
DROP TABLE IF EXISTS bench;
CREATE UNLOGGED TABLE bench (id int8, x int4, y float8, k int4, d date);
SET max_parallel_workers_per_gather = 16;
INSERT INTO bench
SELECT i, (i * 7919) % 1000003, (i % 100000) / 100.0, i % 1000, date '2000-01-01' + (i % 10000)::int
  FROM generate_series(1, $ROWS) i;
VACUUM FREEZE ANALYZE bench;
SQL
psqlc -Atc "SELECT 'heap bytes: ' || pg_relation_size('bench') || ' (' || pg_size_pretty(pg_relation_size('bench')) || ')'"
psqlc -Atc "SELECT 'prewarmed blocks: ' || pg_prewarm('bench')"
Q="SELECT count(*), sum(k) FROM bench WHERE x BETWEEN 1000 AND 3000 AND y > 100.5"
run() {
	local mode=$1
	psqlc -At <<SQL
SET max_parallel_workers_per_gather = 16;
SET parallel_setup_cost = 0;
SET jit = on;
SET pg_strom.enabled = $mode;
EXPLAIN (COSTS OFF) $Q;
SELECT 'warm-up: ' || ($Q)::text;
\timing on
$Q;
$Q;
$Q;
SQL
}
echo "=== pg_strom.enabled = off"; run off
echo "=== pg_strom.enabled = on";  run on
psqlc -c "SET max_parallel_workers_per_gather = 16" -c "SET parallel_setup_cost = 0" \
	-c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $Q"
