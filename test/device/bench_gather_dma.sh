#!/usr/bin/env bash
# test/device/bench_gather_dma.sh: the zero-copy gather with and without its
# DMA.  w1_narrow at scale 1 (13.65 GB) in 16 GB of shared buffers, loaded
# unless it already is (a cluster kept from bench_both.sh or an earlier run:
# the load resumes or says "complete"), then for each threshold of
# DMA_SETTINGS (default "256 0": runs of 256 or more consecutive buffers by DMA,
# then the SM gather only) the cluster restarts with
# PGSTROM_GATHER_DMA_MIN_PAGES in pg_ctl's environment (the service is forked
# from the postmaster without exec and inherits it), the bench times
# BENCH_QUERIES (its run prewarms the table first), and the service's
# "zero-copy gather" log lines show how the pages travelled: pages by DMA,
# copies (their ratio is the mean run length), pages read by the kernel.
# DMA_SETTINGS="" only loads.  Results to $OUT (bench-dma<N>.txt and .json).
# Needs: a GPU machine with 16 cores and about 64 GB of memory or more;
# PGSTROM_STAGE staged by stage.sh (pg.tgz, pgstrom-bench) and the cluster
# of cluster.sh (variables: env.sh); root to reserve huge pages.
# Takes about 3 minutes for the load and 1-2 minutes for each setting.
# No -e: a failed step is reported and the next one runs.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/env.sh" || exit 2
mkdir -p "$OUT"
B=$STAGE/pgstrom-bench
device_need_staged pgstrom-bench
log=$PGDATA/server.log
runs=${BENCH_RUNS:-2}
queries=${BENCH_QUERIES:-count_1pct,preagg_10,arith_pred}
ready() {
	psql -X -q -c "DO \$\$ BEGIN FOR i IN 1..600 LOOP
		EXIT WHEN (SELECT state FROM pgstrom.gpu_service_status() LIMIT 1) <> 'starting';
		PERFORM pg_sleep(0.1); END LOOP; END \$\$"
}
eval "$(bash "$R" env)"
# a cluster left running by an earlier call is used as it is
. "$here/hugepages.sh"
reserve_huge_pages 16
bash "$R" start || psql -X -q -c 'SELECT 1' >/dev/null || exit 1
psql -X -q -c 'CREATE EXTENSION IF NOT EXISTS pg_strom' -c 'CREATE EXTENSION IF NOT EXISTS pg_prewarm' \
	-c 'ALTER SYSTEM RESET shared_buffers' # bench_both.sh leaves 4GB set
ready
t0=$SECONDS
timeout "${BENCH_LOAD_TIMEOUT:-330}" "$B" load -scale 1 -tables w1_narrow || echo "load failed: $?"
echo "load: $((SECONDS - t0)) s"
for n in ${DMA_SETTINGS-256 0}; do
	bash "$R" stop
	PGSTROM_GATHER_DMA_MIN_PAGES=$n bash "$R" start >/dev/null || exit 1
	ready
	from=$(wc -l < "$log")
	echo "=== PGSTROM_GATHER_DMA_MIN_PAGES=$n"
	psql -X -c 'SHOW shared_buffers' -c 'SELECT state, reason FROM pgstrom.gpu_service_status()' \
		-c 'SELECT device, shared_registered, shared_reason FROM pgstrom.gpu_device_info()'
	t0=$SECONDS
	timeout "${BENCH_RUN_TIMEOUT:-200}" "$B" run -scale 1 -tables w1_narrow -runs "$runs" -queries "$queries" \
		-json "$OUT/bench-dma$n.json" > "$OUT/bench-dma$n.txt"
	echo "run: exit $?, $((SECONDS - t0)) s"
	cat "$OUT/bench-dma$n.txt"
	sleep 11 # the summary is logged at most every 10 s
	tail -n +"$((from + 1))" "$log" | grep "zero-copy gather" | tail -2
done
