#!/bin/bash
# Host-side tests of the kernels' pure helpers and per-tuple evaluation.
# Needs nvcc (no GPU).  Prints "N passed, N failed"; exit status 1 on failure.
set -euo pipefail
cd "$(dirname "$0")"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
CCBIN=""
if "$NVCC" --version | grep -q 'release 11\.' && command -v clang-14 >/dev/null; then
	CCBIN="-ccbin clang-14"
fi
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
"$NVCC" $CCBIN -O2 -x cu -I.. -I../../include -o "$OUT/test_kernels" test_kernels.cu -lstdc++ -lm
"$OUT/test_kernels" vectors.txt
"$NVCC" $CCBIN -O2 -x cu -I.. -I../../include -o "$OUT/test_preagg" test_preagg.cu -lstdc++ -lm
"$OUT/test_preagg" vectors.txt
"$NVCC" $CCBIN -O2 -x cu -I.. -I../../include -o "$OUT/test_gather" test_gather.cu -lstdc++ -lm
"$OUT/test_gather"
"$NVCC" $CCBIN -O2 -x cu -I.. -I../../include -o "$OUT/test_join" test_join.cu -lstdc++ -lm
"$OUT/test_join" vectors.txt
"$NVCC" $CCBIN -O2 -x cu -I.. -I../../include -o "$OUT/test_join_preagg" test_join_preagg.cu -lstdc++ -lm
"$OUT/test_join_preagg" vectors.txt
# the host executor compiles the join headers as plain C++ (gosvc/hostexec)
if command -v "${CXX:-c++}" >/dev/null; then
	printf '#include "xpu_join.h"\n#include "xpu_join_preagg.h"\n' |
		"${CXX:-c++}" -std=c++17 -Wall -Werror -fsyntax-only -x c++ -I.. -I../../include -
	echo "join headers: plain C++ ok"
fi
