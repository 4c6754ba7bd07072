/* rt_call.c — what every generated wrapper does around its PMPI call:
 * capture the calling context, time the call, and charge it by its rule
 * (bytes, peers as world ranks, requests remembered at start and charged at
 * completion, communicators created and freed). */
#include "rt_mpi.h"

#include <stdlib.h>
#include <string.h>

/* ---- per-thread scratch (private statuses and request copies) --------------- */
struct rt_scratch { void *p[4]; size_t n[4]; };
static RT_TLS struct rt_scratch rt_scr;

static void *rt_scratch(int slot, size_t bytes)
{
    if (rt_scr.n[slot] < bytes) {
        size_t want = bytes < 4096 ? 4096 : bytes * 2;
        void *p = realloc(rt_scr.p[slot], want);
        if (!p)
            return NULL;
        rt_scr.p[slot] = p;
        rt_scr.n[slot] = want;
    }
    return rt_scr.p[slot];
}

void rt_call_thread_exit(void)
{
    for (int i = 0; i < 4; i++) {
        free(rt_scr.p[i]);
        rt_scr.p[i] = NULL;
        rt_scr.n[i] = 0;
    }
    rt_fortran_thread_exit();
}

MPI_Status *rt_scratch_statuses(struct rt_call *c, int n)
{
    (void)c;
    if (n <= 0)
        return MPI_STATUSES_IGNORE;
    MPI_Status *s = rt_scratch(0, (size_t)n * sizeof(MPI_Status));
    return s ? s : MPI_STATUSES_IGNORE;
}

static void rt_complete(MPI_Request saved, const MPI_Status *st, uint64_t time_ns, int last,
                        uint64_t last_wait_ns);

/* MPI_Request_free of a request we follow: when it has already completed
 * (the application learnt it otherwise, or never asks), charge it now with
 * its status, which the free would discard.  MPI_Request_get_status only
 * reads the request. */
static void rt_free_peek(struct rt_call *c)
{
    MPI_Request h = c->req_saved;
    if (h == MPI_REQUEST_NULL)
        return;
    rt_req_lock();
    struct rt_req *r = rt_req_find(RT_KEY(h));
    int follow = r && (r->kind == RT_REQ_SEND || r->kind == RT_REQ_RECV) && (!r->persistent || r->active);
    rt_req_unlock();
    if (!follow)
        return;
    int flag = 0;
    MPI_Status st;
    if (PMPI_Request_get_status(h, &flag, &st) == MPI_SUCCESS && flag)
        rt_complete(h, &st, 0, 0, 0);
}

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

    if (c->roles & RT_ROLE_COMM)
        c->comm = rt_comm_lookup(c->rule == RT_RULE_COMM_FREE ? c->comm_saved : c->a.comm);
    else if ((c->roles & RT_ROLE_WIN) && c->rule != RT_RULE_WIN_NEW)
        c->comm = rt_win_comm(c->rule == RT_RULE_WIN_FREE ? c->win_saved : c->a.win);
    uint64_t comm_id = c->comm ? c->comm->comm_id : 0;

    void *frames[RT_MAX_DEPTH];
    int truncated = 0;
    int n = rt_capture_path(frames, RT_MAX_DEPTH, &truncated);
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

static uint64_t rt_type_bytes(MPI_Datatype t, long count)
{
    int size = 0;
    if (count <= 0 || t == MPI_DATATYPE_NULL || PMPI_Type_size(t, &size) != MPI_SUCCESS || size < 0)
        return 0;
    return (uint64_t)count * (uint64_t)size;
}

static uint64_t rt_status_bytes(const MPI_Status *st)
{
    int n = 0;
    if (PMPI_Get_count(st, MPI_BYTE, &n) != MPI_SUCCESS || n == MPI_UNDEFINED || n < 0)
        return 0;
    return (uint64_t)n;
}

static int rt_comm_size_for(const struct rt_call *c)
{
    /* Collective fan-out: the remote group's size for intercommunicators. */
    if (!c->comm)
        return 1;
    return (c->comm->flags & PRF_COMM_INTER) ? (int)c->comm->remote_size : (int)c->comm->size;
}

static long rt_sum(const int *v, int n)
{
    long s = 0;
    if (!v)
        return 0;
    for (int i = 0; i < n; i++)
        s += v[i];
    return s;
}

