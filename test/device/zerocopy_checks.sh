#!/usr/bin/env bash
# test/device/zerocopy_checks.sh: with a cluster started by cluster.sh and
# pg_strom created (or, through local_remote.sh, a local cluster under the
# host executor: test/run_regress_hostexec.sh does that): the zero-copy
# path against PostgreSQL's own answers.
#  - the device registered shared buffers, and scans read them in place;
#  - MVCC: a writer updates, deletes and inserts while REPEATABLE READ
#    transactions compare GpuScan and GpuPreAgg with the CPU in one snapshot;
#  - kill -9 of the service with a cursor mid-scan, a statement_timeout
#    cancel and a pg_terminate_backend mid-scan: afterwards no buffer is
#    pinned, and the results are right or the error is clear;
#  - a backend crash that reinitializes shared memory: the new service
#    registers the new shared buffers and results stay right.
# Prints "zerocopy checks: N passed, N failed"; exit 1 on a failure.
# Needs: the running cluster, pg_buffercache in its PostgreSQL; R (default
# cluster.sh) with a psql verb; ZC_ROWS rows (default 6,000,000).
# Takes about 2-3 minutes at 6,000,000 rows (at most 300 s in on_gpu.sh).
# No -e: a failed check is reported and the next one runs.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/env.sh" || exit 2
ROWS=${ZC_ROWS:-6000000}
passed=0 failed=0
# Direct read is off: these checks are about pages in shared buffers (the
# direct-read path has its own, test/lifecycle/direct_read_test.go).
psqlq() { bash "$R" psql -X -q -At -v ON_ERROR_STOP=1 -c "SET pg_strom.direct_read = off" "$@"; }
check() {
	if [ "$2" = "$3" ]; then passed=$((passed + 1)); echo "ok: $1"
	else failed=$((failed + 1)); echo "FAILED: $1: got '$2', want '$3'"; fi
}
wait_ready() {
	for _ in $(seq 1 300); do
		st=$(psqlq -c "SELECT state FROM pgstrom.gpu_service_status() LIMIT 1" 2>/dev/null)
		[ "$st" = ready ] && return 0
		sleep 0.2
	done
	return 1
}
# pins other backends take for a moment (autovacuum, the checkpointer) pass
pinned() {
	local n
	for _ in $(seq 1 20); do
		n=$(psqlq -c "SELECT count(*) FROM pg_buffercache WHERE pinning_backends > 0")
		[ "$n" = 0 ] && break
		sleep 0.25
	done
	echo "$n"
}

psqlq -c "CREATE EXTENSION IF NOT EXISTS pg_buffercache"
psqlq -c "DROP TABLE IF EXISTS zc" -c "CREATE TABLE zc (id int, g int, v float8, t text)" \
	-c "INSERT INTO zc SELECT i, i % 97, i * 0.5, md5(i::text) FROM generate_series(1, $ROWS) i" \
	-c "VACUUM ANALYZE zc"
wait_ready || echo "service not ready"

echo "--- registration"
psqlq -c "SELECT device, shared_registered, shared_register_ms, coalesce(shared_reason, '') FROM pgstrom.gpu_device_info()"
check "every shared buffer registered" \
	"$(psqlq -c "SELECT shared_registered = (SELECT setting::int8 * 8192 FROM pg_settings WHERE name = 'shared_buffers') FROM pgstrom.gpu_device_info() LIMIT 1")" t

