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
# The machine's busy CPU time so far, in seconds (user, nice, system, irq, softirq and
# steal of /proc/stat's first line, in 1/100 s): what the run cost, beside its wall time.
cpu_busy() { awk '$1 == "cpu" { printf "%.0f", ($2 + $3 + $4 + $7 + $8 + $9) / 100 }' /proc/stat; }
cpu_at_start=$(cpu_busy)

# Every package the build, the demo and the tests need. CI starts from a
# machine where nothing was installed by hand. rsync, bc, unzip and wget:
# Buildroot's make insists on them (make check-buildroot-build).
# python3-magic, python3-flake8: Buildroot's utils/check-package (tests/buildroot.bats).
# sccache, distcc: the shared-cache and distribution tests (tests/cache.bats, tests/distcc.bats).
# pseudo: the fakeroot of make check-bitbake-build (tests/bitbake-build.bats).
# dpkg-dev, gpg, gpgv: the apt repository fixtures (dpkg-scanpackages, a signing key) and the
# signature check of sysroot create's signed-by= (tests/aptrepo.bats).
packages=(
	build-essential autoconf automake libtool pkg-config git ca-certificates
	libelf-dev libarchive-dev libcjson-dev libcurl4-openssl-dev nettle-dev openssl
	gcc-aarch64-linux-gnu g++-aarch64-linux-gnu g++-11-aarch64-linux-gnu
	binutils-aarch64-linux-gnu qemu-user elfutils patchelf file
	bats clang libclang-rt-14-dev python3 xz-utils zstd man-db debian-archive-keyring
	musl-tools cmake meson ninja-build openssh-server openssh-client ccache redis-server
	chrpath diffstat cpio gawk locales strace shellcheck
	rsync bc unzip wget
	python3-magic python3-flake8
	sccache distcc pseudo
	dpkg-dev gpg gpgv
)
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${packages[@]}"
	# tests/run.bats starts an sshd of its own (never the system's) as this unprivileged
	# user when the suite runs as root: an sshd not run by root logs in only its own user.
	id cuda-xcc-test >/dev/null 2>&1 || useradd --create-home --shell /bin/sh cuda-xcc-test
	# distccd runs only the compilers linked in /usr/lib/distcc; whether the cross g++ is
	# there depends on the order apt configured the packages in (tests/distcc.bats).
	if command -v update-distcc-symlinks >/dev/null; then update-distcc-symlinks; fi
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

# Debian's CUDA 11.8 packages (751 MB) and CUDA 12.4 packages (1.55 GB, about a minute to
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
# runs: the static musl build, whose libraries are cached outside the checkout so that a
# rerun rebuilds only cuda-xcc, and the sanitizer build. XCC_STATIC_ALLOW_OLDER names source packages the static build may
# take older than the versions installed here (build-static.sh --allow-older), when the
# mirror lacks the newer source; `cuda-xcc --version --verbose` then says so.
# The static build is not niced: on an empty cache it is the longest chain (some 750 s
# of CPU here), and the static pass waits for it. Niced, it got 170 s of CPU during a
# 781 s first pass and was done 922 s after it.
static=/var/cache/cuda-xcc/static
san=$top/build-san
# A previous run's logs go first: the summary counts a missing one as a failure.
rm -f test-suite-static.log static-build.log static-pass.log test-suite-patchelf-upstream.log \
	patchelf-upstream.log san-pass.log "$san/test-suite-sanitizers.log" "$san/sanitizer-findings.log"
(
	SECONDS=0
	bash "$top/scripts/build-static.sh" --cache "$static" -j"$(nproc)" \
		${XCC_STATIC_ALLOW_OLDER:+--allow-older "$XCC_STATIC_ALLOW_OLDER"}
	echo "setup.sh: the static build took $SECONDS s"
) >static-build.log 2>&1 &
static_pid=$!
(
	SECONDS=0
	mkdir -p "$san" && cd "$san"
	# -O1, as ASan's own documentation suggests: the build costs 40% less CPU
	# than at -O2, beside the first pass.
	[ -f Makefile ] || ../configure --enable-sanitizers --enable-warnings-as-errors CFLAGS='-g -O1'
	nice make -j"$(nproc)"
	echo "setup.sh: the sanitizer build took $SECONDS s"
) >san-build.log 2>&1 &
san_pid=$!

bash "$top/scripts/fetch-debian-cuda.sh" --cache "$XCC_DEB_CACHE" >/dev/null ||
	echo "setup.sh: could not fetch the CUDA 11.8 packages; tests/e2e.bats will skip" >&2
# the libraries of tests/e2e-libs118.bats and of e2e-cuda124's NVRTC and cuSOLVER tests
bash "$top/scripts/fetch-debian-cuda.sh" --cache "$XCC_DEB_CACHE" \
	--components cuda_nvrtc,libcusparse,libcusolver,cuda_cccl >/dev/null ||
	echo "setup.sh: could not fetch the CUDA 11.8 libraries; tests/e2e-libs118.bats will skip" >&2
bash "$top/scripts/fetch-debian-cuda.sh" --release trixie --cache "$XCC_DEB_CACHE_TRIXIE" \
	--components libcusolver,cuda_nvrtc >/dev/null ||
	echo "setup.sh: could not fetch the CUDA 12.4 packages; tests/e2e-cuda124.bats will skip" >&2
