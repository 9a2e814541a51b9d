// Adds two vectors on the GPU. Under qemu without a GPU driver the CUDA
// runtime's first call fails; the program reports that error and exits 2.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

int main()
{
    int count = -1;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        std::printf("cudaGetDeviceCount: err=%d (%s: %s) count=%d\n", (int)err,
                    cudaGetErrorName(err), cudaGetErrorString(err), count);
        return 2;
    }
    const int n = 1 << 20;
    float *a, *b, *c;
    cudaMallocManaged(&a, n * sizeof(float));
    cudaMallocManaged(&b, n * sizeof(float));
    cudaMallocManaged(&c, n * sizeof(float));
    for (int i = 0; i < n; i++) {
        a[i] = 1.0f;
        b[i] = 2.0f;
    }
    vector_add<<<(n + 255) / 256, 256>>>(a, b, c, n);
    err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        std::printf("kernel: err=%d (%s)\n", (int)err, cudaGetErrorString(err));
        return 1;
    }
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad += c[i] != 3.0f;
    std::printf("vector_add: %d devices, %d wrong results\n", count, bad);
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    return bad != 0;
}
