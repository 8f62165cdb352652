#!/usr/bin/env bash
# make test: build, install and run every suite; ends with
# "suites: N passed, N failed, N skipped".  A step that cannot run on this
# machine exits 77 (as automake's tests do) after printing why: it counts as
# skipped, not passed.  Go tests are run with -v so that the ones that skip
# themselves (t.Skip, e.g. lifecycle tests that need a GPU) are listed with
# their reason and counted on the step's line and before the suites line.
set -uo pipefail
cd "$(dirname "$0")/.."
bash build/ensure_deps.sh --with-nvcc || exit 1
. test/lib.sh
# Execution counts, not durations: Go 1.26's fuzz coordinator can report a
# spurious "context deadline exceeded" when a duration expires mid-call
# (golang/go#75804, fixed in 1.27). FUZZ_SCALE multiplies every count.
FUZZ_SCALE=${FUZZ_SCALE:-1}
SKIP=77
passed=0 failed=0 skipped=0 failures=() skips=()
go_skipped=0 go_skips=()
gotest_log=$(mktemp /tmp/pg_strom_gotest.XXXXXX)
trap 'rm -f "$gotest_log"' EXIT

step() {
	local name=$1; shift
	echo "=== $name"
	local t0=$SECONDS rc=0 gs0=$go_skipped note=''
	"$@" || rc=$?
	[ "$go_skipped" -gt "$gs0" ] && note=", $((go_skipped - gs0)) Go tests skipped"
	if [ $rc -eq 0 ]; then
		passed=$((passed + 1)); echo "=== $name: ok ($((SECONDS - t0)) s$note)"
	elif [ $rc -eq $SKIP ]; then
		skipped=$((skipped + 1)); skips+=("$name"); echo "=== $name: SKIPPED ($((SECONDS - t0)) s$note)"
	else
		failed=$((failed + 1)); failures+=("$name"); echo "=== $name: FAILED ($((SECONDS - t0)) s$note)"
	fi
}

# go_test_v SUITE ARGS...: go test -v ARGS, showing what plain go test shows
# (package results, failures) plus every skipped test with the line before it,
# which holds its reason; on failure the whole output.  Counts the skipped
# tests into go_skipped.  Returns 77 when tests ran and every one skipped.
go_test_v() {
	local suite=$1; shift
	local rc=0 n npass t
	go test -v "$@" >"$gotest_log" 2>&1 || rc=$?
	if [ $rc -ne 0 ]; then
		cat "$gotest_log"
	else
		grep -E '^(ok|FAIL|\?) ' "$gotest_log"
	fi
	n=$(grep -cE '^ *--- SKIP: ' "$gotest_log")
	npass=$(grep -cE '^ *--- PASS: ' "$gotest_log")
	if [ "$n" -gt 0 ]; then
		echo "skipped Go tests ($n):"
		# a test's reason is its last log line after its "=== RUN"
		awk '/^=== (RUN|CONT|NAME) / { cur = $3; next }
		     /^ *--- SKIP: / { print "    " $0; if ($3 in why) print "        " why[$3]; next }
		     /^ +[^ ]+\.go:[0-9]+: / { sub(/^ +/, ""); why[cur] = $0 }' "$gotest_log"
		for t in $(grep -E '^ *--- SKIP: ' "$gotest_log" | awk '{print $3}'); do go_skips+=("$suite:$t"); done
		go_skipped=$((go_skipped + n))
	fi
	[ $rc -eq 0 ] && [ "$n" -gt 0 ] && [ "$npass" -eq 0 ] && { echo "skipped: every test skipped itself"; return $SKIP; }
	return $rc
}

build() { make -s PG_CONFIG="$PG_CONFIG" && make -s install PG_CONFIG="$PG_CONFIG"; }
gofmt_clean() { local out; out=$(gofmt -l gosvc test bench 2>/dev/null); [ -z "$out" ] || { echo "gofmt needed: $out"; return 1; }; }
go_vet() { CGO_CFLAGS="-include $PWD/build/cuda_compat.h" go vet ./... && go vet -tags gpu ./gosvc/gpu/... && go vet -tags lifecycle ./test/...; }
go_unit() { CGO_CFLAGS="-include $PWD/build/cuda_compat.h" go_test_v go-test -race -count=1 ./...; }
go_fuzz() {
	go test -run '^$' -fuzz '^FuzzParseMessage$' -fuzztime "$((500000 * FUZZ_SCALE))x" ./gosvc/protocol &&
		go test -run '^$' -fuzz '^FuzzParseSession$' -fuzztime "$((200000 * FUZZ_SCALE))x" ./gosvc/xpu &&
		go test -run '^$' -fuzz '^FuzzSocket$' -fuzztime "$((5000 * FUZZ_SCALE))x" ./gosvc/server &&
		kernel_fuzz
}
# kernels/fuzz: libFuzzer + ASan/UBSan over the kernels' host code, the
# service's session validator against the kernels', and the socket with
# the host executor behind it (make fuzz runs them for long)
kernel_fuzz() {
	FUZZ_CI_RUNS=$((1000000 * FUZZ_SCALE)) FUZZ_CI_VALIDATOR="$((1000000 * FUZZ_SCALE))x" \
		FUZZ_CI_SOCKET="$((20000 * FUZZ_SCALE))x" bash kernels/fuzz/run.sh ci
}
gpu_test_builds() { CGO_CFLAGS="-include $PWD/build/cuda_compat.h" go test -c -tags gpu -o /tmp/pg_strom_gpu.test ./gosvc/gpu; }
cuda13() {
	if [ -f .cuda13/cuda.h ]; then make -s check-cuda13 CUDA13_INCLUDE=.cuda13
	else echo "skipped: no CUDA 13 cuda.h in .cuda13/ (copy /usr/local/cuda/include/cuda.h of a CUDA 13 toolkit there)"; return $SKIP; fi
}
kernel_host_tests() { bash kernels/test/run.sh; }
lifecycle() { go_test_v lifecycle -count=1 -tags lifecycle -skip '^TestStarJoin' -timeout 20m ./test/lifecycle/; }
# the random star-join queries (test/lifecycle/starjoin_test.go) and the
# checks of what they found, on the host executor (the GPU service where
# there is one), their own step: the random test's
# seed and its summary (how many queries ran a GpuJoin or a fused
# GpuPreAgg) are printed on success too
starjoin() {
	local rc=0
	go_test_v starjoin -count=1 -tags lifecycle -run '^TestStarJoin' -timeout 15m ./test/lifecycle/ || rc=$?
	grep -E '^starjoin (seed|summary)' "$gotest_log"
	return $rc
}

step build build; [ "$failed" -eq 0 ] || { echo; echo "suites: 0 passed, 1 failed, 0 skipped"; exit 1; }
step gofmt gofmt_clean
step go-vet go_vet
step go-test go_unit
step go-fuzz go_fuzz
step gpu-test-binary gpu_test_builds
step kernel-host-tests kernel_host_tests
step cuda13-headers cuda13
step pg_regress bash test/run_regress.sh
step pg_regress-hostexec bash test/run_regress_hostexec.sh
step starjoin starjoin
step bench-ssb bash bench/itest.sh
step lifecycle lifecycle
step stress bash test/stress/run_ci.sh

echo
[ ${#failures[@]} -gt 0 ] && echo "failed suites: ${failures[*]}"
[ ${#skips[@]} -gt 0 ] && echo "skipped suites: ${skips[*]}"
[ "$go_skipped" -gt 0 ] && echo "skipped Go tests: $go_skipped (${go_skips[*]})"
echo "suites: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
