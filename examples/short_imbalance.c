/* short_imbalance.c — planted defect: a 2x load imbalance in a short run.
 * Strong scaling: 1.0 CPU second of row relaxation in all (at scale 1), so a run
 * takes about a second at any process count (1.125 s of work at 8 with the defect), 20 iterations each ending in
 * MPI_Allreduce.  With --defect=on rank 0 (p > 1) owns twice the rows of every
 * other rank (its second half is extra work); with --defect=off every rank owns
 * the same, 1/p of 1.0 CPU second.  At the default sampling rate such a run
 * gives only a few dozen samples per process: the imbalance must be found from
 * them and from the exact time between MPI calls. */
#include "common/example.h"

#define NITER 20              /* iterations, each ending in an MPI_Allreduce */
#define TOTAL_WORK 1.0        /* CPU seconds of rows over all ranks */
#define ROW_PARTS 8           /* rows per part: rank 0 owns 2 parts, the others 1 */

/* Parts of the rows a rank owns: 2 for rank 0 with the defect on, else 1. */
static int parts(int rank, int size, int defect) { return defect && size > 1 && rank == 0 ? 2 : 1; }

/* CPU model (ex_model_saving): each iteration is one phase of rows. */
static double work(int rank, int size, int defect, int phase, const void *ctx)
{
    double scale = *(const double *)ctx;
    (void)phase;
    return scale * TOTAL_WORK / NITER * parts(rank, size, defect) / size;
}

int main(int argc, char **argv)
{
    struct ex_run run;
    ex_init(&run, &argc, &argv, "short_imbalance");
    int heavy = run.defect && run.size > 1 && run.rank == 0;
    int nrows = ROW_PARTS * parts(run.rank, run.size, run.defect);
    double row_seconds = run.scale * TOTAL_WORK / NITER /
                         (ROW_PARTS * run.size);
    double spent = 0.0, residual = 0.0;
    volatile double acc = 0.0;

    /* The planted loop: the row loop, lines STMT to STMT+4. */
    enum { STMT = __LINE__ + 3, PLANTED_FIRST = STMT, PLANTED_LAST = STMT + 4 };
    for (int it = 0; it < NITER; it++) {
        double t0 = ex_cpu_seconds();
        for (int r = 0; r < nrows; r++) {
            double r0 = ex_cpu_seconds();
            while (ex_cpu_seconds() - r0 < row_seconds)
                for (int i = 0; i < EX_INNER / 10; i++) acc += i * 1e-9;
        }
        spent += ex_cpu_seconds() - t0;
        MPI_Allreduce(&spent, &residual, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }

    /* Extra CPU seconds against the defect-off program: half of rank 0's rows. */
    struct ex_truth truth = { "load_imbalance", __FILE__, PLANTED_FIRST, PLANTED_LAST, STMT, STMT,
                              "main", NULL };
    struct ex_result res = { heavy, heavy ? spent / 2.0 : 0.0, run.scale * TOTAL_WORK / run.size,
                             -1.0, -1.0, -1.0 };
    EX_MODEL_SAVINGS(&res, run.size, NITER, 1, work, &run.scale);
    ex_report(&run, &truth, &res);
    MPI_Finalize();
    return 0;
}
