/* A hybrid MPI + OpenMP program that includes <omp.h>: a triangular loop in a
 * parallel region, reduced over the processes.  Its output is exact. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long local = 0, total = 0;
#pragma omp parallel for reduction(+ : local) schedule(static)
    for (int i = 0; i < 3000; i++)
        for (int j = 0; j < i; j++)
            local += (j % 7 == rank % 7);
    MPI_Allreduce(&local, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d processes, %d threads, total %ld\n", size, omp_get_max_threads(), total);
    MPI_Finalize();
    return 0;
}
