/* affinity.c — test program: each rank writes the CPUs of its affinity mask
 * to $MISC_IO_DIR/affinity-<rank>.txt ("0 1"; stdout of ranks may
 * interleave), so mpitest.py --check affinity can compare the union per host
 * with run.json and RANK_INFO usable_cores. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    size_t bytes = CPU_ALLOC_SIZE(1 << 16);
    cpu_set_t *set = calloc(1, bytes);
    const char *dir = getenv("MISC_IO_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/affinity-%d.txt", dir ? dir : ".", rank);
    FILE *f = fopen(path, "w");
    if (f && set && sched_getaffinity(0, bytes, set) == 0)
        for (int c = 0; c < (1 << 16); c++)
            if (CPU_ISSET_S(c, bytes, set))
                fprintf(f, " %d", c);
    if (f)
        fclose(f);
    double x = 1, y = 0;
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    free(set);
    MPI_Finalize();
    return 0;
}
