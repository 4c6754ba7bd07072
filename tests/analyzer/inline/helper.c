/* helper.c — static helpers that -O2 inlines into main: the stencil loop
 * lives in smooth(), the MPI_Allreduce in total(); neither is a function of
 * its own in the binary.  The samples must reach smooth's loop (under the
 * call site in main's loop), the MPI time the MPI vertex inside total()
 * under its call site (inline_attr.py checks report.json). */
#include <mpi.h>
#include <stdio.h>

#define N 400
static double a[N][N], b[N][N];

/* rows: the rows smoothed (fewer on the ranks other than 0 with an
 * imbalance); every rank copies all rows, so the imbalance lies in the
 * smoothing loop alone */
static void smooth(int rows) /* @smooth-def */
{
    for (int i = 1; i < rows - 1; i++) /* @smooth-loop */
        for (int j = 1; j < N - 1; j++)
            b[i][j] = 0.25 * (a[i - 1][j] + a[i + 1][j] + a[i][j - 1] + a[i][j + 1]) + 1e-3 * b[i][j];
    for (int i = 1; i < N - 1; i++) /* @copy-loop */
        for (int j = 1; j < N - 1; j++)
            a[i][j] = b[i][j]; /* @copy-body */
} /* @smooth-end */

static double total(double s)
{
    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* @total-mpi */
    return s;
}

/* now() and the timed call expand on one line and column: attribution must
 * tell them apart by the callee (miniFE's RUN_TIMED_FUNCTION) */
static double now(void) { return MPI_Wtime(); }
#define TIMED(t, call) (t0 = now(), (call), (t) += now() - t0)

int main(int argc, char **argv) /* @main-def */
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < N; i++)
        a[i][i] = i + rank;
    double s = 0, t0, t_total = 0;
    int rows = argc > 1 && rank > 0 ? N / 4 : N, iters = argc > 1 ? 7500 : 2500;
    for (int it = 0; it < iters; it++) { /* @main-loop */
        smooth(rows);                  /* @call-smooth */
        TIMED(t_total, s += total(b[1][1])); /* @call-total */
    }
    if (rank == 0)
        printf("%g (%g s in total)\n", s, t_total);
    MPI_Finalize();
    return 0;
}
