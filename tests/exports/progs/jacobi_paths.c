/* jacobi_paths.c — a user's 1-D Jacobi solver whose call paths differ between
 * process counts: the input of the export tests (tests/exports), a program
 * that nobody planted for the analyzer.  Strong scaling over NCELLS cells:
 *
 *   - relax():              the sweeps, RELAX_SECONDS of CPU over all processes;
 *   - exchange_halos():     MPI_Sendrecv with both neighbours, called only when
 *                           there is a neighbour (p > 1);
 *   - build_ghost_table():  a loop over every rank, GHOST_SECONDS of CPU per rank
 *                           and iteration and process: its time per process grows
 *                           like p (the growing cost a scaling model must show);
 *   - coarse_correction():  a two-level correction switched on from COARSE_FROM
 *                           processes (its loop and MPI_Allreduce exist at p >= 4);
 *   - write_checkpoint():   a serial code path taken only by a one-process run;
 *   - the residual's MPI_Allreduce every RESIDUAL_EVERY iterations, at every p.
 *
 * Work is measured in CPU seconds of the calling thread (not in sweeps), so the
 * profile is the same on a loaded machine and under oversubscription.  The
 * functions are kept out of line so that the call paths are the ones the
 * comments name at any optimisation level.  Prints one line:
 * "jacobi_paths: processes P iterations N residual R". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NCELLS (1 << 16)       /* cells over all processes */
#define NITER 50               /* iterations */
#define RESIDUAL_EVERY 10      /* iterations between two residual reductions */
#define RELAX_SECONDS 1.2      /* CPU seconds of sweeps over all processes */
#define GHOST_SECONDS 0.001    /* CPU seconds per rank in the table, per iteration */
#define COARSE_SECONDS 0.002   /* CPU seconds of the coarse correction per iteration */
#define COARSE_FROM 4          /* processes from which the coarse correction runs */
#define CHECKPOINT_SECONDS 0.1 /* CPU seconds of the serial checkpoint */
#define NOINLINE __attribute__((noinline))

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Jacobi sweeps over u[1..n] (u[0], u[n+1]: halo cells) for `seconds` of CPU. */
static NOINLINE void relax(double *u, double *v, int n, double seconds)
{
    double start = cpu_seconds();
    do {
        for (int i = 1; i <= n; i++) v[i] = 0.5 * (u[i - 1] + u[i + 1]);
        memcpy(u + 1, v + 1, sizeof(double) * (size_t)n);
    } while (cpu_seconds() - start < seconds);
}

/* Halo cells from the neighbours (MPI_PROC_NULL at the ends of the domain). */
static NOINLINE void exchange_halos(double *u, int n, int rank, int size)
{
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL, right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 0, &u[n + 1], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
}

/* A table entry per rank, each costing GHOST_SECONDS: the time grows like p. */
static NOINLINE double build_ghost_table(int size)
{
    volatile double acc = 0.0;
    for (int r = 0; r < size; r++) {
        double start = cpu_seconds();
        while (cpu_seconds() - start < GHOST_SECONDS)
            for (int k = 0; k < 1000; k++) acc += k * 1e-9 * (r + 1);
    }
    return acc;
}

/* Coarse-grid correction: a smoothing loop and the global coarse sum. */
static NOINLINE void coarse_correction(double *u, int n)
{
    double start = cpu_seconds(), local = 0.0, global = 0.0;
    while (cpu_seconds() - start < COARSE_SECONDS)
        for (int i = 1; i <= n; i += 64) local += u[i] * 1e-3;
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    u[1] += global * 1e-12;
}

/* The serial code path: a checksum of the whole field, as a checkpoint. */
static NOINLINE double write_checkpoint(const double *u, int n)
{
    double start = cpu_seconds(), sum = 0.0;
    while (cpu_seconds() - start < CHECKPOINT_SECONDS)
        for (int i = 1; i <= n; i++) sum += u[i] * 1e-9;
    return sum;
}

static NOINLINE double residual(const double *u, int n)
{
    double local = 0.0, global = 0.0;
    for (int i = 1; i <= n; i++) local += (u[i - 1] + u[i + 1] - 2.0 * u[i]) * (u[i - 1] + u[i + 1] - 2.0 * u[i]);
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return global;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = NCELLS / size;
    double *u = calloc((size_t)n + 2, sizeof *u), *v = calloc((size_t)n + 2, sizeof *v);
    if (!u || !v) MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 1; i <= n; i++) u[i] = (double)((rank * n + i) % 97);
    double res = 0.0, table = 0.0;
    for (int it = 0; it < NITER; it++) {
        if (size > 1) exchange_halos(u, n, rank, size);
        relax(u, v, n, RELAX_SECONDS / size / NITER);
        table += build_ghost_table(size);
        if (size >= COARSE_FROM) coarse_correction(u, n);
        if ((it + 1) % RESIDUAL_EVERY == 0) res = residual(u, n);
    }
    if (size == 1) table += write_checkpoint(u, n);
    if (rank == 0) printf("jacobi_paths: processes %d iterations %d residual %g\n", size, NITER, res + 0.0 * table);
    free(u);
    free(v);
    MPI_Finalize();
    return 0;
}
