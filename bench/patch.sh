#!/bin/bash
# cuda-xcc patchelf against Debian's patchelf, in one run, on copies of the same
# files (default: the real CUDA libraries in /usr/local/cuda/targets/x86_64-linux/lib).
# Prints each time and the ratio patchelf / cuda-xcc (above 1.0: cuda-xcc is faster),
# and how much each grew the tree.
#
#   bench/patch.sh [--cuda-xcc PATH] [--libs DIR] [--tmp DIR] [--runs N]
#
# Goals (issue 4): --set-rpath over all files in one process >= 10x patchelf run per
# file; one cuda-xcc process per file >= 5x; --print-needed >= 20x.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
xcc=${CUDA_XCC:-$top/build/src/cuda-xcc}
libs=/usr/local/cuda/targets/x86_64-linux/lib
tmp=${TMPDIR:-/tmp}
runs=1
while [ $# -gt 0 ]; do
	case "$1" in
	--cuda-xcc) xcc=$2; shift 2 ;;
	--libs) libs=$2; shift 2 ;;
	--tmp) tmp=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	*) echo "usage: $0 [--cuda-xcc PATH] [--libs DIR] [--tmp DIR] [--runs N]" >&2; exit 2 ;;
	esac
done
[ -x "$xcc" ] || { echo "$0: $xcc is not built (pass --cuda-xcc PATH)" >&2; exit 2; }
command -v patchelf >/dev/null || { echo "$0: patchelf (the reference) is missing" >&2; exit 2; }
[ -d "$libs" ] || { echo "$0: $libs does not exist (pass --libs DIR)" >&2; exit 2; }

work=$(mktemp -d "$tmp/bench-patch.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The regular ELF shared objects (symlinks and archives left out), as patchelf sees them.
files=()
for f in "$libs"/*.so*; do
	[ -f "$f" ] && [ ! -L "$f" ] || continue
	[ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
	files+=("$(basename "$f")")
done
[ ${#files[@]} -gt 0 ] || { echo "$0: no shared objects in $libs" >&2; exit 2; }
total=$(cd "$libs" && du -cb "${files[@]}" | tail -1 | cut -f1)
echo "files: ${#files[@]} shared objects, $((total / 1048576)) MiB, from $libs"

rpath='$ORIGIN:$ORIGIN/../lib64:/opt/cuda-xcc/bench/a/longer/path/than/any/library/has'

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }'; }
copy() { rm -rf "$1"; mkdir -p "$1"; (cd "$libs" && cp "${files[@]}" "$1/"); sync; }
size_of() { du -cb "$1"/* | tail -1 | cut -f1; }
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b < a) ? b : a }'; }

# The inputs come from the page cache on every side.
(cd "$libs" && cat "${files[@]}" > /dev/null)

t_pe_set= t_one= t_each= t_pe_print= t_print=
for ((i = 1; i <= runs; i++)); do
	copy "$work/pe"
	t0=$(now)
	for f in "${files[@]}"; do patchelf --set-rpath "$rpath" "$work/pe/$f"; done
	t1=$(now)
	t_pe_set=$(min "$t_pe_set" "$(elapsed "$t0" "$t1")")

	copy "$work/one"
	t0=$(now)
	"$xcc" patchelf --set-rpath "$rpath" "${files[@]/#/$work/one/}"
	t1=$(now)
	t_one=$(min "$t_one" "$(elapsed "$t0" "$t1")")

	copy "$work/each"
	t0=$(now)
	for f in "${files[@]}"; do "$xcc" patchelf --set-rpath "$rpath" "$work/each/$f"; done
	t1=$(now)
	t_each=$(min "$t_each" "$(elapsed "$t0" "$t1")")

	t0=$(now)
	for f in "${files[@]}"; do patchelf --print-needed "$libs/$f" > /dev/null; done
	t1=$(now)
	t_pe_print=$(min "$t_pe_print" "$(elapsed "$t0" "$t1")")

	t0=$(now)
	"$xcc" patchelf --print-needed "${files[@]/#/$libs/}" > /dev/null
	t1=$(now)
	t_print=$(min "$t_print" "$(elapsed "$t0" "$t1")")
done

# Same answers: the run paths and needed lists agree with patchelf's own reading.
for f in "${files[@]}"; do
	a=$(patchelf --print-rpath "$work/one/$f")
	[ "$a" = "$rpath" ] || { echo "$0: $f: run path is '$a'" >&2; exit 1; }
	[ "$(patchelf --print-needed "$work/one/$f")" = "$(patchelf --print-needed "$libs/$f")" ] ||
		{ echo "$0: $f: needed list changed" >&2; exit 1; }
done

grow_pe=$(( $(size_of "$work/pe") - total ))
grow_xcc=$(( $(size_of "$work/one") - total ))
printf '%-44s %8s s\n' "patchelf --set-rpath, one process per file" "$t_pe_set"
printf '%-44s %8s s   ratio %5sx (goal >= 10)\n' "cuda-xcc --set-rpath, one process" "$t_one" \
	"$(ratio "$t_pe_set" "$t_one")"
printf '%-44s %8s s   ratio %5sx (goal >= 5)\n' "cuda-xcc --set-rpath, one process per file" \
	"$t_each" "$(ratio "$t_pe_set" "$t_each")"
printf '%-44s %8s s\n' "patchelf --print-needed, per file" "$t_pe_print"
printf '%-44s %8s s   ratio %5sx (goal >= 20)\n' "cuda-xcc --print-needed, one process" \
	"$t_print" "$(ratio "$t_pe_print" "$t_print")"
printf 'growth of the tree: patchelf %d bytes (%.1f MB), cuda-xcc %d bytes (%.3f MB)\n' \
	"$grow_pe" "$(awk -v b="$grow_pe" 'BEGIN { print b / 1e6 }')" \
	"$grow_xcc" "$(awk -v b="$grow_xcc" 'BEGIN { print b / 1e6 }')"
