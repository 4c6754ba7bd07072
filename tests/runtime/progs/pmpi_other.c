/* pmpi_other.c — a minimal PMPI tool of our own (like mpiP or a site's
 * accounting library): MPI_Send, MPI_Recv and MPI_Allreduce counted and
 * forwarded to PMPI_.  Preloaded before the runtime, its definitions win:
 * those calls never reach the runtime, which must say so.  Built with
 * OTHER_WRAPS_INIT it also wraps MPI_Init and MPI_Finalize: then no call at
 * all reaches the runtime. */
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

#ifdef OTHER_WRAPS_INIT
int MPI_Init(int *argc, char ***argv)
{
    other_calls++;
    return PMPI_Init(argc, argv);
}

int MPI_Finalize(void)
{
    other_calls++;
    return PMPI_Finalize();
}
#endif
