#!/bin/bash
# The unpack module alone (the suite's `test-tool unpack`) against the reference
# extractors, on the same input in one run: `tar -xJf` for a redist-shaped
# .tar.xz, `dpkg-deb -x` for .deb packages. Prints wall times, peak RSS and
# the ratios (below 1.0: cuda-xcc is faster).
#
#   bench/unpack.sh [--test-tool PATH] [--lib DIR] [--mb N] [--deb FILE]... [--tmp DIR]
#
# --lib DIR, --mb N: pack about N MB of files from DIR (default: this
# machine's /usr/local/cuda/lib64, 200 MB) into one
# <name>-linux-x86_64-<ver>-archive.tar.xz the way NVIDIA ships them.
# --deb FILE: also time FILE against dpkg-deb -x (e.g. the cached Debian
# CUDA packages from scripts/fetch-debian-cuda.sh).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
xcc=${XCC_TEST_TOOL:-$top/build/tests/helper/test-tool}
lib=/usr/local/cuda/lib64
mb=200
tmp=${TMPDIR:-/tmp}
debs=()
while [ $# -gt 0 ]; do
	case "$1" in
	--test-tool) xcc=$2; shift 2 ;;
	--lib) lib=$2; shift 2 ;;
	--mb) mb=$2; shift 2 ;;
	--deb) debs+=("$2"); shift 2 ;;
	--tmp) tmp=$2; shift 2 ;;
	*) sed -n '2,14p' "$0" >&2; exit 2 ;;
	esac
done
[ -x "$xcc" ] || { echo "$0: $xcc is not built (make check builds it; or pass --test-tool PATH)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "$0: /usr/bin/time (GNU time) is needed for peak RSS" >&2; exit 2; }

work=$(mktemp -d "$tmp/bench-unpack.XXXXXX")
trap 'rm -rf "$work"' EXIT

# measure NAME CMD...: wall seconds and peak RSS (KiB) into $wall and $rss.
measure() {
	local name=$1
	shift
	/usr/bin/time -f '%e %M' -o "$work/time" "$@" >/dev/null
	read -r wall rss <"$work/time"
	printf '%-28s %8.2f s %8d KiB\n' "$name" "$wall" "$rss"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

name=bench_lib-linux-x86_64-1.0-archive
mkdir -p "$work/src/$name/lib"
total=0
for f in "$lib"/*; do
	[ -f "$f" ] && [ ! -L "$f" ] || continue
	size=$(stat -c %s "$f")
	[ $((total + size)) -le $((mb * 1000000)) ] || continue
	cp "$f" "$work/src/$name/lib/"
	total=$((total + size))
done
[ "$total" -gt 0 ] || { echo "$0: nothing to pack from $lib" >&2; exit 2; }
echo "packing $((total / 1000000)) MB from $lib ..."
tar -C "$work/src" -cJf "$work/$name.tar.xz" "$name"
rm -rf "$work/src"
cat "$work/$name.tar.xz" >/dev/null

mkdir "$work/a" "$work/b"
measure "tar -xJf" tar -C "$work/a" -xJf "$work/$name.tar.xz"
t_tar=$wall
measure "test-tool unpack" "$xcc" unpack "$work/$name.tar.xz" "$work/b"
t_xcc=$wall
diff -r "$work/a" "$work/b" >/dev/null || { echo "$0: the trees differ" >&2; exit 1; }
echo "redist .tar.xz: ratio $(ratio "$t_xcc" "$t_tar") (cuda-xcc / tar), peak RSS $rss KiB"
rm -rf "$work/a" "$work/b"

for deb in "${debs[@]}"; do
	mkdir "$work/a" "$work/b"
	cat "$deb" >/dev/null
	measure "dpkg-deb -x $(basename "$deb" | cut -d_ -f1)" dpkg-deb -x "$deb" "$work/a"
	t_dpkg=$wall
	# Debian's absolute nvcc.profile symlink is refused unless skipped.
	measure "test-tool unpack" "$xcc" unpack \
		--skip usr/lib/nvidia-cuda-toolkit/bin/nvcc.profile "$deb" "$work/b"
	t_xcc=$wall
	echo "$(basename "$deb"): ratio $(ratio "$t_xcc" "$t_dpkg") (cuda-xcc / dpkg-deb), peak RSS $rss KiB"
	rm -rf "$work/a" "$work/b"
done
