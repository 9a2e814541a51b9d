#!/bin/bash
# cuda-xcc check against what it replaces, cuobjdump --list-elf plus readelf -V (the device
# code and the symbol version needs), over the same files, one run each, the page cache warm
# for both. The check does more (serving per GPU, floors, DT_NEEDED, the CUDA), so the ratio
# is the whole check against the two listings alone.
#
#   bench/check.sh [--xcc PATH] [--cuobjdump PATH] [--gpu LIST] [DIR|FILE...]
#
# Without operands: the shared libraries of Debian's arm64 CUDA 12.4 and 11.8 packages in
# $XCC_DEB_CACHE_TRIXIE and $XCC_DEB_CACHE (/var/cache/cuda-xcc/debs-trixie, debs), unpacked into a scratch
# directory with dpkg-deb first (the check itself reads .debs in place; unpacking here lets
# both tools read the same files). cuobjdump: --cuobjdump, $CUOBJDUMP, PATH,
# /usr/local/cuda/bin, else the one in the cached nvidia-cuda-toolkit .deb.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
xcc=${CUDA_XCC:-}
cuobjdump=${CUOBJDUMP:-}
gpus=8.7,9.0
inputs=()
while [ $# -gt 0 ]; do
	case "$1" in
	--xcc) xcc=$2; shift 2 ;;
	--cuobjdump) cuobjdump=$2; shift 2 ;;
	--gpu) gpus=$2; shift 2 ;;
	-h|--help) sed -n '2,13s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) inputs+=("$1"); shift ;;
	esac
done
debs=${XCC_DEB_CACHE_TRIXIE:-/var/cache/cuda-xcc/debs-trixie}
debs118=${XCC_DEB_CACHE:-/var/cache/cuda-xcc/debs}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

. "$top/bench/tools.sh"
bench_find_xcc "$top"
bench_find_cuobjdump "$debs" "$scratch"
command -v readelf >/dev/null || { echo "$0: no readelf (apt-get install binutils)" >&2; exit 2; }

if [ ${#inputs[@]} -eq 0 ]; then
	found=0
	for deb in "$debs"/lib*_arm64.deb "$debs118"/lib*_arm64.deb; do
		[ -f "$deb" ] || continue
		mkdir -p "$scratch/libs/$(basename "$deb" .deb)"
		dpkg-deb -x "$deb" "$scratch/libs/$(basename "$deb" .deb)"
		found=1
	done
	[ "$found" = 1 ] || { echo "$0: no arm64 .debs in $debs (run scripts/fetch-debian-cuda.sh --release trixie)" >&2; exit 2; }
	inputs=("$scratch/libs")
fi

# The same files for both: every regular ELF file of the inputs.
files=()
while IFS= read -r -d '' f; do
	[ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] && files+=("$f")
done < <(find "${inputs[@]}" -type f -print0 | sort -z)
[ ${#files[@]} -gt 0 ] || { echo "$0: no ELF file in ${inputs[*]}" >&2; exit 2; }
bytes=$(cat "${files[@]}" | wc -c) # also warms the page cache for both

now() { date +%s.%N; }
echo "cuobjdump: $cuobjdump ($("$cuobjdump" --version | grep -o 'release [0-9.]*'))"
echo "cuda-xcc:  $xcc"
printf 'files: %d ELF files, %.1f MB\n' "${#files[@]}" "$(echo "$bytes / 1048576" | bc -l)"

t0=$(now)
for f in "${files[@]}"; do
	"$cuobjdump" --list-elf "$f" >/dev/null 2>&1 || true
done
t1=$(now)
for f in "${files[@]}"; do
	readelf -V "$f" >/dev/null 2>&1 || true
done
t2=$(now)
status=0
"$xcc" check --gpu "$gpus" "${inputs[@]}" > "$scratch/check.out" 2> "$scratch/check.err" || status=$?
t3=$(now)
[ "$status" -le 1 ] || { cat "$scratch/check.err" >&2; echo "$0: cuda-xcc check failed ($status)" >&2; exit 1; }
c=$(echo "$t1 - $t0" | bc -l)
r=$(echo "$t2 - $t1" | bc -l)
x=$(echo "$t3 - $t2" | bc -l)
tail -n1 "$scratch/check.out"
printf 'cuobjdump --list-elf %.2fs + readelf -V %.2fs = %.2fs; cuda-xcc check --gpu %s %.2fs: %.1fx (%.1fx of cuobjdump alone)\n' \
	"$c" "$r" "$(echo "$c + $r" | bc -l)" "$gpus" "$x" "$(echo "($c + $r) / $x" | bc -l)" "$(echo "$c / $x" | bc -l)"
