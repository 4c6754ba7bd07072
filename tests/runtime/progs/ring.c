/* ring.c — test program: a ring exchange (Isend/Irecv/Waitall), a blocking
 * Send/Recv pair and an Allreduce, ITER times, with some computation.
 * Expected counts per rank are asserted by tests/runtime/mpitest.py (check_ring). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ITER 20
#define N 1000

static double work(int n)
{
    volatile double s = 0;
    for (int i = 0; i < n * 1000; i++)
        s += i * 0.5;
    return s;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *sbuf = calloc(N, sizeof *sbuf), *rbuf = calloc(N, sizeof *rbuf);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double sum = 0;
    for (int it = 0; it < ITER; it++) {
        MPI_Request rq[2];
        MPI_Irecv(rbuf, N, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(sbuf, N, MPI_DOUBLE, right, 7, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        work(200 + 100 * rank);
        if (rank == 0 && size > 1)
            MPI_Send(sbuf, 10, MPI_INT, 1, 3, MPI_COMM_WORLD);
        else if (rank == 1)
            MPI_Recv(rbuf, 10, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double x = rank, y;
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        sum += y;
    }
    if (rank == 0)
        printf("ring done: %g\n", sum);
    MPI_Finalize();
    return 0;
}
