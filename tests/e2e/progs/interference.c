/* interference.c — the same work on every process, always: a relaxation
 * sweep of a fixed number of iterations per process and step, then an
 * MPI_Allreduce.  Nothing in the code is imbalanced; interference.py runs it
 * with another program's CPU hog on the core of world rank 1, which then
 * computes at half speed while the others wait for it.
 *   interference [STEPS=40] [SWEEPS=80000]   (SWEEPS split over the processes) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CELLS 4096

static double a[CELLS];

/* n sweeps over the cells: n * (CELLS - 2) iterations on every process */
__attribute__((noinline)) static double relax(int n)
{
    double s = 0;
    for (int k = 0; k < n; k++)
        for (int i = 1; i < CELLS - 1; i++) {
            a[i] = 0.5 * a[i] + 0.25 * (a[i - 1] + a[i + 1]);
            s += a[i];
        }
    return s;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int steps = argc > 1 ? atoi(argv[1]) : 40;
    int sweeps = (argc > 2 ? atoi(argv[2]) : 80000) / size;
    for (int i = 0; i < CELLS; i++)
        a[i] = i % 7;
    double s = 0;
    for (int t = 0; t < steps; t++) {
        s += relax(sweeps / steps);
        MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("sum %g\n", s);
    MPI_Finalize();
    return 0;
}
