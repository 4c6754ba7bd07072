/* proctitle.c — a program that renames itself before MPI_Init, the way
 * setproctitle does: its original argument strings are overwritten with a
 * new title (the rest of the area zeroed, so /proc/self/cmdline then reads
 * as the title and a run of empty strings), and prctl(PR_SET_NAME) gives
 * the thread a new name.  Prints the arguments it was started with (its
 * own copy) and the title, then Allreduce, MPI_Finalize. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

int main(int argc, char **argv)
{
    char **orig = malloc((size_t)argc * sizeof *orig);
    for (int i = 0; i < argc; i++)
        orig[i] = strdup(argv[i]);
    char *lo = argv[0], *hi = argv[argc - 1] + strlen(argv[argc - 1]);
    memset(lo, 0, (size_t)(hi - lo));
    snprintf(lo, (size_t)(hi - lo), "proctitle: renamed");
    prctl(PR_SET_NAME, "renamed", 0, 0, 0);

    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double v = rank, s = 0;
    MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("started as");
        for (int i = 1; i < argc; i++)
            printf(" [%s]", orig[i]);
        printf("; title [%s]; sum %g\n", argv[0], s);
    }
    MPI_Finalize();
    return 0;
}
