/* ompt_region.c — OpenMP regions of about 50 us, for run_ompt_cost.py: each
 * thread of a team of 2 spins 50 us of wall time, then waits at an explicit
 * barrier.  `regions N`: N such regions (fork, barrier, join each);
 * `barriers N`: one region, N such steps (a barrier each).  Prints
 * "seconds S per U" with S the wall time of the N units (omp_get_wtime). */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define STEP_US 50

static void spin_us(double us)
{
    double end = omp_get_wtime() + us * 1e-6;
    while (omp_get_wtime() < end)
        ;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int regions = argc > 1 && strcmp(argv[1], "barriers") != 0;
    long n = argc > 2 ? atol(argv[2]) : 20000;
    /* warm up: the team and the runtime's tables exist before the clock starts */
#pragma omp parallel num_threads(2)
    spin_us(STEP_US);
    double t0 = omp_get_wtime();
    if (regions) {
        for (long i = 0; i < n; i++) {
#pragma omp parallel num_threads(2)
            {
                spin_us(STEP_US);
#pragma omp barrier
            }
        }
    } else {
#pragma omp parallel num_threads(2)
        for (long i = 0; i < n; i++) {
            spin_us(STEP_US);
#pragma omp barrier
        }
    }
    double t = omp_get_wtime() - t0;
    printf("seconds %.9f per %s %ld\n", t, regions ? "region" : "barrier", n);
    MPI_Finalize();
    return 0;
}
