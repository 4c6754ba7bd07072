/* persistent_collective.c — planted defect: load imbalance before a persistent
 * collective (MPI-4.0).  Strong scaling: a fixed amount of relaxation work (2.4
 * CPU seconds at scale 1) is split over the processes; every iteration ends in
 * one round of an MPI_Allreduce_init request (MPI_Start, MPI_Wait).  With
 * --defect=on the last rank (p > 1) owns three times the cells of every other
 * rank (the excess is extra work); everyone else waits for it in the persistent
 * collective's round.  With --defect=off every rank owns the same, 1/p of the work.
 * An MPI library without MPI-4.0 (Open MPI 4.1) has no MPI_Allreduce_init: there
 * the round is a plain MPI_Allreduce, with the same planted loop; the example's
 * e2e test runs the MPI-4.0 build (MPICH, examples.list). */
#include "common/example.h"

#define NITER 20              /* iterations, each ending in one round of the collective */
#define TOTAL_WORK 2.4        /* CPU seconds of relaxation over all ranks */
#define HEAVY_PARTS 3.0       /* the heavy rank's cells / a light rank's */

/* The planted loop is the while loop, lines FUNC+4 and FUNC+5. */
enum { PLANTED_FUNC = __LINE__ + 1, PLANTED_FIRST = PLANTED_FUNC + 4, PLANTED_LAST = PLANTED_FUNC + 5 };
static double relax_cells(double seconds)   /* CPU seconds of relaxation work */
{
    volatile double acc = 0.0;
    double start = ex_cpu_seconds();
    while (ex_cpu_seconds() - start < seconds)
        for (int i = 0; i < EX_INNER; i++) acc += i * 1e-9;
    return ex_cpu_seconds() - start;
}

static int is_heavy(int rank, int size) { return size > 1 && rank == size - 1; }

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
    ex_init(&run, &argc, &argv, "persistent_collective");
    int heavy = run.defect && is_heavy(run.rank, run.size);
    double per_iteration = run.scale * TOTAL_WORK / NITER;
    double mine = work(run.rank, run.size, run.defect, 0, &per_iteration);
    double fair = per_iteration / run.size;
    double spent = 0.0, residual = 0.0;
    double heavy_extra = (work(run.size - 1, run.size, 1, 0, &per_iteration) - fair) * NITER;
    struct ex_result res = { heavy, 0.0, heavy_extra, -1.0, -1.0, -1.0 };
    EX_MODEL_SAVINGS(&res, run.size, NITER, 1, work, &per_iteration);
#if MPI_VERSION >= 4
    /* One persistent request for all rounds: its buffers stay the same. */
    MPI_Request round;
    MPI_Allreduce_init(&spent, &residual, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL, &round);
#endif

    enum { STMT = __LINE__ + 2 };   /* the planted statement, two lines down */
    for (int it = 0; it < NITER; it++) {
        spent += relax_cells(mine);
#if MPI_VERSION >= 4
        MPI_Start(&round);
        MPI_Wait(&round, MPI_STATUS_IGNORE);
#else
        MPI_Allreduce(&spent, &residual, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
#endif
    }

#if MPI_VERSION >= 4
    MPI_Request_free(&round);
#endif
    struct ex_truth truth = { "load_imbalance", __FILE__, PLANTED_FIRST, PLANTED_LAST, STMT, STMT,
                              "relax_cells", NULL };
    res.extra_cpu_seconds = heavy * spent * (1.0 - fair / mine);   /* heavy: 0 or 1 */
    ex_report(&run, &truth, &res);
    MPI_Finalize();
    return 0;
}
