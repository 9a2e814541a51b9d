#!/usr/bin/env bats
# The second real CUDA era: a sysroot made from Debian 13's CUDA 12.4.1 packages with
# cuBLAS (and the cuBLASLt it needs) and cuFFT, the real nvcc 12.4 cross-compiling with
# Debian 12's aarch64-linux-gnu-g++-12 (CUDA 12.4 accepts gcc up to 13) for sm_80 and sm_90,
# linked statically and shared, directly and through CMake, and run under qemu-aarch64.
# Without a GPU driver the runtime reports cudaErrorInsufficientDriver (35), cublasCreate
# CUBLAS_STATUS_NOT_INITIALIZED and cufftPlan1d CUFFT_INTERNAL_ERROR. With cuSPARSE,
# cuSOLVER and NVRTC in the cache (fetch-debian-cuda.sh --components libcusolver,cuda_nvrtc)
# their programs start under cuda-xcc run too, and NVRTC compiles real PTX under qemu.
#
# The packages come from scripts/fetch-debian-cuda.sh --release trixie (CI runs it first);
# the cache is $XCC_DEB_CACHE_TRIXIE, default /var/cache/cuda-xcc/debs-trixie. Without them
# these tests are skipped. XCC_E2E_SYSROOT_124=DIR reuses a sysroot made from them.
load lib/common
load lib/e2e
load lib/real-projects
bats_require_minimum_version 1.5.0

deb_cache() { echo "${XCC_DEB_CACHE_TRIXIE:-/var/cache/cuda-xcc/debs-trixie}"; }

# The packages of the sysroot: the toolkit, the headers and static libraries, the shared
# cudart, cuBLAS, cuBLASLt and cuFFT, and CCCL's headers (cuda_fp16.h includes <nv/target>);
# cuSPARSE and nvJitLink when the cache has them (an older cache lacks them: the tests of
# cuSPARSE are then skipped); cuSOLVER and NVRTC when it has them (fetch-debian-cuda.sh
# --components libcusolver,cuda_nvrtc; their tests are skipped otherwise).
debs() {
	local c
	c=$(deb_cache)
	ls "$c"/nvidia-cuda-toolkit_12.4.*_amd64.deb "$c"/nvidia-cuda-dev_12.4.*_arm64.deb \
		"$c"/libcudart12_12.4.*_arm64.deb "$c"/libcublas12_12.4.*_arm64.deb \
		"$c"/libcublaslt12_12.4.*_arm64.deb "$c"/libcufft11_*~12.4.*_arm64.deb \
		"$c"/libcu++-dev_*_all.deb "$c"/libcub-dev_*_all.deb "$c"/libthrust-dev_*_all.deb \
		"$c"/libcusparse12_*~12.4.*_arm64.deb "$c"/libnvjitlink12_12.4.*_arm64.deb \
		2>/dev/null
	if has_cusolver; then
		ls "$c"/libcusolver11_*~12.4.*_arm64.deb "$c"/libcusolvermg11_*~12.4.*_arm64.deb
	fi
	if has_nvrtc; then
		ls "$c"/libnvrtc12_12.4.*_arm64.deb "$c"/libnvrtc-builtins12.4_12.4.*_arm64.deb
	fi
}
has_cusolver() {
	[ -n "$(ls "$(deb_cache)"/libcusolver11_*~12.4.*_arm64.deb "$(deb_cache)"/libcusolvermg11_*~12.4.*_arm64.deb 2>/dev/null | sed -n 2p)" ]
}
has_nvrtc() {
	[ -n "$(ls "$(deb_cache)"/libnvrtc12_12.4.*_arm64.deb "$(deb_cache)"/libnvrtc-builtins12.4_12.4.*_arm64.deb 2>/dev/null | sed -n 2p)" ]
}

setup_file() {
	local components=libcublas,libcufft,libcusparse
	if has_cusolver; then components+=,libcusolver; fi
	if has_nvrtc; then components+=,cuda_nvrtc; fi
	# One sysroot for the whole file: making it means decompressing 1.5 GB of xz. cuSPARSE
	# is asked for, nvJitLink not: libcusparse.so.12 NEEDs it, so it must come along.
	e2e_make_sysroot "CUDA 12.4" "${XCC_E2E_SYSROOT_124:-}" 9 "scripts/fetch-debian-cuda.sh --release trixie" \
		--target sbsa --cuda 12.4 --components "$components"
}

