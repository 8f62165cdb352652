#!/usr/bin/env bash
# test/device/on_gpu.sh: the suites on the GPU.  Starts a cluster, shows the
# service's status and devices, then runs the parts of PARTS (default
# "regress explain bench pgbench gotests lifecycle starjoin"):
#   regress     pg_regress of test/sql on the GPU service (at most 240 s)
#   explain     EXPLAIN ANALYZE of regress queries: the GPU did the work
#   bench       bench_gpuscan.sh (at most 400 s)
#   pgbench     pgbench -S -c 8 for 25 s with kill -9 of the service
#   gotests     gosvc/gpu's tests (gpu.test; GOTEST_RUN picks some; at most 240 s)
#   lifecycle   test/lifecycle's tests but TestDirectRead and TestStarJoin
#               (lifecycle.test; at most 200 s).  The ones that use the
#               TEST-ONLY host executor build it with go: without Go they
#               fail unless PGSTROM_HOSTEXEC_SO names a built library
#               (make test runs them on the CPU)
#   starjoin    the random star-join queries against PostgreSQL (at most 500 s)
# and, only when named: kerneltest (the kernels' tests of kernels/test
# built with nvcc and run on the device), suite (bench_suite.sh), checks
# (checks.sh), zerocopy (zerocopy_checks.sh), pagecache
# (pagecache_checks.sh: the cluster's page cache at its automatic size), aio
# (aio_checks.sh: GPU scans while other backends read the same pages;
# PostgreSQL 18's asynchronous reads), direct (the direct-read
# lifecycle tests that run on the GPU service, at most 420 s).  The cluster
# is stopped before gotests, lifecycle, starjoin and direct, which start
# their own.  Results and server.log to $OUT.
# Needs: a GPU machine with 16 cores and about 32 GB of memory or more; the
# repository (run from its root); PGSTROM_STAGE staged by stage.sh (pg.tgz,
# gpu.test, lifecycle.test, pgstrom-bench) and cluster.sh (variables:
# env.sh); nvcc (NVCC, default /usr/local/cuda/bin/nvcc) for kerneltest and
# for gpu.test; root to reserve huge pages and for the lifecycle tests'
# unprivileged user.
# Takes: every default part is over 10 minutes (about 20); one call of at
# most 10 minutes takes e.g. PARTS="regress explain gotests starjoin"
# (about 8) or PARTS="bench pgbench lifecycle" (about 6).
# No -e: a failed step is reported and the next one runs.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/env.sh" || exit 2
device_need_repo
mkdir -p "$OUT"
psqlc() { bash "$R" psql "$@"; }
# PARTS limits the run, e.g. PARTS="regress bench gotests"; default: everything
PARTS=${PARTS:-"regress explain bench pgbench gotests lifecycle starjoin"}
want() { case " $PARTS " in *" $1 "*) return 0;; esac; return 1; }
! want gotests || device_need_staged gpu.test
{ ! want lifecycle && ! want starjoin && ! want direct; } || device_need_staged lifecycle.test
{ ! want bench && ! want suite && ! want checks; } || device_need_staged pgstrom-bench
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}

echo "=== start"
. "$here/hugepages.sh"
reserve_huge_pages 16
bash "$R" start || exit 1
eval "$(bash "$R" env)"
psqlc -c 'CREATE EXTENSION pg_strom'
psqlc -q -c "DO \$\$ BEGIN FOR i IN 1..600 LOOP
	EXIT WHEN (SELECT state FROM pgstrom.gpu_service_status() LIMIT 1) <> 'starting';
	PERFORM pg_sleep(0.1); END LOOP; END \$\$"
psqlc -c 'SELECT * FROM pgstrom.gpu_service_status()' -c 'SELECT * FROM pgstrom.gpu_device_info()'
ls -la "$PGDATA"/.pgstrom_fatbin "$PGDATA"/.pg_strom.* 2>&1

if want regress; then
echo "=== pg_regress"
tests=$(ls test/sql | sed 's/\.sql$//' | sort)
pg_regress=$(dirname "$(pg_config --pgxs)")/../test/regress/pg_regress
# shellcheck disable=SC2086
timeout 240 "$pg_regress" --inputdir=test --outputdir="$OUT" \
	--bindir="$PGBIN" --host="$PGHOST" --port="$PGPORT" --user="$PGUSER" --dbname=contrib_regression $tests \
	|| head -c 200000 "$OUT/regression.diffs"
