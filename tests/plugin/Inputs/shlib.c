#include <mpi.h>

void lib_sync(int times)
{
    for (int i = 0; i < times; i++)
        MPI_Barrier(MPI_COMM_WORLD);
}