# The sysroot in $S, or skip (no packages) or fail (they are there but create failed).
need_sysroot() {
	e2e_sysroot
	need aarch64-linux-gnu-g++-12 "CUDA 12.4's host compiler (g++-aarch64-linux-gnu)"
	need qemu-aarch64 "runs the aarch64 programs"
	need readelf "inspects the programs"
	export S L=$S/targets/sbsa-linux/lib
}

run_qemu() {
	run qemu-aarch64 -L /usr/aarch64-linux-gnu "$@"
}

# What the program says without a GPU driver, whichever way cuBLAS and cuFFT were linked:
# each library's own answer, and exit status 2.
assert_driverless() {
	assert_status 2
	assert_output_contains "cudaGetDeviceCount: err=35 (cudaErrorInsufficientDriver) count=-1"
	assert_output_contains "cublasCreate: status=1 (CUBLAS_STATUS_NOT_INITIALIZED)"
	# The handle never came to be: the SGEMM is refused the same way.
	assert_output_contains "cublasSgemm: status=1 (CUBLAS_STATUS_NOT_INITIALIZED)"
	assert_output_contains "cufftPlan1d: result=5 (CUFFT_INTERNAL_ERROR)"
	assert_output_contains "cufftExecC2C: result=1 (CUFFT_INVALID_PLAN)"
	assert_output_contains "scale<<<1, 32>>>: err=35 (cudaErrorInsufficientDriver)"
}

@test "e2e 12.4: sysroot create from Debian 13's packages: nvcc 12.4, cuBLAS, cuBLASLt and cuFFT" {
	need_sysroot
	run "$S/bin/nvcc" --version
	assert_status 0
	assert_output_contains "release 12.4, V12.4.131"
	[ -f "$S/bin/nvcc.profile" ]
	[ ! -L "$S/bin/nvcc.profile" ]
	run find "$S" -lname '/*'
	[ -z "$output" ] || { echo "absolute symlinks escape the sysroot: $output" >&2; false; }
	# Nothing dangles: neither development links into packages not given (libnvblas.so,
	# libcufftw.so) nor Debian's bin/compute-sanitizer, a link to a tool not taken.
	run find -L "$S" -type l
	[ -z "$output" ] || { echo "dangling links: $output" >&2; false; }
	# The libraries of cudart, cublas (with cublasLt) and cufft, shared and static.
	for f in libcudart.so.12 libcudart_static.a libcudadevrt.a libculibos.a stubs/libcuda.so \
		libcublas.so libcublas.so.12 libcublas_static.a libcublasLt.so.12 libcublasLt_static.a \
		libcufft.so libcufft.so.11 libcufft_static.a stubs/libcublas.so stubs/libcufft.so; do
		[ -e "$L/$f" ] || { echo "missing: $L/$f" >&2; false; }
	done
	# ...and nothing else of nvidia-cuda-dev's 2.4 GB: no other math library, no cuda-gdb,
	# no pkgconfig; CCCL's CMake package files are kept on purpose.
	run bash -c "find '$L' -mindepth 1 ! -type d -printf '%P\\n' |
		grep -v -E '^(stubs/)?lib(cudart|cudadevrt|culibos|cuda|cublas|cublasLt|cufft|cufftw|cusparse|nvJitLink|cusolver|cusolverMg|cusolver_[a-z]*|metis|nvrtc|nvrtc-builtins)[._]' |
		grep -v -E '^cmake/(cccl|cub|thrust|libcudacxx)/'"
	[ -z "$output" ] || { echo "libraries of components not asked for: $output" >&2; false; }
	[ ! -e "$L/cuda-gdb" ]
	[ ! -e "$L/pkgconfig" ]
	# Headers: CUDA's, and CCCL's from their own arch-independent packages; not Debian's
	# glibc math-vector.h for the build machine's own include path.
	[ -f "$S/targets/sbsa-linux/include/cublas_v2.h" ]
	[ -f "$S/targets/sbsa-linux/include/cufft.h" ]
	[ -f "$S/targets/sbsa-linux/include/nv/target" ]
	[ -f "$S/targets/sbsa-linux/include/thrust/version.h" ]
	[ ! -e "$S/targets/sbsa-linux/include/aarch64-linux-gnu" ]
	grep -q '"host_compiler":	"aarch64-linux-gnu-g++-12"' "$S/sysroot.json"
	run "$CUDA_XCC" sysroot verify "$S"
	assert_status 0
}

