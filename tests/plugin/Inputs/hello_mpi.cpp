#include <mpi.h>
#include <vector>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    std::vector<double> v(4, 1.0);
    MPI_Allreduce(MPI_IN_PLACE, v.data(), (int)v.size(), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
