/* rt_mpi.h — internal interfaces of the runtime that depend on mpi.h (built
 * once per MPI library): the call record every wrapper fills, the
 * communicator registry, and the hand-written helpers the wrappers call. */
#ifndef SCALANA_RT_MPI_H
#define SCALANA_RT_MPI_H

#include <mpi.h>

#include "rt_core.h"
#include "rt_rules.h"

/* Arguments of one MPI call by role (mpi_calls.def names the roles). */
struct rt_args {
    const void *sbuf, *rbuf;
    int scount, rcount;
    MPI_Datatype stype, rtype;
    const int *scounts, *rcounts;
    const MPI_Datatype *stypes, *rtypes;
    int peer, tag, speer, stag, rpeer, rtag, root, target;
    MPI_Comm comm;
    MPI_Comm *newcomm;
    MPI_Group group;
    MPI_Group *newgroup;
    MPI_Request *request, *requests;
    int nreq;
    MPI_Status *status, *statuses;
    int *index, *indices, *outcount, *flag;
    MPI_Win win;
    MPI_Win *winp;
    MPI_File file;
    MPI_File *filep;
    MPI_Message *message;
};

#define RT_CALL_NONBLOCKING 1u
#define RT_CALL_PERSISTENT 2u
#define RT_CALL_FORTRAN 4u
#define RT_CALL_SPLIT 8u /* Waitall completed through Waitsome (charged there) */

struct rt_call {
    struct rt_args a;
    uint32_t op, rule, flags;
    unsigned long long roles;
    int rc;
    struct rt_thread *t;
    uint32_t ctx;
    struct rt_comm_rec *comm;
    uint64_t t0, t1;
    MPI_Request req_saved;      /* the request before the call (Wait, Test, Request_free) */
    MPI_Request *reqs_saved;    /* the array before the call (Waitall ...) */
    MPI_Comm comm_saved;        /* Comm_free, Comm_disconnect */
    MPI_Win win_saved;          /* Win_free */
    MPI_Message msg_saved;      /* Mrecv, Imrecv */
    MPI_Fint *f_newcomm;        /* Fortran Comm_idup: where the handle will be written */
};

/** True when the wrapper should measure: the runtime is on and this thread
 *  is not already inside a wrapper (the tool's and the MPI library's own MPI
 *  calls pass through). */
static inline int rt_wrap_enabled(void)
{
    RT_HIDDEN extern int rt_wrap_slow(void);
    if (RT_LIKELY(rt_g.state == RT_ON)) {
        struct rt_thread *t = rt_self;
        return !t || t->depth == 0;
    }
    return rt_wrap_slow();
}

RT_HIDDEN void rt_call_enter(struct rt_call *c);
RT_HIDDEN void rt_call_exit(struct rt_call *c);
/** Thread-private status array of n entries standing in for
 *  MPI_STATUSES_IGNORE; returns MPI_STATUSES_IGNORE when out of memory. */
RT_HIDDEN MPI_Status *rt_scratch_statuses(struct rt_call *c, int n);
/** MPI_Waitall through a PMPI_Waitsome loop, recording each request's
 *  completion time (SCALANA_WAITALL_SPLIT). */
RT_HIDDEN int rt_waitall_split(struct rt_call *c);
/** In- and out-degree of a topology communicator (0 without topology). */
RT_HIDDEN void rt_neighbors(MPI_Comm comm, int *indeg, int *outdeg);
/** Frees the exiting thread's wrapper buffers (C and Fortran). */
RT_HIDDEN void rt_call_thread_exit(void);
RT_HIDDEN void rt_fortran_thread_exit(void);

/* ---- communicators (rt_comm.c) ------------------------------------------- */
#define RT_COMM_ID_WORLD 1ull
RT_HIDDEN extern MPI_Comm rt_tool_comm;
/** Record of comm (registering a communicator first seen here with an id
 *  derived from its membership).  NULL for MPI_COMM_NULL or on failure. */
RT_HIDDEN struct rt_comm_rec *rt_comm_lookup(MPI_Comm comm);
/** Registers a communicator just created by a wrapped call: agrees on its id
 *  with one collective over it (never recorded). */
