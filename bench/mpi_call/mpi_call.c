/* mpi_call.c — per-call cost of MPI calls, reached through a call stack of
 * realistic depth (the runtime unwinds the full calling context on every
 * call).  Prints microseconds per call for:
 *   self_send   MPI_Send to MPI_PROC_NULL (no communication: the wrapper alone)
 *   self_allreduce  8-byte MPI_Allreduce on MPI_COMM_SELF
 *   pingpong    8-byte ping-pong between ranks 0 and 1 (per message)
 *   allreduce   8-byte MPI_Allreduce on MPI_COMM_WORLD
 * Each figure is the median over batches of 500 calls.
 * usage: mpi_call [iterations=200000] [depth=10] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int iters, rank, size;
static double results[4];

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
    for (int kind = 0; kind < 4; kind++) {
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
                default: MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
                }
            }
            bt[b] = (MPI_Wtime() - t0) / (kind == 2 ? 2.0 * BATCH : BATCH) * 1e6;
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
    int depth = argc > 2 ? atoi(argv[2]) : 10;
    descend(depth);
    if (rank == 0)
        printf("self_send %.4f self_allreduce %.4f pingpong %.4f allreduce %.4f\n", results[0], results[1],
               results[2], results[3]);
    MPI_Finalize();
    return 0;
}
