#!/usr/bin/env bash
# test/device/bench_tpch.sh: the TPC-H benchmark.  A cluster with
# shared_buffers = TPCH_SHARED_BUFFERS (default 16GB), TPC-H loaded at
# TPCH_SF (default 3), TPCH_QUERIES (default all 22) in PostgreSQL's two
# modes and on the GPU (BENCH_RUNS timed runs each, default 1) with their
# plans, then EXPLAIN ANALYZE (VERBOSE) of each query in TPCH_ANALYZE
# (for example "Q9 Q20") with pg_strom on and off, under the bench's own
# settings (16 workers, parallel_setup_cost 0, jit off), to
# $OUT/analyze-QUERY-on.txt and -off.txt.  Results to $OUT.
# Needs: a GPU machine with 16 cores and about 64 GB of memory or more;
# PGSTROM_STAGE staged by stage.sh (pg.tgz, pgstrom-bench) and the cluster
# of cluster.sh (variables: env.sh); root to reserve huge pages.
# Takes about 8 minutes at scale factor 3 (the load about 1, PostgreSQL's
# Q18 and Q21 most of the rest); BENCH_LOAD_TIMEOUT, BENCH_RUN_TIMEOUT and
# TPCH_ANALYZE_TIMEOUT (a statement) bound the steps.
# No -e: a failed step is reported and the next one runs.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/env.sh" || exit 2
mkdir -p "$OUT"
B=$STAGE/pgstrom-bench
device_need_staged pgstrom-bench
sf=${TPCH_SF:-3}
conf=$(mktemp)
echo "shared_buffers = ${TPCH_SHARED_BUFFERS:-16GB}" > "$conf"
chmod 644 "$conf"
. "$here/hugepages.sh"
reserve_huge_pages 16
bash "$R" start "$conf" || exit 1
eval "$(bash "$R" env)"
psql -X -q -c 'CREATE EXTENSION IF NOT EXISTS pg_strom' -c 'CREATE EXTENSION IF NOT EXISTS pg_prewarm'
device_wait_service
psql -X -Atc 'SELECT version()' -c 'SHOW shared_buffers'

t0=$SECONDS
timeout "${BENCH_LOAD_TIMEOUT:-300}" "$B" load -tables tpch -tpch-sf "$sf" > "$OUT/load-tpch.txt" 2>&1 || echo "load failed: $?"
echo "load: $((SECONDS - t0)) s"
t0=$SECONDS
# shellcheck disable=SC2086
timeout "${BENCH_RUN_TIMEOUT:-480}" "$B" run -tables tpch -tpch-sf "$sf" -runs "${BENCH_RUNS:-1}" \
	${TPCH_QUERIES:+-queries "$TPCH_QUERIES"} ${BENCH_RUN_FLAGS:-} \
	-json "$OUT/bench-tpch.json" -plans "$OUT/plans-tpch.txt" > "$OUT/bench-tpch.txt"
echo "run tpch: exit $?, $((SECONDS - t0)) s"
cat "$OUT/bench-tpch.txt"

for q in ${TPCH_ANALYZE:-}; do
	sql=$("$B" sql -tables tpch -queries "$q" | grep -v '^--' | sed 's/;$//') || { echo "no query $q"; continue; }
	for mode in on off; do
		PGOPTIONS="-c pg_strom.enabled=$mode -c max_parallel_workers_per_gather=16 -c max_parallel_workers=16 -c parallel_setup_cost=0 -c jit=off -c statement_timeout=${TPCH_ANALYZE_TIMEOUT:-60}s" \
			psql -X -c "EXPLAIN (ANALYZE, VERBOSE) $sql" > "$OUT/analyze-$q-$mode.txt" 2>&1
		echo "EXPLAIN ANALYZE $q, pg_strom.enabled=$mode: exit $?, $(grep -h 'Execution Time' "$OUT/analyze-$q-$mode.txt")"
	done
done
bash "$R" stop
