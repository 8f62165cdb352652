#!/usr/bin/env bash
# build/build-pg.sh MAJOR [OUT.tgz]
#
# Builds a portable, relocatable PostgreSQL MAJOR (15, 17, 18, ...) and packs
# it into OUT.tgz (default ./pgMAJOR.tgz): one folder, pgMAJOR/, holding
# bin/, lib/, share/ and include/, with the contrib modules pg_prewarm,
# pg_buffercache, pg_visibility and pageinspect (the device scripts use
# them), pgbench and PGXS with pg_regress.
#
#  - portable: configured without ICU, readline, zlib or OpenSSL, so it needs
#    only the C library (libc, libm) of the machine that built it or a newer
#    one: built on Debian 12 it runs on any x86-64 Linux with glibc 2.36 or
#    later;
#  - relocatable: the programs find libpq through the run path
#    $ORIGIN/../lib and PostgreSQL finds its share/ and lib/ folders relative
#    to its programs, so the folder works wherever it is unpacked:
#      tar xzf pg15.tgz -C /opt        # gives /opt/pg15
#      make PG_CONFIG=/opt/pg15/bin/pg_config && make install PG_CONFIG=/opt/pg15/bin/pg_config
#
# The source comes from PG_SOURCE (a PostgreSQL source tarball or an unpacked
# source tree, e.g. from https://ftp.postgresql.org/pub/source/), or, when it
# is unset, from Debian's source package of MAJOR (15: bookworm and its
# security archive, 17: trixie, 18: sid), downloaded through a private apt
# state in the work folder, so the machine's own apt setup is left as it is:
# that needs apt-get, /usr/share/keyrings/debian-archive-keyring.gpg and
# access to deb.debian.org.  A source without generated files (18's)
# needs bison, flex and perl; as root on Debian they are installed when
# missing.
#
# Nothing is written outside the work folder (PG_BUILD_DIR, default a new
# folder under /tmp, removed at the end unless KEEP_BUILD_DIR=1) and OUT.tgz;
# no root is needed.  Other knobs: PG_PREFIX (the prefix configure records,
# default /opt/pgMAJOR; it only names the folder in the tarball), JOBS
# (make -j, default nproc), PG_CONFIGURE_EXTRA (more configure options).
#
# Takes about 3-4 minutes on 2 cores, plus the download (about 25 MB).
set -euo pipefail

usage() { echo "usage: build/build-pg.sh MAJOR [OUT.tgz]   (e.g. build/build-pg.sh 15)" >&2; exit 2; }
die() { echo "build-pg.sh: $*" >&2; exit 1; }

