/* inlined_helper.c — planted defect: load imbalance in a loop of a static helper
 * that -O2 inlines into main.  Strong scaling: 1.6 CPU seconds of row relaxation
 * (at scale 1), plus a balanced boundary smoothing (0.2 CPU seconds in all) in the
 * same helper.  With --defect=on the last rank (p > 1) owns three times the rows
 * of every other rank (its excess is extra work: with the defect off it owns what the others own); everyone else waits in
 * MPI_Allreduce.
 * The helper holds two loops and no MPI: only the row loop is the cause, not the
 * helper as a whole, not the boundary loop, not the call line in main. */
#include "common/example.h"

#define NITER 20              /* iterations, each ending in an MPI_Allreduce */
#define TOTAL_WORK 1.6        /* CPU seconds of row relaxation over all ranks */
#define BOUNDARY_WORK 0.2     /* CPU seconds of boundary smoothing over all ranks */
#define ROW_PARTS 4           /* rows per part: a light rank owns 1 part */
#define HEAVY_PARTS 3.0       /* the heavy rank's parts */

struct block {
    int nrows;                /* rows this rank owns */
    double row_seconds;       /* CPU seconds to relax one row */
    double boundary_seconds;  /* CPU seconds of boundary smoothing per sweep */
    double rows[ROW_PARTS * 4];
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

static int is_heavy(int rank, int size) { return size > 1 && rank == size - 1; }

struct params { double rows_seconds, boundary_seconds; };   /* per iteration, all ranks / each */

/* CPU seconds of one iteration (ex_model_saving: one phase), boundary plus rows. */
static double work(int rank, int size, int defect, int phase, const void *ctx)
{
    const struct params *pr = (const struct params *)ctx;
    (void)phase;
    return pr->boundary_seconds + pr->rows_seconds * ex_parts(defect && is_heavy(rank, size), HEAVY_PARTS) /
                                      size;
}

int main(int argc, char **argv)
{
    struct ex_run run;
    ex_init(&run, &argc, &argv, "inlined_helper");
    int heavy = run.defect && is_heavy(run.rank, run.size);
    struct params pr = { run.scale * TOTAL_WORK / NITER, run.scale * BOUNDARY_WORK / run.size / NITER };
    static struct block b;
    b.nrows = (int)(ROW_PARTS * ex_parts(run.defect && is_heavy(run.rank, run.size), HEAVY_PARTS));
    b.row_seconds = pr.rows_seconds /
                    (ROW_PARTS * run.size);
    b.boundary_seconds = pr.boundary_seconds;
    double spent = 0.0, residual = 0.0;

    enum { STMT = __LINE__ + 2 };   /* the statement that runs the helper, two lines down */
    for (int it = 0; it < NITER; it++) {
        spent += sweep_block(&b);
        MPI_Allreduce(&spent, &residual, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }

    /* Extra CPU seconds against the defect-off program (the rows split evenly). */
    double fair = pr.rows_seconds / run.size, mine = b.nrows * b.row_seconds;
    double heavy_extra = (work(run.size - 1, run.size, 1, 0, &pr) - pr.boundary_seconds - fair) * NITER;
    struct ex_truth truth = { "load_imbalance", __FILE__, PLANTED_FIRST, PLANTED_LAST, STMT, STMT,
                              "sweep_block", "sweep_block" };
    struct ex_result res = { heavy, heavy ? spent * (1.0 - fair / mine) : 0.0, heavy_extra,
                             -1.0, -1.0, -1.0 };
    EX_MODEL_SAVINGS(&res, run.size, NITER, 1, work, &pr);
    ex_report(&run, &truth, &res);
    MPI_Finalize();
    return 0;
}
