/* omp_region.c — an OpenMP parallel loop in main for structure recovery
 * (check_omp_region.py): gcc outlines the region's body to main._omp_fn.0,
 * nested in main's DWARF, and calls GOMP_parallel at the pragma's line. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int prov;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &prov);
    double s = 0, t = 0;
    for (int it = 0; it < 4; it++) {
#pragma omp parallel for reduction(+ : s) schedule(static)
        for (int i = 0; i < 1000; i++)
            for (int j = 0; j < i; j++)
                s += sin(j * 1e-3);
        MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    printf("%g\n", t);
    MPI_Finalize();
    return 0;
}
