#!/usr/bin/env bash
# make test: build, install and run every suite; ends with "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
bash build/ensure_deps.sh --with-nvcc || exit 1
. test/lib.sh
# Execution counts, not durations: Go 1.26's fuzz coordinator can report a
# spurious "context deadline exceeded" when a duration expires mid-call
# (golang/go#75804, fixed in 1.27). FUZZ_SCALE multiplies every count.
FUZZ_SCALE=${FUZZ_SCALE:-1}
passed=0 failed=0 failures=()

step() {
	local name=$1; shift
	echo "=== $name"
	local t0=$SECONDS
	if "$@"; then
		passed=$((passed + 1)); echo "=== $name: ok ($((SECONDS - t0)) s)"
	else
		failed=$((failed + 1)); failures+=("$name"); echo "=== $name: FAILED ($((SECONDS - t0)) s)"
	fi
}

build() { make -s PG_CONFIG="$PG_CONFIG" && make -s install PG_CONFIG="$PG_CONFIG"; }
gofmt_clean() { local out; out=$(gofmt -l gosvc test bench 2>/dev/null); [ -z "$out" ] || { echo "gofmt needed: $out"; return 1; }; }
go_vet() { CGO_CFLAGS="-include $PWD/build/cuda_compat.h" go vet ./... && go vet -tags gpu ./gosvc/gpu/... && go vet -tags lifecycle ./test/...; }
go_unit() { CGO_CFLAGS="-include $PWD/build/cuda_compat.h" go test -race -count=1 ./...; }
go_fuzz() {
	go test -run '^$' -fuzz '^FuzzParseMessage$' -fuzztime "$((500000 * FUZZ_SCALE))x" ./gosvc/protocol &&
		go test -run '^$' -fuzz '^FuzzParseSession$' -fuzztime "$((200000 * FUZZ_SCALE))x" ./gosvc/xpu &&
		go test -run '^$' -fuzz '^FuzzSocket$' -fuzztime "$((5000 * FUZZ_SCALE))x" ./gosvc/server
}
gpu_test_builds() { CGO_CFLAGS="-include $PWD/build/cuda_compat.h" go test -c -tags gpu -o /tmp/pg_strom_gpu.test ./gosvc/gpu; }
cuda13() {
	if [ -f .cuda13/cuda.h ]; then make -s check-cuda13 CUDA13_INCLUDE=.cuda13
	else echo "skipped: no CUDA 13 cuda.h in .cuda13/ (copy /usr/local/cuda/include/cuda.h of a CUDA 13 toolkit there)"; fi
}
kernel_host_tests() { bash kernels/test/run.sh; }
lifecycle() { go test -count=1 -tags lifecycle -v -timeout 20m ./test/lifecycle/; }

step build build || { echo "0 passed, 1 failed"; exit 1; }
step gofmt gofmt_clean
step go-vet go_vet
step go-test go_unit
step go-fuzz go_fuzz
step gpu-test-binary gpu_test_builds
step kernel-host-tests kernel_host_tests
step cuda13-headers cuda13
step pg_regress bash test/run_regress.sh
step pg_regress-hostexec bash test/run_regress_hostexec.sh
step lifecycle lifecycle

echo
[ ${#failures[@]} -gt 0 ] && echo "failed suites: ${failures[*]}"
echo "suites: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
