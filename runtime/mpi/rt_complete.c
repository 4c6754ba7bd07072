/* rt_complete.c — charging point-to-point calls and completions: a started
 * non-blocking operation is remembered by its request and charged (bytes,
 * peer as a world rank, wait time) when a Wait/Test call, Request_free or
 * the Waitall split completes it; persistent requests by Start.  MPI-4.0:
 * a partitioned request is one message per round with all partitions'
 * bytes, an Isendrecv a send and a receive on one request, and a
 * persistent collective one collective per start (docs/runtime.md). */
#include "core/rt_core.h"
#include "threads/rt_threads.h"
#include "tables/rt_tables.h"
#include "rt_mpi.h"

/* MPI_Request_free of a request we follow: when it has already completed
 * (the application learnt it otherwise, or never asks), charge it now with
 * its status, which the free would discard.  MPI_Request_get_status only
 * reads the request. */
void rt_free_peek(struct rt_call *c)
{
    MPI_Request h = c->req_saved;
    if (h == MPI_REQUEST_NULL)
        return;
    rt_req_lock();
    struct rt_req *r = rt_req_find(RT_KEY(h));
    int follow = r && (r->kind == RT_REQ_SEND || r->kind == RT_REQ_RECV || r->kind == RT_REQ_SENDRECV) &&
                 (!r->persistent || r->active);
    rt_req_unlock();
    if (!follow)
        return;
    int flag = 0;
    MPI_Status st;
    if (PMPI_Request_get_status(h, &flag, &st) == MPI_SUCCESS && flag)
        rt_complete(h, &st, 0, 0, 0);
}

/* ---- completion ------------------------------------------------------------------ */
/* Charges the request that was `saved` before a Wait/Test call and completed
 * with status st; time_ns: wait time charged to it; last: it completed in the
 * final batch of a multi-request wait lasting last_wait_ns. */
void rt_complete(MPI_Request saved, const MPI_Status *st, uint64_t time_ns, int last,
                        uint64_t last_wait_ns)
{
    if (saved == MPI_REQUEST_NULL)
        return;
    rt_comm_request_done(saved);
    /* The request this call completed was started before the call began:
     * an entry of the same handle inserted since is a later request another
     * thread was given the freed handle for (MPI_THREAD_MULTIPLE). */
    struct rt_thread *self = rt_self;
    uint64_t before = self ? self->req_seq0 : UINT64_MAX;
    rt_req_lock();
    struct rt_req *r = rt_req_find_before(RT_KEY(saved), before);
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
    if (q.kind != RT_REQ_SEND && q.kind != RT_REQ_RECV && q.kind != RT_REQ_SENDRECV)
        return;
    if (st && st != MPI_STATUS_IGNORE) {
        int cancelled = 0;
        if (PMPI_Test_cancelled(st, &cancelled) == MPI_SUCCESS && cancelled)
            return;
    }
    if (q.kind == RT_REQ_SEND || q.kind == RT_REQ_SENDRECV) {
        if (q.peer != RT_NO_PEER)
            rt_peer_add(q.ctx, q.peer, q.tag, q.comm_id, PRF_PEER_SEND, q.bytes, time_ns, last, last_wait_ns);
        if (q.kind == RT_REQ_SEND)
            return;
        /* The receive half, from the status as any receive; but MPICH 4.0.2
         * leaves an Isendrecv's status unwritten: a status naming no source
         * (the wrappers' private one starts so), or another source or tag
         * than the ones asked for, is not this receive's, which is then
         * charged by its arguments (its capacity). */
        q.peer = q.rpeer;
        q.tag = q.rtag;
        if (q.peer != RT_NO_PEER && (!st || st == MPI_STATUS_IGNORE || st->MPI_SOURCE == MPI_ANY_SOURCE)) {
            q.fixed = 1;
            q.bytes = q.rbytes;
        } else if (st->MPI_SOURCE != MPI_PROC_NULL && q.peer != RT_NO_PEER &&
            ((q.tag != MPI_ANY_TAG && st->MPI_TAG != q.tag) ||
             (q.peer != PRF_ANY_RANK && rt_comm_world_rank(q.comm, st->MPI_SOURCE) != q.peer))) {
            q.fixed = 1;
            q.bytes = q.rbytes;
        }
    }
    if (q.fixed) {
        /* A partitioned receive: one message of every partition from the
         * peer named at init (no wildcards), whatever the status says. */
        rt_ctx_bytes(q.ctx, 0, q.bytes);
        rt_peer_add(q.ctx, q.peer, q.tag, q.comm_id, PRF_PEER_RECV, q.bytes, time_ns, last, last_wait_ns);
        return;
    }
    if (!st || st == MPI_STATUS_IGNORE || st->MPI_SOURCE == MPI_PROC_NULL || q.peer == RT_NO_PEER)
        return;
    uint64_t bytes = rt_status_bytes(st);
    int32_t peer = q.peer != PRF_ANY_RANK ? q.peer : rt_comm_world_rank(q.comm, st->MPI_SOURCE);
    rt_ctx_bytes(q.ctx, 0, bytes);
    rt_peer_add(q.ctx, peer, st->MPI_TAG, q.comm_id, PRF_PEER_RECV, bytes, time_ns, last, last_wait_ns);
}

