/* ompt_region.c — OpenMP regions of about 50 us, for run_ompt_cost.py: each
 * thread of a team of 2 does WORK loop steps (about 50 us of CPU, calibrated
 * by the script), then waits at an explicit barrier.
 *   calibrate        prints the steps that take 50 us of this thread's CPU
 *   regions N WORK   N such regions (fork, work, barrier, join each)
 *   barriers N WORK  one region, N such steps (a barrier each)
 *   single N WORK    N regions of a team of 1 (no thread waits on another: the
 *                    master's callbacks alone, the steadiest figure on a busy machine)
 * Prints "wall W cpu C" for the N units: wall seconds (omp_get_wtime) and
 * the process's CPU seconds, which other jobs on the machine do not inflate. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile double sink;

static void work(long steps)
{
    double x = 1.0;
    for (long i = 0; i < steps; i++)
        x = x * 1.0000001 + 1e-9;
    sink = x;
}

static double cpu_s(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "regions";
    if (!strcmp(mode, "calibrate")) {
        long steps = 1000000;
        double best = 1e9;
        for (int k = 0; k < 5; k++) { /* the fastest of 5: least disturbed */
            double c0 = cpu_s(CLOCK_THREAD_CPUTIME_ID);
            work(steps);
            double c = cpu_s(CLOCK_THREAD_CPUTIME_ID) - c0;
            if (c < best) best = c;
        }
        printf("steps %ld\n", (long)(steps * 50e-6 / best));
        MPI_Finalize();
        return 0;
    }
    long n = argc > 2 ? atol(argv[2]) : 20000, steps = argc > 3 ? atol(argv[3]) : 20000;
    int regions = strcmp(mode, "barriers") != 0, team = strcmp(mode, "single") ? 2 : 1;
    /* warm up: the team and the runtime's tables exist before the clocks start */
#pragma omp parallel num_threads(2)
    work(steps);
    double t0 = omp_get_wtime(), c0 = cpu_s(CLOCK_PROCESS_CPUTIME_ID);
    if (regions) {
        for (long i = 0; i < n; i++) {
#pragma omp parallel num_threads(team)
            {
                work(steps);
#pragma omp barrier
            }
        }
    } else {
#pragma omp parallel num_threads(2)
        for (long i = 0; i < n; i++) {
            work(steps);
#pragma omp barrier
        }
    }
    printf("wall %.9f cpu %.9f\n", omp_get_wtime() - t0, cpu_s(CLOCK_PROCESS_CPUTIME_ID) - c0);
    MPI_Finalize();
    return 0;
}
