#!/usr/bin/env bats
# A userland matched to the board by construction: scripts/fetch-cross-toolchain.sh unpacks
# Debian bullseye's aarch64 g++ 10 (glibc 2.31, libstdc++ GLIBCXX_3.4.28, JetPack 5's), and
# sysroot create records it as the host compiler for a --jetpack or --target-fs board whose
# userland is older than the cross g++ on PATH (Debian 12's: glibc 2.36). Then a C++17
# program with std::thread, std::shared_ptr, std::filesystem and a CUDA kernel links against
# JetPack 5's Debian 11 root (fetch-target-root.sh --jetpack 5), needs nothing above its
# floor, and runs there under qemu; with Debian 12's g++ it does not link
# (__libc_single_threaded), and cuda-xcc says why and what to run. --jetpack 5.1.2 alone
# takes both the root and the toolchain from where their scripts put them; the real builds
# give the root as --target-fs, since Debian's CUDA is the SBSA build and JetPack is Jetson's.
#
# The packages come from caches scripts/setup.sh fills: the toolchain's
# ($XCC_DEB_CACHE_TOOLCHAINS, default /var/cache/cuda-xcc/debs-toolchains), the Debian 11
# root's ($XCC_DEB_CACHE_BULLSEYE) and CUDA 11.8's ($XCC_DEB_CACHE). Without them the tests
# that need them skip.
load lib/common
load lib/e2e
bats_require_minimum_version 1.5.0

tc_cache() { echo "${XCC_DEB_CACHE_TOOLCHAINS:-/var/cache/cuda-xcc/debs-toolchains}"; }
bullseye_cache() { echo "${XCC_DEB_CACHE_BULLSEYE:-/var/cache/cuda-xcc/debs-bullseye}"; }

setup_file() {
	local from=() d
	export MT_DIR=$BATS_FILE_TMPDIR
	# Sysroot create looks for matched toolchains under $XDG_CACHE_HOME/cuda-xcc/toolchains.
	export XDG_CACHE_HOME=$MT_DIR/xdg
	export XCC_DEB_CACHE_TOOLCHAINS=$(tc_cache)
	# JetPack 5's root (Debian 11, described in cuda-xcc-root.json), where the tests give it.
	bash "$XCC_SRCDIR/scripts/fetch-target-root.sh" --cache "$(bullseye_cache)" --jetpack 5 \
		--dest "$MT_DIR/root" > "$MT_DIR/root.log" 2>&1 || true
	# Unpacking only when the cache has the packages: a test that needs them says so.
	if [ "$(ls "$(tc_cache)"/*bullseye* "$(tc_cache)"/*10.2.1-6cross1* 2>/dev/null | wc -l)" -ge 9 ]; then
		bash "$XCC_SRCDIR/scripts/fetch-cross-toolchain.sh" --release bullseye \
			--dest "$MT_DIR/tc" > "$MT_DIR/tc.log" 2>&1 || true
	fi
	[ -d "$MT_DIR/root" ] || return 0
	[ "$(cuda118_debs | wc -l)" -ge 3 ] || return 0
	while read -r d; do from+=(--from "$d"); done < <(cuda118_debs)
	printf '%s\n' "${from[@]}" > "$MT_DIR/from"
}

need_root() {
	[ -d "$MT_DIR/root/lib/aarch64-linux-gnu" ] ||
		skip "the bullseye arm64 .debs are not in $(bullseye_cache) (run scripts/fetch-target-root.sh --fetch-only)"
}

need_toolchain() {
	if [ ! -x "$MT_DIR/tc/bin/aarch64-linux-gnu-g++-10" ]; then
		[ ! -f "$MT_DIR/tc.log" ] || { cat "$MT_DIR/tc.log" >&2; return 1; }
		skip "bullseye's cross g++ packages are not in $(tc_cache) (run scripts/fetch-cross-toolchain.sh --release bullseye --fetch-only)"
	fi
	need qemu-aarch64 "runs the aarch64 programs"
	need aarch64-linux-gnu-ld "the assembler and linker the toolchain uses"
}

need_cuda() {
	[ -f "$MT_DIR/from" ] || skip "the CUDA 11.8 .debs are not in $(cuda118_cache) (run scripts/fetch-debian-cuda.sh)"
	need aarch64-linux-gnu-g++-11 "CUDA 11.8's host compiler on PATH (g++-11-aarch64-linux-gnu)"
}

