#!/usr/bin/env bash
# test/device/stage_variants.sh: on the build machine, after stage.sh: kernel
# variants for kernel_variants.sh, each an sm_90-only fatbin of the current
# sources with one change, into PGSTROM_STAGE/variants/ (NAME.fatbin;
# PGSTROM_STAGE defaults to .device).  VARIANTS lists NAME=SPEC pairs; a
# SPEC is "lb:N" (kern_gpujoin_preagg's __launch_bounds__ minimum blocks per
# multiprocessor) or "rev:COMMIT:PATH" (that file as of COMMIT, from git).
# The variants are compiled in parallel; an empty VARIANTS leaves an empty
# folder.
# Needs: nvcc (NVCC, default nvcc on PATH; with Debian's nvcc 11.8 also
# clang-14), git for rev: specs; no GPU.
# Takes about 1-2 minutes a variant on 2 cores (nvcc of the kernels).
set -euo pipefail
cd "$(dirname "$0")/../.."
NVCC=${NVCC:-nvcc}
command -v "$NVCC" >/dev/null || { echo "stage_variants.sh: no nvcc ($NVCC): set NVCC" >&2; exit 2; }
stage=${PGSTROM_STAGE:-.device}
mkdir -p "$stage"
out=$(cd "$stage" && pwd)/variants
ccbin=()
"$NVCC" --version | grep 'release 11\.' >/dev/null && ccbin=(-ccbin clang-14)
rm -rf "$out"
mkdir -p "$out"
for v in ${VARIANTS:-}; do
	name=${v%%=*} spec=${v#*=}
	tree=$(mktemp -d)
	cp -r kernels include "$tree/"
	case $spec in
	lb:*)
		sed -i "s/__launch_bounds__(XPU_GPUSCAN_THREADS, [0-9]*)\$/__launch_bounds__(XPU_GPUSCAN_THREADS, ${spec#lb:})/" "$tree/kernels/xpu_join_preagg.h"
		grep -q "__launch_bounds__(XPU_GPUSCAN_THREADS, ${spec#lb:})" "$tree/kernels/xpu_join_preagg.h" || { echo "stage_variants: $name: no launch bounds to change" >&2; exit 1; }
		;;
	rev:*)
		rest=${spec#rev:}
		git show "${rest%%:*}:${rest#*:}" > "$tree/${rest#*:}"
		;;
	*) echo "stage_variants: $name: unknown spec $spec" >&2; exit 1 ;;
	esac
	(cd "$tree" && "$NVCC" "${ccbin[@]}" -fatbin -O3 -fmad=false -Ikernels -Iinclude -gencode arch=compute_90,code=sm_90 \
		-o "$out/$name.fatbin" kernels/pg_strom_kernels.cu) &
done
wait
ls -la "$out"
