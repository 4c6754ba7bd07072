#include <mpi.h>

static int count;

static void local_helper(void) { count++; }

void exchange(double *x, int n)
{
    local_helper();
    MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}
