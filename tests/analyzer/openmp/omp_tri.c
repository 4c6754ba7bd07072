/* omp_tri.c — for e2e_openmp.py: a triangular schedule(static) loop in a parallel region (pragma at line 15, loops
 * 16-18: thread 0 waits for thread 1 at its barrier), reduced over the processes; then tail_sweep's region (loop 34-35),
 * forked from two calls of equal work (lines 22, 23): the workers created at line 15 run both, each its own share. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
static double tail_sweep(int n);
int main(int argc, char **argv)
{
    int prov, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &prov);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double s = 0, t = 0;
    for (int it = 0; it < 20; it++) {
#pragma omp parallel for reduction(+ : s) schedule(static)
        for (int i = 0; i < 5000; i++)
            for (int j = 0; j < i; j++)
                s += 1.0 / (1.0 + j + i);
        MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    double u = 0;
    for (int it = 0; it < 40; it++) u += tail_sweep(2000000);
    for (int it = 0; it < 20; it++) u -= 0.5 * tail_sweep(4000000);
    if (!rank) printf("t=%g u=%g\n", t, u);
    MPI_Finalize();
    return 0;
}

/* the second region: in a function of its own, not inlined */
__attribute__((noinline)) static double tail_sweep(int n)
{
    double u = 0;
#pragma omp parallel for reduction(+ : u) schedule(static)
    for (int i = 0; i < n; i++)
        u += sqrt(1.0 + i);
    return u;
}
