#!/usr/bin/env bats
# The Buildroot BR2_EXTERNAL tree (wrappers/buildroot) in a real Buildroot tree:
# Kconfig, the variables its packages set, and show-info. scripts/setup.sh unpacks
# Buildroot into /var/cache/cuda-xcc/thirdparty when ../shared/thirdparty has it.
# No package is built here: that needs every host dependency's sources offline.
load lib/common

BR=${XCC_BUILDROOT_TREE:-/var/cache/cuda-xcc/thirdparty/buildroot}

setup_file() {
	[ -f "$BR/Makefile" ] || return 0
	export BR_OUT=$BATS_FILE_TMPDIR/out
	make -C "$BR" O="$BR_OUT" BR2_EXTERNAL="$XCC_SRCDIR/wrappers/buildroot" \
		qemu_aarch64_virt_defconfig >/dev/null
	printf '%s\n' BR2_TOOLCHAIN_BUILDROOT_CXX=y BR2_PACKAGE_CUDA_XCC_RUNTIME=y \
		BR2_GCC_VERSION_14_X=y '# BR2_GCC_VERSION_15_X is not set' \
		BR2_PACKAGE_CUDA_XCC_RUNTIME_CUDA_12_9=y >> "$BR_OUT/.config"
	make -C "$BR_OUT" olddefconfig >/dev/null
}

need_buildroot() {
	[ -f "$BR/Makefile" ] || skip "no Buildroot tree in $BR (scripts/setup.sh unpacks ../shared/thirdparty/buildroot-*.tar.xz there)"
	need make
}

# Configure a copy of the tree's .config with extra lines; print the resulting .config.
reconfigure() {
	local out=$BATS_TEST_TMPDIR/out
	mkdir -p "$out"
	cp "$BR_OUT/.config" "$out/.config"
	printf '%s\n' "$@" >> "$out/.config"
	make -C "$BR" O="$out" BR2_EXTERNAL="$XCC_SRCDIR/wrappers/buildroot" olddefconfig >/dev/null
	cat "$out/.config"
}

@test "buildroot: Kconfig offers only the CUDA versions the toolchain's gcc suits, and needs glibc and C++" {
	need_buildroot
	grep -qx 'BR2_PACKAGE_HOST_CUDA_XCC=y' "$BR_OUT/.config"
	grep -qx 'BR2_PACKAGE_CUDA_XCC_RUNTIME_CUDA_12_9=y' "$BR_OUT/.config"
	grep -qx 'BR2_PACKAGE_CUDA_XCC_RUNTIME_CUDA_VERSION="12.9"' "$BR_OUT/.config"
	grep -qx 'BR2_PACKAGE_CUDA_XCC_RUNTIME_TARGET="jetson"' "$BR_OUT/.config"
	# Buildroot's default gcc 15 is newer than any CUDA 12 accepts: 12.9 cannot be kept
	run reconfigure BR2_GCC_VERSION_15_X=y '# BR2_GCC_VERSION_14_X is not set'
	assert_status 0
	assert_output_contains 'BR2_PACKAGE_CUDA_XCC_RUNTIME_CUDA_VERSION="13.0"'
	assert_output_contains '# CUDA 12.x needs gcc 14 or older'
	[[ "$output" != *"BR2_PACKAGE_CUDA_XCC_RUNTIME_CUDA_12_9=y"* ]]
	# a musl toolchain: the package is not available, and a comment says why
	run reconfigure BR2_TOOLCHAIN_BUILDROOT_MUSL=y '# BR2_TOOLCHAIN_BUILDROOT_GLIBC is not set'
	assert_status 0
	[[ "$output" != *"BR2_PACKAGE_CUDA_XCC_RUNTIME=y"* ]]
	assert_output_contains "# cuda-xcc runtime needs a glibc toolchain w/ C++"
}

@test "buildroot: the packages' variables: sources, autoreconf, libarchive with xz and zstd, toolchain first" {
	need_buildroot
	run make -C "$BR_OUT" -s --no-print-directory printvars VARS="HOST_CUDA_XCC_SITE HOST_CUDA_XCC_SITE_METHOD HOST_CUDA_XCC_AUTORECONF HOST_CUDA_XCC_FINAL_DEPENDENCIES HOST_LIBARCHIVE_CONF_OPTS HOST_LIBARCHIVE_FINAL_DEPENDENCIES CUDA_XCC_RUNTIME_FINAL_DEPENDENCIES CUDA_XCC_CMAKE_OPTS CUDA_XCC_NVCC"
	assert_status 0
	# built from this checkout, which has no ./configure
	assert_output_contains "HOST_CUDA_XCC_SITE=$(realpath "$XCC_SRCDIR")"$'\n'
	assert_output_contains "HOST_CUDA_XCC_SITE_METHOD=local"
	assert_output_contains "HOST_CUDA_XCC_AUTORECONF=YES"
	[[ "$output" =~ HOST_CUDA_XCC_FINAL_DEPENDENCIES=[^$'\n']*host-xz ]]
	# host-libarchive reads .xz and .zst: the last --with/--without wins, and xz/zstd come first
	[[ "$output" =~ HOST_LIBARCHIVE_CONF_OPTS=[^$'\n']*--without-lzma[^$'\n']*--with-lzma\ --with-zstd$'\n' ]]
	[[ "$output" =~ HOST_LIBARCHIVE_FINAL_DEPENDENCIES=[^$'\n']*host-xz[^$'\n']*host-zstd ]]
	# the sysroot is made by a target package: after the toolchain filled the staging dir
	[[ "$output" =~ CUDA_XCC_RUNTIME_FINAL_DEPENDENCIES=[^$'\n']*host-cuda-xcc[^$'\n']*toolchain ]]
	# CMake gets the architectures cuda-xcc validated, the compiler and ar are Buildroot's
	assert_output_contains '-DCMAKE_CUDA_ARCHITECTURES="$(cat '"$BR_OUT"'/host/share/cuda-xcc/cmake-architectures)"'
	assert_output_contains "-DCMAKE_CUDA_HOST_COMPILER=$BR_OUT/host/bin/aarch64-buildroot-linux-gnu-g++"
	assert_output_contains "-ccbin $BR_OUT/host/bin/aarch64-buildroot-linux-gnu-g++ -arbin=$BR_OUT/host/bin/aarch64-buildroot-linux-gnu-gcc-ar"
	assert_output_contains "-arch sm_87"
}

@test "buildroot: show-info names the licenses and the dependencies" {
	need_buildroot
	need python3
	make -C "$BR_OUT" -s --no-print-directory show-info > "$BATS_TEST_TMPDIR/info.json"
	run python3 - "$BATS_TEST_TMPDIR/info.json" <<-'PY'
	import json, sys
	d = json.load(open(sys.argv[1]))
	for k in ("host-cuda-xcc", "cuda-xcc-runtime", "host-libarchive"):
	    v = d[k]
	    print(k, "|", v["licenses"], "|", " ".join(v["dependencies"]), "|", v["redistributable"])
	PY
	assert_status 0
	assert_output_contains "cuda-xcc-runtime | NVIDIA CUDA Toolkit EULA | host-cuda-xcc"
	[[ "$output" =~ cuda-xcc-runtime\ \|[^$'\n']*toolchain ]]
	[[ "$output" =~ host-libarchive\ \|[^$'\n']*host-xz[^$'\n']*host-zstd ]]
	[[ "$output" =~ host-cuda-xcc\ \|[^$'\n']*host-autoconf ]]
}