# $OUT returns at most 8 files: one archive for the outputs
tar czf "$OUT/regress-results.tgz" -C "$OUT" results regression.diffs 2>/dev/null; rm -rf "$OUT/results" "$OUT/regression.out"

fi
if want explain; then
echo "=== the GPU did the work: EXPLAIN ANALYZE over regress tables"
for q in "SELECT id FROM t_int WHERE a > 0 AND b < 100" \
	"SELECT id FROM t_text WHERE t LIKE 'k1%x' OR v > 'v5'" \
	"SELECT id FROM t_numeric WHERE n + m > 0" \
	"SELECT id FROM t_datetime WHERE extract(year FROM d) = 2003" \
	"SELECT g, count(*), sum(b), avg(f8), stddev(c) FROM t_pa WHERE a > 0 GROUP BY g" \
	"SELECT gt, count(*), max(d) FROM t_pa GROUP BY gt" \
	"SELECT k, count(*), sum(v) FROM t_pa_many GROUP BY k" \
	"SELECT DISTINCT gt FROM t_pa" \
	"SELECT g, g2, grouping(g, g2), count(*), sum(b), avg(f8) FROM t_pa GROUP BY ROLLUP (g, g2)" \
	"SELECT id FROM t_text WHERE t ~ '^k1.*x$' OR c LIKE 'c1%' OR concat_ws('/', t, v) LIKE 'a%'" \
	"SELECT id FROM t_datetime WHERE ts::date = d OR tz + interval '1 month' < ts::timestamptz" \
	"SELECT f.id, d1.name, d2.v, d3.w, d4.s FROM gj_fact f JOIN gj_d1 d1 ON f.k_int = d1.id LEFT JOIN gj_d2 d2 ON f.k_big = d2.k JOIN gj_d3 d3 ON d3.t = f.k_text JOIN gj_d4 d4 ON d4.c = f.k_char" \
	"SELECT f.id, s.n FROM gj_fact f JOIN gj_skew s ON f.k_int = s.id" \
	"SELECT f.id, d1.name, d3.w FROM gj_fact f JOIN gj_d1 d1 ON f.k_int = d1.id AND f.v > d1.id % 13 LEFT JOIN gj_d3 d3 ON d3.t = f.k_text AND d3.w > f.v" \
	"SELECT dt.d_year, p.p_brand, count(*), sum(p.p_weight) FROM gj_fact f LEFT JOIN gpa_date dt ON f.k_int = dt.d_datekey AND dt.d_month <> 3 LEFT JOIN gpa_part p ON f.k_small = p.p_partkey AND (p.p_size > f.k_num OR dt.d_year IS NULL) GROUP BY 1, 2"; do
	timeout 60 bash "$R" psql -d contrib_regression -c "SET search_path = public" -c "SET pg_strom.regression_test_mode = on" -c "EXPLAIN (ANALYZE, COSTS OFF, SUMMARY OFF) $q" 2>&1 | grep -vE "^ *(QUERY PLAN|-+|\([0-9]+ rows\))? *$"
done
psqlc -c 'SELECT pid, state, restarts, device, workers, pool_used, pool_total, connections FROM pgstrom.gpu_service_status()'

fi
if want bench; then
echo "=== benchmark"
timeout 400 bash "$here/bench_gpuscan.sh"
fi
if want kerneltest; then
# the four device tests compile side by side (nvcc uses one core each),
# then run one after another
echo "=== kernel tests on the device: compile"
kt=$(mktemp -d)
for t in gpu_test gpu_test_preagg gpu_test_join gpu_test_join_preagg; do
	(cd kernels/test && "$NVCC" -O2 -I.. -I../../include -arch=sm_90 -o "$kt/$t" "$t.cu" -lstdc++ -lm >"$kt/$t.log" 2>&1 ||
		{ echo "$t: compile failed"; tail -5 "$kt/$t.log"; }) &
