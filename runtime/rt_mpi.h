/* rt_mpi.h — internal interfaces of the runtime that depend on mpi.h (built
 * once per MPI library): the call record every wrapper fills, the
 * communicator registry, and the hand-written helpers the wrappers call. */
#ifndef SCALANA_RT_MPI_H
#define SCALANA_RT_MPI_H

#include <mpi.h>

#include "rt_core.h"
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

/* ---- activation (rt_activate.c) ------------------------------------------ */
/** Activation at MPI_Init (world MPI_COMM_WORLD) or at the first
 *  MPI_Session_init (world: a communicator of the process set mpi://WORLD,
 *  rt_session.c): world ranks, the runtime's own communicator (a dup of
 *  world), the run directory, the sampler.  Collective over world. */
RT_HIDDEN void rt_activate_in(MPI_Comm world, int thread_level);
/** rt_activate_in(MPI_COMM_WORLD, thread_level). */
RT_HIDDEN void rt_activate(int thread_level);
/** When the run started: monotonic and realtime ns at the entry of MPI_Init
 *  (0 before; activation then takes its own time). */
RT_HIDDEN extern uint64_t rt_init_t0, rt_init_rt0;
/** After a step every rank performs with rt_fail_quiet set (failures recorded
 *  since rt_errors[first_new]): only the lowest world rank with a new failure
 *  prints its lines, so a failure prints once per run, not once per rank.
 *  Collective over rt_tool_comm; without it each rank prints its own.
 *  Returns whether any rank failed. */
RT_HIDDEN int rt_fail_once(unsigned first_new);

/* ---- the hand-written wrappers (rt_init.c) -------------------------------- */
/** The Fortran MPI_INIT / MPI_INIT_THREAD wrappers (rt_fortran.c): the run
 *  starts now (called before the library's init) ... */
RT_HIDDEN void rt_init_begin(void);
/** ... and the call is recorded in its calling context with pflags
 *  (PRF_MPI_FORTRAN) and its duration dt in ticks, after activation. */
RT_HIDDEN void rt_init_record(uint32_t op, uint64_t dt, uint32_t pflags);
/** The profile write of MPI_Finalize (C or Fortran), before the library's
 *  finalize; the call is recorded with pflags (PRF_MPI_FORTRAN from the
 *  Fortran binding).  Returns 1 when it ran (the caller then calls the
 *  library's finalize with this thread's depth raised, and rt_finalize_done
 *  after). */
RT_HIDDEN int rt_finalize_prepare(uint32_t pflags);
/** rt_finalize_prepare recording op (SCALANA_MPI_OP_Finalize or
 *  SCALANA_MPI_OP_Session_finalize) with pflags and closing open phases in
 *  its name. */
RT_HIDDEN int rt_finalize_prepare_as(uint32_t op, const char *name, uint32_t pflags);
RT_HIDDEN void rt_finalize_done(void);
/** MPI_Abort (C or Fortran): closes the open phases, records the call (with
 *  pflags) and writes this rank's profile alone, before the library aborts. */
RT_HIDDEN void rt_abort_prepare(uint32_t pflags);
/** MPI_Pcontrol(level): closes the previous level's phase, opens this one's;
 *  the call is recorded with pflags (PRF_MPI_FORTRAN from the Fortran
 *  binding). */
RT_HIDDEN void rt_pcontrol(int level, uint32_t pflags);

/* ---- writing (rt_write_coll.c, rt_write_exit.c, rt_runjson.c) ------------- */
/** One rank's entry of run.json's host table, gathered at finalize. */
struct rt_host_entry { char name[64]; uint32_t cores; uint32_t pad; };
/** The collective write at finalize: every rank's section in one file, at
 *  offsets from an exclusive scan of the section sizes; then run.json with
 *  every rank's host (rank 0).  Collective over rt_tool_comm.  Returns 0, or
 *  -1 on every rank (nothing printed: the caller falls back to
 *  rt_write_alone). */
RT_HIDDEN int rt_write_collective(void);
/** This rank's own profile file, then (world rank 0) run.json listing the
 *  files present; never waits for other ranks.  flags: enum prf_rank_flags;
 *  written_by: run.json's "written_by".  Returns 0 when the profile was
 *  written. */
RT_HIDDEN int rt_write_alone(uint32_t flags, const char *written_by);
/** The atexit handler registered at activation: holds SIGTERM until this
 *  rank's profile is written. */
RT_HIDDEN void rt_at_exit(void);
/** run.json (world rank 0) with the host table of n ranks (hosts NULL: this
 *  host alone) and the nfiles profile file names.  Returns 0 when written. */
RT_HIDDEN int rt_write_run_json_hosts(const struct rt_host_entry *hosts, uint32_t n, const char *written_by,
                                      char **files, uint32_t nfiles);
/** run.json (world rank 0) from this host's view, listing the profile files
 *  now in the run directory.  Returns 0 when written. */
RT_HIDDEN int rt_write_run_json_present(const char *written_by);

/* ---- error handlers (rt_errh.c) ----------------------------------------- */
/** Set once the application installed an error handler other than
 *  MPI_ERRORS_ARE_FATAL / MPI_ERRORS_ABORT: errors may then reach it, and no
 *  call is rewritten (MPI_Waitall is not split). */
RT_HIDDEN extern volatile int rt_errors_visible;

#endif
