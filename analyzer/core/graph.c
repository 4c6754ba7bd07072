/* graph.c — the vertex table of the PPG: PSG vertices and dynamic call-path
 * vertices in their calling context, keyed by (parent, key), plus the string
 * pool that all vertex names live in. */
#include "core/graph.h"
#include "core/types.h"
#include "sc_alloc.h"
#include "sc_hash.h"
#include "scalana/psg_format.h"

#include <stdlib.h>
#include <string.h>

uint64_t an_hash_str(const char *s, uint64_t seed)
{
    return sc_fnv1a64(s, s ? strlen(s) : 0, seed ^ SC_FNV_OFFSET);
}

const char *an_intern(struct an_strpool *p, const char *s)
{
    if (!s) s = "";
    uint64_t h = an_hash_str(s, 0);
    struct sc_hash_it it;
    for (uint32_t id = sc_hash_first(&p->index, h, &it); id != SC_HASH_NONE; id = sc_hash_next(&p->index, &it))
        if (strcmp(p->str[id], s) == 0) return p->str[id];
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 1024;
        p->str = sc_xrealloc(p->str, p->cap * sizeof *p->str);
    }
    if (p->n >= SC_HASH_NONE || sc_hash_add(&p->index, h, (uint32_t)p->n)) sc_oom();
    return p->str[p->n++] = sc_xstrdup(s);
}

void an_strpool_free(struct an_strpool *p)
{
    for (size_t i = 0; i < p->n; i++) free(p->str[i]);
    free(p->str);
    sc_hash_free(&p->index);
    memset(p, 0, sizeof *p);
}

void an_graph_init(struct an_graph *g) { memset(g, 0, sizeof *g); }

void an_graph_free(struct an_graph *g)
{
    free(g->v);
    sc_hash_free(&g->index);
    an_strpool_free(&g->strings);
    memset(g, 0, sizeof *g);
}

static uint64_t pair_key(uint32_t parent, uint64_t key) { return key ^ ((uint64_t)parent * 0x9e3779b97f4a7c15ull); }

uint32_t an_graph_find(const struct an_graph *g, uint32_t parent, uint64_t key)
{
    struct sc_hash_it it;
    for (uint32_t id = sc_hash_first(&g->index, pair_key(parent, key), &it); id != SC_HASH_NONE;
         id = sc_hash_next(&g->index, &it))
        if (g->v[id].parent == parent && g->v[id].key == key) return id;
    return AN_NONE;
}

uint32_t an_graph_get(struct an_graph *g, uint32_t parent, uint64_t key, int *created)
{
    uint32_t id = an_graph_find(g, parent, key);
    if (created) *created = 0;
    if (id != AN_NONE) return id;
    if (g->n == g->cap) {
        g->cap = g->cap ? g->cap * 2 : 1024;
        g->v = sc_xrealloc(g->v, g->cap * sizeof *g->v);
    }
    id = g->n++;
    if (sc_hash_add(&g->index, pair_key(parent, key), id)) sc_oom();
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
    uint32_t *tmp = sc_xmalloc((g->n + 1) * sizeof *tmp);
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
