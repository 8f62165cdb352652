#!/usr/bin/env bash
# Here (no GPU): build against the portable PostgreSQL of shared/device and
# stage everything the GPU machine needs into .device/ (git-ignored, carried).
set -euo pipefail
cd "$(dirname "$0")/../.."
shared=${PGSTROM_SHARED:-$(cd .. && pwd)/shared}
export PATH=/usr/local/go/bin:$PATH
# CGO_CXXFLAGS with the kernels' hash: gpu.test links the host executor
. test/lib.sh
PGC=/opt/pg15/bin/pg_config
[ -x $PGC ] || tar xzf "$shared/device/pg15-opt.tgz" -C /
make -s clean PG_CONFIG=$PGC >/dev/null
make -s PG_CONFIG=$PGC
make -s install PG_CONFIG=$PGC
mkdir -p .device
tar czf .device/pg15.tgz -C / opt/pg15
cp "$shared/device/remote.sh" test/device/*.sh test/device/*.c .device/
# without symbols: what is carried is limited to 64 MiB in all
strip='-ldflags=-s -w'
go build "$strip" -o .device/pgstrom-bench ./bench
CGO_CFLAGS="-include $PWD/build/cuda_compat.h" go test -c "$strip" -tags gpu -o .device/gpu.test ./gosvc/gpu
go test -c "$strip" -tags lifecycle -o .device/lifecycle.test ./test/lifecycle
bash test/stress/stage_device.sh >/dev/null
du -sh .device
[ "$(du -sm .device | cut -f1)" -lt 64 ] || echo "WARNING: .device is 64 MiB or more: carry refuses it; leave out what this run does not need" >&2
