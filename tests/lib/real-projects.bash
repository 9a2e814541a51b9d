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
	assert_output_contains "note: ./drv needs libcuda.so.1, the GPU driver's library, which only the board has: --stub-libcuda"
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

# real_shlib_sources DIR: in DIR, the sources of the most common shape of a CUDA project:
# a shared library of .cu files (xgemm) that uses the runtime, cuBLAS and the driver API,
# behind a C header, and the programs that link only it: gemm (C++), bench (CUDA, with a
# kernel of its own) and drvquery (C, which calls the driver API itself too; drvquery.cu,
# the same source, for build systems that take the driver library for CUDA only).
real_shlib_sources() {
	local d=$1
	mkdir -p "$d"
	cat > "$d/xgemm.h" <<'H'
#ifdef __cplusplus
extern "C" {
#endif
int xgemm_device_count(int *n);
int xgemm_blas_status(void);
int xgemm_driver_version(int *v);
#ifdef __cplusplus
}
#endif
H
	cat > "$d/xgemm.cu" <<'CU'
#include <cublas_v2.h>
#include <cuda.h>
#include "xgemm.h"
int xgemm_device_count(int *n) { return (int)cudaGetDeviceCount(n); }
int xgemm_blas_status(void)
{
	cublasHandle_t h;
	cublasStatus_t s = cublasCreate(&h);
	if (s == CUBLAS_STATUS_SUCCESS)
		cublasDestroy(h);
	return (int)s;
}
int xgemm_driver_version(int *v) { return (int)cuDriverGetVersion(v); }
CU
	cat > "$d/gemm.cpp" <<'C'
#include <cstdio>
#include "xgemm.h"
int main()
{
	int n = -1;
	int e = xgemm_device_count(&n);
	std::printf("xgemm_device_count: err=%d\n", e);
	std::printf("xgemm_blas_status: status=%d\n", xgemm_blas_status());
	return e == 0 ? 0 : 2;
}
C
	cat > "$d/bench.cu" <<'CU'
#include <cstdio>
#include "xgemm.h"
__global__ void fill(float *x) { x[threadIdx.x] = 1.0f; }
int main()
{
	int n = -1;
	std::printf("xgemm_device_count: err=%d\n", xgemm_device_count(&n));
	fill<<<1, 32>>>(nullptr);
	int e = (int)cudaGetLastError();
	std::printf("fill<<<1, 32>>>: err=%d\n", e);
	return e == 0 ? 0 : 2;
}
CU
	cat > "$d/drvquery.c" <<'C'
#include <cuda.h>
#include <stdio.h>
#include "xgemm.h"
int main(void)
{
	int v = -1;
	CUresult r = cuInit(0);
	printf("cuInit: %d\n", (int)r);
	printf("xgemm_driver_version: %d\n", xgemm_driver_version(&v));
	return r == CUDA_SUCCESS ? 0 : 2;
}
C
	cp "$d/drvquery.c" "$d/drvquery.cu"
}

