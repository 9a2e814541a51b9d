#!/usr/bin/env bats
# Compiler caches shared between CI runners: a CMake project with CUDA, C and C++ built
# through the shipped toolchain file from two trees at different absolute paths, each with
# its own copy of the sysroot inside its runner's base_dir, the second runner hitting for
# every compile: ccache with Debian's redis-server or an HTTP store (tests/lib/cache_store.py)
# as its remote storage, sccache 0.4 with a local disk cache both share, and a Meson project
# through the generated cross file with ccache in front, as Meson users write it. The CUDA
# compiles need a real nvcc: the CUDA 11.8 sysroot tests/e2e.bats makes, from $XCC_DEB_CACHE.
load lib/common
load lib/e2e

deb_cache() { cuda118_cache; }
debs() { cuda118_debs; }

setup_file() {
	e2e_make_sysroot "CUDA 11.8" "${XCC_E2E_SYSROOT:-}" 3 "scripts/fetch-debian-cuda.sh" --target sbsa --cuda 11.8
}

# A free TCP port on 127.0.0.1 for this test's servers.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

setup() {
	e2e_sysroot
	need aarch64-linux-gnu-g++-11 "CUDA 11.8's host compiler (g++-11-aarch64-linux-gnu)"
	need python3 "finds a free port"
}

# ccache's remote storage in REMOTE_STORAGE: Debian's redis-server on a free port.
start_redis() {
	need ccache "the compiler cache under test"
	need redis-server "ccache's remote storage here (apt-get install redis-server)"
	need cmake
	REDIS_DIR=$BATS_TEST_TMPDIR/redis
	mkdir -p "$REDIS_DIR"
	REDIS_PORT=$(free_port)
	redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --dir "$REDIS_DIR" --save '' \
		--appendonly no --daemonize yes --pidfile "$REDIS_DIR/redis.pid" \
		--logfile "$REDIS_DIR/redis.log"
	REMOTE_STORAGE=redis://127.0.0.1:$REDIS_PORT
	local i
	for ((i = 0; i < 50; i++)); do
		redis-cli -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG && return 0
		sleep 0.1
	done
	echo "redis-server did not answer on 127.0.0.1:$REDIS_PORT: $(cat "$REDIS_DIR/redis.log")" >&2
	return 1
}

# ccache's remote storage in REMOTE_STORAGE: tests/lib/cache_store.py, an HTTP server that
# keeps what is PUT and gives it back to GET, on a free port.
start_store() {
	need ccache "the compiler cache under test"
	need cmake
	local port_file=$BATS_TEST_TMPDIR/store.port i
	STORE_DIR=$BATS_TEST_TMPDIR/store
	mkdir -p "$STORE_DIR"
	: > "$port_file"
	python3 "$XCC_SRCDIR/tests/lib/cache_store.py" --root "$STORE_DIR" --timeout 300 \
		> "$port_file" 2> "$BATS_TEST_TMPDIR/store.log" 3>&- &
	STORE_PID=$!
	for ((i = 0; i < 100; i++)); do
		[ -s "$port_file" ] && break
		sleep 0.05
	done
	[ -s "$port_file" ] || { echo "cache_store.py did not start" >&2; return 1; }
	REMOTE_STORAGE=http://127.0.0.1:$(head -n1 "$port_file")/ccache
}

# A private sccache server: its own cache directory (SCCACHE_DIR, which both trees share,
# as a CI cache mount would be), its own port, no configuration file of the user's.
start_sccache() {
	need sccache "the compiler cache under test (Debian 12: 0.4)"
	need cmake
	export SCCACHE_DIR=$BATS_TEST_TMPDIR/sccache SCCACHE_SERVER_PORT
	export SCCACHE_CONF=$BATS_TEST_TMPDIR/sccache.conf SCCACHE_IDLE_TIMEOUT=300
	export SCCACHE_ERROR_LOG=$BATS_TEST_TMPDIR/sccache.log
	SCCACHE_SERVER_PORT=$(free_port)
	sccache --start-server >/dev/null
	SCCACHE_STARTED=1
}