# A sysroot of CUDA 11.8 for the Debian 11 root in $1, made with XDG_CACHE_HOME=$2.
make_sysroot() {
	local from=()
	mapfile -t from < "$MT_DIR/from"
	XDG_CACHE_HOME=$2 "$CUDA_XCC" sysroot create --target sbsa --cuda 11.8 --dest "$1" \
		--progress never --target-fs "$MT_DIR/root" "${from[@]}"
}

# The C++17 program of a real Jetson application's shape: a worker thread sharing state
# through shared_ptr, a filesystem check, and a CUDA kernel.
write_program() {
	cat > "$1/app.cu" <<'EOF'
#include <cstdio>
#include <filesystem>
#include <memory>
#include <thread>
#include <cuda_runtime.h>

__global__ void fill(int *p) { *p = 42; }

int main()
{
	auto shared = std::make_shared<int>(7);
	int seen = 0;
	std::thread worker([&] { seen = *shared; });
	worker.join();
	int *d = nullptr;
	cudaError_t e = cudaMalloc(&d, sizeof(int));
	std::printf("worker saw %d, / exists: %d, cudaMalloc: %s\n", seen,
		    (int)std::filesystem::exists("/"), cudaGetErrorName(e));
	return e == cudaSuccess ? 0 : 2;
}
EOF
}

glibc_max() {
	readelf -V "$1" | grep -o 'GLIBC_[0-9][0-9.]*' | sort -uV | tail -1
}

@test "matched-toolchain: the script refuses bad usage and an existing directory (exit 2)" {
	run bash "$XCC_SRCDIR/scripts/fetch-cross-toolchain.sh"
	assert_status 2
	assert_output_contains "--release is required: bullseye (glibc 2.31) or bookworm (glibc 2.36)"
	run bash "$XCC_SRCDIR/scripts/fetch-cross-toolchain.sh" --release buster --dest "$BATS_TEST_TMPDIR/x"
	assert_status 2
	assert_output_contains "unknown release 'buster'"
	mkdir -p "$BATS_TEST_TMPDIR/full"
	echo keep > "$BATS_TEST_TMPDIR/full/mine"
	run bash "$XCC_SRCDIR/scripts/fetch-cross-toolchain.sh" --release bullseye --dest "$BATS_TEST_TMPDIR/full"
	assert_status 2
	assert_output_contains "exists and is not empty"
	run cat "$BATS_TEST_TMPDIR/full/mine"
	assert_output_equals keep
	[ ! -e "$BATS_TEST_TMPDIR/x" ]
}

@test "matched-toolchain: the script's pinned releases are the ones sysroots/toolchains.json describes" {
	need python3
	run python3 - "$XCC_SRCDIR/sysroots/toolchains.json" "$XCC_SRCDIR/scripts/fetch-cross-toolchain.sh" <<'EOF'
import json, re, sys
data = json.load(open(sys.argv[1]))
script = open(sys.argv[2]).read()
for tc in data["toolchains"]:
    assert tc["source"].startswith("https://"), tc
    if tc["debian"] == "trixie":
        continue  # its compiler needs glibc 2.38 on the build machine: not offered
    line = "%s) gcc=%d v=%s libc=%s " % (tc["debian"], tc["gcc"], tc["gcc_version"], tc["libc_version"])
    assert line in script, line
print("ok")
EOF
	assert_status 0
	assert_output_equals ok
}

@test "matched-toolchain: bullseye's g++ links C++17 threads and needs nothing above the Debian 11 root" {
	need_root
	need_toolchain
	d=$(scratch)
	run "$MT_DIR/tc/bin/aarch64-linux-gnu-g++-10" -dumpmachine
	assert_output_equals aarch64-linux-gnu
	cat > "$d/t.cpp" <<'EOF'
#include <cstdio>
#include <filesystem>
#include <memory>
#include <thread>
int main() { auto p = std::make_shared<int>(42); std::thread t([p] { std::printf("%d\n", *p); }); t.join(); return !std::filesystem::exists("/"); }
EOF
	"$MT_DIR/tc/bin/aarch64-linux-gnu-g++-10" -std=c++17 -pthread "$d/t.cpp" -o "$d/t"
	[ "$(printf '%s\n' "$(glibc_max "$d/t")" GLIBC_2.30 | sort -V | tail -1)" = GLIBC_2.30 ]
	run qemu-aarch64 -L "$MT_DIR/root" "$d/t"
	assert_status 0
	assert_output_equals 42
	# The tree can be moved: the wrappers find the compiler from their own path.
	mv "$MT_DIR/tc" "$MT_DIR/tc-moved"
	run "$MT_DIR/tc-moved/bin/aarch64-linux-gnu-g++-10" -std=c++17 -pthread "$d/t.cpp" -o "$d/t2"
	mv "$MT_DIR/tc-moved" "$MT_DIR/tc"
	assert_status 0
}

