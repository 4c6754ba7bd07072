/* gpu_sim_imbalance.c — examples/gpu/gpu_imbalance.cu on a simulated GPU
 * (gpu_sim.h: CUDA-named calls, so scalana-cc's PSG has GPU vertices here too),
 * for machines without one: the same steps, the same planted imbalance (the
 * last rank launches --factor times the kernel work), recorded by the
 * collector's real code through the real runtime.
 *   mpirun -np 4 gpu_sim_imbalance [--steps 40] [--launches 4] [--block-us 500]
 *                                  [--factor 4] [--heavy-rank R] [--balanced] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_sim.h"

#define LAUNCH_LINE 29
#define COPY_LINE 32
#define ALLREDUCE_LINE 61

static float device_buf[64], host_buf[64];

/* The kernel's host-side handle (what nvcc's stub would pass). */
static void busy_kernel(void) {}

static void gpu_step(int launches)
{
    dim3 grid = {1, 1, 1}, block = {256, 1, 1};
    void *args[1] = {device_buf};
    for (int l = 0; l < launches; l++) {
        cudaLaunchKernel((const void *)busy_kernel, grid, block, args, 0, NULL); _Static_assert(__LINE__ == LAUNCH_LINE, "LAUNCH_LINE");
    }
    /* the result back: a blocking copy waits for the kernels */
    cudaMemcpy(host_buf, device_buf, sizeof host_buf, cudaMemcpyDeviceToHost); _Static_assert(__LINE__ == COPY_LINE, "COPY_LINE");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int steps = 40, launches = 4, block_us = 500, factor = 4, heavy = size - 1, balanced = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "0";
        if (!strcmp(a, "--steps")) steps = atoi(v), i++;
        else if (!strcmp(a, "--launches")) launches = atoi(v), i++;
        else if (!strcmp(a, "--block-us")) block_us = atoi(v), i++;
        else if (!strcmp(a, "--factor")) factor = atoi(v), i++;
        else if (!strcmp(a, "--heavy-rank")) heavy = atoi(v), i++;
        else if (!strcmp(a, "--balanced")) balanced = 1;
    }
    if (getenv("SCALANA_EXAMPLE_BALANCED") || size == 1 || heavy < 0 || heavy >= size)
        balanced = 1;
    int my_launches = (!balanced && rank == heavy) ? launches * factor : launches;
    gpu_sim_register_kernel((const void *)busy_kernel, "_Z11busy_kernelPfii",
                            (uint64_t)block_us * 1000u);

    double t0 = MPI_Wtime(), sum = 0;
    for (int s = 0; s < steps; s++) {
        gpu_step(my_launches);
        double local = host_buf[0];
        MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); _Static_assert(__LINE__ == ALLREDUCE_LINE, "ALLREDUCE_LINE");
    }
    cudaDeviceSynchronize();
    double t = MPI_Wtime() - t0, tmax = 0;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (balanced)
            printf("gpu_sim_imbalance: ground truth: balanced (%d ranks x %d launches per step)\n",
                   size, launches);
        else
            printf("gpu_sim_imbalance: ground truth: rank %d launches %dx the kernel work of the "
                   "others (busy_kernel at %s:%d); the others wait in MPI_Allreduce at %s:%d; "
                   "copies at line %d\n", heavy, factor, __FILE__, LAUNCH_LINE, __FILE__,
                   ALLREDUCE_LINE, COPY_LINE);
        printf("gpu_sim_imbalance: %.3f s, %d ranks\n", tmax, size);
    }
    MPI_Finalize();
    return 0;
}
