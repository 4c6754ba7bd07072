/* graph.c — the vertex table of the PPG: PSG vertices and dynamic call-path
 * vertices in their calling context, keyed by (parent, key), plus the string
 * pool that all vertex names live in. */
#include "analyzer.h"

#include <stdlib.h>
#include <string.h>

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fputs("scalana-analyze: out of memory\n", stderr);
        abort();
    }
    return q;
}

uint64_t an_hash_str(const char *s, uint64_t seed)
{
    uint64_t h = seed ^ 0xcbf29ce484222325ull;
    for (; s && *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ull;
    }
    return h;
}

const char *an_intern(struct an_strpool *p, const char *s)
{
    if (!s) s = "";
    if (p->n * 2 + 2 > p->cap) {
        size_t ncap = p->cap ? p->cap * 2 : 1024;
        char **ns = xrealloc(NULL, ncap * sizeof *ns);
        memset(ns, 0, ncap * sizeof *ns);
        for (size_t i = 0; i < p->cap; i++) {
            if (!p->slots[i]) continue;
            size_t h = an_hash_str(p->slots[i], 0) & (ncap - 1);
            while (ns[h]) h = (h + 1) & (ncap - 1);
            ns[h] = p->slots[i];
        }
        free(p->slots);
        p->slots = ns, p->cap = ncap;
    }
    size_t h = an_hash_str(s, 0) & (p->cap - 1);
    while (p->slots[h]) {
        if (strcmp(p->slots[h], s) == 0) return p->slots[h];
        h = (h + 1) & (p->cap - 1);
    }
    size_t len = strlen(s) + 1;
    p->slots[h] = xrealloc(NULL, len);
    memcpy(p->slots[h], s, len);
    p->n++;
    return p->slots[h];
}

void an_strpool_free(struct an_strpool *p)
{
    for (size_t i = 0; i < p->cap; i++) free(p->slots[i]);
    free(p->slots);
    memset(p, 0, sizeof *p);
}

void an_graph_init(struct an_graph *g) { memset(g, 0, sizeof *g); }

void an_graph_free(struct an_graph *g)
{
    free(g->v);
    free(g->hash);
    an_strpool_free(&g->strings);
    memset(g, 0, sizeof *g);
}

static size_t slot_of(uint32_t parent, uint64_t key, size_t cap)
{
    uint64_t h = key ^ ((uint64_t)parent * 0x9e3779b97f4a7c15ull);
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    return (size_t)h & (cap - 1);
}

uint32_t an_graph_find(const struct an_graph *g, uint32_t parent, uint64_t key)
{
    if (!g->hash_cap) return AN_NONE;
    size_t h = slot_of(parent, key, g->hash_cap);
    while (g->hash[h] != AN_NONE) {
        const struct an_vertex *v = &g->v[g->hash[h]];
        if (v->parent == parent && v->key == key) return g->hash[h];
        h = (h + 1) & (g->hash_cap - 1);
    }
    return AN_NONE;
}

static void rehash(struct an_graph *g)
{
    size_t ncap = g->hash_cap ? g->hash_cap * 2 : 4096;
    free(g->hash);
    g->hash = xrealloc(NULL, ncap * sizeof *g->hash);
    memset(g->hash, 0xff, ncap * sizeof *g->hash);
    g->hash_cap = ncap;
    for (uint32_t i = 0; i < g->n; i++) {
        size_t h = slot_of(g->v[i].parent, g->v[i].key, ncap);
        while (g->hash[h] != AN_NONE) h = (h + 1) & (ncap - 1);
        g->hash[h] = i;
    }
}

uint32_t an_graph_get(struct an_graph *g, uint32_t parent, uint64_t key, int *created)
{
    uint32_t id = an_graph_find(g, parent, key);
    if (created) *created = 0;
    if (id != AN_NONE) return id;
    if (g->n == g->cap) {
        g->cap = g->cap ? g->cap * 2 : 1024;
        g->v = xrealloc(g->v, g->cap * sizeof *g->v);
    }
    if ((g->n + 1) * 2 > g->hash_cap) rehash(g);
    id = g->n++;
    struct an_vertex *v = &g->v[id];
    memset(v, 0, sizeof *v);
    v->parent = parent;
    v->key = key;
    v->first_child = v->next_sibling = AN_NONE;
    v->psg_unit = -1;
    v->name = v->function = v->file = v->linkage = "";
    if (parent != AN_NONE) {
        struct an_vertex *p = &g->v[parent];
        v->depth = p->depth + 1;
        v->next_sibling = p->first_child;
        p->first_child = id;
    }
    size_t h = slot_of(parent, key, g->hash_cap);
    while (g->hash[h] != AN_NONE) h = (h + 1) & (g->hash_cap - 1);
    g->hash[h] = id;
    if (created) *created = 1;
    return id;
}

static const struct an_graph *sort_g;
static int by_order(const void *a, const void *b)
{
    const struct an_vertex *x = &sort_g->v[*(const uint32_t *)a], *y = &sort_g->v[*(const uint32_t *)b];
    if (x->order != y->order) return x->order < y->order ? -1 : 1;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    if (x->column != y->column) return x->column < y->column ? -1 : 1;
    return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

void an_graph_sort_children(struct an_graph *g)
{
    uint32_t *tmp = xrealloc(NULL, (g->n + 1) * sizeof *tmp);
    sort_g = g;
    for (uint32_t p = 0; p < g->n; p++) {
        uint32_t k = 0;
        for (uint32_t c = g->v[p].first_child; c != AN_NONE; c = g->v[c].next_sibling) tmp[k++] = c;
        if (k < 2) continue;
        qsort(tmp, k, sizeof *tmp, by_order);
        g->v[p].first_child = tmp[0];
        for (uint32_t i = 0; i < k; i++) g->v[tmp[i]].next_sibling = i + 1 < k ? tmp[i + 1] : AN_NONE;
    }
    free(tmp);
}

int an_graph_is_ancestor(const struct an_graph *g, uint32_t a, uint32_t b)
{
    for (uint32_t x = b; x != AN_NONE; x = g->v[x].parent)
        if (x == a) return 1;
    return 0;
}

const char *an_kind_name(unsigned kind)
{
    static const char *const names[] = {"DYNAMIC", "FUNCTION", "LOOP", "BRANCH", "CALL",
                                        "CALL_INDIRECT", "CALL_RECURSIVE", "MPI", "GPU",
                                        "COMPUTE", "DYNAMIC"};
    return kind < sizeof names / sizeof *names ? names[kind] : "DYNAMIC";
}
