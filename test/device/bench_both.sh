#!/usr/bin/env bash
# test/device/bench_both.sh: the W1 benchmark in both memory settings from
# one load of w1_narrow at scale 1 (13.65 GB):
#   1. shared_buffers = 16GB (the table fits: zero-copy): the bench/ suite's
#      five W1 queries (bench_suite.sh);
#   2. shared_buffers = 4GB (the table does not fit: direct read):
#      bench_direct.sh on the same cluster, restarted, the table loaded.
# Results to $OUT.  BENCH_RUNS (default 2) timed runs per query and mode.
# BOTH_TABLE=w1_wide runs step 1 on w1_wide instead; BOTH_DIRECT=0 leaves
# out step 2 (which is w1_narrow's).
# Needs: a GPU machine with 16 cores and about 64 GB of memory or more;
# PGSTROM_STAGE staged by stage.sh (pg.tgz, pgstrom-bench) and the cluster
# of cluster.sh (variables: env.sh); root to reserve huge pages.
# Takes about 8-10 minutes (the load about 3).
# No -e: a failed step is reported and the next one runs.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/env.sh" || exit 2
mkdir -p "$OUT"
runs=${BENCH_RUNS:-2}
. "$here/hugepages.sh"
reserve_huge_pages 16
bash "$R" start || exit 1
eval "$(bash "$R" env)"
psql -X -q -c 'CREATE EXTENSION IF NOT EXISTS pg_strom'
device_wait_service
echo "=== shared_buffers = 16GB"
BENCH_TABLES=${BOTH_TABLE:-w1_narrow} BENCH_FLAGS="-scale 1" \
	BENCH_RUN_FLAGS="-runs $runs -queries count_1pct,sum_expr,group_8,preagg_10,arith_pred" \
	BENCH_LOAD_TIMEOUT=330 BENCH_RUN_TIMEOUT=200 bash "$here/bench_suite.sh"
if [ "${BOTH_DIRECT:-1}" = 0 ]; then
	bash "$R" stop
	exit 0
fi
psql -X -q -c "ALTER SYSTEM SET shared_buffers = '4GB'"
bash "$R" stop
echo "=== shared_buffers = 4GB"
BENCH_RUNS=$runs BENCH_RUN_TIMEOUT=150 bash "$here/bench_direct.sh"
