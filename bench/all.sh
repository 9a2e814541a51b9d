#!/bin/bash
# Every benchmark under bench/ for two builds of cuda-xcc, one after the other in the same
# session, so that a change's effect on each ratio is read side by side:
#
#   bench/all.sh --before BUILD --after BUILD [--sysroot DIR] [--out DIR] [NAME...]
#
# BUILD is a build directory (its src/cuda-xcc, and tests/helper/test-tool for unpack.sh).
# NAME picks benchmarks (startup, driver-overhead, fatbin, check, patch, verify, deb, unpack,
# extract, fsync, overlap, distcc, cache-runners, from-device, store); by default all of them.
# The three that build through a sysroot (driver-overhead, distcc, cache-runners) need --sysroot: a sysroot
# with a real nvcc, such as the CUDA 12.4 one bench/deb.sh's packages make; without it they
# are reported as not run. Each run's whole output is kept in OUT (default: a new directory
# under /tmp); the summary prints each benchmark's ratio lines, before then after.
# The machine is noisy: a ratio is against the reference tool in the same run, and the two
# builds run back to back, never at once.
set -euo pipefail
usage="usage: $0 --before BUILD --after BUILD [--sysroot DIR] [--out DIR] [NAME...]"
before='' after='' sysroot='' out=''
names=()
while [ $# -gt 0 ]; do
	case $1 in
	--before) before=$2; shift 2 ;;
	--after) after=$2; shift 2 ;;
	--sysroot) sysroot=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	-*) echo "$usage" >&2; exit 2 ;;
	*) names+=("$1"); shift ;;
	esac
done
if [ -z "$before" ] || [ -z "$after" ]; then echo "$usage" >&2; exit 2; fi
for b in "$before" "$after"; do
	[ -x "$b/src/cuda-xcc" ] || { echo "$0: $b/src/cuda-xcc is not an executable: build it" >&2; exit 2; }
done
[ ${#names[@]} -gt 0 ] || names=(startup driver-overhead fatbin check patch verify deb unpack
	extract fsync overlap distcc cache-runners from-device store)
here=$(cd "$(dirname "$0")" && pwd)
[ -n "$out" ] || out=$(mktemp -d /tmp/bench-all.XXXXXX)
mkdir -p "$out"

# The command line of benchmark $1 for the build in $2.
bench_command() {
	local name=$1 xcc=$2/src/cuda-xcc
	case $name in
	startup) echo "$here/startup.sh" "$xcc" ;;
	driver-overhead|distcc|cache-runners) echo "$here/$name.sh" "$sysroot" "$xcc" ;;
	fatbin|check|from-device) echo "$here/$name.sh" --xcc "$xcc" ;;
	patch|verify|deb|store) echo "$here/$name.sh" --cuda-xcc "$xcc" ;;
	unpack) echo "$here/unpack.sh" --test-tool "$2/tests/helper/test-tool" ;;
	extract|fsync|overlap) echo "$here/$name.sh" "$xcc" ;;
	*) return 1 ;;
	esac
}

# The wrappers of the source tree build $1 was made from: a build's binary speaks to its own
# CMake file (the CMake file asks the binary, and what it asks changes between versions).
wrappers_of() {
	local top
	top=$(sed -n 's/^abs_top_srcdir = //p' "$1/Makefile" 2>/dev/null)
	[ -n "$top" ] && [ -d "$top/wrappers" ] && (cd "$top/wrappers" && pwd)
}

# The lines of a benchmark's output that carry its figures.
figures() {
	grep -iE 'ratio|goal|[0-9.]+ ?x\b|over nvcc|ms\b' "$1" | tail -6 || tail -3 "$1"
}

summary=$out/summary.txt
: > "$summary"
for name in "${names[@]}"; do
	case $name in driver-overhead|distcc|cache-runners)
		if [ -z "$sysroot" ]; then
			printf '== %s: not run (needs --sysroot)\n' "$name" | tee -a "$summary"
			continue
		fi ;;
	esac
	for side in before after; do
		build=$before
		[ $side = after ] && build=$after
		build=$(cd "$build" && pwd)
		read -r -a cmd <<< "$(bench_command "$name" "$build")" ||
			{ echo "$0: no benchmark named $name" >&2; exit 2; }
		log=$out/$name.$side.log
		start=$(date +%s)
		wrappers=$(wrappers_of "$build") || wrappers=$here/../wrappers
		if (cd "$here/.." && XCC_WRAPPERS=$wrappers "${cmd[@]}") > "$log" 2>&1; then
			status=ok
		else
			status="failed ($?)"
		fi
		{
			printf '== %s, %s (%s, %s s): %s\n' "$name" "$side" "$build" \
				"$(( $(date +%s) - start ))" "$status"
			figures "$log" | sed 's/^/   /'
		} | tee -a "$summary"
	done
done
echo "logs and summary in $out"
