#!/usr/bin/env bats
# Objects that do not depend on where the sysroot, the checkout or the build tree lie: a
# project with a Thrust/CUB translation unit (CUB passes __FILE__, the sysroot's path, into
# the preprocessed text), C++ and C, built from two trees at different absolute paths, each
# with its own copy of a sysroot made from Debian 13's CUDA 12.4 packages (the toolkit, the
# headers, cudart and CCCL) at a different path: the same bytes in Release and Debug
# (CUDA_XCC_PREFIX_MAP_BUILD_TREE), every compile of the second tree a hit for sccache and
# ccache, and the driver's own compiles alike. Skipped without the packages in
# $XCC_DEB_CACHE_TRIXIE (scripts/fetch-debian-cuda.sh --release trixie).
load lib/common
load lib/e2e

deb_cache() { echo "${XCC_DEB_CACHE_TRIXIE:-/var/cache/cuda-xcc/debs-trixie}"; }
debs() {
	local c
	c=$(deb_cache)
	ls "$c"/nvidia-cuda-toolkit_12.4.*_amd64.deb "$c"/nvidia-cuda-dev_12.4.*_arm64.deb \
		"$c"/libcudart12_12.4.*_arm64.deb "$c"/libcu++-dev_*_all.deb "$c"/libcub-dev_*_all.deb \
		"$c"/libthrust-dev_*_all.deb 2>/dev/null
}

setup_file() {
	e2e_make_sysroot "CUDA 12.4" "" 6 "scripts/fetch-debian-cuda.sh --release trixie" \
		--target sbsa --cuda 12.4
}

setup() {
	e2e_sysroot
	need aarch64-linux-gnu-g++-12 "CUDA 12.4's host compiler (g++-aarch64-linux-gnu)"
	need cmake
	need ninja "the generator of the CMake builds"
}

# The project in $1: a static library of one CUDA source using Thrust and CUB, and a
# program of C++ and C that expand __FILE__ in Debug (assert without NDEBUG).
write_project() {
	mkdir -p "$1"
	cat > "$1/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.21)
project(reduce LANGUAGES C CXX CUDA)
add_library(reduce STATIC kernels/sum.cu)
add_executable(app main.cpp util.c)
target_link_libraries(app PRIVATE reduce)
EOF
	mkdir -p "$1/kernels"
	cat > "$1/kernels/sum.cu" <<'EOF'
#include <cub/device/device_reduce.cuh>
#include <thrust/device_vector.h>
#include <thrust/reduce.h>
float sum_thrust(const thrust::device_vector<float> &v)
{
	return thrust::reduce(v.begin(), v.end(), 0.0f);
}
cudaError_t sum_cub(const float *in, float *out, int n, void *tmp, size_t *bytes)
{
	return cub::DeviceReduce::Sum(tmp, *bytes, in, out, n);
}
EOF
	cat > "$1/main.cpp" <<'EOF'
#include <cassert>
#include <cstdio>
extern "C" int util_answer(void);
int main()
{
	assert(util_answer() == 42);
	std::printf("%d\n", util_answer());
	return 0;
}
EOF
	printf '#include <assert.h>\nint util_answer(void) { assert(__FILE__[0]); return 42; }\n' > "$1/util.c"
}

# Configure and build the workspace $1 (sources in $1/src, written unless there) against
# its own copy of the sysroot, $1/sysroot, with the build type $2 and any further cmake
# options; the log in $1/build.log.
tree_build() {
	local ws=$1 type=$2
	shift 2
	[ -d "$ws/sysroot" ] || cp -a "$S" "$ws/sysroot"
	[ -d "$ws/src" ] || write_project "$ws/src"
	rm -rf "$ws/build"
	(cd "$ws" && cmake -G Ninja -S src -B build \
		-DCMAKE_TOOLCHAIN_FILE="$XCC_SRCDIR/wrappers/cmake/cuda-xcc-toolchain.cmake" \
		-DCUDA_XCC_SYSROOT="$ws/sysroot" -DCUDA_XCC_EXECUTABLE="$CUDA_XCC" \
		-DCMAKE_CUDA_ARCHITECTURES=90-real -DCMAKE_BUILD_TYPE="$type" "$@" &&
		cmake --build build -j2) > "$ws/build.log" 2>&1 || { cat "$ws/build.log" >&2; return 1; }
}

# The objects of the two builds $1 and $2 are the same bytes, each named on failure.
assert_same_objects() {
	local o n=0
	while read -r o; do
		cmp "$1/$o" "$2/$o" || { echo "$o differs between the trees" >&2; return 1; }
		n=$((n + 1))
	done < <(cd "$1" && find . -name '*.o' ! -path './CMakeFiles/3*')
	[ "$n" -eq 3 ] || { echo "$n objects, not 3" >&2; return 1; }
}

# No object or program of the build $1 names the path $2.
assert_no_path() {
	if grep -rl --include='*.o' --include=app -F "$2" "$1"; then
		echo "the files above name $2" >&2
		return 1
	fi
}

