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
	d=$(scratch)
	cd "$d"
	cat > Makefile <<'MK'
CUDA_PATH ?= /usr/local/cuda
HOST_ARCH := $(shell uname -m)
TARGET_ARCH ?= $(HOST_ARCH)
TARGET_OS ?= linux
HOST_COMPILER ?= g++
NVCC ?= $(CUDA_PATH)/bin/nvcc -ccbin $(HOST_COMPILER)
ifeq ($(TARGET_ARCH)-$(TARGET_OS),aarch64-linux)
	CUDA_INSTALL_TARGET_DIR = targets/aarch64-linux/
else ifeq ($(TARGET_ARCH)-$(TARGET_OS),sbsa-linux)
	CUDA_INSTALL_TARGET_DIR = targets/sbsa-linux/
endif
CUDA_SEARCH_PATH ?= $(CUDA_PATH)/$(CUDA_INSTALL_TARGET_DIR)lib/stubs
CUDALIB ?= $(shell find -L $(CUDA_SEARCH_PATH) -maxdepth 1 -name libcuda.so 2> /dev/null)
ifeq ("$(CUDALIB)","")
	$(error CUDA Driver is not installed in $(CUDA_SEARCH_PATH))
endif
INCLUDES := -I$(CUDA_PATH)/include
LIBRARIES := -L$(CUDA_SEARCH_PATH) -lcuda -L$(CUDA_PATH)/lib64 -lnvrtc
all: axpy_nvrtc
axpy_nvrtc.o: axpy_nvrtc.cpp
	$(NVCC) $(INCLUDES) -o $@ -c $<
axpy_nvrtc: axpy_nvrtc.o
	$(NVCC) -o $@ $+ $(LIBRARIES)
MK
	cat > axpy_nvrtc.cpp <<'CU'
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda.h>
#include <nvrtc.h>

static const char *source =
	"extern \"C\" __global__ void axpy(float a, const float *x, float *y)\n"
	"{ y[threadIdx.x] += a * x[threadIdx.x]; }\n";

int main()
{
	int major = -1, minor = -1;
	nvrtcVersion(&major, &minor);
	std::printf("nvrtcVersion: %d.%d\n", major, minor);
	nvrtcProgram prog;
	nvrtcResult r = nvrtcCreateProgram(&prog, source, "axpy.cu", 0, nullptr, nullptr);
	std::printf("nvrtcCreateProgram: %d\n", (int)r);
	const char *opts[] = { "--gpu-architecture=compute_80" };
	r = nvrtcCompileProgram(prog, 1, opts);
	std::printf("nvrtcCompileProgram: %d (%s)\n", (int)r, nvrtcGetErrorString(r));
	size_t n = 0;
	nvrtcGetPTXSize(prog, &n);
	char *ptx = (char *)std::calloc(n + 1, 1);
	nvrtcGetPTX(prog, ptx);
	for (char *l = std::strtok(ptx, "\n"); l; l = std::strtok(nullptr, "\n"))
		if (!std::strncmp(l, ".target", 7) || std::strstr(l, ".entry"))
			std::printf("ptx: %s\n", l);
	CUresult c = cuInit(0);
	std::printf("cuInit: %d\n", (int)c);
	return r == NVRTC_SUCCESS && c == CUDA_SUCCESS ? 0 : 2;
}
CU
	run make CUDA_PATH="$S" TARGET_ARCH=sbsa HOST_COMPILER=aarch64-linux-gnu-g++-11 \
		NVCC="$CUDA_XCC --sysroot $S"
	assert_status 0
	run readelf -d axpy_nvrtc
	assert_output_contains "Shared library: [libnvrtc.so.11.2]"
	assert_output_contains "Shared library: [libcuda.so.1]"
	run env -u LD_LIBRARY_PATH "$CUDA_XCC" run --sysroot "$S" --stub-libcuda ./axpy_nvrtc
	[[ "$output" != *"cannot open shared object file"* ]] || { echo "$output" >&2; false; }
	assert_output_contains "nvrtcVersion: 11.8"
	assert_output_contains "nvrtcCompileProgram: 0 (NVRTC_SUCCESS)"
	assert_output_contains "ptx: .target sm_80"
	assert_output_contains "ptx: .visible .entry axpy("
	# CUDA_ERROR_STUB_LIBRARY
	assert_output_contains "cuInit: 34"
	assert_status 2
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
	mkdir -p "$d/p"
	# CCCL's own package (cccl-config.cmake) came with CCCL 2: Thrust's and CUB's here.
	cat > "$d/p/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.21)
project(solver_use LANGUAGES CXX CUDA)
find_package(CUB CONFIG REQUIRED)
find_package(Thrust CONFIG REQUIRED)
thrust_create_target(Thrust)
find_package(CUDAToolkit REQUIRED)
message(STATUS "Thrust_DIR=${Thrust_DIR}")
add_executable(solve solve.cu)
target_link_libraries(solve PRIVATE CUB::CUB Thrust CUDA::cusolver CUDA::cusparse)
CM
	cat > "$d/p/solve.cu" <<'CU'
