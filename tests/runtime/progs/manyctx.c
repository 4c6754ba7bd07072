/* manyctx.c — 131072 distinct MPI calling contexts per rank, cheaply: walk()
 * recurses DEPTH levels, each level from one of 4 call sites chosen by the
 * path number, and the leaf calls MPI_Send (to MPI_PROC_NULL: no transfer)
 * from one of 2 call sites: 4^8 * 2 paths, each taken twice.  More distinct
 * paths than a weak path hash keeps apart (issue 14 saw merges at ~117,000);
 * numbers_test.py asserts one context per path with exactly 2 calls.
 * Built -O0 -fno-optimize-sibling-calls: every call site stays a frame. */
#include <mpi.h>
#include <stdio.h>

#define DEPTH 8

static void leaf(unsigned path)
{
    if (path & 1)
        MPI_Send(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 1, MPI_COMM_WORLD);
    else
        MPI_Send(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 2, MPI_COMM_WORLD);
}

static void walk(int depth, unsigned path)
{
    if (depth == 0) {
        leaf(path);
        return;
    }
    unsigned site = (path >> (2 * depth - 1)) & 3;
    switch (site) {
    case 0: walk(depth - 1, path); break;
    case 1: walk(depth - 1, path); break;
    case 2: walk(depth - 1, path); break;
    default: walk(depth - 1, path); break;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    unsigned paths = 2u << (2 * DEPTH);
    for (int round = 0; round < 2; round++)
        for (unsigned p = 0; p < paths; p++)
            walk(DEPTH, p);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d: %u paths twice\n", rank, paths);
    MPI_Finalize();
    return 0;
}
