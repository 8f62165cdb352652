#!/usr/bin/env bash
# test/device/bench_fairness.sh: whether clients that stop reading slow
# the others.  A mix of GPU queries (GpuPreAgg, GpuPreAgg fused over
# GpuJoin, GpuScan) runs from FAIR_CLIENTS pgbench clients for FAIR_SECONDS,
# first on an idle service, then while FAIR_STALLED sessions each hold a
# cursor over a GpuJoin whose join fans out, fetched once and then left
# unread: the service has answered its first chunk, and its next chunks'
# answers wait for a client that does not read.  Prints both throughputs side by side, the service's status
# (busy, suspended, clients) while the cursors are stalled, and the plans.
# Results to $OUT/fairness.txt.
# Needs: a GPU machine; PGSTROM_STAGE staged by stage.sh (pg.tgz) and the
# cluster of cluster.sh (variables: env.sh).  Takes about 2 minutes
# (FAIR_ROWS rows loaded, two pgbench runs).  The stall (FAIR_SETTLE plus
# FAIR_SECONDS) must stay shorter than the service's write timeout (30 s),
# after which it disconnects a client that reads nothing.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/env.sh" || exit 2
mkdir -p "$OUT"
FAIR_ROWS=${FAIR_ROWS:-20000000}
FAIR_CLIENTS=${FAIR_CLIENTS:-8}
FAIR_STALLED=${FAIR_STALLED:-16}
FAIR_SECONDS=${FAIR_SECONDS:-12}
# the cursors' join: each outer row matches FAIR_FANOUT inner rows, so one
# chunk's answer (about 200 MB) fits pg_strom.gpujoin_max_chunk_result and
# the chunks after the first fill their connection's outbox
FAIR_CURSOR_ROWS=${FAIR_CURSOR_ROWS:-2000000}
FAIR_FANOUT=${FAIR_FANOUT:-22}
res=$OUT/fairness.txt
bash "$R" start || exit 1
eval "$(bash "$R" env)"
psql -X -q -c 'CREATE EXTENSION IF NOT EXISTS pg_strom'
device_wait_service
psql -X -c 'SELECT state, reason, workers FROM pgstrom.gpu_service_status()' | tee "$res"

t0=$SECONDS
psql -X -q <<SQL
CREATE TABLE fact AS SELECT i AS id, i % 1000 AS d, (i * 7) % 100 AS g, i % 97 AS x
  FROM generate_series(1, $FAIR_ROWS) i;
CREATE TABLE dim AS SELECT j AS d, j % 10 AS c FROM generate_series(0, 999) j;
CREATE TABLE t_out AS SELECT i AS id, i % 10 AS k, i AS v FROM generate_series(1, $FAIR_CURSOR_ROWS) i;
CREATE TABLE t_in AS SELECT i AS id, i % 10 AS k, i AS w FROM generate_series(1, 10 * $FAIR_FANOUT) i;
VACUUM FREEZE ANALYZE fact, dim, t_out, t_in;
SQL
echo "load: $((SECONDS - t0)) s" | tee -a "$res"

mix=$(mktemp -d)
echo "SELECT g, count(*), sum(x) FROM fact WHERE x > 10 GROUP BY g;" > "$mix/preagg.sql"
echo "SELECT dim.c, sum(fact.x) FROM fact JOIN dim ON fact.d = dim.d GROUP BY dim.c;" > "$mix/join.sql"
echo "SELECT id FROM fact WHERE x = 5 AND g = 35 AND d = 250;" > "$mix/scan.sql"
chmod -R a+rX "$mix"
for q in preagg join scan; do
	psql -X -c "EXPLAIN (COSTS OFF) $(cat "$mix/$q.sql")" >> "$res"
done
cursor_sql="SELECT o.v, i.w FROM t_out o JOIN t_in i ON o.k = i.k"
cursor_opts="-c enable_hashjoin=off -c enable_mergejoin=off -c enable_nestloop=off -c max_parallel_workers_per_gather=0 -c pg_strom.direct_read=off"
PGOPTIONS=$cursor_opts psql -X -c "EXPLAIN (COSTS OFF) $cursor_sql" >> "$res"

mixrun() {
	pgbench -n -c "$FAIR_CLIENTS" -j "$FAIR_CLIENTS" -T "$FAIR_SECONDS" \
		-f "$mix/preagg.sql" -f "$mix/join.sql" -f "$mix/scan.sql" 2>&1 |
		grep -E "^(tps|latency average|number of transactions actually)"
}
pgbench -n -c "$FAIR_CLIENTS" -j "$FAIR_CLIENTS" -T 3 -f "$mix/preagg.sql" -f "$mix/join.sql" -f "$mix/scan.sql" > /dev/null 2>&1
echo "=== mix, idle service" | tee -a "$res"
mixrun | tee -a "$res"

pids=()
for _ in $(seq "$FAIR_STALLED"); do
	PGOPTIONS=$cursor_opts psql -X -q -c BEGIN -c "DECLARE c NO SCROLL CURSOR FOR $cursor_sql" \
		-c "FETCH 1 FROM c" -c "SELECT pg_sleep($FAIR_SECONDS + ${FAIR_SETTLE:-10} + 4)" -c COMMIT > /dev/null 2>&1 &
	pids+=($!)
done
# Each cursor's chunk first computes as many replies as its connection's
# outbox holds, then waits for its client without a worker: the mix is
# measured once they all wait (at most FAIR_SETTLE seconds).
t0=$SECONDS
for _ in $(seq $((${FAIR_SETTLE:-10} * 2))); do
	sleep 0.5
	n=$(psql -X -At -c 'SELECT suspended FROM pgstrom.gpu_service_status() LIMIT 1')
	echo "$((SECONDS - t0)) s: $n suspended" >> "$res"
	[ "${n:-0}" -ge "$FAIR_STALLED" ] && break
done
echo "=== status with $FAIR_STALLED stalled cursors, after $((SECONDS - t0)) s" | tee -a "$res"
psql -X -c 'SELECT workers, busy, suspended, connections, clients, max_client_connections FROM pgstrom.gpu_service_status()' | tee -a "$res"
echo "=== mix, $FAIR_STALLED stalled GpuJoin cursors" | tee -a "$res"
mixrun | tee -a "$res"
psql -X -c 'SELECT workers, busy, suspended, connections, clients FROM pgstrom.gpu_service_status()' | tee -a "$res"
wait "${pids[@]}"
bash "$R" stop
