/* pipeline_wavefront.c — planted defect: a pipelined wavefront with too few,
 * too large stages.  Strong scaling: the ranks own consecutive slabs of a grid
 * (1.2 CPU seconds of relaxation over all ranks, at scale 1), and every iteration
 * makes an SSOR-like pair of sweeps: forward, each rank receives the boundary of
 * a block from rank - 1 (MPI_Recv), relaxes the block and sends its own boundary
 * to rank + 1; then backward, from rank + 1 to rank - 1.  A rank can start only
 * when the wave reaches it: with B blocks per sweep and p ranks a sweep takes
 * B + p - 1 block times instead of B, the pipeline's fill and drain.  With
 * --defect=on a sweep has NBLOCKS_ON = 2 blocks, so at 8 processes 7 of every 9
 * block times are waits.  With --defect=off the ranks use another scheme, the
 * other remedy: each relaxes its whole slab (the same work) and then swaps its
 * boundaries with both neighbours (MPI_Sendrecv), a Jacobi-like update with no
 * wave to wait for.  No rank computes more than another: the waits are the
 * pipeline's, not a late sender's extra work.  The saving is the whole fill and
 * drain, 2 (p - 1) block times per iteration with a core per process. */
#include "common/example.h"

#define NITER 10              /* iterations (pairs of sweeps) */
#define TOTAL_WORK 1.2        /* CPU seconds of relaxation over all ranks */
#define NBLOCKS_ON 2          /* blocks per sweep with the defect */
#define EDGE 256              /* doubles of boundary per block (2 KiB: below the eager limits,
                               * so a send never waits for its receive) */

/* Relaxation of one block of this rank's slab: `seconds` of CPU work. */
static double relax_block(double seconds)
{
    volatile double acc = 0.0;
    double start = ex_cpu_seconds();
    while (ex_cpu_seconds() - start < seconds)
        for (int i = 0; i < EX_INNER / 10; i++) acc += i * 2e-9;
    return ex_cpu_seconds() - start;
}

enum { SWEEP_FIRST = __LINE__ + 5, SWEEP_LAST = SWEEP_FIRST + 4 };

/* One sweep from rank `from` to rank `to` (neighbours; MPI_PROC_NULL at the ends). */
static void sweep(int from, int to, int nblocks, double block, double *edge, int tag)
{
    for (int b = 0; b < nblocks; b++) {
        MPI_Recv(edge, EDGE, MPI_DOUBLE, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        relax_block(block);
        MPI_Send(edge, EDGE, MPI_DOUBLE, to, tag, MPI_COMM_WORLD);
    }
}

/* CPU seconds of rank r in phase 0 (all its blocks of one iteration): the same
 * on every rank, with or without the defect (ex_work_fn). */
static double work(int rank, int size, int defect, int phase, const void *ctx)
{
    (void)rank, (void)defect, (void)phase, (void)ctx;
    return TOTAL_WORK / size / NITER;
}

/* Wall seconds of one iteration of the pipeline with a core per process beyond
 * its work: the fill and drain of two sweeps of nblocks, (p - 1) block times
 * each. */
static double fill_seconds(int size, int nblocks, double scale)
{
    double block = scale * work(0, size, 1, 0, NULL) / 2 / nblocks;
    return 2 * (size - 1) * block;
}

int main(int argc, char **argv)
{
    struct ex_run run;
    ex_init(&run, &argc, &argv, "pipeline_wavefront");
    run.same_at_one = 0;   /* the scheme changes the run even at 1 process */
    double slab = run.scale * work(run.rank, run.size, run.defect, 0, NULL);   /* per iteration */
    double block = slab / 2 / NBLOCKS_ON;
    int prev = run.rank > 0 ? run.rank - 1 : MPI_PROC_NULL;
    int next = run.rank + 1 < run.size ? run.rank + 1 : MPI_PROC_NULL;
    double edge[EDGE] = {0}, in_wait = 0.0;

    enum { PLANTED_FIRST = __LINE__ + 4, PLANTED_LAST = PLANTED_FIRST + 1 };
    for (int it = 0; it < NITER; it++) {
        double t0 = MPI_Wtime();
        if (run.defect) {
            sweep(prev, next, NBLOCKS_ON, block, edge, 1);      /* forward */
            sweep(next, prev, NBLOCKS_ON, block, edge, 2);      /* backward */
        } else {
            relax_block(slab);
            double halo[EDGE];
            MPI_Sendrecv(edge, EDGE, MPI_DOUBLE, next, 3, halo, EDGE, MPI_DOUBLE, prev, 3,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Sendrecv(edge, EDGE, MPI_DOUBLE, prev, 4, halo, EDGE, MPI_DOUBLE, next, 4,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        in_wait += MPI_Wtime() - t0;
    }
    in_wait -= run.scale * work(run.rank, run.size, run.defect, 0, NULL) * NITER;

    /* Ground truth: the pipeline's fill and drain, with a core per process. */
    int planted = run.defect && run.size > 1;
    double saving = NITER * fill_seconds(run.size, NBLOCKS_ON, run.scale);
    struct ex_truth truth = { "pipeline_wait", __FILE__, SWEEP_FIRST, SWEEP_LAST, PLANTED_FIRST, PLANTED_LAST,
                              "sweep", NULL };
    struct ex_result res = { planted, planted ? in_wait : 0.0, saving, saving, saving, -1.0 };
    ex_report(&run, &truth, &res);
    MPI_Finalize();
    return 0;
}
