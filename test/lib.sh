# Shared helpers of the test and demo scripts: a throwaway cluster run by an
# unprivileged user, since PostgreSQL refuses to run as root.
export PATH=/usr/local/go/bin:$PATH
PG_CONFIG=${PG_CONFIG:-$(command -v pg_config)}
PGBIN=$("$PG_CONFIG" --bindir)
PGSTROM_TEST_USER=${PGSTROM_TEST_USER:-pgstrom_test}
# The go command does not hash the kernel headers that gosvc/hostexec's C++
# includes from kernels/ and include/, so a cached host executor built from
# older kernels could be the one tested; their hash in the flags, which it
# does hash, rebuilds it when they change.
_pgstrom_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export CGO_CXXFLAGS="-g -O2 -DPGSTROM_KERNEL_SOURCES=$(cat "$_pgstrom_root"/kernels/*.h "$_pgstrom_root"/include/*.h | sha256sum | cut -c1-16)"

ensure_test_user() {
	if [ "$(id -u)" = 0 ]; then
		id "$PGSTROM_TEST_USER" >/dev/null 2>&1 || useradd -m -s /bin/bash "$PGSTROM_TEST_USER"
	fi
}

as_owner() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u "$PGSTROM_TEST_USER" -- "$@"
	else
		"$@"
	fi
}

# cluster_start DIR PORT: initdb (if needed) and start with pg_strom preloaded
cluster_start() {
	local dir=$1 port=$2
	ensure_test_user
	if [ ! -f "$dir/PG_VERSION" ]; then
		mkdir -p "$dir"
		[ "$(id -u)" = 0 ] && chown "$PGSTROM_TEST_USER" "$dir"
		chmod 700 "$dir"
		as_owner "$PGBIN/initdb" -D "$dir" -A trust -E UTF8 --locale=C >/dev/null
		cat >> "$dir/postgresql.conf" <<CONF
shared_preload_libraries = 'pg_strom'
port = $port
unix_socket_directories = '$dir'
listen_addresses = ''
max_worker_processes = 16
logging_collector = off
log_line_prefix = '%m [%p] '
CONF
	fi
	as_owner "$PGBIN/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 60 start >/dev/null
}

cluster_stop() {
	local dir=$1
	[ -f "$dir/postmaster.pid" ] && as_owner "$PGBIN/pg_ctl" -D "$dir" -m fast -w -t 30 stop >/dev/null || true
}

cluster_psql() {
	local dir=$1 port=$2; shift 2
	"$PGBIN/psql" -X -v ON_ERROR_STOP=1 -h "$dir" -p "$port" -U "$PGSTROM_TEST_USER" -d postgres "$@"
}
