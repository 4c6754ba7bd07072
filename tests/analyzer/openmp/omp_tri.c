/* omp_tri.c — a hybrid MPI + OpenMP program for e2e_openmp.py: a triangular
 * loop in a parallel region (the pragma on line 15), reduced over the
 * processes each iteration.  Almost all its time is the loop at 16-18. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>

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
    if (!rank) printf("t=%g\n", t);
    MPI_Finalize();
    return 0;
}