# real_shlib_cmake DIR: real_shlib_sources with the CMakeLists.txt such projects have:
# the library links CUDA::cudart, CUDA::cublas and CUDA::cuda_driver PRIVATE, the
# programs link the library alone (drvquery also CUDA::cuda_driver), and all of them are
# installed with an $ORIGIN run path.
real_shlib_cmake() {
	local d=$1
	real_shlib_sources "$d"
	cat > "$d/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.21)
project(xgemm LANGUAGES C CXX CUDA)
find_package(CUDAToolkit REQUIRED)
include(GNUInstallDirs)
set(CMAKE_INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
add_library(xgemm SHARED xgemm.cu)
target_include_directories(xgemm PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(xgemm PRIVATE CUDA::cudart CUDA::cublas CUDA::cuda_driver)
add_executable(gemm gemm.cpp)
target_link_libraries(gemm PRIVATE xgemm)
add_executable(bench bench.cu)
target_link_libraries(bench PRIVATE xgemm)
add_executable(drvquery drvquery.c)
target_link_libraries(drvquery PRIVATE xgemm CUDA::cuda_driver)
install(TARGETS xgemm gemm bench drvquery)
CM
}

# real_shlib_meson DIR: the same project for Meson: the library with dependency('cuda',
# modules: ['cublas', 'cuda']), gemm (C++) and drvquery (CUDA, the driver API) linking it.
real_shlib_meson() {
	local d=$1
	real_shlib_sources "$d"
	cat > "$d/meson.build" <<'MB'
project('xgemm', 'c', 'cpp', 'cuda')
cuda = dependency('cuda', modules: ['cublas', 'cuda'])
xgemm = shared_library('xgemm', 'xgemm.cu', dependencies: cuda, install: true)
rpath = '$ORIGIN/../' + get_option('libdir')
executable('gemm', 'gemm.cpp', link_with: xgemm, install: true, install_rpath: rpath)
executable('drvquery', 'drvquery.cu', link_with: xgemm,
	dependencies: dependency('cuda', modules: ['cuda']), install: true, install_rpath: rpath)
MB
}

# real_shlib_check_lib LIB CUDART BLAS: the library NEEDs the sysroot's runtime (soname
# CUDART), cuBLAS (BLAS) and the driver.
real_shlib_check_lib() {
	run readelf -d "$1"
	assert_output_contains "Shared library: [$2]"
	assert_output_contains "Shared library: [$3]"
	assert_output_contains "Shared library: [libcuda.so.1]"
}

# real_shlib_run PROGRAM ERR: an installed program of the project, under cuda-xcc run: it
# names only the project's library and no directory of the build machine (the stub was
# for the link alone); it cannot start without a libcuda.so.1 and starts with
# --stub-libcuda, where the runtime and the driver answer ERR (34,
# CUDA_ERROR_STUB_LIBRARY: the stub's).
real_shlib_run() {
	local p=$1 err=$2
	run readelf -d "$p"
	assert_output_contains "Shared library: [libxgemm.so"
	[[ "$output" != *"stub"* ]] || { echo "$output" >&2; false; }
	[[ "$output" != *"$S"* ]] || { echo "$output" >&2; false; }
	run -127 env -u LD_LIBRARY_PATH "$CUDA_XCC" run --sysroot "$S" "$p"
	assert_output_contains "libcuda.so.1"
	# the way out, said before the loader's error (gemm: its library is what needs it)
	assert_output_contains "needs libcuda.so.1, the GPU driver's library, which only the board has: --stub-libcuda runs it"
	if [ "$(basename "$p")" = gemm ]; then
		assert_output_contains "note: libxgemm.so needs libcuda.so.1"
	fi
	run env -u LD_LIBRARY_PATH "$CUDA_XCC" run --sysroot "$S" --stub-libcuda "$p"
	[[ "$output" != *"cannot open shared object file"* ]] || { echo "$output" >&2; false; }
	case "$(basename "$p")" in
	gemm)
		assert_output_contains "xgemm_device_count: err=$err"
		assert_output_contains "xgemm_blas_status: status=1" ;;
	bench)
		assert_output_contains "xgemm_device_count: err=$err"
		assert_output_contains "fill<<<1, 32>>>: err=$err" ;;
	drvquery)
		assert_output_contains "cuInit: $err"
		assert_output_contains "xgemm_driver_version: $err" ;;
	esac
	assert_status 2
}

# real_shlib_cmake_build DIR GENERATOR SM CUDART BLAS: real_shlib_cmake configured with
# GENERATOR through the shipped toolchain file, built, installed into DIR/i and each
# program run.
real_shlib_cmake_build() {
	local d=$1 gen=$2 sm=$3 cudart=$4 blas=$5 p
	real_shlib_cmake "$d/p"
	run cmake -G "$gen" -S "$d/p" -B "$d/b" \
		-DCMAKE_TOOLCHAIN_FILE="$XCC_SRCDIR/wrappers/cmake/cuda-xcc-toolchain.cmake" \
		-DCUDA_XCC_SYSROOT="$S" -DCUDA_XCC_EXECUTABLE="$CUDA_XCC" -DCUDA_XCC_ARCH="$sm"
	assert_status 0
	run cmake --build "$d/b"
	[[ "$output" != *"not found (try using -rpath or -rpath-link)"* ]] || { echo "$output" >&2; false; }
	assert_status 0
	run cmake --install "$d/b" --prefix "$d/i"
	assert_status 0
	real_shlib_check_lib "$d/i/lib/libxgemm.so" "$cudart" "$blas"
	for p in gemm bench drvquery; do
		real_shlib_run "$d/i/bin/$p" 34
	done
}

