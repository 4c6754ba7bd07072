/* pmpi_other.c — a minimal PMPI tool of our own (like mpiP or a site's
 * accounting library): MPI_Send, MPI_Recv and MPI_Allreduce counted and
 * forwarded to PMPI_.  Preloaded before the runtime, its definitions win:
 * those calls never reach the runtime, which must say so. */
#include <mpi.h>

static int other_calls;

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    other_calls++;
    return PMPI_Send(buf, count, type, dest, tag, comm);
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status *st)
{
    other_calls++;
    return PMPI_Recv(buf, count, type, source, tag, comm, st);
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    other_calls++;
    return PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
}
