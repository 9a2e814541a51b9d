#!/bin/bash
# Build a fully static x86_64 cuda-xcc with musl-gcc (Debian's musl-tools).
#
#   scripts/build-static.sh [--cache DIR] [--builddir DIR] [-j N] [--offline] [--allow-older PKG,...]
#
# --offline: no apt-get update or download; build from what the cache holds.
# --allow-older: accept these source packages older than the versions
# installed here (when the mirror lacks the newer source); the binary's
# `--version --verbose` then says so.
#
# Every library cuda-xcc links (libelf, libarchive, cJSON, libcurl over
# mbedTLS, nettle, and what they need: zlib, liblzma, libzstd) is built here
# from Debian's source packages with musl, static only, into a prefix in the
# cache, only the parts cuda-xcc uses, independent libraries side by side.
# A rerun rebuilds only a library whose source version or recipe changed:
# each one has a stamp keyed by both (and by its dependencies' keys). Then
# cuda-xcc itself is configured with --enable-static-binary against that
# prefix, in a build directory of its own, and told the Debian versions it
# embeds (`cuda-xcc --version --verbose` prints them).
#
# Sources come from the release, its point updates and its security suite.
# A source package older than the version of it installed on this machine
# is never used: a static binary carries its libraries for life, so a
# missing security update fails the build rather than being skipped.
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
	sed -n '4,4p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit "${1:-2}"
}

top=$(cd "$(dirname "$0")/.." && pwd)
cache=/var/cache/cuda-xcc/static
builddir=
jobs=$(nproc)
offline=no
allow_older=
while [ $# -gt 0 ]; do
	case "$1" in
	--cache) [ $# -ge 2 ] || usage; cache=$2; shift 2 ;;
	--builddir) [ $# -ge 2 ] || usage; builddir=$2; shift 2 ;;
	-j) [ $# -ge 2 ] || usage; jobs=$2; shift 2 ;;
	-j*) jobs=${1#-j}; shift ;;
	--offline) offline=yes; shift ;;
	--allow-older) [ $# -ge 2 ] || usage; allow_older=$2; shift 2 ;;
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

# --- the private apt configurations ---------------------------------------
# One per Debian release sources are taken from: this machine's, and the
# later one of later_sources below. Each has its own lists, so a package
# never picks up a version from the other release by accident.
aptdir=$cache/apt

# apt-get or apt-cache ($2...) on the private configuration in directory $1.
apt_in() {
	local dir=$1 tool=$2
	shift 2
	"$tool" -o "Dir::Etc::SourceList=$dir/sources.list" -o "Dir::Etc::SourceParts=$dir/parts" \
		-o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache" \
		-o "Debug::NoLocking=1" -o "APT::Sandbox::User=root" -q "$@"
}

# Source packages taken from a later Debian release than this machine's
# when this one is older: "package VERSION_ID codename", and why. A static
# binary carries its libraries wherever it goes, so it may as well carry a
# better one; nothing on this machine changes. The release is a supported
# stable one, with its own security suite (taken as for this machine's).
#   xz-utils: liblzma 5.6 and later decode NVIDIA's .tar.xz archives
#   (single xz blocks, so one core each) about twice as fast as 5.4, which
#   Debian 12 has: a 189 MB archive of CUDA 13's libcufft in 3.8 s against
#   8.7 s, both built here with musl (issue 15: sysroot create against
#   tar -xJf).
later_sources=("xz-utils 13 trixie")
declare -A apt_of # source package -> its apt directory, if not $aptdir
declare -A security_suite_of # apt directory -> its release's security suite

# The machine's own Debian mirror and keyring, as deb-src entries for the
# release, its point updates and its security suite; nothing else (a
# third-party repository has no sources, and its failure would hide one of
# these). A machine without a security entry still gets the security suite,
# from deb.debian.org.
debian_keyring=/usr/share/keyrings/debian-archive-keyring.gpg

# "URI SUITE" for every deb entry of the machine's apt sources.
machine_apt_entries() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'BEGIN { RS = ""; FS = "\n" }
		{
			types = uris = suites = ""
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^Types:/) types = substr($i, 7)
				else if ($i ~ /^URIs:/) uris = substr($i, 6)
				else if ($i ~ /^Suites:/) suites = substr($i, 8)
			}
			if (types !~ /(^|[ \t])deb([ \t]|$)/) next
			nu = split(uris, u, /[ \t]+/); ns = split(suites, st, /[ \t]+/)
			for (i = 1; i <= nu; i++) for (j = 1; j <= ns; j++)
				if (u[i] != "" && st[j] != "") print u[i], st[j]
		}' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		sed -nE 's/^[[:space:]]*deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+)[[:space:]]+([^[:space:]]+).*/\2 \3/p' "$f"
	done
}