# Debian 11's arm64 C runtime (7 MB): tests/target-root.bats makes a JetPack-5-like root of it.
export XCC_DEB_CACHE_BULLSEYE=${XCC_DEB_CACHE_BULLSEYE:-/var/cache/cuda-xcc/debs-bullseye}
bash "$top/scripts/fetch-target-root.sh" --fetch-only --cache "$XCC_DEB_CACHE_BULLSEYE" >/dev/null ||
	echo "setup.sh: could not fetch the bullseye packages; tests/target-root.bats will skip" >&2
# Debian 12's (7 MB): JetPack 7's root (tests/jetpack-roots.bats).
export XCC_DEB_CACHE_BOOKWORM=${XCC_DEB_CACHE_BOOKWORM:-/var/cache/cuda-xcc/debs-bookworm}
bash "$top/scripts/fetch-target-root.sh" --release bookworm --fetch-only --cache "$XCC_DEB_CACHE_BOOKWORM" >/dev/null ||
	echo "setup.sh: could not fetch the bookworm packages; tests/jetpack-roots.bats's JetPack 7 tests will skip" >&2
# Debian 11's aarch64 cross g++ 10 (about 150 MB): the toolchain matched to JetPack 5's glibc
# and libstdc++ (tests/matched-toolchain.bats).
export XCC_DEB_CACHE_TOOLCHAINS=${XCC_DEB_CACHE_TOOLCHAINS:-/var/cache/cuda-xcc/debs-toolchains}
bash "$top/scripts/fetch-cross-toolchain.sh" --release bullseye --fetch-only >/dev/null ||
	echo "setup.sh: could not fetch bullseye's cross g++; tests/matched-toolchain.bats will skip" >&2
phase_done "fetching the CUDA packages"

# The bats files wait on servers, timeouts, qemu and bitbake's daemon as much as they
# compute (tests/lib/run-bats.sh records both times): twice as many files as cores
# keep the cores busy.
test_jobs=$((2 * $(nproc)))

# patchelf's own test suite (from Debian's source package, cached outside the checkout)
# against cuda-xcc-patchelf: every test upstream patchelf passes here must pass. It
# runs in the background beside the first pass (it writes nothing in this build
# directory but its summary, counted in the closing line; if the script cannot run,
# the log is missing and the summary counts a failure).
(
	SECONDS=0
	nice bash "$top/scripts/patchelf-upstream-suite.sh" --xcc "$top/build/src/cuda-xcc" \
		--log test-suite-patchelf-upstream.log || true
	echo "setup.sh: patchelf's upstream suite took $SECONDS s"
) >patchelf-upstream.log 2>&1 &
upstream_pid=$!

# 1. The whole suite against the normal binary.
# Five seconds per fuzz target here (tests/fuzz.bats, 10 by default; make
# fuzz-long for minutes): a smoke run beside the rest of the pass.
XCC_FUZZ_SECONDS=${XCC_FUZZ_SECONDS:-5} make -j"$test_jobs" check || true
phase_done "the normal pass (make check)"
bash "$top/scripts/test-times.sh" . 8

# 2. and 3. run side by side, each as soon as it can: the sanitizer pass in its own
# build directory, the static pass in this one once the first pass is done with it and
# the static build is done (on an empty cache it is still building its libraries).
# 3. Built with AddressSanitizer (leaks included) and UBSan: the unit tests and the
# bats files that run cuda-xcc's code (make check-sanitizers-ci; see Makefile.am; the
# fuzz targets' seeds ran in pass 1, which builds them with the sanitizers). Every
# report counts as a failure (sanitizer-findings.log). If this build fails, its logs
# are missing and the summary counts that as a failure too.
san_pass_pid=
if wait "$san_pid"; then
	tail -n 1 san-build.log
	# As many slots as the first pass: the sanitized files wait on servers and qemu
	# too, and the static pass beside them is the shorter.
	(
		SECONDS=0
		cd "$san" && make -j"$test_jobs" check-sanitizers-ci || true
		echo "setup.sh: the sanitizer pass (make check-sanitizers-ci) took $SECONDS s"
	) >san-pass.log 2>&1 &
	san_pass_pid=$!
else
	cat san-build.log
fi
# 2. Against the static binary, every test whose answer depends on the binary, and
# tests/static.bats (make check-static). If the static build fails,
# test-suite-static.log is missing and the summary counts a failure.
if wait "$static_pid"; then
	phase_done "waiting for the static build"
	make -j"$test_jobs" check-static CUDA_XCC_STATIC="$static/cuda-xcc/src/cuda-xcc" \
		>static-pass.log 2>&1 || true
	phase_done "the static pass (make check-static)"
fi
[ -z "$san_pass_pid" ] || wait "$san_pass_pid" || true
phase_done "the rest of the sanitizer pass"
wait "$upstream_pid" || true
cat static-build.log patchelf-upstream.log
# Each pass's summary and any failing test's line; its log has the rest.
for log in static-pass.log san-pass.log; do
	[ ! -f "$log" ] || grep -E '^(# [A-Z]+:|(FAIL|ERROR|XPASS):|setup.sh:)' "$log" || true
done
bash "$top/scripts/test-times.sh" . 5
bash "$top/scripts/test-times.sh" "$san" 5
echo "setup.sh: $SECONDS s in all, $(($(cpu_busy) - cpu_at_start)) s of CPU (all cores)"
exec bash "$top/scripts/summarize-tests.sh" test-suite.log test-suite-static.log \
	test-suite-patchelf-upstream.log "$san/test-suite-sanitizers.log" "$san/sanitizer-findings.log"
