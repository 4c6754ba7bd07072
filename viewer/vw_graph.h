/* vw_graph.h — small helpers over libcgraph used by the DOT builders:
 * attribute setting with const strings, label text escaping, colours. */
#ifndef SCALANA_VW_GRAPH_H
#define SCALANA_VW_GRAPH_H
#include <graphviz/cgraph.h>
#include "vw_internal.h"

/* Set attribute `name` of a graph, node or edge (declared with default "" on first use). */
VW_HIDDEN void vw_gset(void *obj, const char *name, const char *value);
/* Append `s` to a label under construction, escaped for a DOT escString
 * (backslash doubled, so user text never forms \N, \G, \l, ...); at most
 * `max` bytes of s (cut at a UTF-8 boundary, then "…"); 0 means no limit. */
VW_HIDDEN void vw_label_text(struct vw_out *lab, const char *s, size_t max);
/* Fill colour for a share in [0,1] of the largest scaling loss (white → red). */
VW_HIDDEN void vw_loss_color(double share, char buf[8], int *dark);
/* A directed graph named `name`, laid out left to right, with SVG id `id`
 * (ids stay unique when several graphs share a page), Helvetica, and nodes
 * drawn as white boxes of style `node_style` in 10 pt; NULL when out of
 * memory.  The DOT builders add their own attributes. */
VW_HIDDEN Agraph_t *vw_graph_open(const char *name, const char *id, const char *node_style);
/* Last path component of a file name. */
VW_HIDDEN const char *vw_basename(const char *file);
#endif
