#!/usr/bin/env bash
# Here, after stage.sh: kernel variants for kernel_variants.sh, each a
# sm_90-only fatbin of the current sources with one change, into
# .device/variants/ (NAME.fatbin).  VARIANTS lists NAME=SPEC pairs; a SPEC
# is "lb:N" (kern_gpujoin_preagg's __launch_bounds__ minimum blocks per
# multiprocessor) or "rev:COMMIT:PATH" (that file as of COMMIT).
set -euo pipefail
cd "$(dirname "$0")/../.."
NVCC=${NVCC:-nvcc}
ccbin=
$NVCC --version | grep -q 'release 11\.' && ccbin="-ccbin clang-14"
rm -rf .device/variants
mkdir -p .device/variants
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
	(cd "$tree" && $NVCC $ccbin -fatbin -O3 -fmad=false -Ikernels -Iinclude -gencode arch=compute_90,code=sm_90 \
		-o "$OLDPWD/.device/variants/$name.fatbin" kernels/pg_strom_kernels.cu) &
done
wait
ls -la .device/variants
