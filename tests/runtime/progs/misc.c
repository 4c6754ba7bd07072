/* misc.c — test program: one-sided (fence and lock epochs, Put/Get/
 * Accumulate), MPI-IO (collective write, independent read), MPI_Pcontrol and
 * the phase API (scalana_phase_begin/end, found through a weak reference so
 * that the program also runs without the runtime).  Any np. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

extern void scalana_phase_begin(const char *name) __attribute__((weak));
extern void scalana_phase_end(const char *name) __attribute__((weak));

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    int right = (rank + 1) % P, left = (rank + P - 1) % P;
    double *base = calloc(100, sizeof *base), src[16] = {0}, dst[16];
    MPI_Win win;
    MPI_Win_create(base, 100 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    MPI_Put(src, 10, MPI_DOUBLE, right, 0, 10, MPI_DOUBLE, win);
    MPI_Win_fence(0, win);
    MPI_Get(dst, 5, MPI_DOUBLE, left, 20, 5, MPI_DOUBLE, win);
    MPI_Accumulate(src, 2, MPI_DOUBLE, right, 40, 2, MPI_DOUBLE, MPI_SUM, win);
    MPI_Win_fence(0, win);
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    MPI_Put(src, 1, MPI_DOUBLE, right, 50, 1, MPI_DOUBLE, win);
    MPI_Win_unlock(right, win);
    MPI_Win_free(&win);

    char path[256];
    const char *dir = getenv("MISC_IO_DIR");
    snprintf(path, sizeof path, "%s/misc-io.dat", dir ? dir : ".");
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    double wbuf[8], rbuf[8];
    for (int i = 0; i < 8; i++)
        wbuf[i] = rank * 8 + i;
    MPI_File_write_at_all(fh, (MPI_Offset)rank * 64, wbuf, 8, MPI_DOUBLE, MPI_STATUS_IGNORE);
    /* (Without sync-barrier-sync the data read need not be what was written:
     * only the call and its byte count matter here.) */
    MPI_File_read_at(fh, (MPI_Offset)rank * 64, rbuf, 8, MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MPI_File_delete(path, MPI_INFO_NULL);

    MPI_Pcontrol(1);
    for (int it = 0; it < 3; it++) {
        if (scalana_phase_begin)
            scalana_phase_begin("iteration");
        double x = it, y;
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (scalana_phase_end)
            scalana_phase_end("iteration");
    }
    MPI_Pcontrol(0);
    if (rank == 0)
        printf("misc done\n");
    free(base);
    MPI_Finalize();
    return 0;
}
