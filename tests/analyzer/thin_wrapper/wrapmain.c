/* wrapmain.c — a halo exchange through the application's thin MPI wrappers
 * (mpistubs.c): the MPI vertices are named at the wrappers' call sites here,
 * the code a person changes (tests/analyzer/thin_wrapper.sh). */
#include <mpi.h>
#include <stdio.h>

int app_MPI_Waitall(int n, MPI_Request *r, MPI_Status *s);
int app_MPI_Allreduce(double *in, double *out, int n);
int app_MPI_Waitall_each(int n, MPI_Request *r, MPI_Status *s);

static double buf_out[2][4096], buf_in[2][4096];

__attribute__((noinline)) static double work(int rank, int it)
{
    volatile double acc = 0.0;
    long n = 1000000L * (rank + 1);
    for (long i = 0; i < n; i++) acc += i * 1e-9 + it;
    return acc;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    double sum = 0.0, total = 0.0;
    for (int it = 0; it < 40; it++) {
        sum += work(rank, it);
        MPI_Request req[4];
        MPI_Status st[4];
        MPI_Irecv(buf_in[0], 4096, MPI_DOUBLE, left, it, MPI_COMM_WORLD, &req[0]);
        MPI_Irecv(buf_in[1], 4096, MPI_DOUBLE, right, it, MPI_COMM_WORLD, &req[1]);
        MPI_Isend(buf_out[0], 4096, MPI_DOUBLE, right, it, MPI_COMM_WORLD, &req[2]);
        MPI_Isend(buf_out[1], 4096, MPI_DOUBLE, left, it, MPI_COMM_WORLD, &req[3]);
        if (it % 2)
            app_MPI_Waitall(4, req, st);        /* WAITALL_LINE */
        else
            app_MPI_Waitall_each(4, req, st);
        app_MPI_Allreduce(&sum, &total, 1);     /* ALLREDUCE_LINE */
    }
    if (rank == 0) printf("wrapped on %d ranks: %g\n", size, total);
    MPI_Finalize();
    return 0;
}