done
wait
run_kt() {
	echo "=== $1"
	[ -x "$kt/$2" ] && (cd kernels/test && timeout 120 "$kt/$2" vectors.txt 2>&1 | grep -E "$3" | tail -24)
}
run_kt "GpuScan expressions on the device against the host evaluation" gpu_test "FAIL|passed"
run_kt "GpuPreAgg kernel test on the device" gpu_test_preagg "FAIL|gpu preagg:|grid <= 264"
run_kt "GpuJoin kernel test on the device" gpu_test_join "FAIL|gpu join:"
run_kt "GpuPreAgg fused over GpuJoin, kernel test on the device" gpu_test_join_preagg "FAIL|join preagg"
rm -rf "$kt"
fi
if want suite; then
echo "=== bench/ suite"
bash "$here/bench_suite.sh"
fi
if want checks; then
bash "$here/checks.sh"
fi
if want zerocopy; then
echo "=== zero-copy checks"
timeout 300 bash "$here/zerocopy_checks.sh"
fi
if want pagecache; then
echo "=== device page cache checks"
timeout 240 bash "$here/pagecache_checks.sh"
fi
if want aio; then
echo "=== GPU scans while other backends read the same pages"
timeout 240 bash "$here/aio_checks.sh"
fi
if want pgbench; then
echo "=== pgbench -c 8 -S with kill -9 of the GPU service"
"$PGBIN/pgbench" -q -i -s 10 postgres >/dev/null 2>&1
"$PGBIN/pgbench" -n -S -c 8 -j 8 -T 25 postgres > "$OUT/pgbench.txt" 2>&1 &
bench=$!
sleep 5
old=$(psqlc -Atc 'SELECT pid FROM pgstrom.gpu_service_status() LIMIT 1')
before=$(psqlc -Atc "SELECT count(*) FROM pg_stat_activity WHERE application_name='pgbench'")
t0=$(date +%s.%N); kill -9 "$old"
for i in $(seq 1 300); do
	st=$(psqlc -Atc "SELECT state||' '||coalesce(pid::text,'') FROM pgstrom.gpu_service_status() LIMIT 1")
	case "$st" in "ready "*) [ "${st#ready }" != "$old" ] && break;; esac
	sleep 0.1
done
t1=$(date +%s.%N)
after=$(psqlc -Atc "SELECT count(*) FROM pg_stat_activity WHERE application_name='pgbench'")
echo "killed service pid $old; back as '$st' after $(echo "$t1 - $t0" | bc 2>/dev/null || python3 -c "print($t1-$t0)") s; pgbench backends before $before, after $after"
wait $bench; echo "pgbench exit $?"; grep -E "aborted|number of transactions actually|tps|failed" "$OUT/pgbench.txt"
psqlc -c 'SELECT pid, state, restarts, device, workers, pool_used, pool_total, connections FROM pgstrom.gpu_service_status()'
grep -E "terminated by signal|GPU Service|GPU0:|SVC:" "$PGDATA/server.log" | tail -15

fi
echo "=== stop"
t0=$(date +%s.%N); bash "$R" stop; t1=$(date +%s.%N)
echo "stop took $(python3 -c "print(round($t1-$t0,2))") s; sockets left: $(ls "$PGDATA"/.pg_strom.* 2>/dev/null | wc -l)"
grep -E "GPU0:|SVC:" "$PGDATA/server.log" | head -20

if want gotests; then
echo "=== GPU-only Go tests"
# each test's result line and any failure's log; a binary ended by the
# bound says so, since its last tests then have no result line
(cd gosvc/gpu && timeout 240 "$STAGE/gpu.test" -test.v -test.count=1 ${GOTEST_RUN:+-test.run "$GOTEST_RUN"} >"$OUT/gpu.test.log" 2>&1
	rc=$?; [ $rc -eq 124 ] && echo "gpu.test: ended by its 240 s bound"
	grep -E "^(--- |PASS|FAIL|ok|panic)" "$OUT/gpu.test.log"; grep -B20 -E "^--- FAIL" "$OUT/gpu.test.log" | grep -E "_test.go" | tail -40)

fi
if want lifecycle; then
echo "=== lifecycle tests"
timeout 200 "$STAGE/lifecycle.test" -test.v -test.timeout 3m -test.skip 'TestDirectRead|TestStarJoin' 2>&1 | grep -vE '^\s*$' | tail -60
fi
if want starjoin; then
echo "=== random star-join queries on the GPU service, compared with PostgreSQL (test/lifecycle/starjoin_test.go)"
# STARJOIN_SEED etc. pass through; the server log lines are left out
timeout 500 "$STAGE/lifecycle.test" -test.v -test.timeout 8m -test.run '^TestStarJoin' 2>&1 |
	grep -vE '^\s*$|^        20[0-9][0-9]-' | tail -80
fi
if want direct; then
echo "=== direct-read lifecycle tests on the GPU service (the fault and 1 GB ones need the host executor, CI runs them)"
timeout 420 "$STAGE/lifecycle.test" -test.v -test.timeout 7m -test.run '^TestDirectRead(LargerThanSharedBuffers|WithConcurrentWriters|Tablespace|ChecksumFailure)$' 2>&1 | grep -E '^(=== RUN|--- |    |ok|FAIL|PASS)' | tail -60
fi
