#!/bin/bash
# Build a fully static x86_64 cuda-xcc with musl-gcc (Debian's musl-tools).
#
#   scripts/build-static.sh [--cache DIR] [--builddir DIR] [-j N] [--offline]
#
# --offline: no apt-get update or download; build from what the cache holds.
#
# Every library cuda-xcc links (libelf, libarchive, cJSON, libcurl, OpenSSL's
# libcrypto, and what they need: zlib, liblzma, libzstd) is built here from
# Debian's source packages with musl, static only, into a prefix in the
# cache. A rerun rebuilds only a library whose source version or recipe
# changed: each one has a stamp keyed by both (and by its dependencies'
# keys). Then cuda-xcc itself is configured with --enable-static-binary
# against that prefix, in a build directory of its own.
#
# Cache layout (default /var/cache/cuda-xcc/static, outside the checkout):
#   apt/       a private apt configuration: deb-src lines, lists, apt's cache
#   sources/   the downloaded source packages (.dsc, orig and debian tarballs)
#   work/      unpacked trees while they build (removed after each success)
#   prefix/    the musl-built static libraries, headers and .pc files
#   stamps/    one key per library: what the prefix holds
#   cuda-xcc/  the cuda-xcc build directory (unless --builddir)
#
# How the sources are verified: apt downloads the Sources index only after
# checking the suite's InRelease signature against the keyring named by
# Signed-By in the machine's own apt sources; the index lists the SHA256
# and size of every file of a source package, and apt checks each
# downloaded .dsc, orig and debian tarball against them (a mismatch fails
# the download). `dpkg-source -x` then checks every piece against the
# checksums in the .dsc before it unpacks and applies Debian's patches.
# (The .dsc's own OpenPGP signature is not checked: that would need the
# uploaders' keyrings; the archive signature above already covers it.)
#
# /etc/apt is never touched: every apt call gets -o options that point it
# at the private configuration.
set -euo pipefail

usage() {
	sed -n '4,5p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit "${1:-2}"
}

top=$(cd "$(dirname "$0")/.." && pwd)
cache=/var/cache/cuda-xcc/static
builddir=
jobs=$(nproc)
offline=no
while [ $# -gt 0 ]; do
	case "$1" in
	--cache) [ $# -ge 2 ] || usage; cache=$2; shift 2 ;;
	--builddir) [ $# -ge 2 ] || usage; builddir=$2; shift 2 ;;
	-j) [ $# -ge 2 ] || usage; jobs=$2; shift 2 ;;
	-j*) jobs=${1#-j}; shift ;;
	--offline) offline=yes; shift ;;
	-h|--help) usage 0 ;;
	*) echo "build-static.sh: unknown argument '$1'" >&2; usage ;;
	esac
done

die() { echo "build-static.sh: $*" >&2; exit 1; }
log() { echo "build-static: $*" >&2; }

for tool in musl-gcc apt-get apt-cache dpkg-source make perl pkg-config; do
	command -v "$tool" >/dev/null ||
		die "$tool is not installed (on Debian: apt-get install musl-tools dpkg-dev build-essential pkg-config)"
done

mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
: "${builddir:=$cache/cuda-xcc}"
prefix=$cache/prefix
srcdir=$cache/sources
workdir=$cache/work
stampdir=$cache/stamps
mkdir -p "$prefix/lib/pkgconfig" "$prefix/include" "$srcdir" "$workdir" "$stampdir"

# Two runs on one cache would unpack over each other.
exec 9>"$cache/.lock"
if ! flock -n 9; then
	log "waiting for another build-static.sh on $cache"
	flock 9
fi

# --- the private apt configuration ----------------------------------------
aptdir=$cache/apt
mkdir -p "$aptdir/parts" "$aptdir/lists/partial" "$aptdir/cache/archives/partial"
: >"$aptdir/sources.list"
apt_opts=(
	-o "Dir::Etc::SourceList=$aptdir/sources.list"
	-o "Dir::Etc::SourceParts=$aptdir/parts"
	-o "Dir::State::Lists=$aptdir/lists"
	-o "Dir::Cache=$aptdir/cache"
	-o "Debug::NoLocking=1"
	-o "APT::Sandbox::User=root"
	-q
)

