/* rt_mpi.h — the MPI room's interface (runtime/mpi/, built once per MPI
 * library): the call record every wrapper fills, charging by rule, the
 * communicator registry, and the helpers the wrappers call.  Uses the
 * tables, threads, call-path and core rooms; the session and write rooms use
 * it (docs/runtime.md, "Architecture"). */
#ifndef SCALANA_RT_MPI_H
#define SCALANA_RT_MPI_H

#include <mpi.h>

#include "core/rt_core.h"
#include "threads/rt_threads.h"
#include "tables/rt_tables.h"
#include "rt_rules.h"
#include "scalana/mpi_ops.h"

/* struct rt_args (the arguments of one MPI call by role) is generated from
 * the role table of mpi_calls.def into rt_args.h. */
#include "rt_args.h"

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
/** Thread-private scratch buffer `slot` (0 statuses, 1 request copies, 2 the
 *  Waitall split) of at least bytes bytes, grown on demand; NULL when out of
 *  memory (rt_scratch.c). */
RT_HIDDEN void *rt_scratch(int slot, size_t bytes);
/** The thread lifecycle hooks freeing the exiting thread's wrapper buffers:
 *  C (rt_scratch.c) and Fortran (rt_fortran.c). */
RT_HIDDEN extern const struct rt_thread_hooks rt_scratch_thread_hooks;
RT_HIDDEN extern const struct rt_thread_hooks rt_fortran_thread_hooks;

/* ---- charging by rule (rt_bytes.c, rt_complete.c) ------------------------- */
/** count elements of datatype t in bytes, exact past 2 GiB (MPI_Type_size_x);
 *  0 for a null type, an empty one or count <= 0. */
RT_HIDDEN uint64_t rt_type_bytes(MPI_Datatype t, MPI_Count count);
/** Bytes a completed receive's status reports, exact past 2 GiB
 *  (MPI_Get_elements_x of MPI_BYTE); 0 when undefined. */
RT_HIDDEN uint64_t rt_status_bytes(const MPI_Status *st);
/** Bytes this rank sends and receives in collective call c (by its rule;
 *  docs/runtime.md). */
RT_HIDDEN void rt_coll_bytes(const struct rt_call *c, uint64_t *sent, uint64_t *recv);
/** Charges the request that was `saved` before a completing call and
 *  completed with status st: time_ns the wait time charged to it; last: it
 *  completed in the final batch of a multi-request wait lasting last_wait_ns. */
RT_HIDDEN void rt_complete(MPI_Request saved, const MPI_Status *st, uint64_t time_ns, int last,
                           uint64_t last_wait_ns);
/** MPI_Request_free of a followed request that already completed: charged
 *  now (with the status the free would discard). */
RT_HIDDEN void rt_free_peek(struct rt_call *c);
/** Charges a point-to-point call (send, receive, sendrecv, probe rules) of
 *  duration dt, remembering started non-blocking operations. */
RT_HIDDEN void rt_record_p2p(struct rt_call *c, uint64_t dt);
/** A persistent collective's *_init call c returned its request: remembered
 *  with the bytes this rank sends and receives at each start. */
RT_HIDDEN void rt_remember_coll(struct rt_call *c, uint64_t sent, uint64_t recv);
/** MPI_Start of c->req_saved, before the call: when it is a persistent
 *  collective, the start is recorded as that collective (its op code and
 *  communicator), so that its context is a collective's. */
RT_HIDDEN void rt_start_peek(struct rt_call *c);
/** Charges a completion call (Wait/Test family, Start, Request_free,
 *  Request_get_status) of duration dt. */
RT_HIDDEN void rt_record_completion(struct rt_call *c, uint64_t dt);

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
/** The world the runtime measures: world (MPI_COMM_WORLD, or under sessions
 *  the runtime's communicator of the process set mpi://WORLD) gives world
 *  ranks; MPI_COMM_WORLD and MPI_COMM_SELF get their records (ids 1 and
 *  0x5e1f...|rank) only when world is MPI_COMM_WORLD. */
RT_HIDDEN void rt_comm_init_world(MPI_Comm world);
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

/* ---- error handlers (rt_errh.c) ----------------------------------------- */
/** Set once the application installed an error handler other than
 *  MPI_ERRORS_ARE_FATAL / MPI_ERRORS_ABORT: errors may then reach it, and no
 *  call is rewritten (MPI_Waitall is not split). */
RT_HIDDEN extern volatile int rt_errors_visible;

#endif
