#!/bin/bash
# Make a minimal device root filesystem for `cuda-xcc --target-fs` from Debian's arm64
# packages of a release whose C library matches the board's, with no board at hand.
#
#   scripts/fetch-target-root.sh [--release bullseye] --dest DIR [--cache DIR]
#   scripts/fetch-target-root.sh [--release bullseye] --fetch-only [--cache DIR]
#
# --release bullseye (the default): Debian 11, glibc 2.31 and GCC 10's libstdc++ (up to
#   GLIBCXX_3.4.28), as on JetPack 5 (Ubuntu 20.04: glibc 2.31). Programs linked against
#   it need nothing newer than the board has. About 7 MB of packages, cached in
#   $XCC_DEB_CACHE_BULLSEYE or /var/cache/cuda-xcc/debs-bullseye.
# --dest DIR: where the root is made; it must not exist yet (or be empty). The packages are
#   unpacked with dpkg-deb into a directory beside it, which is renamed to DIR when complete.
# --fetch-only: only download the packages into the cache and print their paths.
#
# The root is kept exactly as Debian ships it, absolute symlinks included
# (usr/lib/aarch64-linux-gnu/libpthread.so -> /lib/aarch64-linux-gnu/libpthread.so.0):
# cuda-xcc resolves those inside the root itself, as it must for a board's own root.
# Prints DIR on stdout. Packages come through a private apt configuration
# (scripts/debian-fetch.bash): nothing is installed on this machine.
set -euo pipefail

usage="usage: $0 [--release bullseye] --dest DIR|--fetch-only [--cache DIR]"
release=bullseye
cache=
dest=
fetch_only=
# shellcheck source=scripts/debian-fetch.bash
. "$(dirname "$0")/debian-fetch.bash"
debian_dest_options "$usage" 2,21 "$@"

# Pinned versions: the release's own suite (not -security), whose last point release is
# final, so a root made today and one made next year are the same.
case "$release" in
bullseye)
	suite=bullseye
	[ -n "$cache" ] || cache=${XCC_DEB_CACHE_BULLSEYE:-/var/cache/cuda-xcc/debs-bullseye}
	# What linking C, C++ and CUDA programs reads from the root: the C library and its
	# development files (start files, libc.so, libpthread.so, headers), the kernel headers
	# they include, libcrypt (libc6 and libc6-dev depend on it), and the C++ and GCC
	# runtimes the programs load. g++'s own libstdc++ headers and libgcc come with the
	# cross compiler; the runtimes here are the floor the programs are checked against.
	packages=(
		libc6:arm64=2.31-13+deb11u11
		libc6-dev:arm64=2.31-13+deb11u11
		linux-libc-dev:arm64=5.10.223-1
		libcrypt1:arm64=1:4.4.18-4
		libcrypt-dev:arm64=1:4.4.18-4
		libstdc++6:arm64=10.2.1-6
		libgcc-s1:arm64=10.2.1-6
	)
	;;
*) echo "$0: unknown release '$release': bullseye (Debian 11, glibc 2.31, as JetPack 5)" >&2; exit 2 ;;
esac

if [ -z "$dest" ] && [ -z "$fetch_only" ]; then
	echo "$0: --dest DIR is required ($usage)" >&2
	exit 2
fi
# Nothing is lost: an existing root (perhaps edited by hand) is never overwritten.
if [ -n "$dest" ] && [ -e "$dest" ] && [ -n "$(ls -A "$dest" 2>/dev/null || echo x)" ]; then
	echo "$0: $dest exists and is not empty: remove it or choose another --dest" >&2
	exit 2
fi
command -v dpkg-deb >/dev/null || { echo "$0: dpkg-deb not found: this script needs a Debian-like system" >&2; exit 1; }

mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
debian_fetch fetch-target-root "$suite" "$cache" "${packages[@]}"
if [ -n "$fetch_only" ]; then
	for p in "${packages[@]}"; do
		echo "$cache/$(debian_deb_name "$p")"
	done
	exit 0
fi

mkdir -p "$(dirname "$dest")"
parent=$(cd "$(dirname "$dest")" && pwd)
dest=$parent/$(basename "$dest")
work=$(mktemp -d "$parent/.target-root.XXXXXX")
trap 'rm -rf "$work"' EXIT
for p in "${packages[@]}"; do
	dpkg-deb -x "$cache/$(debian_deb_name "$p")" "$work"
done
chmod 755 "$work"
[ -d "$dest" ] && rmdir "$dest"
mv "$work" "$dest"
trap - EXIT
echo "$dest"
