/* rt_waitall.c — MPI_Waitall completed through a PMPI_Waitsome loop
 * (SCALANA_WAITALL_SPLIT), so that each request is charged the time until
 * its own completion rather than the whole call's. */
#include "core/rt_core.h"
#include "threads/rt_threads.h"
#include "tables/rt_tables.h"
#include "rt_mpi.h"

/* The loop's scratch arrays for n requests, one thread-private buffer
 * (rt_scratch slot 2): Waitsome's statuses and indices, each request's
 * completion time and batch.  0, or -1 without memory. */
struct rt_split_mem { MPI_Status *st; int *idx; uint64_t *done; int *batch; };
static int rt_split_scratch(int n, struct rt_split_mem *m)
{
    /* 7 bytes of slack: done is aligned to 8 after the ints */
    size_t need = (size_t)n * (sizeof(MPI_Status) + sizeof(int) + sizeof(uint64_t) + sizeof(int)) + 7;
    unsigned char *mem = rt_scratch(2, need);
    if (!mem)
        return -1;
    m->st = (MPI_Status *)mem;
    m->idx = (int *)(m->st + n);
    m->done = (uint64_t *)(void *)(((uintptr_t)(m->idx + n) + 7) & ~(uintptr_t)7);
    m->batch = (int *)(m->done + n);
    return 0;
}

/* Whether the call must be the application's own Waitall: a request we did
 * not see start (MPI-IO, generalized, RMA) may fail under its own error
 * handler (files: MPI_ERRORS_RETURN): then the whole call is the
 * application's own Waitall, decided before anything is completed.  So is
 * one holding a persistent collective: MPICH 4.0.2's Waitsome reports a
 * completed one again in the next call, and the loop would return with a
 * request still active. */
static int rt_split_refused(const struct rt_args *a, int n)
{
    rt_req_lock();
    for (int i = 0; i < n; i++) {
        struct rt_req *r = a->requests[i] == MPI_REQUEST_NULL ? NULL : rt_req_find(RT_KEY(a->requests[i]));
        if (a->requests[i] != MPI_REQUEST_NULL && (!r || r->kind == RT_REQ_COLL)) {
            rt_req_unlock();
            return 1;
        }
    }
    rt_req_unlock();
    return 0;
}

/* Null and inactive requests get their empty status now (batch -2), the
 * others are left to the loop (batch -1).  Returns how many those are. */
static int rt_split_prepare(struct rt_args *a, int n, int *batch)
{
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
    return remaining;
}

int rt_waitall_split(struct rt_call *c)
{
    struct rt_args *a = &c->a;
    int n = a->nreq;
    /* An error the application can see must come from its own MPI_Waitall
     * (error class, statuses, which requests are freed): no split then. */
    if (n <= 0 || !c->reqs_saved || rt_errors_visible)
        return PMPI_Waitall(n, a->requests, a->statuses);
    struct rt_split_mem m;
    if (rt_split_scratch(n, &m) != 0 || rt_split_refused(a, n))
        return PMPI_Waitall(n, a->requests, a->statuses);
    MPI_Status *st = m.st;
    int *idx = m.idx, *batch = m.batch;
    uint64_t *done = m.done;
    int remaining = rt_split_prepare(a, n, batch);
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
