#!/usr/bin/env bats
# nvcc's host compile through distcc: the shipped CMake toolchain file with
# CUDA_XCC_HOST_COMPILER_LAUNCHER, two distccd on 127.0.0.1 (as the test's user, in the
# foreground, stopped at teardown), a CMake project of three .cu files built at -j4; and a
# user's own CMAKE_CUDA_HOST_COMPILER kept where it is the sysroot's cross g++, refused where
# it is another. The CUDA compiles need a real nvcc: the CUDA 11.8 sysroot tests/e2e.bats
# makes, from $XCC_DEB_CACHE.
load lib/common
load lib/e2e

deb_cache() { cuda118_cache; }
debs() { cuda118_debs; }

setup_file() { e2e_make_cuda118_sysroot; }

# One distccd on 127.0.0.1:$1, its log (--log-stderr: a daemon started as root changes
# to the distccd user, which could not open a log file of ours) in $DISTCC_LOGS/$1.log.
start_distccd() {
	local port=$1 i
	: > "$DISTCC_LOGS/$port.log"
	distccd --daemon --no-detach --listen 127.0.0.1 --allow 127.0.0.1 --port "$port" \
		--jobs 2 --log-level info --log-stderr </dev/null >/dev/null 2>"$DISTCC_LOGS/$port.log" 3>&- &
	echo $! >> "$DISTCC_LOGS/pids"
	for ((i = 0; i < 50; i++)); do
		grep -q "listening on 127.0.0.1:$port" "$DISTCC_LOGS/$port.log" && return 0
		sleep 0.1
	done
	echo "distccd did not listen on 127.0.0.1:$port: $(cat "$DISTCC_LOGS/$port.log")" >&2
	return 1
}

setup() {
	e2e_sysroot
	need aarch64-linux-gnu-g++-11 "CUDA 11.8's host compiler (g++-11-aarch64-linux-gnu)"
	need cmake
	need distcc "the launcher under test (apt-get install distcc)"
	need distccd "distcc's server"
	need python3 "finds free ports"
	# Debian's distccd runs only the compilers named in its masquerade directory.
	if [ -d /usr/lib/distcc ] && [ ! -e /usr/lib/distcc/aarch64-linux-gnu-g++-11 ]; then
		skip "distccd runs only compilers named in /usr/lib/distcc, which lacks aarch64-linux-gnu-g++-11 (run update-distcc-symlinks)"
	fi
	DISTCC_LOGS=$BATS_TEST_TMPDIR/distccd
	mkdir -p "$DISTCC_LOGS" "$BATS_TEST_TMPDIR/distcc-dir"
	P1=$(free_port)
	P2=$(free_port)
	start_distccd "$P1"
	start_distccd "$P2"
	# No fallback: a host compile distcc cannot send fails the build instead of running here.
	export DISTCC_HOSTS="127.0.0.1:$P1/2 127.0.0.1:$P2/2" DISTCC_FALLBACK=0
	export DISTCC_DIR=$BATS_TEST_TMPDIR/distcc-dir
}

teardown() {
	local pid
	if [ -f "${DISTCC_LOGS:-/nonexistent}/pids" ]; then
		while read -r pid; do kill "$pid" 2>/dev/null || true; done < "$DISTCC_LOGS/pids"
	fi
}

# The project in $1: three CUDA sources and main.cpp, linked with the static cudart.
write_project() {
	local i
	mkdir -p "$1"
	cat > "$1/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.21)
project(spread LANGUAGES CXX CUDA)
find_package(CUDAToolkit REQUIRED)
add_executable(spread main.cpp k0.cu k1.cu k2.cu)
target_link_libraries(spread PRIVATE CUDA::cudart_static)
EOF
	for i in 0 1 2; do
		cat > "$1/k$i.cu" <<EOF
#include <cuda_runtime.h>
__global__ void k$i(float *x, int n)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j < n)
		x[j] = x[j] * 2.0f + $i.0f;
}
cudaError_t run_k$i(float *x, int n) { k$i<<<(n + 255) / 256, 256>>>(x, n); return cudaGetLastError(); }
EOF
	done
	cat > "$1/main.cpp" <<'EOF'
#include <cstdio>
#include <cuda_runtime.h>
cudaError_t run_k0(float *x, int n);
int main()
{
	std::printf("host side ran, k0 launch: %d\n", (int)run_k0(nullptr, 0));
	return 0;
}
EOF
}

# Configure $1/src into $1/build with the shipped toolchain file and the options given.
configure() {
	local d=$1
	shift
	cmake -S "$d/src" -B "$d/build" -DCMAKE_TOOLCHAIN_FILE="$XCC_SRCDIR/wrappers/cmake/cuda-xcc-toolchain.cmake" \
		-DCUDA_XCC_SYSROOT="$S" -DCUDA_XCC_EXECUTABLE="$CUDA_XCC" \
		-DCMAKE_CUDA_ARCHITECTURES="80-real;90-real" "$@"
}

# $output with CMake's line wrapping undone: its messages break lines and indent them.
assert_message_contains() {
	local flat
	flat=$(printf '%s' "$output" | tr '\n' ' ' | tr -s ' ')
	[[ "$flat" == *"$1"* ]] || { echo "output does not contain '$1':" >&2; echo "$output" >&2; return 1; }
}