RT_HIDDEN void rt_comm_created(MPI_Comm comm);
RT_HIDDEN void rt_comm_freed(MPI_Comm comm);
/** MPI_Comm_idup on parent returned request req: the communicator written to
 *  *newcomm (C) or *fnewcomm (Fortran handle) when req completes gets an id
 *  derived from the parent's id and the parent's idup count. */
RT_HIDDEN void rt_comm_idup_started(const struct rt_comm_rec *parent, MPI_Comm *newcomm,
                                    MPI_Fint *fnewcomm, MPI_Request req);
/** Request req (a handle from before the completing call) completed: registers
 *  the communicator of a pending Comm_idup.  Cheap when none is pending. */
RT_HIDDEN void rt_comm_request_done(MPI_Request req);
RT_HIDDEN void rt_comm_init_world(void);
/** World rank of rank r of comm (the remote group's for an intercommunicator);
 *  PRF_ANY_RANK when unknown. */
static inline int32_t rt_comm_world_rank(const struct rt_comm_rec *c, int r)
{
    if (!c || r < 0)
        return PRF_ANY_RANK;
    if (c->flags & PRF_COMM_INTER)
        return (uint32_t)r < c->remote_size && c->world ? (int32_t)c->world[c->size + (uint32_t)r] : PRF_ANY_RANK;
    if (c->flags & PRF_COMM_WORLD)
        return r;
    return (uint32_t)r < c->size && c->world ? (int32_t)c->world[r] : PRF_ANY_RANK;
}
RT_HIDDEN void rt_win_created(MPI_Win win, MPI_Comm comm);
RT_HIDDEN void rt_win_freed(MPI_Win win);
RT_HIDDEN struct rt_comm_rec *rt_win_comm(MPI_Win win);

static inline uintptr_t rt_handle_key(const void *h, size_t n)
{
    uintptr_t k = 0;
    __builtin_memcpy(&k, h, n < sizeof k ? n : sizeof k);
    return k;
}
#define RT_KEY(h) rt_handle_key(&(h), sizeof(h))

/* ---- another PMPI tool in front (rt_shadow.c) ----------------------------- */
/** Names of every MPI entry point the runtime defines (generated). */
RT_HIDDEN extern const char *const rt_wrapped_names[];
RT_HIDDEN extern const unsigned rt_wrapped_count;
/** Once per process, at activation: looks up each of rt_wrapped_names in the
 *  global scope; those that resolve to another object (a PMPI tool earlier in
 *  LD_PRELOAD, or the executable) never reach the runtime: one warning
 *  (stderr by world rank 0, run.json) naming the object and the count. */
RT_HIDDEN void rt_shadow_check(void);

/* ---- activation and writing (rt_init.c) --------------------------------- */
RT_HIDDEN void rt_activate(int thread_level);
/** The Fortran MPI_INIT / MPI_INIT_THREAD wrappers (rt_fortran.c): the run
 *  starts now (called before the library's init) ... */
RT_HIDDEN void rt_init_begin(void);
/** ... and the call is recorded in its calling context with pflags
 *  (PRF_MPI_FORTRAN) and its duration dt in ticks, after activation. */
RT_HIDDEN void rt_init_record(uint32_t op, uint64_t dt, uint32_t pflags);
/** The profile write of MPI_Finalize (C or Fortran), before the library's
 *  finalize.  Returns 1 when it ran (the caller then calls the library's
 *  finalize with this thread's depth raised, and rt_finalize_done after). */
RT_HIDDEN int rt_finalize_prepare(void);
RT_HIDDEN void rt_finalize_done(void);
RT_HIDDEN void rt_abort_prepare(void);
RT_HIDDEN void rt_pcontrol(int level);

/* ---- error handlers (rt_errh.c) ----------------------------------------- */
/** Set once the application installed an error handler other than
 *  MPI_ERRORS_ARE_FATAL / MPI_ERRORS_ABORT: errors may then reach it, and no
 *  call is rewritten (MPI_Waitall is not split). */
RT_HIDDEN extern volatile int rt_errors_visible;

#endif
