/* growing_halo.c — planted defect: a halo exchange whose share of the time grows
 * as the subdomains shrink (surface to volume).  Strong scaling: a grid of
 * NCOLS x NROWS cells (1.2 CPU seconds of relaxation over all
 * ranks, at scale 1) is cut into p slabs; every iteration each rank relaxes its
 * slab and swaps one boundary line with each neighbour (MPI_Irecv, MPI_Isend,
 * MPI_Waitall).  The relaxation per rank shrinks like 1/p; the halo per rank does
 * not.  With --defect=on the slabs are cut across the long side of the grid, so
 * every boundary line holds NCOLS = 1 Mi doubles (8 MiB each way per neighbour);
 * with --defect=off they are cut across the short side, and a line holds
 * NROWS = 4 Ki doubles (the same cells, 256 times less halo, in messages
 * small enough to be latency-bound). */
#include "common/example.h"

#define NITER 20              /* iterations */
#define TOTAL_WORK 1.2        /* CPU seconds of relaxation over all ranks */
#define NCOLS (1024 * 1024)   /* the long side: doubles per boundary line with the defect */
#define NROWS (4 * 1024)      /* the short side: without it */

/* Relaxation of this rank's slab: `seconds` of CPU work. */
static double relax_slab(double seconds)
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
    ex_init(&run, &argc, &argv, "growing_halo");
    double share = run.scale * TOTAL_WORK / run.size / NITER;   /* per iteration */
    int line = run.defect ? NCOLS : NROWS;                       /* doubles per halo line */
    int nbr[2] = { run.rank > 0 ? run.rank - 1 : MPI_PROC_NULL,
                   run.rank + 1 < run.size ? run.rank + 1 : MPI_PROC_NULL };
    double *out[2], *in[2];
    for (int k = 0; k < 2; k++) {
        out[k] = calloc((size_t)line, sizeof(double));
        in[k] = calloc((size_t)line, sizeof(double));
    }
    double in_halo = 0.0;

    enum { PLANTED_FIRST = __LINE__ + 11, PLANTED_LAST = PLANTED_FIRST };
    for (int it = 0; it < NITER; it++) {
        relax_slab(share);
        double t0 = MPI_Wtime();
        MPI_Request req[4];
        MPI_Status st[4];
        out[0][it] = out[1][it] = run.rank;
        for (int k = 0; k < 2; k++) {
            MPI_Irecv(in[k], line, MPI_DOUBLE, nbr[k], it, MPI_COMM_WORLD, &req[2 * k]);
            MPI_Isend(out[k], line, MPI_DOUBLE, nbr[k], it, MPI_COMM_WORLD, &req[2 * k + 1]);
        }
        MPI_Waitall(4, req, st);
        in_halo += MPI_Wtime() - t0;
    }

    /* Ground truth: the wall seconds spent in the planted halo exchange, on every rank. */
    struct ex_truth truth = { "halo_exchange", __FILE__, PLANTED_FIRST, PLANTED_LAST,
                              PLANTED_FIRST, PLANTED_LAST, "main", NULL };
    ex_report_comm(&run, &truth, in_halo);
    for (int k = 0; k < 2; k++) free(out[k]), free(in[k]);
    MPI_Finalize();
    return 0;
}
