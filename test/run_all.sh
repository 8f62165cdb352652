#!/usr/bin/env bash
# make test: build, install and run every suite; ends with each step's
# time, "suites: N passed, N failed, N skipped" and the total wall time.
# A step that cannot run on this machine exits 77 (as automake's tests do)
# after printing why: it counts as skipped, not passed.  Go tests are run
# with -v so that the ones that skip themselves (t.Skip, e.g. lifecycle
# tests that need a GPU) are listed with their reason and counted on the
# step's line and before the suites line.
#
# Steps run side by side, each as soon as the steps it needs have passed
# (see the scheduler below): most of the suites spend much of their time
# waiting (clusters starting, services killed and restarted, sleeps), and
# the kernels fatbin keeps one core busy for minutes: it is built beside
# them, at nice 10, not before them.  Each step's
# output goes to a file and is printed whole, with its step line, when the
# step ends, so steps' outputs never mix.  TEST_JOBS=1 TEST_BG_JOBS=0 runs
# them one after another.
#
# One build serves every step: every Go command uses the CGO_CFLAGS of the
# Makefile's service library (one GOCACHE, no package compiled twice for
# different flags), the TEST-ONLY host executor library is built and
# installed once for the whole run (PGSTROM_HOSTEXEC_INSTALLED=1: the
# suites use it and leave it; it is removed when the run ends, unless
# another run shares it: test/lib.sh), and the
# lifecycle test binary is built once for its three steps.  Each suite that
# starts clusters has its own ports and data directories.
set -uo pipefail
cd "$(dirname "$0")/.."
run_t0=$SECONDS
bash build/ensure_deps.sh --with-nvcc || exit 1
. test/lib.sh
# Execution counts, not durations: Go 1.26's fuzz coordinator can report a
# spurious "context deadline exceeded" when a duration expires mid-call
# (golang/go#75804, fixed in 1.27). FUZZ_SCALE multiplies every count.
FUZZ_SCALE=${FUZZ_SCALE:-1}
SKIP=77
ncpu=$(nproc)
TEST_JOBS=${TEST_JOBS:-$((ncpu <= 4 ? 3 : ncpu / 2 + 1))}
TEST_BG_JOBS=${TEST_BG_JOBS:-4}
# the Makefile's flags for the service library (CGO_CFLAGS_SVC)
export CGO_CFLAGS="-O2 -g -include $PWD/build/cuda_compat.h${CUDA_INCLUDE:+ -I$CUDA_INCLUDE} -DPGSTROM_CGO_HEADERS=$(sh build/cgo_headers_hash.sh)"
work=$(mktemp -d /tmp/pg_strom_test.XXXXXX)
chmod 755 "$work"
export PGSTROM_INITDB_TEMPLATE=$work/initdb

# ---- the steps --------------------------------------------------------------

# go_test_v SUITE ARGS...: go test -v ARGS (go_run_v: a test binary), showing
# what plain go test shows (package results, failures) plus every skipped
# test with the line before it, which holds its reason; on failure the whole
# output.  The skipped tests go to $work/$STEP.goskips.  Returns 77 when
# tests ran and every one skipped.  $work/$STEP.gotest keeps the output.
go_test_v() {
	local suite=$1; shift
	local rc=0
	go test -v "$@" >"$work/$STEP.gotest" 2>&1 || rc=$?
	go_test_report "$suite" $rc
}

# go_run_v SUITE DIR BINARY ARGS...: a test binary built by go test -c, run
# in its package's folder DIR as go test runs it
go_run_v() {
	local suite=$1 dir=$2 bin=$3 t0=$SECONDS rc=0; shift 3
	(cd "$dir" && "$bin" -test.v "$@") >"$work/$STEP.gotest" 2>&1 || rc=$?
	if [ $rc -eq 0 ]; then
		echo "ok  	./$dir	$((SECONDS - t0)) s" >>"$work/$STEP.gotest"
	else
		echo "FAIL	./$dir	$((SECONDS - t0)) s" >>"$work/$STEP.gotest"
	fi
	go_test_report "$suite" $rc
}

