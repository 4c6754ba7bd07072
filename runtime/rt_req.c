/* rt_req.c — the table of outstanding non-blocking requests (keyed by the
 * request handle), remembered at start and charged at completion.  Its size
 * follows the number of requests outstanding at once, not the run time. */
#include "rt_core.h"

#include <stdlib.h>
#include <string.h>

static struct rt_req *rt_reqs;
static uint32_t rt_req_mask;   /* capacity - 1 */
static uint32_t rt_req_used;   /* live + tombstones */
static volatile int rt_req_spin;

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

struct rt_req *rt_req_find(uintptr_t key)
{
    if (!rt_reqs || !key)
        return NULL;
    uint32_t j = rt_req_hash(key) & rt_req_mask;
    for (;;) {
        struct rt_req *r = &rt_reqs[j];
        if (!r->key)
            return NULL;
        if (r->key == key && !r->tombstone)
            return r;
        j = (j + 1) & rt_req_mask;
    }
}

struct rt_req *rt_req_insert(uintptr_t key)
{
    struct rt_req *r = rt_req_find(key);
    if (r) { /* a handle reused after a completion we did not see */
        memset(r, 0, sizeof *r);
        r->key = key;
        return r;
    }
    if (!rt_reqs || (rt_req_used + 1) * 2 > rt_req_mask + 1)
        if (rt_req_grow() != 0)
            return NULL;
    uint32_t j = rt_req_hash(key) & rt_req_mask;
    while (rt_reqs[j].key && !rt_reqs[j].tombstone)
        j = (j + 1) & rt_req_mask;
    r = &rt_reqs[j];
    if (!r->key)
        rt_req_used++;
    memset(r, 0, sizeof *r);
    r->key = key;
    return r;
}

void rt_req_remove(struct rt_req *r)
{
    r->tombstone = 1;
}