/* The second half of a remembered request (rt_remember): an Isendrecv's
 * receive, a partitioned receive's fixed bytes, a persistent collective. */
struct rt_req_more {
    int32_t rpeer, rtag;
    uint64_t rbytes;
    uint32_t op;
    uint8_t fixed;
};

/* Remembers a started non-blocking point-to-point operation (more: NULL or
 * its second half). */
static void rt_remember2(struct rt_call *c, uint32_t kind, int32_t peer, int tag, uint64_t bytes,
                         const struct rt_req_more *more)
{
    if (c->rc != MPI_SUCCESS || !c->a.request || *c->a.request == MPI_REQUEST_NULL)
        return;
    rt_req_lock();
    /* Some libraries hand out one shared handle for sends that completed at
     * once (Open MPI's ompi_request_empty): the earlier send on that handle
     * is complete, charge it now. */
    struct rt_req *old = rt_req_find(RT_KEY(*c->a.request));
    struct rt_req prev = {0};
    if (old && old->active && !old->persistent && old->kind == RT_REQ_SEND) {
        prev = *old;
        rt_req_remove(old);
    }
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
        if (more) {
            r->rpeer = more->rpeer;
            r->rtag = more->rtag;
            r->rbytes = more->rbytes;
            r->op = more->op;
            r->fixed = more->fixed;
        }
    }
    rt_req_unlock();
    if (prev.kind == RT_REQ_SEND && prev.peer != RT_NO_PEER)
        rt_peer_add(prev.ctx, prev.peer, prev.tag, prev.comm_id, PRF_PEER_SEND, prev.bytes, 0, 0, 0);
}

static void rt_remember(struct rt_call *c, uint32_t kind, int32_t peer, int tag, uint64_t bytes)
{
    rt_remember2(c, kind, peer, tag, bytes, NULL);
}

void rt_remember_coll(struct rt_call *c, uint64_t sent, uint64_t recv)
{
    struct rt_req_more m = {.op = c->op, .rbytes = recv};
    rt_remember2(c, RT_REQ_COLL, RT_NO_PEER, 0, sent, &m);
}

void rt_start_peek(struct rt_call *c)
{
    rt_req_lock();
    struct rt_req *r = rt_req_find(RT_KEY(c->req_saved));
    if (r && r->kind == RT_REQ_COLL) {
        c->op = r->op;
        c->comm = (struct rt_comm_rec *)r->comm;
    }
    rt_req_unlock();
}

/* A partitioned request's elements: partitions x count (the parts role). */
static MPI_Count rt_elements(const struct rt_call *c, MPI_Count count)
{
    return (c->roles & RT_ROLE_PARTS) ? count * (c->a.parts > 0 ? c->a.parts : 0) : count;
}

static int32_t rt_peer_of(struct rt_call *c, int r)
{
    if (r == MPI_PROC_NULL)
        return RT_NO_PEER;
    if (r == MPI_ANY_SOURCE)
        return PRF_ANY_RANK;
    return rt_comm_world_rank(c->comm, r);
}

