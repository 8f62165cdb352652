#!/usr/bin/env bash
# test/device/gather_probe.sh [GB [MEAN_RUN...]]: builds gather_probe.cu with
# the machine's nvcc (NVCC, default /usr/local/cuda/bin/nvcc; NVCC_ARCH,
# default -arch=native) and runs it: how fast scattered
# 8 kB pages of a pinned, mapped host region reach device memory, by each
# way of gathering them.  Needs an NVIDIA GPU and about GB (default 4) of
# memory.  Takes about a minute.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
bin=$(mktemp -d)/gather_probe
"$NVCC" -O3 ${NVCC_ARCH:--arch=native} -o "$bin" "$here/gather_probe.cu"
"$bin" "$@"
