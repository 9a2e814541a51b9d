# Real projects built on an end-to-end sysroot, shared by the CUDA eras' files
# (tests/e2e-libs118.bats, tests/e2e-cuda124.bats): a Makefile in NVIDIA's sample
# style, the same with NVRTC and the driver API, a CMake project with CCCL's
# Thrust and CUB and shared cuSOLVER and cuSPARSE, and a CMake project reading
# CUDA_HOME. Each era passes what differs (its host compiler, GPU, version, the
# sonames of its libraries) and keeps its own checks of its sysroot. The
# functions need $S (the sysroot) and $L (its targets/sbsa-linux/lib).

# The SASS of a program, as the sysroot's own cuobjdump lists it.
sass_of() {
	"$S/bin/cuobjdump" --list-elf "$1" | grep -o 'sm_[0-9]*[af]\?\.cubin$' | sed 's/\.cubin$//' |
		sort -u -V | tr '\n' ' '
}

# The head of the Makefiles of NVIDIA's samples: where CUDA is, the target's
# install directory and its stub libcuda.
sample_makefile_head() {
	cat <<'MK'
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
MK
}

# real_sample_makefile HOST_CXX: in a new directory, a Makefile in NVIDIA's sample style
# (CUDA_PATH, TARGET_ARCH=sbsa, SMS, $(CUDA_PATH)/include) built with HOST_CXX for sm_80
# and sm_90; a runtime program and a driver-API one run under cuda-xcc run.
real_sample_makefile() {
	local cxx=$1 d
	d=$(scratch)
	cd "$d"
	{
		sample_makefile_head
		cat <<'MK'
SMS ?= 80
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
	} > Makefile
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
	run make CUDA_PATH="$S" TARGET_ARCH=sbsa SMS="80 90" HOST_COMPILER="$cxx" \
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

# real_nvrtc_make HOST_CXX SM: in a new directory, the variables and rules of NVIDIA's
# NVRTC samples (clock_nvrtc, vectorAdd_nvrtc) and a program that has NVRTC compile a
# kernel for compute_SM and prints the PTX's target and entry, then calls cuInit; built
# with HOST_CXX.
real_nvrtc_make() {
	local cxx=$1 sm=$2 d
	d=$(scratch)
	cd "$d"
	{
		sample_makefile_head
		cat <<'MK'
INCLUDES := -I$(CUDA_PATH)/include
LIBRARIES := -L$(CUDA_SEARCH_PATH) -lcuda -L$(CUDA_PATH)/lib64 -lnvrtc
all: axpy_nvrtc
axpy_nvrtc.o: axpy_nvrtc.cpp
	$(NVCC) $(INCLUDES) -o $@ -c $<
axpy_nvrtc: axpy_nvrtc.o
	$(NVCC) -o $@ $+ $(LIBRARIES)
MK
	} > Makefile
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
	const char *opts[] = { "--gpu-architecture=compute_@SM@" };
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
	sed -i "s/@SM@/$sm/" axpy_nvrtc.cpp
	run make CUDA_PATH="$S" TARGET_ARCH=sbsa HOST_COMPILER="$cxx" NVCC="$CUDA_XCC --sysroot $S"
	assert_status 0
}

# real_nvrtc_run NVRTC_SONAME VERSION SM: the program real_nvrtc_make built NEEDs
# NVRTC_SONAME and libcuda.so.1; under cuda-xcc run NVRTC VERSION compiles on the CPU
# and gives real PTX for sm_SM (it loads its libnvrtc-builtins itself); the stub libcuda
# then refuses cuInit.
real_nvrtc_run() {
	local soname=$1 version=$2 sm=$3
	run readelf -d axpy_nvrtc
	assert_output_contains "Shared library: [$soname]"
	assert_output_contains "Shared library: [libcuda.so.1]"
	run env -u LD_LIBRARY_PATH "$CUDA_XCC" run --sysroot "$S" --stub-libcuda ./axpy_nvrtc
	[[ "$output" != *"cannot open shared object file"* ]] || { echo "$output" >&2; false; }
	assert_output_contains "nvrtcVersion: $version"
	assert_output_contains "nvrtcCompileProgram: 0 (NVRTC_SUCCESS)"
	assert_output_contains "ptx: .target sm_$sm"
	assert_output_contains "ptx: .visible .entry axpy("
	# CUDA_ERROR_STUB_LIBRARY
	assert_output_contains "cuInit: 34"
	assert_status 2
}

# real_cmake_configure SRC BUILD SM: configures the project in SRC into BUILD through the
# shipped toolchain file on $S for SM.
real_cmake_configure() {
	run cmake -S "$1" -B "$2" \
		-DCMAKE_TOOLCHAIN_FILE="$XCC_SRCDIR/wrappers/cmake/cuda-xcc-toolchain.cmake" \
		-DCUDA_XCC_SYSROOT="$S" -DCUDA_XCC_EXECUTABLE="$CUDA_XCC" -DCUDA_XCC_ARCH="$3"
	assert_status 0
}

# real_solver_project DIR PACKAGE: in DIR/p a CMake project linking Thrust, CCCL's headers
# through PACKAGE's target (CUB for CCCL 1, whose CCCL package came with CCCL 2; CCCL for
# CCCL 2) and shared CUDA::cusolver and CUDA::cusparse.
real_solver_project() {
	local d=$1 pkg=$2
	mkdir -p "$d/p"
	cat > "$d/p/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.21)
project(solver_use LANGUAGES CXX CUDA)
find_package($pkg CONFIG REQUIRED)
find_package(Thrust CONFIG REQUIRED)
thrust_create_target(Thrust)
find_package(CUDAToolkit REQUIRED)
message(STATUS "Thrust_DIR=\${Thrust_DIR}")
add_executable(solve solve.cu)
target_link_libraries(solve PRIVATE $pkg::$pkg Thrust CUDA::cusolver CUDA::cusparse)
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
}

# real_solver_run DIR CUSPARSE_MAJOR: builds the configured DIR/b; the program NEEDs
# libcusolver.so.11 and libcusparse.so.CUSPARSE_MAJOR and starts under cuda-xcc run, each
# library giving its version; without a driver Thrust's allocation throws.
real_solver_run() {
	local d=$1 sparse=$2
	run cmake --build "$d/b"
	assert_status 0
	run readelf -d "$d/b/solve"
	assert_output_contains "Shared library: [libcusolver.so.11]"
	assert_output_contains "Shared library: [libcusparse.so.$sparse]"
	run env -u LD_LIBRARY_PATH "$CUDA_XCC" run --sysroot "$S" "$d/b/solve"
	[[ "$output" != *"cannot open shared object file"* ]] || { echo "$output" >&2; false; }
	assert_output_contains "cusolverGetProperty: status=0 major=11"
	assert_output_contains "cusparseGetProperty: status=0 major=$sparse"
	assert_output_contains "cusolverDnCreate: status="
	assert_output_contains "cub::DeviceReduce::Sum: err="
	assert_output_contains "thrust: "
	assert_status 2
}

# real_cuda_home_project VERSION: a CMake project reading CUDA_HOME, configured and built
# with another CUDA in CUDA_HOME, CUDA_PATH, PATH and LIBRARY_PATH, finds the sysroot's
# CUDA VERSION (CUDAToolkit's full version) and nothing of the other one.
real_cuda_home_project() {
	local version=$1 d
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
	assert_output_contains "Found CUDAToolkit: $S/targets/sbsa-linux/include (found version \"$version\")"
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