# The mirror (and its keyring) are the machine's own: its deb lines, turned
# into deb-src lines.
write_apt_sources() {
	local out=$aptdir/parts/cuda-xcc-src
	local found=no f
	rm -f "$aptdir/parts/"*
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		sed 's/^Types:.*/Types: deb-src/' "$f" >"$out-$(basename "$f")"
		found=yes
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		grep -E '^[[:space:]]*deb[[:space:]]' "$f" |
			sed -E 's/^[[:space:]]*deb[[:space:]]/deb-src /' >>"$out.list" || true
		found=yes
	done
	[ "$found" = yes ] || die "no apt sources in /etc/apt to take the Debian mirror from"
}

apt_update() {
	write_apt_sources
	if [ "$offline" = yes ]; then
		return 0
	fi
	# A third-party repository without deb-src, or no network, makes
	# update fail in part; the lists it did get (or the last run's) may
	# still hold every package, and a missing one is named below.
	if ! apt-get "${apt_opts[@]}" update >"$aptdir/update.log" 2>&1; then
		log "apt-get update reported errors (see $aptdir/update.log); going on with the lists there are"
	fi
}

# Versions of source package $1, newest first.
src_versions() {
	local v sorted=() i j t
	while read -r v; do
		[ -n "$v" ] && sorted+=("$v")
	done < <(apt-cache "${apt_opts[@]}" showsrc --only-source "$1" 2>/dev/null |
		sed -n 's/^Version: //p' | sort -u)
	for ((i = 0; i < ${#sorted[@]}; i++)); do
		for ((j = i + 1; j < ${#sorted[@]}; j++)); do
			if dpkg --compare-versions "${sorted[j]}" gt "${sorted[i]}"; then
				t=${sorted[i]}; sorted[i]=${sorted[j]}; sorted[j]=$t
			fi
		done
	done
	printf '%s\n' "${sorted[@]}"
}

# The .dsc of $1 at version $2 (without its epoch).
dsc_path() { echo "$srcdir/${1}_${2#*:}.dsc"; }

# Download source package $1 (newest version the mirror really serves: a
# mirror may list a version whose files it lacks) and print its version.
fetch_source() {
	local pkg=$1 v
	local -a versions
	mapfile -t versions < <(src_versions "$pkg")
	[ ${#versions[@]} -gt 0 ] || die "no source package '$pkg' in the apt lists (see $aptdir/update.log)"
	for v in "${versions[@]}"; do
		if [ -f "$(dsc_path "$pkg" "$v")" ] && [ -f "$(dsc_path "$pkg" "$v").ok" ]; then
			echo "$v"
			return 0
		fi
		[ "$offline" = yes ] && continue
		if (cd "$srcdir" && apt-get "${apt_opts[@]}" source --download-only "$pkg=$v") \
			>"$srcdir/$pkg.log" 2>&1; then
			touch "$(dsc_path "$pkg" "$v").ok"
			echo "$v"
			return 0
		fi
		log "$pkg $v: download failed, trying an older version (see $srcdir/$pkg.log)"
	done
	die "could not download any version of source package '$pkg'"
}

# --- the musl toolchain ------------------------------------------------------
# musl-gcc's include path has no Linux kernel headers (OpenSSL includes
# <linux/mman.h>); give it the host's, and only those, in a directory of
# their own, so glibc's headers stay out of sight.
kinc=$cache/kernel-headers
mkdir -p "$kinc"
for d in linux asm-generic; do
	[ -e "$kinc/$d" ] || ln -sfn "/usr/include/$d" "$kinc/$d"
done
[ -e "$kinc/asm" ] || ln -sfn /usr/include/x86_64-linux-gnu/asm "$kinc/asm"
[ -f /usr/include/linux/version.h ] ||
	die "Linux kernel headers are missing (on Debian: apt-get install linux-libc-dev)"

export CC=musl-gcc
export AR=ar RANLIB=ranlib
export CFLAGS="-O2 -g0 -ffunction-sections -fdata-sections"
export CPPFLAGS="-isystem $kinc -I$prefix/include"
export LDFLAGS="-L$prefix/lib"
# Only the prefix: the host's glibc .pc files must never be picked up.
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
export PKG_CONFIG_LIBDIR=$prefix/lib/pkgconfig
unset CXX CXXFLAGS LIBS MAKEFLAGS || true
toolchain_id="$(musl-gcc -dumpfullversion 2>/dev/null || musl-gcc -dumpversion)
$(dpkg-query -W -f='${Version}' musl-dev 2>/dev/null || true)
$CFLAGS $CPPFLAGS $LDFLAGS"

# Debian's patches may change configure.ac or a Makefile.am; then the
# generated files are rebuilt as Debian's own build does (dh-autoreconf),
# rather than by make halfway with mismatched libtool macros. $no_regen
# turns that off for a package that keeps maintainer mode off.
patched_build_files() {
	local p
	[ -f debian/patches/series ] || return 1
	# shellcheck disable=SC2013 # patch names have no blanks
	for p in $(sed -e 's/#.*//' debian/patches/series); do
		grep -qE '^\+\+\+ [^[:space:]]*(configure\.ac|\.am|\.m4)([[:space:]]|$)' \
			"debian/patches/$p" && return 0
	done
	return 1
}

configure_static() {
	if [ "${no_regen:-}" != yes ] && patched_build_files; then
		autoreconf -fi >autoreconf.out 2>&1 || { cat autoreconf.out >&2; return 1; }
	fi
	./configure --prefix="$prefix" --libdir="$prefix/lib" --disable-shared --enable-static \
		--disable-dependency-tracking "$@" >configure.out 2>&1 ||
		{ tail -n 40 config.log >&2; return 1; }
}

# --- one recipe per library (run inside its unpacked source tree) -----------
build_zlib() {
	./configure --static --prefix="$prefix" --libdir="$prefix/lib" >configure.out 2>&1
	make -j"$jobs" libz.a
	make install >/dev/null
}

build_xz() {
	configure_static --disable-xz --disable-xzdec --disable-lzmadec --disable-lzmainfo \
		--disable-lzma-links --disable-scripts --disable-doc --disable-nls \
		--disable-rpath
	make -C src/liblzma -j"$jobs"
	make -C src/liblzma install >/dev/null
}

build_zstd() {
	make -C lib -j"$jobs" libzstd.a ZSTD_LEGACY_SUPPORT=0 HAVE_THREAD=0
	make -C lib install-static install-includes install-pc \
		PREFIX="$prefix" LIBDIR="$prefix/lib" ZSTD_LEGACY_SUPPORT=0 >/dev/null
}

# Only what cuda-xcc reads: tar, ar, zip, with gzip, xz and zstd.
build_libarchive() {
	configure_static --disable-bsdtar --disable-bsdcat --disable-bsdcpio \
		--disable-acl --disable-xattr --disable-rpath \
		--with-zlib --with-lzma --with-zstd --without-bz2lib --without-libb2 \
		--without-lz4 --without-lzo2 --without-cng --without-mbedtls \
		--without-nettle --without-openssl --without-xml2 --without-expat \
		--without-iconv
	make -j"$jobs" libarchive.la
	make install-libLTLIBRARIES install-includeHEADERS install-pkgconfigDATA >/dev/null
}

# libelf only. elfutils' configure insists on argp, fts and obstack, which
# musl lacks and which only its tools use (not libelf): the cache variables
# tell configure they are in libc, and then only lib/ (the internal helper
# library) and libelf/ are built, so nothing ever needs them.
build_libelf() {
	no_regen=yes \
	ac_cv_search_argp_parse='none required' \
	ac_cv_search_fts_close='none required' \
	ac_cv_search__obstack_free='none required' \
	configure_static --disable-libdebuginfod --disable-debuginfod --disable-nls \
		--without-bzlib --without-lzma --without-zstd --disable-symbol-versioning \
		--program-prefix=eu-
	make -C lib -j"$jobs" libeu.a
	make -C libelf -j"$jobs" libelf.a
	make -C libelf install-libLIBRARIES install-includeHEADERS install-euincludeHEADERS \
		>/dev/null
	make -C config install-pkgconfigDATA >/dev/null
	# musl's <elf.h> lags glibc's (no ELFOSABI_ARM_AEABI, ...); libelf was
	# compiled against elfutils' own copy of glibc's, so users of libelf.h
	# get that one too, the same constants as in a glibc build.
	cp libelf/elf.h "$prefix/include/elf.h"
	# libelf.pc also lists libdw's pc file; the prefix has only libelf.
	rm -f "$prefix/lib/pkgconfig/libdw.pc" "$prefix/lib/pkgconfig/libdebuginfod.pc"
}

# cJSON's own build wants CMake for its .pc file; one source file and a .pc
# written here are enough.
build_cjson() {
	local ver
	ver=$(sed -n 's/^#define CJSON_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' cJSON.h |
		paste -sd.)
	# shellcheck disable=SC2086 # flag lists
	$CC $CFLAGS $CPPFLAGS -std=c89 -c cJSON.c -o cJSON.o
	ar rcs libcjson.a cJSON.o
	mkdir -p "$prefix/include/cjson"
	cp cJSON.h "$prefix/include/cjson/"
	cp libcjson.a "$prefix/lib/"
	cat >"$prefix/lib/pkgconfig/libcjson.pc" <<-EOF
		prefix=$prefix
		libdir=\${prefix}/lib
		includedir=\${prefix}/include
		Name: libcjson
		Description: Ultralightweight JSON parser in ANSI C
		Version: $ver
		Libs: -L\${libdir} -lcjson
		Libs.private: -lm
		Cflags: -I\${includedir} -I\${includedir}/cjson
	EOF
}

# libcrypto and libssl, lean: no shared libraries, engines, modules,
# legacy algorithms, or ciphers and protocols that neither curl's HTTPS nor
# cuda-xcc's SHA-256 use (a shorter cold build in CI); the certificate store is the system's (/etc/ssl, or
# SSL_CERT_FILE / SSL_CERT_DIR at run time).
# shellcheck disable=SC2086 # flag lists
build_openssl() {
	./Configure linux-x86_64 --prefix="$prefix" --libdir=lib --openssldir=/etc/ssl \
		no-shared no-tests no-module no-engine no-dso no-afalgeng no-async \
		no-comp no-legacy no-ssl3 no-srp no-psk no-ui-console no-ktls \
		no-deprecated no-pinshared no-fuzz-afl no-fuzz-libfuzzer no-unit-test \
		no-idea no-seed no-camellia no-aria no-sm2 no-sm3 no-sm4 no-whirlpool \
		no-rc2 no-rc4 no-md4 no-mdc2 no-bf no-cast no-cmp no-cms no-ts no-gost \
		no-ec2m no-dtls no-sctp no-srtp no-nextprotoneg no-siphash no-ocb \
		no-rfc3779 no-ssl-trace no-scrypt \
		$CFLAGS $CPPFLAGS >configure.out 2>&1
	make -j"$jobs" build_libs >make.out 2>&1 || { tail -n 40 make.out >&2; return 1; }
	make install_dev >/dev/null
}

# HTTP and HTTPS over OpenSSL (fetch reads file:// URLs itself); every
# other protocol and optional dependency off. No CA bundle is compiled in:
# OpenSSL's defaults (/etc/ssl/certs, /etc/ssl/cert.pem, or SSL_CERT_FILE
# and SSL_CERT_DIR) are used, as on the machine the binary runs on.
build_curl() {
	# Debian applies its GnuTLS and NSS flavour patches last and pops them
	# for the OpenSSL build; so does this.
	local p
	for p in 99_nss.patch 90_gnutls.patch; do
		patch -R -p1 -s <"debian/patches/$p"
		sed -i "/^$p\$/d" debian/patches/series
	done
	# Debian's other build-file patches touch zsh completion, GSSAPI and
	# LDAP, all off here; curl keeps maintainer mode off, so the shipped
	# configure is used as is (autoreconf would add ~10 s to a cold build).
	no_regen=yes \
	configure_static --with-openssl="$prefix" --without-zlib --without-brotli \
		--without-zstd --without-libpsl --without-libidn2 --without-nghttp2 \
		--without-nghttp3 --without-ngtcp2 --without-libssh2 --without-libssh \
		--without-librtmp --without-libgsasl --disable-ldap --disable-ldaps \
		--disable-rtsp --disable-dict --disable-telnet --disable-tftp \
		--disable-pop3 --disable-imap --disable-smb --disable-smtp --disable-gopher \
		--disable-mqtt --disable-ftp --disable-file --disable-manual --disable-ntlm \
		--disable-ntlm-wb --disable-alt-svc --disable-hsts --disable-docs \
		--disable-unix-sockets --without-ca-bundle --without-ca-path \
		--with-ca-fallback --enable-threaded-resolver
	make -C lib -j"$jobs" libcurl.la
	make -C lib install-libLTLIBRARIES >/dev/null
	make -C include install >/dev/null
	make install-pkgconfigDATA >/dev/null
}

# name, Debian source package, libraries it builds on.
libraries=(
	"zlib zlib"
	"xz xz-utils"
	"zstd libzstd"
	"libarchive libarchive zlib xz zstd"
	"libelf elfutils zlib"
	"cjson cjson"
	"openssl openssl"
	"curl curl openssl"
)

declare -A key version
build_one() {
	local name=$1 pkg=$2
	shift 2
	local v dep k stamp=$stampdir/$name tree
	v=$(fetch_source "$pkg")
	version[$name]=$v
	k="$pkg $v
$(declare -f "build_$name" configure_static)
$toolchain_id"
	for dep in "$@"; do
		k="$k
$dep ${key[$dep]}"
	done
	k=$(printf '%s' "$k" | sha256sum | cut -d' ' -f1)
	key[$name]=$k
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$k" ]; then
		log "$name $v: up to date"
		return 0
	fi
	log "$name $v: building"
	rm -f "$stamp"
	tree=$workdir/$name
	rm -rf "$tree"
	dpkg-source -x "$(dsc_path "$pkg" "$v")" "$tree" >"$workdir/$name.unpack.log" 2>&1 ||
		{ cat "$workdir/$name.unpack.log" >&2; die "$name: dpkg-source -x failed"; }
	(cd "$tree" && "build_$name") >"$workdir/$name.build.log" 2>&1 ||
		{ tail -n 60 "$workdir/$name.build.log" >&2; die "$name $v: build failed (log: $workdir/$name.build.log)"; }
	echo "$k" >"$stamp"
	rm -rf "$tree" "$workdir/"*.orig.* "$workdir/"*.debian.*
}

start=$(date +%s)
apt_update
for entry in "${libraries[@]}"; do
	# shellcheck disable=SC2086
	build_one $entry
done

# --- cuda-xcc itself -----------------------------------------------------------
[ -x "$top/configure" ] || (cd "$top" && autoreconf -fi)
conf_args=(--enable-static-binary CC=musl-gcc
	CFLAGS="$CFLAGS" CPPFLAGS="-isystem $kinc" LDFLAGS="-Wl,--gc-sections -s"
	PKG_CONFIG_PATH="$PKG_CONFIG_PATH" PKG_CONFIG_LIBDIR="$PKG_CONFIG_LIBDIR")
conf_key=$(printf '%s\n' "${key[@]}" "$toolchain_id" "$top" "${conf_args[@]}" |
	sha256sum | cut -d' ' -f1)
# The build directory is wiped when anything but cuda-xcc's own sources
# changed (libraries, flags, another checkout), so nothing stale is linked;
# only a directory this script made is ever wiped.
if [ -d "$builddir" ] && [ -n "$(ls -A "$builddir")" ] && [ ! -f "$builddir/.build-static" ]; then
	die "$builddir is not empty and was not made by build-static.sh; pass another --builddir"
fi
if [ "$(cat "$builddir/.static-configure-key" 2>/dev/null)" != "$conf_key" ]; then
	log "cuda-xcc: configuring in $builddir"
	rm -rf "$builddir"
	mkdir -p "$builddir"
	touch "$builddir/.build-static"
	(cd "$builddir" && "$top/configure" "${conf_args[@]}" >configure.out 2>&1) ||
		{ tail -n 30 "$builddir/config.log" >&2; die "cuda-xcc: configure failed (see $builddir/config.log)"; }
	echo "$conf_key" >"$builddir/.static-configure-key"
fi
cd "$builddir"
log "cuda-xcc: building"
make -j"$jobs" src/cuda-xcc >make.out 2>&1 ||
	{ tail -n 40 make.out >&2; die "cuda-xcc: build failed (log: $builddir/make.out)"; }
bin=$builddir/src/cuda-xcc

echo "Static cuda-xcc built with musl $(dpkg-query -W -f='${Version}' musl-dev 2>/dev/null || echo '?') in $(($(date +%s) - start)) s from Debian sources:"
for entry in "${libraries[@]}"; do
	# shellcheck disable=SC2086 # a list of words
	set -- $entry
	printf '  %-10s %-10s %s\n' "$1" "$2" "${version[$1]}"
done
echo "binary: $bin ($(stat -c %s "$bin") bytes)"
