#!/usr/bin/env bash
# The bench's integration tests on a throwaway cluster with the installed
# pg_strom: SSB at scale factor 0.125 (bench/ssb_integration_test.go), its
# row counts and the 13 queries' selectivities checked against the SSB
# spec, then TPC-H at scale factor 0.05 (bench/tpch_integration_test.go),
# its row counts and value domains checked against the TPC-H spec and its
# 22 queries' answers for plausibility; then both again with their fact
# tables partitioned by month (bench/partitioned_integration_test.go), the
# partitioned tables' rows checked against the plain ones'. Every query's
# answer with pg_strom on must equal PostgreSQL's.
# pg_strom.regression_test_mode = on makes the planner offer the GPU paths
# without a GPU (they run on the CPU), so the GPU mode's plans hold
# pg_strom nodes here too. Run by `make test` (test/run_all.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
. test/lib.sh
port=${PGSTROM_BENCH_ITEST_PORT:-55436}
dir=$(mktemp -d /tmp/pg_strom_bench_itest.XXXXXX)
cleanup() {
	cluster_stop "$dir"
	[ "${KEEP_TEST_CLUSTER:-}" ] || rm -rf "$dir"
}
trap cleanup EXIT
cluster_start "$dir" "$port"
PGHOST=$dir PGPORT=$port PGUSER=$PGSTROM_TEST_USER PGDATABASE=postgres \
	PGOPTIONS='-c pg_strom.regression_test_mode=on' \
	go test -v -count=1 -tags benchdb -run '^TestIntegration(SSB|TPCH|Partitioned)$' -timeout 20m ./bench
