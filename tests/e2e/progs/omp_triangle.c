/* omp_triangle.c — MPI + OpenMP: every process runs the same triangular
 * nest in a parallel region; with `static` the outer loop's rows are split
 * in contiguous blocks, so with 2 threads the second thread gets the long
 * rows (3/4 of the inner iterations) while the first waits at the region's
 * barrier: load imbalance among the threads.  With `dynamic` (the fix) the
 * rows are dealt out in small chunks and the threads balance.
 *   omp_triangle static|dynamic [ROWS=16000] [STEPS=10] */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double relax_static(const double *a, int rows)
{
    double s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
    for (int i = 0; i < rows; i++)          /* TRIANGLE_STATIC */
        for (int j = 0; j <= i; j++)
            s += a[j] * 0.5 + (double)i;
    return s;
}

static double relax_dynamic(const double *a, int rows)
{
    double s = 0;
#pragma omp parallel for schedule(dynamic, 16) reduction(+ : s)
    for (int i = 0; i < rows; i++)          /* TRIANGLE_DYNAMIC */
        for (int j = 0; j <= i; j++)
            s += a[j] * 0.5 + (double)i;
    return s;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int dyn = argc > 1 && strcmp(argv[1], "dynamic") == 0;
    int rows = argc > 2 ? atoi(argv[2]) : 16000, steps = argc > 3 ? atoi(argv[3]) : 10;
    double *a = malloc((size_t)rows * sizeof *a);
    for (int i = 0; i < rows; i++)
        a[i] = (i % 5) * 0.25;
    double s = 0;
    for (int t = 0; t < steps; t++) {
        s += dyn ? relax_dynamic(a, rows) : relax_static(a, rows);
        MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("%s threads %d sum %g\n", dyn ? "dynamic" : "static", omp_get_max_threads(), s);
    free(a);
    MPI_Finalize();
    return 0;
}
