#!/usr/bin/env bash
# test/device/local_remote.sh psql ARGS...: cluster.sh's "psql" verb against
# a local test cluster (test/lib.sh), so that zerocopy_checks.sh and
# pagecache_checks.sh also run under the host executor, with
# R=test/device/local_remote.sh: HX_DIR (the cluster's folder and socket
# directory) and HX_PORT name the cluster; PG_CONFIG and PGSTROM_TEST_USER
# as for test/lib.sh.  test/run_regress_hostexec.sh uses it.
# Needs: the running local cluster.  Takes as long as psql does.
set -euo pipefail
: "${HX_DIR:?local_remote.sh: set HX_DIR to the folder of the cluster}" "${HX_PORT:?local_remote.sh: set HX_PORT to the port of the cluster}"
. "$(dirname "$0")/../lib.sh"
[ "${1:-}" = psql ] || { echo "local_remote.sh: only 'psql' is supported" >&2; exit 2; }
shift
exec "$PGBIN/psql" -h "$HX_DIR" -p "$HX_PORT" -U "$PGSTROM_TEST_USER" -d postgres "$@"
