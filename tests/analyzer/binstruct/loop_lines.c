/* loop_lines.c — the lines of loops recovered from gcc -O2 -g machine code
 * (check_binstruct.py, docs/binstruct.md "Source lines of a loop"): a loop's
 * range is its own lines, not those of code gcc put inside it for a
 * statement before it (recovery rules 7 gave saving_of's loop 36-41, from
 * the malloc line), and a loop whose body's code carries the test's line
 * still spans its body (rules 7 gave pick_bins's while loop 56-56, its
 * condition).  finish_time's second loop is split by gcc on `active >
 * cores` (one copy tests line 25): both copies are one loop from line 23. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The finishing time of a phase whose processes have work[0..n) seconds of
 * work on `cores` cores (sorted here). */
static inline double finish_time(double *work, int n, int cores)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && work[j - 1] > work[j]; j--) {
            double t = work[j]; work[j] = work[j - 1]; work[j - 1] = t;
        }
    double t = 0.0, done = 0.0;
    for (int i = 0; i < n; i++) {
        int active = n - i;
        double rate = active > cores ? (double)cores / active : 1.0;
        t += (work[i] - done) / rate;
        done = work[i];
    }
    return t;
}

/* The malloc and the accumulator's initial value on the line before the
 * loop: gcc puts a copy of saving's 0.0 inside the loop with that line. */
static double saving_of(int size, int cores, int nphases, const double *won, const double *woff)
{
    double *w = (double *)malloc(sizeof(double) * (size_t)size), saving = 0.0;
    for (int ph = 0; ph < nphases; ph++) {
        memcpy(w, won + (size_t)ph * size, sizeof(double) * (size_t)size);
        double on = finish_time(w, size, cores);
        memcpy(w, woff + (size_t)ph * size, sizeof(double) * (size_t)size);
        saving += on - finish_time(w, size, cores);
    }
    free(w);
    return saving;
}

/* A search loop whose increment gcc compiles into the test's code, with the
 * test's line (LULESH's CreateRegionIndexSets): the loop is both lines. */
__attribute__((noinline)) static int pick_bins(const int *bin_end, int nbins, int *out, int n, unsigned seed)
{
    int last = -1;
    for (int k = 0; k < n; k++) {
        seed = seed * 1103515245u + 12345u;
        int v = (int)(seed % (unsigned)bin_end[nbins - 1]);
        int i = 0;
        while (v >= bin_end[i])
            i++;
        out[k] = i;
        last = i;
    }
    return last;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *won = malloc(sizeof(double) * 2 * (size_t)size), *woff = malloc(sizeof(double) * 2 * (size_t)size);
    for (int i = 0; i < 2 * size; i++) won[i] = 1.0 + (i % size == 0), woff[i] = 1.0;
    int bins[4] = {10, 20, 40, 80}, picked[64];
    double s = 0.0;
    for (int it = 0; it < 10; it++) {
        s += saving_of(size, 2, 2, won, woff) + pick_bins(bins, 4, picked, 64, (unsigned)(it + rank));
        MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0 && argc > 5) printf("%g\n", s);
    free(won), free(woff);
    MPI_Finalize();
    return 0;
}