go_test_report() {
	local suite=$1 rc=$2 log=$work/$STEP.gotest n npass t
	if [ "$rc" -ne 0 ]; then
		cat "$log"
	else
		grep -E '^(ok|FAIL|\?) ' "$log"
		# where a long suite's time goes
		echo "slowest tests:"
		grep -E '^ *--- PASS: .* \([0-9.]+s\)$' "$log" | sed -E 's/^ *--- PASS: ([^ ]+) \(([0-9.]+)s\)$/\2 \1/' |
			sort -rn | head -n 5 | awk '{ printf "    %7.1f s  %s\n", $1, $2 }'
	fi
	n=$(grep -cE '^ *--- SKIP: ' "$log")
	npass=$(grep -cE '^ *--- PASS: ' "$log")
	if [ "$n" -gt 0 ]; then
		echo "skipped Go tests ($n):"
		# a test's reason is its last log line after its "=== RUN"
		awk '/^=== (RUN|CONT|NAME) / { cur = $3; next }
		     /^ *--- SKIP: / { print "    " $0; if ($3 in why) print "        " why[$3]; next }
		     /^ +[^ ]+\.go:[0-9]+: / { sub(/^ +/, ""); why[cur] = $0 }' "$log"
		for t in $(grep -E '^ *--- SKIP: ' "$log" | awk '{print $3}'); do echo "$suite:$t"; done >>"$work/$STEP.goskips"
	fi
	[ "$rc" -eq 0 ] && [ "$n" -gt 0 ] && [ "$npass" -eq 0 ] && { echo "skipped: every test skipped itself"; return $SKIP; }
	return "$rc"
}

