#!/bin/bash
# `cuda-xcc sysroot create` from Debian's CUDA packages against `dpkg-deb -x` of the same
# packages, in one run, on the same cached input. Prints both times and their ratio; below
# 1.0 means cuda-xcc makes a whole, usable sysroot faster than dpkg merely unpacks the debs.
# Two sets, each measured when its packages are cached: Debian 12's CUDA 11.8 (3 packages,
# 751 MB) and Debian 13's CUDA 12.4 with cuBLAS and cuFFT (9 packages, 1.42 GB; the sysroot
# takes --components libcublas,libcufft).
#
#   bench/deb.sh [--cuda-xcc PATH] [--cache DIR] [--cache-trixie DIR] [--runs N] [--tmp DIR]
#
# The packages come from scripts/fetch-debian-cuda.sh [--release trixie] (run first; default
# caches /var/cache/cuda-xcc/debs and /var/cache/cuda-xcc/debs-trixie). Each run takes about
# half a minute (11.8) and a minute (12.4) on 2 idle CPUs; the best of N is used.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
xcc=${CUDA_XCC:-$top/build/src/cuda-xcc}
cache=${XCC_DEB_CACHE:-/var/cache/cuda-xcc/debs}
cache_trixie=${XCC_DEB_CACHE_TRIXIE:-/var/cache/cuda-xcc/debs-trixie}
runs=1
tmp=${TMPDIR:-/tmp}
while [ $# -gt 0 ]; do
	case "$1" in
	--cuda-xcc) xcc=$2; shift 2 ;;
	--cache) cache=$2; shift 2 ;;
	--cache-trixie) cache_trixie=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--tmp) tmp=$2; shift 2 ;;
	*) echo "usage: $0 [--cuda-xcc PATH] [--cache DIR] [--cache-trixie DIR] [--runs N] [--tmp DIR]" >&2
		exit 2 ;;
	esac
done
[ -x "$xcc" ] || { echo "$0: $xcc is not built (pass --cuda-xcc PATH)" >&2; exit 2; }
command -v dpkg-deb >/dev/null || { echo "$0: dpkg-deb (the reference) is missing" >&2; exit 2; }
. "$top/bench/file-store-off.sh"
no_store=$(file_store_off "$xcc")

# The packages of one set in $1 into debs[], or a note on stderr and failure.
find_debs() {
	local dir=$1 pat f
	shift
	debs=()
	for pat in "$@"; do
		f=$(ls "$dir"/$pat 2>/dev/null | head -1)
		[ -n "$f" ] || { echo "$0: $pat not in $dir: run scripts/fetch-debian-cuda.sh" >&2; return 1; }
		debs+=("$f")
	done
}

work=$(mktemp -d "$tmp/bench-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
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
	local from=() d
	for d in "${debs[@]}"; do from+=(--from "$d"); done
	"$xcc" sysroot create --target sbsa --cuda "$cuda" --dest "$work/S" --progress never \
		${components:+--components "$components"} $no_store "${from[@]}"
}

# One set: its CUDA version, components, label; the packages in debs[].
bench_set() {
	local label=$3
	cuda=$1 components=$2
	# Both sides read the packages from the page cache, not the disk.
	cat "${debs[@]}" > /dev/null
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
		printf 'CUDA %s run %d: dpkg-deb -x %.2f s (cpu %.2f s), sysroot create %.2f s (cpu %.2f s)\n' \
			"$cuda" "$i" "$dpkg_s" "$(cpu_of "$work/t.dpkg")" "$xcc_s" "$(cpu_of "$work/t.xcc")"
		if [ -z "$best_xcc" ] || less "$xcc_s" "$best_xcc"; then
			best_xcc=$xcc_s cpu_xcc=$(cpu_of "$work/t.xcc")
		fi
		if [ -z "$best_dpkg" ] || less "$dpkg_s" "$best_dpkg"; then
			best_dpkg=$dpkg_s cpu_dpkg=$(cpu_of "$work/t.dpkg")
		fi
	done
	printf 'CUDA %s, %s:\n' "$cuda" "$label"
	printf '  dpkg-deb -x:             %.2f s wall, %.2f s cpu\n' "$best_dpkg" "$cpu_dpkg"
	printf '  cuda-xcc sysroot create: %.2f s wall, %.2f s cpu\n' "$best_xcc" "$cpu_xcc"
	awk -v x="$best_xcc" -v d="$best_dpkg" -v c="$cuda" \
		'BEGIN { printf "  ratio sysroot-create/dpkg-deb (CUDA %s): %.2f (goal < 1.0)\n", c, x / d }'
}

printf 'cpus: %s, load average before: %s\n' "$(nproc)" "$load"
measured=0
if find_debs "$cache" nvidia-cuda-toolkit_11.8.*_amd64.deb nvidia-cuda-dev_11.8.*_arm64.deb \
	libcudart11.0_11.8.*_arm64.deb; then
	bench_set 11.8 "" "Debian 12, 3 packages, 751 MB"
	measured=$((measured + 1))
fi
if find_debs "$cache_trixie" nvidia-cuda-toolkit_12.4.*_amd64.deb nvidia-cuda-dev_12.4.*_arm64.deb \
	libcudart12_12.4.*_arm64.deb libcublas12_12.4.*_arm64.deb libcublaslt12_12.4.*_arm64.deb \
	'libcufft11_*~12.4.*_arm64.deb' 'libcu++-dev_*_all.deb' libcub-dev_*_all.deb \
	libthrust-dev_*_all.deb; then
	bench_set 12.4 libcublas,libcufft "Debian 13, 9 packages, 1.42 GB, with cuBLAS and cuFFT"
	measured=$((measured + 1))
fi
[ "$measured" -gt 0 ] || { echo "$0: no package set to measure" >&2; exit 2; }
