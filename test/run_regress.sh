#!/usr/bin/env bash
# pg_regress suite against a throwaway cluster with pg_strom preloaded.
set -euo pipefail
cd "$(dirname "$0")/.."
. test/lib.sh
dir=$(mktemp -d /tmp/pg_strom_regress.XXXXXX)
port=${PGSTROM_REGRESS_PORT:-55433}
trap 'cluster_stop "$dir"; [ "${KEEP_TEST_CLUSTER:-}" ] || rm -rf "$dir"' EXIT
cluster_start "$dir" "$port"
rc=0
make -s installcheck ${PGSTROM_REGRESS:+REGRESS="$PGSTROM_REGRESS"} PG_CONFIG="$PG_CONFIG" PGHOST="$dir" PGPORT="$port" PGUSER="$PGSTROM_TEST_USER" || rc=$?
if [ $rc -ne 0 ]; then
	[ -f test/regression.diffs ] && cat test/regression.diffs
	echo "--- server log tail"; tail -50 "$dir/server.log"
fi
exit $rc
