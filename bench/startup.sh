#!/bin/bash
# Start-up cost of `cuda-xcc --version` against /bin/true, both measured in
# this run, as a ratio (the goal for the static binary is under 2x):
#
#   bench/startup.sh [BINARY...]        (N=1000 ROUNDS=3 by default)
#
# BINARY defaults to $CUDA_XCC_STATIC, else src/cuda-xcc. Give the static
# and the glibc build together to compare them. Each tool runs N times in a
# loop per round; rounds alternate between the tools so that a noisy moment
# hits all of them, and the best round counts.
set -euo pipefail
n=${N:-1000}
rounds=${ROUNDS:-3}
[ $# -gt 0 ] || set -- "${CUDA_XCC_STATIC:-src/cuda-xcc}"
for bin in "$@"; do
	[ -x "$bin" ] || { echo "startup.sh: $bin is not an executable file" >&2; exit 2; }
done
ref=/bin/true

loop() {
	local i
	for ((i = 0; i < n; i++)); do "$@" >/dev/null; done
}

# Nanoseconds for one loop of N runs.
loop_ns() {
	local t0 t1
	t0=$(date +%s%N)
	loop "$@"
	t1=$(date +%s%N)
	echo $((t1 - t0))
}

# How each tool is run: /bin/true bare, cuda-xcc with --version.
args_of() { [ "$1" = "$ref" ] || echo --version; }

tools=("$ref" "$@")
declare -A best
for t in "${tools[@]}"; do
	# shellcheck disable=SC2046 # no argument or one
	n=50 loop "$t" $(args_of "$t") # warm the page cache
	best[$t]=
done
for ((r = 0; r < rounds; r++)); do
	for t in "${tools[@]}"; do
		# shellcheck disable=SC2046
		ns=$(loop_ns "$t" $(args_of "$t"))
		if [ -z "${best[$t]}" ] || [ "$ns" -lt "${best[$t]}" ]; then best[$t]=$ns; fi
	done
done

per_call_us() { awk -v ns="$1" -v n="$n" 'BEGIN { printf "%.1f", ns / n / 1000 }'; }
echo "start-up, best of $rounds rounds of $n runs each:"
printf '  %-60s %8s us/run\n' "$ref" "$(per_call_us "${best[$ref]}")"
for bin in "$@"; do
	printf '  %-60s %8s us/run  %sx /bin/true\n' "$bin --version" \
		"$(per_call_us "${best[$bin]}")" \
		"$(awk -v a="${best[$bin]}" -v b="${best[$ref]}" 'BEGIN { printf "%.2f", a / b }')"
done
