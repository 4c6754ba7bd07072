/* coll.c — test program: collectives (blocking, non-blocking, v, in-place,
 * neighbourhood) and communicator creation (split, dup, cart, intercomm).
 * tests/runtime/mpitest.py knows the exact calls and bytes per rank and the
 * communicator ids that must agree.  Even np. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    int *ib = calloc(64 * (size_t)P + 64, sizeof(int)), *ob = calloc(64 * (size_t)P + 64, sizeof(int));
    double d[8] = {0}, e[8] = {0};
    int *counts = malloc(P * sizeof(int)), *displs = malloc(P * sizeof(int));

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Bcast(ib, 10, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Reduce(d, e, 4, MPI_DOUBLE, MPI_SUM, 1 % P, MPI_COMM_WORLD);
    MPI_Allreduce(ib, ob, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, d, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Gather(ib, 2, MPI_INT, ob, 2, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; i < P; i++) {
        counts[i] = i + 1;
        displs[i] = i * (P + 1);
    }
    MPI_Gatherv(ib, rank + 1, MPI_INT, ob, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Scatter(ib, 3, MPI_INT, ob, 3, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Allgather(ib, 1, MPI_INT, ob, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Alltoall(ib, 2, MPI_INT, ob, 2, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < P; i++) {
        counts[i] = 1;
        displs[i] = i;
    }
    MPI_Alltoallv(ib, counts, displs, MPI_INT, ob, counts, displs, MPI_INT, MPI_COMM_WORLD);
    MPI_Reduce_scatter_block(ib, ob, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Scan(ib, ob, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Exscan(ib, ob, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Request r;
    MPI_Iallreduce(ib, ob, 5, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Ibcast(ib, 2, MPI_INT, 0, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);

    /* Communicators. */
    MPI_Comm sub, dup, cart, inter;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &sub);
    MPI_Allreduce(ib, ob, 1, MPI_INT, MPI_SUM, sub);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Barrier(dup);
    int dims[1] = {P}, periods[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    MPI_Neighbor_alltoall(ib, 1, MPI_INT, ob, 1, MPI_INT, cart);
    /* Intercommunicator between the even and the odd ranks. */
    MPI_Intercomm_create(sub, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 99, &inter);
    int lr;
    MPI_Comm_rank(inter, &lr);
    if (rank % 2 == 0)
        MPI_Send(ib, 1, MPI_INT, lr, 20, inter);
    else
        MPI_Recv(ob, 1, MPI_INT, lr, 20, inter, MPI_STATUS_IGNORE);
    MPI_Barrier(inter);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&cart);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&sub);
    if (rank == 0)
        printf("coll done\n");
    free(ib); free(ob); free(counts); free(displs);
    MPI_Finalize();
    return 0;
}
