/* rt_stats.c — the aggregated MPI measurements: calling contexts (keyed by
 * thread, call path, operation and communicator), point-to-point peers, and
 * the communicators this rank belonged to.  Grows only with distinct keys. */
#include "core/rt_core.h"
#include "callpath/rt_callpath.h"
#include "threads/rt_threads.h"
#include "rt_tables.h"

#include <stdlib.h>
#include <string.h>

static struct rt_ctx *rt_ctxs;
static uint32_t rt_nctx, rt_ctx_cap;
static uint32_t *rt_ctx_slots;   /* index + 1 */
static uint32_t rt_ctx_mask;

static struct rt_peer *rt_peers;
static uint32_t rt_npeer, rt_peer_cap;
static uint32_t *rt_peer_slots;
static uint32_t rt_peer_mask;

static struct rt_comm_rec *rt_comms;
static uint32_t rt_ncomm, rt_comm_cap;
#define RT_COMM_MAX 4096u /* distinct communicators recorded (a fixed table: records are
                             referenced by pointer); later ones are counted only */
static uint64_t rt_comm_dropped;

static volatile int rt_stats_spin;

void rt_stats_lock(void) { if (rt_g.mt) rt_spin_lock(&rt_stats_spin); }
void rt_stats_unlock(void) { if (rt_g.mt) rt_spin_unlock(&rt_stats_spin); }

static int rt_rehash(uint32_t **slots, uint32_t *mask, uint32_t n, uint64_t (*key)(uint32_t))
{
    uint32_t size = (*mask + 1) * 2;
    if (size < 1024)
        size = 1024;
    uint32_t *s = calloc(size, sizeof *s);
    if (!s)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t j = (uint32_t)key(i) & (size - 1);
        while (s[j])
            j = (j + 1) & (size - 1);
        s[j] = i + 1;
    }
    free(*slots);
    *slots = s;
    *mask = size - 1;
    return 0;
}

static uint64_t rt_ctx_key_at(uint32_t i) { return rt_ctxs[i].key; }

static inline uint64_t rt_mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

/* Each context's call path, copied when it is created (one arena of
 * frames; contexts index it): a key match is confirmed by comparing the
 * paths, so two paths with one 64-bit hash are two contexts.  A memcmp of
 * the contiguous copy costs a few ns; walking the tree instead (the
 * fallback when the arena cannot grow) chases one parent link per frame,
 * about 35 ns per call at 14 frames here. */
struct rt_ctx_path { uint64_t at; uint32_t n, truncated; }; /* at = UINT64_MAX: no copy */
static struct rt_ctx_path *rt_ctx_paths; /* rt_ctx_cap entries */
static void **rt_path_arena;
static uint64_t rt_arena_n, rt_arena_cap;

static void rt_ctx_path_keep(uint32_t id, void *const *frames, int n, int truncated)
{
    struct rt_ctx_path *p = &rt_ctx_paths[id];
    p->at = UINT64_MAX;
    p->n = (uint32_t)n;
    p->truncated = (uint32_t)truncated;
    if (rt_arena_n + (uint64_t)n > rt_arena_cap) {
        uint64_t cap = rt_arena_cap ? rt_arena_cap * 2 : 4096;
        while (cap < rt_arena_n + (uint64_t)n)
            cap *= 2;
        void **a = realloc(rt_path_arena, cap * sizeof *a);
        if (!a)
            return;
        rt_path_arena = a;
        rt_arena_cap = cap;
    }
    if (n > 0)
        memcpy(rt_path_arena + rt_arena_n, frames, (size_t)n * sizeof *frames);
    p->at = rt_arena_n;
    rt_arena_n += (uint64_t)n;
}

/* Is node of tree c exactly the path frames[0] (leaf) .. frames[n-1]
 * (outermost), below the root or, when truncated, below the overflow node?
 * The tree stores every frame, so this decides what the 64-bit path hash
 * only suggests.  A context recorded when the tree was full points at the
 * overflow node: it stands for every path that did not fit. */
static int rt_ctx_path_is(const struct rt_cct *c, uint32_t node, void *const *frames, int n, int truncated)
{
    if (node == c->overflow_node)
        return 1;
    for (int i = 0; i < n; i++) {
        if (node == 0 || node >= c->count || c->nodes[node].address != (uint64_t)(uintptr_t)frames[i])
            return 0;
        node = c->nodes[node].parent;
    }
    return truncated ? node == c->overflow_node : node == 0;
}

