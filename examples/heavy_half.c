/* heavy_half.c — planted defect: load imbalance on k of p processes (half of them).
 * Strong scaling: 1.6 CPU seconds of relaxation (at scale 1) split over the
 * processes, 20 iterations each ending in MPI_Allreduce.  With --defect=on every
 * odd rank owns twice its share ({1}, {1,3}, {1,3,5,7} at 2, 4, 8 processes), as
 * a partition that gives every other block a refined region would: a test that
 * compares each process with the mean of the others, or with the heaviest one,
 * misses most culprits; all of them must be named.  The planted loop sits in
 * main's iteration loop itself. */
#include "common/example.h"

#define NITER 20              /* iterations, each ending in an MPI_Allreduce */
#define TOTAL_WORK 1.6        /* CPU seconds of relaxation over all ranks */
#define HEAVY_FACTOR 2.0      /* a heavy rank's work / its fair share */

static int is_heavy(int rank, int size) { return size > 1 && rank % 2 == 1; }

/* CPU model (ex_model_saving): each iteration is one phase of relaxation. */
static double work(int rank, int size, int defect, int phase, const void *ctx)
{
    double share = *(const double *)ctx;
    (void)phase;
    return defect && is_heavy(rank, size) ? HEAVY_FACTOR * share : share;
}

int main(int argc, char **argv)
{
    struct ex_run run;
    ex_init(&run, &argc, &argv, "heavy_half");
    int heavy = run.defect && is_heavy(run.rank, run.size);
    double share = run.scale * TOTAL_WORK / run.size / NITER;
    double mine = heavy ? HEAVY_FACTOR * share : share;
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
    struct ex_result res = { heavy, spent - share * NITER, (HEAVY_FACTOR - 1.0) * share * NITER,
                             ex_model_saving(run.size, ex_cores(), NITER, 1, work, &share), -1.0 };
    ex_report(&run, &truth, &res);
    MPI_Finalize();
    return 0;
}
