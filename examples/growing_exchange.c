/* growing_exchange.c — planted defect: a point-to-point exchange whose volume per
 * process grows with p.  Strong scaling: every iteration relaxes this rank's cells
 * (1.2 CPU seconds over all ranks, at scale 1), then sums a 1 Mi-double vector
 * over all ranks by recursive doubling, as a CG kernel's hand-written reduction
 * does: log2(p) rounds of MPI_Irecv / MPI_Send / MPI_Wait with the partner
 * rank ^ 2^k.  With --defect=on every round exchanges the whole vector, so the
 * bytes each rank moves grow like log2(p) while its work shrinks like 1/p.  With
 * --defect=off each round exchanges only the 1/p of the vector the rank owns
 * (the reduce-scatter a fix would use), so the volume shrinks with p.
 * Process counts that are not powers of two skip the partners beyond the last rank. */
#include "common/example.h"

#define NITER 20              /* iterations */
#define TOTAL_WORK 1.2        /* CPU seconds of relaxation over all ranks */
#define VECTOR (1024 * 1024)  /* doubles in the reduced vector (8 MiB: the volume, not the
                               * scheduling of 8 processes on 2 cores, sets the time) */

/* Balanced relaxation of this rank's cells: `seconds` of CPU work. */
static double relax_cells(double seconds)
{
    volatile double acc = 0.0;
    double start = ex_cpu_seconds();
    while (ex_cpu_seconds() - start < seconds)
        for (int i = 0; i < EX_INNER; i++) acc += i * 2e-9;
    return ex_cpu_seconds() - start;
}

int main(int argc, char **argv)
{
    struct ex_run run;
    ex_init(&run, &argc, &argv, "growing_exchange");
    double share = run.scale * TOTAL_WORK / run.size / NITER;   /* per iteration */
    int n = run.defect ? VECTOR : VECTOR / run.size;   /* doubles per round */
    /* only the n doubles a round moves: with --defect=off a replicated
     * set-up of the whole vector (24 ms of CPU per rank, 5 % of an
     * 8-process run with a core per process) is a non-scalable loop
     * that nobody planted */
    double *vec = malloc(sizeof(double) * n), *buf = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) vec[i] = run.rank + i * 1e-6;
    double in_exchange = 0.0;

    enum { PLANTED_FIRST = __LINE__ + 4, PLANTED_LAST = PLANTED_FIRST + 8 };
    for (int it = 0; it < NITER; it++) {
        relax_cells(share);
        double t0 = MPI_Wtime();
        for (int mask = 1; mask < run.size; mask <<= 1) {
            int partner = run.rank ^ mask;
            if (partner >= run.size) continue;
            MPI_Request req;
            MPI_Irecv(buf, n, MPI_DOUBLE, partner, it, MPI_COMM_WORLD, &req);
            MPI_Send(vec, n, MPI_DOUBLE, partner, it, MPI_COMM_WORLD);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            for (int i = 0; i < n; i++) vec[i] = 0.5 * (vec[i] + buf[i]);
        }
        in_exchange += MPI_Wtime() - t0;
    }

    /* Ground truth: the wall seconds spent in the planted exchange, on every rank. */
    struct ex_truth truth = { "growing_communication", __FILE__, PLANTED_FIRST, PLANTED_LAST,
                              PLANTED_FIRST, PLANTED_LAST, "main", NULL };
    ex_report_comm(&run, &truth, in_exchange);
    free(vec);
    free(buf);
    MPI_Finalize();
    return 0;
}
