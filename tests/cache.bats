#!/usr/bin/env bats
# Compiler caches shared between CI runners: ccache with Debian's redis-server as its remote
# storage, a CMake project with CUDA, C and C++ built through the shipped toolchain file from
# two trees at different absolute paths, each with its own copy of the sysroot inside its
# runner's base_dir. The second runner must hit for every compile. The CUDA compiles need a
# real nvcc: the CUDA 11.8 sysroot tests/e2e.bats makes, from $XCC_DEB_CACHE.
load lib/common
load lib/e2e

deb_cache() { cuda118_cache; }
debs() { cuda118_debs; }

setup_file() {
	e2e_make_sysroot "CUDA 11.8" "${XCC_E2E_SYSROOT:-}" 3 "scripts/fetch-debian-cuda.sh" --target sbsa --cuda 11.8
}

# A free TCP port on 127.0.0.1 for this test's redis-server.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

setup() {
	e2e_sysroot
	need aarch64-linux-gnu-g++-11 "CUDA 11.8's host compiler (g++-11-aarch64-linux-gnu)"
	need ccache "the compiler cache under test"
	need redis-server "ccache's remote storage here (apt-get install redis-server)"
	need cmake
	need python3 "finds a free port"
	REDIS_DIR=$BATS_TEST_TMPDIR/redis
	mkdir -p "$REDIS_DIR"
	REDIS_PORT=$(free_port)
	redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --dir "$REDIS_DIR" --save '' \
		--appendonly no --daemonize yes --pidfile "$REDIS_DIR/redis.pid" \
		--logfile "$REDIS_DIR/redis.log"
	local i
	for ((i = 0; i < 50; i++)); do
		redis-cli -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG && return 0
		sleep 0.1
	done
	echo "redis-server did not answer on 127.0.0.1:$REDIS_PORT: $(cat "$REDIS_DIR/redis.log")" >&2
	return 1
}

teardown() {
	if [ -n "${REDIS_DIR:-}" ] && [ -f "$REDIS_DIR/redis.pid" ]; then
		kill "$(cat "$REDIS_DIR/redis.pid")" 2>/dev/null || true
	fi
}

# The project in $1: two CUDA sources (one using the runtime), C++ and C.
write_project() {
	mkdir -p "$1"
	cat > "$1/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.21)
project(cached LANGUAGES C CXX CUDA)
find_package(CUDAToolkit REQUIRED)
add_executable(cached main.cpp scale.cu add.cu util.c)
target_link_libraries(cached PRIVATE CUDA::cudart_static)
EOF
	cat > "$1/scale.cu" <<'EOF'
#include <cuda_runtime.h>
__global__ void scale(float *x, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] *= a;
}
cudaError_t run_scale(float *x, float a, int n)
{
	scale<<<(n + 255) / 256, 256>>>(x, a, n);
	return cudaGetLastError();
}
EOF
	cat > "$1/add.cu" <<'EOF'
__global__ void add(const float *a, const float *b, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		c[i] = a[i] + b[i];
}
EOF
	cat > "$1/main.cpp" <<'EOF'
#include <cstdio>
#include <cuda_runtime.h>
extern "C" int util_answer(void);
cudaError_t run_scale(float *x, float a, int n);
int main()
{
	std::printf("%d %d\n", util_answer(), (int)run_scale(nullptr, 2.0f, 0));
	return 0;
}
EOF
	printf 'int util_answer(void) { return 42; }\n' > "$1/util.c"
}

# One runner: the workspace $1 (ccache's base_dir) holds the sources, its own copy of the
# sysroot $2 (copied from $S unless it is there) and the build; its local cache is its own,
# the remote one is shared. The counters are left in $1/stats.
runner_build() {
	local ws=$1 sysroot=$2
	[ -d "$sysroot" ] || cp -a "$S" "$sysroot"
	[ -d "$ws/src" ] || write_project "$ws/src"
	rm -rf "$ws/build"
	export CCACHE_DIR=$ws/ccache CCACHE_BASEDIR=$ws CCACHE_CONFIGPATH=$ws/ccache.conf
	export CCACHE_REMOTE_STORAGE=redis://127.0.0.1:$REDIS_PORT CCACHE_NOHASHDIR=1
	ccache -z >/dev/null
	(cd "$ws" && cmake -S src -B build -DCMAKE_TOOLCHAIN_FILE="$XCC_SRCDIR/wrappers/cmake/cuda-xcc-toolchain.cmake" \
		-DCUDA_XCC_SYSROOT="$sysroot" -DCUDA_XCC_EXECUTABLE="$CUDA_XCC" \
		-DCMAKE_CUDA_ARCHITECTURES=90-real -DCMAKE_BUILD_TYPE=Release \
		-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
		-DCMAKE_CUDA_COMPILER_LAUNCHER=ccache && cmake --build build -j2) \
		> "$ws/build.log" 2>&1 || { cat "$ws/build.log" >&2; return 1; }
	ccache --print-stats > "$ws/stats"
	unset CCACHE_DIR CCACHE_BASEDIR CCACHE_CONFIGPATH CCACHE_REMOTE_STORAGE CCACHE_NOHASHDIR
}

