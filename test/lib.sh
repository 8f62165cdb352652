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
		if [ -n "${PGSTROM_INITDB_TEMPLATE:-}" ]; then
			# a data directory this same initdb command made, owned by
			# the test user (test/run_all.sh makes one per run)
			as_owner cp -a "$PGSTROM_INITDB_TEMPLATE/." "$dir"
		else
			as_owner "$PGBIN/initdb" -D "$dir" -A trust -E UTF8 --locale=C >/dev/null
		fi
		cat >> "$dir/postgresql.conf" <<CONF
shared_preload_libraries = 'pg_strom'
port = $port
unix_socket_directories = '$dir'
listen_addresses = ''
max_worker_processes = 16
logging_collector = off
log_line_prefix = '%m [%p] '
# a test cluster is thrown away: nothing it writes need outlive an OS
# crash, and a killed PostgreSQL process loses nothing without them
fsync = off
full_page_writes = off
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

# The TEST-ONLY host executor library lies in pkglibdir, where every test
# run on this machine looks for it.  A run that uses it calls hostexec_use
# (a shared flock(1) on a file in /tmp named after the installation, held
# until hostexec_unuse), then
# hostexec_put SRC to install it; hostexec_unuse removes it only when no
# other run still uses it (and this one installed it).  Installs and
# removals take a second lock, so that none happens between another run's
# check and its removal.  A library that is installed while no other run
# holds the lock was put there otherwise (a test outside these helpers, or
# a run that was killed): hostexec_put leaves it and fails.
hostexec_lib() { echo "$("$PG_CONFIG" --pkglibdir)/pg_strom_gosvc_hostexec.so"; }
_hostexec_open() {
	# one pair of locks per PostgreSQL installation
	local key f
	key=$(hostexec_lib | cksum | cut -d' ' -f1)
	f=${TMPDIR:-/tmp}/pg_strom_hostexec.$key.$1.lock
	[ -e "$f" ] || (umask 0 && : >>"$f") 2>/dev/null
	exec {_hostexec_fd}<"$f"
}
hostexec_use() {
	_hostexec_open users || return 1
	_hostexec_users=$_hostexec_fd
	_hostexec_open mutex || return 1
	_hostexec_mutex=$_hostexec_fd
	flock -s "$_hostexec_users"
}
hostexec_put() {
	local lib rc=0
	lib=$(hostexec_lib)
	flock -x "$_hostexec_mutex" || return 1
	if [ -e "$lib" ]; then
		# our shared lock becomes exclusive only if no other run holds
		# one; a conversion that fails drops the lock: it is taken again
		flock -n -x "$_hostexec_users" && rc=1
		flock -s "$_hostexec_users"
	fi
	if [ $rc -ne 0 ]; then
		echo "$lib is installed, but no test run that shares it is running: a test run of another kind uses it, or one that was killed left it; remove it once no test runs"
	else
		install -m 755 "$1" "$lib" || rc=$?
	fi
	flock -u "$_hostexec_mutex"
	return $rc
}
# hostexec_unuse PUT: PUT is non-empty when this run's hostexec_put installed it
hostexec_unuse() {
	[ -n "${_hostexec_users:-}" ] || return 0
	flock -x "$_hostexec_mutex"
	if [ -n "${1:-}" ]; then
		flock -n -x "$_hostexec_users" && rm -f "$(hostexec_lib)"
	fi
	flock -u "$_hostexec_users"
	flock -u "$_hostexec_mutex"
	exec {_hostexec_users}<&- {_hostexec_mutex}<&-
	_hostexec_users=
}