static int rt_ctx_same_path(const struct rt_thread *t, uint32_t i, void *const *frames, int n, int truncated)
{
    const struct rt_ctx_path *p = &rt_ctx_paths[i];
    if (RT_UNLIKELY(p->at == UINT64_MAX))
        return rt_ctx_path_is(&t->cct, rt_ctxs[i].node, frames, n, truncated);
    return p->n == (uint32_t)n && p->truncated == (uint32_t)truncated &&
           memcmp(rt_path_arena + p->at, frames, (size_t)n * sizeof *frames) == 0;
}

uint32_t rt_ctx_get(struct rt_thread *t, void *const *frames, int n, int truncated, uint32_t op,
                    uint64_t comm_id, uint32_t flags, uint32_t *node_out)
{
    uint64_t key = rt_mix(rt_path_hash(frames, n) ^ ((uint64_t)op << 40) ^ rt_mix(comm_id) ^
                          ((uint64_t)t->index << 20) ^ flags);
    rt_stats_lock();
    if (rt_ctx_slots) {
        uint32_t j = (uint32_t)key & rt_ctx_mask;
        for (;;) {
            uint32_t s = rt_ctx_slots[j];
            if (!s)
                break;
            struct rt_ctx *c = &rt_ctxs[s - 1];
            if (c->key == key && c->op == op && c->comm_id == comm_id && c->thread == t->index &&
                c->flags == flags && rt_ctx_same_path(t, s - 1, frames, n, truncated)) {
                *node_out = c->node;
                rt_stats_unlock();
                return s - 1;
            }
            j = (j + 1) & rt_ctx_mask;
        }
    }
    /* New context. */
    if (rt_nctx >= rt_ctx_cap) {
        uint32_t cap = rt_ctx_cap ? rt_ctx_cap * 2 : 256;
        struct rt_ctx *p = realloc(rt_ctxs, (size_t)cap * sizeof *p);
        struct rt_ctx_path *q = p ? realloc(rt_ctx_paths, (size_t)cap * sizeof *q) : NULL;
        if (p)
            rt_ctxs = p;
        if (q)
            rt_ctx_paths = q;
        if (!p || !q) {
            rt_stats_unlock();
            rt_fail("mpi", "out of memory: new calling contexts are not recorded");
            return UINT32_MAX;
        }
        rt_ctx_cap = cap;
    }
    if (!rt_ctx_slots || (rt_nctx + 1) * 2 > rt_ctx_mask + 1) {
        if (rt_rehash(&rt_ctx_slots, &rt_ctx_mask, rt_nctx, rt_ctx_key_at) != 0) {
            rt_stats_unlock();
            rt_fail("mpi", "out of memory: new calling contexts are not recorded");
            return UINT32_MAX;
        }
    }
    uint32_t node = rt_cct_insert(&t->cct, frames, n, PRF_CCT_CALLSITE, truncated);
    struct rt_ctx *c = &rt_ctxs[rt_nctx];
    memset(c, 0, sizeof *c);
    c->key = key;
    c->thread = t->index;
    c->node = node;
    c->op = op;
    c->flags = flags;
    c->comm_id = comm_id;
    c->min_time_ns = UINT64_MAX;
    uint32_t j = (uint32_t)key & rt_ctx_mask;
    while (rt_ctx_slots[j])
        j = (j + 1) & rt_ctx_mask;
    rt_ctx_slots[j] = rt_nctx + 1;
    uint32_t id = rt_nctx++;
    rt_ctx_path_keep(id, frames, n, truncated);
    *node_out = node;
    rt_stats_unlock();
    return id;
}

struct rt_ctx *rt_ctx_at(uint32_t i) { return i < rt_nctx ? &rt_ctxs[i] : NULL; }

void rt_ctx_add(uint32_t ctx, uint64_t time_ns, uint64_t sent, uint64_t received)
{
    if (ctx >= rt_nctx)
        return;
    rt_stats_lock();
    struct rt_ctx *c = &rt_ctxs[ctx];
    c->calls++;
    c->time_ns += time_ns;
    c->bytes_sent += sent;
    c->bytes_received += received;
    if (time_ns > c->max_time_ns)
        c->max_time_ns = time_ns;
    if (time_ns < c->min_time_ns)
        c->min_time_ns = time_ns;
    rt_g.mpi_time_ticks += time_ns;
    rt_stats_unlock();
}

void rt_ctx_time(uint32_t ctx, uint64_t time_ns)
{
    if (ctx >= rt_nctx)
        return;
    rt_stats_lock();
    struct rt_ctx *c = &rt_ctxs[ctx];
    c->time_ns += time_ns;
    if (time_ns > c->max_time_ns)
        c->max_time_ns = time_ns;
    rt_g.mpi_time_ticks += time_ns;
    rt_stats_unlock();
}