#include <cstdio>
#include <cub/cub.cuh>
#include <cusolverDn.h>
#include <cusparse.h>
#include <thrust/device_vector.h>

int main()
{
	int major = -1;
	cusolverStatus_t s = cusolverGetProperty(MAJOR_VERSION, &major);
	std::printf("cusolverGetProperty: status=%d major=%d\n", (int)s, major);
	cusparseStatus_t sp = cusparseGetProperty(MAJOR_VERSION, &major);
	std::printf("cusparseGetProperty: status=%d major=%d\n", (int)sp, major);
	cusolverDnHandle_t h;
	s = cusolverDnCreate(&h);
	std::printf("cusolverDnCreate: status=%d\n", (int)s);
	size_t bytes = 0;
	cudaError_t e = cub::DeviceReduce::Sum(nullptr, bytes, (int *)nullptr, (int *)nullptr, 16);
	std::printf("cub::DeviceReduce::Sum: err=%d\n", (int)e);
	try {
		thrust::device_vector<int> v(16, 1);
		return 0;
	} catch (const std::exception &x) {
		std::printf("thrust: %s\n", x.what());
		return 2;
	}
}
CU
	run cmake -S "$d/p" -B "$d/b" \
		-DCMAKE_TOOLCHAIN_FILE="$XCC_SRCDIR/wrappers/cmake/cuda-xcc-toolchain.cmake" \
		-DCUDA_XCC_SYSROOT="$S" -DCUDA_XCC_EXECUTABLE="$CUDA_XCC" -DCUDA_XCC_ARCH=sm_80
	assert_status 0
	assert_output_contains "Thrust_DIR=$L/cmake/thrust"
	run cmake --build "$d/b"
	assert_status 0
	run readelf -d "$d/b/solve"
	assert_output_contains "Shared library: [libcusolver.so.11]"
	assert_output_contains "Shared library: [libcusparse.so.11]"
	run env -u LD_LIBRARY_PATH "$CUDA_XCC" run --sysroot "$S" "$d/b/solve"
	[[ "$output" != *"cannot open shared object file"* ]] || { echo "$output" >&2; false; }
	assert_output_contains "cusolverGetProperty: status=0 major=11"
	assert_output_contains "cusparseGetProperty: status=0 major=11"
	assert_output_contains "cusolverDnCreate: status="
	assert_output_contains "cub::DeviceReduce::Sum: err="
	assert_output_contains "thrust: "
	assert_status 2
}

# The SASS of a program, as Debian's own cuobjdump 11.8 lists it.
sass_of() {
	"$S/bin/cuobjdump" --list-elf "$1" | grep -o 'sm_[0-9]*[af]\?\.cubin$' | sed 's/\.cubin$//' |
		sort -u -V | tr '\n' ' '
}

@test "e2e 11.8 libraries: a Makefile in NVIDIA's sample style: CUDA_PATH, TARGET_ARCH=sbsa, SMS, \$(CUDA_PATH)/include" {
	need_sysroot
	need make
	d=$(scratch)
	cd "$d"
	cat > Makefile <<'MK'
CUDA_PATH ?= /usr/local/cuda
HOST_ARCH := $(shell uname -m)
TARGET_ARCH ?= $(HOST_ARCH)
TARGET_OS ?= linux
HOST_COMPILER ?= g++
NVCC ?= $(CUDA_PATH)/bin/nvcc -ccbin $(HOST_COMPILER)
SMS ?= 80
ifeq ($(TARGET_ARCH)-$(TARGET_OS),aarch64-linux)
	CUDA_INSTALL_TARGET_DIR = targets/aarch64-linux/
else ifeq ($(TARGET_ARCH)-$(TARGET_OS),sbsa-linux)
	CUDA_INSTALL_TARGET_DIR = targets/sbsa-linux/
endif
CUDA_SEARCH_PATH ?= $(CUDA_PATH)/$(CUDA_INSTALL_TARGET_DIR)lib/stubs
CUDALIB ?= $(shell find -L $(CUDA_SEARCH_PATH) -maxdepth 1 -name libcuda.so 2> /dev/null)
ifeq ("$(CUDALIB)","")
	$(error CUDA Driver is not installed in $(CUDA_SEARCH_PATH))
endif
GENCODE_FLAGS := $(foreach sm,$(SMS),-gencode arch=compute_$(sm),code=sm_$(sm))
INCLUDES := -I$(CUDA_PATH)/include -I.
all: rt drv
cooperative_groups.h:
	cp $(CUDA_PATH)/include/cooperative_groups.h .
rt: rt.cu cooperative_groups.h
	$(NVCC) $(INCLUDES) $(GENCODE_FLAGS) -o $@ $<
drv: drv.cpp
	$(NVCC) $(INCLUDES) -o $@ $< -L$(CUDA_SEARCH_PATH) -lcuda
MK
	cat > rt.cu <<'CU'
#include <cstdio>
#include "cooperative_groups.h"
__global__ void k(int *x) { cooperative_groups::this_thread_block().sync(); *x = 1; }
int main()
{
	int n = -1;
	cudaError_t e = cudaGetDeviceCount(&n);
	std::printf("cudaGetDeviceCount: err=%d\n", (int)e);
	return e == cudaSuccess ? 0 : 2;
}
CU
	cat > drv.cpp <<'CU'
#include <cstdio>
#include <cuda.h>
int main() { std::printf("cuInit: %d\n", (int)cuInit(0)); return 0; }
CU
	run make CUDA_PATH="$S" TARGET_ARCH=sbsa SMS="80 90" HOST_COMPILER=aarch64-linux-gnu-g++-11 \
		NVCC="$CUDA_XCC --sysroot $S"
	assert_status 0
	[ "$(sass_of rt)" = "sm_80 sm_90 " ]
	run readelf -d drv
	assert_output_contains "Shared library: [libcuda.so.1]"
	run "$CUDA_XCC" run --sysroot "$S" ./rt
	assert_output_contains "cudaGetDeviceCount: err=35"
	assert_status 2
	# the driver-API program: no libcuda.so.1 here, unless the stub is asked for
	run -127 "$CUDA_XCC" run --sysroot "$S" ./drv
	assert_output_contains "libcuda.so.1"
	run "$CUDA_XCC" run --sysroot "$S" --stub-libcuda ./drv
	assert_status 0
	# CUDA_ERROR_STUB_LIBRARY
	assert_output_contains "cuInit: 34"
}

