// cuda_nodevice.cu — a CUDA program (cudart linked statically, nvcc's default)
// that sets, copies, launches a kernel and synchronises, reporting its own CUDA errors.
// On a machine without a GPU it must fail with its own error and exit code 3,
// with or without the ScalAna GPU collector.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void scale(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= 2.0f;
}

static int check(cudaError_t e, const char *what)
{
    if (e == cudaSuccess)
        return 0;
    std::printf("cuda_nodevice: %s: %s (%d)\n", what, cudaGetErrorString(e), (int)e);
    return 1;
}

int main()
{
    const int n = 1 << 16;
    float *d = nullptr, h[256] = {0};
    if (check(cudaMalloc(&d, n * sizeof(float)), "cudaMalloc"))
        return 3;
    if (check(cudaMemset(d, 0, n * sizeof(float)), "cudaMemset") ||
        check(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice), "copy in"))
        return 3;
    scale<<<(n + 255) / 256, 256>>>(d, n);
    if (check(cudaGetLastError(), "launch") || check(cudaDeviceSynchronize(), "sync") ||
        check(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost), "copy"))
        return 3;
    cudaFree(d);
    std::printf("cuda_nodevice: ran on a GPU\n");
    return 0;
}
