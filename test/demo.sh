#!/usr/bin/env bash
# make demo: build, install, start a throwaway cluster with pg_strom
# preloaded, show the service status and devices, stop the cluster.
set -euo pipefail
cd "$(dirname "$0")/.."
bash build/ensure_deps.sh
. test/lib.sh
make -s PG_CONFIG="$PG_CONFIG" >/dev/null
make -s install PG_CONFIG="$PG_CONFIG" >/dev/null
dir=$(mktemp -d /tmp/pg_strom_demo.XXXXXX)
port=${PGSTROM_DEMO_PORT:-55431}
trap 'cluster_stop "$dir"; rm -rf "$dir"' EXIT
cluster_start "$dir" "$port"
cluster_psql "$dir" "$port" -q -c 'CREATE EXTENSION pg_strom'
# The service needs a moment to find the GPUs and load its kernels.
cluster_psql "$dir" "$port" -q -c "DO \$\$ BEGIN FOR i IN 1..300 LOOP
	EXIT WHEN (SELECT state FROM pgstrom.gpu_service_status() LIMIT 1) <> 'starting';
	PERFORM pg_sleep(0.1); END LOOP; END \$\$"
cluster_psql "$dir" "$port" -c 'SELECT * FROM pgstrom.gpu_service_status()' \
	-c 'SELECT * FROM pgstrom.gpu_device_info()'
echo "--- service lines of the server log:"
grep -E 'GPU[0-9]+:|SVC:|GPU Service' "$dir/server.log" | head -20 || true