# A counter of ccache --print-stats in the file $1.
stat_of() {
	awk -v k="$2" '$1 == k { print $2; found = 1 } END { if (!found) print 0 }' "$1"
}

# Every compile of the project (4) was a hit from the remote storage, none a miss.
assert_all_remote_hits() {
	local hits misses
	hits=$(stat_of "$1" remote_storage_hit)
	misses=$(stat_of "$1" cache_miss)
	[ "$misses" -eq 0 ] || { echo "$misses misses on the second runner:" >&2; cat "$1" >&2; return 1; }
	[ "$hits" -eq 4 ] || { echo "$hits remote hits of 4 compiles:" >&2; cat "$1" >&2; return 1; }
}

@test "cache: a second runner at another path, its sysroot at another path, hits ccache's redis storage for every compile" {
	local one=$BATS_TEST_TMPDIR/runner-one/ws two=$BATS_TEST_TMPDIR/builds/runner-two/workspace
	mkdir -p "$one" "$two"
	runner_build "$one" "$one/sysroot"
	[ "$(stat_of "$one/stats" cache_miss)" -eq 4 ]
	runner_build "$two" "$two/sysroot"
	assert_all_remote_hits "$two/stats"
	# The programs are the same bytes: nothing of either path got into them.
	cmp "$one/build/cached" "$two/build/cached"
}

@test "cache: a sysroot swapped for another CUDA build under the same path misses" {
	local ws=$BATS_TEST_TMPDIR/runner/ws marker=$BATS_TEST_TMPDIR/ptxas-ran
	mkdir -p "$ws"
	runner_build "$ws" "$ws/sysroot"
	runner_build "$ws" "$ws/sysroot"
	[ "$(stat_of "$ws/stats" cache_miss)" -eq 0 ]
	# Another build of the same release under the same path: the same nvcc (size and
	# mtime), the same headers, another ptxas, so another fingerprint. A cache that knew
	# the sysroot by nvcc alone would hand back the objects the old ptxas made.
	local ptxas=$ws/sysroot/bin/ptxas
	mv "$ptxas" "$ptxas.real"
	# shellcheck disable=SC2016 # $0 and $@ are the wrapper's
	printf '#!/bin/sh\ntouch %s\nexec "$0.real" "$@"\n' "$marker" > "$ptxas"
	chmod +x "$ptxas"
	python3 - "$ws/sysroot/sysroot.json" <<'EOF'
import json, sys
with open(sys.argv[1]) as f:
    meta = json.load(f)
meta["fingerprint"] = "0" * 64
with open(sys.argv[1], "w") as f:
    json.dump(meta, f)
EOF
	run "$CUDA_XCC" sysroot info "$ws/sysroot" --fingerprint
	assert_status 0
	assert_output_equals "$(printf '0%.0s' {1..64})"
	runner_build "$ws" "$ws/sysroot"
	# Both CUDA compiles ran again (the new ptxas with them); C and C++ still hit.
	[ "$(stat_of "$ws/stats" cache_miss)" -eq 2 ]
	[ -f "$marker" ]
}

@test "cache: sysroot info --fingerprint prints the recorded fingerprint, alone" {
	run "$CUDA_XCC" sysroot info "$S" --fingerprint
	assert_status 0
	[[ "$output" =~ ^[0-9a-f]{64}$ ]]
	run "$CUDA_XCC" sysroot info "$S" --json
	assert_status 0
	assert_output_contains "\"fingerprint\":"
	run "$CUDA_XCC" sysroot info "$S" --json --fingerprint
	assert_status 2
	assert_output_contains "--json or --fingerprint, not both"
}
