#!/usr/bin/env bash
# test/device/aio_checks.sh: with a cluster started by cluster.sh and
# pg_strom created (or, through local_remote.sh, a local cluster under the
# host executor: test/run_regress_pg.sh --hostexec does that): the pages
# GPU scans take while other processes are reading the same pages into
# shared buffers.  On PostgreSQL 18 the reads are asynchronous (io_method
# worker: I/O workers read ahead for the sequential scans); a buffer whose
# read is in flight is mapped but not valid, and the zero-copy path must
# wait for it, and direct read must not take it for a page of the file.
#  - each round evicts the table from shared buffers (pg_buffercache_evict,
#    17 and later; on 15 the pages stay where they are), starts sequential
#    scans of it in other backends and at once a GpuScan (zero-copy, then
#    direct read) of it: the scans must give PostgreSQL's answer, and the
#    GPU one must have gone through the service;
#  - afterwards no buffer is left pinned.
# Prints "aio checks: N passed, N failed"; exit 1 on a failure.
# Needs: the running cluster, pg_buffercache in its PostgreSQL; R (default
# cluster.sh) with a psql verb; AIO_ROWS rows (default 2,000,000) and
# AIO_ROUNDS rounds of each (default 4).
# Takes about 1 minute at 300,000 rows under the host executor.
# No -e: a failed check is reported and the next one runs.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/env.sh" || exit 2
ROWS=${AIO_ROWS:-2000000}
ROUNDS=${AIO_ROUNDS:-4}
passed=0 failed=0
psqlq() { bash "$R" psql -X -q -At -v ON_ERROR_STOP=1 -c "SET max_parallel_workers_per_gather = 0" "$@"; }
check() {
	if [ "$2" = "$3" ]; then passed=$((passed + 1)); echo "ok: $1"
	else failed=$((failed + 1)); echo "FAILED: $1: got '$2', want '$3'"; fi
}

psqlq -c "CREATE EXTENSION IF NOT EXISTS pg_buffercache"
psqlq -c "DROP TABLE IF EXISTS aio" -c "CREATE TABLE aio (id int, g int, t text)" \
	-c "INSERT INTO aio SELECT i, i % 31, md5(i::text) FROM generate_series(1, $ROWS) i" \
	-c "VACUUM ANALYZE aio"
echo "PostgreSQL $(psqlq -c "SHOW server_version"), io_method $(psqlq -c "SELECT coalesce(current_setting('io_method', true), 'none (synchronous reads)')"), data_checksums $(psqlq -c "SHOW data_checksums")"
can_evict=$(psqlq -c "SELECT to_regproc('pg_buffercache_evict') IS NOT NULL")
[ "$can_evict" = t ] || echo "no pg_buffercache_evict: the table's pages stay in shared buffers"
want=$(psqlq -c "SET pg_strom.enabled = off" -c "SELECT count(*) || ':' || sum(id) || ':' || sum(length(t)) FROM aio WHERE g <> 7")

# the table's buffers out of shared buffers (a dirty one is written first)
evict() {
	[ "$can_evict" = t ] || return 0
	psqlq -c "SELECT count(pg_buffercache_evict(bufferid)) FROM pg_buffercache
	           WHERE relfilenode = pg_relation_filenode('aio')
	             AND reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database())" >/dev/null
}

# with_readers SQL...: evicts the table, starts $readers backends reading
# it with PostgreSQL's sequential scan after $delay seconds, and at once runs
# SQL (GpuScan in regression mode, direct read as $direct) in another
with_readers() {
	local pids=() p out i
	evict
	for i in $(seq 1 "$readers"); do
		psqlq -c "SET pg_strom.enabled = off" -c "SELECT pg_sleep($delay)" \
			-c "SELECT count(*) FROM aio WHERE t <> ''" >/dev/null &
		pids+=($!)
	done
	out=$(psqlq -c "SET pg_strom.regression_test_mode = on" -c "SET pg_strom.direct_read = $direct" "$@" 2>&1)
	for p in "${pids[@]}"; do wait "$p"; done
	echo "$out"
}

# round LABEL DIRECT_READ: the GpuScan's answer, then its plan counters,
# each while other backends read the same pages
round() {
	local label=$1 plan
	direct=$2
	check "$label: PostgreSQL's answer" \
		"$(with_readers -c "SELECT count(*) || ':' || sum(id) || ':' || sum(length(t)) FROM aio WHERE g <> 7")" "$want"
	plan=$(with_readers -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT id, t FROM aio WHERE g <> 7")
	check "$label: through the service" \
		"$(grep -q 'Custom Scan (GpuScan)' <<<"$plan" && ! grep -q 'CPU Path' <<<"$plan" && echo yes)" yes
	echo "$plan" | grep -E 'Chunks:|Direct Read|CPU Path' | sed 's/^ */   /'
}

# the readers start with the GPU scan, then later and later in it: sooner
# they have read most pages before the scan asks for them, later the scan
# meets reads in flight
delays=(0 0.1 0.3 0.6 1 1.5 2 3)
echo "--- zero-copy while other backends read the same pages"
readers=3 direct=off
for r in $(seq 1 "$ROUNDS"); do
	delay=${delays[$(((r - 1) % ${#delays[@]}))]}
	round "zero-copy, round $r (readers after ${delay}s)" off
done
echo "--- direct read alone: the evicted all-visible pages come from the file"
readers=0 direct=on delay=0
plan=$(with_readers -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT id, t FROM aio WHERE g <> 7")
echo "$plan" | grep -E 'Chunks:|Direct Read' | sed 's/^ */   /'
if [ "$can_evict" = t ]; then
	check "direct read blocks" "$(echo "$plan" | grep -cE 'Direct Read Blocks: [1-9]')" 1
fi
echo "--- direct read while other backends read the same pages"
readers=3
for r in $(seq 1 "$ROUNDS"); do
	delay=${delays[$(((r - 1) % ${#delays[@]}))]}
	round "direct read, round $r (readers after ${delay}s)" on
done

# pins other backends take for a moment (autovacuum, the checkpointer) pass
n=
for _ in $(seq 1 20); do
	n=$(psqlq -c "SELECT count(*) FROM pg_buffercache WHERE pinning_backends > 0")
	[ "$n" = 0 ] && break
	sleep 0.25
done
check "no buffer left pinned" "$n" 0
psqlq -c "DROP TABLE aio"
echo "aio checks: $passed passed, $failed failed"
[ "$failed" = 0 ]
