#!/usr/bin/env bash
# test/device/bench_ssb.sh: the SSB benchmark.  A cluster with
# shared_buffers = SSB_SHARED_BUFFERS (default 24GB, so scale factor 20
# fits), SSB loaded at SSB_SF (default 20) as the bench datasets
# SSB_TABLES (default ssb; ssb,ssb_partitioned adds the partitioned fact
# table and the side-by-side comparison), the 13 queries in PostgreSQL's
# two modes and on the GPU (BENCH_RUNS timed runs each, default 1), the
# plans, and the fixed latency of a GPU query (a small table, pgbench),
# which pg_strom.gpu_setup_cost stands for.  SSB_FORCED=1 adds the queries
# with PostgreSQL's joins off in the GPU mode; SSB_DMA_AB="0 8" times
# SSB_DMA_QUERIES again with each PGSTROM_GATHER_DMA_MIN_PAGES;
# SSB_BUILD_AB="NAME:FOLDER" times SSB_TABLES again on another staged build
# of pg_strom over the same data; SSB_TIMELINES="Q1.1 ..." runs those
# queries once more with every participant's timeline and the GPU
# service's queue waits.  Results to $OUT.
# Needs: a GPU machine with 16 cores and about 64 GB of memory or more;
# PGSTROM_STAGE staged by stage.sh (pg.tgz, pgstrom-bench) and the cluster
# of cluster.sh (variables: env.sh); root to reserve huge pages.
# Takes about 6-9 minutes at scale factor 20 (the load about 3-4);
# SSB_FORCED and SSB_DMA_AB add up to 4 and 2 minutes a setting,
# SSB_BUILD_AB a run of SSB_TABLES a build.
# No -e: a failed step is reported and the next one runs.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/env.sh" || exit 2
mkdir -p "$OUT"
B=$STAGE/pgstrom-bench
device_need_staged pgstrom-bench
conf=$(mktemp)
echo "shared_buffers = ${SSB_SHARED_BUFFERS:-24GB}" > "$conf"
chmod 644 "$conf"
. "$here/hugepages.sh"
reserve_huge_pages 24
bash "$R" start "$conf" || exit 1
eval "$(bash "$R" env)"
psql -X -q -c 'CREATE EXTENSION IF NOT EXISTS pg_strom' -c 'CREATE EXTENSION IF NOT EXISTS pg_prewarm'
device_wait_service
psql -X -c 'SHOW shared_buffers' -c 'SELECT state, reason FROM pgstrom.gpu_service_status()'

echo "=== latency of a small GPU query (pg_strom.gpu_setup_cost)"
psql -X -q -c "CREATE TABLE lat_small AS SELECT i AS a, i % 7 AS b FROM generate_series(1, 10000) i" -c "VACUUM FREEZE ANALYZE lat_small"
echo "SELECT b, count(*), sum(a) FROM lat_small WHERE a > 10 GROUP BY b;" > /tmp/lat.sql
for mode in off on; do
	PGOPTIONS="-c pg_strom.enabled=$mode -c pg_strom.gpu_setup_cost=0 -c pg_strom.gpu_page_cost=0" \
		psql -X -c "EXPLAIN (COSTS OFF) SELECT b, count(*), sum(a) FROM lat_small WHERE a > 10 GROUP BY b" | grep -E "Custom|Seq Scan"
	PGOPTIONS="-c pg_strom.enabled=$mode -c pg_strom.gpu_setup_cost=0 -c pg_strom.gpu_page_cost=0" \
		timeout 60 pgbench -n -t 300 -f /tmp/lat.sql 2>&1 | grep -E "latency average"
	echo "(pg_strom.enabled=$mode)"
done

t0=$SECONDS
timeout "${BENCH_LOAD_TIMEOUT:-300}" "$B" load -sf "${SSB_SF:-20}" -tables "${SSB_TABLES:-ssb}" || echo "load failed: $?"
echo "load: $((SECONDS - t0)) s"
t0=$SECONDS
timeout "${BENCH_RUN_TIMEOUT:-330}" "$B" run -tables "${SSB_TABLES:-ssb}" -runs "${BENCH_RUNS:-1}" ${BENCH_RUN_FLAGS:-} \
	-json "$OUT/bench-ssb.json" -png "$OUT/bench-ssb.png" -plans "$OUT/plans-ssb.txt" > "$OUT/bench-ssb.txt"
echo "run ssb: exit $?, $((SECONDS - t0)) s"
cat "$OUT/bench-ssb.txt"
if [ -n "${SSB_FORCED:-}" ]; then
	# the GPU plans PostgreSQL's hash joins would otherwise win against:
	# the same queries with hash, merge and nested-loop joins off in the
	# GPU mode only (GpuJoin and the fused GpuPreAgg are custom paths)
	t0=$SECONDS
	timeout "${BENCH_FORCED_TIMEOUT:-240}" "$B" run -tables ssb -runs "${BENCH_RUNS:-1}" \
		-gpu-set enable_hashjoin=off,enable_mergejoin=off,enable_nestloop=off \
		-json "$OUT/bench-ssb-forced.json" -plans "$OUT/plans-ssb-forced.txt" > "$OUT/bench-ssb-forced.txt"
	echo "run ssb forced: exit $?, $((SECONDS - t0)) s"
	cat "$OUT/bench-ssb-forced.txt"
