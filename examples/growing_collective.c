/* growing_collective.c — planted defect: a collective whose cost grows with p.
 * Strong scaling: every iteration relaxes this rank's cells (2.4 CPU seconds over
 * all ranks, at scale 1) and then needs the global sum of a 512 Ki-double vector.
 * With --defect=on every rank gathers every other rank's whole vector with
 * MPI_Allgather and sums them itself: the bytes each rank receives grow like p.
 * With --defect=off it sums its own vector and MPI_Allreduce combines one double. */
#include "common/example.h"

#define NITER 40              /* iterations */
#define TOTAL_WORK 2.4        /* CPU seconds of relaxation over all ranks */
#define VECTOR (512 * 1024)   /* doubles per rank gathered by the planted collective */

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
    ex_init(&run, &argc, &argv, "growing_collective");
    run.same_at_one = 0;   /* the defect changes the collective even at 1 process */
    double share = run.scale * TOTAL_WORK / run.size / NITER;   /* per iteration */
    double *vec = malloc(sizeof(double) * VECTOR);
    double *all = malloc(sizeof(double) * VECTOR * (size_t)run.size);
    for (int i = 0; i < VECTOR; i++) vec[i] = run.rank + i * 1e-6;
    double spent = 0.0, in_collective = 0.0, global = 0.0;

    enum { PLANTED_FIRST = __LINE__ + 5, PLANTED_LAST = PLANTED_FIRST };
    for (int it = 0; it < NITER; it++) {
        spent += relax_cells(share);
        double t0 = MPI_Wtime();
        if (run.defect) {
            MPI_Allgather(vec, VECTOR, MPI_DOUBLE, all, VECTOR, MPI_DOUBLE, MPI_COMM_WORLD);
            global = all[(size_t)it * VECTOR % ((size_t)VECTOR * run.size)];
        } else {
            double local = vec[it] + spent;
            MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        }
        in_collective += MPI_Wtime() - t0;
    }

    /* Ground truth: the wall seconds spent in the planted collective, on every rank. */
    struct ex_truth truth = { "growing_communication", __FILE__, PLANTED_FIRST, PLANTED_LAST,
                              PLANTED_FIRST, PLANTED_LAST, "main", NULL };
    ex_report_comm(&run, &truth, in_collective);
    free(vec);
    free(all);
    MPI_Finalize();
    return 0;
}