@test "e2e 11.8 libraries: a CMake project reading CUDA_HOME builds with the sysroot's CUDA, not another one in the environment" {
	need_sysroot
	need cmake "builds the project"
	d=$(scratch)
	# /usr/local/cuda where it is a CUDA (a native x86_64 one, as on CI images), else one
	# shaped like it
	local f=/usr/local/cuda
	if [ ! -e "$f/include/cuda_runtime_api.h" ]; then
		f=$d/native
		mkdir -p "$f/bin" "$f/targets/x86_64-linux/include" "$f/targets/x86_64-linux/lib/stubs"
		printf '#!/bin/sh\nexit 1\n' > "$f/bin/nvcc"
		chmod +x "$f/bin/nvcc"
		: > "$f/targets/x86_64-linux/include/cuda_runtime_api.h"
		ln -s targets/x86_64-linux/include "$f/include"
		ln -s targets/x86_64-linux/lib "$f/lib64"
	fi
	mkdir -p "$d/p"
	cat > "$d/p/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.18)
set(CUDAToolkit_ROOT "$ENV{CUDA_HOME}" CACHE PATH "the CUDA toolkit")
project(reads_cuda_home LANGUAGES CXX CUDA)
find_package(CUDAToolkit REQUIRED)
message(STATUS "nvcc=${CUDAToolkit_NVCC_EXECUTABLE}")
add_executable(rt rt.cu)
target_link_libraries(rt PRIVATE CUDA::cudart)
CM
	printf '#include <cstdio>\nint main() { int n = -1; cudaError_t e = cudaGetDeviceCount(&n); std::printf("err=%%d\\n", (int)e); return 2; }\n' > "$d/p/rt.cu"
	CUDA_HOME=$f CUDA_PATH=$f PATH=$f/bin:$PATH LIBRARY_PATH=$f/lib64/stubs \
		run cmake -S "$d/p" -B "$d/b" \
		-DCMAKE_TOOLCHAIN_FILE="$XCC_SRCDIR/wrappers/cmake/cuda-xcc-toolchain.cmake" \
		-DCUDA_XCC_SYSROOT="$S" -DCUDA_XCC_EXECUTABLE="$CUDA_XCC" -DCUDA_XCC_ARCH=sm_90
	assert_status 0
	assert_output_contains "-- nvcc=$S/bin/nvcc"
	assert_output_contains "Found CUDAToolkit: $S/targets/sbsa-linux/include (found version \"11.8.89\")"
	run grep "^CUDAToolkit_ROOT:" "$d/b/CMakeCache.txt"
	assert_output_equals "CUDAToolkit_ROOT:PATH=$S"
	CUDA_HOME=$f CUDA_PATH=$f PATH=$f/bin:$PATH LIBRARY_PATH=$f/lib64/stubs run cmake --build "$d/b"
	assert_status 0
	run grep -c "$f" "$d/b/CMakeCache.txt"
	assert_output_equals 0
	run "$CUDA_XCC" run --sysroot "$S" "$d/b/rt"
	assert_output_contains "err=35"
	assert_status 2
}
