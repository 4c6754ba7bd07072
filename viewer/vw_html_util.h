/* vw_html_util.h — the small HTML helpers every section writer of index.html
 * uses (not public).  Depends on the output writer only: section files include
 * it, and vw_html.c, which calls the sections, includes it too (no circle). */
#ifndef SCALANA_VW_HTML_UTIL_H
#define SCALANA_VW_HTML_UTIL_H
#include "vw_internal.h"

/* "file:line", HTML-escaped, or "(no source location)" when file is empty. */
VW_HIDDEN void vw_html_loc(struct vw_out *o, const char *file, long line);
/* A graphviz SVG document inline: from its <svg element on (no XML prolog). */
VW_HIDDEN void vw_html_inline_svg(struct vw_out *o, const char *svg);
/* Comma-separated integers, at most max, then "… (N in all)"; "–" when empty. */
VW_HIDDEN void vw_html_int_list(struct vw_out *o, const json_t *arr, size_t max);
/* A vertex with a sort key, for choosing the vertices a section shows first. */
struct vw_pick { size_t v; double key; };
/* qsort order: key descending, then vertex index ascending (deterministic output). */
VW_HIDDEN int vw_pick_desc(const void *a, const void *b);
#endif
