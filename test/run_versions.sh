#!/usr/bin/env bash
# make test-versions: the suites of test/run_regress_pg.sh --hostexec
# (build, pg_regress, the host-executor suite, the concurrent-read checks
# and the lifecycle tests of the data path) on every PostgreSQL major in
# PGSTROM_TEST_VERSIONS (default "17 18"), one after another.  A version
# that is not installed under /opt/pgMAJOR is installed first by
# build/install_pg.sh (root and Debian's archive: 17 from Debian 13's
# binary packages, about 1 min; 18 built from source, about 4-10 min on 2
# cores, or unpacked from PGSTROM_PG18_TARBALL).  Ends with each version's
# time and result; exit status 1 when one failed.
set -uo pipefail
cd "$(dirname "$0")/.."
versions=${PGSTROM_TEST_VERSIONS:-17 18}

# pg_config_of MAJOR: the pg_config of /opt/pgMAJOR, or nothing
pg_config_of() {
	local c
	for c in "/opt/pg$1/bin/pg_config" "/opt/pg$1/usr/lib/postgresql/$1/bin/pg_config"; do
		[ -x "$c" ] && { echo "$c"; return; }
	done
}

declare -A result
rc=0
for v in $versions; do
	t0=$SECONDS
	echo "=== PostgreSQL $v"
	pgc=$(pg_config_of "$v")
	if [ -z "$pgc" ]; then
		echo "--- installing PostgreSQL $v under /opt/pg$v (build/install_pg.sh)"
		tarball_var=PGSTROM_PG${v}_TARBALL
		pgc=$(PGSTROM_PG_TARBALL=${!tarball_var:-} bash build/install_pg.sh "$v" | tail -1) || pgc=
	fi
	if [ -z "$pgc" ] || ! "$pgc" --version >/dev/null 2>&1; then
		result[$v]="FAILED (PostgreSQL $v could not be installed) $((SECONDS - t0)) s"
		rc=1
		continue
	fi
	if PG_CONFIG=$pgc bash test/run_regress_pg.sh --hostexec; then
		result[$v]="ok $((SECONDS - t0)) s"
	else
		result[$v]="FAILED $((SECONDS - t0)) s"
		rc=1
	fi
	echo "=== PostgreSQL $v: ${result[$v]}"
done
echo
for v in $versions; do echo "PostgreSQL $v: ${result[$v]}"; done
exit $rc
