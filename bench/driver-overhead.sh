#!/bin/bash
# What the cuda-xcc driver adds to each nvcc call, against nvcc itself in the same run:
#
#   bench/driver-overhead.sh SYSROOT [BINARY]        (N=20 by default)
#
# BINARY defaults to src/cuda-xcc; cuda-xcc-nvcc beside it (the driver alone, linked without
# libcurl and libarchive) is measured too.
# Both run nvcc with -dryrun (nvcc parses its arguments, reads nvcc.profile and asks the host
# compiler for its version, and compiles nothing), the direct one with the very command line
# the driver would exec (its --dry-run output). The CPU time (user + system, children
# included) of each run is taken; runs alternate so that a noisy moment hits both, and the
# median of N counts. Also shown, to say where the difference goes: the driver planning alone
# (--dry-run, no nvcc) and its bare start (--version), against a program that does nothing.
# Goal: the driver within 5 ms of CPU of a direct nvcc start.
set -euo pipefail
n=${N:-20}
[ $# -ge 1 ] || { echo "usage: bench/driver-overhead.sh SYSROOT [BINARY]" >&2; exit 2; }
sysroot=$1
bin=${2:-${CUDA_XCC:-src/cuda-xcc}}
[ -x "$bin" ] || { echo "driver-overhead.sh: $bin is not an executable file" >&2; exit 2; }
[ -x "$sysroot/bin/nvcc" ] || { echo "driver-overhead.sh: $sysroot has no bin/nvcc" >&2; exit 2; }
bin=$(realpath "$bin")
sysroot=$(realpath "$sysroot")
caps=$("$bin" sysroot info "$sysroot" --json | python3 -c 'import json,sys; print(" ".join(json.load(sys.stdin)["capabilities"]))')
arch=()
for c in $caps; do arch+=(-arch "$c"); done
[ ${#arch[@]} -gt 0 ] || arch=(-arch sm_90)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '__global__ void k(float *x) { x[threadIdx.x] *= 2.0f; }\n' > "$work/k.cu"
cd "$work"
driver=("$bin" --sysroot "$sysroot" "${arch[@]}" -c k.cu -o k.o)
# The driver's nvcc command line, one argument a line (no argument holds a space here).
read -r -a direct <<< "$("${driver[@]}" --dry-run)"
direct+=(-dryrun)
driver+=(-dryrun)

# Milliseconds of CPU (user + system, children included) of one run of "$@".
cpu_ms() {
	local TIMEFORMAT='%3U %3S' t
	t=$({ time "$@" >/dev/null 2>&1; } 2>&1)
	awk '{ printf "%.1f\n", ($1 + $2) * 1000 }' <<< "$t"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

nvcc_only=$(dirname "$bin")/cuda-xcc-nvcc
lean=("$nvcc_only" "${driver[@]:1}")
names=(nvcc driver lean plan start true)
[ -x "$nvcc_only" ] || names=(nvcc driver plan start true)
declare -A runs
for name in "${names[@]}"; do runs[$name]=; done
"${direct[@]}" >/dev/null 2>&1 # warm the page cache
"${driver[@]}" >/dev/null 2>&1
for ((i = 0; i < n; i++)); do
	runs[nvcc]+="$(cpu_ms "${direct[@]}") "
	runs[driver]+="$(cpu_ms "${driver[@]}") "
	[ -x "$nvcc_only" ] && runs[lean]+="$(cpu_ms "${lean[@]}") "
	runs[plan]+="$(cpu_ms "$bin" --sysroot "$sysroot" "${arch[@]}" --dry-run -c k.cu) "
	runs[start]+="$(cpu_ms "$bin" --version) "
	runs[true]+="$(cpu_ms /bin/true) "
done
declare -A med
for name in "${names[@]}"; do
	[ -n "${runs[$name]}" ] || continue
	med[$name]=$(tr ' ' '\n' <<< "${runs[$name]}" | grep . | median)
done
printf 'CPU per call, median of %d (ms):\n' "$n"
printf '  nvcc -dryrun, direct          %7.1f\n' "${med[nvcc]}"
printf '  nvcc -dryrun, through driver  %7.1f\n' "${med[driver]}"
[ -z "${med[lean]:-}" ] || printf '  nvcc -dryrun, cuda-xcc-nvcc   %7.1f\n' "${med[lean]}"
printf '  driver planning alone         %7.1f   (--dry-run: opens the sysroot, no nvcc)\n' "${med[plan]}"
printf '  cuda-xcc --version            %7.1f   (a command: the start-up of cuda-xcc-full, where it has one)\n' "${med[start]}"
printf '  /bin/true                     %7.1f\n' "${med[true]}"
awk -v d="${med[driver]}" -v v="${med[nvcc]}" 'BEGIN {
	printf "driver overhead: %.1f ms of CPU per nvcc call (%.2fx nvcc -dryrun); goal: at most 5 ms\n",
		d - v, (v > 0 ? d / v : 0) }'
[ -z "${med[lean]:-}" ] || awk -v d="${med[lean]}" -v v="${med[nvcc]}" 'BEGIN {
	printf "cuda-xcc-nvcc overhead: %.1f ms of CPU per nvcc call (%.2fx nvcc -dryrun)\n",
		d - v, (v > 0 ? d / v : 0) }'
