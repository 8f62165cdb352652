#!/usr/bin/env bash
# There (GPU machine), with a cluster started by .device/remote.sh: the bench/
# suite (load, then run) with the binary staged by stage.sh, results to $OUT.
# BENCH_FLAGS and BENCH_RUN_FLAGS as for `make bench`.
set -uo pipefail
R=.device/remote.sh
eval "$(bash $R env)"
OUT=${OUT:-/tmp/out}
B=.device/pgstrom-bench
bash $R psql -q -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm"
t0=$SECONDS
# shellcheck disable=SC2086
timeout "${BENCH_LOAD_TIMEOUT:-300}" $B load ${BENCH_FLAGS:-} || echo "load failed: $?"
echo "load: $((SECONDS - t0)) s"
t0=$SECONDS
# shellcheck disable=SC2086
timeout "${BENCH_RUN_TIMEOUT:-420}" $B run ${BENCH_FLAGS:-} ${BENCH_RUN_FLAGS:-} -json "$OUT/bench.json" \
	-png "$OUT/bench.png" -plans "$OUT/plans.txt" > "$OUT/bench.txt"
echo "run: exit $?, $((SECONDS - t0)) s"
cat "$OUT/bench.txt"