# The host compiles distccd ran for the split source of $1.cu (nvcc's NAME.cudafe1.cpp,
# NAME.compute_90.cudafe1.cpp with more than one GPU; with -objtemp, which the toolchain
# file passes, NAME.cu.o.compute_90.cudafe1.cpp beside the object).
daemon_compiles() {
	cat "$DISTCC_LOGS"/*.log | grep -Ec "COMPILE_OK .*[_/]$1(\.cu\.o)?(\.compute_[0-9]+[af]?)?\.cudafe1\.cpp\$" || true
}

@test "distcc: CUDA_XCC_HOST_COMPILER_LAUNCHER sends every .cu's host compile to distccd, and the program is aarch64 with the asked SASS and runs" {
	local d=$BATS_TEST_TMPDIR/p odd i
	write_project "$d/src"
	# The launcher by a path with a quote, a space and a command substitution: data in
	# the generated script, never code. The host compiler named in CUDAHOSTCXX too, which
	# CMake would otherwise put in place of the launcher's script.
	odd="$BATS_TEST_TMPDIR/it's a \$(touch pwned) dir"
	mkdir -p "$odd"
	ln -s "$(command -v distcc)" "$odd/distcc"
	run env CUDA_XCC_HOST_COMPILER_LAUNCHER="$odd/distcc" CUDAHOSTCXX=aarch64-linux-gnu-g++-11 cmake -S "$d/src" -B "$d/build" \
		-DCMAKE_TOOLCHAIN_FILE="$XCC_SRCDIR/wrappers/cmake/cuda-xcc-toolchain.cmake" \
		-DCUDA_XCC_SYSROOT="$S" -DCUDA_XCC_EXECUTABLE="$CUDA_XCC" \
		-DCMAKE_CUDA_ARCHITECTURES="80-real;90-real"
	assert_status 0
	run cmake --build "$d/build" -j4
	assert_status 0
	for i in 0 1 2; do
		[ "$(daemon_compiles "k$i")" -eq 1 ] || { echo "k$i.cu's host compile did not go to distccd:" >&2; cat "$DISTCC_LOGS"/*.log >&2; return 1; }
	done
	[ ! -e pwned ]
	[ ! -e "$d/build/pwned" ]
	run file "$d/build/spread"
	assert_output_contains "ARM aarch64"
	run xcc fatbin "$d/build/spread"
	assert_status 0
	assert_output_contains "sass   sm_80"
	assert_output_contains "sass   sm_90"
	run xcc run --sysroot "$S" "$d/build/spread"
	assert_status 0
	assert_output_contains "host side ran, k0 launch: 35"
}

@test "distcc: a user's own CMAKE_CUDA_HOST_COMPILER that runs the sysroot's cross g++ (through distcc) is kept" {
	local d=$BATS_TEST_TMPDIR/p
	write_project "$d/src"
	# The user's wrapper: notes each call, then runs the cross g++ through distcc.
	cat > "$BATS_TEST_TMPDIR/my-g++" <<EOF
#!/bin/sh
echo "\$*" >> '$BATS_TEST_TMPDIR/my-g++.calls'
exec distcc aarch64-linux-gnu-g++-11 "\$@"
EOF
	chmod +x "$BATS_TEST_TMPDIR/my-g++"
	run configure "$d" -DCMAKE_CUDA_HOST_COMPILER="$BATS_TEST_TMPDIR/my-g++"
	assert_status 0
	run cmake --build "$d/build" -j4
	assert_status 0
	grep -Eq '[_/]k1(\.cu\.o)?(\.compute_[0-9]+)?\.cudafe1\.cpp' "$BATS_TEST_TMPDIR/my-g++.calls"
	[ "$(daemon_compiles k1)" -eq 1 ]
}

@test "distcc: a CMAKE_CUDA_HOST_COMPILER or CUDAHOSTCXX for another target is refused at configure, naming the sysroot's cross g++" {
	local d=$BATS_TEST_TMPDIR/p
	need g++ "the build machine's own g++, a compiler for another target"
	write_project "$d/src"
	run configure "$d" -DCMAKE_CUDA_HOST_COMPILER="$(command -v g++)"
	assert_status 1
	assert_message_contains "was made for aarch64-linux-gnu-g++-11"
	assert_message_contains "CMAKE_CUDA_HOST_COMPILER '$(command -v g++)' is a compiler for 'x86_64-linux-gnu"
	# The same named in CMake's environment variable, which CMake itself would take as it is.
	rm -rf "$d/build"
	run env CUDAHOSTCXX=g++ cmake -S "$d/src" -B "$d/build" \
		-DCMAKE_TOOLCHAIN_FILE="$XCC_SRCDIR/wrappers/cmake/cuda-xcc-toolchain.cmake" \
		-DCUDA_XCC_SYSROOT="$S" -DCUDA_XCC_EXECUTABLE="$CUDA_XCC"
	assert_status 1
	assert_message_contains "CUDAHOSTCXX 'g++' is a compiler for 'x86_64-linux-gnu"
}

@test "distcc: a CMAKE_CUDA_HOST_COMPILER of another GCC release is refused at configure" {
	local d=$BATS_TEST_TMPDIR/p
	need aarch64-linux-gnu-g++-12 "a cross g++ of another GCC release"
	write_project "$d/src"
	run configure "$d" -DCMAKE_CUDA_HOST_COMPILER=aarch64-linux-gnu-g++-12
	assert_status 1
	assert_message_contains "is a compiler for 'aarch64-linux-gnu GCC 12"
}

@test "distcc: a CUDA_XCC_HOST_COMPILER_LAUNCHER that is not installed fails the configure, naming it" {
	local d=$BATS_TEST_TMPDIR/p
	write_project "$d/src"
	run configure "$d" -DCUDA_XCC_HOST_COMPILER_LAUNCHER=no-such-distcc
	assert_status 1
	assert_message_contains "CUDA_XCC_HOST_COMPILER_LAUNCHER names 'no-such-distcc', which is not found"
}
