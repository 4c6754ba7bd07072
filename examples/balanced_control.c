/* balanced_control.c — the control: a well-balanced, well-scaling program.
 * Strong scaling on a 1-D chain: every iteration relaxes this rank's cells
 * (2.4 CPU seconds over all ranks, at scale 1), exchanges halos with both
 * neighbours and checks convergence with a one-double MPI_Allreduce.  Nothing is
 * planted: --defect is accepted for uniformity and changes nothing.  The analysis
 * must report no root cause above 1 % of the run time. */
#include "common/example.h"

#define NITER 20              /* iterations */
#define TOTAL_WORK 2.4        /* CPU seconds of relaxation over all ranks */
#define HALO 1024             /* doubles per halo */

/* Balanced relaxation of this rank's cells: `seconds` of CPU work. */
static double relax_cells(double seconds)
{
    volatile double acc = 0.0;
    double start = ex_cpu_seconds();
    while (ex_cpu_seconds() - start < seconds)
        for (int i = 0; i < EX_INNER; i++) acc += i * 2e-9;
    return ex_cpu_seconds() - start;
}

/* Exchange halos with both neighbours on the chain (MPI_PROC_NULL at the ends). */
static void exchange_halos(const struct ex_run *run, double *send, double *recv)
{
    int left = run->rank > 0 ? run->rank - 1 : MPI_PROC_NULL;
    int right = run->rank < run->size - 1 ? run->rank + 1 : MPI_PROC_NULL;
    MPI_Request req[4];
    MPI_Irecv(recv, HALO, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(recv + HALO, HALO, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(send, HALO, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(send + HALO, HALO, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
}

int main(int argc, char **argv)
{
    struct ex_run run;
    ex_init(&run, &argc, &argv, "balanced_control");
    double share = run.scale * TOTAL_WORK / run.size / NITER;   /* per iteration */
    double *send = calloc(2 * HALO, sizeof(double)), *recv = calloc(2 * HALO, sizeof(double));
    double spent = 0.0, residual = 0.0;

    for (int it = 0; it < NITER; it++) {
        spent += relax_cells(share);
        exchange_halos(&run, send, recv);
        MPI_Allreduce(&spent, &residual, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }

    struct ex_truth truth = { NULL, __FILE__, 0, 0, 0, 0, "", NULL };
    struct ex_result res = { 0, 0.0, 0.0, -1.0, -1.0, -1.0 };
    ex_report(&run, &truth, &res);
    free(send);
    free(recv);
    MPI_Finalize();
    return 0;
}
