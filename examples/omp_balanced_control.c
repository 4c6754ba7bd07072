/* omp_balanced_control.c — the OpenMP control (MPI + OpenMP, run with
 * OMP_NUM_THREADS=2): a well-balanced program.  Weak scaling: every iteration of
 * every process relaxes its equal rows in a parallel loop (0.6 CPU seconds per
 * process at scale 1, split evenly between the threads by the static schedule),
 * then checks convergence with a one-double MPI_Allreduce.  Nothing is planted:
 * --defect is accepted for uniformity and changes nothing.  The analysis must
 * report no root cause above 1 % of the run time. */
#include "common/example_omp.h"

#define NITER 20              /* iterations */
#define WORK 0.6              /* CPU seconds of relaxation per process */
#define NROWS 64              /* rows, equal */

int main(int argc, char **argv)
{
    struct ex_run run;
    ex_init(&run, &argc, &argv, "omp_balanced_control");
    double row = run.scale * WORK / NITER / NROWS;
    double spent = 0.0, residual = 0.0;

    for (int it = 0; it < NITER; it++) {
        spent += ex_omp_rows(row, NROWS);
        MPI_Allreduce(&spent, &residual, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }

    struct ex_truth truth = { NULL, __FILE__, 0, 0, 0, 0, "", NULL };
    struct ex_result res = { 0, 0.0, 0.0, -1.0, -1.0, -1.0 };
    ex_report(&run, &truth, &res);
    MPI_Finalize();
    return 0;
}
