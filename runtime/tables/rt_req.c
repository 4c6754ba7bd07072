/* rt_req.c — the table of outstanding non-blocking requests (keyed by the
 * request handle), remembered at start and charged at completion.  Its size
 * follows the number of requests outstanding at once, not the run time.
 * Under MPI_THREAD_MULTIPLE a handle freed by one thread's completion may be
 * given to another thread's new request before the first thread charges
 * it: entries carry an insertion sequence number, a key may have several
 * live entries, and a completion takes the newest one inserted before its
 * call began. */
#include "core/rt_core.h"
#include "rt_tables.h"

#include <stdlib.h>
#include <string.h>

static struct rt_req *rt_reqs;
static uint32_t rt_req_mask;   /* capacity - 1 */
static uint32_t rt_req_used;   /* live + tombstones */
static volatile int rt_req_spin;
static uint64_t rt_req_counter; /* insertions so far */

uint64_t rt_req_seq(void) { return __atomic_load_n(&rt_req_counter, __ATOMIC_ACQUIRE); }

void rt_req_lock(void) { if (rt_g.mt) rt_spin_lock(&rt_req_spin); }
void rt_req_unlock(void) { if (rt_g.mt) rt_spin_unlock(&rt_req_spin); }

static inline uint32_t rt_req_hash(uintptr_t k)
{
    uint64_t h = (uint64_t)k * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h >> 32);
}

static int rt_req_grow(void)
{
    uint32_t old_cap = rt_reqs ? rt_req_mask + 1 : 0;
    uint32_t live = 0;
    for (uint32_t i = 0; i < old_cap; i++)
        live += rt_reqs[i].key && !rt_reqs[i].tombstone;
    uint32_t cap = 1024;
    while (cap < 4 * (live + 1))
        cap <<= 1;
    struct rt_req *n = calloc(cap, sizeof *n);
    if (!n)
        return -1;
    for (uint32_t i = 0; i < old_cap; i++) {
        struct rt_req *r = &rt_reqs[i];
        if (!r->key || r->tombstone)
            continue;
        uint32_t j = rt_req_hash(r->key) & (cap - 1);
        while (n[j].key)
            j = (j + 1) & (cap - 1);
        n[j] = *r;
    }
    free(rt_reqs);
    rt_reqs = n;
    rt_req_mask = cap - 1;
    rt_req_used = live;
    return 0;
}

struct rt_req *rt_req_find_before(uintptr_t key, uint64_t seq)
{
    if (!rt_reqs || !key)
        return NULL;
    struct rt_req *best = NULL;
    uint32_t j = rt_req_hash(key) & rt_req_mask;
    for (;;) {
        struct rt_req *r = &rt_reqs[j];
        if (!r->key)
            return best;
        if (r->key == key && !r->tombstone && r->seq <= seq && (!best || r->seq > best->seq))
            best = r;
        j = (j + 1) & rt_req_mask;
    }
}

struct rt_req *rt_req_find(uintptr_t key)
{
    return rt_req_find_before(key, UINT64_MAX);
}

/* Live entries of key and the oldest of them. */
static unsigned rt_req_same(uintptr_t key, struct rt_req **oldest)
{
    unsigned n = 0;
    *oldest = NULL;
    uint32_t j = rt_req_hash(key) & rt_req_mask;
    for (; rt_reqs[j].key; j = (j + 1) & rt_req_mask) {
        struct rt_req *r = &rt_reqs[j];
        if (r->key == key && !r->tombstone) {
            n++;
            if (!*oldest || r->seq < (*oldest)->seq)
                *oldest = r;
        }
    }
    return n;
}

struct rt_req *rt_req_insert(uintptr_t key)
{
    if (!rt_reqs || (rt_req_used + 1) * 2 > rt_req_mask + 1)
        if (rt_req_grow() != 0)
            return NULL;
    /* Entries of a handle never completed through us (a completion we did
     * not see) would pile up: the oldest beyond the bound goes. */
    struct rt_req *oldest;
    if (rt_req_same(key, &oldest) >= RT_REQ_SAME_KEY)
        rt_req_remove(oldest);
    uint32_t j = rt_req_hash(key) & rt_req_mask;
    while (rt_reqs[j].key && !rt_reqs[j].tombstone)
        j = (j + 1) & rt_req_mask;
    struct rt_req *r = &rt_reqs[j];
    if (!r->key)
        rt_req_used++;
    memset(r, 0, sizeof *r);
    r->key = key;
    r->seq = __atomic_add_fetch(&rt_req_counter, 1, __ATOMIC_ACQ_REL);
    return r;
}

void rt_req_remove(struct rt_req *r)
{
    r->tombstone = 1;
}
