#!/usr/bin/env bash
# test/device/diag_timeline.sh: where a GPU scan's time goes.  One load of
# w1_narrow at scale 1, then the W1 queries in GPU mode with every
# participant's timeline (task_timeline.c, DEBUG1) and the GPU service's
# user and system CPU, in four settings:
#   A  shared_buffers 16GB, 4 kB pages (no huge pages)
#   B  the same with huge pages (vm.nr_hugepages, huge_pages = on)
#   C  shared_buffers 4GB with huge pages: direct read
#   D  C with PGSTROM_DIRECT_READ_WORKERS=${DIAG_DIRECT_WORKERS:-4}
# DIAG_RUNS (default 3) and DIAG_QUERIES choose the runs and queries.
# Results to $OUT/diag-*.txt and the server logs.
# Needs: a GPU machine with 16 cores and about 64 GB of memory or more;
# root (it sets vm.nr_hugepages); PGSTROM_STAGE staged by stage.sh (pg.tgz,
# pgstrom-bench) and a new cluster of cluster.sh (variables: env.sh).
# Takes about 8-10 minutes (the load about 3).
# No -e: a failed step is reported and the next one runs.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/env.sh" || exit 2
mkdir -p "$OUT"
B=$STAGE/pgstrom-bench
device_need_staged pgstrom-bench
eval "$(bash "$R" env)"
runs=${DIAG_RUNS:-3}
queries=${DIAG_QUERIES:-sum_expr group_8 preagg_10 arith_pred count_1pct}

sql_of() {
	case $1 in
	count_1pct) echo "SELECT count(*) FROM w1_narrow WHERE a BETWEEN 250000 AND 259999" ;;
	sum_expr) echo "SELECT sum(x * 2 + y * 0.5 - (a % 7)::float8), count(*) FROM w1_narrow WHERE d >= date '2005-01-01'" ;;
	group_8) echo "SELECT c, count(*), sum(x), avg(y) FROM w1_narrow WHERE e < 9000 GROUP BY c" ;;
	preagg_10) echo "SELECT a % 10 AS k, count(*), sum(x), avg(y) FROM w1_narrow WHERE e < 9000 GROUP BY 1" ;;
	arith_pred) echo "SELECT count(*), sum(a) FROM w1_narrow WHERE (x * 1.5 + y * y / 7.0 - (a % 1000)::float8 * 0.25) * ((b % 13) + 1)::float8 > abs(x - y) * 3.0 + (id % 1000)::float8 + 20000.0 AND (a * 3 + e) % 11 < 7" ;;
	esac
}
huge_pages() {
	echo "$1" > /proc/sys/vm/nr_hugepages 2>/dev/null || echo "cannot set vm.nr_hugepages"
	grep -E "HugePages_(Total|Free)" /proc/meminfo | tr '\n' ' '; echo
}
wait_ready() {
	psql -X -q -c 'CREATE EXTENSION IF NOT EXISTS pg_strom' -c 'CREATE EXTENSION IF NOT EXISTS pg_prewarm'
	psql -X -q -c "DO \$\$ BEGIN FOR i IN 1..600 LOOP
		EXIT WHEN (SELECT state FROM pgstrom.gpu_service_status() LIMIT 1) <> 'starting';
		PERFORM pg_sleep(0.1); END LOOP; END \$\$"
	psql -X -At -c "SELECT 'shared_buffers ' || current_setting('shared_buffers') || ', huge_pages ' || current_setting('huge_pages') || ', service ' || state FROM pgstrom.gpu_service_status()"
	grep -E "HugePages_(Total|Free)" /proc/meminfo | tr '\n' ' '; echo
}
busy() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9}' /proc/stat; }
svc_ticks() {
	local p; p=$(pgrep -f "GPU Service service process" | head -1)
	[ -n "$p" ] && awk '{print $14, $15}' "/proc/$p/stat" || echo "0 0"
}
timeline() {
	local label=$1 extra=$2 f="$OUT/diag-$1.txt"
	psql -X -q -c "SELECT pg_prewarm('w1_narrow')" >/dev/null
	for q in $queries; do
		for i in $(seq 1 $((runs + 1))); do
			read -r u0 s0 < <(svc_ticks); b0=$(busy); t0=$(date +%s%N)
			psql -X -q -c "SET max_parallel_workers_per_gather = 16" -c "SET parallel_setup_cost = 0" \
				-c "SET client_min_messages = debug1" ${extra:+-c "$extra"} -c "$(sql_of "$q")" > /tmp/diag.out 2> /tmp/diag.err
			t1=$(date +%s%N); b1=$(busy); read -r u1 s1 < <(svc_ticks)
			echo "$label $q run $i: $(( (t1 - t0) / 1000000 )) ms; host busy $((b1 - b0)) ticks; service user $((u1 - u0)) sys $((s1 - s0)) ticks; threads $(grep Threads "/proc/$(pgrep -f 'GPU Service service process' | head -1)/status" | awk '{print $2}')" | tee -a "$f"
			grep -o "timeline, .*" /tmp/diag.err | sed 's/^timeline, /  /' | sort -t' ' -k4 -n >> "$f"
			grep -E "ERROR|FATAL" /tmp/diag.err | head -3 | tee -a "$f"
		done
	done
	psql -X -c "SET max_parallel_workers_per_gather = 16" -c "SET parallel_setup_cost = 0" ${extra:+-c "$extra"} \
		-c "EXPLAIN (ANALYZE, VERBOSE, COSTS OFF) $(sql_of preagg_10)" >> "$f" 2>&1
}

echo "=== A: shared_buffers 16GB, no huge pages"
huge_pages 0
bash "$R" start || exit 1
wait_ready
t0=$SECONDS
timeout "${BENCH_LOAD_TIMEOUT:-330}" "$B" load -scale 1 -tables w1_narrow || echo "load failed: $?"
echo "load: $((SECONDS - t0)) s"
timeline A ""
psql -X -q -c "ALTER SYSTEM SET huge_pages = 'on'"
bash "$R" stop; mv "$OUT/server.log" "$OUT/server-A.log"

echo "=== B: shared_buffers 16GB, huge pages"
huge_pages "${DIAG_HUGE_PAGES_16G:-8800}"
bash "$R" start || exit 1
wait_ready
timeline B ""
psql -X -q -c "ALTER SYSTEM SET shared_buffers = '4GB'"
bash "$R" stop; mv "$OUT/server.log" "$OUT/server-B.log"

echo "=== C: shared_buffers 4GB, huge pages, direct read"
huge_pages "${DIAG_HUGE_PAGES_4G:-2300}"
bash "$R" start || exit 1
wait_ready
queries="group_8 preagg_10" timeline C "SET pg_strom.direct_read = on"
bash "$R" stop; mv "$OUT/server.log" "$OUT/server-C.log"

echo "=== D: C with PGSTROM_DIRECT_READ_WORKERS=${DIAG_DIRECT_WORKERS:-4}"
PGSTROM_DIRECT_READ_WORKERS=${DIAG_DIRECT_WORKERS:-4} bash "$R" start || exit 1
wait_ready
queries="group_8 preagg_10" timeline D "SET pg_strom.direct_read = on"
bash "$R" stop; mv "$OUT/server.log" "$OUT/server-D.log"
