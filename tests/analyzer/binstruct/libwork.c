/* libwork.c — the application's own shared library for the --recover-libs
 * test (e2e_libs.py): a busy loop (lines 17-18) whose CPU seconds the caller
 * chooses.  Built with the system mpicc -O2 -g -fPIC -shared. */
#include <time.h>

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

double lib_relax(double seconds)
{
    volatile double acc = 0.0;
    double start = cpu_now();
    while (cpu_now() - start < seconds)
        for (int i = 0; i < 20000; i++) acc += i * 1e-9;
    return acc;
}