# real_shlib_meson_build DIR SM CUDART BLAS: real_shlib_meson set up through the cross file
# 'cuda-xcc toolchain meson' writes, built, installed into DIR/i and each program run.
real_shlib_meson_build() {
	local d=$1 sm=$2 cudart=$3 blas=$4 p
	real_shlib_meson "$d/p"
	run "$CUDA_XCC" toolchain meson --sysroot "$S" -arch "$sm" --output "$d/cross.ini"
	assert_status 0
	CUDA_PATH=$S run meson setup --cross-file "$d/cross.ini" --prefix /usr "$d/b" "$d/p"
	assert_status 0
	run meson compile -C "$d/b"
	[[ "$output" != *"not found (try using -rpath or -rpath-link)"* ]] || { echo "$output" >&2; false; }
	assert_status 0
	run meson install -C "$d/b" --destdir "$d/i"
	assert_status 0
	real_shlib_check_lib "$(ls "$d"/i/usr/lib*/libxgemm.so)" "$cudart" "$blas"
	for p in gemm drvquery; do
		real_shlib_run "$d/i/usr/bin/$p" 34
	done
}

# real_shlib_make DIR SM CUDART BLAS: the project as a plain Makefile through the cuda-xcc
# driver (NVCC="cuda-xcc --sysroot S"): the library with the shared runtime, -lcublas and
# -lcuda, the programs with -L. -lxgemm alone; installed into DIR/i and each program run.
real_shlib_make() {
	local d=$1 sm=$2 cudart=$3 blas=$4 p
	real_shlib_sources "$d/p"
	cat > "$d/p/Makefile" <<'MK'
NVCC ?= nvcc
PREFIX ?= /usr/local
NVCCFLAGS ?= -O2
RPATH = -Xlinker -rpath='$$ORIGIN/../lib'
all: libxgemm.so gemm bench drvquery
libxgemm.so: xgemm.cu xgemm.h
	$(NVCC) $(NVCCFLAGS) -shared -Xcompiler -fPIC -cudart shared -o $@ xgemm.cu -lcublas -lcuda
gemm: gemm.cpp libxgemm.so
	$(NVCC) $(NVCCFLAGS) -o $@ gemm.cpp -L. -lxgemm $(RPATH)
bench: bench.cu libxgemm.so
	$(NVCC) $(NVCCFLAGS) -o $@ bench.cu -L. -lxgemm $(RPATH)
drvquery: drvquery.c libxgemm.so
	$(NVCC) $(NVCCFLAGS) -o $@ drvquery.c -L. -lxgemm -lcuda $(RPATH)
install: all
	install -D -m 755 libxgemm.so $(DESTDIR)$(PREFIX)/lib/libxgemm.so
	install -D -m 755 -t $(DESTDIR)$(PREFIX)/bin gemm bench drvquery
MK
	run make -C "$d/p" NVCC="$CUDA_XCC --sysroot $S -arch $sm"
	[[ "$output" != *"not found (try using -rpath or -rpath-link)"* ]] || { echo "$output" >&2; false; }
	assert_status 0
	run make -C "$d/p" install PREFIX="$d/i"
	assert_status 0
	real_shlib_check_lib "$d/i/lib/libxgemm.so" "$cudart" "$blas"
	for p in gemm bench drvquery; do
		real_shlib_run "$d/i/bin/$p" 34
	done
}

