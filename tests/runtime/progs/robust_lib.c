/* robust_lib.c — a shared library robust.c links: the line of its MPI call
 * site must be found in the library's own debug information. */
#include <mpi.h>

int robust_lib_allreduce(int v)
{
    int sum = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* ROBUST_LIB_CALL */
    return sum;
}
