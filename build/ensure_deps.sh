#!/usr/bin/env bash
# Makes sure the build and test prerequisites are present.
# As root on Debian 12 it installs what is missing; elsewhere it names exactly
# what is missing and fails.
set -euo pipefail

# The PostgreSQL is the one PG_CONFIG names (the default: the pg_config on
# PATH, Debian 12's PostgreSQL 15).  Only Debian 12's own 15 is installed
# here; another major version is checked and named when missing.
PG_CONFIG=${PG_CONFIG:-pg_config}
PG_MAJOR=15
if v=$("$PG_CONFIG" --version 2>/dev/null); then
	PG_MAJOR=$(echo "$v" | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
elif [ "$PG_CONFIG" != pg_config ]; then
	echo "ensure_deps: PG_CONFIG=$PG_CONFIG does not run" >&2
	exit 1
fi
case "$PG_MAJOR" in
15|16|17|18) ;;
*) echo "ensure_deps: PostgreSQL $PG_MAJOR is not supported (15, 16, 17 or 18)" >&2; exit 1 ;;
esac
GO_MIN=1.24
missing=()
# --with-nvcc: the test suite also wants nvcc (and clang 14, the host
# compiler Debian's nvcc 11.8 accepts) for the kernels' host-side tests.
want_nvcc=false
[ "${1:-}" = "--with-nvcc" ] && want_nvcc=true

have_pg_server() { [ -x "$("$PG_CONFIG" --bindir 2>/dev/null)/postgres" ] || { [ "$PG_CONFIG" = pg_config ] && [ -x /usr/lib/postgresql/$PG_MAJOR/bin/postgres ]; }; }
have_pg_dev() { [ -f "$("$PG_CONFIG" --pgxs 2>/dev/null)" ] && [ -f "$("$PG_CONFIG" --includedir-server 2>/dev/null)/postgres.h" ]; }
have_cuda_h() { [ -f /usr/include/cuda.h ] || [ -f /usr/local/cuda/include/cuda.h ]; }
have_libcuda() {
	local f
	for f in /usr/lib/x86_64-linux-gnu/libcuda.so /usr/local/cuda/lib64/stubs/libcuda.so /usr/local/cuda/lib64/libcuda.so; do
		[ -e "$f" ] && return 0
	done
	return 1
}
have_libfuzzer() { ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; }
find_go() { for g in /usr/local/go/bin/go "$(command -v go 2>/dev/null)"; do [ -n "$g" ] && [ -x "$g" ] && { echo "$g"; return; }; done; }
go_ok() {
	local g; g=$(find_go) || return 1; [ -n "$g" ] || return 1
	local v; v=$("$g" env GOVERSION | sed 's/^go//')
	[ "$(printf '%s\n%s\n' "$GO_MIN" "$v" | sort -V | head -1)" = "$GO_MIN" ]
}

check() {
	missing=()
	have_pg_server || missing+=("PostgreSQL $PG_MAJOR server (Debian: postgresql-$PG_MAJOR)")
	have_pg_dev || missing+=("PostgreSQL $PG_MAJOR server headers and PGXS (Debian: postgresql-server-dev-$PG_MAJOR)")
	have_cuda_h || missing+=("CUDA driver API header cuda.h (Debian non-free: nvidia-cuda-dev)")
	have_libcuda || missing+=("libcuda.so to link against (Debian non-free: nvidia-cuda-dev / libcuda1)")
	command -v make >/dev/null || missing+=("make")
	command -v gcc >/dev/null || missing+=("gcc")
	go_ok || missing+=("Go >= $GO_MIN (https://go.dev/dl, installed as /usr/local/go)")
	# the kernel fuzzers (kernels/fuzz): clang 14 with the libFuzzer and
	# sanitizer runtimes
	command -v clang++-14 >/dev/null || missing+=("clang-14 (kernel fuzzers)")
	have_libfuzzer || missing+=("libFuzzer/sanitizer runtimes of clang 14 (Debian: libclang-rt-14-dev)")
	command -v runuser >/dev/null || missing+=("runuser (util-linux)")
	if $want_nvcc; then
		{ command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; } ||
			missing+=("nvcc (Debian non-free: nvidia-cuda-toolkit, or a CUDA toolkit)")
		command -v clang-14 >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] ||
			missing+=("clang-14 (host compiler for Debian's nvcc 11.8)")
	fi
}

check
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" = 0 ] && [ "$PG_MAJOR" = 15 ] && grep -q 'VERSION_ID="12"' /etc/os-release 2>/dev/null && command -v apt-get >/dev/null; then
	echo "ensure_deps: installing: ${missing[*]}"
	src=/etc/apt/sources.list.d/debian.sources
	# cuda.h and libcuda live in Debian's non-free component.
	if [ -f "$src" ] && ! grep -q 'non-free' "$src"; then
		sed -i 's/^Components: main$/Components: main contrib non-free non-free-firmware/' "$src"
	elif [ -f /etc/apt/sources.list ] && ! grep -q 'non-free' /etc/apt/sources.list; then
		sed -i -E 's/^(deb .* main)$/\1 contrib non-free non-free-firmware/' /etc/apt/sources.list
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# --no-install-recommends keeps the NVIDIA kernel module (DKMS) out:
	# building needs only the headers and libcuda to link.
	apt-get install -y -qq --no-install-recommends \
		postgresql-$PG_MAJOR postgresql-server-dev-$PG_MAJOR postgresql-client-$PG_MAJOR \
		nvidia-cuda-dev make gcc util-linux ca-certificates >/dev/null
	command -v clang++-14 >/dev/null && have_libfuzzer ||
		apt-get install -y -qq --no-install-recommends clang-14 libclang-rt-14-dev >/dev/null
	if $want_nvcc; then
		apt-get install -y -qq --no-install-recommends nvidia-cuda-toolkit clang-14 >/dev/null
	fi
	check
	[ ${#missing[@]} -eq 0 ] && exit 0
fi

echo "ensure_deps: missing prerequisites:" >&2
for m in "${missing[@]}"; do echo "  - $m" >&2; done
if [ "$PG_MAJOR" != 15 ]; then
	echo "PostgreSQL $PG_MAJOR is not installed here: docs/postgresql-versions.md says how to get it" >&2
elif [ "$(id -u)" != 0 ]; then
	echo "run as root on Debian 12 to have them installed automatically" >&2
fi
exit 1
