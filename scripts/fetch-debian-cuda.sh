#!/bin/bash
# Download the Debian packages (non-free) that make an sbsa CUDA sysroot: the amd64 toolkit
# (host nvcc) and the arm64 development files and runtime (target side).
#
#   scripts/fetch-debian-cuda.sh [--release bookworm|trixie] [--cache DIR] [--components LIST]
#
# --release bookworm (the default): Debian 12's CUDA 11.8, 751 MB, cached in $XCC_DEB_CACHE
#   or /var/cache/cuda-xcc/debs.
# --release trixie: Debian 13's CUDA 12.4.1 with cuBLAS (and cuBLASLt), cuFFT, cuSPARSE (and
#   the nvJitLink it needs), CCCL's headers and the host libnvvm (for -dlto), 1.55 GB, cached in $XCC_DEB_CACHE_TRIXIE or
#   /var/cache/cuda-xcc/debs-trixie.
# --components LIST: also the packages of these sysroot components (comma-separated,
#   as 'cuda-xcc sysroot create --components' names them: libcurand, libcusolver, libnpp,
#   libnvjpeg, cuda_nvrtc, libnvjitlink, cuda_cupti, cuda_nvml_dev, cuda_cccl, ...), and the
#   CUDA packages their Depends name, pinned to the same CUDA build. 'all' is every one of
#   them, and prints (on stderr) the 'cuda-xcc sysroot create --components' list to match.
#   Debian 12's CUDA 11.8 has no nvJitLink, nvFatbin, cuFile or OpenCL package.
#
# Prints the path of each .deb, one per line, on stdout. Copies already in DIR are reused, so
# a second run downloads nothing. apt is driven through a private configuration under
# DIR/apt (its own sources.list and lists directory; scripts/debian-fetch.bash): /etc/apt is
# only read, to learn which Debian mirror this machine uses, and nothing is installed.
set -euo pipefail

usage="usage: $0 [--release bookworm|trixie] [--cache DIR] [--components LIST]"
release=bookworm
cache=
components=
while [ $# -gt 0 ]; do
	case "$1" in
	--cache) [ $# -ge 2 ] || { echo "$0: --cache needs a directory" >&2; exit 2; }
		cache=$2; shift 2 ;;
	--cache=*) cache=${1#--cache=}; shift ;;
	--release) [ $# -ge 2 ] || { echo "$0: --release needs bookworm or trixie" >&2; exit 2; }
		release=$2; shift 2 ;;
	--release=*) release=${1#--release=}; shift ;;
	--components) [ $# -ge 2 ] || { echo "$0: --components needs a list, e.g. libcurand,libnpp" >&2; exit 2; }
		components=$2; shift 2 ;;
	--components=*) components=${1#--components=}; shift ;;
	-h|--help) sed -n '2,23s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "$0: unknown argument '$1' ($usage)" >&2; exit 2 ;;
	esac
done

# Pinned versions: the host and target halves must come from the same CUDA build (one source
# package). The suite is the release's own, not its -updates or -security.
case "$release" in
bookworm)
	suite=bookworm cuda=11.8
	[ -n "$cache" ] || cache=${XCC_DEB_CACHE:-/var/cache/cuda-xcc/debs}
	# All from source nvidia-cuda-toolkit 11.8.0-5~deb12u1. libnvtoolsext1 (32 kB) is a
	# small aarch64 library that NEEDs libstdc++ and libgcc_s, which no CUDA package
	# provides: it shows what the sysroot's ELF autopatch has to resolve. libnvvm4 is the
	# build machine's libnvvm.so, which nvlink loads for -dlto's device link.
	packages=(
		nvidia-cuda-toolkit:amd64=11.8.89~11.8.0-5~deb12u1
		nvidia-cuda-dev:arm64=11.8.89~11.8.0-5~deb12u1
		libcudart11.0:arm64=11.8.89~11.8.0-5~deb12u1
		libnvtoolsext1:arm64=11.8.86~11.8.0-5~deb12u1
		libnvvm4:amd64=11.8.89~11.8.0-5~deb12u1
	)
	;;
