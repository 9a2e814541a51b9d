#!/bin/bash
# `cuda-xcc sysroot verify` (every file's sha256 against what create recorded) against
# `sha256sum` of the same regular files, in one run, on the same (warm) page cache. Prints
# both times, their ratio (about 1.0: verify costs what hashing the files costs, and no
# more), and the time of `verify --metadata-only` for scale.
#
#   bench/verify.sh [--cuda-xcc PATH] [--runs N] [--cache-trixie DIR] [--tmp DIR] [SYSROOT]
#
# SYSROOT must have been made by a cuda-xcc that records digests. Without it, the big one
# is made first (and its create time printed): Debian 13's CUDA 12.4 with cuBLAS, cuFFT and
# cuSPARSE (--components libcublas,libcufft,libcusparse; about 3 GB), from the packages
# scripts/fetch-debian-cuda.sh --release trixie caches. The best of N runs is used.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
xcc=${CUDA_XCC:-$top/build/src/cuda-xcc}
cache_trixie=${XCC_DEB_CACHE_TRIXIE:-/var/cache/cuda-xcc/debs-trixie}
runs=3
tmp=${TMPDIR:-/tmp}
sr=''
made=''
list=''
cleanup() { rm -rf "$list" "$made"; }
trap cleanup EXIT
usage() {
	echo "usage: $0 [--cuda-xcc PATH] [--runs N] [--cache-trixie DIR] [--tmp DIR] [SYSROOT]" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case "$1" in
	--cuda-xcc) xcc=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--cache-trixie) cache_trixie=$2; shift 2 ;;
	--tmp) tmp=$2; shift 2 ;;
	-*) usage ;;
	*) [ -z "$sr" ] || usage; sr=$1; shift ;;
	esac
done
[ -x "$xcc" ] || { echo "$0: $xcc is not built (pass --cuda-xcc PATH)" >&2; exit 2; }
command -v sha256sum >/dev/null || { echo "$0: sha256sum (the reference) is missing" >&2; exit 2; }

now() { date +%s.%N; }
# The best wall time of $runs runs of the command, in seconds.
best_of() {
	local best='' i t0 t1 t
	for ((i = 0; i < runs; i++)); do
		t0=$(now)
		"$@" >/dev/null
		t1=$(now)
		t=$(echo "$t1 - $t0" | bc -l)
		if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
	done
	printf '%.3f' "$best"
}

if [ -z "$sr" ]; then
	c=$cache_trixie
	debs=()
	for pat in nvidia-cuda-toolkit_12.4.*_amd64.deb nvidia-cuda-dev_12.4.*_arm64.deb \
		libcudart12_12.4.*_arm64.deb libcublas12_12.4.*_arm64.deb libcublaslt12_12.4.*_arm64.deb \
		'libcufft11_*~12.4.*_arm64.deb' 'libcu++-dev_*_all.deb' 'libcub-dev_*_all.deb' \
		'libthrust-dev_*_all.deb' 'libcusparse12_*~12.4.*_arm64.deb' libnvjitlink12_12.4.*_arm64.deb; do
		# shellcheck disable=SC2206
		f=($c/$pat)
		[ -f "${f[0]}" ] || { echo "$0: $c has no $pat (run scripts/fetch-debian-cuda.sh --release trixie)" >&2; exit 2; }
		debs+=(--from "${f[0]}")
	done
	made=$(mktemp -d "$tmp/bench-verify.XXXXXX")
	sr=$made/sr
	t0=$(now)
	"$xcc" sysroot create --target sbsa --cuda 12.4 --components libcublas,libcufft,libcusparse \
		--dest "$sr" --progress never "${debs[@]}" >/dev/null
	printf 'create      %.3f s (CUDA 12.4, cuBLAS, cuFFT, cuSPARSE, from %d .debs)\n' \
		"$(echo "$(now) - $t0" | bc -l)" "$((${#debs[@]} / 2))"
fi
head -1 "$sr/sysroot.files" | grep -q '^# cuda-xcc sysroot.files 2' ||
	{ echo "$0: $sr records no digests (made by an older cuda-xcc): make it again" >&2; exit 2; }

# The regular files sysroot.files lists: "f MODE SIZE SHA256 PATH".
list=$(mktemp)
awk '$1 == "f" { sub(/^f [0-7]+ [0-9]+ [0-9a-f]+ /, ""); printf "%s%c", $0, 0 }' \
	"$sr/sysroot.files" > "$list"
files=$(tr -cd '\0' < "$list" | wc -c)
bytes=$(awk '$1 == "f" { s += $3 } END { printf "%d", s }' "$sr/sysroot.files")
hash_all() { (cd "$sr" && xargs -0 sha256sum < "$list"); }

# One untimed pass of each: both then read from the page cache.
"$xcc" sysroot verify "$sr" >/dev/null
hash_all >/dev/null
v=$(best_of "$xcc" sysroot verify "$sr")
s=$(best_of hash_all)
m=$(best_of "$xcc" sysroot verify --metadata-only "$sr")
printf 'sysroot     %s: %d files, %.2f GB\n' "$sr" "$files" "$(echo "$bytes / 1000000000" | bc -l)"
printf 'verify      %s s\n' "$v"
printf 'sha256sum   %s s (the same files)\n' "$s"
printf 'ratio       %.2f (verify / sha256sum)\n' "$(echo "$v / $s" | bc -l)"
printf 'metadata    %s s (verify --metadata-only)\n' "$m"
