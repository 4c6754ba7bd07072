/* small_loops.c — the counters' worst case for bench/workcount: an inner
 * loop of 3 iterations inside a loop of many, so that the flush on each
 * exit of the inner loop (when the compiler cannot move it out) is paid once
 * per 3 iterations of little work.  Prints "wall S cpu S" like overhead.c:
 *   small_loops ITERATIONS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

__attribute__((noinline)) static double stencil(const double *a, double *b, const int *len, int n)
{
    double r = 0;
    for (int i = 0; i < n; i++) {
        double s = 0;
        for (int k = 0; k < len[i]; k++) /* 3 iterations: a short, data-dependent trip count */
            s += a[i + k];
        b[i] = s;
        r += s;
    }
    return r;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int iters = argc > 1 ? atoi(argv[1]) : 200;
    int n = 100000;
    double *a = calloc((size_t)n + 4, sizeof *a), *b = calloc((size_t)n + 4, sizeof *b);
    int *len = calloc((size_t)n, sizeof *len);
    for (int i = 0; i < n + 4; i++)
        a[i] = (double)(i % 7);
    for (int i = 0; i < n; i++)
        len[i] = 3;
    double r = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    struct rusage u0, u1;
    getrusage(RUSAGE_SELF, &u0);
    for (int it = 0; it < iters; it++) {
        r += stencil(a, b, len, n);
        MPI_Allreduce(MPI_IN_PLACE, &r, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    getrusage(RUSAGE_SELF, &u1);
    double wall = MPI_Wtime() - t0, cpu = (u1.ru_utime.tv_sec - u0.ru_utime.tv_sec) +
                                        1e-6 * (u1.ru_utime.tv_usec - u0.ru_utime.tv_usec);
    double wmax, csum;
    MPI_Reduce(&wall, &wmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&cpu, &csum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("wall %.6f cpu %.6f r %g\n", wmax, csum, r);
    free(a), free(b), free(len);
    MPI_Finalize();
    return 0;
}
