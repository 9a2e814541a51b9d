#!/usr/bin/env bats
# The CMake toolchain file, and the Yocto and Buildroot recipes' consistency.
load lib/common

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
	run cmake -S "$XCC_SRCDIR/examples/cmake" -B "$d/b2" -DCMAKE_TOOLCHAIN_FILE="$(toolchain)" -DCUDA_XCC_SYSROOT="$d"
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
