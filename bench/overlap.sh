#!/bin/sh
# Benchmark: `cuda-xcc sysroot create` from a mirror over HTTP, where the
# archives arrive at a fixed rate, against max(download time, `tar -xJf`
# time) measured in the same run: with download and extraction overlapped,
# create costs about the slower of the two, not their sum.
#
# The mirror is bench/extract.sh's (bench/redist-mirror.sh: real CUDA
# libraries as redist components, at least 500 MB of .tar.xz), served by
# tests/lib/httpd.py in its throttle mode: one link of RATE bytes per
# second shared by all connections.
#
# usage: bench/overlap.sh [CUDA_XCC]   (default: ./src/cuda-xcc, then PATH)
# env:   BENCH_DIR (default /tmp/cuda-xcc-bench), BENCH_LIBS, XZ_LEVEL (as
#        bench/extract.sh), BENCH_RUNS (default 3), BENCH_RATES (MB/s,
#        default "30 100"), BENCH_JOBS (default "1 2")
#
# Each run, per rate: the download alone (curl, the archives one after the
# other, as create fetches them), tar -xJf of the same archives, then create
# with an empty cache for each --jobs. The ratio is per run; the median
# run's is the result.
#
# Goals: create / max(download, tar -xJf) <= 1.15; peak RSS of create
# <= 64 MiB.
#
# What the design costs: an archive is extracted only once it is whole and
# verified, so nothing is extracted while the first (the largest) archive
# downloads. Where download and extraction take about as long and one
# worker extracts, that wait adds to the total; more workers catch up.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
xcc=${1:-}
if [ -z "$xcc" ]; then
	if [ -x ./src/cuda-xcc ]; then xcc=$(pwd)/src/cuda-xcc; else xcc=$(command -v cuda-xcc); fi
fi
bench=${BENCH_DIR:-/tmp/cuda-xcc-bench}
libs=${BENCH_LIBS:-"libcufft.so.12 libcusparse.so.12 libcusolver.so.12 libcurand.so.10 libcublas.so.13"}
runs=${BENCH_RUNS:-3}
rates=${BENCH_RATES:-"30 100"}
jobs_list=${BENCH_JOBS:-"1 2"}
cuda=13.0.2

for tool in /usr/bin/time tar xz curl python3; do
	command -v "$tool" >/dev/null || { echo "bench/overlap.sh: needs $tool" >&2; exit 2; }
done
. "$here/bench/redist-mirror.sh"

# The archives create will use (the server serves the same files).
plan_archives
printf 'archives: %d, %.1f MB of .tar.xz; load: %s\n' "$n_archives" \
	"$(echo "$archive_bytes / 1000000" | bc -l)" "$(cut -d' ' -f1-3 /proc/loadavg)"
print_decoders "$xcc"

now() { date +%s.%N; }
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

server_pid=
stop_server() {
	if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
	server_pid=
}
trap stop_server EXIT

start_server() { # RATE_MB_S: sets url
	rm -f "$bench/port"
	python3 "$here/tests/lib/httpd.py" --root "$mirror" --mode throttle \
		--rate "$(echo "$1 * 1000000" | bc)" --timeout 7200 >"$bench/port" 2>/dev/null &
	server_pid=$!
	i=0
	while [ ! -s "$bench/port" ] && [ "$i" -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ -s "$bench/port" ] || { echo "bench/overlap.sh: the server did not start" >&2; exit 1; }
	url=http://127.0.0.1:$(head -n1 "$bench/port")
}

rm -f "$bench"/ov-*
summary=
for rate in $rates; do
	start_server "$rate"
	urls=
	for a in $archives; do urls="$urls $url/${a#"$mirror"/}"; done
	i=0
	while [ "$i" -lt "$runs" ]; do
		i=$((i + 1))
		rm -rf "$bench/dl" "$bench/tar"
		mkdir -p "$bench/dl" "$bench/tar"
		sync
		t0=$(now)
		(cd "$bench/dl" && for u in $urls; do curl -sSf -O "$u"; done)
		t1=$(now)
		t_dl=$(echo "$t1 - $t0" | bc -l)
		rm -rf "$bench/dl"
		sync
		t0=$(now)
		for a in $archives; do tar -xJf "$a" -C "$bench/tar"; done
		t1=$(now)
		t_tar=$(echo "$t1 - $t0" | bc -l)
		rm -rf "$bench/tar"
		ref=$(echo "if ($t_dl > $t_tar) $t_dl else $t_tar" | bc -l)
		line=$(printf 'rate %s MB/s, run %d: download %.2fs, tar -xJf %.2fs' "$rate" "$i" "$t_dl" "$t_tar")
		for j in $jobs_list; do
			rm -rf "$bench/sr" "$bench/sr.lock" "$bench/ovcache"
			sync
			t0=$(now)
			XDG_CACHE_HOME=$bench/ovcache /usr/bin/time -f '%M' -o "$bench/rss" \
				"$xcc" sysroot create --target x86_64 --cuda "$cuda" \
				--from "$url/redistrib_$cuda.json" --components "$components" \
				--dest "$bench/sr" --jobs "$j" --progress never --allow-unserved \
				>/dev/null 2>"$bench/create.log" ||
				{ cat "$bench/create.log" >&2; exit 1; }
			t1=$(now)
			t_c=$(echo "$t1 - $t0" | bc -l)
			r=$(echo "$t_c / $ref" | bc -l)
			echo "$r" >> "$bench/ov-$rate-$j"
			rss=$(cat "$bench/rss")
			if [ "$rss" -gt "$(cat "$bench/ov-rss-$j" 2>/dev/null || echo 0)" ]; then
				echo "$rss" > "$bench/ov-rss-$j"
			fi
			line=$(printf '%s, create --jobs %s %.2fs (%.3f)' "$line" "$j" "$t_c" "$r")
		done
		echo "$line"
	done
	stop_server
	for j in $jobs_list; do
		summary=$(printf '%s\nrate %s MB/s: create --jobs %s / max(download, tar -xJf): %.3f (goal <= 1.15)' \
			"$summary" "$rate" "$j" "$(median "$bench/ov-$rate-$j")")
	done
done
rm -rf "$bench/sr" "$bench/sr.lock" "$bench/ovcache"
printf '\nmedian of %d runs; load at the end: %s%s\n' "$runs" "$(cut -d' ' -f1-3 /proc/loadavg)" "$summary"
for j in $jobs_list; do
	printf 'create --jobs %s peak RSS %d KiB (goal <= 65536 KiB)\n' "$j" "$(cat "$bench/ov-rss-$j")"
done
