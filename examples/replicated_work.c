/* replicated_work.c — planted defect: replicated work that does not shrink with p.
 * Strong scaling: every iteration builds an interpolation table (0.5 CPU seconds
 * in all, at scale 1), checks it with MPI_Allreduce, then relaxes the domain
 * (2.4 CPU seconds over all ranks).  With --defect=on every rank builds the whole
 * table (replicated: the same 0.5 s at any p); with --defect=off each rank builds
 * its 1/p slice. */
#include "common/example.h"

#define NITER 20              /* iterations */
#define TOTAL_WORK 2.4        /* CPU seconds of relaxation over all ranks */
#define TABLE_WORK 0.5        /* CPU seconds to build the whole table */

/* The planted loop is the while loop, lines FUNC+4 and FUNC+5. */
enum { PLANTED_FUNC = __LINE__ + 1, PLANTED_FIRST = PLANTED_FUNC + 4, PLANTED_LAST = PLANTED_FUNC + 5 };
static double build_table(double seconds)   /* CPU seconds of table building */
{
    volatile double acc = 0.0;
    double start = ex_cpu_seconds();
    while (ex_cpu_seconds() - start < seconds)
        for (int i = 0; i < EX_INNER; i++) acc += i * 1e-9;
    return ex_cpu_seconds() - start;
}

struct params { double table, share; };

/* CPU model (ex_model_saving): phase 0 builds the table (all of it on every rank
 * with the defect on, 1/p with it off), phase 1 relaxes. */
static double work(int rank, int size, int defect, int phase, const void *ctx)
{
    const struct params *pr = (const struct params *)ctx;
    (void)rank;
    if (phase == 1) return pr->share;
    return defect ? pr->table : pr->table / size;
}

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
    ex_init(&run, &argc, &argv, "replicated_work");
    double table = run.scale * TABLE_WORK / NITER;              /* whole table, per iteration */
    double slice = run.defect ? table : table / run.size;       /* what this rank builds */
    double share = run.scale * TOTAL_WORK / run.size / NITER;   /* per iteration */
    double built = 0.0, spent = 0.0, check = 0.0, residual = 0.0;

    enum { STMT = __LINE__ + 2 };   /* the planted statement, two lines down */
    for (int it = 0; it < NITER; it++) {
        built += build_table(slice);
        MPI_Allreduce(&built, &check, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        spent += relax_cells(share);
        MPI_Allreduce(&spent, &residual, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }

    /* Extra CPU seconds against the defect-off program (table/p per iteration). */
    int planted = run.defect && run.size > 1;
    double extra = planted ? built - table / run.size * NITER : 0.0;
    struct ex_truth truth = { "non_scalable_computation", __FILE__, PLANTED_FIRST, PLANTED_LAST,
                              STMT, STMT, "build_table", NULL };
    struct params pr = { table, share };
    struct ex_result res = { planted, extra, table * NITER * (1.0 - 1.0 / run.size),
                             -1.0, -1.0, -1.0 };
    EX_MODEL_SAVINGS(&res, run.size, NITER, 2, work, &pr);
    ex_report(&run, &truth, &res);
    MPI_Finalize();
    return 0;
}