void rt_ctx_bytes(uint32_t ctx, uint64_t sent, uint64_t received)
{
    if (ctx >= rt_nctx)
        return;
    rt_stats_lock();
    rt_ctxs[ctx].bytes_sent += sent;
    rt_ctxs[ctx].bytes_received += received;
    rt_stats_unlock();
}

static uint64_t rt_peer_hash(uint32_t ctx, int32_t peer, int32_t tag, uint64_t comm_id, uint32_t dir)
{
    return rt_mix(((uint64_t)ctx << 32 | (uint32_t)peer) ^ rt_mix((uint64_t)(uint32_t)tag << 8 | dir) ^
                  rt_mix(comm_id + 0x9e37));
}
static uint64_t rt_peer_key_at(uint32_t i)
{
    struct rt_peer *p = &rt_peers[i];
    return rt_peer_hash(p->ctx, p->peer, p->tag, p->comm_id, p->flags);
}

void rt_peer_add(uint32_t ctx, int32_t peer, int32_t tag, uint64_t comm_id, uint32_t dir,
                 uint64_t bytes, uint64_t time_ns, int last, uint64_t last_wait_ns)
{
    if (ctx == UINT32_MAX)
        return;
    uint64_t key = rt_peer_hash(ctx, peer, tag, comm_id, dir);
    rt_stats_lock();
    struct rt_peer *p = NULL;
    if (rt_peer_slots) {
        uint32_t j = (uint32_t)key & rt_peer_mask;
        for (;;) {
            uint32_t s = rt_peer_slots[j];
            if (!s)
                break;
            struct rt_peer *q = &rt_peers[s - 1];
            if (q->ctx == ctx && q->peer == peer && q->tag == tag && q->comm_id == comm_id &&
                q->flags == dir) {
                p = q;
                break;
            }
            j = (j + 1) & rt_peer_mask;
        }
    }
    if (!p) {
        if (rt_npeer >= rt_peer_cap) {
            uint32_t cap = rt_peer_cap ? rt_peer_cap * 2 : 256;
            struct rt_peer *np = realloc(rt_peers, (size_t)cap * sizeof *np);
            if (!np) {
                rt_stats_unlock();
                rt_fail("mpi", "out of memory: new peers are not recorded");
                return;
            }
            rt_peers = np;
            rt_peer_cap = cap;
        }
        if (!rt_peer_slots || (rt_npeer + 1) * 2 > rt_peer_mask + 1) {
            if (rt_rehash(&rt_peer_slots, &rt_peer_mask, rt_npeer, rt_peer_key_at) != 0) {
                rt_stats_unlock();
                return;
            }
        }
        p = &rt_peers[rt_npeer];
        memset(p, 0, sizeof *p);
        p->ctx = ctx;
        p->peer = peer;
        p->tag = tag;
        p->comm_id = comm_id;
        p->flags = dir;
        uint32_t j = (uint32_t)key & rt_peer_mask;
        while (rt_peer_slots[j])
            j = (j + 1) & rt_peer_mask;
        rt_peer_slots[j] = ++rt_npeer;
    }
    p->count++;
    p->bytes += bytes;
    p->time_ns += time_ns;
    if (last) {
        p->last_count++;
        p->last_wait_ns += last_wait_ns;
    }
    rt_stats_unlock();
}

struct rt_ctx *rt_ctx_array(uint32_t *count) { *count = rt_nctx; return rt_ctxs; }
struct rt_peer *rt_peer_array(uint32_t *count) { *count = rt_npeer; return rt_peers; }

struct rt_comm_rec *rt_comm_rec_add(const struct rt_comm_rec *r)
{
    rt_stats_lock();
    if (rt_ncomm >= RT_COMM_MAX) {
        if (rt_comm_dropped++ == 0)
            rt_log("more than %u communicators: later ones are not recorded", RT_COMM_MAX);
        rt_stats_unlock();
        return NULL;
    }
    if (!rt_comms) {
        rt_comms = calloc(RT_COMM_MAX, sizeof *rt_comms);
        if (!rt_comms) {
            rt_stats_unlock();
            return NULL;
        }
        rt_comm_cap = RT_COMM_MAX;
    }
    struct rt_comm_rec *d = &rt_comms[rt_ncomm++];
    *d = *r;
    rt_stats_unlock();
    return d;
}

struct rt_comm_rec *rt_comm_rec_array(uint32_t *count) { *count = rt_ncomm; return rt_comms; }

