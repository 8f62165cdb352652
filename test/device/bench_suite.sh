#!/usr/bin/env bash
# test/device/bench_suite.sh: with a cluster started by cluster.sh: the
# bench/ suite with the binary staged by stage.sh, as `make bench` runs it
# (load, then one run step per table), results to $OUT.  BENCH_FLAGS,
# BENCH_RUN_FLAGS and BENCH_TABLES (default "w1_narrow w1_wide") as for
# `make bench`; BENCH_LOAD_TIMEOUT and BENCH_RUN_TIMEOUT bound the steps
# (default 300 and 420 s); PGSTROM_BENCH names the binary when it is not
# the staged one.
# Needs: a GPU; the running cluster (cluster.sh, env.sh) with pg_strom
# created; PGSTROM_STAGE/pgstrom-bench.
# Takes about 3 minutes to load at -scale 1 on 16 cores and 1-2 minutes a
# table to run.
# No -e: a failed step is reported and the next one runs.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/env.sh" || exit 2
eval "$(bash "$R" env)"
B=${PGSTROM_BENCH:-$STAGE/pgstrom-bench}
device_need "$B" "run test/device/stage.sh on the build machine and carry $STAGE (or set PGSTROM_STAGE or PGSTROM_BENCH)"
TABLES=${BENCH_TABLES:-w1_narrow w1_wide}
bash "$R" psql -q -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm"
t0=$SECONDS
# shellcheck disable=SC2086
timeout "${BENCH_LOAD_TIMEOUT:-300}" "$B" load ${BENCH_FLAGS:-} -tables "${TABLES// /,}" || echo "load failed: $?"
echo "load: $((SECONDS - t0)) s"
for t in $TABLES; do
	t0=$SECONDS
	# shellcheck disable=SC2086
	timeout "${BENCH_RUN_TIMEOUT:-420}" "$B" run ${BENCH_FLAGS:-} -tables "$t" ${BENCH_RUN_FLAGS:-} -json "$OUT/bench-$t.json" \
		-png "$OUT/bench-$t.png" -plans "$OUT/plans-$t.txt" > "$OUT/bench-$t.txt"
	echo "run $t: exit $?, $((SECONDS - t0)) s"
	cat "$OUT/bench-$t.txt"
done
