/* lifecycle.c — how a run ends, for the writing tests (test_writing.py); the
 * mode is argv[1]:
 *   ok      compute, Allreduce, rank 0 prints "result N", MPI_Finalize
 *   abort1  rank 1 calls MPI_Abort(7) after a Barrier (the others wait)
 *   crash1  rank 1 dereferences NULL after a Barrier (the others wait)
 *   exit0   no MPI_Finalize: rank 0 exit(4), the others exit(0) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static double work(long n)
{
    volatile double x = 0;
    for (long i = 0; i < n; i++)
        x += i * 0.5;
    return x;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ok";
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double s = work(2000000) > 0 ? rank : 0, t = 0;
    MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (strcmp(mode, "abort1") == 0 || strcmp(mode, "crash1") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1 % size) {
            if (mode[0] == 'a')
                MPI_Abort(MPI_COMM_WORLD, 7);
            volatile int *p = NULL;
            *p = 1;
        }
        MPI_Barrier(MPI_COMM_WORLD); /* never completes */
        sleep(30);
    } else if (strcmp(mode, "exit0") == 0) {
        printf("rank %d sum %g\n", rank, t);
        fflush(stdout);
        exit(rank == 0 ? 4 : 0);
    }
    if (rank == 0)
        printf("result %g\n", t);
    MPI_Finalize();
    return 0;
}
