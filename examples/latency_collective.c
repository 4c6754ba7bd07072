/* latency_collective.c — planted defect: a latency-bound collective whose cost
 * grows with p.  Strong scaling: every iteration relaxes this rank's cells (1.2
 * CPU seconds over all ranks, at scale 1), then checks NFIELDS convergence
 * residuals.  With --defect=on it all-reduces them one double at a time: NFIELDS
 * small MPI_Allreduce calls per iteration, whose time per call (latency, log p
 * steps, and on a shared machine the wait for every process to be scheduled)
 * grows with p while the bytes stay 8.  With --defect=off one MPI_Allreduce
 * combines all NFIELDS residuals at once. */
#include "common/example.h"

#define NITER 20              /* iterations */
#define TOTAL_WORK 1.2        /* CPU seconds of relaxation over all ranks */
#define NFIELDS 768           /* residuals checked per iteration */

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
    ex_init(&run, &argc, &argv, "latency_collective");
    run.same_at_one = 0;   /* the defect changes the collective even at 1 process */
    double share = run.scale * TOTAL_WORK / run.size / NITER;   /* per iteration */
    double local[NFIELDS], global[NFIELDS];
    double spent = 0.0, in_collective = 0.0;

    /* The planted loop of small collectives: lines FIRST and FIRST+1. */
    enum { PLANTED_FIRST = __LINE__ + 6, PLANTED_LAST = PLANTED_FIRST + 1 };
    for (int it = 0; it < NITER; it++) {
        spent += relax_cells(share);
        for (int f = 0; f < NFIELDS; f++) local[f] = spent * (f + 1) + run.rank;
        double t0 = MPI_Wtime();
        if (run.defect) {
            for (int f = 0; f < NFIELDS; f++)
                MPI_Allreduce(&local[f], &global[f], 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        } else {
            MPI_Allreduce(local, global, NFIELDS, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        }
        in_collective += MPI_Wtime() - t0;
        if (global[0] < 0) printf("%g\n", global[0]);
    }

    /* Ground truth: the wall seconds spent in the planted collectives, on every rank. */
    struct ex_truth truth = { "growing_communication", __FILE__, PLANTED_FIRST, PLANTED_LAST,
                              PLANTED_FIRST + 1, PLANTED_FIRST + 1, "main", NULL };
    ex_report_comm(&run, &truth, in_collective);
    MPI_Finalize();
    return 0;
}