trixie)
	suite=trixie cuda=12.4
	[ -n "$cache" ] || cache=${XCC_DEB_CACHE_TRIXIE:-/var/cache/cuda-xcc/debs-trixie}
	# From source nvidia-cuda-toolkit 12.4.1-2: the toolkit (87 MB), the headers and static
	# libraries (929 MB), and the shared cudart, cuBLAS, cuBLASLt (which libcublas NEEDs) and
	# cuFFT; cuSPARSE and nvJitLink, which 12.4's libcusparse.so.12 NEEDs (as libcusparse12's
	# Depends say). From source cccl 2.3.2-2 (arch all, 1.5 MB): libcu++, CUB and Thrust, which
	# 12.4's own headers include (cuda_fp16.h includes <nv/target>). libnvvm4 (trixie's
	# non-free, 12.4.131~12.4.1-2 amd64) is the build machine's libnvvm.so, which nvlink
	# loads for -dlto's device link, as for bookworm.
	packages=(
		nvidia-cuda-toolkit:amd64=12.4.131~12.4.1-2
		libnvvm4:amd64=12.4.131~12.4.1-2
		nvidia-cuda-dev:arm64=12.4.127~12.4.1-2
		libcudart12:arm64=12.4.127~12.4.1-2
		libcublas12:arm64=12.4.5.8~12.4.1-2
		libcublaslt12:arm64=12.4.5.8~12.4.1-2
		libcufft11:arm64=11.2.1.3~12.4.1-2
		libcusparse12:arm64=12.3.1.170~12.4.1-2
		libnvjitlink12:arm64=12.4.127~12.4.1-2
		libcu++-dev:all=2.3.2-2
		libcub-dev:all=2.3.2-2
		libthrust-dev:all=2.3.2-2
	)
	;;
*) echo "$0: unknown release '$release': bookworm (CUDA 11.8) or trixie (CUDA 12.4)" >&2; exit 2 ;;
esac

# Every CUDA library package of trixie's CUDA 12.4.1-2 (and cccl 2.3.2-2), pinned: what
# --components and the Depends of what it fetches may add.
# shellcheck disable=SC2034 # read through the release's nameref below
declare -A trixie_pin=(
	[libcublas12]=arm64=12.4.5.8~12.4.1-2 [libcublaslt12]=arm64=12.4.5.8~12.4.1-2
	[libnvblas12]=arm64=12.4.5.8~12.4.1-2 [libcudart12]=arm64=12.4.127~12.4.1-2
	[libcufft11]=arm64=11.2.1.3~12.4.1-2 [libcufftw11]=arm64=11.2.1.3~12.4.1-2
	[libcurand10]=arm64=11.1.1+~10.3.5.147~12.4.1-2
	[libcusolver11]=arm64=11.6.1.9~12.4.1-2 [libcusolvermg11]=arm64=11.6.1.9~12.4.1-2
	[libcusparse12]=arm64=12.3.1.170~12.4.1-2 [libnvjitlink12]=arm64=12.4.127~12.4.1-2
	[libnvjpeg12]=arm64=12.3.1.117~12.4.1-2 [libnvrtc12]=arm64=12.4.127~12.4.1-2
	[libnvrtc-builtins12.4]=arm64=12.4.127~12.4.1-2 [libcupti12]=arm64=12.4.127~12.4.1-2
	[libcupti-dev]=arm64=12.4.127~12.4.1-2 [libnvidia-ml-dev]=arm64=12.4.127~12.4.1-2
	[libnvtoolsext1]=arm64=12.4.127~12.4.1-2 [libnvfatbin12]=arm64=12.4.127~12.4.1-2
	[libcufile0]=arm64=1.9.1.3~12.4.1-2 [libcufile-rdma1]=arm64=1.9.1.3~12.4.1-2
	[libcufile-dev]=arm64=1.9.1.3~12.4.1-2 [nvidia-opencl-dev]=arm64=12.4.127~12.4.1-2
	[libcu++-dev]=all=2.3.2-2 [libcub-dev]=all=2.3.2-2 [libthrust-dev]=all=2.3.2-2
)
for n in libnppc12 libnppial12 libnppicc12 libnppidei12 libnppif12 libnppig12 libnppim12 \
	libnppist12 libnppisu12 libnppitc12 libnpps12; do
	# shellcheck disable=SC2034 # read through the release's nameref below
	trixie_pin[$n]=arm64=12.2.5.30~12.4.1-2
