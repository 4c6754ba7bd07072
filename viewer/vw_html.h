/* vw_html.h — shared by the files that write index.html: the section writers
 * and the small helpers they have in common (not public). */
#ifndef SCALANA_VW_HTML_H
#define SCALANA_VW_HTML_H
#include "vw_internal.h"

/* "file:line", HTML-escaped, or "(no source location)" when file is empty. */
VW_HIDDEN void vw_html_loc(struct vw_out *o, const char *file, long line);
/* A graphviz SVG document inline: from its <svg element on (no XML prolog). */
VW_HIDDEN void vw_html_inline_svg(struct vw_out *o, const char *svg);
/* Comma-separated integers, at most max, then "… (N in all)"; "–" when empty. */
VW_HIDDEN void vw_html_int_list(struct vw_out *o, const json_t *arr, size_t max);

VW_HIDDEN void vw_html_causes(struct vw_out *o, const struct vw_html_ctx *c);
VW_HIDDEN void vw_html_runs(struct vw_out *o, const struct vw_html_ctx *c);
VW_HIDDEN void vw_html_vertices(struct vw_out *o, const struct vw_html_ctx *c, const unsigned char *plotted);
VW_HIDDEN void vw_html_quality(struct vw_out *o, const struct vw_html_ctx *c);
/* The before/after section (report.json comparison); nothing when absent. */
VW_HIDDEN void vw_html_compare(struct vw_out *o, const struct vw_html_ctx *c);
#endif
