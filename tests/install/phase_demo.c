/* phase_demo.c — a small MPI program that uses the phase API from an
 * installed ScalAna (tests/install): NITER iterations of a phase
 * "install_solve" (some computation, then an MPI_Allreduce) and one phase
 * "install_setup".  Built with SCALANA_PHASE_WEAK it runs without the runtime
 * too (the calls are skipped when the runtime is not there). */
#include <mpi.h>
#include <stdio.h>
#include <scalana/phase.h>

#define NITER 20

#ifdef SCALANA_PHASE_WEAK
#define PHASE(call, name) do { if (call) call(name); } while (0)
#else
#define PHASE(call, name) call(name)
#endif

/* Computation whose result the compiler cannot drop (about 1e6 divisions). */
static double work(int rank, int it)
{
    double x = 0;
    for (long i = 1; i <= 1000000; i++)
        x += 1.0 / (double)(i + rank + it);
    return x;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PHASE(scalana_phase_begin, "install_setup");
    double sum = 0, x = work(rank, 0);
    PHASE(scalana_phase_end, "install_setup");
    for (int it = 0; it < NITER; it++) {
        PHASE(scalana_phase_begin, "install_solve");
        x = work(rank, it);
        MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        PHASE(scalana_phase_end, "install_solve");
    }
    if (rank == 0)
        printf("phase_demo: sum %.6f\n", sum);
    MPI_Finalize();
    return 0;
}
