/* rt_fortran.h — what the generated Fortran wrappers need: the library's own
 * Fortran entry points (dlsym RTLD_NEXT), the Fortran sentinels
 * (MPI_IN_PLACE, MPI_STATUS(ES)_IGNORE are implementation symbols), and
 * handle/status/index conversion buffers. */
#ifndef SCALANA_RT_FORTRAN_H
#define SCALANA_RT_FORTRAN_H

#include "core/rt_core.h"
#include "rt_mpi.h"

/* Manglings: mpi_x_, mpi_x__, mpi_x, MPI_X, and the mpi_f08 entries: Open
 * MPI mpi_x_f08_ (with pmpi_x_f08_); MPICH mpi_x_f08ts_ for calls with a
 * buffer and mpi_x_f08_ for the others (no pmpi_ twins: we forward to the
 * library's own mpi_ entry, which calls the C PMPI_ interface). */
#define RT_F_VARIANTS 6
#ifdef OPEN_MPI
#define RT_F08_NAME(x) x##_f08_
#define RT_F08_SUFFIX "_f08_"
#else
#define RT_F08_NAME(x) x##_f08ts_
#define RT_F08_SUFFIX "_f08ts_"
#define RT_F08B_NAME(x) x##_f08_
#define RT_F08B_SUFFIX "_f08_"
#endif

#ifdef MPI_F_STATUS_SIZE
#define RT_F_STATUS_SIZE MPI_F_STATUS_SIZE
#else
#define RT_F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
#endif
#define RT_F_STATUS_MAX 16

/** The library's Fortran PMPI entry of variant v for routine lname ("send"),
 *  cached in real[v]; NULL (one line) when the library has none. */
RT_HIDDEN void *rt_f_real(int v, const char *lname, void **real);
/** buf (an argument of variant v) is the binding's MPI_IN_PLACE: compared
 *  with every binding's sentinel address, through the C descriptor where the
 *  probe found that variant passes descriptors. */
RT_HIDDEN int rt_f_in_place(int v, const void *buf);
/** Probes once how each binding returns Wait/Test indices and passes choice
 *  buffers (rt_fortran.c); MPI must be initialised.  Idempotent, thread-safe. */
RT_HIDDEN void rt_f_probe(void);
/** The C (0-based) index of Fortran index f returned by variant v of the
 *  call with rule (RT_RULE_WAITANY/TESTANY/WAITSOME/TESTSOME); MPI_UNDEFINED
 *  for the binding's "no index" value. */
RT_HIDDEN int rt_f_index(int v, int rule, MPI_Fint f);
RT_HIDDEN int rt_f_status_ignored(const MPI_Fint *st);
RT_HIDDEN int rt_f_statuses_ignored(const MPI_Fint *st);
/** Private Fortran statuses for n requests (thread-local); NULL when out of memory. */
RT_HIDDEN MPI_Fint *rt_f_status_scratch(int n);
/** C handles of n Fortran requests (thread-local copy); NULL when out of memory. */
RT_HIDDEN MPI_Request *rt_f_requests(int n, const MPI_Fint *f);
RT_HIDDEN int *rt_f_indices(int n);
/** C datatypes of the w-collectives' Fortran datatype arrays (as many as the
 *  communicator's fan-out) into c->a.stypes / c->a.rtypes. */
RT_HIDDEN void rt_f_types(struct rt_call *c, const MPI_Fint *stypes, const MPI_Fint *rtypes);
/** Back to Fortran after a C-side completion: requests (c2f) and, when fst is
 *  not NULL, statuses (c2f). */
RT_HIDDEN void rt_f_requests_back(int n, MPI_Fint *freq, const MPI_Request *creq, MPI_Fint *fst,
                                  MPI_Status *cst);

#endif
