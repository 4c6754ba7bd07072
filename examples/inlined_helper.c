/* inlined_helper.c — planted defect: load imbalance in a loop of a static helper
 * that -O2 inlines into main.  Strong scaling: 1.6 CPU seconds of row relaxation
 * (at scale 1) over 32 rows per process count, plus a balanced boundary smoothing
 * (0.2 CPU seconds in all) in the same helper.  With --defect=on the last rank
 * (p > 1) owns twice its share of rows; everyone else waits in MPI_Allreduce.
 * The helper holds two loops and no MPI: only the row loop is the cause, not the
 * helper as a whole, not the boundary loop, not the call line in main. */
#include "common/example.h"

#define NITER 20              /* iterations, each ending in an MPI_Allreduce */
#define TOTAL_WORK 1.6        /* CPU seconds of row relaxation over all ranks */
#define BOUNDARY_WORK 0.2     /* CPU seconds of boundary smoothing over all ranks */
#define ROWS 32               /* rows at the fair share of 1 process: 32 / p each */
#define HEAVY_FACTOR 2.0      /* the heavy rank's rows / its fair share */

struct block {
    int nrows;                /* rows this rank owns */
    double row_seconds;       /* CPU seconds to relax one row */
    double boundary_seconds;  /* CPU seconds of boundary smoothing per sweep */
    double rows[ROWS * 2];
};

/* One sweep of this rank's block: smooth the boundary (the same amount on every
 * rank), then relax every row it owns.  Returns the CPU seconds of the row loop.
 * Static with one caller: clang -O2 inlines it into main.  The planted loop is
 * the row loop, lines SWEEP+9 to SWEEP+14. */
enum { SWEEP = __LINE__ + 1, PLANTED_FIRST = SWEEP + 9, PLANTED_LAST = SWEEP + 14 };
static double sweep_block(struct block *b)
{
    volatile double acc = 0.0;
    double start = ex_cpu_seconds();
    /* boundary smoothing: balanced */
    while (ex_cpu_seconds() - start < b->boundary_seconds)
        for (int i = 0; i < EX_INNER; i++) acc += i * 3e-9;

    double rows_start = ex_cpu_seconds();
    for (int r = 0; r < b->nrows; r++) {
        double t0 = ex_cpu_seconds();
        while (ex_cpu_seconds() - t0 < b->row_seconds)
            for (int i = 0; i < EX_INNER / 10; i++) acc += i * 1e-9;
        b->rows[r] = acc;
    }
    return ex_cpu_seconds() - rows_start;
}

static int fair_rows(int size) { return ROWS / size > 0 ? ROWS / size : 1; }
static int is_heavy(int rank, int size) { return size > 1 && rank == size - 1; }

struct params { double row_seconds, boundary_seconds; };

/* CPU model (ex_model_saving): one phase per iteration, boundary plus rows. */
static double work(int rank, int size, int defect, int phase, const void *ctx)
{
    const struct params *pr = (const struct params *)ctx;
    double rows = fair_rows(size) * (defect && is_heavy(rank, size) ? HEAVY_FACTOR : 1.0);
    (void)phase;
    return pr->boundary_seconds + rows * pr->row_seconds;
}

int main(int argc, char **argv)
{
    struct ex_run run;
    ex_init(&run, &argc, &argv, "inlined_helper");
    int heavy = run.defect && is_heavy(run.rank, run.size);
    static struct block b;
    b.nrows = (int)(fair_rows(run.size) * (heavy ? HEAVY_FACTOR : 1.0));
    b.row_seconds = run.scale * TOTAL_WORK / (fair_rows(run.size) * run.size) / NITER;
    b.boundary_seconds = run.scale * BOUNDARY_WORK / run.size / NITER;
    double spent = 0.0, residual = 0.0;

    enum { STMT = __LINE__ + 2 };   /* the statement that runs the helper, two lines down */
    for (int it = 0; it < NITER; it++) {
        spent += sweep_block(&b);
        MPI_Allreduce(&spent, &residual, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }

    double fair = fair_rows(run.size) * b.row_seconds * NITER;
    struct params pr = { b.row_seconds, b.boundary_seconds };
    struct ex_truth truth = { "load_imbalance", __FILE__, PLANTED_FIRST, PLANTED_LAST, STMT, STMT,
                              "sweep_block", "sweep_block" };
    struct ex_result res = { heavy, spent * (1.0 - (double)fair_rows(run.size) / b.nrows), (HEAVY_FACTOR - 1.0) * fair,
                             ex_model_saving(run.size, ex_cores(), NITER, 1, work, &pr), -1.0 };
    ex_report(&run, &truth, &res);
    MPI_Finalize();
    return 0;
}
