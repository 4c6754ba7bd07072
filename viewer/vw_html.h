/* vw_html.h — the section writers of index.html, called by the page frame
 * (vw_html.c) in page order (not public).  Each section file implements its
 * own and uses only vw_html_util.h and vw_internal.h: the frame depends on the
 * sections, the sections on the helpers, never back. */
#ifndef SCALANA_VW_HTML_H
#define SCALANA_VW_HTML_H
#include "vw_internal.h"

/* vw_html_causes.c */
VW_HIDDEN void vw_html_causes(struct vw_out *o, const struct vw_html_ctx *c);
/* vw_html_tables.c; plotted: nvert flags, vertex has a scaling plot (its id links to it) */
VW_HIDDEN void vw_html_runs(struct vw_out *o, const struct vw_html_ctx *c);
VW_HIDDEN void vw_html_vertices(struct vw_out *o, const struct vw_html_ctx *c, const unsigned char *plotted);
VW_HIDDEN void vw_html_quality(struct vw_out *o, const struct vw_html_ctx *c);
/* vw_html_compare.c: the before/after section (report.json comparison); nothing when absent. */
VW_HIDDEN void vw_html_compare(struct vw_out *o, const struct vw_html_ctx *c);
/* vw_html_predict.c: the section at P processes (report.json prediction); nothing when absent. */
VW_HIDDEN void vw_html_predict(struct vw_out *o, const struct vw_html_ctx *c);
/* vw_html_figures.c: scaling plots (sets plotted[v] for each vertex drawn), per-process
 * bars of imbalanced vertices, communication heat maps, the structure graph. */
VW_HIDDEN void vw_html_scaling(struct vw_out *o, const struct vw_html_ctx *c, unsigned char *plotted);
VW_HIDDEN void vw_html_imbalance(struct vw_out *o, const struct vw_html_ctx *c);
VW_HIDDEN void vw_html_comm(struct vw_out *o, const struct vw_html_ctx *c);
VW_HIDDEN void vw_html_psg(struct vw_out *o, const struct vw_html_ctx *c);
/* vw_html_views.c: the interactive views (calling-context tree, flat and bottom-up
 * tables, per process, source), drawn by the page's script from vw_html_data. */
VW_HIDDEN void vw_html_views(struct vw_out *o, const struct vw_html_ctx *c);
/* vw_html_data.c: <div id="scalana-data" hidden>{JSON}</div>, the views' data:
 * vertices at the largest process count, causes, function sources; sets o->failed
 * when out of memory.  Its keys: docs/viewer.md. */
VW_HIDDEN void vw_html_data(struct vw_out *o, const struct vw_html_ctx *c);
/* The same with at most max_values per-process numbers (vw_html_data: 1 000 000);
 * past it the vertices on paths or flagged, then by inclusive time, keep theirs,
 * with their inclusive ones ("pi"), and "ppnote" says so. */
VW_HIDDEN void vw_html_data_bounded(struct vw_out *o, const struct vw_html_ctx *c, size_t max_values);
/* vw_html_source.c: the source of each function of the report, heaviest first
 * ([{s: file index in seen, fn, a, b, first, lines[], note}]), bounded. */
VW_HIDDEN json_t *vw_html_sources(const struct vw_html_ctx *c, const json_t *seen);
#endif
