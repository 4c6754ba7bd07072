/* mpi4_coll.c — MPI-4.0 collectives: a persistent MPI_Allreduce_init of 64
 * doubles started 5 times (MPI_Start, MPI_Wait), MPI_Bcast_init of 10 ints
 * from rank 0 and MPI_Barrier_init started together 3 times
 * (MPI_Startall, MPI_Waitall), and the large-count twins MPI_Allreduce_c (64
 * doubles), MPI_Bcast_c (10 ints) and MPI_Gatherv_c (rank r sends r+1 ints
 * to rank 0; MPI_Count counts, MPI_Aint displacements).  Any number of
 * ranks; FAIL on a wrong result.  Asserted by numbers_test.py (check
 * mpi4_coll). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int fails;

static void expect(int cond, const char *what)
{
    if (!cond) {
        printf("FAIL: %s\n", what);
        fails++;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    double in[64], out[64];
    MPI_Request ar;
    MPI_Allreduce_init(in, out, 64, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &ar);
    for (int it = 0; it < 5; it++) {
        for (int i = 0; i < 64; i++)
            in[i] = rank + it;
        MPI_Start(&ar);
        MPI_Wait(&ar, MPI_STATUS_IGNORE);
        expect(out[63] == size * (size - 1) / 2.0 + size * it, "Allreduce_init result");
    }
    MPI_Request_free(&ar);

    int b[10];
    MPI_Request two[2];
    MPI_Bcast_init(b, 10, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &two[0]);
    MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &two[1]);
    for (int it = 0; it < 3; it++) {
        for (int i = 0; i < 10; i++)
            b[i] = rank == 0 ? it * 10 + i : -1;
        MPI_Startall(2, two);
        MPI_Waitall(2, two, MPI_STATUSES_IGNORE);
        expect(b[9] == it * 10 + 9, "Bcast_init result");
    }
    MPI_Request_free(&two[0]);
    MPI_Request_free(&two[1]);

    for (int i = 0; i < 64; i++)
        in[i] = rank;
    MPI_Allreduce_c(in, out, (MPI_Count)64, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    expect(out[0] == size * (size - 1) / 2.0, "Allreduce_c result");
    for (int i = 0; i < 10; i++)
        b[i] = rank == 0 ? 100 + i : 0;
    MPI_Bcast_c(b, (MPI_Count)10, MPI_INT, 0, MPI_COMM_WORLD);
    expect(b[9] == 109, "Bcast_c result");

    int mine[64];
    for (int i = 0; i <= rank; i++)
        mine[i] = rank;
    MPI_Count *counts = malloc(sizeof *counts * (size_t)size);
    MPI_Aint *displs = malloc(sizeof *displs * (size_t)size);
    int *all = malloc(sizeof *all * (size_t)(size * (size + 1) / 2));
    for (int r = 0, d = 0; r < size; d += r + 1, r++) {
        counts[r] = r + 1;
        displs[r] = d;
    }
    MPI_Gatherv_c(mine, (MPI_Count)(rank + 1), MPI_INT, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0)
        expect(all[size * (size + 1) / 2 - 1] == size - 1, "Gatherv_c result");
    free(counts);
    free(displs);
    free(all);

    printf("rank %d: %s\n", rank, fails ? "failed" : "ok");
    MPI_Finalize();
    return fails != 0;
}
