/* weak_scaling.c — planted defect: non-scalable computation in a weak-scaling run.
 * Weak scaling: every rank relaxes a block of fixed size (0.3 CPU seconds per rank
 * at scale 1, whatever p), 20 iterations each ending in MPI_Allreduce, so the
 * total work grows like p.  With --defect=on every rank also rebuilds a global
 * index over the blocks of all p ranks each iteration (0.03 CPU seconds per rank
 * and per process in all: it grows like p on every rank); with --defect=off it
 * indexes only its own block (0.03 s at any p).  Analysed without --weak: the
 * analyzer must see from the runs that the work per process is fixed and report
 * the index loop only, not the relaxation that grows with p by design. */
#include "common/example.h"

#define NITER 20              /* iterations */
#define BLOCK_WORK 0.3        /* CPU seconds of relaxation per rank */
#define INDEX_WORK 0.03       /* CPU seconds to index one block, per rank */

/* Balanced relaxation of this rank's block: `seconds` of CPU work. */
static double relax_block(double seconds)
{
    volatile double acc = 0.0;
    double start = ex_cpu_seconds();
    while (ex_cpu_seconds() - start < seconds)
        for (int i = 0; i < EX_INNER; i++) acc += i * 2e-9;
    return ex_cpu_seconds() - start;
}

struct params { double relax, index; };

/* CPU model (ex_model_saving): phase 0 indexes (p blocks or 1), phase 1 relaxes. */
static double work(int rank, int size, int defect, int phase, const void *ctx)
{
    const struct params *pr = (const struct params *)ctx;
    (void)rank;
    if (phase == 1) return pr->relax;
    return defect ? pr->index * size : pr->index;
}

int main(int argc, char **argv)
{
    struct ex_run run;
    ex_init(&run, &argc, &argv, "weak_scaling");
    struct params pr = { run.scale * BLOCK_WORK / NITER, run.scale * INDEX_WORK / NITER };
    int nblocks = run.defect ? run.size : 1;   /* blocks this rank indexes */
    double indexed = 0.0, spent = 0.0, check = 0.0, residual = 0.0;
    volatile double acc = 0.0;

    /* The planted loop: the block loop, lines FIRST to FIRST+4. */
    enum { PLANTED_FIRST = __LINE__ + 3, PLANTED_LAST = PLANTED_FIRST + 4 };
    for (int it = 0; it < NITER; it++) {
        double t0 = ex_cpu_seconds();
        for (int blk = 0; blk < nblocks; blk++) {
            double b0 = ex_cpu_seconds();
            while (ex_cpu_seconds() - b0 < pr.index)
                for (int i = 0; i < EX_INNER / 10; i++) acc += i * 1e-9;
        }
        indexed += ex_cpu_seconds() - t0;
        MPI_Allreduce(&indexed, &check, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        spent += relax_block(pr.relax);
        MPI_Allreduce(&spent, &residual, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }

    /* Extra CPU seconds against the defect-off program (one block of p). */
    int planted = run.defect && run.size > 1;
    double extra = planted ? indexed * (1.0 - 1.0 / run.size) : 0.0;
    struct ex_truth truth = { "non_scalable_computation", __FILE__, PLANTED_FIRST, PLANTED_LAST,
                              PLANTED_FIRST, PLANTED_FIRST, "main", NULL };
    struct ex_result res = { planted, extra, pr.index * NITER * (run.size - 1),
                             -1.0, -1.0, -1.0 };
    EX_MODEL_SAVINGS(&res, run.size, NITER, 2, work, &pr);
    ex_report(&run, &truth, &res);
    MPI_Finalize();
    return 0;
}
