/* rt_call.c — what every generated wrapper does around its PMPI call:
 * rt_call_enter captures the calling context and closes the computation
 * interval before the call; rt_call_exit charges the call by its rule
 * (bytes: rt_bytes.c; point-to-point and completions: rt_complete.c;
 * communicators and windows created and freed: rt_comm.c). */
#include "core/rt_core.h"
#include "callpath/rt_callpath.h"
#include "threads/rt_threads.h"
#include "tables/rt_tables.h"
#include "rt_mpi.h"

#include <string.h>

/* ---- enter / exit ------------------------------------------------------------ */
void rt_call_enter(struct rt_call *c)
{
    /* The computation interval before this call ends here, before any of the
     * wrapper's own work. */
    uint64_t iv_now = rt_ticks();
    struct rt_thread *t = rt_self;
    if (!t)
        t = rt_thread_get();
    c->t = t;
    c->ctx = UINT32_MAX;
    if (!t) {
        c->t0 = rt_ticks();
        return;
    }
    t->depth++;
    t->in_rt = 1;
    uint64_t iv_sig = t->cpu_signals;
    uint64_t iv_cpu = RT_UNLIKELY(t->iv.cpu0 != UINT64_MAX) ? rt_thread_cpu_ns() : 0;
    t->req_seq0 = rt_req_seq(); /* requests started before this call (rt_complete) */
    /* Handles the call will change: keep their values from before it. */
    if ((c->roles & RT_ROLE_REQUEST) && c->a.request)
        c->req_saved = *c->a.request;
    if ((c->roles & RT_ROLE_REQUESTS) && c->a.nreq > 0) {
        c->reqs_saved = rt_scratch(1, (size_t)c->a.nreq * sizeof(MPI_Request));
        if (c->reqs_saved)
            memcpy(c->reqs_saved, c->a.requests, (size_t)c->a.nreq * sizeof(MPI_Request));
    }
    if (c->rule == RT_RULE_COMM_FREE && c->a.newcomm)
        c->comm_saved = *c->a.newcomm;
    if (c->rule == RT_RULE_WIN_FREE && c->a.winp)
        c->win_saved = *c->a.winp;
    if ((c->roles & RT_ROLE_MESSAGE) && c->rule == RT_RULE_MRECV && c->a.message)
        c->msg_saved = *c->a.message;
    if (c->rule == RT_RULE_START && c->req_saved != MPI_REQUEST_NULL)
        rt_start_peek(c);

    if (c->roles & RT_ROLE_COMM)
        c->comm = rt_comm_lookup(c->rule == RT_RULE_COMM_FREE ? c->comm_saved : c->a.comm);
    else if ((c->roles & RT_ROLE_WIN) && c->rule != RT_RULE_WIN_NEW)
        c->comm = rt_win_comm(c->rule == RT_RULE_WIN_FREE ? c->win_saved : c->a.win);
    uint64_t comm_id = c->comm ? c->comm->comm_id : 0;

    void *frames[RT_MAX_DEPTH];
    int truncated = 0;
    int n = rt_capture_path(frames, RT_MAX_DEPTH, &truncated);
    if (n > 0) /* a call from a thread of an OpenMP team: in its region's context */
        n = rt_omp_path_fix(frames, n, RT_MAX_DEPTH, &truncated);
    uint32_t node = PRF_NONE;
    uint32_t pflags = ((c->flags & RT_CALL_NONBLOCKING) ? PRF_MPI_NONBLOCKING : 0) |
                      ((c->flags & RT_CALL_FORTRAN) ? PRF_MPI_FORTRAN : 0);
    c->ctx = rt_ctx_get(t, frames, n, truncated, c->op, comm_id, pflags, &node);
    if (RT_LIKELY(c->ctx != UINT32_MAX))
        rt_iv_end(t, c->ctx, iv_now, iv_sig, iv_cpu);
    else
        rt_iv_drop(t);
    t->cur_mpi_node = node;
    if (c->rule == RT_RULE_REQUEST_FREE)
        rt_free_peek(c);
    t->in_rt = 0;
    c->t0 = rt_ticks();
}

/* A collective: its bytes by rule (rt_bytes.c); a persistent one's *_init
 * call is remembered, its bytes move at each start (rt_record_completion). */
static void rt_charge_coll(struct rt_call *c, uint64_t dt)
{
    uint64_t sent = 0, recv = 0;
    if (c->rc == MPI_SUCCESS)
        rt_coll_bytes(c, &sent, &recv);
    if (c->flags & RT_CALL_PERSISTENT) {
        /* *_init: the bytes move at each start (rt_record_completion). */
        rt_ctx_add(c->ctx, dt, 0, 0);
        if (c->rc == MPI_SUCCESS)
            rt_remember_coll(c, sent, recv);
        return;
    }
    rt_ctx_add(c->ctx, dt, sent, recv);
}

/* A one-sided call (rules RMA_PUT, RMA_GET): the bytes each way, the target as
 * the peer. */
