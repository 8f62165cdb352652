#!/bin/bash
# Host-side tests of the kernels' pure helpers and per-tuple evaluation.
# Needs nvcc (no GPU).  Prints "N passed, N failed"; exit status 1 on failure.
#
# The suites are compiled as one program, test_all.cu (each suite's file
# includes the one before it, so the separate programs would compile the
# same code up to five times), and run one after another.  They run the
# kernels' code on the host only: their device code goes through nvcc's
# device front end to PTX (compute_52, nvcc 11.8's default architecture),
# without ptxas's machine code, which no test runs; ptxas of the kernels
# for the architectures the product ships is the fatbin build's (make).
# KERNEL_TESTS="test_join ..." compiles and runs those programs instead,
# side by side (KERNEL_TEST_JOBS at a time, default nproc).
set -euo pipefail
cd "$(dirname "$0")"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
CCBIN=""
if "$NVCC" --version | grep 'release 11\.' >/dev/null && command -v clang-14 >/dev/null; then
	CCBIN="-ccbin clang-14"
fi
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
jobs=${KERNEL_TEST_JOBS:-$(nproc)}

# compile NAME: NAME.cu into $OUT/NAME; its messages go to $OUT/NAME.log
compile() {
	"$NVCC" $CCBIN -O2 -x cu -gencode arch=compute_52,code=compute_52 -I.. -I../../include \
		-o "$OUT/$1" "$1.cu" -lstdc++ -lm >"$OUT/$1.log" 2>&1
}
programs=(${KERNEL_TESTS:-test_all})
pids=()
failed=0
for p in "${programs[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
	compile "$p" &
	pids+=($!)
done
for i in "${!programs[@]}"; do
	if ! wait "${pids[$i]}"; then
		echo "compiling ${programs[$i]}.cu failed:"
		failed=1
	fi
	cat "$OUT/${programs[$i]}.log"
done
[ $failed -eq 0 ] || exit 1

for p in "${programs[@]}"; do
	"$OUT/$p" vectors.txt
done
# the host executor compiles the join headers as plain C++ (gosvc/hostexec)
if command -v "${CXX:-c++}" >/dev/null; then
	printf '#include "xpu_join.h"\n#include "xpu_join_preagg.h"\n' |
		"${CXX:-c++}" -std=c++17 -Wall -Werror -fsyntax-only -x c++ -I.. -I../../include -
	echo "join headers: plain C++ ok"
fi