# the extension and the service, without the kernels fatbin: no suite here
# runs the kernels on a GPU, so the fatbin (one nvcc, minutes on one core)
# is a step of its own that the suites do not wait for
build() { make -s -j"$ncpu" PG_CONFIG="$PG_CONFIG" NVCC= && make -s install PG_CONFIG="$PG_CONFIG" NVCC=; }
# the kernels fatbin as make builds it (nvcc's device compile of every
# kernel, its hash and manifest), for the newest architecture the product
# ships only and into the run's folder, not the tree's: nothing here loads
# it, the kernels' source differs between architectures only below the
# oldest one shipped, and each architecture costs a minute of one core
fatbin() {
	local arch
	arch=$(sed -n 's/^archs //p' gosvc/fatbin/nvcc_flags | awk '{ print $NF }')
	make -s "$work/kernels.fatbin" FATBIN="$work/kernels.fatbin" NVCC_ARCHS="$arch" PG_CONFIG="$PG_CONFIG" &&
		grep -qx "archs $arch" "$work/kernels.fatbin.manifest"
}
# what several steps use, made once: the TEST-ONLY host executor library,
# installed for the run (see cleanup), the lifecycle test binary,
# and the data directory of initdb that each cluster starts as a copy of
# (PGSTROM_INITDB_TEMPLATE: test/lib.sh and the lifecycle tests)
test_builds() {
	ensure_test_user
	mkdir "$work/initdb" && { [ "$(id -u)" != 0 ] || chown "$PGSTROM_TEST_USER" "$work/initdb"; } &&
		chmod 700 "$work/initdb" &&
		as_owner "$PGBIN/initdb" -D "$work/initdb" -A trust -E UTF8 --locale=C >/dev/null || return 1
	CGO_ENABLED=1 go build -buildmode=c-shared -o "$work/pg_strom_gosvc_hostexec.so" ./gosvc/hostexec/cmd/pg_strom_gosvc_hostexec &&
		go test -c -tags lifecycle -o "$work/lifecycle.test" ./test/lifecycle &&
		hostexec_put "$work/pg_strom_gosvc_hostexec.so" && touch "$work/hostexec.installed"
}
gofmt_clean() { local out; out=$(gofmt -l gosvc test bench 2>/dev/null); [ -z "$out" ] || { echo "gofmt needed: $out"; return 1; }; }
# one call with every build tag (none is negated, so each file is vetted):
# three calls type-checked the shared packages three times
go_vet() { go vet -tags gpu,lifecycle,benchdb ./...; }
go_unit() { go_test_v go-test -race -count=1 ./...; }
# the Go fuzz targets and kernels/fuzz (libFuzzer + ASan/UBSan over the
# kernels' host code, the service's session validator against the
# kernels', the socket with the host executor behind it, the direct-read
# and page-cache path in process and through the socket, the protocol and
# session parsers), from one build of instrumented test binaries, each
# for a fixed number of inputs (make fuzz runs them for long)
go_fuzz() {
	FUZZ_CI_RUNS=$((1000000 * FUZZ_SCALE)) FUZZ_CI_VALIDATOR="$((500000 * FUZZ_SCALE))x" \
		FUZZ_CI_SOCKET="$((20000 * FUZZ_SCALE))x" FUZZ_CI_CHUNK="$((75000 * FUZZ_SCALE))x" \
		FUZZ_CI_DIRECT="$((5000 * FUZZ_SCALE))x" FUZZ_CI_MESSAGE="$((250000 * FUZZ_SCALE))x" \
		FUZZ_CI_SESSION="$((100000 * FUZZ_SCALE))x" FUZZ_CI_JOBS=1 bash kernels/fuzz/run.sh ci
}
cuda13() {
	if [ -f .cuda13/cuda.h ]; then make -s check-cuda13 CUDA13_INCLUDE=.cuda13
	else echo "skipped: no CUDA 13 cuda.h in .cuda13/ (copy /usr/local/cuda/include/cuda.h of a CUDA 13 toolkit there)"; return $SKIP; fi
}
kernel_host_tests() { bash kernels/test/run.sh; }
# the suites that run clusters under the host executor use the one
# installed for the run (each step runs in a subshell of its own, so what
# a step exports stays in it); each suite has ports of its own
hostexec_env() {
	export PGSTROM_HOSTEXEC_INSTALLED=1 PGSTROM_HOSTEXEC_SO="$work/pg_strom_gosvc_hostexec.so"
}
# the lifecycle tests of test/lifecycle but the star-join tests, in two
# steps that run side by side: much of their time is spent waiting on
# clusters and services (the direct-read tests' tables larger than
# shared_buffers, services killed and restarted), and one after the other
# they were the longest path through the run
lifecycle() {
	hostexec_env
	export PGSTROM_LIFECYCLE_PORT_BASE=55700 PGSTROM_LIFECYCLE_PORT_SPAN=200
	go_run_v lifecycle test/lifecycle "$work/lifecycle.test" -test.count=1 -test.skip '^(TestStarJoin|TestDirectRead)' -test.timeout 20m
}
lifecycle_direct_read() {
	hostexec_env
	export PGSTROM_LIFECYCLE_PORT_BASE=55950 PGSTROM_LIFECYCLE_PORT_SPAN=40
	go_run_v lifecycle-direct-read test/lifecycle "$work/lifecycle.test" -test.count=1 -test.run '^TestDirectRead' -test.timeout 15m
}
# the random star-join queries (test/lifecycle/starjoin_test.go) and the
# checks of what they found, on the host executor (the GPU service where
# there is one), their own step: the random test's
# seed and its summary (how many queries ran a GpuJoin or a fused
# GpuPreAgg) are printed on success too
starjoin() {
	local rc=0
	hostexec_env
	export PGSTROM_LIFECYCLE_PORT_BASE=55600 PGSTROM_LIFECYCLE_PORT_SPAN=50
	go_run_v starjoin test/lifecycle "$work/lifecycle.test" -test.count=1 -test.run '^TestStarJoin' -test.timeout 15m || rc=$?
	grep -E '^starjoin (seed|summary)' "$work/$STEP.gotest"
	return $rc
}
regress() { PGSTROM_REGRESS_PORT=55433 bash test/run_regress.sh; }
regress_hostexec() { hostexec_env; PGSTROM_HOSTEXEC_PORT=55435 bash test/run_regress_hostexec.sh; }
bench_ssb() { PGSTROM_BENCH_ITEST_PORT=55436 bash bench/itest.sh; }
stress() { hostexec_env; PGSTROM_STRESS_PORT=55460 bash test/stress/run_ci.sh; }
process_words() { bash build/check_process_words.sh; }

# ---- the scheduler ----------------------------------------------------------

