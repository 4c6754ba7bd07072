/* spin.c — CPU-bound work between MPI_Init and MPI_Finalize, for the
 * sampling-rate test (test_rates.py): argv[1] seconds of process CPU time.
 * With argv[2] "periodic": iterations of 24 ms of CPU in long_phase() then
 * 1 ms in short_phase() (25 ms: five 5 ms sampling periods exactly, the
 * program a fixed sampling period of CPU time aliases with), for argv[1]
 * seconds; short_phase() has 4 % of the time. */
#include <mpi.h>
#include <stdlib.h>
#include <time.h>

static double cpu_now(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* seconds of the clock's CPU time, read after every `inner` additions */
static double spin_for(clockid_t clock, double seconds, int inner)
{
    double t0 = cpu_now(clock), x = 0;
    while (cpu_now(clock) - t0 < seconds)
        for (int i = 0; i < inner; i++)
            x += i * 1e-9;
    return x;
}

__attribute__((noinline)) static double work(double seconds)
{
    return spin_for(CLOCK_PROCESS_CPUTIME_ID, seconds, 20000);
}

/* the thread's CPU time in fine steps: the iterations then stay in phase
 * with the task clock, which counts the same time */
__attribute__((noinline)) static double phase(double seconds)
{
    return spin_for(CLOCK_THREAD_CPUTIME_ID, seconds, 1000);
}
__attribute__((noinline)) static double long_phase(void) { return phase(0.024); }
__attribute__((noinline)) static double short_phase(void) { return phase(0.001); }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double seconds = argc > 1 ? atof(argv[1]) : 0.6, x = 0;
    if (argc > 2 && argv[2][0] == 'p')
        for (int i = 0; i < (int)(seconds / 0.025 + 0.5); i++)
            x += long_phase() + short_phase();
    else
        x = work(seconds);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return x < 0;
}