void rt_neighbors(MPI_Comm comm, int *indeg, int *outdeg)
{
    int kind = MPI_UNDEFINED, w = 0;
    *indeg = *outdeg = 0;
    if (PMPI_Topo_test(comm, &kind) != MPI_SUCCESS)
        return;
    if (kind == MPI_CART) {
        int nd = 0;
        PMPI_Cartdim_get(comm, &nd);
        *indeg = *outdeg = 2 * nd;
    } else if (kind == MPI_GRAPH) {
        int r = 0, n = 0;
        PMPI_Comm_rank(comm, &r);
        PMPI_Graph_neighbors_count(comm, r, &n);
        *indeg = *outdeg = n;
    } else if (kind == MPI_DIST_GRAPH) {
        PMPI_Dist_graph_neighbors_count(comm, indeg, outdeg, &w);
    }
}

static int rt_is_root(const struct rt_call *c)
{
    if (!c->comm)
        return 0;
    if (c->comm->flags & PRF_COMM_INTER)
        return c->a.root == MPI_ROOT;
    return c->a.root == (int)c->comm->local_rank;
}

/* Bytes this rank sends and receives in a collective (docs/runtime.md). */
static void rt_coll_bytes(const struct rt_call *c, uint64_t *sent, uint64_t *recv)
{
    const struct rt_args *a = &c->a;
    int p = rt_comm_size_for(c);
    int inplace = (c->roles & RT_ROLE_SBUF) && a->sbuf == MPI_IN_PLACE;
    int me = c->comm ? (int)c->comm->local_rank : 0;
    int inter = c->comm && (c->comm->flags & PRF_COMM_INTER);
    int root = rt_is_root(c);
    int nonroot_inter = inter && a->root == MPI_PROC_NULL; /* inter: not participating */
    *sent = *recv = 0;
    switch (c->rule) {
    case RT_RULE_BARRIER:
        break;
    case RT_RULE_BCAST:
        if (nonroot_inter)
            break;
        if (root)
            *sent = rt_type_bytes(a->stype, a->scount);
        else
            *recv = rt_type_bytes(a->stype, a->scount);
        break;
    case RT_RULE_REDUCE:
        if (nonroot_inter)
            break;
        if (!(inter && root))
            *sent = rt_type_bytes(a->stype, a->scount);
        if (root)
            *recv = rt_type_bytes(a->stype, a->scount);
        break;
    case RT_RULE_ALLREDUCE:
        *sent = *recv = rt_type_bytes(a->stype, a->scount);
        break;
    case RT_RULE_GATHER:
    case RT_RULE_GATHERV:
        if (nonroot_inter)
            break;
        if (!(inter && root))
            *sent = inplace ? rt_type_bytes(a->rtype, c->rule == RT_RULE_GATHER ? a->rcount
                                                             : (a->rcounts ? a->rcounts[me] : 0))
                            : rt_type_bytes(a->stype, a->scount);
        if (root)
            *recv = c->rule == RT_RULE_GATHER ? rt_type_bytes(a->rtype, (long)a->rcount * p)
                                              : rt_type_bytes(a->rtype, rt_sum(a->rcounts, p));
        break;
    case RT_RULE_SCATTER:
    case RT_RULE_SCATTERV:
        if (nonroot_inter)
            break;
        if (root)
            *sent = c->rule == RT_RULE_SCATTER ? rt_type_bytes(a->stype, (long)a->scount * p)
                                               : rt_type_bytes(a->stype, rt_sum(a->scounts, p));
        if (!(inter && root))
            *recv = (a->rbuf == MPI_IN_PLACE)
                        ? rt_type_bytes(a->stype, c->rule == RT_RULE_SCATTER ? a->scount
                                                        : (a->scounts ? a->scounts[me] : 0))
                        : rt_type_bytes(a->rtype, a->rcount);
        break;
    case RT_RULE_ALLGATHER:
    case RT_RULE_ALLGATHERV: {
        long rc = c->rule == RT_RULE_ALLGATHER ? (long)a->rcount * p : rt_sum(a->rcounts, p);
        *sent = inplace ? rt_type_bytes(a->rtype, c->rule == RT_RULE_ALLGATHER ? a->rcount
                                                          : (a->rcounts ? a->rcounts[me] : 0))
                        : rt_type_bytes(a->stype, a->scount);
        *recv = rt_type_bytes(a->rtype, rc);
        break;
    }
    case RT_RULE_ALLTOALL:
        *sent = inplace ? rt_type_bytes(a->rtype, (long)a->rcount * p) : rt_type_bytes(a->stype, (long)a->scount * p);
        *recv = rt_type_bytes(a->rtype, (long)a->rcount * p);
        break;
    case RT_RULE_ALLTOALLV:
        *sent = inplace ? rt_type_bytes(a->rtype, rt_sum(a->rcounts, p)) : rt_type_bytes(a->stype, rt_sum(a->scounts, p));
        *recv = rt_type_bytes(a->rtype, rt_sum(a->rcounts, p));
        break;
    case RT_RULE_ALLTOALLW:
        for (int i = 0; i < p; i++) {
            if (!inplace && a->scounts && a->stypes)
                *sent += rt_type_bytes(a->stypes[i], a->scounts[i]);
            if (a->rcounts && a->rtypes)
                *recv += rt_type_bytes(a->rtypes[i], a->rcounts[i]);
        }
        if (inplace)
            *sent = *recv;
        break;
    case RT_RULE_REDUCE_SCATTER:
        *sent = rt_type_bytes(a->stype, rt_sum(a->rcounts, inter ? (int)c->comm->size : p));
        *recv = a->rcounts ? rt_type_bytes(a->stype, a->rcounts[me]) : 0;
        break;
    case RT_RULE_REDUCE_SCATTER_BLOCK:
        *sent = rt_type_bytes(a->stype, (long)a->rcount * (inter ? (int)c->comm->size : p));
        *recv = rt_type_bytes(a->stype, a->rcount);
        break;
    case RT_RULE_NEIGHBOR_ALLGATHER:
    case RT_RULE_NEIGHBOR_ALLGATHERV:
    case RT_RULE_NEIGHBOR_ALLTOALL:
    case RT_RULE_NEIGHBOR_ALLTOALLV:
    case RT_RULE_NEIGHBOR_ALLTOALLW: {
        int in = 0, out = 0;
        rt_neighbors(a->comm, &in, &out);
        if (c->rule == RT_RULE_NEIGHBOR_ALLGATHER) {
            *sent = rt_type_bytes(a->stype, (long)a->scount * out);
            *recv = rt_type_bytes(a->rtype, (long)a->rcount * in);
        } else if (c->rule == RT_RULE_NEIGHBOR_ALLGATHERV) {
            *sent = rt_type_bytes(a->stype, (long)a->scount * out);
            *recv = rt_type_bytes(a->rtype, rt_sum(a->rcounts, in));
        } else if (c->rule == RT_RULE_NEIGHBOR_ALLTOALL) {
            *sent = rt_type_bytes(a->stype, (long)a->scount * out);
            *recv = rt_type_bytes(a->rtype, (long)a->rcount * in);
        } else if (c->rule == RT_RULE_NEIGHBOR_ALLTOALLV) {
            *sent = rt_type_bytes(a->stype, rt_sum(a->scounts, out));
            *recv = rt_type_bytes(a->rtype, rt_sum(a->rcounts, in));
        } else {
            for (int i = 0; i < out && a->stypes && a->scounts; i++)
                *sent += rt_type_bytes(a->stypes[i], a->scounts[i]);
            for (int i = 0; i < in && a->rtypes && a->rcounts; i++)
                *recv += rt_type_bytes(a->rtypes[i], a->rcounts[i]);
        }
        break;
    }
    default:
        break;
    }
}

