#!/bin/bash
# Download the Debian packages (non-free) that make an sbsa CUDA sysroot: the amd64 toolkit
# (host nvcc) and the arm64 development files and runtime (target side).
#
#   scripts/fetch-debian-cuda.sh [--release bookworm|trixie] [--cache DIR]
#
# --release bookworm (the default): Debian 12's CUDA 11.8, 751 MB, cached in $XCC_DEB_CACHE
#   or /var/cache/cuda-xcc/debs.
# --release trixie: Debian 13's CUDA 12.4.1 with cuBLAS (and cuBLASLt), cuFFT, cuSPARSE (and
#   the nvJitLink it needs) and CCCL's headers, 1.55 GB, cached in $XCC_DEB_CACHE_TRIXIE or
#   /var/cache/cuda-xcc/debs-trixie.
#
# Prints the path of each .deb, one per line, on stdout. Copies already in DIR are reused, so
# a second run downloads nothing. apt is driven through a private configuration under
# DIR/apt (its own sources.list and lists directory; scripts/debian-fetch.bash): /etc/apt is
# only read, to learn which Debian mirror this machine uses, and nothing is installed.
set -euo pipefail

usage="usage: $0 [--release bookworm|trixie] [--cache DIR]"
release=bookworm
cache=
while [ $# -gt 0 ]; do
	case "$1" in
	--cache) [ $# -ge 2 ] || { echo "$0: --cache needs a directory" >&2; exit 2; }
		cache=$2; shift 2 ;;
	--cache=*) cache=${1#--cache=}; shift ;;
	--release) [ $# -ge 2 ] || { echo "$0: --release needs bookworm or trixie" >&2; exit 2; }
		release=$2; shift 2 ;;
	--release=*) release=${1#--release=}; shift ;;
	-h|--help) sed -n '2,17s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "$0: unknown argument '$1' ($usage)" >&2; exit 2 ;;
	esac
done

# Pinned versions: the host and target halves must come from the same CUDA build (one source
# package). The suite is the release's own, not its -updates or -security.
case "$release" in
bookworm)
	suite=bookworm
	[ -n "$cache" ] || cache=${XCC_DEB_CACHE:-/var/cache/cuda-xcc/debs}
	# All from source nvidia-cuda-toolkit 11.8.0-5~deb12u1. libnvtoolsext1 (32 kB) is a
	# small aarch64 library that NEEDs libstdc++ and libgcc_s, which no CUDA package
	# provides: it shows what the sysroot's ELF autopatch has to resolve.
	packages=(
		nvidia-cuda-toolkit:amd64=11.8.89~11.8.0-5~deb12u1
		nvidia-cuda-dev:arm64=11.8.89~11.8.0-5~deb12u1
		libcudart11.0:arm64=11.8.89~11.8.0-5~deb12u1
		libnvtoolsext1:arm64=11.8.86~11.8.0-5~deb12u1
	)
	;;
trixie)
	suite=trixie
	[ -n "$cache" ] || cache=${XCC_DEB_CACHE_TRIXIE:-/var/cache/cuda-xcc/debs-trixie}
	# From source nvidia-cuda-toolkit 12.4.1-2: the toolkit (87 MB), the headers and static
	# libraries (929 MB), and the shared cudart, cuBLAS, cuBLASLt (which libcublas NEEDs) and
	# cuFFT; cuSPARSE and nvJitLink, which 12.4's libcusparse.so.12 NEEDs (as libcusparse12's
	# Depends say). From source cccl 2.3.2-2 (arch all, 1.5 MB): libcu++, CUB and Thrust, which
	# 12.4's own headers include (cuda_fp16.h includes <nv/target>).
	packages=(
		nvidia-cuda-toolkit:amd64=12.4.131~12.4.1-2
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
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
# shellcheck source=debian-fetch.bash
. "$(dirname "$0")/debian-fetch.bash"
debian_fetch fetch-debian-cuda "$suite" "$cache" "${packages[@]}"

for p in "${packages[@]}"; do
	echo "$cache/$(debian_deb_name "$p")"
done