fi
# SSB_DMA_AB="0 8": the cluster restarted with each PGSTROM_GATHER_DMA_MIN_PAGES
# (0: the SM gather only) and SSB_DMA_QUERIES timed again, with the
# service's "zero-copy gather" summary (pages by DMA, copies, kernel pages)
log=$PGDATA/server.log
for n in ${SSB_DMA_AB:-}; do
	bash "$R" stop >/dev/null
	PGSTROM_GATHER_DMA_MIN_PAGES=$n bash "$R" start >/dev/null || exit 1
	psql -X -q -c "DO \$\$ BEGIN FOR i IN 1..600 LOOP
		EXIT WHEN (SELECT state FROM pgstrom.gpu_service_status() LIMIT 1) <> 'starting';
		PERFORM pg_sleep(0.1); END LOOP; END \$\$"
	from=$(wc -l < "$log")
	echo "=== PGSTROM_GATHER_DMA_MIN_PAGES=$n"
	timeout "${BENCH_AB_TIMEOUT:-120}" "$B" run -tables ssb -runs 1 -queries "${SSB_DMA_QUERIES:-Q1.1,Q2.1,Q3.1,Q4.2}" \
		-json "$OUT/bench-ssb-dma$n.json" > "$OUT/bench-ssb-dma$n.txt"
	echo "run: exit $?"
	sed -n '/^summary/,/^Σ/p' "$OUT/bench-ssb-dma$n.txt"
	sleep 11 # the summary is logged at most every 10 s
	tail -n +"$((from + 1))" "$log" | grep "zero-copy gather" | tail -2
done
# SSB_BUILD_AB="NAME:FOLDER ...": the loaded cluster restarted on each other
# staged build (FOLDER/pg.tgz of stage.sh, unpacked over the first one; the
# data stays), SSB_TABLES timed again into bench-ssb-NAME.* with its
# summaries; the builds must share one catalog (pg_strom's SQL objects)
for pair in ${SSB_BUILD_AB:-}; do
	name=${pair%%:*} folder=$(cd "${pair#*:}" && pwd)
	bash "$R" stop >/dev/null
	touch "$folder/pg.tgz"
	PGSTROM_STAGE=$folder bash "$R" start >/dev/null || exit 1
	psql -X -q -c "DO \$\$ BEGIN FOR i IN 1..600 LOOP
		EXIT WHEN (SELECT state FROM pgstrom.gpu_service_status() LIMIT 1) <> 'starting';
		PERFORM pg_sleep(0.1); END LOOP; END \$\$"
	echo "=== build $name ($folder)"
	t0=$SECONDS
	timeout "${BENCH_RUN_TIMEOUT:-330}" "$B" run -tables "${SSB_TABLES:-ssb}" -runs "${BENCH_RUNS:-1}" ${BENCH_RUN_FLAGS:-} \
		-json "$OUT/bench-ssb-$name.json" -plans "$OUT/plans-ssb-$name.txt" > "$OUT/bench-ssb-$name.txt"
	echo "run ssb ($name): exit $?, $((SECONDS - t0)) s"
	sed -n '/^summary/,$p' "$OUT/bench-ssb-$name.txt"
done
# SSB_TIMELINES="Q1.1 Q2.1": each query over each table of SSB_TABLES once
# more in the GPU mode, with every participant's timeline (DEBUG1) into
# tl-QUERY-TABLE.txt, its EXPLAIN ANALYZE into ea-QUERY-TABLE.txt, and the
# GPU service's commands of that run (pg_strom.gpuserv_debug_output) summed
# per kind: how many, their mean and largest wait in the queue, their mean
# run time
for q in ${SSB_TIMELINES:-}; do
	for t in $(echo "${SSB_TABLES:-ssb}" | tr ',' ' '); do
		sql=$("$B" sql -tables "$t" -queries "$q" | grep -v '^--')
		f="$OUT/tl-$q-$t.txt"
		psql -X -q -c "SET pg_strom.gpuserv_debug_output = on"
		sleep 1
		from=$(wc -l < "$log")
		t0=$(date +%s%N)
		psql -X -q -c "SET max_parallel_workers_per_gather = 16" -c "SET max_parallel_workers = 16" \
			-c "SET parallel_setup_cost = 0" -c "SET client_min_messages = debug1" -c "$sql" > /dev/null 2> /tmp/tl.err
		echo "$q on $t: $(( ($(date +%s%N) - t0) / 1000000 )) ms with debug output" > "$f"
		grep -o "on \"[^\"]*\" timeline, .*" /tmp/tl.err | sed "s/ timeline,//" >> "$f"
		grep -E "ERROR|FATAL" /tmp/tl.err | head -3 | tee -a "$f"
		sleep 1
		tail -n +"$((from + 1))" "$log" | grep "command served" |
			sed -E 's/.*queued_us=([0-9]+).*ran_us=([0-9]+).*tag=([A-Za-z]+).*/\3 \1 \2/' |
			awk '{n[$1]++; q[$1]+=$2; r[$1]+=$3; if ($2 > m[$1]) m[$1]=$2}
				END {for (k in n) printf "  service %-12s %6d commands, queued mean %8.0f us, max %8d us; ran mean %8.0f us\n", k, n[k], q[k]/n[k], m[k], r[k]/n[k]}' |
			sort >> "$f"
		psql -X -q -c "SET pg_strom.gpuserv_debug_output = off"
		psql -X -c "SET max_parallel_workers_per_gather = 16" -c "SET max_parallel_workers = 16" \
			-c "SET parallel_setup_cost = 0" -c "EXPLAIN (ANALYZE, COSTS OFF) $sql" > "$OUT/ea-$q-$t.txt" 2>&1
		head -1 "$f"; grep "service " "$f"
	done
done
