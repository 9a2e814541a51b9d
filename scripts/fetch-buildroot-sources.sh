#!/bin/bash
# Sources for Buildroot's host packages that host-cuda-xcc needs, from Debian's
# source packages, for a build machine that reaches only Debian's archive.
#
#   scripts/fetch-buildroot-sources.sh --buildroot DIR [--cache DIR] [--offline]
#
# Prints the path of a local.mk for Buildroot (BR2_PACKAGE_OVERRIDE_FILE) and
# of the download directory (BR2_DL_DIR), one per line.
#
# For each host package: Debian's copy of the upstream release (the orig
# tarball, which apt checked against the archive's signed Sources index).
# Where it is the very file Buildroot's .hash names, it goes into the download
# directory and Buildroot uses it as if it had downloaded it: its hash check
# and its patches apply. Otherwise (another version, or Debian repacked it)
# it is unpacked with Buildroot's patches for the package applied, as Buildroot
# would do, and named by HOST_<PKG>_OVERRIDE_SRCDIR; a patch that does not
# apply to that version is left out and listed in the tree's
# .buildroot-patches-not-applied. The versions are pinned (below): Debian 13
# (trixie) has the ones closest to Buildroot's; where the archive lacks a .dsc
# of the newest, an older revision of the same upstream release is taken.
#
# Cache layout (default /var/cache/cuda-xcc/buildroot-sources):
#   apt/     a private apt configuration (deb-src of bookworm and trixie)
#   debian/  the source packages as downloaded
#   dl/      BR2_DL_DIR: the orig tarballs Buildroot's hashes accept
#   src/     the prepared override trees, one per package and version
#   local.mk the override file
set -euo pipefail

usage() {
	sed -n '5,5p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit "${1:-2}"
}

cache=/var/cache/cuda-xcc/buildroot-sources
buildroot=
offline=no
while [ $# -gt 0 ]; do
	case "$1" in
	--cache) [ $# -ge 2 ] || usage; cache=$2; shift 2 ;;
	--buildroot) [ $# -ge 2 ] || usage; buildroot=$2; shift 2 ;;
	--offline) offline=yes; shift ;;
	-h|--help) usage 0 ;;
	*) echo "fetch-buildroot-sources.sh: unknown argument '$1'" >&2; usage ;;
	esac
done
die() { echo "fetch-buildroot-sources.sh: $*" >&2; exit 1; }
[ -n "$buildroot" ] || usage
[ -f "$buildroot/package/pkg-generic.mk" ] || die "$buildroot is not a Buildroot tree (no package/pkg-generic.mk)"
buildroot=$(cd "$buildroot" && pwd)
for tool in apt-get sha256sum patch tar; do
	command -v "$tool" >/dev/null || die "$tool is not installed"
done

# Buildroot package (its directory under package/), Debian source package and
# version, then what the tree needs beyond Buildroot's own patches:
# "debian-patches": Debian's patches too (gmp: Debian's repack drops doc/,
# and its patch takes it out of the Makefiles, which Buildroot's autoreconf
# would otherwise stop at); "autoreconf": the orig tarball is a snapshot of
# the repository with no ./configure, so local.mk has Buildroot make one
# (HOST_<PKG>_AUTORECONF). Every host package host-cuda-xcc pulls in (make
# host-cuda-xcc-show-recursive-depends) but host-skeleton, which has no
# source, and host-patchelf, which every Buildroot build makes (its
# finalize steps run support/scripts/fix-rpath with it).
#
# patchelf: Debian has 0.14.3 (bookworm) and 0.18.0 (trixie), not
# Buildroot's 0.13, and Buildroot's patch that adds --make-rpath-relative
# applies to neither: fix-rpath then fails on every file and, as it ignores
# errors, leaves the RPATHs as the packages' builds set them (the test
# checks the target's programs for paths of the build machine itself).
sources=(
	"tar tar 1.35+dfsg-3.1"
	"bzip2 bzip2 1.0.8-6"
	"autoconf autoconf 2.71-3"
	"automake automake-1.16 1:1.16.5-1.3"
	"libtool libtool 2.4.7-7~deb12u1"
	"m4 m4 1.4.19-3"
	"pkgconf pkgconf 1.8.1-1"
	"libzlib zlib 1:1.3.dfsg+really1.3.1-1"
	"libopenssl openssl 3.5.7-1~deb13u2"
	"gmp gmp 2:6.3.0+dfsg-3 debian-patches"
	"nettle nettle 3.10.1-1"
	"cjson cjson 1.7.18-3.1+deb13u1"
	"elfutils elfutils 0.192-4"
	"libarchive libarchive 3.7.4-4+deb13u1"
	"libcurl curl 8.14.1-2+deb13u5"
	"xz xz-utils 5.8.1-1+deb13u1"
	"zstd libzstd 1.5.7+dfsg-1"
	"patchelf patchelf 0.14.3-1 autoreconf"
)

mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
aptdir=$cache/apt debdir=$cache/debian dldir=$cache/dl srcroot=$cache/src
mkdir -p "$aptdir/lists/partial" "$aptdir/cache" "$debdir" "$dldir" "$srcroot"
exec 9>"$cache/.lock"
flock 9

keyring=/usr/share/keyrings/debian-archive-keyring.gpg
apt_opts=(
	-o "Dir::Etc::SourceList=$aptdir/sources.list"
	-o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$aptdir/lists"
	-o "Dir::Cache=$aptdir/cache"
	-o Debug::NoLocking=1
	-q
)
[ "$(id -u)" = 0 ] && apt_opts+=(-o APT::Sandbox::User=root)

