/* mpi_ops.h — identities of the MPI operations ScalAna knows.
 * The table itself is include/scalana/mpi_calls.def (one line per call, every
 * attribute of the call: code, class, arguments and their roles); this header
 * is the lookup API the pass, the runtime and the analyzer share
 * (implemented in formats/mpi_ops.c). */
#ifndef SCALANA_MPI_OPS_H
#define SCALANA_MPI_OPS_H

#ifdef __cplusplus
extern "C" {
#endif

/** Operation codes: the code column of mpi_calls.def.  Stored in profiles
 *  (prf_mpi_context.op) and PSGs (psg_vertex_record.op), so a code is never
 *  reused or renumbered. 0 means "not an MPI operation". */
typedef unsigned scalana_mpi_op;
#define SCALANA_MPI_OP_NONE 0u

/** Each code by name, generated from the code and name columns of
 *  mpi_calls.def: SCALANA_MPI_OP_Init == 1, SCALANA_MPI_OP_Send == 100 ...
 *  (code that needs one call's code names it here, never by its number). */
enum scalana_mpi_op_code {
#define SCALANA_MPI_CALL(code, name, cls, flags, params, roles) SCALANA_MPI_OP_##name = (code),
#include "scalana/mpi_calls.def"
#undef SCALANA_MPI_CALL
};

/** Classes of MPI operations (the class column of mpi_calls.def). */
enum scalana_mpi_class {
    SCALANA_MPI_CLASS_NONE = 0,       /* environment, queries, handles */
    SCALANA_MPI_CLASS_P2P_SEND = 1,   /* blocking or starting a send */
    SCALANA_MPI_CLASS_P2P_RECV = 2,   /* blocking or starting a receive */
    SCALANA_MPI_CLASS_P2P_SENDRECV = 3,
    SCALANA_MPI_CLASS_PROBE = 4,
    SCALANA_MPI_CLASS_COMPLETION = 5, /* Wait/Test family, Start */
    SCALANA_MPI_CLASS_COLLECTIVE = 6, /* including non-blocking and neighbourhood */
    SCALANA_MPI_CLASS_COMM = 7,       /* communicator and group creation/freeing */
    SCALANA_MPI_CLASS_ONESIDED = 8,   /* RMA data movement and synchronisation */
    SCALANA_MPI_CLASS_IO = 9,         /* MPI-IO */
    SCALANA_MPI_CLASS_INIT = 10       /* Init, Init_thread, Finalize, Abort, Pcontrol */
};

/** Canonical C name ("MPI_Allreduce") of op, or "MPI_<unknown>" for an
 *  unknown code. Never NULL. */
const char *scalana_mpi_op_name(scalana_mpi_op op);

/** Class of op; SCALANA_MPI_CLASS_NONE for unknown codes. */
enum scalana_mpi_class scalana_mpi_op_class(scalana_mpi_op op);

/** 1 when op starts an operation that a Wait/Test call (or Start) completes
 *  later: the "nonblocking" flag of mpi_calls.def; 0 otherwise and for
 *  unknown codes. */
int scalana_mpi_op_nonblocking(scalana_mpi_op op);

/** Name of a class ("collective", "p2p-send", ...). */
const char *scalana_mpi_class_name(enum scalana_mpi_class c);

/** Code of an MPI routine from any spelling a binary or IR may use:
 *  MPI_Send, PMPI_Send, mpi_send, mpi_send_, mpi_send__, MPI_SEND,
 *  pmpi_send_, mpi_send_f08, mpi_send_f08_, mpi_send_f08ts_.
 *  Returns SCALANA_MPI_OP_NONE when name is not a known MPI routine. */
scalana_mpi_op scalana_mpi_op_from_name(const char *name);

/** Number of known operations (for iteration: codes are not dense). */
unsigned scalana_mpi_op_count(void);
/** The i-th known code, 0 <= i < scalana_mpi_op_count(). */
scalana_mpi_op scalana_mpi_op_at(unsigned i);

#ifdef __cplusplus
}
#endif
#endif