done
# A sysroot component's packages (the names 'cuda-xcc sysroot create' takes them by).
# shellcheck disable=SC2034 # read through the release's nameref below
declare -A trixie_component=(
	[cuda_cudart]="libcudart12" [libcublas]="libcublas12 libcublaslt12"
	[libcufft]="libcufft11 libcufftw11" [libcurand]="libcurand10"
	[libcusolver]="libcusolver11 libcusolvermg11" [libcusparse]="libcusparse12"
	[libnvjitlink]="libnvjitlink12" [libnvjpeg]="libnvjpeg12"
	[libnpp]="libnppc12 libnppial12 libnppicc12 libnppidei12 libnppif12 libnppig12 libnppim12 libnppist12 libnppisu12 libnppitc12 libnpps12"
	[cuda_nvrtc]="libnvrtc12 libnvrtc-builtins12.4" [cuda_cupti]="libcupti12 libcupti-dev"
	[cuda_nvml_dev]="libnvidia-ml-dev" [cuda_nvtx]="libnvtoolsext1"
	[libnvfatbin]="libnvfatbin12" [libcufile]="libcufile0 libcufile-rdma1 libcufile-dev"
	[cuda_opencl]="nvidia-opencl-dev" [cuda_cccl]="libcu++-dev libcub-dev libthrust-dev"
)
# The same for bookworm's CUDA 11.8.0-5~deb12u1 (and cccl 1.17.2-2, libcu++ 1.8.1-2).
# shellcheck disable=SC2034 # read through the release's nameref below
declare -A bookworm_pin=(
	[libcublas11]=arm64=11.11.3.6~11.8.0-5~deb12u1 [libcublaslt11]=arm64=11.11.3.6~11.8.0-5~deb12u1
	[libnvblas11]=arm64=11.11.3.6~11.8.0-5~deb12u1 [libcudart11.0]=arm64=11.8.89~11.8.0-5~deb12u1
	[libcufft10]=arm64=11.1.1+~10.9.0.58~11.8.0-5~deb12u1
	[libcufftw10]=arm64=11.1.1+~10.9.0.58~11.8.0-5~deb12u1
	[libcurand10]=arm64=11.1.1+~10.3.0.86~11.8.0-5~deb12u1
	[libcusolver11]=arm64=11.4.1.48~11.8.0-5~deb12u1 [libcusolvermg11]=arm64=11.4.1.48~11.8.0-5~deb12u1
	[libcusparse11]=arm64=11.7.5.86~11.8.0-5~deb12u1 [libnvjpeg11]=arm64=11.9.0.86~11.8.0-5~deb12u1
	[libnvrtc11.2]=arm64=11.8.89~11.8.0-5~deb12u1 [libnvrtc-builtins11.8]=arm64=11.8.89~11.8.0-5~deb12u1
	[libcupti11.8]=arm64=11.8.87~11.8.0-5~deb12u1 [libcupti-dev]=arm64=11.8.87~11.8.0-5~deb12u1
	[libnvidia-ml-dev]=arm64=11.8.86~11.8.0-5~deb12u1 [libnvtoolsext1]=arm64=11.8.86~11.8.0-5~deb12u1
	[libcu++-dev]=all=1.8.1-2 [libcub-dev]=all=1.17.2-2 [libthrust-dev]=all=1.17.2-2
)
for n in libnppc11 libnppial11 libnppicc11 libnppidei11 libnppif11 libnppig11 libnppim11 \
	libnppist11 libnppisu11 libnppitc11 libnpps11; do
	# shellcheck disable=SC2034 # read through the release's nameref below
	bookworm_pin[$n]=arm64=11.8.0.86~11.8.0-5~deb12u1