# add_step NAME "NEEDS" FUNCTION [NICE]: a step, run once the steps NEEDS
# names have passed, at nice NICE (default 0).  Steps start in this order
# as far as their needs and the number of steps running allow: TEST_JOBS
# steps at a time (default 3 on up to 4 cores, else one more than half the
# cores), and beside them TEST_BG_JOBS (default 4) steps of nice 10: those
# that only compile or check and that nothing waits for, which take the
# CPU that the build and the suites leave without stretching the suites'
# timed waits.  Four, so that go-fuzz starts as soon as the build is done:
# its targets run one after another on about one core, and started behind
# go-vet they would run on alone after everything else.
names=()
declare -A needs fn nice state pids
add_step() { names+=("$1"); needs[$1]=$2; fn[$1]=$3; nice[$1]=${4:-0}; state[$1]=pending; }
add_step build "" build
# after the build: the host executor library shares most of its packages
# with the service library, and two go commands at once compile them twice
add_step test-builds "build" test_builds
add_step gofmt "" gofmt_clean 10
add_step process-words "" process_words 10
# the fatbin first: one nvcc process of minutes that cannot be split,
# which would otherwise end the run alone
add_step fatbin "" fatbin 10
add_step kernel-host-tests "" kernel_host_tests 10
add_step go-vet "" go_vet 10
add_step cuda13-headers "" cuda13 10
add_step go-test "" go_unit
# the longest suites first, so that the shorter ones fill in behind them
add_step lifecycle "build test-builds" lifecycle
add_step lifecycle-direct-read "build test-builds" lifecycle_direct_read
add_step starjoin "build test-builds" starjoin
add_step pg_regress-hostexec "build test-builds" regress_hostexec
add_step pg_regress "build test-builds" regress
add_step stress "build test-builds" stress
add_step bench-ssb "build test-builds" bench_ssb
# bounded in executions, not time, so it runs niced beside the suites;
# after the build, which the suites wait for
add_step go-fuzz "build" go_fuzz 10

# pool NAME: the pool of steps that NAME counts in
pool() { if [ "${nice[$1]}" -ge 10 ] && [ "$TEST_BG_JOBS" -gt 0 ]; then echo bg; else echo fg; fi; }

# cpu_seconds FILE: the user and system CPU seconds of this shell's ended
# children (bash's times, written to FILE: in a subshell it would count
# the subshell's children only), summed and rounded
cpu_seconds() {
	times >"$1" && tail -n 1 "$1" | awk '{ s = 0; for (i = 1; i <= 2; i++) { split($i, p, /[ms]/); s += p[1] * 60 + p[2] } printf "%d\n", s + 0.5 }'
}

# run_step NAME: runs the step with its output in $work/NAME.out; its exit
# status, start and end (seconds into the run) and the CPU seconds it used
# go to $work/NAME.done
run_step() {
	local name=$1 t0=$((SECONDS - run_t0)) rc=0
	STEP=$name
	[ "${nice[$name]}" -gt 0 ] && renice -n "${nice[$name]}" -p $BASHPID >/dev/null
	"${fn[$name]}" >"$work/$name.out" 2>&1 </dev/null || rc=$?
	cpu_seconds "$work/$name.times" >"$work/$name.cpu"
	echo "$rc $t0 $((SECONDS - run_t0)) $(cat "$work/$name.cpu")" >"$work/$name.tmp" && mv "$work/$name.tmp" "$work/$name.done"
}

passed=0 failed=0 skipped=0 notrun=0 failures=() skips=() notruns=()
go_skipped=0 go_skips=() cpu_total=0
declare -A times
# report NAME: prints a step that has ended, whole, with its step line
report() {
	local name=$1 rc t0 t1 cpu n=0 note='' word
	read -r rc t0 t1 cpu <"$work/$name.done"
	cpu_total=$((cpu_total + cpu))
	[ -f "$work/$name.goskips" ] && n=$(wc -l <"$work/$name.goskips")
	if [ "$n" -gt 0 ]; then
		note=", $n Go tests skipped"
		go_skipped=$((go_skipped + n))
		mapfile -t -O "${#go_skips[@]}" go_skips <"$work/$name.goskips"
	fi
	if [ "$rc" -eq 0 ]; then passed=$((passed + 1)); word=ok
	elif [ "$rc" -eq $SKIP ]; then skipped=$((skipped + 1)); skips+=("$name"); word=SKIPPED
	else failed=$((failed + 1)); failures+=("$name"); word=FAILED; fi
	echo "=== $name"
	cat "$work/$name.out"
	echo "=== $name: $word ($((t1 - t0)) s$note)"
	times[$name]=$(printf '%-22s %-8s %4d s   (from %4d s to %4d s)  CPU %4d s' "$name" "$word" $((t1 - t0)) "$t0" "$t1" "$cpu")
	state[$name]=done
}

