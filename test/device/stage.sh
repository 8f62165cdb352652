#!/usr/bin/env bash
# test/device/stage.sh: on the build machine (no GPU needed), builds pg_strom
# into a portable PostgreSQL and stages everything the device scripts need
# on the GPU machine into PGSTROM_STAGE (default .device, git-ignored),
# which is carried there beside the working tree:
#   pg.tgz          that PostgreSQL with pg_strom installed, one top folder
#                   (cluster.sh start unpacks it)
#   cluster.sh, env.sh and the other scripts of test/device/
#   pgstrom-bench   the bench/ binary
#   gpu.test        gosvc/gpu's tests (-tags gpu), for on_gpu.sh's gotests
#   lifecycle.test  test/lifecycle's tests, for on_gpu.sh's lifecycle parts
#   stress          the test/stress harness (static), for stress.sh
# Binaries are built without symbols: where the folder is carried to a
# remote machine that takes at most 64 MiB with the working tree, leave out
# what a run does not need (pg.tgz is about 15 MB, pgstrom-bench 17 MB,
# lifecycle.test 11 MB, stress 10 MB, gpu.test 6 MB: about 56 MB in all);
# the script warns at 64 MiB.
#
# Needs: PG_CONFIG naming a PostgreSQL installed in one folder (default
# /opt/pg15/bin/pg_config): build one with build/build-pg.sh 15 and unpack it
# there (tar xzf pg15.tgz -C /opt), or any relocatable build; write access
# to it (make install); Go (docs/install.md; /usr/local/go/bin comes first),
# gcc, make, the CUDA header cuda.h (for gpu.test and the service), and nvcc
# for the prebuilt kernels fatbin (without nvcc the service compiles the
# installed kernel sources with the GPU machine's nvcc at its first start).
# A Debian package's PostgreSQL (spread over /usr/lib and /usr/share) cannot
# be staged.  Takes about 4 minutes on 2 cores (make clean, then the
# extension, the Go service, the fatbin and four Go binaries).
set -euo pipefail
cd "$(dirname "$0")/../.."
die() { echo "stage.sh: $*" >&2; exit 1; }
export PATH=/usr/local/go/bin:$PATH
PG_CONFIG=${PG_CONFIG:-/opt/pg15/bin/pg_config}
stage=${PGSTROM_STAGE:-.device}

[ -x "$PG_CONFIG" ] || command -v "$PG_CONFIG" >/dev/null ||
	die "no pg_config at $PG_CONFIG: build a portable PostgreSQL with build/build-pg.sh 15, unpack it (tar xzf pg15.tgz -C /opt) and set PG_CONFIG=/opt/pg15/bin/pg_config"
command -v go >/dev/null || die "Go is missing (https://go.dev/dl, installed as /usr/local/go)"
for tool in make gcc tar; do command -v "$tool" >/dev/null || die "$tool is missing"; done

# the whole installation must lie in one folder, which pg.tgz carries
bindir=$("$PG_CONFIG" --bindir)
prefix=$(cd "$bindir/.." && pwd)
for d in sharedir pkglibdir libdir includedir-server; do
	p=$("$PG_CONFIG" --"$d")
	case $(cd "$p" 2>/dev/null && pwd) in
	"$prefix"/*) ;;
	*) die "PG_CONFIG=$PG_CONFIG: its $d ($p) is outside $prefix: stage a PostgreSQL installed in one folder (build/build-pg.sh)" ;;
	esac
done
# relocatable when psql finds libpq relative to itself; otherwise it runs
# only where it was built
if ! readelf -d "$bindir/psql" 2>/dev/null | grep 'R.*PATH.*\$ORIGIN' >/dev/null; then
	echo "stage.sh: warning: $prefix is not relocatable: on the GPU machine set PGSTROM_PG_DIR=$prefix" >&2
fi
other=$(ldd "$bindir/postgres" "$bindir/psql" | awk '/=>/ {print $1}' | sort -u |
	grep -vE '^(libpq\.so|libc\.so|libm\.so|libdl\.so|libpthread\.so|librt\.so|linux-vdso\.so|ld-linux)' || true)
[ -z "$other" ] || echo "stage.sh: warning: this PostgreSQL also needs $(echo "$other" | tr '\n' ' ')(the GPU machine must have them)" >&2

# CGO_CXXFLAGS with the kernels' hash: gpu.test links the host executor
. test/lib.sh
make -s clean PG_CONFIG="$PG_CONFIG" >/dev/null
make -s PG_CONFIG="$PG_CONFIG"
make -s install PG_CONFIG="$PG_CONFIG"
[ -f kernels/pg_strom_kernels.fatbin ] ||
	echo "stage.sh: no nvcc here: no prebuilt fatbin; the service compiles the kernels with the GPU machine's nvcc" >&2

mkdir -p "$stage"
tar czf "$stage/pg.tgz" -C "$(dirname "$prefix")" "$(basename "$prefix")"
cp test/device/*.sh test/device/*.c "$stage/"
# without symbols: what is carried is limited to 64 MiB in all
strip='-ldflags=-s -w'
go build "$strip" -o "$stage/pgstrom-bench" ./bench
CGO_CFLAGS="-include $PWD/build/cuda_compat.h" go test -c "$strip" -tags gpu -o "$stage/gpu.test" ./gosvc/gpu
go test -c "$strip" -tags lifecycle -o "$stage/lifecycle.test" ./test/lifecycle
CGO_ENABLED=0 go build "$strip" -o "$stage/stress" ./test/stress
du -sh "$stage"
[ "$(du -sm "$stage" | cut -f1)" -lt 64 ] ||
	echo "stage.sh: warning: $stage is 64 MiB or more: the remote machines' carry refuses it; leave out what the run does not need" >&2
echo "stage.sh: staged into $stage; on the GPU machine, from the repository root:"
if [ "$stage" = .device ]; then
	echo "  bash test/device/on_gpu.sh"
else
	echo "  PGSTROM_STAGE=$stage bash test/device/on_gpu.sh"
fi
