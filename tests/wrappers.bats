#!/usr/bin/env bats
# The CMake toolchain file, and the Yocto and Buildroot recipes' consistency.
load lib/common
load lib/toolchain

toolchain() { echo "$XCC_SRCDIR/wrappers/cmake/cuda-xcc-toolchain.cmake"; }

@test "wrappers: recipe versions match the package version" {
	run xcc --version
	version=${output#cuda-xcc }
	[ -f "$XCC_SRCDIR/wrappers/yocto/recipes-devtools/cuda-xcc/cuda-xcc_$version.bb" ]
	grep -qx "CUDA_XCC_VERSION = $version" "$XCC_SRCDIR/wrappers/buildroot/package/cuda-xcc/cuda-xcc.mk"
}

@test "wrappers: the CMake toolchain refuses to run without a sysroot" {
	need cmake
	d=$(scratch)
	run env -u CUDA_XCC_SYSROOT cmake -S "$XCC_SRCDIR/examples/cmake" -B "$d/b" -DCMAKE_TOOLCHAIN_FILE="$(toolchain)"
	assert_status 1
	assert_output_contains "set CUDA_XCC_SYSROOT to a sysroot made by"
	run cmake -S "$XCC_SRCDIR/examples/cmake" -B "$d/b2" -DCMAKE_TOOLCHAIN_FILE="$(toolchain)" -DCUDA_XCC_SYSROOT="$d" \
		-DCUDA_XCC_EXECUTABLE="$CUDA_XCC"
	assert_status 1
	assert_output_contains "is not a cuda-xcc sysroot"
}

@test "wrappers: the CMake toolchain validates the architectures with cuda-xcc" {
	need cmake
	need aarch64-linux-gnu-g++-11
	d=$(scratch)
	mkdir -p "$d/sr/bin"
	cat > "$d/sr/sysroot.json" <<-'EOS'
	{"format": 1, "cuda": "13.0", "target": "jetson", "tag": "linux-sbsa",
	 "target_dir": "sbsa-linux", "host_compiler": "aarch64-linux-gnu-g++-11",
	 "capabilities": ["11.0"], "components": []}
	EOS
	run cmake -S "$XCC_SRCDIR/examples/cmake" -B "$d/b" -DCMAKE_TOOLCHAIN_FILE="$(toolchain)" \
		-DCUDA_XCC_SYSROOT="$d/sr" -DCUDA_XCC_EXECUTABLE="$CUDA_XCC" -DCUDA_XCC_ARCH=sm_87
	assert_status 1
	assert_output_contains "Use --cuda 12.9 or older, or --cuda 13.2 or newer"
}

# An sbsa CUDA 11.8 sysroot of its sysroot.json alone: enough for configure-time checks.
sbsa_sysroot() { one_file_sysroot "$1" sbsa 11.8 aarch64-linux-gnu-g++-11 9.0; }

# Only the toolchain file runs: a project without languages needs no nvcc.
configure_archs() {
	local d=$1
	shift
	mkdir -p "$d/p"
	printf 'cmake_minimum_required(VERSION 3.19)\nproject(p NONE)\nmessage(STATUS "archs=${CMAKE_CUDA_ARCHITECTURES}")\n' > "$d/p/CMakeLists.txt"
	run "$@" cmake -S "$d/p" -B "$d/b" -DCMAKE_TOOLCHAIN_FILE="$(toolchain)" \
		-DCUDA_XCC_SYSROOT="$d/sr" -DCUDA_XCC_EXECUTABLE="$CUDA_XCC" "${CMAKE_EXTRA[@]}"
}

@test "wrappers: -DCMAKE_CUDA_ARCHITECTURES is validated; a Jetson GPU on an sbsa sysroot is refused" {
	need cmake
	need aarch64-linux-gnu-g++-11
	d=$(scratch)
	sbsa_sysroot "$d/sr"
	CMAKE_EXTRA=(-DCMAKE_CUDA_ARCHITECTURES=87)
	configure_archs "$d"
	assert_status 1
	# in CMake's words: a configure has no --target to give
	assert_output_contains "-DCUDA_XCC_SYSROOT"
	[[ "$output" != *"Use --target jetson"* ]]
	CMAKE_EXTRA=(-DCMAKE_CUDA_ARCHITECTURES=80-real\;90)
	configure_archs "$d"
	assert_status 0
	assert_output_contains "archs=80-real;90"
}

@test "wrappers: CUDAARCHS from the environment is validated too" {
	need cmake
	need aarch64-linux-gnu-g++-11
	d=$(scratch)
	sbsa_sysroot "$d/sr"
	CMAKE_EXTRA=()
	configure_archs "$d" env CUDAARCHS=72
	assert_status 1
	# in CMake's words: a configure has no --target to give
	assert_output_contains "-DCUDA_XCC_SYSROOT"
	[[ "$output" != *"Use --target jetson"* ]]
	rm -rf "$d/b"
	configure_archs "$d" env CUDAARCHS=86-real
	assert_status 0
	assert_output_contains "archs=86-real"
}

@test "wrappers: 'all' becomes cuda-xcc's list for the target; 'native' is refused" {
	need cmake
	need aarch64-linux-gnu-g++-11
	d=$(scratch)
	sbsa_sysroot "$d/sr"
	CMAKE_EXTRA=(-DCMAKE_CUDA_ARCHITECTURES=all)
	configure_archs "$d"
	assert_status 0
	expected=$(xcc flags --target sbsa --cuda 11.8 -arch all --format cmake)
	assert_output_contains "archs=$expected"
	[[ "$expected" != *87* ]]
	rm -rf "$d/b"
	CMAKE_EXTRA=(-DCMAKE_CUDA_ARCHITECTURES=native)
	configure_archs "$d"
	assert_status 1
	assert_output_contains "name the board's capability"
}

@test "wrappers: a changed CUDA_XCC_ARCH takes effect on the next configure" {
	need cmake
	need aarch64-linux-gnu-g++-11
	d=$(scratch)
	sbsa_sysroot "$d/sr"
	CMAKE_EXTRA=(-DCUDA_XCC_ARCH=sm_90)
	configure_archs "$d"
	assert_status 0
	assert_output_contains "archs=90"
	CMAKE_EXTRA=(-DCUDA_XCC_ARCH=sm_80)
	configure_archs "$d"
	assert_status 0
	assert_output_contains "archs=80"
}

@test "wrappers: a project's own default CMAKE_CUDA_ARCHITECTURES the sysroot cannot build is refused naming the variable, both values and the way out" {
	need cmake
	need aarch64-linux-gnu-g++-11
	d=$(scratch)
	sbsa_sysroot "$d/sr"
	mkdir -p "$d/p"
	# the common shape: a default of the project's, set before project() when none is given
	cat > "$d/p/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.19)
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
	set(CMAKE_CUDA_ARCHITECTURES 52 61 72 75 86)
endif()
project(p NONE)
message(STATUS "archs=${CMAKE_CUDA_ARCHITECTURES}")
CM
	run cmake -S "$d/p" -B "$d/b" -DCMAKE_TOOLCHAIN_FILE="$(toolchain)" \
		-DCUDA_XCC_SYSROOT="$d/sr" -DCUDA_XCC_EXECUTABLE="$CUDA_XCC"
	assert_status 1
	# CMake wraps the message's lines
	output=$(tr -s ' \n' ' ' <<<"$output")
	assert_output_contains "CMAKE_CUDA_ARCHITECTURES is '52;61;72;75;86'"
	assert_output_contains "the toolchain's GPUs are '90'"
	assert_output_contains "-DCMAKE_CUDA_ARCHITECTURES=90"
	assert_output_contains "cannot be mixed"
	rm -rf "$d/b"
	# the way out it names works
	run cmake -S "$d/p" -B "$d/b" -DCMAKE_TOOLCHAIN_FILE="$(toolchain)" \
		-DCUDA_XCC_SYSROOT="$d/sr" -DCUDA_XCC_EXECUTABLE="$CUDA_XCC" -DCMAKE_CUDA_ARCHITECTURES=90
	assert_status 0
	assert_output_contains "archs=90"
}

@test "wrappers: -DCMAKE_CUDA_COMPILER and -DCUDAToolkit_ROOT naming another CUDA get a status line each" {
	need cmake
	need aarch64-linux-gnu-g++-11
	d=$(scratch)
	sbsa_sysroot "$d/sr"
	# another CUDA, shaped as a native one
	mkdir -p "$d/native/bin" "$d/native/include"
	: > "$d/native/include/cuda_runtime_api.h"
	printf '#!/bin/sh\nexit 1\n' > "$d/native/bin/nvcc"
	chmod +x "$d/native/bin/nvcc"
	CMAKE_EXTRA=(-DCMAKE_CUDA_COMPILER="$d/native/bin/nvcc" -DCUDAToolkit_ROOT="$d/native")
	configure_archs "$d"
	assert_status 0
	assert_output_contains "-- cuda-xcc: -DCMAKE_CUDA_COMPILER=$d/native/bin/nvcc names another CUDA than the sysroot; this configure uses the sysroot's ($d/sr) instead"
	assert_output_contains "-- cuda-xcc: -DCUDAToolkit_ROOT=$d/native names another CUDA than the sysroot"
	run grep "^CUDAToolkit_ROOT:" "$d/b/CMakeCache.txt"
	assert_output_equals "CUDAToolkit_ROOT:PATH=$d/sr"
}

@test "wrappers: an sbsa build says once per configure that no runtime floor is known, not at every link" {
	need cmake
	need aarch64-linux-gnu-gcc-11 "links the programs"
	d=$(scratch)
	sbsa_sysroot "$d/sr"
	mkdir -p "$d/p"
	printf 'int main(void) { return 0; }\n' > "$d/p/m.c"
	printf 'cmake_minimum_required(VERSION 3.21)\nproject(p C)\nadd_executable(a m.c)\nadd_executable(b m.c)\nadd_executable(c m.c)\n' > "$d/p/CMakeLists.txt"
	run cmake -S "$d/p" -B "$d/b" -DCMAKE_TOOLCHAIN_FILE="$(toolchain)" \
		-DCUDA_XCC_SYSROOT="$d/sr" -DCUDA_XCC_EXECUTABLE="$CUDA_XCC"
	assert_status 0
	[ "$(grep -c "no runtime floor is known for --target sbsa" <<<"$output")" = 1 ]
	assert_output_contains "give -DCUDA_XCC_TARGET_FS=ROOTFS"
	run cmake --build "$d/b"
	assert_status 0
	[[ "$output" != *"no runtime floor"* ]] || { echo "$output" >&2; false; }
	[ -x "$d/b/c" ]
	# --strict still fails a link that nothing could check
	run cmake -S "$d/p" -B "$d/b" -DCUDA_XCC_STRICT=ON
	assert_status 0
	touch "$d/p/m.c"
	run cmake --build "$d/b"
	# make's own status for a failed rule
	assert_status 2
	assert_output_contains "error: no runtime floor is known for --target sbsa"
}
