// phase_demo.cpp — C++ through the installed scalana-cxx (tests/install): the
// header's declarations have C linkage; scalana-cxx finds <scalana/phase.h>.
#include <mpi.h>
#include <scalana/phase.h>
#include <cstdio>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    scalana_phase_begin("install_cxx");
    int rank = 0, sum = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    scalana_phase_end("install_cxx");
    if (rank == 0)
        std::printf("phase_demo: sum %d\n", sum);
    MPI_Finalize();
    return 0;
}
