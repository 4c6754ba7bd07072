/* gpu_calls.c — input of the binstruct test (check_binstruct.py): GPU call
 * sites recovered like MPI ones, named as the pass names them.  The CUDA
 * runtime entry points are stand-ins defined here (no CUDA on the test
 * machine); what matters is the callee's name.  Built with gcc -O2 -g. */
#include <stddef.h>

__attribute__((noinline)) int cudaMemcpy(void *d, const void *s, size_t n, int kind)
{
    __asm__ volatile("" ::"r"(d), "r"(s), "r"(n), "r"(kind) : "memory");
    return 0;
}
__attribute__((noinline)) int cudaLaunchKernel(const void *f, int grid, int block, void **args, size_t sh, void *st)
{
    __asm__ volatile("" ::"r"(f), "r"(grid), "r"(block), "r"(args), "r"(sh), "r"(st) : "memory");
    return 0;
}
__attribute__((noinline)) int cudaDeviceSynchronize(void)
{
    __asm__ volatile("" ::: "memory");
    return 0;
}

int main(int argc, char **argv)
{
    static double host[64], dev[64];
    (void)argv;
    for (int step = 0; step < argc * 10; step++) {       /* the loop of launches: 27-30 */
        cudaMemcpy(dev, host, sizeof host, 1);
        cudaLaunchKernel((const void *)main, 1, 64, NULL, 0, NULL);
        cudaDeviceSynchronize();
    }
    return 0;
}
