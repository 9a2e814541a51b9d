#include <cstdio>
#include <cuda_runtime_api.h>

extern "C" int launch_increment(void);

int main()
{
	int err = launch_increment();

	std::printf("launch_increment: err=%d (%s)\n", err,
		    cudaGetErrorName(static_cast<cudaError_t>(err)));
	/* 35: cudaErrorInsufficientDriver, what a machine without a GPU driver gives. */
	return err == 0 || err == 35 ? 0 : 1;
}