/* ---- completion ------------------------------------------------------------------ */
/* Charges the request that was `saved` before a Wait/Test call and completed
 * with status st; time_ns: wait time charged to it; last: it completed in the
 * final batch of a multi-request wait lasting last_wait_ns. */
static void rt_complete(MPI_Request saved, const MPI_Status *st, uint64_t time_ns, int last,
                        uint64_t last_wait_ns)
{
    if (saved == MPI_REQUEST_NULL)
        return;
    rt_comm_request_done(saved);
    rt_req_lock();
    struct rt_req *r = rt_req_find(RT_KEY(saved));
    if (!r || (r->persistent && !r->active)) {
        rt_req_unlock();
        return;
    }
    struct rt_req q = *r;
    if (r->persistent)
        r->active = 0;
    else
        rt_req_remove(r);
    rt_req_unlock();
    if (q.kind != RT_REQ_SEND && q.kind != RT_REQ_RECV)
        return;
    if (st && st != MPI_STATUS_IGNORE) {
        int cancelled = 0;
        if (PMPI_Test_cancelled(st, &cancelled) == MPI_SUCCESS && cancelled)
            return;
    }
    if (q.kind == RT_REQ_SEND) {
        if (q.peer != RT_NO_PEER)
            rt_peer_add(q.ctx, q.peer, q.tag, q.comm_id, PRF_PEER_SEND, q.bytes, time_ns, last, last_wait_ns);
        return;
    }
    if (!st || st == MPI_STATUS_IGNORE || st->MPI_SOURCE == MPI_PROC_NULL)
        return;
    uint64_t bytes = rt_status_bytes(st);
    int32_t peer = q.peer != PRF_ANY_RANK ? q.peer : rt_comm_world_rank(q.comm, st->MPI_SOURCE);
    rt_ctx_bytes(q.ctx, 0, bytes);
    rt_peer_add(q.ctx, peer, st->MPI_TAG, q.comm_id, PRF_PEER_RECV, bytes, time_ns, last, last_wait_ns);
}