# ready NAME: 0 when its needs have passed, 1 while one has not ended, 2
# when one failed or was not run
ready() {
	local d rc
	for d in ${needs[$1]}; do
		[ "${state[$d]}" = done ] || { [ "${state[$d]}" = notrun ] && return 2; return 1; }
		read -r rc _ <"$work/$d.done"
		[ "$rc" -eq 0 ] || return 2
	done
	return 0
}

# at the end (or an interrupt): the steps still running are stopped, and
# the host executor library is removed unless another run still uses it
cleanup() {
	local n
	for n in "${!pids[@]}"; do kill -TERM -- -"${pids[$n]}" 2>/dev/null; done
	wait
	hostexec_unuse "$([ -f "$work/hostexec.installed" ] && echo put)"
	rm -rf "$work"
}
trap cleanup EXIT
trap 'echo "interrupted"; exit 130' INT TERM
# this run uses the host executor library (test/lib.sh), from now to its end
hostexec_use || { echo "cannot lock the host executor library's lock files in ${TMPDIR:-/tmp}"; exit 1; }

# each step in a process group of its own, so that an interrupted run can
# stop what it started
set -m
declare -A running=([fg]=0 [bg]=0) limit=([fg]=$TEST_JOBS [bg]=$TEST_BG_JOBS)
left=${#names[@]}
while [ "$left" -gt 0 ]; do
	for n in "${names[@]}"; do
		if [ "${state[$n]}" = running ] && [ -f "$work/$n.done" ]; then
			wait "${pids[$n]}" 2>/dev/null
			unset "pids[$n]"
			report "$n"
			pool=$(pool "$n")
			running[$pool]=$((running[$pool] - 1)) left=$((left - 1))
		fi
	done
	for n in "${names[@]}"; do
		[ "${state[$n]}" = pending ] || continue
		r=0; ready "$n" || r=$?
		pool=$(pool "$n")
		if [ $r -eq 2 ]; then
			state[$n]=notrun notrun=$((notrun + 1)) left=$((left - 1))
			notruns+=("$n")
			echo "=== $n: NOT RUN (needs: ${needs[$n]})"
			times[$n]=$(printf '%-22s %-8s' "$n" "NOT RUN")
		elif [ $r -eq 0 ] && [ "${running[$pool]}" -lt "${limit[$pool]}" ]; then
			run_step "$n" &
			pids[$n]=$! state[$n]=running running[$pool]=$((running[$pool] + 1))
		fi
	done
	[ "$left" -gt 0 ] && sleep 1
done
set +m

echo
echo "step times (wall, and the CPU of the step's waited-for processes, not of the servers it started; $TEST_JOBS steps and $TEST_BG_JOBS of nice 10 at a time on $ncpu cores):"
for n in "${names[@]}"; do echo "  ${times[$n]}"; done
[ ${#failures[@]} -gt 0 ] && echo "failed suites: ${failures[*]}"
[ ${#notruns[@]} -gt 0 ] && echo "not run (a step they need failed): ${notruns[*]}"
[ ${#skips[@]} -gt 0 ] && echo "skipped suites: ${skips[*]}"
[ "$go_skipped" -gt 0 ] && echo "skipped Go tests: $go_skipped (${go_skips[*]})"
echo "suites: $passed passed, $failed failed, $skipped skipped"
total=$((SECONDS - run_t0))
echo "total: $total s ($((total / 60)) min $((total % 60)) s) wall, $cpu_total s of CPU in the steps"
[ "$failed" -eq 0 ] && [ "$notrun" -eq 0 ]