# real_findcuda_project DIR: in DIR, a project on CMake's old FindCUDA module as many Jetson
# projects still are: find_package(CUDA), the GPUs from CUDA_SELECT_NVCC_ARCH_FLAGS(Auto)
# appended to CUDA_NVCC_FLAGS, a cuda_add_library(SHARED) linking cuBLAS and a
# cuda_add_executable linking it.
real_findcuda_project() {
	local d=$1
	mkdir -p "$d"
	cat > "$d/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.10)
project(filters CXX)
find_package(CUDA REQUIRED)
cuda_select_nvcc_arch_flags(ARCH_FLAGS Auto)
list(APPEND CUDA_NVCC_FLAGS ${ARCH_FLAGS} -O3)
message(STATUS "ARCH_FLAGS=${ARCH_FLAGS}")
message(STATUS "CUDA_TOOLKIT_ROOT_DIR=${CUDA_TOOLKIT_ROOT_DIR} CUDA_VERSION=${CUDA_VERSION}")
cuda_add_library(filters SHARED filters.cu)
target_link_libraries(filters ${CUDA_CUBLAS_LIBRARIES})
cuda_add_executable(blur blur.cu)
target_link_libraries(blur filters)
install(TARGETS filters blur RUNTIME DESTINATION bin LIBRARY DESTINATION lib)
CM
	cat > "$d/filters.cu" <<'CU'
#include <cublas_v2.h>
__global__ void scale(float *x, float a) { x[threadIdx.x] *= a; }
extern "C" int filters_scale(float *x, float a)
{
	scale<<<1, 32>>>(x, a);
	return (int)cudaGetLastError();
}
extern "C" int filters_blas(void)
{
	cublasHandle_t h;
	return (int)cublasCreate(&h);
}
CU
	cat > "$d/blur.cu" <<'CU'
#include <cstdio>
extern "C" int filters_scale(float *x, float a);
extern "C" int filters_blas(void);
__global__ void blur(float *x) { x[threadIdx.x] = 0.5f; }
int main()
{
	blur<<<1, 32>>>(nullptr);
	std::printf("blur<<<1, 32>>>: err=%d\n", (int)cudaGetLastError());
	std::printf("filters_scale: err=%d\n", filters_scale(nullptr, 2.0f));
	std::printf("filters_blas: status=%d\n", filters_blas());
	return 2;
}
CU
}

