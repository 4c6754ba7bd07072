/* leftovers.c — what a run may leave behind at MPI_Finalize, and a program
 * that others measure too.  Modes (argv[1]):
 *   phase   phase "solve" begun (scalana_phase_begin) and never ended, a
 *           nested "step" ended: both counted once, one warning
 *   delete  world rank 0 removes the executable file after MPI_Init: the
 *           run records its path without " (deleted)" and marks it deleted
 *   plain   2 Allreduce + one Send/Recv pair (another PMPI tool in front)
 *   spin    plain and 0.2 s of CPU time (samples)
 * Without the runtime the phase calls are skipped (weak symbols).  Each rank
 * checks its results and prints FAIL on a mismatch. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern void scalana_phase_begin(const char *name) __attribute__((weak));
extern void scalana_phase_end(const char *name) __attribute__((weak));

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, fails = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "plain";
    if (strcmp(mode, "phase") == 0 && scalana_phase_begin) {
        scalana_phase_begin("solve");
        scalana_phase_begin("step");
        scalana_phase_end("step");
    }
    if (strcmp(mode, "delete") == 0) {
        MPI_Barrier(MPI_COMM_WORLD); /* every rank has started from the file */
        if (rank == 0) {
            char self[4096];
            ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
            self[n > 0 ? n : 0] = '\0';
            if (n <= 0 || unlink(self) != 0) {
                printf("FAIL: cannot remove %s\n", self);
                fails++;
            }
        }
    }
    if (strcmp(mode, "spin") == 0) {
        volatile double x = 0;
        clock_t c0 = clock();
        while (clock() - c0 < CLOCKS_PER_SEC / 5)
            x += 1.0;
    }
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size) {
        printf("FAIL: sum %d\n", sum);
        fails++;
    }
    if (size > 1 && rank < 2) {
        int v = 42;
        if (rank == 0)
            MPI_Send(&v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
        else {
            MPI_Recv(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (v != 42) {
                printf("FAIL: received %d\n", v);
                fails++;
            }
        }
    }
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("rank %d %s done, %d failure(s)\n", rank, mode, fails);
    MPI_Finalize();
    return fails ? 1 : 0;
}
