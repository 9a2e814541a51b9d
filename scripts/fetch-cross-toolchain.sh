#!/bin/bash
# Unpack the aarch64 cross g++ of one Debian release into a directory, so that programs
# built with it need no glibc and no libstdc++ newer than that release's: the toolchain
# matched to a board (cuda-xcc sysroot create names the release for a --jetpack or a
# --target-fs root; sysroots/toolchains.json has each release's versions).
#
#   scripts/fetch-cross-toolchain.sh --release bullseye|bookworm [--dest DIR] [--cache DIR]
#   scripts/fetch-cross-toolchain.sh --release R --fetch-only [--cache DIR]
#
# --release bullseye: gcc 10, glibc 2.31, libstdc++ up to GLIBCXX_3.4.28 (JetPack 5 exactly;
#   the newest Debian toolchain not above JetPack 6's glibc 2.35). About 150 MB of packages.
# --release bookworm: gcc 12, glibc 2.36, GLIBCXX_3.4.30 (not above JetPack 7's 2.39).
# --dest DIR: where the toolchain goes (default: $XDG_CACHE_HOME/cuda-xcc/toolchains/R, or
#   ~/.cache/cuda-xcc/toolchains/R, where sysroot create looks for it). It must not exist
#   yet, or be empty; the packages are unpacked beside it and renamed into place when
#   complete, so an interrupted run leaves nothing half made.
# --cache DIR: the package cache (default $XCC_DEB_CACHE_TOOLCHAINS or
#   /var/cache/cuda-xcc/debs-toolchains); a second run downloads nothing.
# --fetch-only: only download the packages into the cache and print their paths.
#
# DIR/bin/aarch64-linux-gnu-gcc-N and -g++-N start the release's compiler with --sysroot=DIR,
# so that the absolute paths in its own libc.so script resolve inside DIR (a later
# --sysroot, as cuda-xcc gives for --target-fs, replaces it). The assembler and linker are
# the build machine's (binutils-aarch64-linux-gnu): which binutils assembles and links adds
# no version need to a program, and an older release's binutils would need its private
# libraries found at run time. Prints the g++ path.
# Packages come through a private apt configuration (scripts/debian-fetch.bash): nothing
# is installed on this machine.
set -euo pipefail

usage="usage: $0 --release bullseye|bookworm [--dest DIR|--fetch-only] [--cache DIR]"
release=
cache=${XCC_DEB_CACHE_TOOLCHAINS:-/var/cache/cuda-xcc/debs-toolchains}
dest=
fetch_only=
# shellcheck source=scripts/debian-fetch.bash
. "$(dirname "$0")/debian-fetch.bash"
debian_dest_options "$usage" 2,28 "$@"

# Pinned versions of the release's own suite, whose last point release is final: a
# toolchain made today and one made next year are the same. They match toolchains.json.
case "$release" in
bullseye) gcc=10 v=10.2.1-6cross1 libc=2.31-9cross4 linux=5.10.13-1cross4 ;;
bookworm) gcc=12 v=12.2.0-14cross1 libc=2.36-8cross1 linux=6.1.4-1cross1 ;;
'') echo "$0: --release is required: bullseye (glibc 2.31) or bookworm (glibc 2.36) ($usage)" >&2; exit 2 ;;
*) echo "$0: unknown release '$release': bullseye (glibc 2.31) or bookworm (glibc 2.36)" >&2; exit 2 ;;
esac
packages=(
	"g++-$gcc-aarch64-linux-gnu:amd64=$v" "gcc-$gcc-aarch64-linux-gnu:amd64=$v"
	"cpp-$gcc-aarch64-linux-gnu:amd64=$v" "gcc-$gcc-aarch64-linux-gnu-base:amd64=$v"
	"libstdc++-$gcc-dev-arm64-cross:all=$v" "libgcc-$gcc-dev-arm64-cross:all=$v"
	"libstdc++6-arm64-cross:all=$v" "libgcc-s1-arm64-cross:all=$v" "libatomic1-arm64-cross:all=$v"
	"libc6-dev-arm64-cross:all=$libc" "libc6-arm64-cross:all=$libc"
	"linux-libc-dev-arm64-cross:all=$linux"
)

if [ -z "$fetch_only" ] && [ -z "$dest" ]; then
	dest=${XDG_CACHE_HOME:-${HOME:?}/.cache}/cuda-xcc/toolchains/$release
fi
# Nothing is lost: an existing directory (perhaps a toolchain in use) is never overwritten.
if [ -n "$dest" ] && [ -e "$dest" ] && [ -n "$(ls -A "$dest" 2>/dev/null || echo x)" ]; then
	echo "$0: $dest exists and is not empty: remove it or choose another --dest" >&2
	exit 2
fi
command -v dpkg-deb >/dev/null || { echo "$0: dpkg-deb not found: this script needs a Debian-like system" >&2; exit 1; }

debian_fetch fetch-cross-toolchain "$release" "$cache" "${packages[@]}"
cache=$(cd "$cache" && pwd)
if [ -n "$fetch_only" ]; then
	for p in "${packages[@]}"; do echo "$cache/$(debian_deb_name "$p")"; done
	exit 0
fi

mkdir -p "$(dirname "$dest")"
dest=$(cd "$(dirname "$dest")" && pwd)/$(basename "$dest")
tmp=$(mktemp -d "$dest.tmp.XXXXXX")
# shellcheck disable=SC2064 # the directory is known now; the trap runs at exit
trap "rm -rf '$tmp'" EXIT
for p in "${packages[@]}"; do
	dpkg-deb -x "$cache/$(debian_deb_name "$p")" "$tmp"
done
# The release's gcc looks for as and ld in its own tooldir (usr/aarch64-linux-gnu/bin,
# found relative to itself) before PATH, where a plain 'as' would be the x86_64 one.
mkdir -p "$tmp/usr/aarch64-linux-gnu/bin" "$tmp/bin"
for tool in as ld ld.bfd ar nm objcopy objdump ranlib readelf strip; do
	if ! real=$(command -v "aarch64-linux-gnu-$tool"); then
		[ "$tool" != as ] && [ "$tool" != ld ] && continue
		echo "$0: aarch64-linux-gnu-$tool not found: apt-get install binutils-aarch64-linux-gnu" >&2
		exit 1
	fi
	ln -s "$real" "$tmp/usr/aarch64-linux-gnu/bin/$tool"
	ln -s "$real" "$tmp/bin/aarch64-linux-gnu-$tool"
done
for tool in gcc g++ cpp; do
	# The directory is found from the script's own path, so the tree can be moved.
	cat > "$tmp/bin/aarch64-linux-gnu-$tool-$gcc" <<EOF
#!/bin/sh
# Debian $release's aarch64-linux-gnu-$tool-$gcc with its own C library as the sysroot.
here=\$(dirname "\$(readlink -f "\$0")")/..
exec "\$here/usr/bin/aarch64-linux-gnu-$tool-$gcc" --sysroot="\$here" "\$@"
EOF
	chmod 755 "$tmp/bin/aarch64-linux-gnu-$tool-$gcc"
done
printf 'debian=%s\ngcc=%s\n' "$release" "$gcc" > "$tmp/cuda-xcc-toolchain"
"$tmp/bin/aarch64-linux-gnu-g++-$gcc" -dumpmachine >/dev/null ||
	{ echo "$0: the unpacked g++ does not run on this machine" >&2; exit 1; }
if [ -d "$dest" ]; then rmdir "$dest"; fi
mv "$tmp" "$dest"
trap - EXIT
echo "$dest/bin/aarch64-linux-gnu-g++-$gcc"
