/* relax_nodebug.c -- a planted load imbalance for a build without -g (plain
 * `mpicc -O2`, profiled through LD_PRELOAD): with p > 1, rank 0 relaxes three
 * times the cells of every other rank in relax() before the MPI_Allreduce of
 * each step, so the others wait there.  Strong scaling: 0.8 CPU seconds of
 * relaxation in all at every p.  relax() is kept out of line, as a solver's
 * kernel in its own file would be: with neither DWARF nor a PSG, a function is
 * the finest thing the report can name.  Test: tests/analyzer/nodebug.sh. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Relaxes this rank's cells for `seconds` of CPU time; returns the residual. */
__attribute__((noinline)) double relax(double seconds)
{
    double acc = 0, t0 = cpu_seconds();
    while (cpu_seconds() - t0 < seconds)
        for (int i = 1; i <= 20000; i++) acc = acc * 0.9999999 + i * 1e-9;
    return acc;
}

int main(int argc, char **argv)
{
    int rank, nprocs;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    const int steps = 20;
    double share = 0.04 / (nprocs + (nprocs > 1 ? 2 : 0)), total = 0;
    if (nprocs > 1 && rank == 0) share *= 3;
    for (int it = 0; it < steps; it++) {
        double r = relax(share);
        MPI_Allreduce(&r, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0) printf("relaxed on %d ranks\n", nprocs);
    MPI_Finalize();
    return 0;
}
