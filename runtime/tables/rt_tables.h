/* rt_tables.h — the tables room's interface (runtime/tables/): what a
 * process accumulates while it runs, independent of mpi.h — MPI contexts and
 * peers, communicator records, requests in flight, phases, the GPU
 * collectors' records.  Uses the threads, call-path and core rooms. */
#ifndef SCALANA_RT_TABLES_H
#define SCALANA_RT_TABLES_H

#include "core/rt_core.h"
#include "threads/rt_threads.h"

/* ---- aggregated MPI statistics (rt_stats.c) ------------------------------- */
struct rt_ctx {
    uint64_t key;             /* path hash mixed with op and comm */
    uint32_t thread, node;    /* CCT node in that thread's tree */
    uint32_t op, flags;
    uint64_t comm_id;
    uint64_t calls, bytes_sent, bytes_received, time_ns, max_time_ns, min_time_ns;
};
struct rt_peer {
    uint32_t ctx; int32_t peer; int32_t tag; uint32_t flags; uint64_t comm_id;
    uint64_t count, bytes, time_ns, last_count, last_wait_ns;
};
struct rt_comm_rec {
    uint64_t comm_id;
    uint32_t size, remote_size, local_rank, flags;
    uint32_t *world;          /* size local members then remote_size remote, world ranks */
    char name[32];
};
/** Finds or creates the context of (thread t, call path, op, comm_id).
 *  Returns its index or UINT32_MAX when memory is exhausted. */
RT_HIDDEN uint32_t rt_ctx_get(struct rt_thread *t, void *const *frames, int n, int truncated,
                              uint32_t op, uint64_t comm_id, uint32_t flags, uint32_t *node);
/** Adds bytes to a context without counting a call (persistent starts,
 *  receives completed later). */
RT_HIDDEN void rt_ctx_bytes(uint32_t ctx, uint64_t sent, uint64_t received);
RT_HIDDEN struct rt_ctx *rt_ctx_at(uint32_t i);
RT_HIDDEN void rt_ctx_add(uint32_t ctx, uint64_t time_ns, uint64_t sent, uint64_t received);
/** Adds time_ns (ns) of communication to a context without counting a call:
 *  the completion of a persistent collective, charged at its start's
 *  context.  The context's largest call time grows to at least time_ns. */
RT_HIDDEN void rt_ctx_time(uint32_t ctx, uint64_t time_ns);
RT_HIDDEN void rt_peer_add(uint32_t ctx, int32_t peer, int32_t tag, uint64_t comm_id,
                           uint32_t dir, uint64_t bytes, uint64_t time_ns, int last,
                           uint64_t last_wait_ns);
RT_HIDDEN void rt_stats_lock(void);
RT_HIDDEN void rt_stats_unlock(void);
RT_HIDDEN struct rt_ctx *rt_ctx_array(uint32_t *count);
RT_HIDDEN struct rt_peer *rt_peer_array(uint32_t *count);
/** Adds a communicator record (copied).  Returns it, or NULL when the table
 *  is full (counted, one line). */
RT_HIDDEN struct rt_comm_rec *rt_comm_rec_add(const struct rt_comm_rec *r);
RT_HIDDEN struct rt_comm_rec *rt_comm_rec_array(uint32_t *count);

/* ---- requests (rt_req.c) ---------------------------------------------------
 * Non-blocking operations remembered at start, charged at completion. */
enum rt_req_kind {
    RT_REQ_SEND = 1, RT_REQ_RECV = 2, RT_REQ_OTHER = 3, RT_REQ_MESSAGE = 4,
    RT_REQ_SENDRECV = 5, /* MPI_Isendrecv(_replace): a send (peer, tag, bytes) and a receive (rpeer, rtag) */
    RT_REQ_COLL = 6      /* a persistent collective: op, bytes sent and rbytes received per start */
};
#define RT_NO_PEER INT32_MIN /* MPI_PROC_NULL: nothing to charge */
struct rt_req {
    uintptr_t key;            /* request handle; 0 = empty slot */
    uint32_t ctx;
    uint32_t kind;            /* enum rt_req_kind */
    int32_t peer;             /* world rank, PRF_ANY_RANK when from the status */
    int32_t tag;
    uint64_t comm_id;
    const struct rt_comm_rec *comm; /* for ANY_SOURCE translation */
    uint64_t bytes;           /* send bytes, or receive capacity */
    uint64_t seq;             /* order of insertion (rt_req_seq) */
    uint64_t rbytes;          /* RT_REQ_COLL: bytes received per start; RT_REQ_SENDRECV: receive capacity */
    int32_t rpeer, rtag;      /* RT_REQ_SENDRECV: the receive's source (world rank) and tag */
    uint32_t op;              /* RT_REQ_COLL: the *_init call's code */
    uint8_t persistent, active, tombstone;
    uint8_t fixed;            /* a partitioned receive: peer, tag and bytes known at init */
};
/** A new entry for key, the newest of its key; an older live entry of the
 *  same key stays (the library freed that handle and gave it out again
 *  before the completion that freed it was charged, on another thread), at
 *  most RT_REQ_SAME_KEY of them.  NULL when out of memory.  Lock held. */
RT_HIDDEN struct rt_req *rt_req_insert(uintptr_t key);
#define RT_REQ_SAME_KEY 4
/** The newest live entry of key, or NULL.  Lock held. */
RT_HIDDEN struct rt_req *rt_req_find(uintptr_t key);
/** The newest live entry of key inserted at or before sequence number seq
 *  (rt_req_seq at the entry of the completing call: a handle given out
 *  again after that belongs to a later request), or NULL.  Lock held. */
RT_HIDDEN struct rt_req *rt_req_find_before(uintptr_t key, uint64_t seq);
/** The sequence number of the latest insertion (atomic; no lock). */
RT_HIDDEN uint64_t rt_req_seq(void);
RT_HIDDEN void rt_req_remove(struct rt_req *r);
RT_HIDDEN void rt_req_lock(void);
RT_HIDDEN void rt_req_unlock(void);

/* ---- phases (rt_phase.c) ----------------------------------------------------- */
struct rt_phase_rec { char name[64]; uint32_t thread, node; uint64_t count, time_ns; };
RT_HIDDEN struct rt_phase_rec *rt_phase_array(uint32_t *count);
RT_HIDDEN void rt_phase_event(const char *name, int begin);
/** Closes every phase still open on any thread (at the profile write: at is
 *  "MPI_Finalize", "exit" or "MPI_Abort"), counting each once with its time
 *  so far; one warning unless only MPI_Pcontrol levels were open. */
RT_HIDDEN void rt_phase_close_all(const char *at);

/* ---- collectors (rt_collector.c) ------------------------------------------ */
struct rt_gpu_rec { uint32_t thread, node, kind, device; char name[96];
                    uint64_t count, time_ns, bytes, max_time_ns; };
RT_HIDDEN struct rt_gpu_rec *rt_gpu_array(uint32_t *count);
RT_HIDDEN void rt_collectors_flush(void);

#endif
