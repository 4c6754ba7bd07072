/* intervals.c — test program: known computation between two MPI calls.
 * Each of ITER iterations: MPI_Barrier (the line marked LINE_A), T(rank) =
 * 0.1 * (rank + 1) s of CPU time, MPI_Allreduce (LINE_B), then 2 ms of CPU
 * time before the next Barrier.  Afterwards one application thread computes
 * 40 ms, calls MPI_Allreduce once (LINE_C) and computes 30 ms before it
 * exits: its first and last intervals are open on one side.  mpitest.py
 * (check "intervals") finds the lines by their markers. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#define ITER 3

static double spin(double seconds)
{
    struct timespec t0, t;
    volatile double s = 0;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    do {
        for (int i = 0; i < 20000; i++)
            s += i * 0.5;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    } while ((t.tv_sec - t0.tv_sec) + 1e-9 * (t.tv_nsec - t0.tv_nsec) < seconds);
    return s;
}

static void *worker(void *arg)
{
    MPI_Comm comm = *(MPI_Comm *)arg;
    int x = 1, y = 0;
    spin(0.04);
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, comm); /* LINE_C */
    spin(0.03);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    if (provided < MPI_THREAD_SERIALIZED)
        printf("FAIL: provided %d\n", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double x = rank, y = 0;
    for (int it = 0; it < ITER; it++) {
        MPI_Barrier(MPI_COMM_WORLD); /* LINE_A */
        spin(0.1 * (rank + 1));
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* LINE_B */
        spin(0.002);
    }
    if (y != size * (size - 1) / 2.0)
        printf("FAIL: sum %g\n", y);
    /* The main thread waits in pthread_join while the worker calls MPI. */
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    pthread_t th;
    pthread_create(&th, NULL, worker, &comm);
    pthread_join(th, NULL);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
