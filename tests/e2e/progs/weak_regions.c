/* weak_regions.c — LULESH's pattern (-b/-c regions): weak scaling, every
 * process keeps its own subdomain at any count, and world rank 0 alone owns
 * the costly regions (REGION_COST times the region work of any other
 * process, at 1 process as at 4).  Region work is two thirds of the CPU
 * time at 1 process, so the regions' total grows less than p (4 -> 7 units
 * from 1 to 4 processes) although no process's share changes; the balanced
 * element loop (a third) shows the weak scaling.
 *   weak_regions [STEPS=20] [SWEEPS=1000]   (per process and step: 2 x SWEEPS
 *       element sweeps; region sweeps: REGION_COST x SWEEPS on rank 0, SWEEPS elsewhere) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CELLS 4096
#define REGION_COST 4

static double a[CELLS], b[CELLS];

/* the element loop: the same n sweeps on every process */
__attribute__((noinline)) static double elements(int n)
{
    double s = 0;
    for (int k = 0; k < n; k++)
        for (int i = 1; i < CELLS - 1; i++) {
            a[i] = 0.5 * a[i] + 0.25 * (a[i - 1] + a[i + 1]);
            s += a[i];
        }
    return s;
}

/* the region loop: n sweeps, REGION_COST times more on world rank 0 */
__attribute__((noinline)) static double regions(int n)
{
    double s = 0;
    for (int k = 0; k < n; k++)
        for (int i = 1; i < CELLS - 1; i++) {
            b[i] = 0.5 * b[i] + 0.25 * (b[i - 1] + b[i + 1]);
            s += b[i];
        }
    return s;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int steps = argc > 1 ? atoi(argv[1]) : 20, sweeps = argc > 2 ? atoi(argv[2]) : 1000;
    for (int i = 0; i < CELLS; i++)
        a[i] = i % 7, b[i] = i % 5;
    double s = 0;
    for (int t = 0; t < steps; t++) {
        s += elements(2 * sweeps);
        s += regions(rank == 0 ? REGION_COST * sweeps : sweeps);
        MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("sum %g\n", s);
    MPI_Finalize();
    return 0;
}
