#!/usr/bin/env bash
# test/device/bench_pagecache.sh: SSB at scale factor SSB_SF (default 20)
# with the device page cache (pg_strom.gpu_page_cache_size = PC_SIZE,
# default 32GB; shared_buffers SSB_SHARED_BUFFERS, default 24GB): the load,
# a CHECKPOINT (PC_DIRTY=1: none, and none by time or WAL volume either, so
# the table's pages stay dirty in shared buffers, as right after a load;
# pg_buffercache counts them), one fact-table scan timed
# cold (it fills the cache), warm and with pg_strom.use_page_cache off, the
# 13 queries against PostgreSQL's two modes (BENCH_RUNS timed runs after the
# bench's warm-up, which fills the cache), the DEBUG1 timelines of Q1.1,
# Q3.1 and Q4.1, the kernel variants of PGSTROM_STAGE/variants
# (kernel_variants.sh) if staged, then pagecache_checks.sh (PC_CHECKS=0:
# not).  PC_TASKS="12 24 48" first picks the fastest
# pg_strom.max_async_tasks.  Results to $OUT.
# Needs: a GPU with 32 GB of device memory or more, a machine with 16 cores
# and about 64 GB of memory or more; PGSTROM_STAGE staged by stage.sh
# (pg.tgz, pgstrom-bench) and the cluster of cluster.sh (variables:
# env.sh); root to reserve huge pages.
# Takes about 8-10 minutes at scale factor 20 (the load about 3-4).
# No -e: a failed step is reported and the next one runs.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/env.sh" || exit 2
mkdir -p "$OUT"
B=$STAGE/pgstrom-bench
device_need_staged pgstrom-bench
conf=$(mktemp)
printf 'shared_buffers = %s\npg_strom.gpu_page_cache_size = %s\n' "${SSB_SHARED_BUFFERS:-24GB}" "${PC_SIZE:-32GB}" > "$conf"
[ "${PC_DIRTY:-0}" = 1 ] && printf 'checkpoint_timeout = 1d\nmax_wal_size = 40GB\n' >> "$conf"
chmod 644 "$conf"
. "$here/hugepages.sh"
reserve_huge_pages 24
bash "$R" start "$conf" || exit 1
eval "$(bash "$R" env)"
psql -X -q -c 'CREATE EXTENSION IF NOT EXISTS pg_strom' -c 'CREATE EXTENSION IF NOT EXISTS pg_prewarm'
device_wait_service
psql -X -c 'SHOW shared_buffers' -c 'SHOW pg_strom.gpu_page_cache_size' -c 'SELECT state, reason FROM pgstrom.gpu_service_status()'
log=$PGDATA/server.log
grep -m2 -E "device page cache|no device page cache" "$log"

t0=$SECONDS
timeout "${BENCH_LOAD_TIMEOUT:-300}" "$B" load -sf "${SSB_SF:-20}" -tables ssb || echo "load failed: $?"
echo "load: $((SECONDS - t0)) s"
dirty_pages() {
	psql -X -At -c "SELECT count(*) FILTER (WHERE isdirty) || ' of ' || count(*) || ' pages of ssb_lineorder in shared buffers are dirty'
	                  FROM pg_buffercache WHERE relfilenode = pg_relation_filenode('ssb_lineorder')
	                   AND reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database())"
}
if [ "${PC_DIRTY:-0}" = 1 ]; then
	psql -X -q -c 'CREATE EXTENSION IF NOT EXISTS pg_buffercache'
	dirty_pages
	grep -c "checkpoint complete" "$log" | sed 's/$/ checkpoints completed since the start/'
else
	psql -X -q -c CHECKPOINT
fi

echo "=== one fact-table scan: cold (fills the cache), warm, warm, cache off"
scan="SELECT lo_discount, count(*), sum(lo_extendedprice::bigint * lo_discount) FROM ssb_lineorder WHERE lo_quantity < 25 GROUP BY lo_discount"
for label in cold warm warm off; do
	set_off=
	[ $label = off ] && set_off="SET pg_strom.use_page_cache = off;"
	echo "--- $label"
	psql -X -q -c "$set_off" -c '\timing on' -c "$scan" | grep -E "^Time"
done
psql -X -c "EXPLAIN (ANALYZE, COSTS OFF) $scan" | grep -E "Custom Scan|Chunks:|Direct Read|Device Page Cache|Execution Time"
[ "${PC_DIRTY:-0}" = 1 ] && dirty_pages

