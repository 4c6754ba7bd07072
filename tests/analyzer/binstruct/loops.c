/* loops.c — input of the binstruct test (check_binstruct.py): built with the
 * system mpicc -O2 -g; the test asserts the loops, their lines, nesting and
 * owning (inlined) functions, and the MPI call sites that analyzer/binstruct
 * recovers from the machine code.  Line numbers are part of the test. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double grid[64][64];

/* an inlined helper with one loop: 15-16 */
static inline double relax(double *row, int n)
{
    double s = 0.0;
    for (int i = 1; i < n - 1; i++)
        s += row[i] = 0.5 * (row[i - 1] + row[i + 1]);
    return s;
}

/* a nested loop in an out-of-line function: 24-26, inner 25-26 */
__attribute__((noinline)) double sweep(int n, int reps)
{
    double s = 0.0;
    for (int r = 0; r < reps; r++)
        for (int j = 0; j < n; j++)
            s += relax(grid[j], n);
    return s;
}

/* a loop around a switch that gcc compiles to a jump table: 34-43 */
__attribute__((noinline)) long classify(const int *v, int n)
{
    long acc = 0;
    for (int i = 0; i < n; i++) {
        switch (v[i]) {
        case 0: acc += 3; break;
        case 1: acc ^= 7; break;
        case 2: acc *= 5; break;
        case 3: acc -= 11; break;
        case 4: acc += v[i] * 13; break;
        case 5: acc |= 17; break;
        case 6: acc = acc * 3 + 1; break;
        default: acc--;
        }
    }
    return acc;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int reps = argc > 1 ? atoi(argv[1]) : 10;
    int v[16];
    for (int i = 0; i < 16; i++) v[i] = (i * 7 + rank) % 9;
    double local = 0.0, global = 0.0;
    /* a loop with an MPI call: 60-62 (no code on its closing brace) */
    for (int it = 0; it < reps; it++) {
        local += sweep(64, reps + rank) + (double)classify(v, 16);
        MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0) printf("%g\n", global);
    MPI_Finalize();
    return 0;
}
