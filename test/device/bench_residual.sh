#!/usr/bin/env bash
# test/device/bench_residual.sh: a plain GpuJoin with residual join quals
# (README "Residual join quals") timed against PostgreSQL in one run.  A
# fact table of BENCH_ROWS (default 20,000,000) rows joined to a
# 100,000-row dimension, INNER and LEFT, with a qual over both sides:
#   gpu:      the device evaluates the qual;
#   gpu-cpuq: the same qual ANDed with a regular expression over both
#             sides that every row matches, which the device cannot take:
#             the backend checks the quals (a LEFT depth's matched rows
#             joined on the CPU);
#   pg:       pg_strom off, JIT on and off (pg-cpuq: the second query).
# The join rows are counted with pg_strom.enable_gpupreagg off, so that they
# are formed and leave the join node (no aggregation fused into it), under
# a parallel plan (16 workers).  Every mode must give the same count and
# sum.  Results to $OUT.
# Needs: a GPU machine with 16 cores; a new cluster (the script creates
# pg_strom and its tables): PostgreSQL staged by stage.sh (pg.tgz) and
# cluster.sh (variables: env.sh); root to reserve huge pages.
# Takes about 2-3 minutes (the load about 15 s).
# No -e: a failed step is reported and the next one runs.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/env.sh" || exit 2
mkdir -p "$OUT"
psqlc() { bash "$R" psql "$@"; }
ROWS=${BENCH_ROWS:-20000000}
LOADERS=8

. "$here/hugepages.sh"
reserve_huge_pages 16
bash "$R" start || exit 1
eval "$(bash "$R" env)"
psqlc -q -c 'CREATE EXTENSION pg_strom' -c 'CREATE EXTENSION IF NOT EXISTS pg_prewarm'
psqlc -q -c "DO \$\$ BEGIN FOR i IN 1..600 LOOP
	EXIT WHEN (SELECT state FROM pgstrom.gpu_service_status() LIMIT 1) <> 'starting';
	PERFORM pg_sleep(0.1); END LOOP; END \$\$"
psqlc -Atc 'SELECT state FROM pgstrom.gpu_service_status()'

psqlc -q -c "CREATE TABLE rq_fact (id int8, k int4, v int4, pad int8)" \
	-c "CREATE TABLE rq_dim (id int4, w int4, name text)" \
	-c "INSERT INTO rq_dim SELECT i, (i * 13) % 1000, 'name_' || (i % 977) FROM generate_series(0, 99999) i"
t0=$SECONDS
for n in $(seq 0 $((LOADERS - 1))); do
	lo=$((ROWS / LOADERS * n + 1)); hi=$((ROWS / LOADERS * (n + 1)))
	psqlc -q -c "INSERT INTO rq_fact SELECT i, CASE WHEN i % 50 = 0 THEN NULL ELSE ((i * 7919) % 120000)::int4 END,
		((i * 31) % 1000)::int4, i FROM generate_series($lo::int8, $hi::int8) i" &
done
wait
psqlc -q -c "VACUUM FREEZE ANALYZE rq_fact, rq_dim" -c "ALTER TABLE rq_fact SET (parallel_workers = 16)" \
	-c "ALTER TABLE rq_dim SET (parallel_workers = 0)"
echo "loaded in $((SECONDS - t0)) s: $(psqlc -Atc "SELECT count(*) || ' fact rows, ' || pg_size_pretty(pg_relation_size('rq_fact')) FROM rq_fact")"
psqlc -Atc "SELECT 'prewarmed blocks: ' || pg_prewarm('rq_fact') + pg_prewarm('rq_dim')"

query() {
	local kind=$1 qual=$2
	echo "SELECT count(*), sum(coalesce(d.w, -1)) FROM rq_fact f $kind rq_dim d ON f.k = d.id AND $qual"
}
QUAL="d.w > f.v"
CPUQ="d.w > f.v AND (d.name || f.v) ~ 'e'"

run() {
	local label=$1 enabled=$2 jit=$3 q=$4
	psqlc -At > "$OUT/run.tmp" 2>&1 <<SQL
SET max_parallel_workers_per_gather = 16;
SET parallel_setup_cost = 0;
SET jit = $jit;
SET statement_timeout = '200s';
SET pg_strom.enabled = $enabled;
SET pg_strom.enable_gpupreagg = off;
EXPLAIN (COSTS OFF) $q;
SELECT 'result: ' || count || ' ' || sum FROM ($q) r;
\\timing on
$q;
$q;
SQL
	local plan result times
	plan=$(grep -E "Gather|Custom Scan|Hash .*Join|Join Filter|Depth" "$OUT/run.tmp" | sed 's/^ *//' | tr '\n' ';')
	result=$(grep '^result: ' "$OUT/run.tmp" | sed 's/^result: //')
	times=$(grep '^Time: ' "$OUT/run.tmp" | awk '{print $2}' | sort -n | head -1)
	printf '%-6s %-10s %12s ms  result %-24s plan %s\n' "$KIND" "$label" "$times" "$result" "$plan"
	grep -E "ERROR" "$OUT/run.tmp"
}

for KIND in INNER LEFT; do
	kw=JOIN
	[ $KIND = LEFT ] && kw="LEFT JOIN"
	q=$(query "$kw" "$QUAL")
	qc=$(query "$kw" "$CPUQ")
	run pg-jit off on "$q"
	run pg-nojit off off "$q"
	run gpu on on "$q"
	run gpu-cpuq on on "$qc"
	run pg-cpuq off on "$qc"
	for f in "$q" "$qc"; do
		psqlc -c "SET max_parallel_workers_per_gather = 16" -c "SET parallel_setup_cost = 0" \
			-c "SET pg_strom.enable_gpupreagg = off" -c "EXPLAIN (ANALYZE, COSTS OFF, SUMMARY OFF) $f"
	done > "$OUT/analyze-$KIND.txt" 2>&1
done
rm -f "$OUT/run.tmp"
bash "$R" stop >/dev/null 2>&1
