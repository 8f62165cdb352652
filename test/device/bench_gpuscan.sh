#!/usr/bin/env bash
# test/device/bench_gpuscan.sh: with a cluster started by cluster.sh and
# pg_strom created: a table of BENCH_ROWS (default 50,000,000) rows scanned
# with a selective filter, pg_strom off (16 parallel workers, JIT on and off)
# and on, in the same run; the results must agree.  Then kill -9 of the GPU
# service during a GpuScan, with pg_strom.cpu_fallback on (the query must
# finish with the same result) and off (it must fail with a clear error).
# Needs: a GPU machine with 16 cores; the running cluster (cluster.sh,
# env.sh), pg_prewarm in that PostgreSQL.
# Takes about 2-4 minutes (the load of 50 M rows by 8 sessions about 1).
# No -e: a failed step is reported and the next one runs.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/env.sh" || exit 2
eval "$(bash "$R" env)"
psqlc() { bash "$R" psql "$@"; }
ROWS=${BENCH_ROWS:-50000000}
LOADERS=8
psqlc -q -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm" -c "DROP TABLE IF EXISTS bench" \
	-c "CREATE TABLE bench (id int8, x int4, y float8, k int4, d date)"
t0=$SECONDS
for n in $(seq 0 $((LOADERS - 1))); do
	lo=$((ROWS / LOADERS * n + 1)); hi=$((ROWS / LOADERS * (n + 1)))
	psqlc -q -c "INSERT INTO bench SELECT i, ((i * 7919) % 1000003)::int4, (i % 100000) / 100.0,
		(i % 1000)::int4, date '2000-01-01' + (i % 10000)::int4 FROM generate_series($lo::int8, $hi::int8) i" &
done
wait
psqlc -q -c "VACUUM FREEZE ANALYZE bench" -c "ALTER TABLE bench SET (parallel_workers = 16)"
echo "loaded in $((SECONDS - t0)) s"
psqlc -Atc "SELECT 'rows: ' || count(*) FROM bench"
psqlc -Atc "SELECT 'heap bytes: ' || pg_relation_size('bench') || ' (' || pg_size_pretty(pg_relation_size('bench')) || ')'"
psqlc -Atc "SELECT 'prewarmed blocks: ' || pg_prewarm('bench')"
Q="SELECT count(*), sum(k) FROM bench WHERE x BETWEEN 1000 AND 3000 AND y > 100.5"
run() {
	local mode=$1 jit=$2 tuple_cost=${3:-0.03}
	echo "--- pg_strom.enabled = $mode, jit = $jit, pg_strom.gpu_tuple_cost = $tuple_cost"
	psqlc -At <<SQL
SET pg_strom.gpu_tuple_cost = $tuple_cost;
SET max_parallel_workers_per_gather = 16;
SET parallel_setup_cost = 0;
SET jit = $jit;
SET statement_timeout = '120s';
SET pg_strom.enabled = $mode;
EXPLAIN (COSTS OFF) $Q;
SELECT 'warm-up', * FROM ($Q) s;
\timing on
$Q;
$Q;
$Q;
SQL
}
run off on
run off off
run on on
# the default costs keep this cheap filter on the CPU; measure GpuScan anyway
run on on 0

psqlc -c "SET max_parallel_workers_per_gather = 16" -c "SET parallel_setup_cost = 0" \
	-c "SET pg_strom.gpu_tuple_cost = 0" -c "EXPLAIN (ANALYZE, COSTS OFF) $Q"

echo "--- kill -9 of the GPU service during a GpuScan (cpu_fallback on): the query must finish with the same result"
expect=$(psqlc -At -c "SET pg_strom.enabled = off" -c "$Q")
for delay in 0.15; do
	(psqlc -At -c "SET max_parallel_workers_per_gather = 16" -c "SET parallel_setup_cost = 0" \
		-c "$Q" > /tmp/killq.out 2>&1; echo "exit $?" >> /tmp/killq.out) &
	q=$!
	sleep $delay
	svc=$(psqlc -At -c "SELECT pid FROM pgstrom.gpu_service_status() LIMIT 1")
	kill -9 "$svc"
	wait $q
	echo "killed service pid $svc after ${delay}s; query output: $(tr '\n' ' ' < /tmp/killq.out); expected: $expect"
	for i in $(seq 1 100); do
		[ "$(psqlc -At -c "SELECT state FROM pgstrom.gpu_service_status() LIMIT 1")" = ready ] && break; sleep 0.1
	done
done
psqlc -At -c "SET pg_strom.cpu_fallback = off" -c "SET max_parallel_workers_per_gather = 0" -c "$Q" > /tmp/killq.out 2>&1 &
q=$!; sleep 0.15
kill -9 "$(psqlc -At -c "SELECT pid FROM pgstrom.gpu_service_status() LIMIT 1")"; wait $q
echo "with cpu_fallback off: $(tr '\n' ' ' < /tmp/killq.out)"
