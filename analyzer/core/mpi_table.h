/* mpi_table.h — the MPI operations the runtime records: names and roles
 * (core/mpi_table.c). */
#ifndef SCALANA_AN_CORE_MPI_TABLE_H
#define SCALANA_AN_CORE_MPI_TABLE_H

/* ---- MPI operations (from include/scalana/mpi_calls.def) ------------------- */

enum an_mpi_role { AN_MPI_OTHER = 0, AN_MPI_SEND, AN_MPI_RECV, AN_MPI_SENDRECV,
                   AN_MPI_COMPLETION, AN_MPI_COLLECTIVE, AN_MPI_PROBE };
/** "MPI_Allreduce", or "MPI_<unknown>" for an unknown code. Never NULL. */
const char *an_mpi_name(unsigned op);
/** Role of an op for waits and communication edges. */
enum an_mpi_role an_mpi_role(unsigned op);
/** 1 when the op starts a non-blocking operation (Isend, Irecv, Iallreduce ...). */
int an_mpi_nonblocking(unsigned op);
/** 1 for MPI_Init, MPI_Init_thread, MPI_Finalize, MPI_Abort, MPI_Pcontrol. */
int an_mpi_is_init(unsigned op);

#endif
