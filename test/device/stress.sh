#!/usr/bin/env bash
# test/device/stress.sh: the stress harness (test/stress) on the GPU:
#   kill:     kill -9 of the GPU service every 10 s for 300 s under 16
#             clients of GpuScan/GpuPreAgg queries, pgbench -S -c 4 and 2
#             sessions of read-write transactions;
#   sessions: 64 sessions of GPU queries for 300 s, no kills.
# Every result is compared with PostgreSQL's (pg_strom.enabled = off).
# Run one part per call where a call may last at most 10 minutes:
#   STRESS_PARTS=kill bash test/device/stress.sh
#   STRESS_PARTS=sessions bash test/device/stress.sh
# The table (STRESS_ROWS, default 4,000,000) is loaded once and kept in
# the cluster (PGDATA) while it exists.
# Other knobs: STRESS_SECS, STRESS_CLIENTS, STRESS_KILL_INTERVAL,
# STRESS_PARALLEL, STRESS_ARGS (more harness flags).
# Needs: a GPU machine with 16 cores; PGSTROM_STAGE staged by stage.sh
# (pg.tgz, stress; test/stress/stage_device.sh stages stress alone into
# .device) and cluster.sh (variables: env.sh).
# Takes about 6 minutes a part (300 s of load plus the table's load).
# No -e: a failed step is reported and the next one runs.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/env.sh" || exit 2
mkdir -p "$OUT"
PARTS=${STRESS_PARTS:-"kill sessions"}
rows=${STRESS_ROWS:-4000000}
secs=${STRESS_SECS:-300}
clients=${STRESS_CLIENTS:-16}
interval=${STRESS_KILL_INTERVAL:-10s}
par=${STRESS_PARALLEL:-4}
device_need_staged stress
echo "=== start"
bash "$R" start || exit 1
eval "$(bash "$R" env)"
trap 'echo "=== stop"; bash "$R" stop' EXIT
log=$PGDATA/server.log
rc=0
for part in $PARTS; do
	case $part in
	kill)
		echo "=== kill -9 every $interval for $secs s: $clients clients, pgbench -S -c 4, $rows rows"
		"$STAGE/stress" -label kill-9 -duration "${secs}s" -clients "$clients" -kill-interval "$interval" \
			-rows "$rows" -parallel "$par" -txn-clients 2 -pgbench "$PGBIN/pgbench" -pgbench-clients 4 \
			-pgbench-scale 10 -server-log "$log" ${STRESS_ARGS:-} 2>&1 | tee "$OUT/stress-kill.txt"
		[ "${PIPESTATUS[0]}" = 0 ] || rc=1
		;;
	sessions)
		echo "=== 64 sessions for $secs s, no kills, $rows rows"
		"$STAGE/stress" -label sessions-64 -duration "${secs}s" -clients 64 -kill-interval 0 \
			-rows "$rows" -parallel "$par" -txn-clients 0 -server-log "$log" ${STRESS_ARGS:-} 2>&1 | tee "$OUT/stress-sessions.txt"
		[ "${PIPESTATUS[0]}" = 0 ] || rc=1
		;;
	*) echo "unknown part $part"; rc=2 ;;
	esac
done
bash "$R" psql -c 'SELECT pid, state, restarts, pool_used, pool_total, connections FROM pgstrom.gpu_service_status()'
exit $rc
