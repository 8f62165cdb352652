#!/usr/bin/env bash
# remote.sh's "psql" verb against a local test cluster (test/lib.sh), so the
# checks written for the GPU machine also run in CI under the host
# executor: HX_DIR and HX_PORT name the cluster.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
[ "${1:-}" = psql ] || { echo "local_remote.sh: only 'psql' is supported" >&2; exit 2; }
shift
exec "$PGBIN/psql" -h "$HX_DIR" -p "$HX_PORT" -U "$PGSTROM_TEST_USER" -d postgres "$@"
