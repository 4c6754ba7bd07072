/* graph.h — the interning pool and the vertex table (core/graph.c): what
 * every room uses to name strings and vertices. */
#ifndef SCALANA_AN_CORE_GRAPH_H
#define SCALANA_AN_CORE_GRAPH_H

#include "core/types.h"

/** Returns the pool's copy of s (NULL gives ""); never NULL: aborts on OOM. */
const char *an_intern(struct an_strpool *p, const char *s);
void an_strpool_free(struct an_strpool *p);
void an_graph_init(struct an_graph *g);
void an_graph_free(struct an_graph *g);
/** Vertex with (parent, key), or AN_NONE. */
uint32_t an_graph_find(const struct an_graph *g, uint32_t parent, uint64_t key);
/** Finds or appends the vertex (parent, key); *created says which.  The new
 *  vertex is zeroed but for parent, key, depth and links; the caller fills
 *  kind and names.  Aborts on allocation failure. */
uint32_t an_graph_get(struct an_graph *g, uint32_t parent, uint64_t key, int *created);
/** Re-links children so that siblings follow program order (order, line). */
void an_graph_sort_children(struct an_graph *g);
/** Whether a is b or an ancestor of b. */
int an_graph_is_ancestor(const struct an_graph *g, uint32_t a, uint32_t b);
/** Name of a vertex kind as report.json spells it. */
const char *an_kind_name(unsigned kind);
/** FNV-1a 64 of a string, mixed with seed. */
uint64_t an_hash_str(const char *s, uint64_t seed);

#endif
