/* late_sender_chain.c — planted defect: a late sender in a halo exchange.
 * Strong scaling on a 1-D chain of processes: every iteration relaxes this rank's
 * cells (2.4 CPU seconds over all ranks, at scale 1), then exchanges halos with the
 * left and right neighbours (MPI_Irecv/MPI_Isend/MPI_Waitall).  With --defect=on
 * rank p/2 (p > 1) also updates its boundary conditions first (0.8 CPU seconds in
 * all): its neighbours wait for its halo, their own halos leave late in the next
 * iteration, and the wait ripples along the chain to both ends. */
#include "common/example.h"

#define NITER 20              /* iterations */
#define TOTAL_WORK 2.4        /* CPU seconds of relaxation over all ranks */
#define LATE_WORK 0.8         /* CPU seconds of the late rank's extra work */
#define HALO 1024             /* doubles per halo */

/* The planted loop is the while loop, lines FUNC+4 and FUNC+5. */
enum { PLANTED_FUNC = __LINE__ + 1, PLANTED_FIRST = PLANTED_FUNC + 4, PLANTED_LAST = PLANTED_FUNC + 5 };
static double update_boundary(double seconds)   /* CPU seconds of boundary work */
{
    volatile double acc = 0.0;
    double start = ex_cpu_seconds();
    while (ex_cpu_seconds() - start < seconds)
        for (int i = 0; i < EX_INNER; i++) acc += i * 1e-9;
    return ex_cpu_seconds() - start;
}

struct params { double share, extra; };

/* CPU model (ex_model_saving): one phase per iteration, the late rank's boundary
 * update and everybody's relaxation (the halo exchange couples the chain). */
static double work(int rank, int size, int defect, int phase, const void *ctx)
{
    const struct params *pr = (const struct params *)ctx;
    (void)phase;
    return pr->share + (defect && size > 1 && rank == size / 2 ? pr->extra : 0.0);
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
    ex_init(&run, &argc, &argv, "late_sender_chain");
    int late = run.defect && run.size > 1 && run.rank == run.size / 2;
    double share = run.scale * TOTAL_WORK / run.size / NITER;   /* per iteration */
    double extra = late ? run.scale * LATE_WORK / NITER : 0.0;  /* per iteration */
    double *send = calloc(2 * HALO, sizeof(double)), *recv = calloc(2 * HALO, sizeof(double));
    double spent = 0.0, delayed = 0.0, residual = 0.0;
    /* The model savings before the iteration loop, so that the code after it stays
     * straight-line (tests/plugin/examples.test pins it). */
    struct params pr = { share, run.scale * LATE_WORK / NITER };
    struct ex_result res = { late, 0.0, run.scale * LATE_WORK, -1.0, -1.0, -1.0 };
    EX_MODEL_SAVINGS(&res, run.size, NITER, 1, work, &pr);

    enum { STMT = __LINE__ + 2 };   /* the planted statement, two lines down */
    for (int it = 0; it < NITER; it++) {
        if (late) delayed += update_boundary(extra);
        exchange_halos(&run, send, recv);
        spent += relax_cells(share);
    }
    MPI_Allreduce(&spent, &residual, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

    struct ex_truth truth = { "late_sender", __FILE__, PLANTED_FIRST, PLANTED_LAST, STMT, STMT,
                              "update_boundary", NULL };
    res.extra_cpu_seconds = delayed;
    ex_report(&run, &truth, &res);
    free(send);
    free(recv);
    MPI_Finalize();
    return 0;
}
