#!/usr/bin/env bash
# test/device/cluster.sh: the PostgreSQL cluster the device scripts run
# against, with pg_strom preloaded, on a machine that may have no
# PostgreSQL of its own.
#
#   cluster.sh start [extra.conf]   unpack PostgreSQL if needed, initdb on the
#                                   first start (extra.conf appended to
#                                   postgresql.conf then), start; waits until
#                                   the server accepts connections (at most
#                                   300 s)
#   cluster.sh psql ARGS...         psql as the cluster owner
#   cluster.sh stop                 stop (fast), and copy server.log to $OUT
#   cluster.sh env                  print the exports to eval for psql,
#                                   pgbench and pg_config: PGHOST, PGPORT,
#                                   PGUSER, PGDATABASE, PGDATA, PATH, PG_CONFIG
#
# PostgreSQL: PGBIN or PG_CONFIG names an installed one (with pg_strom
# installed into it); otherwise start unpacks PGSTROM_STAGE/pg.tgz (written
# by test/device/stage.sh, relocatable) into PGSTROM_PG_DIR, again whenever
# pg.tgz is newer than the unpacked copy.  Without pg_strom.so installed the
# cluster starts without it, with a warning.
# The cluster: PGDATA, owned by PGSTROM_OWNER, which start creates when run
# as root (PostgreSQL refuses to run as root); clients connect as that user
# through PGSTROM_SOCKET_DIR and PGPORT with trust authentication, no TCP.
# Defaults of these variables: test/device/env.sh.  Settings written at
# initdb: shared_buffers = PGSTROM_SHARED_BUFFERS (default 16GB), 16
# parallel workers per gather, max_worker_processes 40, max_wal_size 16GB.
# Needs: bash, tar, and as root runuser and useradd (util-linux, passwd).
# Takes a few seconds; the first start of a cluster with 16GB of shared
# buffers takes longer while the GPU service registers them.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/env.sh" || exit 2

die() { echo "cluster.sh: $*" >&2; exit 2; }
as_owner() {
	if [ "$(id -u)" = 0 ]; then runuser -u "$PGSTROM_OWNER" -- "$@"; else "$@"; fi
}
export PGHOST=$PGSTROM_SOCKET_DIR PGPORT PGUSER=$PGSTROM_OWNER PGDATABASE=postgres PATH=$PGBIN:$PATH

# unpack_pg: PGSTROM_STAGE/pg.tgz into PGSTROM_PG_DIR when PGBIN is that
# folder's and the copy there is missing or older
unpack_pg() {
	local tgz=$PGSTROM_STAGE/pg.tgz mark=$PGSTROM_PG_DIR/.pg.tgz.unpacked
	[ "$PGBIN" = "$PGSTROM_PG_DIR/bin" ] || return 0
	[ -f "$tgz" ] || return 0
	if [ -x "$PGBIN/postgres" ] && [ -f "$mark" ] && ! [ "$tgz" -nt "$mark" ]; then
		return 0
	fi
	if [ -e "$PGSTROM_PG_DIR" ] && ! [ -f "$mark" ] && [ -n "$(ls -A "$PGSTROM_PG_DIR")" ]; then
		die "$PGSTROM_PG_DIR holds files not unpacked by cluster.sh: set PGSTROM_PG_DIR to another folder"
	fi
	echo "cluster.sh: unpacking $tgz into $PGSTROM_PG_DIR"
	rm -rf "$PGSTROM_PG_DIR"
	mkdir -p "$PGSTROM_PG_DIR"
	tar xzf "$tgz" -C "$PGSTROM_PG_DIR" --strip-components=1
	touch -r "$tgz" "$mark"
}

start() {
	unpack_pg
	[ -x "$PGBIN/postgres" ] ||
		die "no PostgreSQL at $PGBIN: set PGBIN or PG_CONFIG to an installed one, or stage $PGSTROM_STAGE/pg.tgz with test/device/stage.sh (PGSTROM_STAGE names another folder)"
	if [ "$(id -u)" = 0 ]; then
		command -v runuser >/dev/null || die "runuser (util-linux) is needed to run the cluster as $PGSTROM_OWNER"
		id "$PGSTROM_OWNER" >/dev/null 2>&1 || useradd -m "$PGSTROM_OWNER"
		mkdir -p "$(dirname "$PGDATA")"
		chown "$PGSTROM_OWNER" "$(dirname "$PGDATA")"
		as_owner test -x "$PGBIN/postgres" ||
			die "$PGSTROM_OWNER cannot run $PGBIN/postgres: put PostgreSQL where that user can read it (PGSTROM_PG_DIR)"
	else
		mkdir -p "$(dirname "$PGDATA")"
	fi
	if [ ! -f "$PGDATA/PG_VERSION" ]; then
		[ -z "${1:-}" ] || [ -r "$1" ] || die "cannot read $1"
		as_owner "$PGBIN/initdb" -D "$PGDATA" -A trust -E UTF8 --locale=C >/dev/null
		local preload=pg_strom
		if [ ! -f "$("$PGBIN/pg_config" --pkglibdir)/pg_strom.so" ]; then
			preload=
			echo "cluster.sh: pg_strom.so is not installed in $PGBIN/..; starting without it" >&2
		fi
		cat >> "$PGDATA/postgresql.conf" <<CONF
shared_preload_libraries = '$preload'
unix_socket_directories = '$PGSTROM_SOCKET_DIR'
port = $PGPORT
listen_addresses = ''
shared_buffers = ${PGSTROM_SHARED_BUFFERS:-16GB}
max_worker_processes = 40
max_parallel_workers = 16
max_parallel_workers_per_gather = 16
max_wal_size = 16GB
logging_collector = off
log_line_prefix = '%m [%p] '
CONF
		if [ -n "${1:-}" ]; then cat "$1" >> "$PGDATA/postgresql.conf"; fi
	fi
	as_owner "$PGBIN/pg_ctl" -D "$PGDATA" -l "$PGDATA/server.log" -w -t 300 start
}

stop() {
	[ -f "$PGDATA/PG_VERSION" ] || { echo "cluster.sh: no cluster in $PGDATA" >&2; return 0; }
	as_owner "$PGBIN/pg_ctl" -D "$PGDATA" -m fast -w stop || true
	if [ -n "${OUT:-}" ] && [ -f "$PGDATA/server.log" ]; then
		mkdir -p "$OUT" && cp "$PGDATA/server.log" "$OUT/server.log" || true
	fi
}

case "${1:-}" in
start) shift; start "$@" ;;
psql)
	shift
	[ -x "$PGBIN/psql" ] || die "no psql at $PGBIN: start the cluster first, or set PGBIN or PG_CONFIG"
	exec "$PGBIN/psql" -X -v ON_ERROR_STOP=1 "$@"
	;;
stop) stop ;;
env)
	printf 'export PGHOST=%q PGPORT=%q PGUSER=%q PGDATABASE=postgres PGDATA=%q PGBIN=%q PATH=%q:"$PATH" PG_CONFIG=%q\n' \
		"$PGHOST" "$PGPORT" "$PGUSER" "$PGDATA" "$PGBIN" "$PGBIN" "$PGBIN/pg_config"
	;;
*)
	echo "usage: cluster.sh start [extra.conf] | psql ARGS... | stop | env" >&2
	exit 2
	;;
esac
