# shellcheck shell=bash
# Sourced by bench/distcc.sh and bench/cache-runners.sh: the CMake project they build.
# bench_cuda_project DIR NCU [c]: in DIR, NCU .cu files of one kernel each and main.cpp,
# all linked into one program against the static cudart; with "c", a C file main.cpp
# calls too (C is then one of the project's languages).
bench_cuda_project() {
	local d=$1 ncu=$2 with_c=${3:-} i
	mkdir -p "$d"
	{
		echo 'cmake_minimum_required(VERSION 3.21)'
		echo "project(bench LANGUAGES ${with_c:+C }CXX CUDA)"
		echo 'find_package(CUDAToolkit REQUIRED)'
		printf 'add_executable(bench main.cpp%s' "${with_c:+ util.c}"
		for ((i = 0; i < ncu; i++)); do printf ' k%d.cu' "$i"; done
		echo ')'
		echo 'target_link_libraries(bench PRIVATE CUDA::cudart_static)'
	} > "$d/CMakeLists.txt"
	for ((i = 0; i < ncu; i++)); do
		cat > "$d/k$i.cu" <<KU
#include <cuda_runtime.h>
__global__ void k$i(float *x, float a, int n)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j < n)
		x[j] = x[j] * a + $i.0f;
}
cudaError_t run_k$i(float *x, int n) { k$i<<<(n + 255) / 256, 256>>>(x, 2.0f, n); return cudaGetLastError(); }
KU
	done
	if [ -n "$with_c" ]; then
		printf '#include <cstdio>\nextern "C" int util(void);\nint main() { std::printf("%%d\\n", util()); }\n' > "$d/main.cpp"
		printf 'int util(void) { return 42; }\n' > "$d/util.c"
	else
		printf '#include <cstdio>\nint main() { std::printf("42\\n"); }\n' > "$d/main.cpp"
	fi
}
