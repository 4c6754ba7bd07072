/* par_mpi.h — the few MPI operations the parallel analyzer needs, as a table
 * of plain C functions without MPI types.  A small shared module per MPI
 * library (an_mpi.c built against it: libscalana-analyze-mpi-<mpi>.so)
 * fills the table; scalana-analyze dlopens the module only when it was
 * launched by mpirun or srun with more than one process (par.c), so the
 * serial analyzer neither links nor initialises MPI.  Ranks are
 * MPI_COMM_WORLD ranks of the analyzer processes (not of the analysed runs). */
#ifndef SCALANA_PAR_MPI_H
#define SCALANA_PAR_MPI_H

#include <stddef.h>
#include <stdint.h>

#define AN_MPI_OPS_VERSION 1

struct an_mpi_ops {
    int version;            /* AN_MPI_OPS_VERSION */
    const char *library;    /* "openmpi", "mpich": the library the module was built with */
    /** MPI_Init; *rank, *size of MPI_COMM_WORLD.  0, or -1. */
    int (*init)(int *rank, int *size);
    /** Sends n bytes to dest (in pieces of at most 1 GiB).  0, or -1. */
    int (*send)(int dest, const void *buf, uint64_t n);
    /** Receives what send sent from src: *buf malloc'ed, *n bytes.  0, or -1. */
    int (*recv)(int src, void **buf, uint64_t *n);
    /** Gathers one uint64 of every process into out[size] on root 0.  0, or -1. */
    int (*gather_u64)(uint64_t v, uint64_t *out);
    void (*finalize)(void);
    void (*abort)(int code);
};

/** The module's one exported symbol. */
extern const struct an_mpi_ops scalana_analyze_mpi_ops;

/** The analyzer's side (par.c): the loaded module's table, NULL when serial. */
const struct an_mpi_ops *an_par_ops(void);

#endif
