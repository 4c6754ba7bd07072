/* omp_process_imbalance.c — planted defect: load imbalance among processes inside
 * a parallel loop (MPI + OpenMP, run with OMP_NUM_THREADS=2).  Weak scaling: every
 * process relaxes its rows, 0.4 CPU seconds per process at scale 1, in a parallel
 * loop whose equal rows the static schedule splits evenly between the threads;
 * 20 iterations, each ending in an MPI_Allreduce.  With --defect=on the last rank
 * (p > 1) owns three times the rows of every other rank, and the others wait for
 * it in MPI_Allreduce; with --defect=off every rank owns the same.  The threads of
 * every process stay balanced: the cause is the processes', and its cost is wall
 * time, the heavy process's extra CPU seconds divided by its two threads. */
#include "common/example.h"

#define NITER 20              /* iterations, each ending in an MPI_Allreduce */
#define WORK 0.4              /* CPU seconds of relaxation per (light) process */
#define NROWS 64              /* rows of a light process */
#define HEAVY_PARTS 3.0       /* a heavy rank's rows / a light rank's */
#define THREADS 2             /* the team the CPU model assumes (OMP_NUM_THREADS) */

/* The planted loop is the parallel loop: its pragma (FUNC+3) to its brace (FUNC+10). */
enum { PLANTED_FUNC = __LINE__ + 1, PLANTED_FIRST = PLANTED_FUNC + 3, PLANTED_LAST = PLANTED_FUNC + 10 };
static double relax_rows(double row_seconds, int nrows)   /* CPU seconds of one row */
{
    double spent = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : spent)
    for (int row = 0; row < nrows; row++) {
        volatile double acc = 0.0;
        double start = ex_cpu_seconds();
        while (ex_cpu_seconds() - start < row_seconds)
            for (int i = 0; i < EX_INNER / 10; i++) acc += i * 1e-9;
        spent += ex_cpu_seconds() - start;
    }
    return spent;
}

static int is_heavy(int rank, int size) { return size > 1 && rank == size - 1; }

/* Wall seconds of one iteration with a core per thread (ex_model_saving); ctx: a
 * light process's CPU seconds per iteration. */
static double work(int rank, int size, int defect, int phase, const void *ctx)
{
    (void)phase;
    return *(const double *)ctx * ex_parts(defect && is_heavy(rank, size), HEAVY_PARTS) / THREADS;
}

int main(int argc, char **argv)
{
    struct ex_run run;
    ex_init(&run, &argc, &argv, "omp_process_imbalance");
    int heavy = run.defect && is_heavy(run.rank, run.size);
    double per_iteration = run.scale * WORK / NITER;
    int nrows = heavy ? (int)(NROWS * HEAVY_PARTS) : NROWS;
    double row_seconds = per_iteration / NROWS;
    double spent = 0.0, residual = 0.0;
    /* expected cost: the heavy rank's extra CPU seconds (ex_result); the saving
     * (the model, wall time with a core per thread) is half of it */
    struct ex_result res = { heavy, 0.0, per_iteration * (HEAVY_PARTS - 1) * NITER, -1.0, -1.0, -1.0 };
    EX_MODEL_SAVINGS(&res, run.size, NITER, 1, work, &per_iteration);

    enum { STMT = __LINE__ + 2 };   /* the planted statement, two lines down */
    for (int it = 0; it < NITER; it++) {
        spent += relax_rows(row_seconds, nrows);
        MPI_Allreduce(&spent, &residual, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }

    struct ex_truth truth = { "load_imbalance", __FILE__, PLANTED_FIRST, PLANTED_LAST, STMT, STMT,
                              "relax_rows", NULL };
    res.extra_cpu_seconds = heavy ? spent * (1.0 - 1.0 / HEAVY_PARTS) : 0.0;
    ex_report(&run, &truth, &res);
    MPI_Finalize();
    return 0;
}