# real_findcuda_build DIR SM: real_findcuda_project configured for SM (a GPU FindCUDA knows,
# below 9.0) through the shipped toolchain file: FindCUDA finds the sysroot and its
# detection answers SM, built, installed and run (FindCUDA links the static runtime: no
# driver, error 35).
real_findcuda_build() {
	local d=$1 sm=$2 cc
	cc=${sm#sm_}
	real_findcuda_project "$d/p"
	real_cmake_configure "$d/p" "$d/b" "$sm"
	assert_output_contains "CUDA_TOOLKIT_ROOT_DIR=$S CUDA_VERSION="
	# FindCUDA's own line has two spaces before the list.
	[[ "$output" =~ "Autodetected CUDA architecture(s): "\ *"${cc:0:1}.${cc:1}+PTX"$'\n' ]] ||
		{ echo "$output" >&2; false; }
	assert_output_contains "ARCH_FLAGS=-gencode;arch=compute_$cc,code=sm_$cc;-gencode;arch=compute_$cc,code=compute_$cc"
	[[ "$output" != *"Building for common architectures"* ]] || { echo "$output" >&2; false; }
	run cmake --build "$d/b"
	assert_status 0
	run cmake --install "$d/b" --prefix "$d/i"
	assert_status 0
	[ "$(sass_of "$d/i/bin/blur")" = "$sm " ]
	[ "$(sass_of "$d/i/lib/libfilters.so")" = "$sm " ]
	run readelf -d "$d/i/lib/libfilters.so"
	assert_output_contains "Shared library: [libcublas.so."
	run env -u LD_LIBRARY_PATH "$CUDA_XCC" run --sysroot "$S" "$d/b/blur"
	assert_output_contains "blur<<<1, 32>>>: err=35"
	assert_output_contains "filters_scale: err=35"
	assert_output_contains "filters_blas: status=1"
	assert_status 2
}

# real_findcuda_own_gpus DIR: a FindCUDA project that sets CUDA_NVCC_FLAGS to a GPU of its
# own (sm_53, a Jetson Nano) is refused at configure time on this SBSA sysroot, naming the
# variable, the GPUs and the way out.
real_findcuda_own_gpus() {
	local d=$1
	real_findcuda_project "$d/p"
	sed -i 's/^cuda_select_nvcc_arch_flags.*$/set(CUDA_NVCC_FLAGS "-gencode arch=compute_53,code=sm_53")/' \
		"$d/p/CMakeLists.txt"
	run cmake -S "$d/p" -B "$d/b" \
		-DCMAKE_TOOLCHAIN_FILE="$XCC_SRCDIR/wrappers/cmake/cuda-xcc-toolchain.cmake" \
		-DCUDA_XCC_SYSROOT="$S" -DCUDA_XCC_EXECUTABLE="$CUDA_XCC" -DCUDA_XCC_ARCH=sm_90
	assert_status 1
	assert_output_contains "CUDA_NVCC_FLAGS (FindCUDA) in ./CMakeLists.txt asks for"
	assert_output_contains "sm_53"
	assert_output_contains "-DCUDA_XCC_ARCH=..."
}

# real_hardcoded_make DIR CXX: in DIR/p a small project's Makefile that names g++ and nvcc
# itself (CXX = g++, NVCC = nvcc, and a rule that calls nvcc by name), built as
# doc/driver.md says: the variables given on make's command line, and a PATH directory of
# two shims for what the rules name themselves; each build runs under cuda-xcc run.
real_hardcoded_make() {
	local d=$1 cxx=$2
	mkdir -p "$d/p"
	cat > "$d/p/Makefile" <<'MK'
CXX = g++
NVCC = nvcc
CXXFLAGS = -O2
app: main.o kernels.o
	$(NVCC) -o $@ main.o kernels.o
main.o: main.cpp
	$(CXX) $(CXXFLAGS) -c -o $@ main.cpp
kernels.o: kernels.cu
	$(NVCC) -O2 -c -o $@ kernels.cu
tool: tool.cu
	nvcc -o $@ tool.cu
clean:
	rm -f app tool *.o
MK
	cat > "$d/p/main.cpp" <<'C'
#include <cstdio>
int launch();
int main() { int e = launch(); std::printf("launch: err=%d\n", e); return e ? 2 : 0; }
C
	cat > "$d/p/kernels.cu" <<'CU'
__global__ void k(int *x) { *x = 1; }
int launch() { k<<<1, 1>>>(nullptr); return (int)cudaGetLastError(); }
CU
	printf '#include <cstdio>\nint main() { int n = -1; std::printf("tool: err=%%d\\n", (int)cudaGetDeviceCount(&n)); return 2; }\n' > "$d/p/tool.cu"
	# the recipe is the one doc/driver.md gives
	grep -qF 'make CXX=aarch64-linux-gnu-g++-12 NVCC="cuda-xcc --sysroot ~/sr"' "$XCC_SRCDIR/doc/driver.md"
	grep -qF 'PATH=~/xcc-shims:$PATH make' "$XCC_SRCDIR/doc/driver.md"
	# the variables on make's command line win over the Makefile's own
	run make -C "$d/p" app CXX="$cxx" NVCC="$CUDA_XCC --sysroot $S"
	assert_status 0
	run readelf -h "$d/p/app"
	assert_output_contains "AArch64"
	run "$CUDA_XCC" run --sysroot "$S" "$d/p/app"
	assert_output_contains "launch: err=35"
	assert_status 2
	# a rule that names nvcc itself: a directory of shims first on PATH
	mkdir -p "$d/shims"
	printf '#!/bin/sh\nexec "%s" --sysroot "%s" "$@"\n' "$CUDA_XCC" "$S" > "$d/shims/nvcc"
	printf '#!/bin/sh\nexec "%s" "$@"\n' "$(command -v "$cxx")" > "$d/shims/g++"
	chmod +x "$d/shims/nvcc" "$d/shims/g++"
	make -C "$d/p" clean
	PATH=$d/shims:$PATH run make -C "$d/p" app tool
	assert_status 0
	run "$CUDA_XCC" run --sysroot "$S" "$d/p/app"
	assert_output_contains "launch: err=35"
	assert_status 2
	run "$CUDA_XCC" run --sysroot "$S" "$d/p/tool"
	assert_output_contains "tool: err=35"
	assert_status 2
}
