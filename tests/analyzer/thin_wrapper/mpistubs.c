/* mpistubs.c — the application's own thin MPI wrappers, as hypre's
 * mpistubs (hypre_MPI_Waitall in its utilities): each function only forwards to
 * one MPI call (tests/analyzer/thin_wrapper.sh). */
#include <mpi.h>

int app_MPI_Waitall(int n, MPI_Request *r, MPI_Status *s)
{
    return MPI_Waitall(n, r, s);
}

int app_MPI_Allreduce(double *in, double *out, int n)
{
    return MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

/* not thin: a loop around its call */
int app_MPI_Waitall_each(int n, MPI_Request *r, MPI_Status *s)
{
    int rc = MPI_SUCCESS;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) rc = MPI_Wait(&r[i], &s[i]);
    return rc;
}
