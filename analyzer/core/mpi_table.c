/* mpi_table.c — what the analyzer needs to know about each MPI operation:
 * its role in waits and edges, mapped from the operation's class.  Names,
 * classes and flags come from the one table (include/scalana/mpi_calls.def)
 * through its lookup API, include/scalana/mpi_ops.h (formats/mpi_ops.c). */
#include "core/mpi_table.h"

#include "scalana/mpi_ops.h"

const char *an_mpi_name(unsigned op)
{
    return scalana_mpi_op_name(op);
}

enum an_mpi_role an_mpi_role(unsigned op)
{
    switch (scalana_mpi_op_class(op)) {
    case SCALANA_MPI_CLASS_P2P_SEND: return AN_MPI_SEND;
    case SCALANA_MPI_CLASS_P2P_RECV: return AN_MPI_RECV;
    case SCALANA_MPI_CLASS_P2P_SENDRECV: return AN_MPI_SENDRECV;
    case SCALANA_MPI_CLASS_COMPLETION: return AN_MPI_COMPLETION;
    case SCALANA_MPI_CLASS_COLLECTIVE: return AN_MPI_COLLECTIVE;
    case SCALANA_MPI_CLASS_PROBE: return AN_MPI_PROBE;
    case SCALANA_MPI_CLASS_COMM: return AN_MPI_COLLECTIVE; /* communicator creation synchronises its members */
    default: return AN_MPI_OTHER;
    }
}

int an_mpi_nonblocking(unsigned op)
{
    return scalana_mpi_op_nonblocking(op);
}

int an_mpi_is_init(unsigned op)
{
    return scalana_mpi_op_class(op) == SCALANA_MPI_CLASS_INIT;
}
