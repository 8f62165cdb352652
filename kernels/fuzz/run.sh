#!/usr/bin/env bash
# The kernel fuzzers (see the Makefile's fuzz target):
#   fuzz_kernels          libFuzzer + ASan/UBSan over the host executor's
#                         kernel code (kernels/fuzz/fuzz_kernels.cc)
#   FuzzKernelValidator   service validator vs the kernels' (gosvc/hostexec)
#   FuzzSocketHostExec    the socket, with the host executor behind it
#   FuzzSocket            the socket with a data directory of relation
#                         segment files and a device page cache behind it:
#                         direct-read and page-cache requests (gosvc/server)
#   FuzzDirectChunk       the same direct-read and page-cache path in
#                         process, without the socket: sequences of
#                         direct-read chunks, several times as many
#                         inputs a second (gosvc/server)
#
#   run.sh build   compile them into .device/fuzz/ (clang-14, Go): the
#                  libFuzzer binary (its sanitizer runtimes linked in,
#                  libstdc++ static) and static Go test binaries, which run
#                  on a machine without either compiler
#   run.sh run     run the built binaries and print what they did; fails on
#                  any crash, sanitizer report or fuzz test failure
#   run.sh ci      build, then short bounded runs of these and of the
#                  protocol's and session parser's fuzzers (FuzzParseMessage,
#                  FuzzParseSession): make test's go-fuzz step
#
# Knobs: FUZZ_JOBS (parallel libFuzzer jobs and Go fuzz workers, default
# nproc), FUZZ_RUNS (libFuzzer executions over all jobs), FUZZ_TIME
# (seconds, a bound on the libFuzzer run), FUZZ_GO_TIME (each Go target:
# a duration such as 120s, or a count such as 50000x; FUZZ_GO_VALIDATOR,
# FUZZ_GO_SOCKET, FUZZ_GO_DIRECT and FUZZ_GO_CHUNK set one target's),
# FUZZ_CI_RUNS, FUZZ_CI_VALIDATOR, FUZZ_CI_SOCKET, FUZZ_CI_CHUNK,
# FUZZ_CI_DIRECT, FUZZ_CI_MESSAGE, FUZZ_CI_SESSION (the counts in ci mode),
# FUZZ_OUT (work folder: corpora, logs, crash files; default
# .device/fuzz/work).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
bin=$root/.device/fuzz
mode=${1:-run}
FUZZ_JOBS=${FUZZ_JOBS:-$(nproc)}
FUZZ_OUT=${FUZZ_OUT:-$bin/work}
export PATH=/usr/local/go/bin:$PATH

build() {
	mkdir -p "$bin"
	# -O1 -g: sanitizer reports with usable stacks; the kernel code is
	# compiled as hostexec.cc compiles it (C++17), hostexec.cc included.
	${FUZZ_CXX:-clang++-14} -std=c++17 -O1 -g -fno-omit-frame-pointer \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-static-libstdc++ -static-libgcc \
		-Ikernels -Iinclude -Igosvc/hostexec \
		kernels/fuzz/fuzz_kernels.cc gosvc/hostexec/hostexec.cc -o "$bin/fuzz_kernels"
	# The machine that runs them may have an older C library: the fuzzer
	# (ASan cannot link statically) runs through the C library it was
	# linked against, copied into lib/ with its loader; the Go test binary
	# is static (netgo, osusergo: no C library lookups at run time).
	mkdir -p "$bin/lib"
	for l in $(ldd "$bin/fuzz_kernels" | awk '/=>/ {print $3} /ld-linux/ {print $1}'); do
		cp -L "$l" "$bin/lib/"
	done
	# -d=libfuzzer: the coverage instrumentation go test -fuzz adds, which
	# go test -c leaves out (our packages only, as go test -fuzz does)
	local pkg
	for pkg in hostexec server protocol xpu; do
		CGO_ENABLED=1 go test -c -tags netgo,osusergo -o "$bin/$pkg.test" \
			-gcflags='github.com/pgstrom-go/pg_strom/...=-d=libfuzzer' \
			-ldflags '-extldflags "-static"' "./gosvc/$pkg"
	done
	echo "fuzz: built $bin/fuzz_kernels and the Go test binaries of hostexec, server, protocol and xpu"
}

