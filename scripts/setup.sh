#!/bin/bash
# One entry point for README's two commands and for CI, on Debian 12 as root:
#   scripts/setup.sh demo   install, build, run the main job
#   scripts/setup.sh test   install, build, run the whole suite; the last line
#                           is "N passed, M failed"
set -euo pipefail
mode=${1:-}
case "$mode" in demo|test) ;; *) echo "usage: $0 demo|test" >&2; exit 2 ;; esac
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

# Every package the build, the demo and the tests need. CI starts from a
# machine where nothing was installed by hand. rsync, bc, unzip and wget:
# Buildroot's make insists on them (make check-buildroot-build).
packages=(
	build-essential autoconf automake libtool pkg-config git ca-certificates
	libelf-dev libarchive-dev libcjson-dev libcurl4-openssl-dev nettle-dev openssl
	gcc-aarch64-linux-gnu g++-aarch64-linux-gnu g++-11-aarch64-linux-gnu
	binutils-aarch64-linux-gnu qemu-user elfutils patchelf file
	bats clang libclang-rt-14-dev python3 xz-utils zstd man-db debian-archive-keyring
	musl-tools cmake meson ninja-build openssh-server openssh-client ccache
	chrpath diffstat cpio gawk locales strace
	rsync bc unzip wget
)
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${packages[@]}"
	# tests/run.bats starts an sshd of its own (never the system's) as this unprivileged
	# user when the suite runs as root: an sshd not run by root logs in only its own user.
	id cuda-xcc-test >/dev/null 2>&1 || useradd --create-home --shell /bin/sh cuda-xcc-test
fi

# bitbake (tests/yocto.bats) insists on the en_US.UTF-8 locale.
if [ "$(id -u)" = 0 ] && ! locale -a 2>/dev/null | grep -qix 'en_US.utf8'; then
	localedef -i en_US -f UTF-8 en_US.UTF-8
fi
# The third-party trees the integration tests drive (poky, meta-oe) are unpacked outside
# the checkout from the snapshots beside it; tests/yocto.bats skips without them.
thirdparty=${XCC_THIRDPARTY:-/var/cache/cuda-xcc/thirdparty}
for t in "$top"/../shared/thirdparty/poky-*.tar.xz "$top"/../shared/thirdparty/meta-openembedded-*.tar.xz; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .tar.xz)
	[ -d "$thirdparty/$name" ] && continue
	rm -rf "$thirdparty/$name.tmp"
	mkdir -p "$thirdparty/$name.tmp" && tar -xJf "$t" -C "$thirdparty/$name.tmp" &&
		mv "$thirdparty/$name.tmp" "$thirdparty/$name"
done
# Buildroot's snapshot holds buildroot/ (tests/buildroot.bats skips without it).
for t in "$top"/../shared/thirdparty/buildroot-*.tar.xz; do
	[ -f "$t" ] || continue
	[ -f "$thirdparty/buildroot/Makefile" ] && continue
	rm -rf "$thirdparty/buildroot.tmp"
	mkdir -p "$thirdparty/buildroot.tmp" && tar -xJf "$t" -C "$thirdparty/buildroot.tmp" &&
		rm -rf "$thirdparty/buildroot" && mv "$thirdparty/buildroot.tmp/buildroot" "$thirdparty/buildroot" &&
		rmdir "$thirdparty/buildroot.tmp"
done

autoreconf -fi
mkdir -p build
cd build
[ -f Makefile ] || ../configure --enable-warnings-as-errors
make -j"$(nproc)"

# Debian's CUDA 11.8 packages (751 MB) and CUDA 12.4 packages (1.42 GB, about a minute to
# download) live outside the checkout, so reruns reuse them; the demo and tests/e2e.bats find
# the first through XCC_DEB_CACHE, tests/e2e-cuda124.bats the second through XCC_DEB_CACHE_TRIXIE.
export XCC_DEB_CACHE=${XCC_DEB_CACHE:-/var/cache/cuda-xcc/debs}
export XCC_DEB_CACHE_TRIXIE=${XCC_DEB_CACHE_TRIXIE:-/var/cache/cuda-xcc/debs-trixie}

if [ "$mode" = demo ]; then
	exec bash "$top/scripts/demo.sh" "$top/build/src/cuda-xcc"
fi

# CI's time goes to the three passes below; each phase says how long it took.
phase_start=$SECONDS
phase_done() {
	echo "setup.sh: $1 took $((SECONDS - phase_start)) s"
	phase_start=$SECONDS
}

# Two builds run in the background while the CUDA packages download and the normal pass
# runs (neither keeps both cores busy all the time): the static musl build, whose
# libraries are cached outside the checkout so that a rerun rebuilds only cuda-xcc, and
# the sanitizer build. XCC_STATIC_ALLOW_OLDER names source packages the static build may
# take older than the versions installed here (build-static.sh --allow-older), when the
# mirror lacks the newer source; `cuda-xcc --version --verbose` then says so.
static=/var/cache/cuda-xcc/static
san=$top/build-san
rm -f test-suite-static.log static-build.log static-pass.log "$san/test-suite-sanitizers.log" \
	"$san/sanitizer-findings.log"
