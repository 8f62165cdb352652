#!/usr/bin/env bash
# test/device/kernel_variants.sh PLANS: after a bench run on a cluster
# started by cluster.sh: the SSB queries of PLANS (the bench's -plans file)
# timed in the GPU mode only, with the installed kernels and then with each
# fatbin of PGSTROM_STAGE/variants/ (built by stage_variants.sh from the
# same sources with one change each).  For each variant: the cluster
# restarted on it (its fatbin cache dropped, so the service copies the
# variant in), the tables prewarmed, one fact-table scan to fill the device
# page cache, then each query KV_RUNS (default 3) times; the best time is
# printed with whether its answer equals the installed kernels' (md5 of
# psql's unaligned output).  The installed kernels are put back at the end.
# Needs: a GPU; the cluster with SSB loaded (cluster.sh, env.sh), write
# access to its pkglibdir; the variants staged.
# Takes about 1 minute for each variant and the installed kernels at scale
# factor 20.
# No -e: a failed step is reported and the next one runs.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/env.sh" || exit 2
PLANS=${1:?usage: kernel_variants.sh PLANS, the -plans file of a bench run}
device_need "$PLANS" "run the SSB bench first (bench_pagecache.sh or bench_ssb.sh write it)"
eval "$(bash "$R" env)"
lib=$(pg_config --pkglibdir)
data=$PGDATA
work=$(mktemp -d)
chmod 755 "$work"
awk -v dir="$work" '/^==== Q[0-9.]+ on ssb$/ { name = $2; getline; print > (dir "/" name ".sql"); close(dir "/" name ".sql") }' "$PLANS"
ls "$work"/*.sql >/dev/null 2>&1 || { echo "kernel_variants: no queries in $PLANS"; exit 1; }
cp "$lib/pg_strom_kernels.fatbin" "$work/installed.fatbin"
set_gpu="SET max_parallel_workers_per_gather = 16; SET max_parallel_workers = 16; SET parallel_setup_cost = 0; SET jit = on; SET pg_strom.enabled = on;"

restart_on() {
	bash "$R" stop >/dev/null
	cp "$1" "$lib/pg_strom_kernels.fatbin"
	rm -rf "$data/.pgstrom_fatbin"
	bash "$R" start >/dev/null || return 1
	psql -X -q -c "DO \$\$ BEGIN FOR i IN 1..600 LOOP
		EXIT WHEN (SELECT state FROM pgstrom.gpu_service_status() LIMIT 1) <> 'starting';
		PERFORM pg_sleep(0.1); END LOOP; END \$\$"
	psql -X -q -At -c "SELECT state FROM pgstrom.gpu_service_status() LIMIT 1"
	psql -X -q -At -c "SELECT sum(pg_prewarm(c)) FROM unnest(ARRAY['ssb_lineorder','ssb_customer','ssb_supplier','ssb_part','ssb_date']::regclass[]) c" >/dev/null
	psql -X -q -At -c "$set_gpu" -c "SELECT count(*) FROM ssb_lineorder WHERE lo_quantity < 25" >/dev/null
	psql -X -q -At -c "$set_gpu" -c "SELECT count(*) FROM ssb_customer" -c "SELECT count(*) FROM ssb_part" \
		-c "SELECT count(*) FROM ssb_supplier" -c "SELECT count(*) FROM ssb_date" >/dev/null
}

declare -A want
for fb in "$work/installed.fatbin" "$STAGE"/variants/*.fatbin; do
	[ -f "$fb" ] || continue
	name=$(basename "$fb" .fatbin)
	echo "=== kernels: $name"
	restart_on "$fb" || { echo "$name: the cluster did not start"; continue; }
	total=0
	for q in "$work"/*.sql; do
		qn=$(basename "$q" .sql)
		best=
		for i in $(seq "${KV_RUNS:-3}"); do
			out=$(psql -X -q -At -c "$set_gpu" -c '\timing on' -f "$q" 2>&1)
			ms=$(echo "$out" | grep -E '^Time: ' | tail -1 | sed 's/Time: \([0-9.]*\) ms.*/\1/')
			sum=$(echo "$out" | grep -vE '^Time: ' | md5sum | cut -c1-8)
			best=$(awk -v a="$ms" -v b="$best" 'BEGIN { print (b == "" || a + 0 < b + 0) ? a : b }')
		done
		[ -n "${want[$qn]:-}" ] || want[$qn]=$sum
		same=same; [ "${want[$qn]}" = "$sum" ] || same=DIFFERENT
		total=$(awk -v a="$total" -v b="$best" 'BEGIN { print a + b }')
		printf '%-10s %-6s %9.1f ms  answer %s %s\n' "$name" "$qn" "$best" "$sum" "$same"
	done
	printf '%-10s total  %9.1f ms\n' "$name" "$total"
done
restart_on "$work/installed.fatbin" >/dev/null