@test "e2e 12.4: Debian 13's host tools need no newer glibc than this Debian 12 machine has" {
	need_sysroot
	local have need f worst=0
	# nvidia-cuda-toolkit 12.4.1-2 Depends on libc6 (>= 2.34), trixie's shlibs for the
	# libpthread/libdl it names; the symbol versions the ELF files ask for are what counts.
	have=$(getconf GNU_LIBC_VERSION | awk '{ print $2 }')
	for f in "$S"/bin/* "$S"/nvvm/bin/*; do
		if [ ! -f "$f" ] || [ -L "$f" ]; then continue; fi
		head -c 4 "$f" | grep -q ELF || continue
		need=$(readelf -V --wide "$f" | grep -o 'Name: GLIBC_[0-9.]*' | sed 's/Name: GLIBC_//' |
			sort -u -V | tail -n1)
		[ -n "$need" ] || continue
		if [ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | tail -n1)" != "$have" ]; then
			echo "$f needs GLIBC_$need, this machine has $have" >&2
			worst=1
		fi
	done
	[ "$worst" = 0 ]
	# The check looked at real tools.
	readelf -V --wide "$S/bin/nvcc" | grep -q 'Name: GLIBC_'
}

@test "e2e 12.4: the driver picks aarch64-linux-gnu-g++-12 and -gencode for sm_80 and sm_90" {
	need_sysroot
	run xcc --sysroot "$S" -arch sm_80,sm_90 -### x.cu -o x
	assert_status 0
	assert_output_contains "$S/bin/nvcc -ccbin=$(command -v aarch64-linux-gnu-g++-12) -target-dir=sbsa-linux"
	assert_output_contains "-gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=sm_90"
}

@test "e2e 12.4: cuBLAS and cuFFT linked shared: runs without LD_LIBRARY_PATH, each library's own error" {
	need_sysroot
	d=$(scratch)
	cp "$XCC_SRCDIR/examples/cublas_cufft.cu" "$d/"
	cd "$d"
	run xcc --sysroot "$S" -arch sm_80,sm_90 -cudart shared cublas_cufft.cu -o blas_shared \
		-lcublas -lcufft
	assert_status 0
	run readelf -h blas_shared
	assert_output_contains "AArch64"
	run readelf -d blas_shared
	assert_output_contains "Shared library: [libcublas.so.12]"
	assert_output_contains "Shared library: [libcufft.so.11]"
	assert_output_contains "Shared library: [libcudart.so.12]"
	assert_output_contains "/targets/sbsa-linux/lib]"
	[ "$(sass_of blas_shared)" = "sm_80 sm_90 " ]
	# libcublas.so.12 NEEDs libcublasLt.so.12: found through libcublas's own run path.
	run_qemu ./blas_shared
	assert_driverless
}

@test "e2e 12.4: cuBLAS and cuFFT linked statically (cublas_static, cublasLt_static, culibos)" {
	need_sysroot
	d=$(scratch)
	cp "$XCC_SRCDIR/examples/cublas_cufft.cu" "$d/"
	cd "$d"
	run xcc --sysroot "$S" -arch sm_80,sm_90 cublas_cufft.cu -o blas_static \
		-lcublas_static -lcublasLt_static -lcufft_static -lculibos
	assert_status 0
	run readelf -d blas_static
	assert_status 0
	[[ "$output" != *libcublas* ]]
	[[ "$output" != *libcufft* ]]
	[[ "$output" != *libcudart* ]]
	[[ "$output" != *RUNPATH* ]]
	[ "$(sass_of blas_static | grep -c sm_80)" = 1 ]
	run_qemu ./blas_static
	assert_driverless
}

@test "e2e 12.4: a CMake project with CUDA::cublas and CUDA::cufft builds and runs" {
	need_sysroot
	need cmake "builds the example project"
	d=$(scratch)
	run cmake -S "$XCC_SRCDIR/examples/cmake-cublas" -B "$d/b" \
		-DCMAKE_TOOLCHAIN_FILE="$XCC_SRCDIR/wrappers/cmake/cuda-xcc-toolchain.cmake" \
		-DCUDA_XCC_SYSROOT="$S" -DCUDA_XCC_EXECUTABLE="$CUDA_XCC" -DCUDA_XCC_ARCH=sm_80,sm_90
	assert_status 0
	assert_output_contains "Found CUDAToolkit: $S/targets/sbsa-linux/include (found version \"12.4.131\")"
	grep -qx 'CMAKE_CUDA_ARCHITECTURES:STRING=80-real;90' "$d/b/CMakeCache.txt"
	run cmake --build "$d/b"
	assert_status 0
	run readelf -d "$d/b/cublas_cufft"
	assert_output_contains "Shared library: [libcublas.so.12]"
	assert_output_contains "Shared library: [libcufft.so.11]"
	[[ "$(sass_of "$d/b/cublas_cufft")" == "sm_80 sm_90 " ]]
	# CMake links the libraries of its implicit link directories without a run path.
	run_qemu -E LD_LIBRARY_PATH="$L" "$d/b/cublas_cufft"
	assert_driverless
}

# The serving verdict of a library for one GPU, from Debian's cuobjdump alone: SASS of the
# same major at or below the minor runs ('a' code only on its own GPU), else plain PTX at
# or below the GPU is JIT-compiled.
verdicts_from_cuobjdump() {
	local lib=$1
	shift
	{
		"$S/bin/cuobjdump" --list-elf "$lib" | grep -o 'sm_[0-9]*[af]\?\.cubin$' | sed 's/^/sass /'
		"$S/bin/cuobjdump" --list-ptx "$lib" | grep -o 'sm_[0-9]*[af]\?\.ptx$' | sed 's/^/ptx /'
	} | sed 's/\.\(cubin\|ptx\)$//; s/sm_//' | sort -u | python3 -c '
import sys
entries = [l.split() for l in sys.stdin]
out = []
for gpu in sys.argv[1:]:
    major, minor = (int(x) for x in gpu.split("."))
    def runs(code):
        v = code.rstrip("af"); var = code[len(v):]; sm = int(v)
        if var == "a":
            return sm == 10 * major + minor
        return sm // 10 == major and sm % 10 <= minor
    def jits(code):
        v = code.rstrip("af"); sm = int(v)
        return runs(code) if code != v else sm <= 10 * major + minor
    if any(k == "sass" and runs(c) for k, c in entries):
        out.append(gpu + "=OK")
    elif any(k == "ptx" and jits(c) for k, c in entries):
        out.append(gpu + "=PTX-JIT")
    else:
        out.append(gpu + "=NOT SERVED")
print(" ".join(out))' "$@"
}

# The same row of `sysroot info --json`.
verdicts_from_info() {
	"$CUDA_XCC" sysroot info "$S" --json | python3 -c '
import json, sys
info = json.load(sys.stdin)
row = [r for r in info["serving"] if r["library"] == sys.argv[1]]
print(" ".join(g + "=" + row[0]["serving"][g] for g in sys.argv[2:]) if row else "no row")' "$@"
}

@test "e2e 12.4: sysroot info's serving table agrees with Debian's cuobjdump 12.4" {
	need_sysroot
	need python3 "reads sysroot info --json"
	local gpus lib mine theirs compared=0
	run "$S/bin/cuobjdump" --version
	assert_output_contains "release 12.4"
	gpus=$(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["capabilities"]))' "$S/sysroot.json")
	[ -n "$gpus" ]
	# cuFFT is left out: its kernels lie outside .nv_fatbin, where cuobjdump never looks
	# (it lists nothing for libcufft.so), while the serving check finds them.
	for lib in libcublas.so.12.4.5.8 libcublasLt.so.12.4.5.8 libcudadevrt.a; do
		theirs=$(verdicts_from_cuobjdump "$L/$lib" $gpus)
		mine=$(verdicts_from_info "lib/$lib" $gpus)
		echo "$lib: cuobjdump: $theirs; sysroot info: $mine" >&2
		[ "$mine" = "$theirs" ]
		compared=$((compared + 1))
	done
	[ "$compared" -ge 3 ]
	# The text form says the same, per library and GPU.
	run "$CUDA_XCC" sysroot info "$S"
	assert_status 0
	assert_output_contains "lib/libcublasLt.so.12.4.5.8"
	assert_output_contains "lib/libcufft.so.11.2.1.3"
}

# The sysroot has cuSPARSE's shared library (Debian's libcusparse12 was given), or skip.
need_cusparse() {
	need_sysroot
	[ -n "$(ls "$(deb_cache)"/libcusparse12_*~12.4.*_arm64.deb "$(deb_cache)"/libnvjitlink12_12.4.*_arm64.deb 2>/dev/null | sed -n 2p)" ] ||
		skip "libcusparse12 and libnvjitlink12 are not in $(deb_cache) (run scripts/fetch-debian-cuda.sh --release trixie)"
}

@test "e2e 12.4: cuSPARSE chosen brings the nvJitLink it NEEDs; a shared -lcusparse program starts under cuda-xcc run" {
	need_cusparse
	# libcusparse.so.12 NEEDs libnvJitLink.so.12 (libcusparse12 Depends on libnvjitlink12).
	run readelf -d "$L/libcusparse.so.12"
	assert_output_contains "Shared library: [libnvJitLink.so.12]"
	[ -f "$L/libnvJitLink.so.12" ]
	[ -e "$L/libcusparse.so" ]
	d=$(scratch)
	cd "$d"
	cat > sparse.cu <<'CU'
#include <cstdio>
#include <cuda_runtime.h>
#include <cusparse.h>

int main()
{
	int n = -1, major = -1;
	cudaError_t e = cudaGetDeviceCount(&n);
	std::printf("cudaGetDeviceCount: err=%d\n", (int)e);
	cusparseStatus_t s = cusparseGetProperty(MAJOR_VERSION, &major);
	std::printf("cusparseGetProperty: status=%d major=%d\n", (int)s, major);
	cusparseHandle_t h;
	s = cusparseCreate(&h);
	std::printf("cusparseCreate: status=%d (%s)\n", (int)s, cusparseGetErrorName(s));
	return s == CUSPARSE_STATUS_SUCCESS ? 0 : 2;
}
CU
	run xcc --sysroot "$S" -arch sm_90 -cudart shared sparse.cu -o sparse -lcusparse
	assert_status 0
	[[ "$output" != *"not found"* ]] || { echo "ld warned: $output" >&2; false; }
	run readelf -d sparse
	assert_output_contains "Shared library: [libcusparse.so.12]"
	run env -u LD_LIBRARY_PATH "$CUDA_XCC" run --sysroot "$S" ./sparse
	[[ "$output" != *"cannot open shared object file"* ]] || { echo "$output" >&2; false; }
	assert_output_contains "cusparseGetProperty: status=0 major=12"
	assert_output_contains "cudaGetDeviceCount: err=35"
	assert_output_contains "cusparseCreate: status="
	assert_status 2
}

@test "e2e 12.4: verify and doctor fail on a sysroot whose libcusparse NEEDs a missing libnvJitLink, naming libnvjitlink" {
	need_cusparse
	local c=$BATS_TEST_TMPDIR/nojitlink
	# A copy of hard links (the sysroot itself stays whole), without nvJitLink, its listing
	# made to agree: as a sysroot made without the component would be.
	cp -al "$S" "$c" 2>/dev/null || cp -a "$S" "$c"
	rm "$c"/targets/sbsa-linux/lib/libnvJitLink.so*
	grep -v -E ' targets/sbsa-linux/lib/libnvJitLink\.so[^ /]*( |$)' "$c/sysroot.files" > "$c/sysroot.files.new"
	mv "$c/sysroot.files.new" "$c/sysroot.files"
	sysroot_resign "$c"
	run "$CUDA_XCC" sysroot verify "$c"
	assert_status 1
	# libcusparse.so.12, or libcusolver.so.11 where the sysroot has cuSOLVER too
	assert_output_contains "targets/sbsa-linux/lib/libcus"
	assert_output_contains "NEEDs libnvJitLink.so.12"
	assert_output_contains "component libnvjitlink brings it"
	assert_output_contains "--components libnvjitlink"
	run "$CUDA_XCC" doctor --sysroot "$c"
	assert_status 1
	l=$(echo "$output" | awk '$1 == "FAIL" && $2 == "sysroot"')
	[[ "$l" == *"NEEDs libnvJitLink.so.12"*"component libnvjitlink"* ]] || { echo "$output" >&2; false; }
	# The whole sysroot verifies, and doctor calls it ok.
	run "$CUDA_XCC" sysroot verify "$S"
	assert_status 0
	run "$CUDA_XCC" doctor --sysroot "$S"
	l=$(echo "$output" | awk '$1 == "ok" && $2 == "sysroot"')
	[ -n "$l" ] || { echo "$output" >&2; false; }
}

@test "e2e 12.4: NVIDIA's toolkit shape: include and lib64 at the top, CCCL's CMake package files in lib/cmake" {
	need_sysroot
	[ "$(readlink "$S/include")" = targets/sbsa-linux/include ]
	[ "$(readlink "$S/lib64")" = targets/sbsa-linux/lib ]
	[ -f "$S/include/cooperative_groups.h" ]
	[ -f "$S/lib64/stubs/libcuda.so" ]
	# one aarch64 target directory, as NVIDIA's SBSA toolkit has: TARGET_ARCH=sbsa
	[ "$(ls "$S/targets")" = sbsa-linux ]
	local p
	for p in cccl/cccl-config.cmake thrust/thrust-config.cmake cub/cub-config.cmake \
		libcudacxx/libcudacxx-config.cmake thrust/thrust-header-search.cmake; do
		[ -f "$L/cmake/$p" ] || { echo "no $L/cmake/$p" >&2; false; }
	done
	# their relative ../../../include lands on the headers
	[ -f "$L/cmake/cub/../../../include/cub/version.cuh" ]
	[ -f "$L/cmake/thrust/../../../include/thrust/version.h" ]
	[ -f "$L/cmake/libcudacxx/../../../include/cuda/std/detail/__config" ]
}

@test "e2e 12.4: a CMake project with find_package(CCCL CONFIG), Thrust and CUB builds and runs" {
	need_sysroot
	need cmake "builds the project"
	d=$(scratch)
	mkdir -p "$d/p"
	cat > "$d/p/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.21)
project(cccl_use LANGUAGES CXX CUDA)
find_package(CCCL CONFIG REQUIRED)
find_package(CUB CONFIG REQUIRED)
find_package(Thrust CONFIG REQUIRED)
thrust_create_target(Thrust)
message(STATUS "CCCL_DIR=${CCCL_DIR}")
add_executable(sum sum.cu)
target_link_libraries(sum PRIVATE CCCL::CCCL CUB::CUB Thrust)
CM
	cat > "$d/p/sum.cu" <<'CU'
#include <cstdio>
#include <cub/cub.cuh>
#include <thrust/device_vector.h>
#include <thrust/reduce.h>

int main()
{
	int *d = nullptr;
	size_t bytes = 0;
	cudaError_t e = cub::DeviceReduce::Sum(nullptr, bytes, d, d, 16);
	std::printf("cub::DeviceReduce::Sum: err=%d\n", (int)e);
	try {
		thrust::device_vector<int> v(16, 1);
		std::printf("sum=%d\n", thrust::reduce(v.begin(), v.end()));
		return 0;
	} catch (const std::exception &x) {
		std::printf("thrust: %s\n", x.what());
		return 2;
	}
}
CU
	real_cmake_configure "$d/p" "$d/b" sm_90
	assert_output_contains "CCCL_DIR=$L/cmake/cccl"
	run cmake --build "$d/b"
	assert_status 0
	run readelf -h "$d/b/sum"
	assert_output_contains "AArch64"
	run "$CUDA_XCC" run --sysroot "$S" "$d/b/sum"
	assert_output_contains "cub::DeviceReduce::Sum: err="
	assert_output_contains "thrust: "
	assert_status 2
}

@test "e2e 12.4: a Makefile in NVIDIA's sample style: CUDA_PATH, TARGET_ARCH=sbsa, SMS, \$(CUDA_PATH)/include" {
	need_sysroot
	need make
	real_sample_makefile aarch64-linux-gnu-g++-12
}

@test "e2e 12.4: a CMake project reading CUDA_HOME builds with the sysroot's CUDA, not another one in the environment" {
	need_sysroot
	need cmake "builds the project"
	real_cuda_home_project 12.4.131
}

# The sysroot has NVRTC (libnvrtc12 and libnvrtc-builtins12.4 were given), or skip.
need_nvrtc() {
	need_sysroot
	has_nvrtc || skip "libnvrtc12 and libnvrtc-builtins12.4 are not in $(deb_cache) (run scripts/fetch-debian-cuda.sh --release trixie --components cuda_nvrtc)"
}

@test "e2e 12.4: NVRTC in NVIDIA's sample style (-lnvrtc -lcuda): under cuda-xcc run it really compiles PTX on the CPU" {
	need_nvrtc
	need make
	[ -f "$S/include/nvrtc.h" ]
	[ -e "$L/libnvrtc.so" ]
	[ -f "$L/libnvrtc.so.12" ]
	[ -f "$L/libnvrtc-builtins.so.12.4" ]
	real_nvrtc_make aarch64-linux-gnu-g++-12 90
	run readelf -h axpy_nvrtc
	assert_output_contains "AArch64"
	real_nvrtc_run libnvrtc.so.12 12.4 90
}

# The sysroot has cuSOLVER (libcusolver11 was given), or skip.
need_cusolver() {
	need_cusparse
	has_cusolver || skip "libcusolver11 and libcusolvermg11 are not in $(deb_cache) (run scripts/fetch-debian-cuda.sh --release trixie --components libcusolver)"
}

@test "e2e 12.4: a CMake project with CCCL, Thrust, CUB and shared CUDA::cusolver and CUDA::cusparse starts under cuda-xcc run" {
	need_cusolver
	need cmake "builds the project"
	# libcusolver.so.11 NEEDs cuBLAS, cuBLASLt, cuSPARSE and nvJitLink: all came along.
	run readelf -d "$L/libcusolver.so.11"
	assert_output_contains "Shared library: [libcublas.so.12]"
	assert_output_contains "Shared library: [libnvJitLink.so.12]"
	d=$(scratch)
	real_solver_project "$d" CCCL
	real_cmake_configure "$d/p" "$d/b" sm_90
	real_solver_run "$d" 12
}

@test "e2e 12.4: a CUDA shared library (CUDA::cudart, CUDA::cublas, CUDA::cuda_driver PRIVATE) and programs linking only it: CMake with Ninja, installed, run" {
	need_sysroot
	need cmake "builds the project"
	need ninja "CMake's Ninja generator"
	real_shlib_cmake_build "$(scratch)" Ninja sm_90 libcudart.so.12 libcublas.so.12
}

@test "e2e 12.4: a CUDA shared library and programs linking only it: CMake with Unix Makefiles, installed, run" {
	need_sysroot
	need cmake "builds the project"
	need make
	real_shlib_cmake_build "$(scratch)" "Unix Makefiles" sm_90 libcudart.so.12 libcublas.so.12
}

@test "e2e 12.4: a CUDA shared library and programs linking only it: Meson through its cross file, installed, run" {
	need_sysroot
	need meson "builds the project"
	need ninja "Meson's backend"
	real_shlib_meson_build "$(scratch)" sm_90 libcudart.so.12 libcublas.so.12
}

@test "e2e 12.4: a CUDA shared library and programs linking only it: a Makefile through the driver, installed, run" {
	need_sysroot
	need make
	real_shlib_make "$(scratch)" sm_90 libcudart.so.12 libcublas.so.12
}

@test "e2e 12.4: a FindCUDA project (find_package(CUDA), CUDA_SELECT_NVCC_ARCH_FLAGS(Auto), cuda_add_library, cuda_add_executable) builds for the toolchain's GPU and runs" {
	need_sysroot
	need cmake "builds the project"
	real_findcuda_build "$(scratch)" sm_80
}

@test "e2e 12.4: a FindCUDA project's own GPUs in CUDA_NVCC_FLAGS are checked at configure time" {
	need_sysroot
	need cmake "configures the project"
	real_findcuda_own_gpus "$(scratch)"
}

@test "e2e 12.4: a Makefile that names g++ and nvcc itself builds through make's variables and a PATH of shims, as doc/driver.md says" {
	need_sysroot
	need make
	real_hardcoded_make "$(scratch)" aarch64-linux-gnu-g++-12
}
