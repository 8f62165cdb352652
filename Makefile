# pg_strom: one `make` builds the C extension (PGXS), the Go service library
# and, when nvcc exists, the kernels fatbin.
#
#   make [PG_CONFIG=...]          build everything
#   make install                  install into the PostgreSQL PG_CONFIG names
#   make demo                     throwaway cluster: print service status, stop
#   make test                     build, install, run every suite
#   make test-versions            the version suites on PostgreSQL 17 and 18
#   make fuzz [FUZZ_RUNS=... FUZZ_JOBS=...]   long fuzzing runs (kernels/fuzz/)
#   make bench [BENCH_TABLES=... BENCH_FLAGS=...]   the benchmark (bench/) against
#                                 the server the PG* environment names
#   make check-cuda13 CUDA13_INCLUDE=dir   compile the Go service against CUDA 13 headers
#   make help                     every target: what it needs, how long it takes
# docs/testing.md describes every test command.

EXTENSION = pg_strom
MODULE_big = pg_strom
# pgext/ has one folder per concern.
PGEXT_SOURCES = $(sort $(wildcard pgext/*/*.c))
OBJS = $(patsubst %.c,%.o,$(PGEXT_SOURCES))
DATA = $(wildcard sql/pg_strom--*.sql)
PG_CPPFLAGS = -I$(srcdir)/include -I$(srcdir)/pgext
REGRESS = $(patsubst test/sql/%.sql,%,$(sort $(wildcard test/sql/*.sql)))
REGRESS_OPTS = --inputdir=test --outputdir=test
EXTRA_CLEAN = $(GOSVC_LIB) pg_strom_gosvc.h $(FATBIN) $(FATBIN).sha256 $(FATBIN).manifest $(FATBIN).manifest.tmp $(FATBIN).tmp $(FATBIN).srchash

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PGXS tracks no header dependencies unless PostgreSQL was configured with
# --enable-depend: rebuild every object when a header changes, since a
# changed struct would otherwise leave objects with different layouts.
$(OBJS): $(wildcard pgext/*/*.h include/*.h)

# ---- Go service library -------------------------------------------------
GO ?= $(firstword $(wildcard /usr/local/go/bin/go) go)
GOSVC_LIB = pg_strom_gosvc.so
GO_SOURCES = $(shell find gosvc -name '*.go' -not -name '*_test.go') go.mod go.sum
CUDA_COMPAT = $(CURDIR)/build/cuda_compat.h
# the headers' hash: build/cgo_headers_hash.sh says why
CGO_HEADERS_HASH := $(shell sh $(CURDIR)/build/cgo_headers_hash.sh)
CGO_CFLAGS_SVC = -O2 -g -include $(CUDA_COMPAT) $(if $(CUDA_INCLUDE),-I$(CUDA_INCLUDE)) -DPGSTROM_CGO_HEADERS=$(CGO_HEADERS_HASH)

$(GOSVC_LIB): $(GO_SOURCES) $(wildcard include/*.h) $(CUDA_COMPAT)
	CGO_ENABLED=1 CGO_CFLAGS="$(CGO_CFLAGS_SVC)" $(GO) build -buildmode=c-shared -o $@ ./gosvc

# ---- kernels fatbin (only when nvcc is present) ---------------------------
NVCC ?= $(firstword $(wildcard /usr/local/cuda/bin/nvcc) $(shell command -v nvcc 2>/dev/null))
# Debian's nvcc 11.8 rejects gcc 12, the system compiler; clang 14 is accepted.
NVCC_CCBIN ?= $(if $(shell $(NVCC) --version 2>/dev/null | grep -q 'release 11\.' && command -v clang-14),-ccbin clang-14)
KERNEL_SOURCES = $(sort $(wildcard kernels/*.cu kernels/*.h) $(wildcard include/pg_strom_*.h))
FATBIN = kernels/pg_strom_kernels.fatbin
# The nvcc options and architectures are in gosvc/fatbin/nvcc_flags, which
# the GPU service compiles in: it builds with the same options, and takes
# the prebuilt fatbin only when the manifest written here records them.
NVCC_FLAGS_FILE = gosvc/fatbin/nvcc_flags
NVCC_OPTIONS = $(strip $(shell sed -n 's/^options //p' $(NVCC_FLAGS_FILE)))
NVCC_ARCHS = $(strip $(shell sed -n 's/^archs //p' $(NVCC_FLAGS_FILE)))
NVCC_FLAGS_TEXT = printf 'options %s\narchs %s\n' '$(NVCC_OPTIONS)' '$(NVCC_ARCHS)'
ifneq ($(NVCC),)
all: $(FATBIN)
endif

# Next to the fatbin: <fatbin>.sha256, the hash of its bytes, and
# <fatbin>.manifest: the hash of its sources (as the service hashes the
# installed ones), its options and architectures, and the hash of those.
# nvcc writes <fatbin>.tmp, renamed last: a failed step leaves no fatbin
# that make would take for up to date.
$(FATBIN): $(KERNEL_SOURCES) $(NVCC_FLAGS_FILE)
	rm -f $@ $@.sha256 $@.manifest $@.srchash
	$(NVCC) $(NVCC_CCBIN) -fatbin $(NVCC_OPTIONS) -Ikernels -Iinclude \
		$(foreach a,$(NVCC_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
		-gencode arch=compute_$(lastword $(NVCC_ARCHS)),code=compute_$(lastword $(NVCC_ARCHS)) \
		-o $@.tmp kernels/pg_strom_kernels.cu
	printf '%s  %s\n' $$(sha256sum < $@.tmp | cut -d' ' -f1) $(notdir $@) > $@.sha256
	{ printf 'sources %s\n' $$(cat $$(for f in $(KERNEL_SOURCES); do echo $$f; done | awk -F/ '{print $$NF"\t"$$0}' | LC_ALL=C sort | cut -f2) | sha256sum | cut -d' ' -f1); \
	  $(NVCC_FLAGS_TEXT); \
	  printf 'flags %s\n' $$($(NVCC_FLAGS_TEXT) | sha256sum | cut -d' ' -f1); } > $@.manifest.tmp
	mv $@.manifest.tmp $@.manifest
	mv $@.tmp $@

all: $(GOSVC_LIB)

# ---- install --------------------------------------------------------------
KERNEL_DIR = $(datadir)/pg_strom/kernels

install: install-service
install-service: $(GOSVC_LIB)
	$(MKDIR_P) '$(DESTDIR)$(pkglibdir)' '$(DESTDIR)$(KERNEL_DIR)'
	$(INSTALL_SHLIB) $(GOSVC_LIB) '$(DESTDIR)$(pkglibdir)/$(GOSVC_LIB)'
	rm -f '$(DESTDIR)$(pkglibdir)/pg_strom_gpuserv'	# the launcher of old installs
	rm -f '$(DESTDIR)$(KERNEL_DIR)'/*.cu '$(DESTDIR)$(KERNEL_DIR)'/*.h
	$(INSTALL_DATA) $(KERNEL_SOURCES) '$(DESTDIR)$(KERNEL_DIR)/'
	rm -f '$(DESTDIR)$(pkglibdir)/pg_strom_kernels.fatbin.srchash'	# the source hash of old installs
	if [ -f $(FATBIN) ] && [ -f $(FATBIN).sha256 ] && [ -f $(FATBIN).manifest ]; then \
		$(INSTALL_DATA) $(FATBIN) $(FATBIN).sha256 $(FATBIN).manifest '$(DESTDIR)$(pkglibdir)/'; \
	else \
		rm -f '$(DESTDIR)$(pkglibdir)/pg_strom_kernels.fatbin' '$(DESTDIR)$(pkglibdir)/pg_strom_kernels.fatbin.sha256' \
			'$(DESTDIR)$(pkglibdir)/pg_strom_kernels.fatbin.manifest'; \
	fi

uninstall: uninstall-service
uninstall-service:
	rm -f '$(DESTDIR)$(pkglibdir)/$(GOSVC_LIB)' '$(DESTDIR)$(pkglibdir)/pg_strom_gpuserv' \
		'$(DESTDIR)$(pkglibdir)/pg_strom_kernels.fatbin' '$(DESTDIR)$(pkglibdir)/pg_strom_kernels.fatbin.sha256' \
		'$(DESTDIR)$(pkglibdir)/pg_strom_kernels.fatbin.manifest' '$(DESTDIR)$(pkglibdir)/pg_strom_kernels.fatbin.srchash'
	rm -rf '$(DESTDIR)$(datadir)/pg_strom'

# ---- developer entry points -----------------------------------------------
.PHONY: demo test test-versions check-cuda13 install-service uninstall-service fuzz

demo:
	bash test/demo.sh

test:
	bash test/run_all.sh

test-versions:
	bash test/run_versions.sh

# ---- fuzzing (kernels/fuzz/run.sh) -----------------------------------------
# Five harnesses: fuzz_kernels (libFuzzer + ASan/UBSan over the host
# executor's kernel code: page and tuple walk, qual evaluation, GpuPreAgg
# accumulation, grow and retry, zero-copy gather), FuzzKernelValidator (the
# service's session validator against the kernels'), FuzzSocketHostExec
# (the service socket with the host executor behind it), FuzzSocket (the
# socket with relation segment files and a device page cache behind it:
# direct-read and page-cache requests) and FuzzDirectChunk (the same read
# and page-cache code in process, without the socket).  `make fuzz`
# builds them into .device/fuzz/ (clang-14 with libclang-rt-14-dev, Go)
# and runs them: libFuzzer FUZZ_JOBS processes until FUZZ_RUNS executions
# in all (or FUZZ_TIME seconds), then each Go target for FUZZ_GO_TIME
# (a duration, or a count such as 100000x) with FUZZ_JOBS workers.  It
# fails on any crash, sanitizer report or fuzz test failure; crash inputs
# are left in FUZZ_OUT (default .device/fuzz/work).
# On a machine without the compilers (the GPU machine), carry .device/fuzz
# (the fuzzer brings its own C library in .device/fuzz/lib, the Go test
# binary is static) and run, from the repository root:
#   FUZZ_JOBS=16 FUZZ_RUNS=100000000 FUZZ_TIME=300 FUZZ_GO_TIME=60s bash kernels/fuzz/run.sh run
FUZZ_JOBS ?= $(shell nproc)
FUZZ_RUNS ?= 100000000
FUZZ_TIME ?= 3600
FUZZ_GO_TIME ?= 600s
fuzz:
	bash kernels/fuzz/run.sh build
	FUZZ_JOBS=$(FUZZ_JOBS) FUZZ_RUNS=$(FUZZ_RUNS) FUZZ_TIME=$(FUZZ_TIME) FUZZ_GO_TIME=$(FUZZ_GO_TIME) \
		bash kernels/fuzz/run.sh run

check-cuda13:
	@test -n "$(CUDA13_INCLUDE)" || { echo "set CUDA13_INCLUDE to a directory holding CUDA 13's cuda.h" >&2; exit 1; }
	CGO_ENABLED=1 CGO_CFLAGS="-O2 -I$(abspath $(CUDA13_INCLUDE)) -include $(CUDA_COMPAT)" \
		$(GO) build -buildmode=c-shared -o /tmp/pg_strom_gosvc.cuda13.so ./gosvc
	@echo "check-cuda13: built against $$(grep -m1 '#define CUDA_VERSION' $(CUDA13_INCLUDE)/cuda.h)"

# ---- benchmark (bench/): the PG* environment names the server -------------
BENCH_BIN = bench/pgstrom-bench
BENCH_OUT ?= bench-results
BENCH_FLAGS ?=
BENCH_RUN_FLAGS ?=
# one `run` step per W1 table, so that each step stays under 10 minutes at
# -scale 1 on 16 cores (both tables in one step took about 7 minutes at
# -scale 0.5 on the H200 machine), one for SSB (its 13 queries over the
# five ssb_* tables, at scale factor BENCH_SSB_SF) and, where BENCH_TABLES
# names tpch, one for TPC-H (its 22 queries over the eight tpch_* tables,
# at scale factor BENCH_TPCH_SF: 10 is about SSB's 20 in heap, 13.5 GB)
BENCH_TABLES ?= w1_narrow w1_wide ssb
BENCH_SSB_SF ?= 20
BENCH_TPCH_SF ?= 10
.PHONY: bench
bench:
	$(GO) build -o $(BENCH_BIN) ./bench
	mkdir -p $(BENCH_OUT)
	$(BENCH_BIN) load -sf $(BENCH_SSB_SF) -tpch-sf $(BENCH_TPCH_SF) $(BENCH_FLAGS) -tables $(shell echo $(BENCH_TABLES) | tr ' ' ,)
	rc=0; for t in $(BENCH_TABLES); do \
		$(BENCH_BIN) run $(BENCH_FLAGS) -tables $$t $(BENCH_RUN_FLAGS) -json $(BENCH_OUT)/bench-$$t.json \
			-png $(BENCH_OUT)/bench-$$t.png -plans $(BENCH_OUT)/plans-$$t.txt > $(BENCH_OUT)/bench-$$t.txt || rc=1; \
		cat $(BENCH_OUT)/bench-$$t.txt; \
	done; exit $$rc

# ---- make help: every target, what it needs, how long on 2 cores ----------
.PHONY: help
help:
	@printf '%s\n' \
	'pg_strom make targets (PG_CONFIG=... names the PostgreSQL; times on 2 cores)' \
	'' \
	'  all (default)   build the C extension, the Go service library and, when' \
	'                  nvcc exists, the kernels fatbin. Needs PostgreSQL 15 with' \
	'                  headers and PGXS, Go, gcc, cuda.h and libcuda.so' \
	'                  (docs/install.md). About 2-3 min from clean.' \
	'  install         install into the PostgreSQL PG_CONFIG names. Needs write' \
	'                  access there (root for a distribution package). Seconds.' \
	'  uninstall       remove what install put there. Seconds.' \
	'  install-service, uninstall-service   the Go service library and kernel' \
	'                  files part of install and uninstall, which run them.' \
	'  demo            build, install, a throwaway cluster: the service status' \
	'                  and devices, then stop (test/demo.sh). Needs the build' \
	'                  prerequisites (root on Debian 12 installs them) and an' \
	'                  unprivileged user when root (created). About 2-3 min.' \
	'  test            build, install and run every suite (test/run_all.sh).' \
	'                  Needs also nvcc and clang-14 with libclang-rt-14-dev; no' \
	'                  GPU. About 13.5-15 min, more the first time (steps side by side);' \
	'                  docs/testing.md gives each step.' \
	'  test-versions   the version suites (pg_regress, host executor, data-path' \
	'                  lifecycle tests) on PostgreSQL 17 and 18, installed under' \
	'                  /opt first when missing (root, Debian archive). About' \
	'                  25-30 min.' \
	'  installcheck    pg_regress of test/sql against a running server with' \
	'                  pg_strom preloaded (PGHOST, PGPORT, PGUSER). About 2-5 min.' \
	'  fuzz            build and run the kernel, socket and direct-read fuzzers' \
	'                  (kernels/fuzz/run.sh): FUZZ_JOBS, FUZZ_RUNS, FUZZ_TIME,' \
	'                  FUZZ_GO_TIME. Needs clang-14, libclang-rt-14-dev, Go. Up' \
	'                  to about 1 h 45 min at the defaults.' \
	'  bench           load and time the benchmark (bench/) against the server' \
	'                  the PG* environment names: BENCH_TABLES (add tpch for' \
	'                  TPC-H), BENCH_SSB_SF, BENCH_TPCH_SF, BENCH_FLAGS,' \
	'                  BENCH_RUN_FLAGS, BENCH_OUT. Needs pg_strom preloaded' \
	'                  there, pg_prewarm, Go. Hours at the defaults; about 3-4' \
	"                  min with BENCH_FLAGS='-scale 0.01' BENCH_SSB_SF=0.125;" \
	'                  BENCH_TABLES=tpch BENCH_TPCH_SF=0.05 about 2 min.' \
	'  check-cuda13    compile the Go service against CUDA 13 headers' \
	'                  (CUDA13_INCLUDE=dir holding its cuda.h). Needs Go. About' \
	'                  1 min.' \
	'  clean           remove the build outputs. Seconds.' \
	'  help            this list.' \
	'' \
	'On a GPU machine: test/device/ (docs/testing.md, "On a GPU machine").'