# deb-src entries in apt directory $1 for release $2, its point updates
# and its security suite, from mirror $3 and security archive $4.
write_deb_src() {
	local dir=$1 codename=$2 mirror=$3 security=$4
	mkdir -p "$dir/parts" "$dir/lists/partial" "$dir/cache/archives/partial"
	: >"$dir/sources.list"
	rm -f "$dir/parts/"*
	cat >"$dir/parts/cuda-xcc-src.sources" <<-EOF
		Types: deb-src
		URIs: $mirror
		Suites: $codename $codename-updates
		Components: main
		Signed-By: $debian_keyring

		Types: deb-src
		URIs: $security
		Suites: $codename-security
		Components: main
		Signed-By: $debian_keyring
	EOF
	security_suite_of[$dir]=$codename-security
}

write_apt_sources() {
	local codename release mirror security entry
	local -A written
	# shellcheck source=/dev/null
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	# shellcheck source=/dev/null
	release=$(. /etc/os-release && echo "${VERSION_ID:-}")
	[ -n "$codename" ] || die "cannot tell the Debian release (no VERSION_CODENAME in /etc/os-release)"
	[ -f "$debian_keyring" ] ||
		die "$debian_keyring is missing (on Debian: apt-get install debian-archive-keyring)"
	mirror=$(machine_apt_entries | awk -v s="$codename" '$2 == s { print $1; exit }')
	security=$(machine_apt_entries | awk -v s="$codename-security" '$2 == s { print $1; exit }')
	[ -n "$mirror" ] || die "no '$codename' entry in /etc/apt to take the Debian mirror from"
	if [ -z "$security" ]; then
		security=http://deb.debian.org/debian-security
		log "no '$codename-security' entry in /etc/apt; taking security sources from $security"
	fi
	write_deb_src "$aptdir" "$codename" "$mirror" "$security"
	apt_dirs=("$aptdir")
	# A testing or unstable machine has no VERSION_ID: it is the newest.
	for entry in "${later_sources[@]}"; do
		# shellcheck disable=SC2086 # a list of words
		set -- $entry
		if [ -n "$release" ] && [ "$release" -lt "$2" ]; then
			apt_of[$1]=$cache/apt-$3
			if [ -z "${written[$3]:-}" ]; then
				write_deb_src "$cache/apt-$3" "$3" "$mirror" "$security"
				apt_dirs+=("$cache/apt-$3")
				written[$3]=yes
			fi
		fi
	done
}

apt_update() {
	local dir
	write_apt_sources
	if [ "$offline" = yes ]; then
		return 0
	fi
	for dir in "${apt_dirs[@]}"; do
		apt_in "$dir" apt-get update >"$dir/update.log" 2>&1 ||
			{ cat "$dir/update.log" >&2; die "apt-get update failed (log: $dir/update.log); --offline builds from the lists of the last run"; }
		ls "$dir/lists/"*"_${security_suite_of[$dir]}_"*Sources* >/dev/null 2>&1 ||
			die "apt-get update got no Sources index for ${security_suite_of[$dir]} (log: $dir/update.log)"
	done
}

# The apt directory source package $1 comes from.
apt_dir_of() { echo "${apt_of[$1]:-$aptdir}"; }

