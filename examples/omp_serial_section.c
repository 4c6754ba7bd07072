/* omp_serial_section.c — planted defect: serial code between two parallel regions
 * (MPI + OpenMP, run with OMP_NUM_THREADS=2).  Weak scaling: every iteration of
 * every process smooths its cells in one parallel region, prepares its boundary
 * values, and relaxes its cells in a second parallel region (0.4 CPU seconds of
 * parallel work and 0.3 of boundary preparation per process at scale 1; 20
 * iterations, each ending in an MPI_Allreduce).  With --defect=on the master
 * thread prepares the boundary alone, between the regions, while the other thread
 * idles; with --defect=off the boundary loop is a parallel loop of its own.  The
 * processes stay balanced: every one runs the same serial section. */
#include "common/example_omp.h"

#define NITER 20              /* iterations, each ending in an MPI_Allreduce */
#define PARALLEL_WORK 0.4     /* CPU seconds of smoothing and relaxation per process */
#define SERIAL_WORK 0.3       /* CPU seconds of boundary preparation per process */
#define NROWS 32              /* rows of each parallel loop */
#define THREADS 2             /* the team the ground truth assumes (OMP_NUM_THREADS) */

/* The planted loop is the while loop, lines FUNC+4 and FUNC+5. */
enum { PLANTED_FUNC = __LINE__ + 1, PLANTED_FIRST = PLANTED_FUNC + 4, PLANTED_LAST = PLANTED_FUNC + 5 };
static double prepare_boundary(double seconds)   /* CPU seconds of boundary preparation */
{
    volatile double acc = 0.0;
    double start = ex_cpu_seconds();
    while (ex_cpu_seconds() - start < seconds)
        for (int i = 0; i < EX_INNER / 10; i++) acc += i * 1e-9;
    return ex_cpu_seconds() - start;
}

int main(int argc, char **argv)
{
    struct ex_run run;
    ex_init(&run, &argc, &argv, "omp_serial_section");
    run.same_at_one = 0;   /* the section is serial at 1 process too */
    double row = run.scale * PARALLEL_WORK / NITER / 2 / NROWS;   /* two regions per iteration */
    double serial = run.scale * SERIAL_WORK / NITER;              /* per iteration */
    double spent = 0.0, prepared = 0.0, residual = 0.0;

    enum { STMT = __LINE__ + 4 };   /* the planted statement, four lines down */
    for (int it = 0; it < NITER; it++) {
        spent += ex_omp_rows(row, NROWS);
        if (run.defect)
            prepared += prepare_boundary(serial);
        else
            prepared += ex_omp_rows(serial / NROWS, NROWS);
        spent += ex_omp_rows(row, NROWS);
        MPI_Allreduce(&spent, &residual, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }

    /* with a core per thread the section spread over the team takes 1/THREADS of it */
    double saving = run.defect ? serial * NITER * (1.0 - 1.0 / THREADS) : 0.0;
    struct ex_truth truth = { "serial_bottleneck", __FILE__, PLANTED_FIRST, PLANTED_LAST, STMT, STMT,
                              "prepare_boundary", NULL };
    struct ex_result res = { run.defect, run.defect ? prepared * (1.0 - 1.0 / THREADS) : 0.0, saving,
                             saving, saving, -1.0 };
    ex_report(&run, &truth, &res);
    MPI_Finalize();
    return 0;
}
