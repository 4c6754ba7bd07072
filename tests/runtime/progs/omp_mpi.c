/* omp_mpi.c — MPI calls from the threads of an OpenMP team, for
 * test_omp_context.py: under MPI_THREAD_MULTIPLE each of 2 threads of the
 * region in exchange() sends itself a message on MPI_COMM_SELF (its thread
 * number as the tag), and exchange() is called from two call sites in main.
 * A worker's own stack ends in the OpenMP runtime's thread start; the
 * runtime continues the fork's path on it, so each call's Sendrecv has the
 * same calling context on every thread, one per call site.  Prints
 * "omp_mpi done" (or "omp_mpi no-multiple" when the library cannot). */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

static int got[2];
static volatile int rounds[2] = {5, 3}; /* not unrolled: one call site each */

/* Returns the number of wrong messages (the work after the region keeps the
 * fork from being a tail call, which would take this frame off the path). */
__attribute__((noinline)) static int exchange(void)
{
#pragma omp parallel num_threads(2)
    {
        int t = omp_get_thread_num(), w = -1;
        MPI_Sendrecv(&t, 1, MPI_INT, 0, t, &w, 1, MPI_INT, 0, t, MPI_COMM_SELF, MPI_STATUS_IGNORE);
        got[t] = w;
    }
    return (got[0] != 0) + (got[1] != 1);
}

int main(int argc, char **argv)
{
    int provided, rank, bad = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0) printf("omp_mpi no-multiple\n");
        MPI_Finalize();
        return 0;
    }
    for (int i = 0; i < rounds[0]; i++)
        bad += exchange(); /* CALL_1 */
    for (int i = 0; i < rounds[1]; i++)
        bad += exchange(); /* CALL_2 */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("omp_mpi %s\n", bad ? "wrong" : "done");
    MPI_Finalize();
    return bad != 0;
}
