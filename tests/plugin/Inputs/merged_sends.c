/* merged_sends.c — four MPI_Send calls that differ only in their arguments,
 * two in each arm of an if: clang -O2 merges the last two into one call
 * whose location is line 0, unless the pass marks MPI calls nomerge
 * (tests/plugin/merged_calls.test). */
#include <mpi.h>

void exchange(double *a, int n, int iex, int north, int south)
{
    if (iex == 0) {
        if (north != -1)
            MPI_Send(a, n, MPI_DOUBLE, north, 1, MPI_COMM_WORLD);
        if (south != -1)
            MPI_Send(a + n, n, MPI_DOUBLE, south, 2, MPI_COMM_WORLD);
    } else {
        if (north != -1)
            MPI_Send(a + 2 * n, n, MPI_DOUBLE, north, 3, MPI_COMM_WORLD);
        if (south != -1)
            MPI_Send(a + 3 * n, n, MPI_DOUBLE, south, 4, MPI_COMM_WORLD);
    }
}