# libfuzzer RUNS SECONDS: FUZZ_JOBS fuzz_kernels processes sharing one
# corpus (seeded from kernels/fuzz/corpus), each until RUNS/FUZZ_JOBS
# executions or SECONDS
libfuzzer() {
	local runs=$1 secs=$2 w=$FUZZ_OUT/fuzz_kernels j
	local ld=("$bin/lib/$(basename "$(ls "$bin"/lib/ld-linux*)")" --library-path "$bin/lib")
	mkdir -p "$w/corpus" "$w/artifacts"
	rm -f "$w"/fuzz-*.log
	for ((j = 0; j < FUZZ_JOBS; j++)); do
		(cd "$w" && "${ld[@]}" "$bin/fuzz_kernels" -seed=$((j + 1 + RANDOM)) \
			-runs=$(( (runs + FUZZ_JOBS - 1) / FUZZ_JOBS )) -max_total_time="$secs" \
			-max_len=20000 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
			-artifact_prefix="$w/artifacts/" corpus "$root/kernels/fuzz/corpus" "$root/kernels/fuzz/regress" >"$w/fuzz-$j.log" 2>&1) &
	done
	wait
	local execs crashes reports
	execs=$(cat "$w"/fuzz-*.log | awk '/^stat::number_of_executed_units:/ {s += $2} END {print s + 0}')
	crashes=$(find "$w/artifacts" -type f | wc -l)
	reports=$(cat "$w"/fuzz-*.log | grep -cE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|SUMMARY: ' || true)
	echo "fuzz_kernels: $execs execs in $FUZZ_JOBS jobs, $crashes crash files, $reports sanitizer/libFuzzer reports, corpus $(ls "$w/corpus" | wc -l) units"
	if [ "$crashes" -ne 0 ] || [ "$reports" -ne 0 ]; then
		cat "$w"/fuzz-*.log | grep -B2 -A25 -E 'ERROR: |runtime error:' | head -80
		ls -l "$w/artifacts"
		return 1
	fi
	[ "$execs" -gt 0 ]
}

# gofuzz TARGET FUZZTIME [PACKAGE]: one Go fuzz target of gosvc/PACKAGE
# (default hostexec)
gofuzz() {
	local target=$1 t=$2 pkg=${3:-hostexec} log=$FUZZ_OUT/$1.log rc=0
	mkdir -p "$FUZZ_OUT/gocache"
	# the test binary runs in its package's folder (seeds and testdata)
	(cd "gosvc/$pkg" && "$bin/$pkg.test" -test.run='^$' -test.fuzz="^$target\$" \
		-test.fuzztime="$t" -test.parallel="$FUZZ_JOBS" -test.fuzzcachedir="$FUZZ_OUT/gocache" \
		-test.timeout=0) >"$log" 2>&1 || rc=$?
	local execs
	execs=$(grep -oE 'execs: [0-9]+' "$log" | tail -1 | awk '{print $2 + 0}')
	echo "$target: ${execs:-0} execs, exit $rc$(grep -q '^--- FAIL' "$log" && echo ', FAILED')"
	if [ "$rc" -ne 0 ]; then
		grep -v '^fuzz: elapsed' "$log" | tail -30
		return 1
	fi
}

case $mode in
build)
	build
	;;
run)
	rc=0
	libfuzzer "${FUZZ_RUNS:-100000000}" "${FUZZ_TIME:-3600}" || rc=1
	gofuzz FuzzKernelValidator "${FUZZ_GO_VALIDATOR:-${FUZZ_GO_TIME:-600s}}" || rc=1
	gofuzz FuzzSocketHostExec "${FUZZ_GO_SOCKET:-${FUZZ_GO_TIME:-600s}}" || rc=1
	gofuzz FuzzSocket "${FUZZ_GO_DIRECT:-${FUZZ_GO_TIME:-600s}}" server || rc=1
	gofuzz FuzzDirectChunk "${FUZZ_GO_CHUNK:-${FUZZ_GO_TIME:-600s}}" server || rc=1
	exit $rc
	;;
ci)
	build
	FUZZ_OUT=$(mktemp -d /tmp/pg_strom_fuzz.XXXXXX)
	trap 'rm -rf "$FUZZ_OUT"' EXIT
	FUZZ_JOBS=${FUZZ_CI_JOBS:-2}
	rc=0
	libfuzzer "${FUZZ_CI_RUNS:-1000000}" 60 || rc=1
	gofuzz FuzzKernelValidator "${FUZZ_CI_VALIDATOR:-1000000x}" || rc=1
	gofuzz FuzzSocketHostExec "${FUZZ_CI_SOCKET:-20000x}" || rc=1
	gofuzz FuzzDirectChunk "${FUZZ_CI_CHUNK:-150000x}" server || rc=1
	gofuzz FuzzSocket "${FUZZ_CI_DIRECT:-5000x}" server || rc=1
	gofuzz FuzzParseMessage "${FUZZ_CI_MESSAGE:-500000x}" protocol || rc=1
	gofuzz FuzzParseSession "${FUZZ_CI_SESSION:-200000x}" xpu || rc=1
	exit $rc
	;;
*)
	echo "usage: $0 build|run|ci" >&2
	exit 2
	;;
esac
