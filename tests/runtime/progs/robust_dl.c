/* robust_dl.c — a library robust.c opens with dlopen and closes before
 * MPI_Finalize: its samples and its MPI call site must keep their module. */
#include <mpi.h>

static double dl_compute(long n)
{
    volatile double x = 0;
    for (long i = 0; i < n; i++)
        x += i * 0.25;
    return x;
}

int robust_dl_work(int v)
{
    int sum = 0;
    if (dl_compute(20000000) < 0)
        v = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return sum;
}
