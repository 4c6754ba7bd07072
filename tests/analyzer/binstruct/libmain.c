/* libmain.c — the program of the --recover-libs test (e2e_libs.py): every
 * rank calls lib_relax() of libwork.so (the last rank three times as long),
 * then waits in MPI_Allreduce.  Built with the system mpicc -O2 -g. */
#include <mpi.h>
#include <stdio.h>

double lib_relax(double seconds);

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double mine = (rank == size - 1 && size > 1 ? 3.0 : 1.0) * 0.04, sum = 0.0, all = 0.0;
    for (int it = 0; it < 10; it++) {
        sum += lib_relax(mine);
        MPI_Allreduce(&sum, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0) printf("%g\n", all);
    MPI_Finalize();
    return 0;
}