/* A send, blocking or started (then remembered for its completion). */
static void rt_p2p_send(struct rt_call *c, uint64_t dt, uint64_t comm_id, int ok)
{
    struct rt_args *a = &c->a;
    int32_t peer = rt_peer_of(c, a->peer);
    uint64_t bytes = peer == RT_NO_PEER ? 0 : rt_type_bytes(a->stype, rt_elements(c, a->scount));
    if (c->flags & RT_CALL_NONBLOCKING) {
        rt_ctx_add(c->ctx, dt, (c->flags & RT_CALL_PERSISTENT) || !ok ? 0 : bytes, 0);
        rt_remember(c, RT_REQ_SEND, peer, a->tag, bytes);
    } else {
        rt_ctx_add(c->ctx, dt, ok ? bytes : 0, 0);
        if (ok && peer != RT_NO_PEER)
            rt_peer_add(c->ctx, peer, a->tag, comm_id, PRF_PEER_SEND, bytes, dt, 0, 0);
    }
}

/* A receive (MPI_Mrecv: of the message Mprobe matched): charged now when
 * blocking, remembered when started. */
static void rt_p2p_recv(struct rt_call *c, uint64_t dt, uint64_t comm_id, int ok)
{
    struct rt_args *a = &c->a;
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
        if (peer != RT_NO_PEER && (c->roles & RT_ROLE_PARTS)) {
            struct rt_req_more m = {.fixed = 1};
            rt_remember2(c, RT_REQ_RECV, peer, a->tag, rt_type_bytes(a->rtype, rt_elements(c, a->rcount)), &m);
        } else if (peer != RT_NO_PEER) {
            rt_remember(c, RT_REQ_RECV, peer, a->tag, 0);
        }
        return;
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
}

/* MPI_Sendrecv(_replace) and its non-blocking twin. */
static void rt_p2p_sendrecv(struct rt_call *c, uint64_t dt, uint64_t comm_id, int ok)
{
    struct rt_args *a = &c->a;
    int32_t speer = rt_peer_of(c, a->speer);
    uint64_t sb = speer == RT_NO_PEER || !ok ? 0 : rt_type_bytes(a->stype, a->scount);
    uint64_t rb = 0;
    if (c->flags & RT_CALL_NONBLOCKING) {
        /* MPI_Isendrecv(_replace): the send's bytes now, like Isend; both
         * peers when the request completes. */
        struct rt_req_more m = {.rpeer = rt_peer_of(c, a->rpeer), .rtag = a->rtag,
                                .rbytes = ok ? rt_type_bytes(a->rtype, a->rcount) : 0};
        rt_ctx_add(c->ctx, dt, sb, 0);
        rt_remember2(c, RT_REQ_SENDRECV, speer, a->stag, sb, &m);
        return;
    }
    if (speer != RT_NO_PEER && ok)
        rt_peer_add(c->ctx, speer, a->stag, comm_id, PRF_PEER_SEND, sb, dt, 0, 0);
    if (ok && a->status->MPI_SOURCE != MPI_PROC_NULL) {
        rb = rt_status_bytes(a->status);
        rt_peer_add(c->ctx, rt_comm_world_rank(c->comm, a->status->MPI_SOURCE), a->status->MPI_TAG,
                    comm_id, PRF_PEER_RECV, rb, dt, 0, 0);
    }
    rt_ctx_add(c->ctx, dt, sb, rb);
}

/* MPI_(I)mprobe: the message handle it matched is remembered with its
 * communicator, for the MPI_(I)mrecv that receives it. */
static void rt_p2p_mprobe(struct rt_call *c, uint64_t dt, uint64_t comm_id, int ok)
{
    struct rt_args *a = &c->a;
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
}

void rt_record_p2p(struct rt_call *c, uint64_t dt)
{
    uint64_t comm_id = c->comm ? c->comm->comm_id : 0;
    int ok = c->rc == MPI_SUCCESS;
    switch (c->rule) {
    case RT_RULE_SEND:
        rt_p2p_send(c, dt, comm_id, ok);
        break;
    case RT_RULE_RECV:
    case RT_RULE_MRECV:
        rt_p2p_recv(c, dt, comm_id, ok);
        break;
    case RT_RULE_SENDRECV:
        rt_p2p_sendrecv(c, dt, comm_id, ok);
        break;
    case RT_RULE_PROBE:
        rt_ctx_add(c->ctx, dt, 0, 0);
        break;
    case RT_RULE_MPROBE:
        rt_p2p_mprobe(c, dt, comm_id, ok);
        break;
    default:
        break;
    }
}