q11="SELECT sum(lo_extendedprice::bigint * lo_discount) AS revenue FROM ssb_lineorder, ssb_date WHERE lo_orderdate = d_datekey AND d_year = 1993 AND lo_discount BETWEEN 1 AND 3 AND lo_quantity < 25"
q31="SELECT c_nation, s_nation, d_year, sum(lo_revenue) AS revenue FROM ssb_customer, ssb_lineorder, ssb_supplier, ssb_date WHERE lo_custkey = c_custkey AND lo_suppkey = s_suppkey AND lo_orderdate = d_datekey AND c_region = 'ASIA' AND s_region = 'ASIA' AND d_year >= 1992 AND d_year <= 1997 GROUP BY c_nation, s_nation, d_year ORDER BY d_year ASC, revenue DESC"
q41="SELECT d_year, c_nation, sum(lo_revenue - lo_supplycost) AS profit FROM ssb_date, ssb_customer, ssb_supplier, ssb_part, ssb_lineorder WHERE lo_custkey = c_custkey AND lo_suppkey = s_suppkey AND lo_partkey = p_partkey AND lo_orderdate = d_datekey AND c_region = 'AMERICA' AND s_region = 'AMERICA' AND (p_mfgr = 'MFGR#1' OR p_mfgr = 'MFGR#2') GROUP BY d_year, c_nation ORDER BY d_year, c_nation"
# PC_TASKS="12 24 48": pg_strom.max_async_tasks (the service's workers, so
# chunks in flight on the device) against three warm queries, two runs
# each; the bench then runs with the fastest
best_tasks=
if [ -n "${PC_TASKS:-}" ]; then
	best_ms=
	for n in $PC_TASKS; do
		psql -X -q -c "SET pg_strom.max_async_tasks = $n"
		sleep 1
		ms=$(for q in "$q11" "$q31" "$q41" "$q11" "$q31" "$q41"; do
			psql -X -q -c "SET max_parallel_workers_per_gather = 16" -c "SET parallel_setup_cost = 0" -c '\timing on' -c "$q" | grep -E "^Time" | sed 's/Time: \([0-9.]*\) ms.*/\1/'
		done | awk '{s += $1} END {printf "%d", s}')
		echo "max_async_tasks = $n: $ms ms (Q1.1, Q3.1, Q4.1, twice)"
		if [ -z "$best_ms" ] || [ "$ms" -lt "$best_ms" ]; then best_ms=$ms best_tasks=$n; fi
	done
	psql -X -q -c "SET pg_strom.max_async_tasks = $best_tasks"
	echo "bench with pg_strom.max_async_tasks = $best_tasks"
fi

t0=$SECONDS
timeout "${BENCH_RUN_TIMEOUT:-300}" "$B" run -tables ssb -runs "${BENCH_RUNS:-1}" ${BENCH_RUN_FLAGS:-} \
	-json "$OUT/bench-ssb.json" -png "$OUT/bench-ssb.png" -plans "$OUT/plans-ssb.txt" > "$OUT/bench-ssb.txt"
echo "run ssb: exit $?, $((SECONDS - t0)) s"
cat "$OUT/bench-ssb.txt"
grep -E "page cache" "$log" | tail -3

echo "=== EXPLAIN ANALYZE of the slowest joins (GPU mode, warm cache)"
for q in "$q31" "$q41"; do
	psql -X -c "SET max_parallel_workers_per_gather = 16" -c "SET parallel_setup_cost = 0" \
		-c "EXPLAIN (ANALYZE, COSTS OFF) $q" > "$OUT/analyze-$(echo "$q" | md5sum | cut -c1-6).txt" 2>&1
	grep -E "Custom Scan|Depth|Inner|Chunks|Direct Read|Device Page Cache|Execution Time|Planning Time|actual time" "$OUT/analyze-$(echo "$q" | md5sum | cut -c1-6).txt" | cut -c1-200
done

for q in q11 q31 q41; do
	echo "=== ${q}'s per-participant timeline (DEBUG1)"
	from=$(wc -l < "$log")
	psql -X -q -c "SET max_parallel_workers_per_gather = 16" -c "SET parallel_setup_cost = 0" -c "SET log_min_messages = debug1" \
		-c "${!q}" > /dev/null
	tail -n +"$((from + 1))" "$log" | grep "timeline" | sed 's/.*DEBUG: *//' | cut -c1-330 > "$OUT/timeline-$q.txt"
	grep -E "leader|GpuPreAgg" "$OUT/timeline-$q.txt" | cut -c1-200 | head -4
done

# kernel variants staged by stage_variants.sh: the queries in the GPU mode
# with each (the cluster restarts on each one)
if [ -d "$STAGE/variants" ]; then
	t0=$SECONDS
	R="$R" timeout "${KV_TIMEOUT:-240}" bash "$here/kernel_variants.sh" "$OUT/plans-ssb.txt" > "$OUT/kernel-variants.txt" 2>&1
	echo "kernel variants: exit $?, $((SECONDS - t0)) s"
	cat "$OUT/kernel-variants.txt"
fi

if [ "${PC_CHECKS:-1}" = 1 ]; then
	t0=$SECONDS
	PC_ROWS=${PC_ROWS:-2000000} R="$R" timeout 180 bash "$here/pagecache_checks.sh" > "$OUT/pagecache_checks.txt" 2>&1
	echo "pagecache checks: exit $?, $((SECONDS - t0)) s"
	cat "$OUT/pagecache_checks.txt"
fi
bash "$R" stop >/dev/null
grep -E "PANIC|terminated by signal|GPU service (failed|exited)" "$log" | head -5
