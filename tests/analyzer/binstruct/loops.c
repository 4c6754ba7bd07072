/* loops.c — input of the binstruct test (tests/binstruct/CMakeLists.txt):
 * built with the system mpicc -O2 -g; the test asserts the loops, their
 * lines, nesting and owning functions that scalana-binstruct recovers from
 * the machine code.  Keep line numbers in step with check_loops.py. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double grid[64][64];

/* An inlined helper with one loop (lines 14-15). */
static inline double relax(double *row, int n)
{
    double s = 0.0;
    for (int i = 1; i < n - 1; i++)
        s += row[i] = 0.5 * (row[i - 1] + row[i + 1]);
    return s;
}

/* A nested loop in an out-of-line function (lines 24-26, inner 25-26). */
__attribute__((noinline)) double sweep(int n, int reps)
{
    double s = 0.0;
    for (int r = 0; r < reps; r++)
        for (int j = 0; j < n; j++)
            s += relax(grid[j], n);
    return s;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int reps = argc > 1 ? atoi(argv[1]) : 10;
    double local = 0.0, global = 0.0;
    for (int it = 0; it < reps; it++) {
        local += sweep(64, reps + rank);
        MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0) printf("%g\n", global);
    MPI_Finalize();
    return 0;
}
