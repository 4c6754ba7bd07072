/* mpi_call.c — per-call cost of MPI calls, reached through a call stack of
 * realistic depth (the runtime takes the full calling context on every
 * call).  Prints microseconds per call for:
 *   self_send   MPI_Send to MPI_PROC_NULL (no communication: the wrapper alone)
 *   self_allreduce  8-byte MPI_Allreduce on MPI_COMM_SELF
 *   pingpong    8-byte ping-pong between ranks 0 and 1 (per message)
 *   allreduce   8-byte MPI_Allreduce on MPI_COMM_WORLD
 *   halo        8-byte exchange with both ring neighbours: 2 MPI_Irecv, 2 MPI_Isend,
 *               1 MPI_Waitall (per call: the exchange's time / 5)
 * Each figure is the median over batches of 500 calls (50 exchanges).
 * usage: mpi_call [iterations=200000] [depth=14]   (depth: frames below
 * main at the MPI calls, main and libc's start frames not counted) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int iters, rank, size;
#define KINDS 5
static double results[KINDS];

/* Per-call time of a kind: the median over batches of 500 calls, so that a
 * rank descheduled on this shared machine does not dominate the figure. */
#define BATCH 500
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n ? v[n / 2] : 0;
}

__attribute__((noinline)) static void measure(void)
{
    double x = 1, y;
    char buf[8] = {0};
    int nb = iters / BATCH < 1 ? 1 : iters / BATCH;
    double *bt = malloc((size_t)nb * sizeof *bt);
    char hbuf[4][8] = {{0}};
    MPI_Request rq[4];
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    for (int kind = 0; kind < KINDS; kind++) {
        int nbk = kind >= 2 ? (nb / 10 > 0 ? nb / 10 : 1) : nb;
        MPI_Barrier(MPI_COMM_WORLD);
        for (int b = 0; b < nbk; b++) {
            double t0 = MPI_Wtime();
            for (int i = 0; i < BATCH; i++) {
                switch (kind) {
                case 0: MPI_Send(buf, 8, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD); break;
                case 1: MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF); break;
                case 2:
                    if (size < 2 || rank >= 2)
                        break;
                    if (rank == 0) {
                        MPI_Send(buf, 8, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                        MPI_Recv(buf, 8, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    } else {
                        MPI_Recv(buf, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                        MPI_Send(buf, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
                    }
                    break;
                case 3: MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
                default:
                    if (i % 10)
                        break; /* 50 exchanges of 5 calls per batch */
                    MPI_Irecv(hbuf[0], 8, MPI_BYTE, left, 2, MPI_COMM_WORLD, &rq[0]);
                    MPI_Irecv(hbuf[1], 8, MPI_BYTE, right, 3, MPI_COMM_WORLD, &rq[1]);
                    MPI_Isend(hbuf[2], 8, MPI_BYTE, right, 2, MPI_COMM_WORLD, &rq[2]);
                    MPI_Isend(hbuf[3], 8, MPI_BYTE, left, 3, MPI_COMM_WORLD, &rq[3]);
                    MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
                    break;
                }
            }
            double calls = kind == 2 ? 2.0 * BATCH : kind == 4 ? 5.0 * BATCH / 10 : BATCH;
            bt[b] = (MPI_Wtime() - t0) / calls * 1e6;
        }
        results[kind] = median(bt, nbk);
    }
    free(bt);
}

__attribute__((noinline)) static void descend(int depth)
{
    if (depth > 0)
        descend(depth - 1);
    else
        measure();
    __asm__ volatile("" ::: "memory"); /* not a tail call: keep the frames */
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    iters = argc > 1 ? atoi(argv[1]) : 200000;
    int depth = argc > 2 ? atoi(argv[2]) : 14;
    descend(depth > 2 ? depth - 2 : 0); /* descend() frames + measure() */
    if (rank == 0)
        printf("self_send %.4f self_allreduce %.4f pingpong %.4f allreduce %.4f halo %.4f\n", results[0],
               results[1], results[2], results[3], results[4]);
    MPI_Finalize();
    return 0;
}
