#include <cuda_runtime.h>

__global__ void increment(int *values)
{
	values[threadIdx.x] += 1;
}

extern "C" int launch_increment(void)
{
	int *d = nullptr;
	cudaError_t e = cudaMalloc(&d, 32 * sizeof(int));

	if (e != cudaSuccess)
		return (int)e;
	increment<<<1, 32>>>(d);
	e = cudaDeviceSynchronize();
	cudaFree(d);
	return (int)e;
}
