/* hello.c — a small MPI program for the command-line tests: a ring of
 * sends, an Allreduce and some computation, then one line per run. */
#include <mpi.h>
#include <stdio.h>

static double work(int n)
{
    double s = 0;
    for (int i = 1; i <= n; i++)
        s += 1.0 / ((double)i * i);
    return s;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double x = 0, sum = 0;
    for (int it = 0; it < 20; it++) {
        x += work(200000);
        int to = (rank + 1) % size, from = (rank + size - 1) % size, in = 0;
        MPI_Sendrecv(&rank, 1, MPI_INT, to, 0, &in, 1, MPI_INT, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("hello from %d ranks: %.6f\n", size, sum / size);
    MPI_Finalize();
    return 0;
}
