/* overhead.c — a compute-and-communicate program for measuring the runtime's
 * overhead: a 1-D Jacobi sweep on each rank, halo exchange with both
 * neighbours (Sendrecv), and an Allreduce of the residual per iteration.
 * Prints the loop's wall time (slowest rank) and CPU time summed over ranks,
 * in seconds (MPI_Init and MPI_Finalize excluded):
 *   overhead ITERATIONS [POINTS=200000] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

__attribute__((noinline)) static double sweep(double *a, double *b, int n)
{
    double r = 0;
    for (int i = 1; i <= n; i++) {
        b[i] = 0.5 * a[i] + 0.25 * (a[i - 1] + a[i + 1]);
        r += (b[i] - a[i]) * (b[i] - a[i]);
    }
    return r;
}

__attribute__((noinline)) static void halo(double *a, int n, int left, int right)
{
    MPI_Sendrecv(&a[1], 1, MPI_DOUBLE, left, 0, &a[n + 1], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&a[n], 1, MPI_DOUBLE, right, 1, &a[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iters = argc > 1 ? atoi(argv[1]) : 200;
    int n = argc > 2 ? atoi(argv[2]) : 200000;
    double *a = calloc((size_t)n + 2, sizeof *a), *b = calloc((size_t)n + 2, sizeof *b);
    for (int i = 0; i <= n + 1; i++)
        a[i] = (double)((i * 7 + rank) % 13);
    int left = rank == 0 ? MPI_PROC_NULL : rank - 1, right = rank == size - 1 ? MPI_PROC_NULL : rank + 1;
    struct rusage ru0, ru;
    MPI_Barrier(MPI_COMM_WORLD);
    getrusage(RUSAGE_SELF, &ru0);
    double t0 = MPI_Wtime(), res = 0;
    for (int it = 0; it < iters; it++) {
        halo(a, n, left, right);
        double r = sweep(a, b, n), g;
        double *t = a;
        a = b;
        b = t;
        MPI_Allreduce(&r, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        res = g;
    }
    double wall = MPI_Wtime() - t0, maxwall;
    getrusage(RUSAGE_SELF, &ru);
    /* CPU time of the measured loop only (not MPI_Init/Finalize). */
    double cpu = (ru.ru_utime.tv_sec - ru0.ru_utime.tv_sec) + 1e-6 * (ru.ru_utime.tv_usec - ru0.ru_utime.tv_usec) +
                 (ru.ru_stime.tv_sec - ru0.ru_stime.tv_sec) + 1e-6 * (ru.ru_stime.tv_usec - ru0.ru_stime.tv_usec);
    double cpusum;
    MPI_Reduce(&wall, &maxwall, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&cpu, &cpusum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("wall %.6f cpu %.6f residual %.6e\n", maxwall, cpusum, res);
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}
