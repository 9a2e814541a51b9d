#!/bin/bash
# A cold CI runner against a warm second one sharing ccache's redis storage:
#
#   bench/cache-runners.sh SYSROOT [BINARY]        (NCU=7 CUDA sources by default)
#
# One CMake project (NCU .cu files with two GPUs each, one C++ and one C file) is built
# through the shipped toolchain file by two runners in different directories, each with its
# own copy of SYSROOT inside its workspace (ccache's base_dir) and its own empty local cache;
# a redis-server on 127.0.0.1 is the remote storage they share. Prints each build's wall
# time (configure excluded), the ratio, and the second runner's hits. Goal: the warm runner
# at least 20x faster. CMAKE_GENERATOR=Ninja measures Ninja's build (the default is Unix
# Makefiles, whose CMake start per object for its progress line is much of a warm build).
# XCC_WRAPPERS names the wrappers/ directory whose CMake file is used (bench/all.sh passes
# the one of the build it measures; default: this tree's).
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: bench/cache-runners.sh SYSROOT [BINARY]" >&2; exit 2; }
sysroot=$(realpath "$1")
bin=$(realpath "${2:-${CUDA_XCC:-src/cuda-xcc}}")
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/cuda-project.sh"
ncu=${NCU:-7}
for tool in ccache redis-server redis-cli cmake python3; do
	command -v "$tool" >/dev/null || { echo "cache-runners.sh: needs $tool" >&2; exit 2; }
done
work=$(mktemp -d)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --bind 127.0.0.1 --port "$port" --dir "$work" --save '' --appendonly no \
	--daemonize yes --pidfile "$work/redis.pid" --logfile "$work/redis.log"
trap 'kill "$(cat "$work/redis.pid")" 2>/dev/null; rm -rf "$work"' EXIT
for ((i = 0; i < 50; i++)); do
	redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && break
	sleep 0.1
done

# runner WORKSPACE: configure, then the timed build; prints seconds and the stats file.
runner() {
	local ws=$1 t0 t1
	mkdir -p "$ws"
	cp -a "$sysroot" "$ws/sysroot"
	bench_cuda_project "$ws/src" "$ncu" c
	export CCACHE_DIR=$ws/ccache CCACHE_BASEDIR=$ws CCACHE_CONFIGPATH=$ws/ccache.conf
	export CCACHE_REMOTE_STORAGE=redis://127.0.0.1:$port CCACHE_NOHASHDIR=1
	(cd "$ws" && cmake -S src -B build -DCMAKE_TOOLCHAIN_FILE="${XCC_WRAPPERS:-$src/wrappers}/cmake/cuda-xcc-toolchain.cmake" \
		-DCUDA_XCC_SYSROOT="$ws/sysroot" -DCUDA_XCC_EXECUTABLE="$bin" \
		-DCMAKE_CUDA_ARCHITECTURES="80-real;90-real" -DCMAKE_BUILD_TYPE=Release \
		-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
		-DCMAKE_CUDA_COMPILER_LAUNCHER=ccache) > "$ws/configure.log" 2>&1 ||
		{ cat "$ws/configure.log" >&2; return 1; }
	ccache -z >/dev/null
	t0=$(date +%s%N)
	cmake --build "$ws/build" -j"$(nproc)" > "$ws/build.log" 2>&1 || { cat "$ws/build.log" >&2; return 1; }
	t1=$(date +%s%N)
	ccache --print-stats > "$ws/stats"
	echo $(((t1 - t0) / 1000000))
}

stat_of() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }

cold=$(runner "$work/runner-one") || exit 1
warm=$(runner "$work/elsewhere/runner-two") || exit 1
w=$work/elsewhere/runner-two/stats
printf 'cold runner: %d.%03d s, warm second runner: %d.%03d s (%d compiles: %s remote hits, %s misses)\n' \
	$((cold / 1000)) $((cold % 1000)) $((warm / 1000)) $((warm % 1000)) $((ncu + 2)) \
	"$(stat_of "$w" remote_storage_hit)" "$(stat_of "$w" cache_miss)"
awk -v c="$cold" -v w="$warm" 'BEGIN { printf "warm is %.1fx faster (goal: at least 20x)\n", (w > 0 ? c / w : 0) }'
