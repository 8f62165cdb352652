#!/usr/bin/env bash
# PG_CONFIG=... test/run_regress_pg.sh [--hostexec]: the pg_regress suite
# against the PostgreSQL PG_CONFIG names (15, 16, 17 or 18), and with
# --hostexec the host-executor suite, test/device/aio_checks.sh (GPU
# scans while other backends read the same pages) and the lifecycle tests
# of the data path too.  pg_strom is built and installed
# from a copy of this tree, so that the tree's own build (for the default
# PostgreSQL) stays as it is; the suites are the tree's own scripts, run in
# that copy, on ports of their own.  build/install_pg.sh installs 17 or 18.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${PG_CONFIG:?name the PostgreSQL with PG_CONFIG=.../pg_config}"
export PG_CONFIG
export PATH=/usr/local/go/bin:$PATH
hostexec=false
[ "${1:-}" = --hostexec ] && hostexec=true
major=$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
export PGSTROM_REGRESS_PORT=${PGSTROM_REGRESS_PORT:-$((56000 + major * 10 + 3))}
export PGSTROM_HOSTEXEC_PORT=${PGSTROM_HOSTEXEC_PORT:-$((56000 + major * 10 + 5))}
# a host executor a caller installed is in its own PostgreSQL, not this one
unset PGSTROM_HOSTEXEC_INSTALLED PGSTROM_HOSTEXEC_SO

copy=$(mktemp -d /tmp/pg_strom_pg$major.XXXXXX)
trap '[ "${KEEP_TEST_CLUSTER:-}" ] || rm -rf "$copy"' EXIT
# the tracked and the new files, as they are now, and the build outputs
# that do not depend on the PostgreSQL (the Go library, the kernels'
# fatbin): make takes them when they are newer than their sources
{
	git ls-files -z --cached --others --exclude-standard
	for f in pg_strom_gosvc.so pg_strom_gosvc.h kernels/pg_strom_kernels.fatbin \
		kernels/pg_strom_kernels.fatbin.sha256 kernels/pg_strom_kernels.fatbin.manifest; do
		if [ -f "$f" ]; then printf '%s\0' "$f"; fi
	done
} | tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C "$copy"
chmod -R a+rX "$copy"
cd "$copy"
echo "--- building pg_strom for $("$PG_CONFIG" --version)"
make -s -j"$(nproc)" PG_CONFIG="$PG_CONFIG"
make -s install PG_CONFIG="$PG_CONFIG"

echo "--- pg_regress, PostgreSQL $major"
bash test/run_regress.sh
if $hostexec; then
	echo "--- GPU scans while other backends read the same pages (test/device/aio_checks.sh)"
	. test/lib.sh
	dir=$(mktemp -d /tmp/pg_strom_aio.XXXXXX)
	chmod 755 "$dir"
	lib="$("$PG_CONFIG" --pkglibdir)/pg_strom_gosvc_hostexec.so"
	# shellcheck disable=SC2064
	trap "cluster_stop '$dir'; rm -f '$lib'; [ \"\${KEEP_TEST_CLUSTER:-}\" ] || rm -rf '$dir' '$copy'" EXIT
	CGO_ENABLED=1 go build -buildmode=c-shared -o "$dir/hostexec.so" ./gosvc/hostexec/cmd/pg_strom_gosvc_hostexec
	install -m 755 "$dir/hostexec.so" "$lib"
	rm -f "$dir/hostexec.so" "$dir/hostexec.h"
	PG_STROM_TEST_HOST_EXECUTOR=1 cluster_start "$dir/data" "$PGSTROM_HOSTEXEC_PORT"
	cluster_psql "$dir/data" "$PGSTROM_HOSTEXEC_PORT" -q -c "CREATE EXTENSION pg_strom"
	for _ in $(seq 1 300); do
		[ "$(cluster_psql "$dir/data" "$PGSTROM_HOSTEXEC_PORT" -Atc "SELECT state FROM pgstrom.gpu_service_status() LIMIT 1")" = ready ] && break
		sleep 0.2
	done
	HX_DIR=$dir/data HX_PORT=$PGSTROM_HOSTEXEC_PORT R=test/device/local_remote.sh AIO_ROWS=300000 \
		bash test/device/aio_checks.sh
	cluster_stop "$dir/data"
	rm -f "$lib"

	echo "--- host executor suite, PostgreSQL $major"
	bash test/run_regress_hostexec.sh

	# the lifecycle tests of the data path: direct read (segments,
	# tablespaces, checksums, concurrent writers, a lost service), shared
	# buffers mapped read-only into the service, a crash restart's new
	# shared memory, kept rows rechecked on the CPU, and zero-copy chunks
	# sent in buffer order
	echo "--- lifecycle tests of the data path, PostgreSQL $major"
	PGSTROM_LIFECYCLE_PORT_BASE=$((57000 + major * 20)) PGSTROM_LIFECYCLE_PORT_SPAN=19 \
		go test -count=1 -tags lifecycle -timeout 20m \
		-run '^(TestDirectRead|TestServiceMapsSharedMemoryReadOnly|TestCrashRestartLeavesNoServiceOnOldSharedMemory|TestFusedPreAggDeviceAndRecheckRows|TestZeroCopyChunksInBufferOrder)' \
		./test/lifecycle
fi
echo "PostgreSQL $major: all suites passed"
