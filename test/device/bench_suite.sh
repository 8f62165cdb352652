#!/usr/bin/env bash
# There (GPU machine), with a cluster started by .device/remote.sh: the bench/
# suite with the binary staged by stage.sh, as `make bench` runs it (load,
# then one run step per table), results to $OUT.  BENCH_FLAGS,
# BENCH_RUN_FLAGS and BENCH_TABLES as for `make bench`.
set -uo pipefail
R=.device/remote.sh
eval "$(bash $R env)"
OUT=${OUT:-/tmp/out}
B=.device/pgstrom-bench
TABLES=${BENCH_TABLES:-w1_narrow w1_wide}
bash $R psql -q -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm"
t0=$SECONDS
# shellcheck disable=SC2086
timeout "${BENCH_LOAD_TIMEOUT:-300}" $B load ${BENCH_FLAGS:-} -tables "${TABLES// /,}" || echo "load failed: $?"
echo "load: $((SECONDS - t0)) s"
for t in $TABLES; do
	t0=$SECONDS
	# shellcheck disable=SC2086
	timeout "${BENCH_RUN_TIMEOUT:-420}" $B run ${BENCH_FLAGS:-} -tables "$t" ${BENCH_RUN_FLAGS:-} -json "$OUT/bench-$t.json" \
		-png "$OUT/bench-$t.png" -plans "$OUT/plans-$t.txt" > "$OUT/bench-$t.txt"
	echo "run $t: exit $?, $((SECONDS - t0)) s"
	cat "$OUT/bench-$t.txt"
done