/* Remembers a started non-blocking point-to-point operation. */
static void rt_remember(struct rt_call *c, uint32_t kind, int32_t peer, int tag, uint64_t bytes)
{
    if (c->rc != MPI_SUCCESS || !c->a.request || *c->a.request == MPI_REQUEST_NULL)
        return;
    rt_req_lock();
    /* Some libraries hand out one shared handle for sends that completed at
     * once (Open MPI's ompi_request_empty): the earlier send on that handle
     * is complete, charge it now. */
    struct rt_req *old = rt_req_find(RT_KEY(*c->a.request));
    struct rt_req prev = {0};
    if (old && old->active && !old->persistent && old->kind == RT_REQ_SEND)
        prev = *old;
    struct rt_req *r = rt_req_insert(RT_KEY(*c->a.request));
    if (!r)
        rt_fail("mpi", "out of memory: non-blocking requests are not followed");
    if (r) {
        r->ctx = c->ctx;
        r->kind = kind;
        r->peer = peer;
        r->tag = tag;
        r->comm_id = c->comm ? c->comm->comm_id : 0;
        r->comm = c->comm;
        r->bytes = bytes;
        r->persistent = (c->flags & RT_CALL_PERSISTENT) != 0;
        r->active = !r->persistent;
    }
    rt_req_unlock();
    if (prev.kind == RT_REQ_SEND && prev.peer != RT_NO_PEER)
        rt_peer_add(prev.ctx, prev.peer, prev.tag, prev.comm_id, PRF_PEER_SEND, prev.bytes, 0, 0, 0);
}

static int32_t rt_peer_of(struct rt_call *c, int r)
{
    if (r == MPI_PROC_NULL)
        return RT_NO_PEER;
    if (r == MPI_ANY_SOURCE)
        return PRF_ANY_RANK;
    return rt_comm_world_rank(c->comm, r);
}

