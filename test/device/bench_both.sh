#!/usr/bin/env bash
# There (the GPU machine), with .device staged by stage.sh: issue 10's and
# issue 13's figures from one load of w1_narrow at scale 1 (13.65 GB), in
# one command of under 10 minutes:
#   1. shared_buffers = 16GB (the table fits, zero-copy): the bench/ suite's
#      five W1 queries (bench_suite.sh);
#   2. shared_buffers = 4GB (the table does not fit): bench_direct.sh, the
#      same cluster restarted, the table already loaded.
# Results to $OUT.  BENCH_RUNS (default 2) timed runs per query and mode.
# BOTH_TABLE=w1_wide runs step 1 on w1_wide instead; BOTH_DIRECT=0 leaves
# out step 2 (which is w1_narrow's).
set -uo pipefail
R=.device/remote.sh
export OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
runs=${BENCH_RUNS:-2}
. .device/hugepages.sh
reserve_huge_pages 16
bash $R start || exit 1
eval "$(bash $R env)"
psql -X -q -c 'CREATE EXTENSION IF NOT EXISTS pg_strom'
psql -X -q -c "DO \$\$ BEGIN FOR i IN 1..600 LOOP
	EXIT WHEN (SELECT state FROM pgstrom.gpu_service_status() LIMIT 1) <> 'starting';
	PERFORM pg_sleep(0.1); END LOOP; END \$\$"
echo "=== shared_buffers = 16GB"
BENCH_TABLES=${BOTH_TABLE:-w1_narrow} BENCH_FLAGS="-scale 1" \
	BENCH_RUN_FLAGS="-runs $runs -queries count_1pct,sum_expr,group_8,preagg_10,arith_pred" \
	BENCH_LOAD_TIMEOUT=330 BENCH_RUN_TIMEOUT=200 bash .device/bench_suite.sh
if [ "${BOTH_DIRECT:-1}" = 0 ]; then
	bash $R stop
	exit 0
fi
psql -X -q -c "ALTER SYSTEM SET shared_buffers = '4GB'"
bash $R stop
echo "=== shared_buffers = 4GB"
BENCH_RUNS=$runs BENCH_RUN_TIMEOUT=150 bash .device/bench_direct.sh