echo "--- scans read shared buffers in place"
plan=$(psqlq -c "SET pg_strom.regression_test_mode = on" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT id FROM zc WHERE v > 100")
echo "$plan" | grep -E "Custom Scan|Pages|Page Copies|CPU Path"
check "GpuScan: every page zero-copy" \
	"$(echo "$plan" | sed -nE 's/.* Pages: ([0-9]+)  Zero-Copy Pages: ([0-9]+).*/\1=\2/p' | awk -F= '{s+=$1; z+=$2} END {print (s == z && s > 0) ? "yes" : s" vs "z}')" yes
check "GpuScan: no page copies" "$(echo "$plan" | grep -c 'Page Copies')" 0

echo "--- MVCC under a concurrent writer"
( end=$((SECONDS + 20)); k=0
  while [ $SECONDS -lt $end ]; do
	k=$((k + 1))
	psqlq -c "UPDATE zc SET v = v + 1 WHERE id % 1000 = $((k % 1000))" \
		-c "DELETE FROM zc WHERE id % 5000 = $((k % 5000))" \
		-c "INSERT INTO zc SELECT $ROWS + $k * 100 + i, i % 97, i, 'new' FROM generate_series(1, 100) i" >/dev/null 2>&1
  done ) &
writer=$!
for round in 1 2 3 4 5 6; do
	out=$(psqlq -c "SET pg_strom.regression_test_mode = on" -c "BEGIN ISOLATION LEVEL REPEATABLE READ" \
		-c "CREATE TEMP TABLE gs AS SELECT id, v FROM zc WHERE v > 1000" \
		-c "CREATE TEMP TABLE ga AS SELECT g, count(*) AS n, sum(v) AS s FROM zc GROUP BY g" \
		-c "SET LOCAL pg_strom.enabled = off" \
		-c "CREATE TEMP TABLE cs AS SELECT id, v FROM zc WHERE v > 1000" \
		-c "CREATE TEMP TABLE ca AS SELECT g, count(*) AS n, sum(v) AS s FROM zc GROUP BY g" \
		-c "SELECT (SELECT count(*) FROM (TABLE gs EXCEPT ALL TABLE cs) x) + (SELECT count(*) FROM (TABLE cs EXCEPT ALL TABLE gs) y) || ' ' ||
			(SELECT count(*) FROM ga FULL JOIN ca USING (g) WHERE ga.n IS DISTINCT FROM ca.n OR abs(ga.s - ca.s) > 1e-9 * abs(ca.s)) || ' ' ||
			(SELECT count(*) FROM cs)" -c "COMMIT" 2>&1 | tail -1)
	check "MVCC round $round (scan diffs, group diffs)" "${out% *}" "0 0"
done
wait $writer
psqlq -c "VACUUM zc"

echo "--- kill -9 of the service with a cursor mid-scan"
pid=$(psqlq -c "SELECT pid FROM pgstrom.gpu_service_status() LIMIT 1")
want=$(psqlq -c "SET pg_strom.enabled = off" -c "SELECT count(*) FROM zc WHERE v >= 0")
out=$(bash "$R" psql -X -At -c "SET pg_strom.direct_read = off" -c "SET pg_strom.regression_test_mode = on" -c "SET max_parallel_workers_per_gather = 0" -c "BEGIN" \
	-c "DECLARE c CURSOR FOR SELECT id FROM zc WHERE v >= 0" -c "MOVE 100000 IN c" \
	-c "SELECT 'pinned=' || (count(*) > 0) FROM pg_buffercache WHERE pinning_backends > 0" \
	-c "\\! kill -9 $pid" -c "SELECT pg_sleep(0.5)" -c "MOVE ALL IN c" -c "COMMIT" 2>&1)
check "pages pinned while the cursor is open" "$(echo "$out" | sed -n 's/^pinned=//p')" true
rest=$(echo "$out" | sed -n 's/^MOVE \([0-9]*\)$/\1/p' | tail -1)
check "every row of the cursor after the service died" "$((100000 + ${rest:-0}))" "$want"
wait_ready
check "no buffer pinned after the service died mid-scan" "$(pinned)" 0
cnt=$(psqlq -c "SET pg_strom.regression_test_mode = on" -c "SELECT count(*) FROM zc WHERE v >= 0")
check "result right after the service came back" "$cnt" "$want"

echo "--- statement_timeout and pg_terminate_backend mid-scan"
err=$(psqlq -c "SET pg_strom.regression_test_mode = on" -c "SET max_parallel_workers_per_gather = 0" \
	-c "SET statement_timeout = '300ms'" -c "SELECT count(*) FROM zc WHERE v >= 0 AND pg_sleep(0.00001) IS NOT NULL" 2>&1 | tail -1)
check "statement_timeout cancels the scan" "$(echo "$err" | grep -c 'canceling statement due to statement timeout')" 1
check "no buffer pinned after the cancel" "$(pinned)" 0
( psqlq -c "SET pg_strom.regression_test_mode = on" -c "SET application_name = zc_victim" \
	-c "SELECT count(*) FROM zc WHERE v >= 0 AND pg_sleep(0.00001) IS NOT NULL" >/dev/null 2>&1 ) &
sleep 1
psqlq -c "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'zc_victim'" >/dev/null
wait
check "no buffer pinned after pg_terminate_backend" "$(pinned)" 0

echo "--- kill -9 of the service during loops of GpuPreAgg (serial, parallel)"
# Every iteration must give PostgreSQL's groups, the one the kill catches
# (its answered blocks are evaluated again on the CPU) and those after it.
psqlq -c "CREATE OR REPLACE FUNCTION zc_loop(n int, q text, want text) RETURNS text LANGUAGE plpgsql AS \$\$
	DECLARE ok int := 0; bad int := 0; got text;
	BEGIN FOR i IN 1..n LOOP EXECUTE q INTO got;
		IF got = want THEN ok := ok + 1; ELSE bad := bad + 1; END IF; END LOOP;
	RETURN ok || ' ok, ' || bad || ' wrong'; END \$\$"
q="SELECT string_agg(k || ':' || n || ':' || s, ',' ORDER BY k) FROM (SELECT g % 13 AS k, count(*) AS n, sum(id) AS s FROM zc GROUP BY 1) x"
want=$(psqlq -c "SET pg_strom.enabled = off" -c "$q")
for workers in 0 8; do
	wait_ready
	pid=$(psqlq -c "SELECT pid FROM pgstrom.gpu_service_status() LIMIT 1")
	( psqlq -c "SET pg_strom.regression_test_mode = on" -c "SET max_parallel_workers_per_gather = $workers" \
		-c "SELECT zc_loop(40, \$q\$$q\$q\$, \$w\$$want\$w\$)" > /tmp/zc_loop.out 2>&1 ) &
	sleep 0.8
	kill -9 "$pid"
	wait
	check "GpuPreAgg loop with $workers workers, service killed mid-loop" "$(tail -1 /tmp/zc_loop.out)" "40 ok, 0 wrong"
done
wait_ready

echo "--- a backend crash reinitializes shared memory"
old=$(psqlq -c "SELECT pid FROM pgstrom.gpu_service_status() LIMIT 1")
( psqlq -c "SET application_name = zc_crash" -c "SELECT pg_sleep(30)" >/dev/null 2>&1 ) &
sleep 1
victim=$(psqlq -c "SELECT pid FROM pg_stat_activity WHERE application_name = 'zc_crash' LIMIT 1")
[ -n "$victim" ] && kill -9 "$victim"
wait
sleep 3
for _ in $(seq 1 100); do psqlq -c "SELECT 1" >/dev/null 2>&1 && break; sleep 0.3; done
wait_ready
new=$(psqlq -c "SELECT pid FROM pgstrom.gpu_service_status() LIMIT 1")
check "the old service is gone" "$(kill -0 "$old" 2>/dev/null && echo alive || echo gone)" gone
check "a new service runs" "$([ -n "$new" ] && [ "$new" != "$old" ] && echo yes || echo "no ($old -> $new)")" yes
psqlq -c "SELECT device, shared_registered, shared_register_ms FROM pgstrom.gpu_device_info()"
cnt=$(psqlq -c "SET pg_strom.regression_test_mode = on" -c "SELECT count(*) FROM zc WHERE v >= 0")
want=$(psqlq -c "SET pg_strom.enabled = off" -c "SELECT count(*) FROM zc WHERE v >= 0")
check "result right after the crash-restart" "$cnt" "$want"

echo "zerocopy checks: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