# The project built with the build type $1 and the trees mapped, in $one and in $two, at
# other paths with their sysroots: the same objects, the same program, neither naming its tree.
two_trees_same_bytes() {
	one=$BATS_TEST_TMPDIR/one two=$BATS_TEST_TMPDIR/runners/b/two
	mkdir -p "$one" "$two"
	tree_build "$one" "$1" -DCUDA_XCC_PREFIX_MAP_BUILD_TREE=ON
	tree_build "$two" "$1" -DCUDA_XCC_PREFIX_MAP_BUILD_TREE=ON
	assert_same_objects "$one/build" "$two/build"
	cmp "$one/build/app" "$two/build/app"
	assert_no_path "$two/build" "$two"
}

@test "prefix-map: two trees and two sysroots at other paths give the same objects, Release" {
	two_trees_same_bytes Release
}

@test "prefix-map: two trees and two sysroots at other paths give the same objects, Debug" {
	two_trees_same_bytes Debug
}

@test "prefix-map: without CUDA_XCC_PREFIX_MAP_BUILD_TREE, no object names the sysroot's path" {
	local ws=$BATS_TEST_TMPDIR/ws
	mkdir -p "$ws"
	tree_build "$ws" Debug
	assert_no_path "$ws/build" "$ws/sysroot"
}

@test "prefix-map: sccache hits every compile of a second tree with a Thrust/CUB source" {
	need sccache "the compiler cache under test"
	need python3 "finds a free port, reads the counters"
	local one=$BATS_TEST_TMPDIR/one two=$BATS_TEST_TMPDIR/runners/b/two
	mkdir -p "$one" "$two"
	export SCCACHE_DIR=$BATS_TEST_TMPDIR/sccache SCCACHE_CONF=$BATS_TEST_TMPDIR/sccache.conf
	export SCCACHE_IDLE_TIMEOUT=300 SCCACHE_ERROR_LOG=$BATS_TEST_TMPDIR/sccache.log
	SCCACHE_SERVER_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	export SCCACHE_SERVER_PORT
	sccache --start-server >/dev/null
	tree_build "$one" Release -DCMAKE_C_COMPILER_LAUNCHER=sccache \
		-DCMAKE_CXX_COMPILER_LAUNCHER=sccache -DCMAKE_CUDA_COMPILER_LAUNCHER=sccache
	sccache --zero-stats >/dev/null
	tree_build "$two" Release -DCMAKE_C_COMPILER_LAUNCHER=sccache \
		-DCMAKE_CXX_COMPILER_LAUNCHER=sccache -DCMAKE_CUDA_COMPILER_LAUNCHER=sccache
	sccache --show-stats --stats-format json > "$BATS_TEST_TMPDIR/stats.json"
	sccache --stop-server >/dev/null 2>&1 || true
	run python3 -c 'import json, sys
st = json.load(open(sys.argv[1]))["stats"]
print(sum(st["cache_hits"]["counts"].values()), sum(st["cache_misses"]["counts"].values()), st["requests_not_cacheable"])' "$BATS_TEST_TMPDIR/stats.json"
	assert_status 0
	assert_output_equals "3 0 0"
}

@test "prefix-map: ccache with base_dir and NOHASHDIR hits every compile of a second tree, Debug, naming none of the first tree's paths" {
	need ccache "the compiler cache under test"
	local one=$BATS_TEST_TMPDIR/one two=$BATS_TEST_TMPDIR/runners/b/two ws
	mkdir -p "$one" "$two"
	export CCACHE_DIR=$BATS_TEST_TMPDIR/ccache CCACHE_CONFIGPATH=$BATS_TEST_TMPDIR/ccache.conf
	export CCACHE_NOHASHDIR=1
	for ws in "$one" "$two"; do
		ccache -z >/dev/null
		CCACHE_BASEDIR=$ws tree_build "$ws" Debug -DCUDA_XCC_PREFIX_MAP_BUILD_TREE=ON \
			-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
			-DCMAKE_CUDA_COMPILER_LAUNCHER=ccache
	done
	ccache --print-stats > "$BATS_TEST_TMPDIR/stats"
	run awk '$1 == "cache_miss" || $1 == "direct_cache_hit" { print $1, $2 }' "$BATS_TEST_TMPDIR/stats"
	assert_status 0
	assert_output_equals "$(printf 'cache_miss 0\ndirect_cache_hit 3')"
	assert_no_path "$two/build" "$one"
}

@test "prefix-map: the driver's compile of one source in two trees, sysroots at other paths, gives the same object, -g too" {
	local t one=$BATS_TEST_TMPDIR/one two=$BATS_TEST_TMPDIR/runners/b/two
	for t in "$one" "$two"; do
		write_project "$t/src"
		cp -a "$S" "$t/sysroot"
		(cd "$t/src" && "$CUDA_XCC" --sysroot "$t/sysroot" -arch sm_90 -c kernels/sum.cu -o sum.o \
			-g "-Xcompiler=-ffile-prefix-map=$t=/ws")
	done
	cmp "$one/src/sum.o" "$two/src/sum.o"
	cd "$one/src"
	run "$CUDA_XCC" --sysroot "$one/sysroot" -arch sm_90 --dry-run -c kernels/sum.cu -o sum.o \
		"-Xcompiler=-ffile-prefix-map=$one=/ws"
	assert_status 0
	assert_output_contains "-Xcompiler=-ffile-prefix-map=$one/sysroot=/cuda-xcc/sysroot -objtemp"
	assert_output_contains "-Xcudafe=--orig_src_path_name=/ws/src/kernels/sum.cu"
}
