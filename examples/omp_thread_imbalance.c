/* omp_thread_imbalance.c — planted defect: load imbalance among the threads of
 * every process (MPI + OpenMP, run with OMP_NUM_THREADS=2).  Weak scaling: every
 * process relaxes a triangular block of its own, 0.8 CPU seconds per process at
 * scale 1 (row r costs r + 1/2 units), in a parallel loop with schedule(static);
 * 20 iterations, each ending in an MPI_Allreduce.  With --defect=on the rows run
 * in order, so the static schedule gives the second thread the long half (3/4 of
 * the work) while the first waits at the region's barrier; with --defect=off the
 * rows are dealt in pairs of a short and a long one, and each thread gets half.
 * The processes stay balanced: no process waits for another. */
#include "common/example.h"

#define NITER 20              /* iterations, each ending in an MPI_Allreduce */
#define WORK 0.8              /* CPU seconds of relaxation per process */
#define NROWS 64              /* rows of the triangle */
#define THREADS 2             /* the team the ground truth assumes (OMP_NUM_THREADS) */

/* The planted loop is the parallel loop: its pragma (FUNC+3) to its brace (FUNC+11). */
enum { PLANTED_FUNC = __LINE__ + 1, PLANTED_FIRST = PLANTED_FUNC + 3, PLANTED_LAST = PLANTED_FUNC + 11 };
static double relax_triangle(double unit, int defect)   /* unit: CPU seconds of row cost 1 */
{
    double spent = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : spent)
    for (int k = 0; k < NROWS; k++) {
        int row = defect ? k : (k % 2 ? NROWS - 1 - k / 2 : k / 2);
        volatile double acc = 0.0;
        double start = ex_cpu_seconds();
        while (ex_cpu_seconds() - start < unit * (row + 0.5))
            for (int i = 0; i < EX_INNER / 10; i++) acc += i * 1e-9;
        spent += ex_cpu_seconds() - start;
    }
    return spent;
}

int main(int argc, char **argv)
{
    struct ex_run run;
    ex_init(&run, &argc, &argv, "omp_thread_imbalance");
    run.same_at_one = 0;   /* the threads are out of balance at 1 process too */
    double per_iteration = run.scale * WORK / NITER;
    double unit = per_iteration / (NROWS * NROWS / 2.0);   /* rows cost 1/2 .. NROWS - 1/2 */
    double spent = 0.0, residual = 0.0;

    enum { STMT = __LINE__ + 2 };   /* the planted statement, two lines down */
    for (int it = 0; it < NITER; it++) {
        spent += relax_triangle(unit, run.defect);
        MPI_Allreduce(&spent, &residual, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }

    /* with a core per thread the region ends with the long half, 3/4 of the rows'
     * work, against 1/2 balanced: every process saves 1/4 of its work */
    double saving = run.defect ? per_iteration * (0.75 - 1.0 / THREADS) * NITER : 0.0;
    struct ex_truth truth = { "thread_imbalance", __FILE__, PLANTED_FIRST, PLANTED_LAST, STMT, STMT,
                              "relax_triangle", NULL };
    struct ex_result res = { run.defect, run.defect ? spent * 0.25 : 0.0, saving, saving, saving, -1.0 };
    ex_report(&run, &truth, &res);
    MPI_Finalize();
    return 0;
}