/* The call's own time: a Wait or Test completing a started persistent
 * collective gives it to the collective, at the start's context (the Wait
 * counts a call); any other completion call keeps it. */
static void rt_charge_call_time(struct rt_call *c, uint64_t dt, int ok)
{
    struct rt_args *a = &c->a;
    uint32_t coll_ctx = UINT32_MAX;
    if (ok && (c->rule == RT_RULE_WAIT || ((c->rule == RT_RULE_TEST) && *a->flag)) &&
        c->req_saved != MPI_REQUEST_NULL) {
        rt_req_lock();
        struct rt_req *r = rt_req_find(RT_KEY(c->req_saved));
        if (r && r->kind == RT_REQ_COLL && r->active)
            coll_ctx = r->ctx;
        rt_req_unlock();
    }
    if (coll_ctx != UINT32_MAX) {
        /* Completing a started persistent collective: its time is the
         * collective's, at the start's context; the Wait counts a call. */
        rt_ctx_add(c->ctx, 0, 0, 0);
        rt_ctx_time(coll_ctx, dt);
    } else {
        rt_ctx_add(c->ctx, dt, 0, 0);
    }
}

/* MPI_Waitall (not split) and a successful MPI_Testall: every request; with
 * MPI_ERR_IN_STATUS those whose status says they completed. */
static void rt_complete_all(struct rt_call *c, uint64_t dt)
{
    struct rt_args *a = &c->a;
    if (c->rc == MPI_ERR_IN_STATUS) {
        /* Each status tells whether its request completed (with or
         * without an error) or is still pending. */
        if (c->reqs_saved && a->statuses != MPI_STATUSES_IGNORE)
            for (int i = 0; i < a->nreq; i++)
                if (a->statuses[i].MPI_ERROR != MPI_ERR_PENDING)
                    rt_complete(c->reqs_saved[i], &a->statuses[i], dt, 0, 0);
        return;
    }
    if (c->reqs_saved && (c->rule == RT_RULE_WAITALL || *a->flag))
        for (int i = 0; i < a->nreq; i++)
            rt_complete(c->reqs_saved[i], a->statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE
                                                                            : &a->statuses[i],
                        dt, 0, 0);
}

/* MPI_Start(all): the persistent requests become active; a send's bytes
 * and a collective's are charged at each start. */
static void rt_mark_started(struct rt_call *c)
{
    struct rt_args *a = &c->a;
    int n = c->rule == RT_RULE_START ? 1 : a->nreq;
    rt_req_lock();
    for (int i = 0; i < n; i++) {
        MPI_Request h = c->rule == RT_RULE_START ? c->req_saved : (c->reqs_saved ? c->reqs_saved[i] : MPI_REQUEST_NULL);
        struct rt_req *r = h == MPI_REQUEST_NULL ? NULL : rt_req_find(RT_KEY(h));
        if (r && r->persistent) {
            r->active = 1;
            if (r->kind == RT_REQ_SEND)
                rt_ctx_bytes(r->ctx, r->bytes, 0);
            if (r->kind == RT_REQ_COLL) {
                /* One collective per start, at the start's context (for
                 * MPI_Start one of the collective's own op, rt_start_peek). */
                r->ctx = c->ctx;
                rt_ctx_bytes(c->ctx, r->bytes, r->rbytes);
            }
        }
    }
    rt_req_unlock();
}

/* MPI_Request_free of a request not completed: the transfer still happens;
 * a started send is charged without a wait time. */
static void rt_free_request(struct rt_call *c)
{
    if (c->req_saved == MPI_REQUEST_NULL)
        return;
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
}

void rt_record_completion(struct rt_call *c, uint64_t dt)
{
    struct rt_args *a = &c->a;
    int ok = c->rc == MPI_SUCCESS || c->rc == MPI_ERR_IN_STATUS;
    rt_charge_call_time(c, dt, ok);
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
        rt_complete_all(c, dt);
        break;
    case RT_RULE_START:
    case RT_RULE_STARTALL:
        rt_mark_started(c);
        break;
    case RT_RULE_REQUEST_FREE:
        rt_free_request(c);
        break;
    default:
        break;
    }
}