[ $# -ge 1 ] || usage
major=$1
case $major in ''|*[!0-9]*) usage ;; esac
out=${2:-$PWD/pg$major.tgz}
case $out in /*) ;; *) out=$PWD/$out ;; esac
prefix=${PG_PREFIX:-/opt/pg$major}
jobs=${JOBS:-$(nproc)}

for tool in make gcc tar; do
	command -v "$tool" >/dev/null || die "$tool is missing (Debian: apt-get install build-essential)"
done

work=${PG_BUILD_DIR:-$(mktemp -d /tmp/build-pg.XXXXXX)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
[ "${KEEP_BUILD_DIR:-}" = 1 ] || trap 'rm -rf "$work"' EXIT
cd "$work"

# ---- the source --------------------------------------------------------
fetch_debian_source() {
	local suite
	case $major in
	15) suite=bookworm ;;
	17) suite=trixie ;;
	18) suite=sid ;;
	*) die "no Debian suite known for PostgreSQL $major: set PG_SOURCE to its source tarball" ;;
	esac
	command -v apt-get >/dev/null ||
		die "PG_SOURCE is unset and there is no apt-get to fetch Debian's source package: set PG_SOURCE to a source tarball"
	local keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	[ -f "$keyring" ] || die "$keyring is missing (Debian: debian-archive-keyring), or set PG_SOURCE"
	# a stable suite's point releases are published in its security archive:
	# ask it first, then the suite alone (a mirror may list the security
	# archive's files without serving them)
	local sets=(main) set srcdir label
	[ "$suite" != sid ] && sets=(security main)
	for set in "${sets[@]}"; do
		srcdir=$work/apt-$set
		label=$suite
		mkdir -p "$srcdir/lists/partial" "$srcdir/cache/archives/partial"
		{
			if [ "$set" = security ]; then
				label="$suite-security, then $suite"
				printf 'Types: deb-src\nURIs: http://deb.debian.org/debian-security\nSuites: %s-security\nComponents: main\nSigned-By: %s\n\n' "$suite" "$keyring"
			fi
			printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: main\nSigned-By: %s\n' "$suite" "$keyring"
		} > "$srcdir/src.sources"
		local apt_opts=(-o Dir::Etc::sourcelist="$srcdir/src.sources" -o Dir::Etc::sourceparts=-
			-o Dir::State::Lists="$srcdir/lists" -o Dir::Cache="$srcdir/cache")
		echo "build-pg.sh: downloading Debian's postgresql-$major source package ($label)"
		apt-get "${apt_opts[@]}" update -qq 2>&1 | grep -v unsandboxed || true
		if (cd "$srcdir" && apt-get "${apt_opts[@]}" source --download-only -qq "postgresql-$major" 2>&1 |
			grep -v unsandboxed; exit "${PIPESTATUS[0]}"); then
			break
		fi
		echo "build-pg.sh: the download ($label) failed" >&2
	done
	src=$(ls "$srcdir"/postgresql-"$major"_*.orig.tar.* 2>/dev/null | head -1)
	[ -n "$src" ] || die "could not download postgresql-$major's source package: set PG_SOURCE to a source tarball"
}

if [ -n "${PG_SOURCE:-}" ]; then
	[ -e "$PG_SOURCE" ] || die "PG_SOURCE=$PG_SOURCE does not exist"
	src=$(cd "$(dirname "$PG_SOURCE")" && pwd)/$(basename "$PG_SOURCE")
else
	fetch_debian_source
fi
if [ -d "$src" ]; then
	[ -x "$src/configure" ] || die "$src holds no configure script"
	cp -a "$src" "$work/src"
else
	mkdir -p "$work/src"
	tar xf "$src" -C "$work/src" --strip-components=1 || die "cannot unpack $src"
fi
cd "$work/src"
[ -f configure ] || die "no configure script in the unpacked source"
version=$(sed -n "s/^PACKAGE_VERSION='\(.*\)'$/\1/p" configure)
case $version in "$major".*|"$major"beta*|"$major"rc*|"$major"devel) ;; *) die "the source is PostgreSQL $version, not $major" ;; esac

# a tarball without the generated files (18's: no parser, no errcodes.h,
# no catalog headers) needs bison, flex and a whole perl: the generators
# load FindBin and File::Compare, which Debian's perl-base lacks
generators_present() {
	command -v bison >/dev/null && command -v flex >/dev/null &&
		perl -MFindBin -MFile::Compare -MFile::Copy -MList::Util -e 1 2>/dev/null
}
if [ ! -f src/backend/parser/gram.c ] && ! generators_present; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		apt-get install -y -qq bison flex perl >/dev/null
		generators_present || die "bison, flex or perl's FindBin, File::Compare, File::Copy or List::Util is still missing"
	else
		die "this source has no generated files: bison, flex and perl (Debian: the perl package, not only perl-base) are needed"
	fi
fi

# ---- configure, build, install into the work folder ---------------------
echo "build-pg.sh: building PostgreSQL $version with $jobs jobs (prefix $prefix)"
extra=()
# 18 looks for io_uring and libnuma by default
[ "$major" -ge 18 ] && extra+=(--without-liburing --without-libnuma)
# shellcheck disable=SC2206
extra+=(${PG_CONFIGURE_EXTRA:-})
# --disable-rpath drops the absolute run path; the quoted $$ORIGIN reaches
# the linker as $ORIGIN through make and the shell
./configure -q --prefix="$prefix" --disable-rpath \
	--without-icu --without-readline --without-zlib --without-openssl "${extra[@]}" \
	LDFLAGS="-Wl,-rpath,'\$\$ORIGIN/../lib'"
make -s -j"$jobs"
dest=$work/dest
make -s install DESTDIR="$dest"
for c in pg_prewarm pg_buffercache pg_visibility pageinspect; do
	make -s -C "contrib/$c" -j"$jobs" install DESTDIR="$dest"
done

# ---- check and pack ---------------------------------------------------------
root=$dest$prefix
libs=$(ldd "$root/bin/psql" "$root/bin/postgres" | awk '/=>/ {print $1}' | sort -u)
grep -q '^libpq\.so' <<<"$libs" || die "psql does not link libpq"
ldd "$root/bin/psql" | grep "libpq.so.* => $root/" >/dev/null ||
	die "psql does not find libpq through \$ORIGIN/../lib: $(ldd "$root/bin/psql" | grep libpq)"
other=$(echo "$libs" | grep -vE '^(libpq\.so|libc\.so|libm\.so|libdl\.so|libpthread\.so|librt\.so|linux-vdso\.so|ld-linux)' || true)
[ -z "$other" ] || echo "build-pg.sh: warning: also needs $(echo "$other" | tr '\n' ' ')" >&2
mkdir -p "$(dirname "$out")"
tar czf "$out" -C "$(dirname "$root")" "$(basename "$root")"
echo "build-pg.sh: wrote $out ($(du -h "$out" | cut -f1)): PostgreSQL $version in $(basename "$root")/"
echo "build-pg.sh: unpack with: tar xzf $out -C DIR   (then PG_CONFIG=DIR/$(basename "$root")/bin/pg_config)"
