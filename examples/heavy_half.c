/* heavy_half.c — planted defect: load imbalance on k of p processes (half of them).
 * Strong scaling: 1.6 CPU seconds of relaxation (at scale 1) split over the
 * processes, 20 iterations each ending in MPI_Allreduce.  With --defect=on every
 * odd rank ({1}, {1,3}, {1,3,5,7} at 2, 4, 8 processes) owns three times the cells
 * of an even one (its excess is extra work: with the defect off it owns what the others own), as a partition that gives every
 * other block a refined region would: a test that
 * compares each process with the mean of the others, or with the heaviest one,
 * misses most culprits; all of them must be named.  The planted loop sits in
 * main's iteration loop itself. */
#include "common/example.h"

#define NITER 20              /* iterations, each ending in an MPI_Allreduce */
#define TOTAL_WORK 1.6        /* CPU seconds of relaxation over all ranks */
#define HEAVY_PARTS 3.0       /* a heavy rank's cells / a light rank's */

static int is_heavy(int rank, int size) { return size > 1 && rank % 2 == 1; }

/* CPU seconds of one iteration (ex_model_saving: one phase); ctx: the total per iteration. */
static double work(int rank, int size, int defect, int phase, const void *ctx)
{
    (void)phase;
    return *(const double *)ctx * ex_parts(defect && is_heavy(rank, size), HEAVY_PARTS) /
           size;
}

int main(int argc, char **argv)
{
    struct ex_run run;
    ex_init(&run, &argc, &argv, "heavy_half");
    int heavy = run.defect && is_heavy(run.rank, run.size);
    double per_iteration = run.scale * TOTAL_WORK / NITER;
    double mine = work(run.rank, run.size, run.defect, 0, &per_iteration);
    double fair = per_iteration / run.size;
    double spent = 0.0, residual = 0.0;
    volatile double acc = 0.0;

    /* The planted loop: lines STMT to STMT+1 of the iteration loop below. */
    enum { STMT = __LINE__ + 3, PLANTED_FIRST = STMT, PLANTED_LAST = STMT + 1 };
    for (int it = 0; it < NITER; it++) {
        double t0 = ex_cpu_seconds();
        while (ex_cpu_seconds() - t0 < mine)
            for (int i = 0; i < EX_INNER; i++) acc += i * 1e-9;
        spent += ex_cpu_seconds() - t0;
        MPI_Allreduce(&spent, &residual, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }

    struct ex_truth truth = { "load_imbalance", __FILE__, PLANTED_FIRST, PLANTED_LAST, STMT, STMT,
                              "main", NULL };
    /* Extra CPU seconds against the defect-off program, which gives each rank fair. */
    double heavy_extra = (work(1, run.size, 1, 0, &per_iteration) - fair) * NITER;
    struct ex_result res = { heavy, heavy ? spent * (1.0 - fair / mine) : 0.0, heavy_extra,
                             -1.0, -1.0, -1.0 };
    EX_MODEL_SAVINGS(&res, run.size, NITER, 1, work, &per_iteration);
    ex_report(&run, &truth, &res);
    MPI_Finalize();
    return 0;
}
