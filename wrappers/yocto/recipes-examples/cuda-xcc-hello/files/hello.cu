#include <cstdio>
#include <cuda_runtime.h>

__global__ void hello(int *out)
{
	*out = 42;
}

int main()
{
	int *d = nullptr, h = 0;
	cudaError_t e = cudaMalloc(&d, sizeof h);

	if (e == cudaSuccess) {
		hello<<<1, 1>>>(d);
		e = cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
	}
	std::printf("cuda-xcc-hello: %d err=%d (%s)\n", h, (int)e, cudaGetErrorName(e));
	return e == cudaSuccess ? 0 : 1;
}