static void rt_record_p2p(struct rt_call *c, uint64_t dt)
{
    struct rt_args *a = &c->a;
    uint64_t comm_id = c->comm ? c->comm->comm_id : 0;
    int ok = c->rc == MPI_SUCCESS;
    switch (c->rule) {
    case RT_RULE_SEND: {
        int32_t peer = rt_peer_of(c, a->peer);
        uint64_t bytes = peer == RT_NO_PEER ? 0 : rt_type_bytes(a->stype, a->scount);
        if (c->flags & RT_CALL_NONBLOCKING) {
            rt_ctx_add(c->ctx, dt, (c->flags & RT_CALL_PERSISTENT) || !ok ? 0 : bytes, 0);
            rt_remember(c, RT_REQ_SEND, peer, a->tag, bytes);
        } else {
            rt_ctx_add(c->ctx, dt, ok ? bytes : 0, 0);
            if (ok && peer != RT_NO_PEER)
                rt_peer_add(c->ctx, peer, a->tag, comm_id, PRF_PEER_SEND, bytes, dt, 0, 0);
        }
        break;
    }
    case RT_RULE_RECV:
    case RT_RULE_MRECV: {
        if (c->flags & RT_CALL_NONBLOCKING) {
            rt_ctx_add(c->ctx, dt, 0, 0);
            int32_t peer = c->rule == RT_RULE_MRECV ? PRF_ANY_RANK : rt_peer_of(c, a->peer);
            if (c->rule == RT_RULE_MRECV) {
                /* The matched message knows its communicator (from Mprobe). */
                rt_req_lock();
                struct rt_req *m = rt_req_find(RT_KEY(c->msg_saved));
                if (m) {
                    c->comm = (struct rt_comm_rec *)m->comm;
                    rt_req_remove(m);
                }
                rt_req_unlock();
            }
            if (peer != RT_NO_PEER)
                rt_remember(c, RT_REQ_RECV, peer, a->tag, 0);
            break;
        }
        uint64_t bytes = 0;
        if (c->rule == RT_RULE_MRECV) {
            rt_req_lock();
            struct rt_req *m = rt_req_find(RT_KEY(c->msg_saved));
            if (m) {
                c->comm = (struct rt_comm_rec *)m->comm;
                comm_id = m->comm_id;
                rt_req_remove(m);
            }
            rt_req_unlock();
        }
        if (ok && a->status->MPI_SOURCE != MPI_PROC_NULL) {
            bytes = rt_status_bytes(a->status);
            int32_t peer = rt_comm_world_rank(c->comm, a->status->MPI_SOURCE);
            rt_peer_add(c->ctx, peer, a->status->MPI_TAG, comm_id, PRF_PEER_RECV, bytes, dt, 0, 0);
        }
        rt_ctx_add(c->ctx, dt, 0, bytes);
        break;
    }
    case RT_RULE_SENDRECV: {
        int32_t speer = rt_peer_of(c, a->speer);
        uint64_t sb = speer == RT_NO_PEER || !ok ? 0 : rt_type_bytes(a->stype, a->scount);
        uint64_t rb = 0;
        if (speer != RT_NO_PEER && ok)
            rt_peer_add(c->ctx, speer, a->stag, comm_id, PRF_PEER_SEND, sb, dt, 0, 0);
        if (ok && a->status->MPI_SOURCE != MPI_PROC_NULL) {
            rb = rt_status_bytes(a->status);
            rt_peer_add(c->ctx, rt_comm_world_rank(c->comm, a->status->MPI_SOURCE), a->status->MPI_TAG,
                        comm_id, PRF_PEER_RECV, rb, dt, 0, 0);
        }
        rt_ctx_add(c->ctx, dt, sb, rb);
        break;
    }
    case RT_RULE_PROBE:
        rt_ctx_add(c->ctx, dt, 0, 0);
        break;
    case RT_RULE_MPROBE:
        rt_ctx_add(c->ctx, dt, 0, 0);
        if (ok && (!(c->roles & RT_ROLE_FLAG) || *a->flag) && a->message && *a->message != MPI_MESSAGE_NULL &&
            *a->message != MPI_MESSAGE_NO_PROC) {
            rt_req_lock();
            struct rt_req *m = rt_req_insert(RT_KEY(*a->message));
            if (m) {
                m->kind = RT_REQ_MESSAGE;
                m->comm = c->comm;
                m->comm_id = comm_id;
            }
            rt_req_unlock();
        }
        break;
    default:
        break;
    }
}

