/* serial_section.c — planted defect: a serial section on one rank.
 * Strong scaling: every iteration first prepares boundary values (1.0 CPU second
 * in all, at scale 1), then relaxes the domain (2.4 CPU seconds over all ranks).
 * With --defect=on rank 0 prepares all boundary values alone and broadcasts them
 * while every other rank waits in MPI_Bcast (Amdahl); with --defect=off each rank
 * prepares its slice and MPI_Allgather assembles them. */
#include "common/example.h"

#define NITER 20              /* iterations */
#define TOTAL_WORK 2.4        /* CPU seconds of relaxation over all ranks */
#define SERIAL_WORK 1.0       /* CPU seconds of boundary preparation over all ranks */
#define NBOUNDARY 64          /* boundary values per rank */

/* The planted loop is the while loop, lines FUNC+4 and FUNC+5. */
enum { PLANTED_FUNC = __LINE__ + 1, PLANTED_FIRST = PLANTED_FUNC + 4, PLANTED_LAST = PLANTED_FUNC + 5 };
static double prepare_boundary(double seconds)   /* CPU seconds of boundary preparation */
{
    volatile double acc = 0.0;
    double start = ex_cpu_seconds();
    while (ex_cpu_seconds() - start < seconds)
        for (int i = 0; i < EX_INNER; i++) acc += i * 1e-9;
    return ex_cpu_seconds() - start;
}

struct params { double serial, share; };

/* CPU model (ex_model_saving): phase 0 prepares the boundary (all of it on rank 0
 * with the defect on, 1/p on every rank with it off), phase 1 relaxes. */
static double work(int rank, int size, int defect, int phase, const void *ctx)
{
    const struct params *pr = (const struct params *)ctx;
    if (phase == 1) return pr->share;
    if (!defect) return pr->serial / size;
    return rank == 0 ? pr->serial : 0.0;
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
    ex_init(&run, &argc, &argv, "serial_section");
    run.same_at_one = 0;   /* the defect changes the collective even at 1 process */
    double serial = run.scale * SERIAL_WORK / NITER;            /* per iteration */
    double share = run.scale * TOTAL_WORK / run.size / NITER;   /* per iteration */
    double *bnd = calloc((size_t)NBOUNDARY * run.size, sizeof(double));
    double prepared = 0.0, spent = 0.0, residual = 0.0;

    enum { STMT = __LINE__ + 3 };   /* the planted statement, three lines down */
    for (int it = 0; it < NITER; it++) {
        if (run.defect) {
            if (run.rank == 0) prepared += prepare_boundary(serial);
            MPI_Bcast(bnd, NBOUNDARY * run.size, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        } else {
            prepared += prepare_boundary(serial / run.size);
            MPI_Allgather(MPI_IN_PLACE, NBOUNDARY, MPI_DOUBLE, bnd, NBOUNDARY, MPI_DOUBLE,
                          MPI_COMM_WORLD);
        }
        spent += relax_cells(share);
        MPI_Allreduce(&spent, &residual, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }

    /* Extra CPU seconds against the defect-off program, which gives every rank
     * serial/p per iteration. */
    int planted = run.defect && run.size > 1 && run.rank == 0;
    double extra = planted ? prepared - serial / run.size * NITER : 0.0;
    struct ex_truth truth = { "serial_bottleneck", __FILE__, PLANTED_FIRST, PLANTED_LAST, STMT, STMT,
                              "prepare_boundary", NULL };
    struct params pr = { serial, share };
    struct ex_result res = { planted, extra, serial * NITER * (1.0 - 1.0 / run.size),
                             -1.0, -1.0, -1.0 };
    EX_MODEL_SAVINGS(&res, run.size, NITER, 2, work, &pr);
    ex_report(&run, &truth, &res);
    free(bnd);
    MPI_Finalize();
    return 0;
}
