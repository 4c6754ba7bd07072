/* rt_cct.c — one thread's calling-context tree: a node pool and an
 * open-addressing child index, both mapped up front so that the sampling
 * signal handler inserts without allocating. */
#include "core/rt_core.h"
#include "rt_callpath.h"

#include <string.h>
#include <sys/mman.h>

static void *rt_map(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

int rt_cct_init(struct rt_cct *c, uint32_t cap, uint32_t thread_index)
{
    uint32_t cap_max = cap;
    if (cap > RT_CCT_INITIAL)
        cap = RT_CCT_INITIAL;
    uint32_t slots = 1;
    while (slots < 2 * cap)
        slots <<= 1;
    memset(c, 0, sizeof *c);
    c->cap_max = cap_max;
    c->nodes = rt_map((size_t)cap * sizeof *c->nodes);
    c->slots = rt_map((size_t)slots * sizeof *c->slots);
    if (!c->nodes || !c->slots) {
        if (c->nodes)
            munmap(c->nodes, (size_t)cap * sizeof *c->nodes);
        if (c->slots)
            munmap(c->slots, (size_t)slots * sizeof *c->slots);
        c->nodes = NULL;
        c->slots = NULL;
        return -1;
    }
    c->cap = cap;
    c->slot_mask = slots - 1;
    c->count = 1;
    c->nodes[0].parent = PRF_NONE;
    c->nodes[0].kind = PRF_CCT_ROOT;
    c->nodes[0].address = thread_index;
    c->overflow_node = PRF_NONE;
    return 0;
}

static inline uint32_t rt_cct_hash(uint32_t parent, uint64_t address, uint32_t kind)
{
    uint64_t h = address * 0x9e3779b97f4a7c15ull ^ ((uint64_t)parent << 2 | kind) * 0xc2b2ae3d27d4eb4full;
    return (uint32_t)(h ^ (h >> 29));
}

/* Doubles the node pool (mremap keeps the nodes, their indices and the
 * memory not yet touched unreserved) and rebuilds the child index at twice
 * the pool.  Only system calls: safe in the sampling handler, which is the
 * only other inserter of this thread's tree and is kept out by in_rt while
 * a wrapper inserts.  Returns 0, or -1 (at cap_max or without memory: the
 * tree stays as it is and fills up to the overflow node). */
static int rt_cct_grow(struct rt_cct *c)
{
    if (c->cap >= c->cap_max)
        return -1;
    uint32_t cap = c->cap > c->cap_max / 2 ? c->cap_max : c->cap * 2;
    uint32_t slots = 1;
    while (slots < 2 * cap)
        slots <<= 1;
    uint32_t *s = rt_map((size_t)slots * sizeof *s);
    if (!s)
        return -1;
    void *n = mremap(c->nodes, (size_t)c->cap * sizeof *c->nodes, (size_t)cap * sizeof *c->nodes, MREMAP_MAYMOVE);
    if (n == MAP_FAILED) {
        munmap(s, (size_t)slots * sizeof *s);
        return -1;
    }
    c->nodes = n;
    for (uint32_t id = 1; id < c->count; id++) {
        const struct rt_cct_node *nd = &c->nodes[id];
        uint32_t i = rt_cct_hash(nd->parent, nd->address, nd->kind) & (slots - 1);
        while (s[i])
            i = (i + 1) & (slots - 1);
        s[i] = id + 1;
    }
    munmap(c->slots, ((size_t)c->slot_mask + 1) * sizeof *c->slots);
    c->slots = s;
    c->slot_mask = slots - 1;
    c->cap = cap;
    return 0;
}

/* Child of parent with (address, kind): the index is probed until a node
 * with exactly these three fields (never a hash alone), created when absent.
 * PRF_NONE when the pool is full at its maximum. */
static uint32_t rt_cct_child(struct rt_cct *c, uint32_t parent, uint64_t address, uint32_t kind)
{
    if (RT_UNLIKELY(c->count + 1 >= c->cap) && kind != PRF_CCT_OVERFLOW)
        rt_cct_grow(c); /* before probing: the index is rebuilt */
    uint32_t i = rt_cct_hash(parent, address, kind) & c->slot_mask;
    for (;;) {
        uint32_t s = c->slots[i];
        if (s == 0)
            break;
        struct rt_cct_node *n = &c->nodes[s - 1];
        if (n->address == address && n->parent == parent && n->kind == kind)
            return s - 1;
        i = (i + 1) & c->slot_mask;
    }
    if (c->count + (kind == PRF_CCT_OVERFLOW ? 0u : 1u) >= c->cap)
        return PRF_NONE;
    uint32_t id = c->count;
    struct rt_cct_node *n = &c->nodes[id];
    n->address = address;
    n->parent = parent;
    n->kind = kind;
    c->slots[i] = id + 1;
    __atomic_store_n(&c->count, id + 1, __ATOMIC_RELEASE);
    return id;
}

/* The overflow node (child of the root) stands for everything that did not
 * fit; the pool keeps one slot free for it. */
static uint32_t rt_cct_overflow(struct rt_cct *c)
{
    if (c->overflow_node == PRF_NONE) {
        uint32_t id = rt_cct_child(c, 0, 0, PRF_CCT_OVERFLOW);
        if (id == PRF_NONE)
            return 0; /* cannot happen: a slot is reserved */
        c->overflow_node = id;
    }
    return c->overflow_node;
}

uint32_t rt_cct_insert(struct rt_cct *c, void *const *frames, int n, uint32_t leaf_kind, int truncated)
{
    uint32_t node = 0;
    if (truncated) {
        node = rt_cct_overflow(c);
        c->overflow++;
    }
    for (int i = n - 1; i >= 0; i--) {
        uint32_t kind = i == 0 ? leaf_kind : PRF_CCT_CALLSITE;
        uint32_t child = rt_cct_child(c, node, (uint64_t)(uintptr_t)frames[i], kind);
        if (child == PRF_NONE) {
            c->overflow++;
            return rt_cct_overflow(c);
        }
        node = child;
    }
    return node;
}
