#!/usr/bin/env bash
# The stress harness (test/stress) in CI, under the TEST-ONLY host executor
# (the real GPU service and backend paths, the kernels run on the CPU):
#  1. kill -9 of the GPU service every 10 s for 60 s under 8 clients of
#     GpuScan/GpuPreAgg queries, pgbench -S and 2 sessions of read-write
#     transactions at 200 a second each (100,000 rows);
#  2. 64 sessions of GPU queries for 20 s, no kills.
# Every result is compared with PostgreSQL's own. Fails when a GPU query
# fails or is wrong, a transaction fails or the cluster restarts.
# STRESS_KILL_SECS, STRESS_SESSIONS_SECS, STRESS_ROWS, STRESS_CLIENTS,
# STRESS_SIDE_RATE, STRESS_PARTS ("kill sessions") change the run; PGSTROM_STRESS_PORT the port.
# PGSTROM_HOSTEXEC_SO names a prebuilt host executor library; it is
# installed for the run and removed after (unless another test run shares
# it: test/lib.sh); with PGSTROM_HOSTEXEC_INSTALLED=1 the caller
# (test/run_all.sh) has installed it for its whole run.
set -uo pipefail
cd "$(dirname "$0")/../.."
. test/lib.sh
port=${PGSTROM_STRESS_PORT:-55460}
kill_secs=${STRESS_KILL_SECS:-60}
sessions_secs=${STRESS_SESSIONS_SECS:-20}
rows=${STRESS_ROWS:-100000}
clients=${STRESS_CLIENTS:-8}
# transactions a second of each pgbench and read-write client: enough to
# show that PostgreSQL's own work goes on through the kills, without
# taking the cores from the GPU queries (0: as fast as they go)
side_rate=${STRESS_SIDE_RATE:-200}
parts=${STRESS_PARTS:-"kill sessions"}
dir=$(mktemp -d /tmp/stress-ci.XXXXXX)
out=$(mktemp -d /tmp/stress-ci-out.XXXXXX)
lib=$(hostexec_lib)
put=
cleanup() {
	cluster_stop "$dir"
	hostexec_unuse "$put"
	[ "${KEEP_TEST_CLUSTER:-}" ] || rm -rf "$dir" "$out"
}
trap cleanup EXIT
set -e

echo "--- building the harness and the TEST-ONLY host executor library"
CGO_ENABLED=0 go build -o "$out/stress" ./test/stress
if [ "${PGSTROM_HOSTEXEC_INSTALLED:-}" = 1 ]; then
	[ -f "$lib" ] || { echo "FAILED: PGSTROM_HOSTEXEC_INSTALLED=1, but $lib is not installed"; exit 1; }
else
	so=${PGSTROM_HOSTEXEC_SO:-}
	if [ -z "$so" ]; then
		so=$out/hostexec.so
		CGO_ENABLED=1 go build -buildmode=c-shared -o "$so" ./gosvc/hostexec/cmd/pg_strom_gosvc_hostexec
	fi
	hostexec_use
	hostexec_put "$so"
	put=1
fi

start() {
	PG_STROM_TEST_HOST_EXECUTOR=1 cluster_start "$dir" "$port"
}
start
cluster_psql "$dir" "$port" -q -c "ALTER SYSTEM SET shared_buffers = '256MB'" -c "ALTER SYSTEM SET max_connections = 150"
cluster_stop "$dir"
start
grep -q "GPU service runs the TEST-ONLY host executor" "$dir/server.log" ||
	for _ in $(seq 1 100); do sleep 0.2; grep -q "GPU service runs the TEST-ONLY host executor" "$dir/server.log" && break; done
grep -q "GPU service runs the TEST-ONLY host executor" "$dir/server.log" ||
	{ echo "FAILED: the service does not run the host executor"; tail -30 "$dir/server.log"; exit 1; }
set +e

export PGHOST=$dir PGPORT=$port PGUSER=$PGSTROM_TEST_USER PGDATABASE=postgres
rc=0
case " $parts " in *" kill "*)
	echo "--- kill -9 of the service every 10 s for $kill_secs s, $clients clients, pgbench -S, $rows rows"
	"$out/stress" -label kill-9 -duration "${kill_secs}s" -clients "$clients" -kill-interval 10s -rows "$rows" \
		-parallel 2 -txn-clients 2 -pgbench "$PGBIN/pgbench" -pgbench-clients 2 -side-rate "$side_rate" \
		-server-log "$dir/server.log" || rc=1
esac
case " $parts " in *" sessions "*)
	echo "--- 64 sessions for $sessions_secs s, no kills"
	"$out/stress" -label sessions-64 -duration "${sessions_secs}s" -clients 64 -kill-interval 0 -rows "$rows" \
		-parallel 2 -txn-clients 0 -load auto -server-log "$dir/server.log" || rc=1
esac
exit $rc
