/* two_culprits.c — the what-if test's program (tests/e2e/whatif.py): two load
 * imbalances of different size on different processes before one collective.
 * Strong scaling: 1.2 CPU seconds of common work (scale 1) split over the
 * processes, 20 iterations each ending in an MPI_Allreduce.  With --defect=on
 * (the default, -DEX_DEFECT_DEFAULT=0 builds it off) the last rank also runs
 * smooth_rows() for 0.6 s and rank 0 (p > 1) sweep_columns() for 0.3 s, in all
 * iterations together: each is a root cause on its own, but with a core per
 * process the iteration waits for the slower of the two, so fixing both saves
 * 0.6 s, not the 0.9 s the two costs add up to, and fixing the larger alone
 * saves 0.3 s.  Prints the loop's wall seconds, its run time with a core per
 * process ("critical CPU": the sum over iterations of the slowest process's CPU
 * seconds, which other load on the machine does not change) and both ranks'
 * extra work. */
#include "common/example.h"

#define NITER 20
#define COMMON_WORK 1.2   /* CPU seconds over all ranks */
#define ROWS_EXTRA 0.6    /* the last rank's extra CPU seconds (the larger culprit) */
#define COLUMNS_EXTRA 0.3 /* rank 0's extra CPU seconds (the smaller) */

static double busy(double seconds)
{
    volatile double acc = 0.0;
    double start = ex_cpu_seconds();
    while (ex_cpu_seconds() - start < seconds)
        for (int i = 0; i < EX_INNER; i++) acc += i * 1e-9;
    return ex_cpu_seconds() - start;
}

static double smooth_rows(double seconds)
{
    volatile double acc = 0.0;
    double start = ex_cpu_seconds();
    while (ex_cpu_seconds() - start < seconds)
        for (int i = 0; i < EX_INNER; i++) acc += i * 2e-9;
    return ex_cpu_seconds() - start;
}

static double sweep_columns(double seconds)
{
    volatile double acc = 0.0;
    double start = ex_cpu_seconds();
    while (ex_cpu_seconds() - start < seconds)
        for (int i = 0; i < EX_INNER; i++) acc += i * 3e-9;
    return ex_cpu_seconds() - start;
}

int main(int argc, char **argv)
{
    struct ex_run run;
    ex_init(&run, &argc, &argv, "two_culprits");
    int two = run.defect && run.size > 1;
    double common = run.scale * COMMON_WORK / run.size / NITER;
    double rows = two && run.rank == run.size - 1 ? run.scale * ROWS_EXTRA / NITER : 0;
    double columns = two && run.rank == 0 ? run.scale * COLUMNS_EXTRA / NITER : 0;
    /* critical: the loop's run time with a core per process, whatever else runs on
     * the machine: each iteration lasts as long as its slowest process's CPU time
     * (the Allreduce returns the largest) */
    double critical = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int it = 0; it < NITER; it++) {
        double start = ex_cpu_seconds(), mine, slowest;
        busy(common);
        if (rows > 0) smooth_rows(rows);
        if (columns > 0) sweep_columns(columns);
        mine = ex_cpu_seconds() - start;
        MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        critical += slowest;
    }
    double wall = MPI_Wtime() - t0, max;
    MPI_Reduce(&wall, &max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (run.rank == 0)
        printf("two_culprits: %d processes, defect %s, loop wall %.3f s, critical CPU %.3f s, extra rows "
               "%.3f s (rank %d), columns %.3f s (rank 0)\n", run.size, run.defect ? "on" : "off", max, critical,
               two ? run.scale * ROWS_EXTRA : 0.0, run.size - 1, two ? run.scale * COLUMNS_EXTRA : 0.0);
    MPI_Finalize();
    return 0;
}
