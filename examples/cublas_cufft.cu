// cuBLAS (a 2x2 SGEMM), cuFFT (an 8-point complex FFT) and a kernel of our own. Each
// library's answer is printed; without a GPU driver (under qemu) each returns the error
// it really gives when it cannot reach a device, and the program exits 2.
#include <cstdio>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cufft.h>

__global__ void scale(float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= a;
}

// cuFFT has no function that names its results.
static const char *cufft_name(cufftResult r)
{
    switch (r) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    default: return "another cufftResult";
    }
}

int main()
{
    int count = -1;
    cudaError_t err = cudaGetDeviceCount(&count);
    std::printf("cudaGetDeviceCount: err=%d (%s) count=%d\n", (int)err, cudaGetErrorName(err),
                count);

    // C = A * B for 2x2 matrices; the device buffers exist only when there is a device.
    const float ha[4] = { 1, 2, 3, 4 }, hb[4] = { 1, 0, 0, 1 }, one = 1.0f, zero = 0.0f;
    float hc[4] = { 0, 0, 0, 0 }, *a = nullptr, *b = nullptr, *c = nullptr;
    if (err == cudaSuccess) {
        cudaMalloc(&a, sizeof ha);
        cudaMalloc(&b, sizeof hb);
        cudaMalloc(&c, sizeof hc);
        cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice);
        cudaMemcpy(b, hb, sizeof hb, cudaMemcpyHostToDevice);
    }
    cublasHandle_t blas = nullptr;
    cublasStatus_t bs = cublasCreate(&blas);
    std::printf("cublasCreate: status=%d (%s)\n", (int)bs, cublasGetStatusName(bs));
    bs = cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, a, 2, b, 2, &zero, c, 2);
    std::printf("cublasSgemm: status=%d (%s)\n", (int)bs, cublasGetStatusName(bs));

    cufftHandle plan = 0;
    cufftResult fr = cufftPlan1d(&plan, 8, CUFFT_C2C, 1);
    std::printf("cufftPlan1d: result=%d (%s)\n", (int)fr, cufft_name(fr));
    cufftComplex *signal = nullptr;
    if (fr == CUFFT_SUCCESS)
        cudaMalloc(&signal, 8 * sizeof *signal);
    fr = cufftExecC2C(plan, signal, signal, CUFFT_FORWARD);
    std::printf("cufftExecC2C: result=%d (%s)\n", (int)fr, cufft_name(fr));

    scale<<<1, 32>>>(c, 2.0f, 4);
    err = cudaGetLastError();
    std::printf("scale<<<1, 32>>>: err=%d (%s)\n", (int)err, cudaGetErrorName(err));

    int ok = err == cudaSuccess && bs == CUBLAS_STATUS_SUCCESS && fr == CUFFT_SUCCESS &&
             cudaMemcpy(hc, c, sizeof hc, cudaMemcpyDeviceToHost) == cudaSuccess;
    if (ok) {
        // A * I * 2 = 2A
        ok = hc[0] == 2 && hc[1] == 4 && hc[2] == 6 && hc[3] == 8;
        std::printf("result: %g %g %g %g (%s)\n", hc[0], hc[1], hc[2], hc[3], ok ? "right" : "WRONG");
    }
    if (blas)
        cublasDestroy(blas);
    if (plan)
        cufftDestroy(plan);
    cudaFree(signal);
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    return ok ? 0 : 2;
}
