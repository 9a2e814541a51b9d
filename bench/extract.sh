#!/bin/sh
# Benchmark: `cuda-xcc sysroot create` against `tar -xJf` of the same
# archives, measured in the same run. The mirror is redist-shaped (made by
# tests/fixtures/make-redist.sh) and holds, besides the small toolkit
# fixtures, the real CUDA libraries of /usr/local/cuda/lib packed as
# components: at least 500 MB of .tar.xz.
#
# usage: bench/extract.sh [CUDA_XCC]   (default: ./src/cuda-xcc, then PATH)
# env:   BENCH_DIR (default /tmp/cuda-xcc-bench; the mirror is kept there and
#        reused), BENCH_LIBS (the libraries to pack), BENCH_RUNS (default 5),
#        XZ_LEVEL (default 1)
#
# Each run measures tar, create --jobs 1 and create --jobs 2 back to back;
# the ratios are per run (so that load from other work on the machine hits
# both sides alike), and the median run's ratio is the result.
#
# Goals: ratio <= 1.10 with --jobs 1, <= 0.60 with --jobs 2 (two cores: the
# floor is about 0.5, or the largest archive's own time: 0.65 here when both
# sides decode with the same liblzma, as libcufft is one xz block), peak RSS
# of create <= 64 MiB. The first lines say which liblzma each side uses.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
xcc=${1:-}
if [ -z "$xcc" ]; then
	if [ -x ./src/cuda-xcc ]; then xcc=$(pwd)/src/cuda-xcc; else xcc=$(command -v cuda-xcc); fi
fi
bench=${BENCH_DIR:-/tmp/cuda-xcc-bench}
libs=${BENCH_LIBS:-"libcufft.so.12 libcusparse.so.12 libcusolver.so.12 libcurand.so.10 libcublas.so.13"}
runs=${BENCH_RUNS:-5}
cuda=13.0.2

for tool in /usr/bin/time tar xz; do
	command -v "$tool" >/dev/null || { echo "bench/extract.sh: needs $tool" >&2; exit 2; }
done
. "$here/bench/redist-mirror.sh"
. "$here/bench/file-store-off.sh"
no_store=$(file_store_off "$xcc")

plan_archives
printf 'archives: %d, %.1f MB of .tar.xz\n' "$n_archives" "$(echo "$archive_bytes / 1000000" | bc -l)"
print_decoders "$xcc"

export XDG_CACHE_HOME=$bench/cache
now() { date +%s.%N; }
best_tar=
best_j1=
best_j2=
rss_j1=0
rss_j2=0

better() { # CURRENT NEW: the smaller
	if [ -z "$1" ] || [ "$(echo "$2 < $1" | bc -l)" = 1 ]; then echo "$2"; else echo "$1"; fi
}

run_create() { # JOBS: prints "seconds rss_kib"
	rm -rf "$bench/sr" "$bench/sr.lock"
	sync
	t0=$(now)
	/usr/bin/time -f '%M' -o "$bench/rss" "$xcc" sysroot create --target x86_64 --cuda "$cuda" \
		--from "$manifest" --components "$components" --dest "$bench/sr" --jobs "$1" \
		--progress never --allow-unserved $no_store >/dev/null 2>"$bench/create.log"
	t1=$(now)
	echo "$(echo "$t1 - $t0" | bc -l) $(cat "$bench/rss")"
}

rm -f "$bench/r1" "$bench/r2"
i=0
while [ "$i" -lt "$runs" ]; do
	i=$((i + 1))
	rm -rf "$bench/tar"
	mkdir -p "$bench/tar"
	sync
	t0=$(now)
	for a in $archives; do tar -xJf "$a" -C "$bench/tar"; done
	t1=$(now)
	t_tar=$(echo "$t1 - $t0" | bc -l)
	rm -rf "$bench/tar"
	set -- $(run_create 1)
	t_j1=$1
	[ "$2" -gt "$rss_j1" ] && rss_j1=$2
	set -- $(run_create 2)
	t_j2=$1
	[ "$2" -gt "$rss_j2" ] && rss_j2=$2
	r1=$(echo "$t_j1 / $t_tar" | bc -l)
	r2=$(echo "$t_j2 / $t_tar" | bc -l)
	printf 'run %d: tar -xJf %.2fs, create --jobs 1 %.2fs (%.3f), --jobs 2 %.2fs (%.3f)\n' \
		"$i" "$t_tar" "$t_j1" "$r1" "$t_j2" "$r2"
	echo "$r1" >> "$bench/r1"
	echo "$r2" >> "$bench/r2"
	best_tar=$(better "$best_tar" "$t_tar")
	best_j1=$(better "$best_j1" "$t_j1")
	best_j2=$(better "$best_j2" "$t_j2")
done
rm -rf "$bench/sr" "$bench/sr.lock"

median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
m1=$(median "$bench/r1")
m2=$(median "$bench/r2")
printf '\nmedian of %d runs (best times: tar %.2fs, --jobs 1 %.2fs, --jobs 2 %.2fs)\n' \
	"$runs" "$best_tar" "$best_j1" "$best_j2"
printf 'create --jobs 1 / tar -xJf: %.3f (goal <= 1.10)  peak RSS %d KiB\n' "$m1" "$rss_j1"
printf 'create --jobs 2 / tar -xJf: %.3f (goal <= 0.60)  peak RSS %d KiB\n' "$m2" "$rss_j2"
printf 'peak RSS goal: <= 65536 KiB\n'