(
	SECONDS=0
	nice bash "$top/scripts/build-static.sh" --cache "$static" -j"$(nproc)" \
		${XCC_STATIC_ALLOW_OLDER:+--allow-older "$XCC_STATIC_ALLOW_OLDER"}
	echo "setup.sh: the static build took $SECONDS s"
) >static-build.log 2>&1 &
static_pid=$!
(
	SECONDS=0
	mkdir -p "$san" && cd "$san"
	[ -f Makefile ] || ../configure --enable-sanitizers --enable-warnings-as-errors
	nice make -j"$(nproc)"
	echo "setup.sh: the sanitizer build took $SECONDS s"
) >san-build.log 2>&1 &
san_pid=$!

bash "$top/scripts/fetch-debian-cuda.sh" --cache "$XCC_DEB_CACHE" >/dev/null ||
	echo "setup.sh: could not fetch the CUDA 11.8 packages; tests/e2e.bats will skip" >&2
bash "$top/scripts/fetch-debian-cuda.sh" --release trixie --cache "$XCC_DEB_CACHE_TRIXIE" >/dev/null ||
	echo "setup.sh: could not fetch the CUDA 12.4 packages; tests/e2e-cuda124.bats will skip" >&2
# Debian 11's arm64 C runtime (7 MB): tests/target-root.bats makes a JetPack-5-like root of it.
export XCC_DEB_CACHE_BULLSEYE=${XCC_DEB_CACHE_BULLSEYE:-/var/cache/cuda-xcc/debs-bullseye}
bash "$top/scripts/fetch-target-root.sh" --fetch-only --cache "$XCC_DEB_CACHE_BULLSEYE" >/dev/null ||
	echo "setup.sh: could not fetch the bullseye packages; tests/target-root.bats will skip" >&2
phase_done "fetching the CUDA packages"

# The bats files wait on servers, timeouts, qemu and bitbake's daemon as much as they
# compute (tests/lib/run-bats.sh records both times): twice as many files as cores
# keep the cores busy.
test_jobs=$((2 * $(nproc)))

# 1. The whole suite against the normal binary.
make -j"$test_jobs" check || true
phase_done "the normal pass (make check)"
bash "$top/scripts/test-times.sh" . 8

# patchelf's own test suite (from Debian's source package, cached outside the checkout)
# against cuda-xcc-patchelf: every test upstream patchelf passes here must pass. Its
# summary is counted in the closing line; if the script cannot run, the log is missing
# and the summary counts a failure.
rm -f test-suite-patchelf-upstream.log
bash "$top/scripts/patchelf-upstream-suite.sh" --xcc "$top/build/src/cuda-xcc" \
	--log test-suite-patchelf-upstream.log || true
phase_done "patchelf's upstream suite"

# 2. and 3. run side by side: the static pass in this build directory, the sanitizer
# pass in its own.
# 2. Against the static binary, every test whose answer depends on the binary, and
# tests/static.bats (make check-static). If the static build fails,
# test-suite-static.log is missing and the summary counts a failure.
static_pass_pid=
if wait "$static_pid"; then
	make -j"$(nproc)" check-static CUDA_XCC_STATIC="$static/cuda-xcc/src/cuda-xcc" \
		>static-pass.log 2>&1 &
	static_pass_pid=$!
fi

# 3. Built with AddressSanitizer (leaks included) and UBSan: the unit tests and the
# bats files that run cuda-xcc's code (make check-sanitizers-ci; see Makefile.am; the
# fuzz targets' seeds ran in pass 1, which builds them with the sanitizers). Every report counts as a failure
# (sanitizer-findings.log). If this build fails, its logs are missing and the summary
# counts that as a failure too.
if wait "$san_pid"; then
	tail -n 1 san-build.log
	# As many slots as the normal pass: the static pass, beside it, is
	# the shorter, and the sanitized files wait on servers and qemu too.
	(cd "$san" && make -j"$test_jobs" check-sanitizers-ci) || true
else
	cat san-build.log
fi
phase_done "the sanitizer pass (make check-sanitizers-ci)"
[ -z "$static_pass_pid" ] || wait "$static_pass_pid" || true
cat static-build.log
[ ! -f static-pass.log ] || grep -E '^(# [A-Z]+:|(FAIL|ERROR|XPASS):)' static-pass.log
phase_done "the rest of the static pass (make check-static)"
bash "$top/scripts/test-times.sh" . 5
bash "$top/scripts/test-times.sh" "$san" 5
exec bash "$top/scripts/summarize-tests.sh" test-suite.log test-suite-static.log \
	test-suite-patchelf-upstream.log "$san/test-suite-sanitizers.log" "$san/sanitizer-findings.log"
