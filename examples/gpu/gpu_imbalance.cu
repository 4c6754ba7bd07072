// gpu_imbalance.cu — MPI+CUDA example with a planted GPU imbalance: one rank
// (the last, or --heavy-rank R) launches --factor times the kernel work of the
// others each step; everyone then copies a result back and meets in
// MPI_Allreduce, where the other ranks wait.  Prints the ground truth.
//   build: see tests/gpu/CMakeLists.txt (nvcc, MPI)
//   run:   mpirun -np 4 gpu_imbalance [--steps N] [--launches L] [--work W]
//                                     [--factor F] [--heavy-rank R] [--balanced]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <mpi.h>

// Source lines of the planted sites, checked by the compiler where they occur.
#define LAUNCH_LINE 45
#define COPY_LINE 49
#define ALLREDUCE_LINE 102

// Each thread runs a dependent multiply-add chain `work` times: time ~ work.
__global__ void busy_kernel(float *x, int n, int work)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i];
    for (int k = 0; k < work; k++)
        v = v * 0.999f + 0.001f;
    x[i] = v;
}

static int cuda_ok(cudaError_t e, const char *what, int rank)
{
    if (e == cudaSuccess)
        return 1;
    std::fprintf(stderr, "gpu_imbalance: rank %d: %s: %s (%d)\n", rank, what,
                 cudaGetErrorString(e), (int)e);
    return 0;
}

// One step on this rank: `launches` kernels, one blocking copy back.
static int gpu_step(float *d, float *h, int n, int launches, int work, int rank)
{
    const int threads = 256, blocks = (n + threads - 1) / threads;
    for (int l = 0; l < launches; l++) {
        busy_kernel<<<blocks, threads>>>(d, n, work); static_assert(__LINE__ == LAUNCH_LINE, "LAUNCH_LINE");
    }
    if (!cuda_ok(cudaGetLastError(), "kernel launch", rank))
        return 0;
    cudaError_t e = cudaMemcpy(h, d, 64 * sizeof(float), cudaMemcpyDeviceToHost); static_assert(__LINE__ == COPY_LINE, "COPY_LINE");
    return cuda_ok(e, "cudaMemcpy", rank);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int steps = 40, launches = 4, work = 20000, factor = 4, heavy = size - 1, balanced = 0;
    const int n = 1 << 16;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "0";
        if (!std::strcmp(a, "--steps")) steps = std::atoi(v), i++;
        else if (!std::strcmp(a, "--launches")) launches = std::atoi(v), i++;
        else if (!std::strcmp(a, "--work")) work = std::atoi(v), i++;
        else if (!std::strcmp(a, "--factor")) factor = std::atoi(v), i++;
        else if (!std::strcmp(a, "--heavy-rank")) heavy = std::atoi(v), i++;
        else if (!std::strcmp(a, "--balanced")) balanced = 1;
        else {
            if (rank == 0)
                std::fprintf(stderr, "usage: gpu_imbalance [--steps N] [--launches L] [--work W] "
                                     "[--factor F] [--heavy-rank R] [--balanced]\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (std::getenv("SCALANA_EXAMPLE_BALANCED"))
        balanced = 1;
    if (size == 1 || heavy < 0 || heavy >= size)
        balanced = 1; // one process cannot be imbalanced against itself
    int my_launches = (!balanced && rank == heavy) ? launches * factor : launches;

    // One GPU per rank on a node when there are enough, else ranks share.
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    int local = 0, ndev = 0, ok = 1;
    MPI_Comm_rank(node, &local);
    MPI_Comm_free(&node);
    float *d = nullptr, *h = nullptr;
    ok = cuda_ok(cudaGetDeviceCount(&ndev), "cudaGetDeviceCount", rank) && ndev > 0 &&
         cuda_ok(cudaSetDevice(local % ndev), "cudaSetDevice", rank) &&
         cuda_ok(cudaMalloc(&d, n * sizeof(float)), "cudaMalloc", rank) &&
         cuda_ok(cudaMallocHost(&h, n * sizeof(float)), "cudaMallocHost", rank) &&
         cuda_ok(cudaMemset(d, 0, n * sizeof(float)), "cudaMemset", rank);

    double t0 = MPI_Wtime(), sum = 0;
    for (int s = 0; s < steps; s++) {
        int step_ok = ok && gpu_step(d, h, n, my_launches, work, rank);
        double local_sum = step_ok ? h[0] : 0.0;
        int all_ok = 0;
        MPI_Allreduce(&local_sum, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); static_assert(__LINE__ == ALLREDUCE_LINE, "ALLREDUCE_LINE");
        MPI_Allreduce(&step_ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        if (!all_ok) {
            ok = 0;
            break;
        }
    }
    if (ok && !cuda_ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize", rank)) ok = 0;
    double t = MPI_Wtime() - t0;

    double tmax = 0;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (balanced)
            std::printf("gpu_imbalance: ground truth: balanced (%d ranks x %d launches of busy_kernel "
                        "per step, %d steps)\n", size, launches, steps);
        else
            std::printf("gpu_imbalance: ground truth: rank %d launches %dx the kernel work of the others "
                        "(busy_kernel at %s:%d, %d vs %d launches per step, %d steps); the others wait "
                        "in MPI_Allreduce at %s:%d; copies at line %d\n",
                        heavy, factor, __FILE__, LAUNCH_LINE, launches * factor,
                        launches, steps, __FILE__, ALLREDUCE_LINE, COPY_LINE);
        std::printf("gpu_imbalance: %s, %.3f s, checksum %g, %d ranks\n", ok ? "done" : "CUDA failed",
                    tmax, sum, size);
    }
    if (h) cudaFreeHost(h);
    if (d) cudaFree(d);
    MPI_Finalize();
    return ok ? 0 : 3;
}