static void rt_charge_rma(struct rt_call *c, uint64_t dt)
{
    struct rt_args *a = &c->a;
    uint64_t sent = 0, recv = 0;
    MPI_Count sc = (c->roles & RT_ROLE_SCOUNT) ? a->scount : 1;
    MPI_Count rcnt = (c->roles & RT_ROLE_RCOUNT) ? a->rcount : 1;
    if (c->rc == MPI_SUCCESS) {
        sent = (c->roles & RT_ROLE_STYPE) ? rt_type_bytes(a->stype, sc) : 0;
        recv = (c->roles & RT_ROLE_RTYPE) ? rt_type_bytes(a->rtype, rcnt) : 0;
    }
    rt_ctx_add(c->ctx, dt, sent, recv);
    if (c->rc == MPI_SUCCESS && a->target != MPI_PROC_NULL) {
        int32_t peer = rt_comm_world_rank(c->comm, a->target);
        uint64_t cid = c->comm ? c->comm->comm_id : 0;
        if (sent)
            rt_peer_add(c->ctx, peer, -1, cid, PRF_PEER_SEND, sent, dt, 0, 0);
        if (recv || c->rule == RT_RULE_RMA_GET)
            rt_peer_add(c->ctx, peer, -1, cid, PRF_PEER_RECV, recv, dt, 0, 0);
    }
}

/* File I/O: the bytes written and read. */
static void rt_charge_io(struct rt_call *c, uint64_t dt)
{
    struct rt_args *a = &c->a;
    uint64_t sent = 0, recv = 0;
    if (c->rc == MPI_SUCCESS) {
        if (c->roles & RT_ROLE_SCOUNT)
            sent = rt_type_bytes(a->stype, a->scount);
        if (c->roles & RT_ROLE_RCOUNT)
            recv = rt_type_bytes(a->rtype, a->rcount);
    }
    rt_ctx_add(c->ctx, dt, sent, recv);
}

void rt_call_exit(struct rt_call *c)
{
    c->t1 = rt_ticks();
    struct rt_thread *t = c->t;
    if (!t)
        return;
    t->in_rt = 1;
    t->cur_mpi_node = PRF_NONE;
    uint64_t dt = c->t1 - c->t0;
    struct rt_args *a = &c->a;
    switch (c->rule) {
    case RT_RULE_SEND:
    case RT_RULE_RECV:
    case RT_RULE_MRECV:
    case RT_RULE_SENDRECV:
    case RT_RULE_PROBE:
    case RT_RULE_MPROBE:
        rt_record_p2p(c, dt);
        break;
    case RT_RULE_WAIT: case RT_RULE_WAITANY: case RT_RULE_WAITSOME: case RT_RULE_WAITALL:
    case RT_RULE_TEST: case RT_RULE_TESTANY: case RT_RULE_TESTSOME: case RT_RULE_TESTALL:
    case RT_RULE_START: case RT_RULE_STARTALL: case RT_RULE_REQUEST_FREE: case RT_RULE_GET_STATUS:
        rt_record_completion(c, dt);
        break;
    case RT_RULE_COMM_IDUP:
        rt_ctx_add(c->ctx, dt, 0, 0);
        if (c->rc == MPI_SUCCESS && a->request)
            rt_comm_idup_started(c->comm, (c->flags & RT_CALL_FORTRAN) ? NULL : a->newcomm, c->f_newcomm,
                                 *a->request);
        break;
    case RT_RULE_BARRIER: case RT_RULE_BCAST: case RT_RULE_REDUCE: case RT_RULE_ALLREDUCE:
    case RT_RULE_GATHER: case RT_RULE_GATHERV: case RT_RULE_SCATTER: case RT_RULE_SCATTERV:
    case RT_RULE_ALLGATHER: case RT_RULE_ALLGATHERV: case RT_RULE_ALLTOALL: case RT_RULE_ALLTOALLV:
    case RT_RULE_ALLTOALLW: case RT_RULE_REDUCE_SCATTER: case RT_RULE_REDUCE_SCATTER_BLOCK:
    case RT_RULE_NEIGHBOR_ALLGATHER: case RT_RULE_NEIGHBOR_ALLGATHERV: case RT_RULE_NEIGHBOR_ALLTOALL:
    case RT_RULE_NEIGHBOR_ALLTOALLV: case RT_RULE_NEIGHBOR_ALLTOALLW:
        rt_charge_coll(c, dt);
        break;
    case RT_RULE_COMM_NEW:
        rt_ctx_add(c->ctx, dt, 0, 0);
        if (c->rc == MPI_SUCCESS && a->newcomm && *a->newcomm != MPI_COMM_NULL)
            rt_comm_created(*a->newcomm);
        break;
    case RT_RULE_COMM_FREE:
        rt_ctx_add(c->ctx, dt, 0, 0);
        if (c->rc == MPI_SUCCESS)
            rt_comm_freed(c->comm_saved);
        break;
    case RT_RULE_WIN_NEW:
        rt_ctx_add(c->ctx, dt, 0, 0);
        if (c->rc == MPI_SUCCESS && a->winp)
            rt_win_created(*a->winp, a->comm);
        break;
    case RT_RULE_WIN_FREE:
        rt_ctx_add(c->ctx, dt, 0, 0);
        if (c->rc == MPI_SUCCESS)
            rt_win_freed(c->win_saved);
        break;
    case RT_RULE_RMA_PUT:
    case RT_RULE_RMA_GET:
        rt_charge_rma(c, dt);
        break;
    case RT_RULE_IO:
        rt_charge_io(c, dt);
        break;
    default:
        rt_ctx_add(c->ctx, dt, 0, 0);
        break;
    }
    t->depth--;
    if (t->depth == 0)
        rt_iv_begin(t, c->ctx); /* the next interval starts after the wrapper's own work */
    t->in_rt = 0;
}