@test "matched-toolchain: create records the matched g++; the program links, checks and runs on the root" {
	need_root
	need_toolchain
	need_cuda
	x=$BATS_TEST_TMPDIR/xdg
	mkdir -p "$x/cuda-xcc/toolchains"
	cp -a "$MT_DIR/tc" "$x/cuda-xcc/toolchains/bullseye"
	run make_sysroot "$BATS_TEST_TMPDIR/S" "$x"
	assert_status 0
	assert_output_contains "note: host compiler: Debian bullseye's g++ 10 (glibc 2.31: up to GLIBC_2.30, GLIBCXX_3.4.28), matched to the --target-fs root (libc up to GLIBC_2.30, libstdc++ up to GLIBCXX_3.4.28)"
	run "$CUDA_XCC" sysroot info "$BATS_TEST_TMPDIR/S"
	assert_output_contains "host compiler  $x/cuda-xcc/toolchains/bullseye/bin/aarch64-linux-gnu-g++-10"
	d=$(scratch)
	write_program "$d"
	cd "$d"
	# No option but the GPU: the sysroot's target fs and host compiler do the rest.
	XDG_CACHE_HOME=$x run "$CUDA_XCC" --sysroot "$BATS_TEST_TMPDIR/S" -arch sm_80 -std=c++17 app.cu -o app
	assert_status 0
	[[ "$output" != *warning* ]]
	XDG_CACHE_HOME=$x run "$CUDA_XCC" check-link --strict --sysroot "$BATS_TEST_TMPDIR/S" app
	assert_status 0
	assert_output_equals ""
	[ "$(printf '%s\n' "$(glibc_max app)" GLIBC_2.30 | sort -V | tail -1)" = GLIBC_2.30 ]
	run qemu-aarch64 -L "$MT_DIR/root" ./app
	assert_status 2
	assert_output_contains "worker saw 7, / exists: 1, cudaMalloc: cudaErrorInsufficientDriver"
	# The CMake toolchain file takes the same compilers from the sysroot.
	need cmake
	need ninja
	printf '%s\n' 'cmake_minimum_required(VERSION 3.18)' 'project(matched LANGUAGES C CXX CUDA)' \
		'set(CMAKE_CXX_STANDARD 17)' 'set(CMAKE_CUDA_STANDARD 17)' 'find_package(Threads REQUIRED)' \
		'add_executable(app app.cu)' 'target_link_libraries(app PRIVATE Threads::Threads)' > CMakeLists.txt
	XDG_CACHE_HOME=$x run cmake -S . -B b -G Ninja \
		-DCMAKE_TOOLCHAIN_FILE="$XCC_SRCDIR/wrappers/cmake/cuda-xcc-toolchain.cmake" \
		-DCUDA_XCC_SYSROOT="$BATS_TEST_TMPDIR/S" -DCUDA_XCC_EXECUTABLE="$CUDA_XCC" \
		-DCMAKE_CUDA_ARCHITECTURES=80
	assert_status 0
	run cat b/CMakeFiles/*/CMakeCCompiler.cmake b/CMakeFiles/*/CMakeCXXCompiler.cmake b/CMakeFiles/*/CMakeCUDACompiler.cmake
	assert_output_contains "set(CMAKE_C_COMPILER \"$x/cuda-xcc/toolchains/bullseye/bin/aarch64-linux-gnu-gcc-10\")"
	assert_output_contains "set(CMAKE_CXX_COMPILER \"$x/cuda-xcc/toolchains/bullseye/bin/aarch64-linux-gnu-g++-10\")"
	assert_output_contains "set(CMAKE_CUDA_HOST_COMPILER \"$x/cuda-xcc/toolchains/bullseye/bin/aarch64-linux-gnu-g++-10\")"
	XDG_CACHE_HOME=$x run cmake --build b
	assert_status 0
	run qemu-aarch64 -L "$MT_DIR/root" b/app
	assert_status 2
	assert_output_contains "worker saw 7"
}

@test "matched-toolchain: without it, create and the failed link name the cause and the command, which works pasted" {
	need_root
	need_toolchain
	need_cuda
	x=$BATS_TEST_TMPDIR/xdg
	mkdir -p "$x"
	run make_sysroot "$BATS_TEST_TMPDIR/S" "$x"
	assert_status 0
	assert_output_contains "host compiler aarch64-linux-gnu-g++-11 builds against libc up to GLIBC_2.36, libstdc++ up to GLIBCXX_3.4.30, newer than the --target-fs root (libc up to GLIBC_2.30, libstdc++ up to GLIBCXX_3.4.28)"
	assert_output_contains "fetch-cross-toolchain.sh --release bullseye; then create the sysroot again"
	d=$(scratch)
	write_program "$d"
	cd "$d"
	XDG_CACHE_HOME=$x run "$CUDA_XCC" --sysroot "$BATS_TEST_TMPDIR/S" -arch sm_80 -std=c++17 app.cu -o app
	assert_status 1
	assert_output_contains "undefined reference to \`__libc_single_threaded'"
	assert_output_contains "cuda-xcc: the link may have failed because the host compiler $(command -v aarch64-linux-gnu-g++-11) builds against libc up to GLIBC_2.36"
	assert_output_contains "then build with -ccbin $x/cuda-xcc/toolchains/bullseye/bin/aarch64-linux-gnu-g++-10"
	[ ! -e app ]
	# The command as printed, pasted: it installs the toolchain where create looks.
	cmd=$(printf '%s\n' "$output" | grep -o 'bash [^;]*fetch-cross-toolchain.sh --release bullseye')
	XDG_CACHE_HOME=$x run eval "$cmd"
	assert_status 0
	assert_output_equals "$x/cuda-xcc/toolchains/bullseye/bin/aarch64-linux-gnu-g++-10"
	run make_sysroot "$BATS_TEST_TMPDIR/S" "$x"
	assert_status 0
	assert_output_contains "note: host compiler: Debian bullseye's g++ 10"
	XDG_CACHE_HOME=$x run "$CUDA_XCC" --sysroot "$BATS_TEST_TMPDIR/S" -arch sm_80 -std=c++17 app.cu -o app
	assert_status 0
	run qemu-aarch64 -L "$MT_DIR/root" ./app
	assert_status 2
	assert_output_contains "worker saw 7"
}

@test "matched-toolchain: --jetpack picks per JetPack line, and says where no toolchain matches exactly" {
	need_toolchain
	m=$XCC_SRCDIR/tests/data/manifests/cuda
	x=$BATS_TEST_TMPDIR/xdg
	mkdir -p "$x/cuda-xcc/toolchains"
	cp -a "$MT_DIR/tc" "$x/cuda-xcc/toolchains/bullseye"
	need aarch64-linux-gnu-g++-11 "CUDA 11.8's host compiler on PATH"
	XDG_CACHE_HOME=$x run "$CUDA_XCC" sysroot create --target jetson --cuda 11.8 -arch sm_87 \
		--jetpack 5.1.2 --from "$m/redistrib_11.8.0.json" --dry-run
	assert_status 0
	assert_output_contains "note: host compiler: Debian bullseye's g++ 10 (glibc 2.31: up to GLIBC_2.30, GLIBCXX_3.4.28), matched to JetPack 5.1.2 (libc up to GLIBC_2.31, libstdc++ up to GLIBCXX_3.4.28)"
	[[ "$output" != *"no Debian toolchain has that glibc exactly"* ]]
	assert_output_contains "host compiler $x/cuda-xcc/toolchains/bullseye/bin/aarch64-linux-gnu-g++-10"
	# JetPack 6 is Ubuntu 22.04, glibc 2.35: Debian has no such toolchain; bullseye's is
	# the newest not above it.
	XDG_CACHE_HOME=$x run "$CUDA_XCC" sysroot create --target jetson --cuda 12.6 -arch sm_87 \
		--jetpack 6.1 --from "$m/redistrib_12.6.3.json" --dry-run
	assert_status 0
	assert_output_contains "matched to JetPack 6.1 (libc up to GLIBC_2.35, libstdc++ up to GLIBCXX_3.4.30); no Debian toolchain has that glibc exactly, this is the newest one not above it"
	# JetPack 7 (Ubuntu 24.04, glibc 2.39): Debian 12's own g++ 12 (glibc 2.36) already fits.
	need aarch64-linux-gnu-g++-12 "Debian 12's cross g++"
	XDG_CACHE_HOME=$x run "$CUDA_XCC" sysroot create --target sbsa --cuda 13.0 -arch sm_110 \
		--jetpack 7.0 --from "$m/redistrib_13.0.2.json" --dry-run
	assert_status 0
	[[ "$output" != *"note: host compiler"* ]]
	assert_output_contains "host compiler aarch64-linux-gnu-g++-12"
}

@test "matched-toolchain: --jetpack 5.1.2 alone is one request: JetPack 5's root and bullseye's g++ from the cache, both recorded" {
	need_root
	need_toolchain
	m=$XCC_SRCDIR/tests/data/manifests/cuda
	x=$BATS_TEST_TMPDIR/xdg
	mkdir -p "$x/cuda-xcc/toolchains" "$x/cuda-xcc/roots"
	cp -a "$MT_DIR/tc" "$x/cuda-xcc/toolchains/bullseye"
	cp -a "$MT_DIR/root" "$x/cuda-xcc/roots/jetpack-5"
	need aarch64-linux-gnu-g++-11 "CUDA 11.8's host compiler on PATH"
	XDG_CACHE_HOME=$x run "$CUDA_XCC" sysroot create --target jetson --cuda 11.8 -arch sm_87 \
		--jetpack 5.1.2 --from "$m/redistrib_11.8.0.json" --dry-run
	assert_status 0
	assert_output_contains "note: target fs: the JetPack 5 device root $x/cuda-xcc/roots/jetpack-5 (Debian bullseye 11.11: glibc 2.31, libstdc++ up to GLIBCXX_3.4.28, as the board's)"
	# The compiler is matched to the root itself, read as the board's.
	assert_output_contains "note: host compiler: Debian bullseye's g++ 10 (glibc 2.31: up to GLIBC_2.30, GLIBCXX_3.4.28), matched to the --target-fs root (libc up to GLIBC_2.30, libstdc++ up to GLIBCXX_3.4.28)"
	assert_output_contains "host compiler $x/cuda-xcc/toolchains/bullseye/bin/aarch64-linux-gnu-g++-10"
	assert_output_contains "target fs $x/cuda-xcc/roots/jetpack-5"
	# Neither there: each note names its command.
	y=$BATS_TEST_TMPDIR/empty
	mkdir -p "$y"
	XDG_CACHE_HOME=$y run "$CUDA_XCC" sysroot create --target jetson --cuda 11.8 -arch sm_87 \
		--jetpack 5.1.2 --from "$m/redistrib_11.8.0.json" --dry-run
	assert_status 0
	assert_output_contains "fetch-target-root.sh --jetpack 5 makes it from Debian bullseye's arm64 packages (glibc 2.31, as JetPack 5.1.2's"
	assert_output_contains "fetch-cross-toolchain.sh --release bullseye"
}

@test "matched-toolchain: --host-compiler is checked as -ccbin is (exit 2) and recorded absolute" {
	need_toolchain
	m=$XCC_SRCDIR/tests/data/manifests/cuda
	run "$CUDA_XCC" sysroot create --target jetson --cuda 11.8 -arch sm_87 \
		--from "$m/redistrib_11.8.0.json" --dry-run --host-compiler /nonexistent/g++
	assert_status 2
	assert_output_contains "--host-compiler /nonexistent/g++: no such program"
	need g++ "the build machine's own compiler, which builds for x86_64"
	run "$CUDA_XCC" sysroot create --target jetson --cuda 11.8 -arch sm_87 \
		--from "$m/redistrib_11.8.0.json" --dry-run --host-compiler g++
	assert_status 2
	assert_output_contains "x86_64-linux-gnu"
	ln -s "$MT_DIR/tc/bin/aarch64-linux-gnu-g++-10" "$BATS_TEST_TMPDIR/my-g++-10"
	cd "$BATS_TEST_TMPDIR"
	run "$CUDA_XCC" sysroot create --target jetson --cuda 11.8 -arch sm_87 \
		--from "$m/redistrib_11.8.0.json" --dry-run --host-compiler ./my-g++-10
	assert_status 0
	assert_output_contains "host compiler $MT_DIR/tc/bin/aarch64-linux-gnu-g++-10"
}