teardown() {
	if [ -n "${REDIS_DIR:-}" ] && [ -f "$REDIS_DIR/redis.pid" ]; then
		kill "$(cat "$REDIS_DIR/redis.pid")" 2>/dev/null || true
	fi
	if [ -n "${STORE_PID:-}" ]; then
		kill "$STORE_PID" 2>/dev/null || true
		wait "$STORE_PID" 2>/dev/null || true
	fi
	if [ -n "${SCCACHE_STARTED:-}" ]; then
		sccache --stop-server >/dev/null 2>&1 || true
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

# Configure and build the project in the workspace $1 (sources in $1/src, written unless
# they are there) against the sysroot $2 (copied from $S unless it is there), each
# compiler behind the launcher $3; the log in $1/build.log.
cmake_build() {
	local ws=$1 sysroot=$2 launcher=$3
	[ -d "$sysroot" ] || cp -a "$S" "$sysroot"
	[ -d "$ws/src" ] || write_project "$ws/src"
	rm -rf "$ws/build"
	(cd "$ws" && cmake -S src -B build -DCMAKE_TOOLCHAIN_FILE="$XCC_SRCDIR/wrappers/cmake/cuda-xcc-toolchain.cmake" \
		-DCUDA_XCC_SYSROOT="$sysroot" -DCUDA_XCC_EXECUTABLE="$CUDA_XCC" \
		-DCMAKE_CUDA_ARCHITECTURES=90-real -DCMAKE_BUILD_TYPE=Release \
		-DCMAKE_C_COMPILER_LAUNCHER="$launcher" -DCMAKE_CXX_COMPILER_LAUNCHER="$launcher" \
		-DCMAKE_CUDA_COMPILER_LAUNCHER="$launcher" && cmake --build build -j2) \
		> "$ws/build.log" 2>&1 || { cat "$ws/build.log" >&2; return 1; }
}

# One runner: the workspace $1 (ccache's base_dir) holds the sources, its own copy of the
# sysroot $2 and the build; its local cache is its own, the remote one ($REMOTE_STORAGE) is
# shared. The counters are left in $1/stats.
runner_build() {
	local ws=$1 sysroot=$2
	export CCACHE_DIR=$ws/ccache CCACHE_BASEDIR=$ws CCACHE_CONFIGPATH=$ws/ccache.conf
	export CCACHE_REMOTE_STORAGE=$REMOTE_STORAGE CCACHE_NOHASHDIR=1
	ccache -z >/dev/null
	cmake_build "$ws" "$sysroot" ccache
	ccache --print-stats > "$ws/stats"
	unset CCACHE_DIR CCACHE_BASEDIR CCACHE_CONFIGPATH CCACHE_REMOTE_STORAGE CCACHE_NOHASHDIR
}

# One runner with sccache (start_sccache's server and cache directory): the counters of
# its build in $1/stats, one "NAME COUNT" a line: hits and misses of CUDA and of C/C++
# ("hit_CUDA 2"), and the compiles it could not cache ("not_cacheable").
sccache_build() {
	local ws=$1 sysroot=$2
	sccache --zero-stats >/dev/null
	cmake_build "$ws" "$sysroot" sccache
	sccache --show-stats --stats-format json > "$ws/stats.json"
	python3 - "$ws/stats.json" > "$ws/stats" <<'EOF'
import json, sys
with open(sys.argv[1]) as f:
    st = json.load(f)["stats"]
for word, key in (("hit", "cache_hits"), ("miss", "cache_misses")):
    for lang in ("CUDA", "C/C++"):
        print(f"{word}_{lang} {st[key]['counts'].get(lang, 0)}")
print(f"not_cacheable {st['requests_not_cacheable']}")
print(f"requests {st['compile_requests']}")
EOF
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

# Make the sysroot $1 another build of the same release under the same path: the same nvcc
# (size, mtime and bytes), the same headers, another ptxas (one that touches $2 when it
# runs), so another fingerprint. A cache that knew the sysroot by nvcc alone would hand back
# the objects the old ptxas made.
swap_sysroot_cuda() {
	local ptxas=$1/bin/ptxas
	mv "$ptxas" "$ptxas.real"
	# shellcheck disable=SC2016 # $0 and $@ are the wrapper's
	printf '#!/bin/sh\ntouch %s\nexec "$0.real" "$@"\n' "$2" > "$ptxas"
	chmod +x "$ptxas"
	# Another sysroot's records: its digest of itself as create makes it.
	python3 - "$1/sysroot.json" <<'EOF'
import hashlib, json, sys
with open(sys.argv[1]) as f:
    meta = json.load(f)
meta["fingerprint"] = "0" * 64
meta.pop("digest", None)
text = json.dumps(meta, separators=(",", ":"), ensure_ascii=False)
meta["digest"] = hashlib.sha256(text.encode()).hexdigest()
with open(sys.argv[1], "w") as f:
    json.dump(meta, f)
EOF
	run "$CUDA_XCC" sysroot info "$1" --fingerprint
	assert_status 0
	assert_output_equals "$(printf '0%.0s' {1..64})"
}

@test "cache: a second runner at another path, its sysroot at another path, hits ccache's redis storage for every compile" {
	start_redis
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
	start_redis
	mkdir -p "$ws"
	runner_build "$ws" "$ws/sysroot"
	runner_build "$ws" "$ws/sysroot"
	[ "$(stat_of "$ws/stats" cache_miss)" -eq 0 ]
	swap_sysroot_cuda "$ws/sysroot" "$marker"
	runner_build "$ws" "$ws/sysroot"
	# Both CUDA compiles ran again (the new ptxas with them); C and C++ still hit.
	[ "$(stat_of "$ws/stats" cache_miss)" -eq 2 ]
	[ -f "$marker" ]
}

# The project of write_project in $1/src, turning ccache on by itself as many large projects
# do: the global RULE_LAUNCH_COMPILE, which puts it in front of every compile, CUDA's too,
# and no compiler launcher on the command line. Built against the sysroot $2 (copied from
# $S unless it is there) with a local cache in the workspace; the counters in $1/stats.
rule_launch_build() {
	local ws=$1 sysroot=$2
	[ -d "$sysroot" ] || cp -a "$S" "$sysroot"
	if [ ! -d "$ws/src" ]; then
		write_project "$ws/src"
		sed -i 's|^project(cached LANGUAGES C CXX CUDA)$|&\nfind_program(CCACHE ccache REQUIRED)\nset_property(GLOBAL PROPERTY RULE_LAUNCH_COMPILE "${CCACHE}")|' \
			"$ws/src/CMakeLists.txt"
		grep -q '^set_property(GLOBAL PROPERTY RULE_LAUNCH_COMPILE "${CCACHE}")$' "$ws/src/CMakeLists.txt"
	fi
	export CCACHE_DIR=$ws/ccache CCACHE_BASEDIR=$ws CCACHE_CONFIGPATH=$ws/ccache.conf CCACHE_NOHASHDIR=1
	ccache -z >/dev/null
	rm -rf "$ws/build"
	(cd "$ws" && cmake -S src -B build -DCMAKE_TOOLCHAIN_FILE="$XCC_SRCDIR/wrappers/cmake/cuda-xcc-toolchain.cmake" \
		-DCUDA_XCC_SYSROOT="$sysroot" -DCUDA_XCC_EXECUTABLE="$CUDA_XCC" \
		-DCMAKE_CUDA_ARCHITECTURES=90-real -DCMAKE_BUILD_TYPE=Release && cmake --build build -j2) \
		> "$ws/build.log" 2>&1 || { cat "$ws/build.log" >&2; return 1; }
	ccache --print-stats > "$ws/stats"
	unset CCACHE_DIR CCACHE_BASEDIR CCACHE_CONFIGPATH CCACHE_NOHASHDIR
}

@test "cache: a project's own RULE_LAUNCH_COMPILE ccache: the same sysroot hits, one swapped under the same path misses" {
	need ccache "the compiler cache under test"
	need cmake
	local ws=$BATS_TEST_TMPDIR/runner/ws marker=$BATS_TEST_TMPDIR/ptxas-ran hits launch fp
	mkdir -p "$ws"
	rule_launch_build "$ws" "$ws/sysroot"
	# ccache ran every compile: the project's launcher, no CMAKE_<LANG>_COMPILER_LAUNCHER
	[ "$(stat_of "$ws/stats" cache_miss)" -eq 4 ]
	grep -qF "$(command -v ccache) " "$ws/build/CMakeFiles/cached.dir/build.make"
	# through the toolchain file's launcher, which gives the CUDA compiles alone the
	# sysroot's identity, and takes a launcher's leading NAME=VALUE words as the shell would
	grep -qF "cuda-xcc-rule-launch/launch' CUDA $(command -v ccache) " "$ws/build/CMakeFiles/cached.dir/build.make"
	launch=$ws/build/CMakeFiles/cuda-xcc-rule-launch/launch
	fp=$("$CUDA_XCC" sysroot info "$ws/sysroot" --fingerprint)
	# shellcheck disable=SC2016 # the inner shell's variables
	run env -u CCACHE_COMPILERCHECK "$launch" CUDA X_Y=1 sh -c 'echo "$X_Y $CCACHE_COMPILERCHECK"'
	assert_output_equals "1 string:cuda-xcc-sysroot-$fp"
	# shellcheck disable=SC2016
	run env -u CCACHE_COMPILERCHECK "$launch" C X_Y=1 sh -c 'echo "$X_Y [$CCACHE_COMPILERCHECK]"'
	assert_output_equals "1 []"
	rule_launch_build "$ws" "$ws/sysroot"
	hits=$(($(stat_of "$ws/stats" direct_cache_hit) + $(stat_of "$ws/stats" preprocessed_cache_hit)))
	[ "$hits" -eq 4 ]
	[ "$(stat_of "$ws/stats" cache_miss)" -eq 0 ]
	swap_sysroot_cuda "$ws/sysroot" "$marker"
	rule_launch_build "$ws" "$ws/sysroot"
	# Both CUDA compiles ran again, the new ptxas with them; C and C++ still hit.
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
	assert_output_contains "one of --json, --fingerprint and --tree-digest, not two"
}

@test "cache: a second runner at another path, its sysroot at another path, hits ccache's HTTP storage for every compile" {
	start_store
	local one=$BATS_TEST_TMPDIR/runner-one/ws two=$BATS_TEST_TMPDIR/builds/runner-two/workspace
	mkdir -p "$one" "$two"
	runner_build "$one" "$one/sysroot"
	[ "$(stat_of "$one/stats" cache_miss)" -eq 4 ]
	# The results went to the store, not only to the runner's own directory.
	grep -q '^PUT /ccache/.* 201$' "$BATS_TEST_TMPDIR/store.log"
	runner_build "$two" "$two/sysroot"
	assert_all_remote_hits "$two/stats"
	cmp "$one/build/cached" "$two/build/cached"
}

# Every compile of the project (4), CUDA and C/C++, an sccache hit, none a miss, none
# uncacheable, in the counters file $1.
assert_all_sccache_hits() {
	[ "$(stat_of "$1" not_cacheable)" -eq 0 ] || { echo "uncacheable compiles:" >&2; cat "$1" >&2; return 1; }
	[ "$(stat_of "$1" miss_CUDA)" -eq 0 ] || { echo "CUDA misses:" >&2; cat "$1" >&2; return 1; }
	[ "$(stat_of "$1" miss_C/C++)" -eq 0 ] || { echo "C/C++ misses:" >&2; cat "$1" >&2; return 1; }
	[ "$(stat_of "$1" hit_CUDA)" -eq 2 ] || { echo "CUDA hits not 2:" >&2; cat "$1" >&2; return 1; }
	[ "$(stat_of "$1" hit_C/C++)" -eq 2 ] || { echo "C/C++ hits not 2:" >&2; cat "$1" >&2; return 1; }
}

@test "cache: a second runner at another path, its sysroot at another path, hits sccache's shared disk cache for every compile" {
	start_sccache
	local one=$BATS_TEST_TMPDIR/runner-one/ws two=$BATS_TEST_TMPDIR/builds/runner-two/workspace
	mkdir -p "$one" "$two"
	sccache_build "$one" "$one/sysroot"
	[ "$(stat_of "$one/stats" not_cacheable)" -eq 0 ]
	[ "$(stat_of "$one/stats" miss_CUDA)" -eq 2 ]
	[ "$(stat_of "$one/stats" miss_C/C++)" -eq 2 ]
	sccache_build "$two" "$two/sysroot"
	assert_all_sccache_hits "$two/stats"
	cmp "$one/build/cached" "$two/build/cached"
}

@test "cache: with sccache, a sysroot swapped for another CUDA build under the same path misses" {
	local ws=$BATS_TEST_TMPDIR/runner/ws marker=$BATS_TEST_TMPDIR/ptxas-ran
	start_sccache
	mkdir -p "$ws"
	sccache_build "$ws" "$ws/sysroot"
	[ "$(stat_of "$ws/stats" miss_CUDA)" -eq 2 ]
	swap_sysroot_cuda "$ws/sysroot" "$marker"
	sccache_build "$ws" "$ws/sysroot"
	# sccache knows nvcc by its bytes, which did not change: the fingerprint the toolchain
	# file hands it (SCCACHE_C_CUSTOM_CACHE_BUSTER) makes both CUDA compiles run again, the
	# new ptxas with them. C and C++ still hit.
	[ "$(stat_of "$ws/stats" miss_CUDA)" -eq 2 ]
	[ "$(stat_of "$ws/stats" hit_CUDA)" -eq 0 ]
	[ "$(stat_of "$ws/stats" hit_C/C++)" -eq 2 ]
	[ -f "$marker" ]
}

# A Meson project with C and CUDA in $1/src, built against the sysroot $2 (copied from $S)
# through the cross file 'cuda-xcc toolchain meson' writes (again each time, as a CI job
# does) into a new build directory, with ccache put in front of its
# C, C++ and CUDA entries as Meson users write it (c = ['ccache', ...]). ccache's counters
# of the build (not the configure) in $1/stats.
meson_build() {
	local ws=$1 sysroot=$2
	[ -d "$sysroot" ] || cp -a "$S" "$sysroot"
	mkdir -p "$ws/src"
	printf "project('cached', 'c', 'cuda')\nexecutable('cached', 'main.c', 'scale.cu')\n" \
		> "$ws/src/meson.build"
	printf '#include <stdio.h>\nint run_scale(void);\nint main(void) { printf("%%d\\n", run_scale()); return 0; }\n' \
		> "$ws/src/main.c"
	cat > "$ws/src/scale.cu" <<'EOF'
__global__ void scale(float *x, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] *= a;
}
extern "C" int run_scale(void)
{
	scale<<<1, 1>>>(nullptr, 2.0f, 0);
	return (int)cudaGetLastError();
}
EOF
	"$CUDA_XCC" toolchain meson --sysroot "$sysroot" -arch sm_90 --output "$ws/cross.ini"
	sed -i -E "s/^(c|cpp|cuda) = \[/\1 = ['ccache', /" "$ws/cross.ini"
	grep -q "^c = \['ccache', " "$ws/cross.ini"
	grep -q "^cuda = \['ccache', " "$ws/cross.ini"
	export CCACHE_BASEDIR=$ws CCACHE_CONFIGPATH=$ws/ccache.conf CCACHE_NOHASHDIR=1
	rm -rf "$ws/build"
	(cd "$ws" && CUDA_PATH=$sysroot meson setup --cross-file cross.ini build src) \
		> "$ws/setup.log" 2>&1 || { cat "$ws/setup.log" >&2; return 1; }
	ccache -z >/dev/null
	ninja -C "$ws/build" > "$ws/build.log" 2>&1 || { cat "$ws/build.log" >&2; return 1; }
	ccache --print-stats > "$ws/stats"
	unset CCACHE_BASEDIR CCACHE_CONFIGPATH CCACHE_NOHASHDIR
}

@test "cache: a Meson cross file with ccache in front of its compilers hits for every compile from a second tree" {
	need ccache "the compiler cache under test"
	need meson
	need ninja
	local one=$BATS_TEST_TMPDIR/runner-one/ws two=$BATS_TEST_TMPDIR/builds/runner-two/workspace
	mkdir -p "$one" "$two"
	# One cache directory for both trees, as a CI system restores it on each runner.
	export CCACHE_DIR=$BATS_TEST_TMPDIR/ccache
	meson_build "$one" "$one/sysroot"
	[ "$(stat_of "$one/stats" cache_miss)" -eq 2 ]
	meson_build "$two" "$two/sysroot"
	# Before, ccache ran the C compiles without the '--' of check-link's command, which
	# failed: preprocessor_error, no hit.
	[ "$(stat_of "$two/stats" preprocessor_error)" -eq 0 ]
	[ "$(stat_of "$two/stats" cache_miss)" -eq 0 ]
	[ "$(stat_of "$two/stats" direct_cache_hit)" -eq 2 ]
	cmp "$one/build/cached" "$two/build/cached"
}

@test "cache: a Meson cross file written for a sysroot swapped under the same path misses with ccache, and the old one is refused" {
	need ccache "the compiler cache under test"
	need meson
	need ninja
	local ws=$BATS_TEST_TMPDIR/runner/ws marker=$BATS_TEST_TMPDIR/ptxas-ran old
	mkdir -p "$ws"
	export CCACHE_DIR=$BATS_TEST_TMPDIR/ccache
	meson_build "$ws" "$ws/sysroot"
	[ "$(stat_of "$ws/stats" cache_miss)" -eq 2 ]
	old=$("$CUDA_XCC" sysroot info "$ws/sysroot" --fingerprint)
	grep -q "'--sysroot-fingerprint=$old'" "$ws/cross.ini"
	swap_sysroot_cuda "$ws/sysroot" "$marker"
	# ccache knows the cross file's compilers by the cuda-xcc binaries, which did not
	# change; the fingerprint among their arguments did. Both compiles ran again, the new
	# ptxas with them (C too: its entry carries the fingerprint as well).
	meson_build "$ws" "$ws/sysroot"
	[ "$(stat_of "$ws/stats" direct_cache_hit)" -eq 0 ]
	[ "$(stat_of "$ws/stats" cache_miss)" -eq 2 ]
	[ -f "$marker" ]
	# The old cross file's commands are refused where a compile runs.
	run "$CUDA_XCC" --sysroot "$ws/sysroot" --sysroot-fingerprint="$old" --dry-run -c "$ws/src/scale.cu"
	assert_status 2
	assert_output_contains "is not the one this command was written for"
	run "$CUDA_XCC" check-link --sysroot "$ws/sysroot" --sysroot-fingerprint="$old" \
		--compiler=aarch64-linux-gnu-gcc-11 -c -o "$BATS_TEST_TMPDIR/m.o" "$ws/src/main.c"
	assert_status 2
	assert_output_contains "Write the Meson cross file again"
	[ ! -e "$BATS_TEST_TMPDIR/m.o" ]
}
