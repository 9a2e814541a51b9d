#!/usr/bin/env bats
# The CUDA libraries of the first real CUDA era: Debian 12's CUDA 11.8 packages with NVRTC,
# cuSPARSE, cuSOLVER (and the cuBLAS it NEEDs) and CCCL's headers and CMake packages
# (Thrust and CUB 1.17, libcu++ 1.8), the real nvcc 11.8 with aarch64-linux-gnu-g++-11,
# the programs started under cuda-xcc run; and, on the same sysroot, a Makefile in NVIDIA's
# sample style and a CMake project reading CUDA_HOME with a foreign CUDA in the environment.
# tests/e2e-cuda124.bats has the same for 12.4.
#
# The packages come from scripts/fetch-debian-cuda.sh --components
# cuda_nvrtc,libcusparse,libcusolver,cuda_cccl (beside the release's own four); the cache
# is $XCC_DEB_CACHE, default /var/cache/cuda-xcc/debs. Without them these tests are
# skipped. XCC_E2E_SYSROOT_118_LIBS=DIR reuses a sysroot made from them.
load lib/common
load lib/e2e
load lib/real-projects
bats_require_minimum_version 1.5.0

deb_cache() { cuda118_cache; }

# The release's packages and the components', or fewer than 13 (the tests then skip).
debs() {
	local c
	c=$(deb_cache)
	cuda118_debs
	ls "$c"/libnvrtc11.2_11.8.*_arm64.deb "$c"/libnvrtc-builtins11.8_11.8.*_arm64.deb \
		"$c"/libcusparse11_*~11.8.*_arm64.deb "$c"/libcusolver11_*~11.8.*_arm64.deb \
		"$c"/libcusolvermg11_*~11.8.*_arm64.deb "$c"/libcublas11_*~11.8.*_arm64.deb \
		"$c"/libcublaslt11_*~11.8.*_arm64.deb "$c"/libcu++-dev_1.8.*_all.deb \
		"$c"/libcub-dev_1.17.*_all.deb "$c"/libthrust-dev_1.17.*_all.deb 2>/dev/null
}

setup_file() {
	# cuBLAS is not asked for: libcusolver.so.11 NEEDs it, so it must come along.
	e2e_make_sysroot "CUDA 11.8 library" "${XCC_E2E_SYSROOT_118_LIBS:-}" 13 \
		"scripts/fetch-debian-cuda.sh --components cuda_nvrtc,libcusparse,libcusolver,cuda_cccl" \
		--target sbsa --cuda 11.8 --components cuda_nvrtc,libcusparse,libcusolver,cuda_cccl
}

need_sysroot() {
	e2e_sysroot
	need aarch64-linux-gnu-g++-11 "CUDA 11.8's host compiler (g++-11-aarch64-linux-gnu)"
	need readelf "inspects the programs"
	need qemu-aarch64 "cuda-xcc run starts the programs under it"
	export S L=$S/targets/sbsa-linux/lib
}

@test "e2e 11.8 libraries: NVRTC in NVIDIA's sample style (-lnvrtc -lcuda): under cuda-xcc run it really compiles PTX on the CPU" {
	need_sysroot
	need make
	[ -f "$S/include/nvrtc.h" ]
	[ -f "$L/libnvrtc.so.11.2" ]
	[ -f "$L/libnvrtc-builtins.so.11.8" ]
	real_nvrtc_make aarch64-linux-gnu-g++-11 80
	real_nvrtc_run libnvrtc.so.11.2 11.8 80
}

@test "e2e 11.8 libraries: a CMake project with Thrust, CUB and shared CUDA::cusolver and CUDA::cusparse starts under cuda-xcc run" {
	need_sysroot
	need cmake "builds the project"
	run readelf -d "$L/libcusolver.so.11"
	assert_output_contains "Shared library: [libcublas.so.11]"
	[ -f "$L/libcublas.so.11" ]
	[ -f "$L/cmake/thrust/thrust-config.cmake" ]
	[ -f "$L/cmake/cub/cub-config.cmake" ]
	d=$(scratch)
	# CCCL's own package (cccl-config.cmake) came with CCCL 2: Thrust's and CUB's here.
	real_solver_project "$d" CUB
	real_cmake_configure "$d/p" "$d/b" sm_80
	assert_output_contains "Thrust_DIR=$L/cmake/thrust"
	real_solver_run "$d" 11
}

@test "e2e 11.8 libraries: a Makefile in NVIDIA's sample style: CUDA_PATH, TARGET_ARCH=sbsa, SMS, \$(CUDA_PATH)/include" {
	need_sysroot
	need make
	real_sample_makefile aarch64-linux-gnu-g++-11
}

@test "e2e 11.8 libraries: a CMake project reading CUDA_HOME builds with the sysroot's CUDA, not another one in the environment" {
	need_sysroot
	need cmake "builds the project"
	real_cuda_home_project 11.8.89
}