done
# CUDA 11.8 has no nvJitLink, nvFatbin, cuFile nor OpenCL package in Debian 12.
# shellcheck disable=SC2034 # read through the release's nameref below
declare -A bookworm_component=(
	[cuda_cudart]="libcudart11.0" [libcublas]="libcublas11 libcublaslt11"
	[libcufft]="libcufft10 libcufftw10" [libcurand]="libcurand10"
	[libcusolver]="libcusolver11 libcusolvermg11" [libcusparse]="libcusparse11"
	[libnvjpeg]="libnvjpeg11"
	[libnpp]="libnppc11 libnppial11 libnppicc11 libnppidei11 libnppif11 libnppig11 libnppim11 libnppist11 libnppisu11 libnppitc11 libnpps11"
	[cuda_nvrtc]="libnvrtc11.2 libnvrtc-builtins11.8" [cuda_cupti]="libcupti11.8 libcupti-dev"
	[cuda_nvml_dev]="libnvidia-ml-dev" [cuda_nvtx]="libnvtoolsext1"
	[cuda_cccl]="libcu++-dev libcub-dev libthrust-dev"
)
# The release's tables.
declare -n pin=${release}_pin component=${release}_component
base_count=${#packages[@]}
if [ -n "$components" ]; then
	if [ "$components" = all ]; then
		components=$(printf '%s\n' "${!component[@]}" | LC_ALL=C sort | paste -sd, -)
		echo "$0: every component: cuda-xcc sysroot create --target sbsa --cuda $cuda --components $components" >&2
	fi
	for c in ${components//,/ }; do
		if [ -z "${component[$c]+set}" ]; then
			echo "$0: unknown component '$c' for --release $release; known: $(printf '%s\n' "${!component[@]}" | LC_ALL=C sort | tr '\n' ' ')" >&2
			exit 2
		fi
		for n in ${component[$c]}; do
			packages+=("$n:${pin[$n]}")
		done
	done
fi
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
# shellcheck source=debian-fetch.bash
. "$(dirname "$0")/debian-fetch.bash"
# The components' packages with their Depends that are CUDA packages of the same build,
# until nothing is added: a package's own control file says what it needs (libcusolver11:
# libcublas12, libcusparse12, libnvjitlink12...); libc6 and the like the device has. The
# release's own packages are not followed: nvidia-cuda-dev Depends on every CUDA library,
# and a component asked for would bring them all.
dedupe() { printf '%s\n' "$@" | awk '!seen[$0]++'; }
mapfile -t packages < <(dedupe "${packages[@]}")
follow=("${packages[@]:$base_count}")
while :; do
	debian_fetch fetch-debian-cuda "$suite" "$cache" "${packages[@]}"
	added=()
	for p in "${follow[@]}"; do
		deps=$(dpkg-deb -f "$cache/$(debian_deb_name "$p")" Depends 2>/dev/null || true)
		for n in $(printf '%s\n' "$deps" | tr ',|' '\n' | sed 's/(.*//; s/:.*//' | tr -d ' '); do
			[ -n "${pin[$n]+set}" ] || continue
			spec="$n:${pin[$n]}"
			printf '%s\n' "${packages[@]}" "${added[@]}" | grep -qxF "$spec" || added+=("$spec")
		done
	done
	[ ${#added[@]} -gt 0 ] || break
	packages+=("${added[@]}")
	follow=("${added[@]}")
done

for p in "${packages[@]}"; do
	echo "$cache/$(debian_deb_name "$p")"
done