# The orig tarball of a downloaded source package (its .dsc lists it).
orig_of() {
	local dsc=$1
	sed -n '/^Files:/,/^[^ ]/p' "$dsc" | awk 'NF == 3 { print $3 }' |
		grep -E '\.orig\.tar\.[a-z0-9]+$' | head -n 1
}

dsc_name() { local v=${2#*:}; echo "${1}_${v}.dsc"; }

missing=()
for entry in "${sources[@]}"; do
	read -r _ src ver _ <<<"$entry"
	[ -f "$debdir/$(dsc_name "$src" "$ver").ok" ] || missing+=("$src=$ver")
done
if [ ${#missing[@]} -gt 0 ]; then
	[ "$offline" = no ] || die "--offline, but the cache lacks: ${missing[*]}"
	[ -r "$keyring" ] || die "$keyring is missing (apt-get install debian-archive-keyring)"
	mirror=$(apt-get indextargets --format '$(REPO_URI)' 2>/dev/null | grep -m1 '/debian/$' || true)
	: "${mirror:=http://deb.debian.org/debian/}"
	printf 'deb-src [signed-by=%s] %s %s main\n' "$keyring" "$mirror" bookworm \
		"$keyring" "$mirror" trixie >"$aptdir/sources.list"
	apt-get "${apt_opts[@]}" update >"$aptdir/update.log" 2>&1 ||
		{ cat "$aptdir/update.log" >&2; die "apt-get update failed"; }
	for p in "${missing[@]}"; do
		(cd "$debdir" && apt-get "${apt_opts[@]}" source --download-only "$p") >"$debdir/${p%%=*}.log" 2>&1 ||
			die "could not download source package $p (see $debdir/${p%%=*}.log)"
		touch "$debdir/$(dsc_name "${p%%=*}" "${p#*=}").ok"
	done
fi

overrides=()
for entry in "${sources[@]}"; do
	read -r brpkg src ver how <<<"$entry"
	var=HOST_$(echo "$brpkg" | tr 'a-z-' 'A-Z_')
	dsc=$debdir/$(dsc_name "$src" "$ver")
	orig=$(orig_of "$dsc")
	[ -n "$orig" ] && [ -f "$debdir/$orig" ] || die "$dsc names no orig tarball that was downloaded"
	sum=$(sha256sum "$debdir/$orig" | cut -d' ' -f1)
	hashfile=$buildroot/package/$brpkg/$brpkg.hash
	brfile=$(awk -v h="$sum" '$1 == "sha256" && $2 == h { print $3; exit }' "$hashfile" 2>/dev/null || true)
	if [ -n "$brfile" ]; then
		mkdir -p "$dldir/$brpkg"
		[ -f "$dldir/$brpkg/$brfile" ] || cp "$debdir/$orig" "$dldir/$brpkg/$brfile"
		continue
	fi
	# The tree depends on the orig tarball and on Buildroot's patches.
	key=$( { echo "$sum $how"; cat "$buildroot/package/$brpkg/"*.patch 2>/dev/null || true; } | sha256sum | cut -c1-12)
	tree=$srcroot/$brpkg-${ver#*:}-$key
	if [ ! -f "$tree/.buildroot-prepared" ]; then
		rm -rf "$tree" "$tree.tmp"
		if [[ " $how " = *" debian-patches "* ]]; then
			command -v dpkg-source >/dev/null || die "dpkg-source is not installed (apt-get install dpkg-dev)"
			dpkg-source --no-copy -x "$dsc" "$tree.tmp" >"$debdir/$src.unpack.log" 2>&1 ||
				die "dpkg-source -x $dsc failed (see $debdir/$src.unpack.log)"
		else
			mkdir -p "$tree.tmp"
			tar -xf "$debdir/$orig" -C "$tree.tmp" --strip-components=1
		fi
		: >"$tree.tmp/.buildroot-patches-not-applied"
		for p in "$buildroot/package/$brpkg/"*.patch; do
			[ -f "$p" ] || continue
			if (cd "$tree.tmp" && patch -p1 -s --dry-run <"$p" >/dev/null 2>&1); then
				(cd "$tree.tmp" && patch -p1 -s <"$p" >/dev/null)
			else
				basename "$p" >>"$tree.tmp/.buildroot-patches-not-applied"
			fi
		done
		touch "$tree.tmp/.buildroot-prepared"
		mv "$tree.tmp" "$tree"
	fi
	if [ -s "$tree/.buildroot-patches-not-applied" ]; then
		echo "fetch-buildroot-sources: host-$brpkg: Buildroot's patches that do not apply to $orig, left out:" \
			"$(tr '\n' ' ' <"$tree/.buildroot-patches-not-applied")" >&2
	fi
	overrides+=("${var}_OVERRIDE_SRCDIR = $tree")
	[[ " $how " != *" autoreconf "* ]] || overrides+=("${var}_AUTORECONF = YES")
	# cuda-xcc's own libarchive (wrappers/buildroot) is built from the same source.
	[ "$brpkg" != libarchive ] || overrides+=("HOST_CUDA_XCC_LIBARCHIVE_OVERRIDE_SRCDIR = $tree")
done

printf '%s\n' "# Written by cuda-xcc's scripts/fetch-buildroot-sources.sh" "${overrides[@]}" \
	>"$cache/local.mk.tmp"
mv "$cache/local.mk.tmp" "$cache/local.mk"
echo "$cache/local.mk"
echo "$dldir"
