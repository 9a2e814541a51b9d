#!/bin/bash
# cuda-xcc fatbin --summary against cuobjdump --list-elf on large CUDA libraries,
# both measured in this run, with the page cache warm for both. Also checks that
# both see the same SASS (--list-elf) and PTX (--list-ptx) architecture sets
# (cuda-xcc with --fatbin-sections-only there: cuobjdump reads only those).
#
#   bench/fatbin.sh [--xcc PATH] [--cuobjdump PATH] [FILE...]
#
# Without FILEs: the CUDA libraries under /usr/local/cuda/targets/x86_64-linux/lib
# when cuobjdump is as new as they are, else the biggest static libraries of Debian's arm64
# nvidia-cuda-dev 11.8 package when scripts/fetch-debian-cuda.sh cached it.
# cuobjdump: --cuobjdump, $CUOBJDUMP, PATH, /usr/local/cuda/bin, else the one
# in the cached nvidia-cuda-toolkit .deb (Debian's 11.8; it cannot read the
# zstd-compressed fatbins of CUDA 13 libraries).
# Timing: cuobjdump once per file (seconds), cuda-xcc best of 3 (milliseconds).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
xcc=${CUDA_XCC:-}
cuobjdump=${CUOBJDUMP:-}
files=()
while [ $# -gt 0 ]; do
	case "$1" in
	--xcc) xcc=$2; shift 2 ;;
	--cuobjdump) cuobjdump=$2; shift 2 ;;
	-h|--help) sed -n '2,15s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) files+=("$1"); shift ;;
	esac
done
debs=${XCC_DEB_CACHE:-/var/cache/cuda-xcc/debs}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

. "$top/bench/tools.sh"
bench_find_xcc "$top"
bench_find_cuobjdump "$debs" "$scratch"
echo "cuobjdump: $cuobjdump ($("$cuobjdump" --version | grep -o 'release [0-9.]*'))"
echo "cuda-xcc:  $xcc"

# An older cuobjdump misreads newer fatbins without failing (11.8 lists
# CUDA 13's libcufft as "sm_73"): use the CUDA libraries only with a
# cuobjdump at least as new as they are.
cuobj_major=$("$cuobjdump" --version | sed -n 's/.*release \([0-9]*\)\..*/\1/p')
cuda_lib=/usr/local/cuda/targets/x86_64-linux/lib
cuda_major=$(ls "$cuda_lib"/libcudart.so.* 2>/dev/null | sed -n 's/.*libcudart\.so\.\([0-9]*\)$/\1/p' | head -n1)
if [ ${#files[@]} -eq 0 ] && [ -n "$cuda_major" ] && [ "${cuobj_major:-0}" -ge "$cuda_major" ]; then
	for f in libcublasLt.so libcublas.so libcusparse.so libcufft.so libcusolver.so; do
		[ -f "$cuda_lib/$f" ] && files+=("$cuda_lib/$f")
	done
fi
if [ ${#files[@]} -eq 0 ]; then
	deb=$(ls "$debs"/nvidia-cuda-dev_*_arm64.deb 2>/dev/null | head -n1 || true)
	[ -n "$deb" ] || { echo "$0: no readable library; give FILEs or run scripts/fetch-debian-cuda.sh" >&2; exit 2; }
	echo "extracting the large static libraries of $(basename "$deb") ..."
	want=(libcublasLt_static.a libcublas_static.a libcusparse_static.a libcufft_static.a)
	dpkg-deb --fsys-tarfile "$deb" |
		tar -x -C "$scratch" --wildcards "${want[@]/#/./usr/lib/aarch64-linux-gnu/}"
	for f in "${want[@]}"; do files+=("$scratch/usr/lib/aarch64-linux-gnu/$f"); done
fi

now() { date +%s.%N; }
# The architectures in cuobjdump's listing lines ("ELF file 3: x.sm_80.cubin").
cuobj_set() {
	"$cuobjdump" "$1" "$2" 2>/dev/null | grep -E '^(ELF|PTX) file' |
		grep -o 'sm_[0-9]*[af]\?\.\(cubin\|ptx\)$' | sed 's/\.[a-z]*$//' | sort -u -V | tr '\n' ' ' || true
}
field() { # field LINE sass|ptx
	sed -e "s/^.*: //" -e 's/ lto-ir .*//' <<<"$1" |
		awk -v k="$2" '{ on = 0; for (i = 1; i <= NF; i++) { if ($i == "sass" || $i == "ptx") { on = ($i == k); continue } if (on && $i != "-") printf "%s ", $i } }'
}

total_c=0 total_x=0 same=1
printf '%-28s %9s %12s %9s %8s  %s\n' FILE MB cuobjdump cuda-xcc ratio "sets"
for f in "${files[@]}"; do
	cat "$f" >/dev/null # warm the page cache for both tools
	t0=$(now)
	"$cuobjdump" --list-elf "$f" >/dev/null 2>&1 || true
	t1=$(now)
	c=$(echo "$t1 - $t0" | bc -l)
	best=
	for _ in 1 2 3; do
		t0=$(now)
		line=$("$xcc" fatbin --summary "$f")
		t1=$(now)
		d=$(echo "$t1 - $t0" | bc -l)
		if [ -z "$best" ] || [ "$(echo "$d < $best" | bc -l)" = 1 ]; then best=$d; fi
	done
	# cuobjdump reads only the fatbin sections: compare like with like, and
	# say what the data sections add (kernels a library loads itself).
	sections_only=$("$xcc" fatbin --summary --fatbin-sections-only "$f")
	sass_c=$(cuobj_set --list-elf "$f") ptx_c=$(cuobj_set --list-ptx "$f")
	sass_x=$(field "$sections_only" sass) ptx_x=$(field "$sections_only" ptx)
	if [ "$sass_c" = "$sass_x" ] && [ "$ptx_c" = "$ptx_x" ]; then
		verdict="identical (sass ${sass_x% }; ptx ${ptx_x% })"
		[ "$line" = "$sections_only" ] ||
			verdict="$verdict; with data sections: ${line#*: }"
	else
		verdict="DIFFERENT: cuobjdump sass [$sass_c] ptx [$ptx_c], cuda-xcc sass [$sass_x] ptx [$ptx_x]"
		same=0
	fi
	printf '%-28s %9.1f %11.3fs %8.3fs %7.1fx  %s\n' "$(basename "$f")" \
		"$(echo "$(stat -c %s "$f") / 1048576" | bc -l)" "$c" "$best" "$(echo "$c / $best" | bc -l)" "$verdict"
	total_c=$(echo "$total_c + $c" | bc -l)
	total_x=$(echo "$total_x + $best" | bc -l)
done
printf 'total: cuobjdump %.3fs, cuda-xcc %.3fs: cuda-xcc fatbin --summary is %.1fx faster (goal: 20x)\n' \
	"$total_c" "$total_x" "$(echo "$total_c / $total_x" | bc -l)"
[ "$same" = 1 ] && echo "architecture sets: identical for every file" || { echo "architecture sets: DIFFERENT (see above)"; exit 1; }
