#!/usr/bin/env bash
# install_pg.sh MAJOR: a PostgreSQL other than Debian 12's own 15, under
# /opt/pgMAJOR, for building and testing pg_strom against it; prints the
# PG_CONFIG to use.  Nothing of the machine's own apt setup is changed: the
# packages come through a private apt state.
#
#   17  Debian 13's binary packages (postgresql-17, its server headers and
#       client), unpacked under /opt/pg17.  They need glibc 2.38, newer than
#       Debian 12's: every program is run through Debian 13's own loader and
#       libraries by a wrapper of the same name, pg_config.h is told that
#       the host's C library lacks strlcpy/strlcat, and the extension is
#       built without LLVM bitcode (the server has no JIT provider).
#   18  (or 15) built by build/build-pg.sh (Debian's source package, sid's
#       for 18, no optional libraries, a few minutes on 2 cores) and
#       unpacked; PGSTROM_PG_TARBALL names a tarball of such a build
#       (pgMAJOR/ or opt/pgMAJOR/ in it) to unpack instead.
#
# Needs root (it writes /opt) and Debian's archive.
set -euo pipefail
v=${1:?usage: install_pg.sh MAJOR}
prefix=/opt/pg$v
work=$(mktemp -d /tmp/install_pg.XXXXXX)
trap 'rm -rf "$work"' EXIT

apt_private() {
	local kind=$1 suite=$2
	mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial"
	: > "$work/apt/status"
	echo "$kind [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite main" \
		> "$work/apt/sources.list"
	A=(-o Dir::Etc::sourcelist="$work/apt/sources.list" -o Dir::Etc::sourceparts=-
	   -o Dir::State::Lists="$work/apt/lists" -o Dir::State::status="$work/apt/status"
	   -o Dir::Cache="$work/apt/cache" -o APT::Architecture=amd64)
	apt-get "${A[@]}" update -qq
}

install_17_binary() {
	local bin=$prefix/usr/lib/postgresql/17/bin lib=$prefix/usr/lib/x86_64-linux-gnu
	local f
	apt_private deb trixie
	mkdir -p "$work/debs"
	# the server, its headers and client, and the libraries they load that
	# Debian 12's are too old for (or lack)
	(cd "$work/debs" && apt-get "${A[@]}" download -qq \
		postgresql-17 postgresql-server-dev-17 postgresql-client-17 libpq5 libc6 \
		libssl3t64 libicu76 libxml2 liblz4-1 libzstd1 libgssapi-krb5-2 libkrb5-3 \
		libk5crypto3 libkrb5support0 libldap2 libsasl2-2 libsystemd0 libxslt1.1 \
		libselinux1 libcom-err2 libkeyutils1 libgcc-s1 libstdc++6 libuuid1 liblzma5 \
		zlib1g libpam0g libcap2 libgcrypt20 libgpg-error0 libnuma1 libreadline8t64 \
		libtinfo6 libncursesw6 libedit2 libbsd0 libmd0 libsasl2-modules-db \
		libdb5.3t64)
	rm -rf "$prefix"
	for f in "$work"/debs/*.deb; do dpkg-deb -x "$f" "$prefix"; done
	wrap_elf() {
		local p=$1 dir name
		dir=$(dirname "$p")
		name=$(basename "$p")
		mv "$p" "$dir/.$name.real"
		printf '#!/bin/sh\nexec %s/ld-linux-x86-64.so.2 --library-path %s --argv0 "$0" %s/.%s.real "$@"\n' \
			"$lib" "$lib" "$dir" "$name" > "$p"
		chmod 755 "$p"
	}
	for f in "$bin"/* "$prefix"/usr/lib/postgresql/17/lib/pgxs/src/test/regress/pg_regress; do
		head -c 4 "$f" | grep ELF >/dev/null && wrap_elf "$f"
	done
	if ! grep -q '^#define HAVE_DECL_STRLCPY 0' "$prefix/usr/include/postgresql/17/server/pg_config.h" &&
		! printf '#include <string.h>\nint main(void){char b[2];return (int) strlcpy(b, "a", 2);}\n' |
		gcc -x c -Werror=implicit-function-declaration -o /dev/null - 2>/dev/null; then
		sed -i 's/^#define HAVE_DECL_STRLCAT 1/#define HAVE_DECL_STRLCAT 0/; s/^#define HAVE_DECL_STRLCPY 1/#define HAVE_DECL_STRLCPY 0/' \
			"$prefix/usr/include/postgresql/17/server/pg_config.h"
	fi
	sed -i 's/^with_llvm\t= yes/with_llvm\t= no/' "$prefix/usr/lib/postgresql/17/lib/pgxs/src/Makefile.global"
	# without LLVM's library the JIT provider fails to load at the first
	# costly query; without the provider the server does without JIT
	rm -f "$prefix"/usr/lib/postgresql/17/lib/llvmjit*
	echo "$bin/pg_config"
}

install_from_source() {
	local tgz=${PGSTROM_PG_TARBALL:-}
	if [ -z "$tgz" ]; then
		tgz=$work/pg$v.tgz
		bash "$(dirname "$0")/build-pg.sh" "$v" "$tgz" >&2
	fi
	rm -rf "$prefix"
	# build-pg.sh's tarballs hold pgMAJOR/; others opt/pgMAJOR/
	local first
	first=$(tar tzf "$tgz" | head -1 || true)
	case $first in
	opt/*) tar xzf "$tgz" -C / ;;
	*) tar xzf "$tgz" -C /opt ;;
	esac
	echo "$prefix/bin/pg_config"
}

case $v in
17)
	install_17_binary
	;;
15 | 18)
	install_from_source
	;;
*)
	echo "install_pg.sh: no recipe for PostgreSQL $v (16 has no Debian package)" >&2
	exit 2
	;;
esac
