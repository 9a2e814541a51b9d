#!/bin/sh
# Benchmark: what syncing the tree to disk before the swap costs a
# `sysroot create` (syncfs of the tree's file system, then an fsync of its
# directory), measured as the ratio of create to create --no-sync on the
# same mirror, in the same run. The mirror is redist-shaped (made by
# tests/fixtures/make-redist.sh) and holds, besides the small toolkit
# fixtures, real CUDA libraries packed as components.
#
# usage: bench/fsync.sh [CUDA_XCC]   (default: ./src/cuda-xcc, then PATH)
# env:   BENCH_DIR (default /tmp/cuda-xcc-bench-fsync; the mirror is kept and
#        reused), BENCH_LIBS (default "libcurand.so.10 libcufft.so.12"),
#        BENCH_RUNS (default 5), XZ_LEVEL (default 1)
#
# Each run measures create --no-sync and create back to back, each after
# a `sync` (so that neither pays for the other's dirty pages); the median
# run's ratio is the result, with the median seconds of each.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
xcc=${1:-}
if [ -z "$xcc" ]; then
	if [ -x ./src/cuda-xcc ]; then xcc=$(pwd)/src/cuda-xcc; else xcc=$(command -v cuda-xcc); fi
fi
bench=${BENCH_DIR:-/tmp/cuda-xcc-bench-fsync}
libs=${BENCH_LIBS:-"libcurand.so.10 libcufft.so.12"}
runs=${BENCH_RUNS:-5}
cuda=13.0.2

. "$here/bench/redist-mirror.sh"
. "$here/bench/file-store-off.sh"
no_store=$(file_store_off "$xcc")
export XDG_CACHE_HOME=$bench/cache
now() { date +%s.%N; }

run_create() { # EXTRA-ARG: prints seconds
	rm -rf "$bench/sr" "$bench/sr.lock"
	sync
	t0=$(now)
	"$xcc" sysroot create --target x86_64 --cuda "$cuda" --from "$manifest" \
		--components "$components" --dest "$bench/sr" --progress never --allow-unserved \
		$no_store "$@" >/dev/null 2>"$bench/create.log"
	t1=$(now)
	echo "$t1 - $t0" | bc -l
}

size=$(run_create --no-sync >/dev/null; du -sm "$bench/sr" | cut -f1)
echo "tree: $size MB"
: >"$bench/runs"
i=0
while [ "$i" -lt "$runs" ]; do
	i=$((i + 1))
	nosync=$(run_create --no-sync)
	synced=$(run_create)
	ratio=$(echo "$synced / $nosync" | bc -l)
	printf 'run %d: --no-sync %.2f s, synced %.2f s, ratio %.3f\n' "$i" "$nosync" "$synced" "$ratio"
	echo "$ratio $nosync $synced" >>"$bench/runs"
done
sort -n "$bench/runs" | awk -v n="$runs" 'NR == int((n + 1) / 2) {
	printf "median: ratio %.3f (--no-sync %.2f s, synced %.2f s)\n", $1, $2, $3 }'
