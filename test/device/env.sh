# shellcheck shell=bash
# Sourced by the scripts of test/device/ (cluster.sh too): every path they
# use, each from a variable with a default, and the checks they share.
# Run the scripts from the repository root.
#
#   PGSTROM_STAGE   the folder test/device/stage.sh fills: pg.tgz (PostgreSQL
#                   with pg_strom installed), pgstrom-bench, gpu.test,
#                   lifecycle.test, stress, variants/ (default .device)
#   PGBIN           PostgreSQL's programs; default PG_CONFIG's --bindir when
#                   PG_CONFIG is set, else PGSTROM_PG_DIR/bin
#   PGSTROM_PG_DIR  where cluster.sh start unpacks PGSTROM_STAGE/pg.tgz
#                   (default /opt/pgstrom-pg as root, ~/pgstrom/pg otherwise)
#   PGDATA          the cluster (default /data/pgstrom as root,
#                   ~/pgstrom/data otherwise)
#   PGSTROM_OWNER   the unprivileged user that owns the cluster when the
#                   scripts run as root (default pgstrom, created if missing);
#                   otherwise the current user
#   PGSTROM_SOCKET_DIR, PGPORT   where clients connect (default /tmp, 5432)
#   R               the cluster helper (default cluster.sh beside this file;
#                   local_remote.sh runs the checks against a local cluster)
#   OUT             where results go (default /tmp/out; exported)
# Only OUT is exported: cluster.sh computes the same values from the same
# variables, and `eval "$(bash "$R" env)"` exports what clients need.
_device_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

PGSTROM_STAGE=${PGSTROM_STAGE:-.device}
[ -d "$PGSTROM_STAGE" ] && PGSTROM_STAGE=$(cd "$PGSTROM_STAGE" && pwd)
STAGE=$PGSTROM_STAGE

if [ "$(id -u)" = 0 ]; then
	PGSTROM_PG_DIR=${PGSTROM_PG_DIR:-/opt/pgstrom-pg}
	PGDATA=${PGDATA:-/data/pgstrom}
	PGSTROM_OWNER=${PGSTROM_OWNER:-pgstrom}
else
	PGSTROM_PG_DIR=${PGSTROM_PG_DIR:-$HOME/pgstrom/pg}
	PGDATA=${PGDATA:-$HOME/pgstrom/data}
	PGSTROM_OWNER=$(id -un)
fi
if [ -z "${PGBIN:-}" ]; then
	if [ -n "${PG_CONFIG:-}" ]; then
		PGBIN=$("$PG_CONFIG" --bindir 2>/dev/null) || PGBIN=$(dirname "$PG_CONFIG")
	else
		PGBIN=$PGSTROM_PG_DIR/bin
	fi
fi
PGSTROM_SOCKET_DIR=${PGSTROM_SOCKET_DIR:-/tmp}
PGPORT=${PGPORT:-5432}
R=${R:-$_device_dir/cluster.sh}

# device_need FILE HINT: stop with a clear message when FILE is missing
device_need() {
	[ -e "$1" ] || { echo "$(basename "$0"): $1 is missing: $2" >&2; exit 2; }
}
# device_need_staged NAME: a file stage.sh puts into PGSTROM_STAGE
device_need_staged() {
	device_need "$STAGE/$1" "run test/device/stage.sh on the build machine and carry $STAGE (or set PGSTROM_STAGE)"
}
# device_need_repo: the scripts that read the repository's files run from its root
device_need_repo() {
	[ -f test/device/env.sh ] || { echo "$(basename "$0"): run this from the repository root" >&2; exit 2; }
}

# device_wait_service waits (at most 60 s) until the GPU service has left
# 'starting'; psql must reach the cluster (after `eval "$(bash "$R" env)"`).
device_wait_service() {
	psql -X -q -c "DO \$\$ BEGIN FOR i IN 1..600 LOOP
	EXIT WHEN (SELECT state FROM pgstrom.gpu_service_status() LIMIT 1) <> 'starting';
	PERFORM pg_sleep(0.1); END LOOP; END \$\$"
}
