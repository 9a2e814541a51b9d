#!/bin/bash
# nvcc's host compile through distcc against the same build all local, in the same run:
#
#   bench/distcc.sh SYSROOT [BINARY]      (NCU=8 CUDA sources, JOBS=4, REPS=1 by default)
#
# One CMake project (NCU .cu files with two GPUs each and one C++ file) is configured twice
# through the shipped toolchain file: once as it is, once with
# CUDA_XCC_HOST_COMPILER_LAUNCHER=distcc. Each build (configure excluded) runs at -jJOBS,
# REPS times, the two alternating. Unless DISTCC_HOSTS is set (real servers, each with the
# sysroot's cross g++ at the same path), two distccd on 127.0.0.1 are the servers: they share
# this machine's CPUs, so the ratio then shows what distcc's round trip costs, not what more
# machines would gain. To see that on one machine, LOCAL_CPUS and DAEMON_CPUS (taskset CPU
# lists, e.g. 0 and 1) pin the builds and the daemons to CPUs of their own, as if the
# daemons ran elsewhere. Prints each build's wall time, the ratio, and how many host
# compiles the local daemons ran. XCC_WRAPPERS names the wrappers/ directory whose CMake file
# is used (bench/all.sh passes the one of the build it measures; default: this tree's).
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: bench/distcc.sh SYSROOT [BINARY]" >&2; exit 2; }
sysroot=$(realpath "$1")
bin=$(realpath "${2:-${CUDA_XCC:-src/cuda-xcc}}")
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/cuda-project.sh"
ncu=${NCU:-8} jobs=${JOBS:-4} reps=${REPS:-1}
pin_local=() pin_daemons=()
[ -z "${LOCAL_CPUS:-}" ] || pin_local=(taskset -c "$LOCAL_CPUS")
[ -z "${DAEMON_CPUS:-}" ] || pin_daemons=(taskset -c "$DAEMON_CPUS")
for tool in distcc distccd cmake python3 ${LOCAL_CPUS:+taskset} ${DAEMON_CPUS:+taskset}; do
	command -v "$tool" >/dev/null || { echo "distcc.sh: needs $tool" >&2; exit 2; }
done
work=$(mktemp -d)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

own_daemons=0
if [ -z "${DISTCC_HOSTS:-}" ]; then
	own_daemons=1
	hosts=()
	for n in 1 2; do
		port=$(free_port)
		# --log-stderr: a distccd started as root runs as the distccd user, which could
		# not open a log file of ours.
		: > "$work/distccd-$n.log"
		"${pin_daemons[@]}" distccd --daemon --no-detach --listen 127.0.0.1 --allow 127.0.0.1 --port "$port" \
			--jobs 2 --log-level info --log-stderr </dev/null >/dev/null 2>"$work/distccd-$n.log" &
		pids+=($!)
		hosts+=("127.0.0.1:$port/2")
		for ((i = 0; i < 50; i++)); do
			grep -q "listening on 127.0.0.1:$port" "$work/distccd-$n.log" && break
			sleep 0.1
		done
	done
	export DISTCC_HOSTS="${hosts[*]}"
fi
# No fallback: a host compile that does not leave fails the build instead of running here.
export DISTCC_FALLBACK=0 DISTCC_DIR=$work/distcc-dir
mkdir -p "$DISTCC_DIR"

bench_cuda_project "$work/src" "$ncu"
configure() {
	local b=$1
	shift
	cmake -S "$work/src" -B "$b" -DCMAKE_TOOLCHAIN_FILE="${XCC_WRAPPERS:-$src/wrappers}/cmake/cuda-xcc-toolchain.cmake" \
		-DCUDA_XCC_SYSROOT="$sysroot" -DCUDA_XCC_EXECUTABLE="$bin" \
		-DCMAKE_CUDA_ARCHITECTURES="80-real;90-real" -DCMAKE_BUILD_TYPE=Release "$@" \
		> "$b.configure.log" 2>&1 || { cat "$b.configure.log" >&2; return 1; }
}
configure "$work/local"
configure "$work/distcc" -DCUDA_XCC_HOST_COMPILER_LAUNCHER=distcc

# build DIR: a clean build's wall time and the CPU time it took here (its processes and
# theirs, not the daemons'), both in ms. The CPU time is what a loaded machine does not
# blur: fields 16 and 17 of /proc/PID/stat of the shell that waited for the build.
build() {
	local t0 t1 ticks
	cmake --build "$1" --target clean > /dev/null
	t0=$(date +%s%N)
	ticks=$(bash -c '"$@" > "$0.build.log" 2>&1 || exit 1; read -r -a st < /proc/$$/stat
		echo $((st[15] + st[16]))' "$1" "${pin_local[@]}" cmake --build "$1" -j"$jobs") ||
		{ cat "$1.build.log" >&2; return 1; }
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000)) $((ticks * 1000 / $(getconf CLK_TCK)))
}

secs() { printf '%d.%03d s' $(($1 / 1000)) $(($1 % 1000)); }
sum_local=0 sum_distcc=0 cpu_local=0 cpu_distcc=0
for ((r = 1; r <= reps; r++)); do
	read -r l lc < <(build "$work/local")
	read -r d dc < <(build "$work/distcc")
	sum_local=$((sum_local + l)) sum_distcc=$((sum_distcc + d))
	cpu_local=$((cpu_local + lc)) cpu_distcc=$((cpu_distcc + dc))
	printf 'run %d: local %s (CPU here %s), host compiles through distcc %s (CPU here %s)\n' \
		"$r" "$(secs "$l")" "$(secs "$lc")" "$(secs "$d")" "$(secs "$dc")"
done
sent=
if [ "$own_daemons" -eq 1 ]; then
	# nvcc names the host compile's input after its temporary (…_k0.compute_90.cudafe1.cpp),
	# or after the object where the driver keeps it by the object (k0.cu.o.compute_90...).
	sent=$(cat "$work"/distccd-*.log | grep -Ec 'COMPILE_OK .*[/_]k[0-9]+(\.cu\.o)?(\.compute_[0-9]+)?\.cudafe1\.cpp$' || true)
	sent="$sent host compiles ran on the two distccd of 127.0.0.1 (CPUs ${DAEMON_CPUS:-shared with the builds}"
	sent+="${LOCAL_CPUS:+; the builds on CPUs $LOCAL_CPUS}; this machine has $(nproc))"
fi
awk -v l="$sum_local" -v d="$sum_distcc" -v lc="$cpu_local" -v dc="$cpu_distcc" -v n="$ncu" \
	-v j="$jobs" -v s="$sent" 'BEGIN {
	printf "%d .cu files, -j%d: wall distributed/local = %.2f; CPU here distributed/local = %.2f", n, j,
		(l > 0 ? d / l : 0), (lc > 0 ? dc / lc : 0)
	printf " (%.0f %% of the local CPU left the machine)\n", (lc > 0 ? 100 * (lc - dc) / lc : 0)
	if (s != "") print s }'
