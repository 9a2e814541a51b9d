#!/bin/bash
# The file store (doc/sysroots.md#the-file-store) on the biggest sysroot cuda-xcc makes: every
# CUDA library of Debian 13's CUDA 12.4.1 (the packages of scripts/fetch-debian-cuda.sh
# --release trixie --components all, about 1.8 GB of .debs, a 4.2 GB sysroot; made as
# tests/e2e-all124.bats makes it). Measured in one run, on the same cached packages:
#
#   - the first create, into an empty cache, against the same create by another build
#     (--before BUILD: its src/cuda-xcc, e.g. today's main): the ratio of the median runs
#     (goal: no slower, about 1.00 or less); with --runs N, N of each, alternating which
#     goes first, since a run of a minute varies by 10% on a shared machine;
#   - the second create of the same request into another directory, from the file store
#     (goal: at most 2 s of wall time);
#   - the disk: du of both trees and the store, each block counted once, against du of one
#     tree (goal: at most 1% more).
#
#   bench/store.sh [--cuda-xcc PATH] [--before BUILD] [--runs N] [--cache-trixie DIR] [--tmp DIR]
#
# The packages are fetched into DIR (default /var/cache/cuda-xcc/debs-trixie) where it lacks
# them; what is there already is reused. TMP (default $TMPDIR or /tmp) holds the trees and the
# caches: about 9 GB at the peak. The two builds run one after the other, never at once.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
xcc=${CUDA_XCC:-$top/build/src/cuda-xcc}
before=
runs=1
cache_trixie=${XCC_DEB_CACHE_TRIXIE:-/var/cache/cuda-xcc/debs-trixie}
tmp=${TMPDIR:-/tmp}
usage="usage: $0 [--cuda-xcc PATH] [--before BUILD] [--runs N] [--cache-trixie DIR] [--tmp DIR]"
while [ $# -gt 0 ]; do
	case "$1" in
	--cuda-xcc) xcc=$2; shift 2 ;;
	--before) before=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--cache-trixie) cache_trixie=$2; shift 2 ;;
	--tmp) tmp=$2; shift 2 ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
[ -x "$xcc" ] || { echo "$0: $xcc is not built (pass --cuda-xcc PATH)" >&2; exit 2; }
if [ -n "$before" ] && [ ! -x "$before/src/cuda-xcc" ]; then
	echo "$0: $before/src/cuda-xcc is not an executable: build it" >&2
	exit 2
fi

work=$(mktemp -d "$tmp/bench-store.XXXXXX")
trap 'rm -rf "$work"' EXIT
load=$(cut -d' ' -f1-3 /proc/loadavg)

# The packages and the component list, as tests/e2e-all124.bats gets them.
if ! bash "$top/scripts/fetch-debian-cuda.sh" --release trixie --cache "$cache_trixie" \
	--components all > "$work/debs" 2> "$work/fetch.log"; then
	tail -5 "$work/fetch.log" >&2
	echo "$0: scripts/fetch-debian-cuda.sh --release trixie --components all failed" >&2
	exit 2
fi
components=$(sed -n 's/.*every component: .* --components \([a-z_,]*\)$/\1/p' "$work/fetch.log")
[ -n "$components" ] || { echo "$0: fetch-debian-cuda.sh named no components" >&2; exit 2; }
from=()
while read -r d; do from+=(--from "$d"); done < "$work/debs"

elapsed_of() { cut -d' ' -f1 "$1"; }
cpu_of() { awk '{ printf "%.2f", $2 + $3 }' "$1"; }
# Wall-clock, user and system seconds of one create by binary $1 into $2 with cache $3.
create() {
	local bin=$1 dest=$2 cache=$3 t=$4
	{ TIMEFORMAT='%R %U %S'; time "$bin" sysroot create --target sbsa --cuda 12.4 \
		--components "$components" "${from[@]}" --dest "$dest" --cache "$cache" \
		--progress never > "$work/out.log" 2>&1; } 2> "$t" ||
		{ cat "$work/out.log" >&2; exit 1; }
}
kib() { du -sk "$@" | awk '{ s += $1 } END { print s }'; }

printf 'cpus: %s, load average before: %s\n' "$(nproc)" "$load"
printf 'packages: %s (%s), components %s\n' "$(wc -l < "$work/debs")" \
	"$(xargs du -cLh < "$work/debs" | tail -n1 | cut -f1)" "$components"
# Every create reads the packages from the page cache, not the disk.
xargs cat < "$work/debs" > /dev/null

# The median of the numbers on stdin.
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
before_once() {
	create "$before/src/cuda-xcc" "$work/B" "$work/cache-before" "$work/t.before"
	rm -rf "$work/B" "$work/cache-before"
	sync
	printf 'before (%s): first create %.2f s wall, %s s cpu\n' "$before" \
		"$(elapsed_of "$work/t.before")" "$(cpu_of "$work/t.before")"
	elapsed_of "$work/t.before" >> "$work/walls.before"
}
# The last run's tree and cache stay for the second create.
after_once() {
	rm -rf "$work/S1" "$work/cache"
	sync
	create "$xcc" "$work/S1" "$work/cache" "$work/t.first"
	printf 'after (%s): first create %.2f s wall, %s s cpu\n' "$xcc" \
		"$(elapsed_of "$work/t.first")" "$(cpu_of "$work/t.first")"
	elapsed_of "$work/t.first" >> "$work/walls.after"
}
for ((i = 1; i <= runs; i++)); do
	if [ -z "$before" ]; then
		after_once
	elif [ $((i % 2)) = 1 ]; then
		before_once
		after_once
	else
		after_once
		before_once
	fi
done
sync
create "$xcc" "$work/S2" "$work/cache" "$work/t.second"
if grep -q 'made from the file store' "$work/out.log"; then how="from the file store"
else how="NOT from the file store (this build has none?)"; fi
printf 'after: second create, %s: %.2f s wall, %s s cpu\n' "$how" \
	"$(elapsed_of "$work/t.second")" "$(cpu_of "$work/t.second")"
cmp -s "$work/S1/sysroot.files" "$work/S2/sysroot.files" ||
	{ echo "$0: the two trees' sysroot.files differ" >&2; exit 1; }

one=$(kib "$work/S1")
# One du over all three: a block that several names share is counted once.
store_dir=$work/cache/files
[ -d "$store_dir" ] || store_dir=
all=$(du -sck "$work/S1" "$work/S2" ${store_dir:+"$store_dir"} | tail -n1 | cut -f1)
printf 'disk: one tree %s KiB; both trees and the store, counted once, %s KiB\n' "$one" "$all"

if [ -n "$before" ]; then
	awk -v a="$(median < "$work/walls.after")" -v b="$(median < "$work/walls.before")" -v n="$runs" \
		'BEGIN { printf "ratio first create after/before (median of %d each, %.2f s / %.2f s): %.3f (goal: no slower, <= 1.00)\n", n, a, b, a / b }'
fi
awk -v s="$(elapsed_of "$work/t.second")" \
	'BEGIN { printf "second create: %.2f s (goal <= 2 s): %s\n", s, s <= 2 ? "met" : "NOT met" }'
awk -v a="$all" -v o="$one" 'BEGIN { x = (a - o) * 100 / o;
	printf "ratio disk (both trees + store)/(one tree): %.4f, %.2f%% extra (goal <= 1%%): %s\n",
		a / o, x, x <= 1 ? "met" : "NOT met" }'
