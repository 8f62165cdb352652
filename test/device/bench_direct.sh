#!/usr/bin/env bash
# test/device/bench_direct.sh: direct read.  A cluster with shared_buffers =
# DIRECT_SHARED_BUFFERS (default 4GB), w1_narrow at DIRECT_SCALE (default 1:
# 13.65 GB, larger than shared_buffers, so prewarm leaves it in the OS page
# cache), then group_8 and preagg_10 in PostgreSQL's modes and on the GPU
# with pg_strom.direct_read on; with DIRECT_OFF=1 also a run with it off
# (the zero-copy path of the same setting), with PC_OFF=1 (and a page cache
# in DIRECT_EXTRA_CONF) one with pg_strom.use_page_cache off.  EXPLAIN
# ANALYZE of both queries shows how many blocks came each way.  Results to
# $OUT.  Knobs for the service's reads: PGSTROM_DIRECT_READ_ODIRECT=1
# (O_DIRECT) and PGSTROM_DIRECT_READ_WORKERS=N, set in the environment of
# the cluster's start.  COLD=1 adds, where the page cache can be dropped
# (root), both queries from a cold cache beside the storage's own read rate
# (the relation's segment files read by 16 parallel readers).
# Needs: a GPU machine with 16 cores and about 32 GB of memory or more;
# PGSTROM_STAGE staged by stage.sh (pg.tgz, pgstrom-bench) and the cluster
# of cluster.sh (variables: env.sh); root to reserve huge pages.
# Takes about 4-6 minutes at scale 1 (the load about 3), less when the
# table is already loaded; COLD=1 adds a few minutes.
# No -e: a failed step is reported and the next one runs.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/env.sh" || exit 2
mkdir -p "$OUT"
B=$STAGE/pgstrom-bench
device_need_staged pgstrom-bench
conf=$(mktemp)
# the direct-read path itself: no device page cache unless
# DIRECT_EXTRA_CONF gives one
printf 'shared_buffers = %s\npg_strom.gpu_page_cache_size = 0\n' "${DIRECT_SHARED_BUFFERS:-4GB}" > "$conf"
# DIRECT_EXTRA_CONF: more lines, e.g. "pg_strom.gpu_page_cache_size = 32GB"
[ -n "${DIRECT_EXTRA_CONF:-}" ] && echo "$DIRECT_EXTRA_CONF" >> "$conf"
chmod 644 "$conf"
. "$here/hugepages.sh"
reserve_huge_pages ${DIRECT_HUGE_GB:-4}
bash "$R" start "$conf" || exit 1
eval "$(bash "$R" env)"
psql -X -q -c 'CREATE EXTENSION IF NOT EXISTS pg_strom' -c 'CREATE EXTENSION IF NOT EXISTS pg_prewarm' -c 'CREATE EXTENSION IF NOT EXISTS pg_visibility'
device_wait_service
psql -X -c 'SHOW shared_buffers' -c 'SELECT state, reason FROM pgstrom.gpu_service_status()'
t0=$SECONDS
timeout "${BENCH_LOAD_TIMEOUT:-360}" "$B" load -scale "${DIRECT_SCALE:-1}" -tables w1_narrow || echo "load failed: $?"
echo "load: $((SECONDS - t0)) s"
psql -X -c "CHECKPOINT" -c "SELECT pg_size_pretty(pg_relation_size('w1_narrow')) AS heap,
	(SELECT all_visible FROM pg_visibility_map_summary('w1_narrow')) AS all_visible_pages" 2>/dev/null ||
	psql -X -c "SELECT pg_size_pretty(pg_relation_size('w1_narrow')) AS heap"
for q in "SELECT c, count(*), sum(x), avg(y) FROM w1_narrow WHERE e < 9000 GROUP BY c" \
	"SELECT a % 10 AS k, count(*), sum(x), avg(y) FROM w1_narrow WHERE e < 9000 GROUP BY 1"; do
	psql -X -c "SET max_parallel_workers_per_gather = 16" -c "SET parallel_setup_cost = 0" \
		-c "EXPLAIN (ANALYZE, COSTS OFF) $q" 2>&1 | grep -E "Custom Scan|Chunks|Direct Read|Device Page Cache|Page Copies|CPU Path|Workers Launched|Execution Time"
done
if [ -n "${COLD:-}" ]; then
	pgdata=$(psql -X -At -c "SHOW data_directory")
	files=$(psql -X -At -c "SELECT pg_relation_filepath('w1_narrow')")
	drop() { sync && echo 3 > /proc/sys/vm/drop_caches; }
	if drop 2>/dev/null; then
		t0=$(date +%s.%N)
		ls "$pgdata/$files" "$pgdata/$files".* 2>/dev/null | xargs -P 16 -n 1 cat > /dev/null
		t1=$(date +%s.%N)
		bytes=$(psql -X -At -c "SELECT pg_relation_size('w1_narrow')")
		echo "cold: storage read rate $(awk -v b="$bytes" -v a="$t0" -v z="$t1" 'BEGIN { printf "%.2f", b / (z - a) / 1e9 }') GB/s ($bytes bytes, 16 readers)"
		for q in "SELECT c, count(*), sum(x), avg(y) FROM w1_narrow WHERE e < 9000 GROUP BY c" \
			"SELECT a % 10 AS k, count(*), sum(x), avg(y) FROM w1_narrow WHERE e < 9000 GROUP BY 1"; do
			for dr in on off; do
				drop
				echo "cold, GPU, direct_read=$dr: $q"
				psql -X -c "SET max_parallel_workers_per_gather = 16" -c "SET parallel_setup_cost = 0" -c "SET pg_strom.direct_read = $dr" \
					-c "EXPLAIN (ANALYZE, COSTS OFF) $q" 2>&1 | grep -E "Direct Read|Execution Time"
			done
			drop
			echo "cold, PostgreSQL: $q"
			psql -X -c "SET max_parallel_workers_per_gather = 16" -c "SET parallel_setup_cost = 0" -c "SET pg_strom.enabled = off" \
				-c "EXPLAIN (ANALYZE, COSTS OFF) $q" 2>&1 | grep -E "Execution Time"
		done
	else
		echo "cold: the page cache cannot be dropped here"
	fi
fi
runs=${BENCH_RUNS:-2}
# PC_OFF=1 (with a page cache): also a run with pg_strom.use_page_cache off
for dr in on ${DIRECT_OFF:+off} ${PC_OFF:+cacheoff}; do
	t0=$SECONDS
	set_gpu="pg_strom.direct_read=$dr"
	[ "$dr" = cacheoff ] && set_gpu="pg_strom.direct_read=on,pg_strom.use_page_cache=off"
	timeout "${BENCH_RUN_TIMEOUT:-200}" "$B" run -tables w1_narrow -queries group_8,preagg_10 -runs "$runs" \
		-gpu-set "$set_gpu" -json "$OUT/direct-$dr.json" -plans "$OUT/direct-plans-$dr.txt" \
		> "$OUT/direct-$dr.txt"
	echo "run direct_read=$dr: exit $?, $((SECONDS - t0)) s"
	cat "$OUT/direct-$dr.txt"
done
bash "$R" stop
