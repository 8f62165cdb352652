#!/usr/bin/env bash
# test/device/bench_direct_ab.sh: after bench_direct.sh left its cluster
# stopped (shared_buffers 4GB, w1_narrow loaded): group_8 and preagg_10 in
# GPU mode with direct read, four runs each, with
# PGSTROM_DIRECT_READ_CONCURRENCY set to each of $DIRECT_AB (default
# "0 4 8 16"; 0: no bound on the service's preads in progress); wall time
# and the service's user and system CPU to $OUT/direct-ab.txt.
# Needs: a GPU, the cluster bench_direct.sh left (cluster.sh, env.sh).
# Takes about 1-2 minutes (a restart and a prewarm for each setting).
# No -e: a failed step is reported and the next one runs.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/env.sh" || exit 2
eval "$(bash "$R" env)"
f=$OUT/direct-ab.txt
svc_ticks() {
	local p; p=$(pgrep -f "GPU Service service process" | head -1)
	[ -n "$p" ] && awk '{print $14, $15}' "/proc/$p/stat" || echo "0 0"
}
for c in ${DIRECT_AB:-0 4 8 16}; do
	PGSTROM_DIRECT_READ_CONCURRENCY=$c bash "$R" start >/dev/null || exit 1
	psql -X -q -c "DO \$\$ BEGIN FOR i IN 1..600 LOOP
		EXIT WHEN (SELECT state FROM pgstrom.gpu_service_status() LIMIT 1) <> 'starting';
		PERFORM pg_sleep(0.1); END LOOP; END \$\$"
	psql -X -q -c "SELECT pg_prewarm('w1_narrow', 'read')" >/dev/null
	for q in "SELECT c, count(*), sum(x), avg(y) FROM w1_narrow WHERE e < 9000 GROUP BY c" \
		"SELECT a % 10 AS k, count(*), sum(x), avg(y) FROM w1_narrow WHERE e < 9000 GROUP BY 1"; do
		for i in 1 2 3 4; do
			read -r u0 s0 < <(svc_ticks); t0=$(date +%s%N)
			psql -X -q -c "SET max_parallel_workers_per_gather = 16" -c "SET parallel_setup_cost = 0" \
				-c "SET pg_strom.direct_read = on" -c "$q" > /dev/null
			t1=$(date +%s%N); read -r u1 s1 < <(svc_ticks)
			echo "concurrency $c run $i: $(( (t1 - t0) / 1000000 )) ms, service user $((u1 - u0)) sys $((s1 - s0)) ticks: ${q:0:40}" | tee -a "$f"
		done
	done
	bash "$R" stop >/dev/null
done