# Sorts versions, newest first.
sort_versions() {
	local v sorted=() i j t
	while read -r v; do
		[ -n "$v" ] && sorted+=("$v")
	done
	for ((i = 0; i < ${#sorted[@]}; i++)); do
		for ((j = i + 1; j < ${#sorted[@]}; j++)); do
			if dpkg --compare-versions "${sorted[j]}" gt "${sorted[i]}"; then
				t=${sorted[i]}; sorted[i]=${sorted[j]}; sorted[j]=$t
			fi
		done
	done
	[ ${#sorted[@]} -eq 0 ] || printf '%s\n' "${sorted[@]}"
}

# Versions of source package $1 in the lists, newest first.
src_versions() {
	apt_in "$(apt_dir_of "$1")" apt-cache showsrc --only-source "$1" 2>/dev/null |
		sed -n 's/^Version: //p' | sort -u | sort_versions
}

# The newest version of source package $1 that this machine has binary
# packages of installed (empty if none).
installed_version() {
	dpkg-query -W -f='${db:Status-Abbrev} ${source:Package} ${source:Version}\n' 2>/dev/null |
		awk -v p="$1" '$1 ~ /^.i/ && $2 == p { print $3 }' | sort -u | sort_versions | head -n 1
}

allowed_older() {
	local p
	for p in ${allow_older//,/ }; do
		[ "$p" = "$1" ] && return 0
	done
	return 1
}

# The .dsc of $1 at version $2 (without its epoch).
dsc_path() { echo "$srcdir/${1}_${2#*:}.dsc"; }

# Download source package $1 and print its version: the newest the mirror
# really serves (a mirror may list a version whose files it lacks), but
# never one older than the machine's installed version.
fetch_source() {
	local pkg=$1 v floor
	local -a versions
	floor=$(installed_version "$pkg")
	mapfile -t versions < <(src_versions "$pkg")
	[ ${#versions[@]} -gt 0 ] || die "no source package '$pkg' in the apt lists (see $(apt_dir_of "$pkg")/update.log)"
	for v in "${versions[@]}"; do
		if [ -n "$floor" ] && dpkg --compare-versions "$v" lt "$floor"; then
			allowed_older "$pkg" ||
				die "$pkg: no source of version $floor (installed here) or newer could be downloaded (the lists have: ${versions[*]}; see $srcdir/$pkg.log); refusing to embed an older release. To accept it knowingly: --allow-older $pkg"
			log "WARNING: $pkg $v is older than $floor installed here (--allow-older $pkg)"
		fi
		if [ -f "$(dsc_path "$pkg" "$v")" ] && [ -f "$(dsc_path "$pkg" "$v").ok" ]; then
			echo "$v"
			return 0
		fi
		[ "$offline" = yes ] && continue
		if (cd "$srcdir" && apt_in "$(apt_dir_of "$pkg")" apt-get source --download-only "$pkg=$v") \
			>"$srcdir/$pkg.log" 2>&1; then
			touch "$(dsc_path "$pkg" "$v").ok"
			echo "$v"
			return 0
		fi
		log "$pkg $v: DOWNLOAD FAILED, trying an older version (see $srcdir/$pkg.log)"
	done
	die "could not download any version of source package '$pkg'"
}

# --- the musl toolchain ------------------------------------------------------
# musl-gcc's include path has no Linux kernel headers (libarchive and
# elfutils include <linux/fs.h> and the like); give it the host's, and only those, in a directory of
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
	# elfutils' version, for cuda-xcc --version --verbose.
	install -D -m 644 version.h "$prefix/include/elfutils/version.h"
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

# SHA-256 for cuda-xcc (src/base/sha256.c), as in the normal build. Only
# libnettle: no public-key half (hogweed, which needs GMP), no tools or
# documentation. A fat build picks the SHA-NI code at run time where the
# CPU has it.
build_nettle() {
	configure_static --disable-public-key --disable-documentation --disable-openssl \
		--enable-fat
	make -j"$jobs" libnettle.a nettle.pc
	make install-static install-headers >/dev/null
	install -m 644 nettle.pc "$prefix/lib/pkgconfig/"
}

# The TLS library of the static libcurl: builds in a fraction of OpenSSL's
# time. Only the three static libraries (no programs, tests or shared
# libraries), thread-safe as curl's threaded resolver needs. curl finds it
# by --with-mbedtls; nothing else links it directly, so it needs no .pc.
build_mbedtls() {
	# Its getrandom() call is compiled for glibc only; musl has the same
	# syscall(), and without it mbedTLS reads /dev/urandom, which an empty
	# root (or a container without /dev) lacks: every TLS handshake failed.
	sed -i 's/((defined(__linux__) && defined(__GLIBC__)) ||/(defined(__linux__) ||/' \
		library/entropy_poll.c
	grep -q '^#if (defined(__linux__) || defined(__midipix__))' library/entropy_poll.c ||
		{ echo "library/entropy_poll.c: the getrandom() test was not found" >&2; return 1; }
	python3 scripts/config.py set MBEDTLS_THREADING_C
	python3 scripts/config.py set MBEDTLS_THREADING_PTHREAD
	make -C library -j"$jobs" static
	mkdir -p "$prefix/include"
	cp -R include/mbedtls include/psa "$prefix/include/"
	cp library/libmbedcrypto.a library/libmbedx509.a library/libmbedtls.a "$prefix/lib/"
}

# HTTP and HTTPS over mbedTLS (fetch reads file:// URLs itself); every
# other protocol, optional dependency and feature cuda-xcc does not use
# off. No CA places are compiled in: src/pkg/fetch.c names the system's
# (SSL_CERT_FILE and SSL_CERT_DIR first), where the binary runs.
build_curl() {
	# Debian applies its GnuTLS and NSS flavour patches last and pops them
	# for its OpenSSL build; so does this.
	local p
	for p in 99_nss.patch 90_gnutls.patch; do
		patch -R -p1 -s <"debian/patches/$p"
		sed -i "/^$p\$/d" debian/patches/series
	done
	# Debian's other build-file patches touch zsh completion, GSSAPI and
	# LDAP, all off here; curl keeps maintainer mode off, so the shipped
	# configure is used as is (autoreconf would add ~10 s to a cold build).
	no_regen=yes \
	configure_static --with-mbedtls="$prefix" --without-openssl --without-zlib \
		--without-brotli --without-zstd --without-libpsl --without-libidn2 \
		--without-nghttp2 --without-nghttp3 --without-ngtcp2 --without-libssh2 \
		--without-libssh --without-librtmp --without-libgsasl --disable-ldap \
		--disable-ldaps --disable-rtsp --disable-dict --disable-telnet --disable-tftp \
		--disable-pop3 --disable-imap --disable-smb --disable-smtp --disable-gopher \
		--disable-mqtt --disable-ftp --disable-file --disable-manual --disable-ntlm \
		--disable-ntlm-wb --disable-alt-svc --disable-hsts --disable-docs \
		--disable-unix-sockets --disable-cookies --disable-mime --disable-doh \
		--disable-netrc --disable-headers-api --disable-aws --disable-kerberos-auth \
		--disable-negotiate-auth --disable-tls-srp --without-ca-bundle \
		--without-ca-path --enable-threaded-resolver
	make -C lib -j"$jobs" libcurl.la
	make -C lib install-libLTLIBRARIES >/dev/null
	make -C include install >/dev/null
	make install-pkgconfigDATA >/dev/null
}

# name, Debian source package, libraries it builds on; the longest chains
# first, so that they start first.
libraries=(
	"mbedtls mbedtls"
	"curl curl mbedtls"
	"zlib zlib"
	"xz xz-utils"
	"zstd libzstd"
	"libarchive libarchive zlib xz zstd"
	"libelf elfutils zlib"
	"nettle nettle"
	"cjson cjson"
)

start=$(date +%s)
apt_update

# Fetch every source and compute every key first (quick, one at a time:
# apt and the keys are shared), then build what is out of date.
declare -A key version older pkg_of deps_of
todo=()
for entry in "${libraries[@]}"; do
	# shellcheck disable=SC2086 # a list of words
	set -- $entry
	name=$1 pkg=$2
	shift 2
	pkg_of[$name]=$pkg
	deps_of[$name]="$*"
	v=$(fetch_source "$pkg")
	version[$name]=$v
	floor=$(installed_version "$pkg")
	if [ -n "$floor" ] && dpkg --compare-versions "$v" lt "$floor"; then
		older[$name]=" (OLDER than $floor, installed on the build machine)"
	fi
	k="$pkg $v
$(declare -f "build_$name" configure_static)
$toolchain_id"
	for dep in "$@"; do
		k="$k
$dep ${key[$dep]}"
	done
	k=$(printf '%s' "$k" | sha256sum | cut -d' ' -f1)
	key[$name]=$k
	if [ "$(cat "$stampdir/$name" 2>/dev/null)" = "$k" ]; then
		log "$name $v: up to date"
	else
		rm -f "$stampdir/$name"
		todo+=("$name")
	fi
done

# One library, in a subshell of its own (run in the background).
build_one() {
	local name=$1 pkg=${pkg_of[$1]} v=${version[$1]} tree=$workdir/$1 t0=$SECONDS
	log "$name $v: building"
	rm -rf "$tree"
	dpkg-source -x "$(dsc_path "$pkg" "$v")" "$tree" >"$workdir/$name.unpack.log" 2>&1 ||
		{ cat "$workdir/$name.unpack.log" >&2; die "$name: dpkg-source -x failed"; }
	(cd "$tree" && "build_$name") >"$workdir/$name.build.log" 2>&1 ||
		{ tail -n 60 "$workdir/$name.build.log" >&2; die "$name $v: build failed (log: $workdir/$name.build.log)"; }
	echo "${key[$name]}" >"$stampdir/$name"
	# dpkg-source leaves the upstream tarballs beside the tree.
	rm -rf "$tree" "$workdir/${pkg}_"*
	# The CPU time of this subshell's children (times' second line), from
	# a file: in a command substitution times would report that subshell.
	times >"$workdir/$name.times"
	log "$name $v: built in $((SECONDS - t0)) s, $(awk 'NR == 2 {
		split($1, u, /[ms]/); split($2, s, /[ms]/)
		printf "%.0f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$workdir/$name.times") s of CPU"
	rm -f "$workdir/$name.times"
}

# Independent libraries build side by side (configure scripts run on one
# core; two builds keep both busy), at most $jobs at once, each started as
# soon as the libraries it builds on are done.
declare -A state pid_of
for name in "${todo[@]}"; do state[$name]=waiting; done
running=0 failed=
while :; do
	for name in "${todo[@]}"; do
		if [ "${state[$name]}" != waiting ] || [ -n "$failed" ]; then
			continue
		fi
		[ "$running" -lt "$jobs" ] || break
		ready=yes
		for dep in ${deps_of[$name]}; do
			[ "${state[$dep]:-built}" = built ] || ready=no
		done
		[ "$ready" = yes ] || continue
		build_one "$name" &
		pid_of[$!]=$name
		state[$name]=running
		running=$((running + 1))
	done
	[ "$running" -gt 0 ] || break
	finished=
	if wait -n -p finished; then
		state[${pid_of[$finished]}]=built
	else
		state[${pid_of[$finished]}]=failed
		failed=${pid_of[$finished]}
	fi
	running=$((running - 1))
done
[ -z "$failed" ] || die "$failed: build failed; nothing after it was built"
for name in "${todo[@]}"; do
	[ "${state[$name]}" = built ] || die "$name was not built"
done

# --- cuda-xcc itself -----------------------------------------------------------
[ -x "$top/configure" ] || (cd "$top" && autoreconf -fi)
# The Debian source packages the binary embeds, for --version --verbose.
embedded="musl $(dpkg-query -W -f='${Version}' musl-dev 2>/dev/null || echo '?')"
for entry in "${libraries[@]}"; do
	# shellcheck disable=SC2086 # a list of words
	set -- $entry
	embedded="$embedded; $2 ${version[$1]}${older[$1]:-}${apt_of[$2]:+ (Debian ${apt_of[$2]##*/apt-})}"
done
conf_args=(--enable-static-binary CC=musl-gcc XCC_EMBEDDED_SOURCES="$embedded"
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
make -j"$jobs" src/cuda-xcc tests/helper/test-tool >make.out 2>&1 ||
	{ tail -n 40 make.out >&2; die "cuda-xcc: build failed (log: $builddir/make.out)"; }
bin=$builddir/src/cuda-xcc

echo "Static cuda-xcc built with musl $(dpkg-query -W -f='${Version}' musl-dev 2>/dev/null || echo '?') in $(($(date +%s) - start)) s from Debian sources:"
for entry in "${libraries[@]}"; do
	# shellcheck disable=SC2086 # a list of words
	set -- $entry
	printf '  %-10s %-10s %s\n' "$1" "$2" "${version[$1]}${older[$1]:-}${apt_of[$2]:+ (Debian ${apt_of[$2]##*/apt-})}"
done
echo "binary: $bin ($(stat -c %s "$bin") bytes)"
