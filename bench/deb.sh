#!/bin/bash
# `cuda-xcc sysroot create` from Debian's CUDA 11.8 packages against `dpkg-deb -x` of the same
# packages, in one run, on the same cached input. Prints both times and their ratio; below
# 1.0 means cuda-xcc makes a whole, usable sysroot faster than dpkg merely unpacks the debs.
#
#   bench/deb.sh [--cuda-xcc PATH] [--cache DIR] [--runs N] [--tmp DIR]
#
# The packages come from scripts/fetch-debian-cuda.sh (run first; default cache
# /var/cache/cuda-xcc/debs). Each run takes about half a minute on 2 CPUs; the best of N is used.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
xcc=${CUDA_XCC:-$top/build/src/cuda-xcc}
cache=${XCC_DEB_CACHE:-/var/cache/cuda-xcc/debs}
runs=1
tmp=${TMPDIR:-/tmp}
while [ $# -gt 0 ]; do
	case "$1" in
	--cuda-xcc) xcc=$2; shift 2 ;;
	--cache) cache=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--tmp) tmp=$2; shift 2 ;;
	*) echo "usage: $0 [--cuda-xcc PATH] [--cache DIR] [--runs N] [--tmp DIR]" >&2; exit 2 ;;
	esac
done
[ -x "$xcc" ] || { echo "$0: $xcc is not built (pass --cuda-xcc PATH)" >&2; exit 2; }
command -v dpkg-deb >/dev/null || { echo "$0: dpkg-deb (the reference) is missing" >&2; exit 2; }

debs=()
for pat in nvidia-cuda-toolkit_11.8.*_amd64.deb nvidia-cuda-dev_11.8.*_arm64.deb \
	libcudart11.0_11.8.*_arm64.deb; do
	f=$(ls "$cache"/$pat 2>/dev/null | head -1)
	[ -n "$f" ] || { echo "$0: $pat not in $cache: run scripts/fetch-debian-cuda.sh" >&2; exit 2; }
	debs+=("$f")
done

work=$(mktemp -d "$tmp/bench-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Both sides read the packages from the page cache, not the disk.
cat "${debs[@]}" > /dev/null
# Wall-clock time is the goal; CPU time says how much of it other load on the machine took.
load=$(cut -d' ' -f1-3 /proc/loadavg)

elapsed_of() { cut -d' ' -f1 "$1"; }
cpu_of() { awk '{ printf "%.3f", $2 + $3 }' "$1"; }
less() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
# Wall-clock, user and system seconds of a command, into file $1.
measure() {
	local f=$1
	shift
	{ TIMEFORMAT='%R %U %S'; time "$@" > "$work/out.log" 2>&1; } 2> "$f" ||
		{ cat "$work/out.log" >&2; exit 1; }
}
dpkg_all() {
	mkdir -p "$work/X"
	for d in "${debs[@]}"; do
		dpkg-deb -x "$d" "$work/X" || return 1
	done
}
create() {
	"$xcc" sysroot create --target sbsa --cuda 11.8 --dest "$work/S" --progress never \
		--from "${debs[0]}" --from "${debs[1]}" --from "${debs[2]}"
}

best_xcc= best_dpkg= cpu_xcc= cpu_dpkg=
for ((i = 1; i <= runs; i++)); do
	rm -rf "$work/S" "$work/X"
	measure "$work/t.dpkg" dpkg_all
	rm -rf "$work/X"
	sync
	measure "$work/t.xcc" create
	rm -rf "$work/S"
	sync
	dpkg_s=$(elapsed_of "$work/t.dpkg")
	xcc_s=$(elapsed_of "$work/t.xcc")
	printf 'run %d: dpkg-deb -x %.2f s (cpu %.2f s), sysroot create %.2f s (cpu %.2f s)\n' \
		"$i" "$dpkg_s" "$(cpu_of "$work/t.dpkg")" "$xcc_s" "$(cpu_of "$work/t.xcc")"
	if [ -z "$best_xcc" ] || less "$xcc_s" "$best_xcc"; then
		best_xcc=$xcc_s cpu_xcc=$(cpu_of "$work/t.xcc")
	fi
	if [ -z "$best_dpkg" ] || less "$dpkg_s" "$best_dpkg"; then
		best_dpkg=$dpkg_s cpu_dpkg=$(cpu_of "$work/t.dpkg")
	fi
done
printf 'cpus: %s, load average before: %s\n' "$(nproc)" "$load"
printf 'dpkg-deb -x (3 packages, 751 MB): %.2f s wall, %.2f s cpu\n' "$best_dpkg" "$cpu_dpkg"
printf 'cuda-xcc sysroot create:          %.2f s wall, %.2f s cpu\n' "$best_xcc" "$cpu_xcc"
awk -v x="$best_xcc" -v d="$best_dpkg" \
	'BEGIN { printf "ratio sysroot-create/dpkg-deb: %.2f (goal < 1.0)\n", x / d }'
