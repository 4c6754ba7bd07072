/* spin.c — CPU-bound work between MPI_Init and MPI_Finalize, for the
 * sampling-rate test (test_rates.py): argv[1] seconds of process CPU time. */
#include <mpi.h>
#include <stdlib.h>
#include <time.h>

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

__attribute__((noinline)) static double work(double seconds)
{
    double t0 = cpu_now(), x = 0;
    while (cpu_now() - t0 < seconds)
        for (int i = 0; i < 20000; i++)
            x += i * 1e-9;
    return x;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double x = work(argc > 1 ? atof(argv[1]) : 0.6);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return x < 0;
}
