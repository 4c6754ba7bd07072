/* mtirecv.c — MPI_THREAD_MULTIPLE with request handles completed and handed
 * out again on several threads at once: on each of 2 ranks, THREADS threads
 * run ITERS rounds of MPI_Irecv + MPI_Isend (8 bytes, tag = thread) with
 * the other rank, completed by MPI_Wait (recv) and MPI_Waitall (send).  A
 * library reuses a freed handle for the next request of any thread, so
 * every completion must be charged to the request it completed.  Prints
 * the sum each rank received. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 4
#define ITERS 400

static int rank, other;

static void *run(void *p)
{
    int tag = (int)(long)p;
    long *sum = malloc(sizeof *sum);
    *sum = 0;
    for (int i = 0; i < ITERS; i++) {
        long in = 0, out = i;
        MPI_Request rq, sq;
        MPI_Irecv(&in, 1, MPI_LONG, other, tag, MPI_COMM_WORLD, &rq);
        MPI_Isend(&out, 1, MPI_LONG, other, tag, MPI_COMM_WORLD, &sq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        MPI_Status sst;
        MPI_Waitall(1, &sq, &sst);
        *sum += in;
    }
    return sum;
}

int main(int argc, char **argv)
{
    int provided = 0, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided != MPI_THREAD_MULTIPLE || size != 2) {
        if (rank == 0)
            printf("skipped: thread level %d, %d ranks\n", provided, size);
        MPI_Finalize();
        return 0;
    }
    other = 1 - rank;
    pthread_t th[THREADS];
    for (long t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, run, (void *)t);
    long total = 0;
    for (int t = 0; t < THREADS; t++) {
        void *r;
        pthread_join(th[t], &r);
        total += *(long *)r;
        free(r);
    }
    printf("rank %d received %ld\n", rank, total);
    MPI_Finalize();
    return 0;
}