static void rt_record_completion(struct rt_call *c, uint64_t dt)
{
    struct rt_args *a = &c->a;
    int ok = c->rc == MPI_SUCCESS || c->rc == MPI_ERR_IN_STATUS;
    rt_ctx_add(c->ctx, dt, 0, 0);
    if (!ok)
        return;
    switch (c->rule) {
    case RT_RULE_WAIT:
        rt_complete(c->req_saved, a->status, dt, 0, 0);
        break;
    case RT_RULE_TEST:
    case RT_RULE_GET_STATUS:
        /* Request_get_status leaves the request to the application (a later
         * Wait, Test or Request_free): rt_complete forgets it, so that later
         * completion finds nothing to charge twice. */
        if (*a->flag)
            rt_complete(c->req_saved, a->status, dt, 0, 0);
        break;
    case RT_RULE_WAITANY:
    case RT_RULE_TESTANY:
        if (c->reqs_saved && (c->rule == RT_RULE_WAITANY || *a->flag) && *a->index != MPI_UNDEFINED &&
            *a->index >= 0 && *a->index < a->nreq)
            rt_complete(c->reqs_saved[*a->index], a->status, dt, 0, 0);
        break;
    case RT_RULE_WAITSOME:
    case RT_RULE_TESTSOME:
        if (c->reqs_saved && *a->outcount != MPI_UNDEFINED)
            for (int k = 0; k < *a->outcount; k++) {
                int i = a->indices[k];
                if (i >= 0 && i < a->nreq)
                    rt_complete(c->reqs_saved[i], a->statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE
                                                                                    : &a->statuses[k],
                                dt, 0, 0);
            }
        break;
    case RT_RULE_WAITALL:
        if (c->flags & RT_CALL_SPLIT)
            break; /* charged by rt_waitall_split */
        /* fall through */
    case RT_RULE_TESTALL:
        if (c->rc == MPI_ERR_IN_STATUS) {
            /* Each status tells whether its request completed (with or
             * without an error) or is still pending. */
            if (c->reqs_saved && a->statuses != MPI_STATUSES_IGNORE)
                for (int i = 0; i < a->nreq; i++)
                    if (a->statuses[i].MPI_ERROR != MPI_ERR_PENDING)
                        rt_complete(c->reqs_saved[i], &a->statuses[i], dt, 0, 0);
            break;
        }
        if (c->reqs_saved && (c->rule == RT_RULE_WAITALL || *a->flag))
            for (int i = 0; i < a->nreq; i++)
                rt_complete(c->reqs_saved[i], a->statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE
                                                                                : &a->statuses[i],
                            dt, 0, 0);
        break;
    case RT_RULE_START:
    case RT_RULE_STARTALL: {
        int n = c->rule == RT_RULE_START ? 1 : a->nreq;
        rt_req_lock();
        for (int i = 0; i < n; i++) {
            MPI_Request h = c->rule == RT_RULE_START ? c->req_saved : (c->reqs_saved ? c->reqs_saved[i] : MPI_REQUEST_NULL);
            struct rt_req *r = h == MPI_REQUEST_NULL ? NULL : rt_req_find(RT_KEY(h));
            if (r && r->persistent) {
                r->active = 1;
                if (r->kind == RT_REQ_SEND)
                    rt_ctx_bytes(r->ctx, r->bytes, 0);
            }
        }
        rt_req_unlock();
        break;
    }
    case RT_RULE_REQUEST_FREE: {
        /* Freed before completion: the transfer still happens; charge it
         * without a wait time. */
        if (c->req_saved == MPI_REQUEST_NULL)
            break;
        rt_req_lock();
        struct rt_req *r = rt_req_find(RT_KEY(c->req_saved));
        struct rt_req q = {0};
        if (r) {
            q = *r;
            rt_req_remove(r);
        }
        rt_req_unlock();
        if (r && q.active && q.kind == RT_REQ_SEND && q.peer != RT_NO_PEER)
            rt_peer_add(q.ctx, q.peer, q.tag, q.comm_id, PRF_PEER_SEND, q.bytes, 0, 0, 0);
        break;
    }
    default:
        break;
    }
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
    uint64_t sent = 0, recv = 0;
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
        if (c->rc == MPI_SUCCESS)
            rt_coll_bytes(c, &sent, &recv);
        rt_ctx_add(c->ctx, dt, sent, recv);
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
    case RT_RULE_RMA_GET: {
        long sc = (c->roles & RT_ROLE_SCOUNT) ? a->scount : 1;
        long rcnt = (c->roles & RT_ROLE_RCOUNT) ? a->rcount : 1;
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
        break;
    }
    case RT_RULE_IO:
        if (c->rc == MPI_SUCCESS) {
            if (c->roles & RT_ROLE_SCOUNT)
                sent = rt_type_bytes(a->stype, a->scount);
            if (c->roles & RT_ROLE_RCOUNT)
                recv = rt_type_bytes(a->rtype, a->rcount);
        }
        rt_ctx_add(c->ctx, dt, sent, recv);
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

/* ---- Waitall through Waitsome --------------------------------------------------- */
int rt_waitall_split(struct rt_call *c)
{
    struct rt_args *a = &c->a;
    int n = a->nreq;
    /* An error the application can see must come from its own MPI_Waitall
     * (error class, statuses, which requests are freed): no split then. */
    if (n <= 0 || !c->reqs_saved || rt_errors_visible)
        return PMPI_Waitall(n, a->requests, a->statuses);
    size_t need = (size_t)n * (sizeof(MPI_Status) + sizeof(int) + sizeof(uint64_t) + sizeof(int));
    unsigned char *mem = rt_scratch(2, need);
    if (!mem)
        return PMPI_Waitall(n, a->requests, a->statuses);
    MPI_Status *st = (MPI_Status *)mem;
    int *idx = (int *)(st + n);
    uint64_t *done = (uint64_t *)(void *)(((uintptr_t)(idx + n) + 7) & ~(uintptr_t)7);
    int *batch = (int *)(done + n);
    if ((unsigned char *)(batch + n) > mem + need) {
        mem = rt_scratch(2, need + 16);
        if (!mem)
            return PMPI_Waitall(n, a->requests, a->statuses);
        st = (MPI_Status *)mem;
        idx = (int *)(st + n);
        done = (uint64_t *)(void *)(((uintptr_t)(idx + n) + 7) & ~(uintptr_t)7);
        batch = (int *)(done + n);
    }
    /* A request we did not see start (MPI-IO, generalized, RMA) may fail
     * under its own error handler (files: MPI_ERRORS_RETURN): then the whole
     * call is the application's own Waitall, decided before anything is
     * completed. */
    rt_req_lock();
    for (int i = 0; i < n; i++)
        if (a->requests[i] != MPI_REQUEST_NULL && !rt_req_find(RT_KEY(a->requests[i]))) {
            rt_req_unlock();
            return PMPI_Waitall(n, a->requests, a->statuses);
        }
    rt_req_unlock();
    int remaining = 0;
    for (int i = 0; i < n; i++) {
        batch[i] = -1;
        int inactive = 0;
        if (a->requests[i] != MPI_REQUEST_NULL) {
            rt_req_lock();
            struct rt_req *r = rt_req_find(RT_KEY(a->requests[i]));
            inactive = r && r->persistent && !r->active;
            rt_req_unlock();
        }
        if (a->requests[i] == MPI_REQUEST_NULL || inactive) {
            /* Waitall gives null and inactive requests an empty status: so
             * does Wait, which leaves them as they are. */
            MPI_Request h = a->requests[i];
            PMPI_Wait(&h, &a->statuses[i]);
            batch[i] = -2;
        } else
            remaining++;
    }
    int rc = MPI_SUCCESS, nbatch = 0, out = 0;
    while (remaining > 0) {
        out = 0;
        rc = PMPI_Waitsome(n, a->requests, &out, idx, st);
        if (rc != MPI_SUCCESS || out == MPI_UNDEFINED)
            break;
        uint64_t now = rt_ticks();
        for (int k = 0; k < out; k++) {
            int i = idx[k];
            a->statuses[i] = st[k];
            done[i] = now;
            batch[i] = nbatch;
        }
        nbatch++;
        remaining -= out;
    }
    if (rc != MPI_SUCCESS) {
        /* Only reached when an error handler was installed behind our back
         * (rt_errh.c sees the usual ones).  The requests Waitsome completed
         * are freed: never hand them to the library again.  Waitall's result
         * as the standard defines it: MPI_ERR_IN_STATUS, the error of each
         * request in its status, MPI_SUCCESS for those completed before,
         * MPI_ERR_PENDING for those still outstanding (left active). */
        if (rc != MPI_ERR_IN_STATUS || out == MPI_UNDEFINED)
            return rc;
        for (int i = 0; i < n; i++)
            a->statuses[i].MPI_ERROR = batch[i] == -1 ? MPI_ERR_PENDING : MPI_SUCCESS;
        for (int k = 0; k < out; k++)
            a->statuses[idx[k]] = st[k];
        return rc;
    }
    uint64_t end = rt_ticks();
    c->flags |= RT_CALL_SPLIT;
    struct rt_thread *t = c->t;
    if (t)
        t->in_rt = 1;
    for (int i = 0; i < n; i++)
        if (batch[i] >= 0)
            rt_complete(c->reqs_saved[i], &a->statuses[i], done[i] - c->t0, batch[i] == nbatch - 1,
                        end - c->t0);
    if (t)
        t->in_rt = 0;
    return rc;
}
