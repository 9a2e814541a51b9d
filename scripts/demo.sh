#!/bin/bash
# The main job, for real: fetch Debian 12's CUDA 11.8 packages, make an sbsa sysroot from them,
# cross-compile examples/vector_add.cu for aarch64 with the real nvcc 11.8, and run the
# program under qemu-aarch64. There is no GPU driver under qemu, so the CUDA runtime's first
# call fails with cudaErrorInsufficientDriver (35): that is the expected, correct result.
#
#   scripts/demo.sh /path/to/cuda-xcc
#
# XCC_DEB_CACHE (default /var/cache/cuda-xcc/debs) keeps the 751 MB of packages between runs;
# XCC_DEMO_DIR (default build/demo) holds the sysroot and the programs.
set -euo pipefail
xcc=$1
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${XCC_DEB_CACHE:-/var/cache/cuda-xcc/debs}
work=${XCC_DEMO_DIR:-$top/build/demo}
sysroot=$work/sysroot-sbsa-11.8
mkdir -p "$work"

step() { printf '\n== %s\n' "$*"; }

step "1. the validated nvcc command line for a Jetson Orin build (no sysroot needed to show it)"
echo "\$ cuda-xcc --target jetson --cuda 12.6 -arch sm_87 -### examples/vector_add.cu -o vector_add"
"$xcc" --target jetson --cuda 12.6 -arch sm_87 -### "$top/examples/vector_add.cu" -o vector_add

step "2. Debian 12's CUDA 11.8 packages (amd64 nvcc, arm64 libraries), cached in $cache"
mapfile -t debs < <(bash "$top/scripts/fetch-debian-cuda.sh" --cache "$cache")
ls -l "${debs[@]}"

step "3. an sbsa sysroot from them: $sysroot"
if [ -f "$sysroot/sysroot.json" ]; then
	echo "(already made by an earlier run; remove it to make it again)"
else
	rm -rf "$sysroot"
	# Only the three packages a sysroot needs; libnvtoolsext1 is there for other demos.
	from=()
	for d in "${debs[@]}"; do
		case "$d" in *libnvtoolsext1*) ;; *) from+=(--from "$d") ;; esac
	done
	echo "\$ cuda-xcc sysroot create --target sbsa --cuda 11.8 --dest $sysroot ${from[*]//$cache\//}"
	start=$(date +%s)
	"$xcc" sysroot create --target sbsa --cuda 11.8 --dest "$sysroot" "${from[@]}"
	echo "(made in $(($(date +%s) - start)) s)"
fi
"$sysroot/bin/nvcc" --version | tail -2

step "4. cross-compile examples/vector_add.cu for aarch64, sm_90 (cuda-xcc picks the host compiler)"
cd "$work"
echo "\$ cuda-xcc --sysroot $sysroot -arch sm_90 -### vector_add.cu -o vector_add"
"$xcc" --sysroot "$sysroot" -arch sm_90 -### "$top/examples/vector_add.cu" -o vector_add
"$xcc" --sysroot "$sysroot" -arch sm_90 "$top/examples/vector_add.cu" -o vector_add
"$xcc" --sysroot "$sysroot" -arch sm_90 -cudart shared "$top/examples/vector_add.cu" \
	-o vector_add_shared
for p in vector_add vector_add_shared; do
	echo "-- $p: $(file -b "$p" | cut -d, -f1-2)"
	readelf -d "$p" | grep -E 'NEEDED|RUNPATH|RPATH' | sed 's/^ */   /'
done

step "5. run them under qemu-aarch64 (no GPU, no driver: err=35 is the expected answer)"
unexpected=0
for p in vector_add vector_add_shared; do
	echo "\$ qemu-aarch64 -L /usr/aarch64-linux-gnu ./$p"
	rc=0
	out=$(qemu-aarch64 -L /usr/aarch64-linux-gnu "./$p" 2>&1) || rc=$?
	printf '%s\n(exit status %d)\n' "$out" "$rc"
	case "$out" in *"err=35"*) ;; *) unexpected=1 ;; esac
done
if [ "$unexpected" = 1 ]; then
	echo "demo: a program did not report cudaErrorInsufficientDriver (35); see above" >&2
	exit 1
fi

cat <<EOF

What happened: the real nvcc 11.8 from Debian's nvidia-cuda-toolkit, relocated into a sysroot
with its own profile, compiled vector_add.cu for sm_90 with aarch64-linux-gnu-g++-11, and
linked it against the arm64 libcudart (static, and shared with the sysroot's lib dir as run
path). Under qemu the CUDA runtime starts, finds no libcuda.so.1 and reports
cudaErrorInsufficientDriver (35): on an Arm server or Jetson with a driver it runs the kernel.
EOF
