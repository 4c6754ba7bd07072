/* vw_internal.h — types and helpers shared by the viewer's files (not public):
 * the output writer with a sticky error flag, report accessors, graph builders. */
#ifndef SCALANA_VW_INTERNAL_H
#define SCALANA_VW_INTERNAL_H

#include <stddef.h>
#include <stdio.h>
#include <stdarg.h>
#include <jansson.h>
#include "viewer.h"

#define VW_HIDDEN __attribute__((visibility("hidden")))

/* ---- output writer (vw_out.c): a file or a growing memory buffer; the
 * first failure is sticky, so callers check vw_out_error() once at the end. */
struct vw_out {
    FILE *fp;            /* file backend, or NULL for the memory backend */
    char *buf;           /* memory backend: contents, NUL-terminated */
    size_t len, cap;
    int failed;          /* sticky: set by the first failed write or allocation */
};
VW_HIDDEN void vw_out_init_mem(struct vw_out *o);
VW_HIDDEN void vw_out_init_file(struct vw_out *o, FILE *fp);
VW_HIDDEN void vw_out_free(struct vw_out *o);              /* frees the memory buffer only */
VW_HIDDEN void vw_write(struct vw_out *o, const char *s, size_t n);
VW_HIDDEN void vw_puts(struct vw_out *o, const char *s);
VW_HIDDEN void vw_printf(struct vw_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* HTML/XML-escaped text: & < > " ' become entities; invalid UTF-8 bytes become U+FFFD. */
VW_HIDDEN void vw_html(struct vw_out *o, const char *s);
VW_HIDDEN void vw_html_n(struct vw_out *o, const char *s, size_t n);
/* Length of the valid UTF-8 sequence at s (at most n bytes, n > 0), 0 if invalid
 * (overlong forms, surrogates and code points above U+10FFFF are invalid). */
VW_HIDDEN size_t vw_utf8_len(const unsigned char *s, size_t n);
/* Number for display: %.3g-like with a unit-free compact form. */
VW_HIDDEN void vw_num(struct vw_out *o, double v);
/* vw_num's form into buf (capacity n): whole numbers as such (5, 65536),
 * others to 4 significant digits (0.0514, 1.25), with an exponent only
 * below 0.001 or from 1e6; "-" when not finite.  Never more digits than a
 * reader needs (no 0.051400000000000001, no 5.000000). */
VW_HIDDEN void vw_num_text(char *buf, size_t n, double v);
static inline int vw_out_error(const struct vw_out *o) { return o->failed; }

/* ---- report accessors (vw_report.c) */
struct vw_report {
    const json_t *root;
    const json_t *vertices;      /* array (never NULL: an empty array when absent) */
    const json_t *root_causes;   /* array */
    const json_t *runs;          /* array */
    size_t nvert;
    int largest_processes;       /* largest run's process count (0 without runs) */
    double largest_wall;         /* its wall_seconds */
    unsigned char *on_path;      /* nvert flags: vertex is a root cause or on a path */
    int *children_first, *children_next;  /* child lists by parent (-1 ends) */
    int *parent;                 /* parent index or -1 */
};
VW_HIDDEN int vw_report_open(struct vw_report *r, const json_t *report, char *err, size_t errlen);
VW_HIDDEN void vw_report_close(struct vw_report *r);
VW_HIDDEN const json_t *vw_vertex(const struct vw_report *r, long i);   /* NULL if out of range */
VW_HIDDEN const char *vw_str(const json_t *obj, const char *key, const char *dflt);
VW_HIDDEN double vw_dbl(const json_t *obj, const char *key, double dflt);
VW_HIDDEN long vw_int(const json_t *obj, const char *key, long dflt);
/* Sort v[0..n) and write it to buf as ranges, "0, 5-7, 12" (duplicates
 * merged), at most max_ranges of them, then ", ...".  Returns how many
 * distinct values v holds (for "(4 ranks)"). */
VW_HIDDEN size_t vw_ranges(long *v, size_t n, size_t max_ranges, char *buf, size_t len);
#define VW_RANGES_MAX 8 /* ranges printed of a rank list; the rest are "..." and counted */
/* Which threshold the top candidate of report.json is under and the -t
 * option that lowers it, one sentence into buf ("" without candidates). */
VW_HIDDEN void vw_candidate_note(const json_t *report, char *buf, size_t n);
/* data_quality.missing_ranks ([{rank, processes, reason}]) as rank ranges per
 * run into buf (capacity len), the terminal's and the page's one text:
 * "0, 5-7 of the 8-process run (4 ranks); 3 of the 4-process run (1 rank)",
 * each list after "rank "/"ranks " when word is set. */
VW_HIDDEN void vw_missing_ranks_text(const json_t *mr, int word, char *buf, size_t len);
/* vw_ranges over a JSON array of integers (non-integers skipped). */
VW_HIDDEN size_t vw_int_ranges(const json_t *arr, char *buf, size_t len);
/* The metrics entry of vertex v at exactly `processes` processes (NULL if none). */
VW_HIDDEN const json_t *vw_metrics_at(const json_t *v, long processes);
/* The metrics entry of vertex v at the largest process count it has (NULL if none). */
VW_HIDDEN const json_t *vw_metrics_last(const json_t *v);
VW_HIDDEN int vw_has_flag(const json_t *v, const char *flag);
/* Kind of vertex v to print before its name: the kind, or "" when the name
 * already starts with it (the analyzer names loops and straight-line code
 * "LOOP 12-15", "COMPUTE 2387-2404": "COMPUTE COMPUTE ..." reads as noise). */
VW_HIDDEN const char *vw_kind_prefix(const json_t *v);
/* "Category name" for display of a root_cause.category value. */
VW_HIDDEN const char *vw_category_title(const char *category);
/* One-sentence remedy of a category ("" when unknown). */
VW_HIDDEN const char *vw_category_remedy(const char *category);

/* ---- source files (vw_source.c) */
/* Open `file` after applying the --source-path prefix pairs of opt; NULL if not found. */
VW_HIDDEN FILE *vw_source_open(const struct scalana_viewer_options *opt, const char *file,
                               char *resolved, size_t resolved_len);

/* ---- graphs (vw_dot_psg.c, vw_dot_path.c, vw_graph.c) */
typedef struct Agraph_s vw_graph;
/* PSG bounded to max_vertices; *note gets a static-lifetime-free malloc'd string
 * describing what was left out (NULL when nothing was). */
VW_HIDDEN vw_graph *vw_psg_graph(const struct vw_report *r, size_t max_vertices, char **note);
VW_HIDDEN vw_graph *vw_path_graph(const struct vw_report *r, const json_t *root_cause, size_t max_vertices);
VW_HIDDEN void vw_graph_close(vw_graph *g);
/* Write the graph as DOT through agwrite to path. */
VW_HIDDEN int vw_graph_write_dot(vw_graph *g, const char *path, char *err, size_t errlen);
/* Lay out with dot and render SVG into *svg (malloc'd, NUL-terminated). */
VW_HIDDEN int vw_graph_render_svg(vw_graph *g, char **svg, size_t *len, char *err, size_t errlen);

/* ---- HTML (vw_html*.c) */
struct vw_html_ctx {
    const struct vw_report *r;
    const struct scalana_viewer_options *opt;
    const char *psg_svg;             /* may be NULL */
    const char *psg_note;            /* may be NULL */
    const char *const *path_svgs;    /* per root cause, entries may be NULL */
};
VW_HIDDEN void vw_html_page(struct vw_out *o, const struct vw_html_ctx *c);

/* ---- the exports (scalana/outputs.def): what each writer gets */
struct vw_write_ctx {
    const struct vw_report *r;
    const struct scalana_viewer_options *opt;
    const char *out_dir;
    const char *psg_svg, *psg_note;  /* the graphs laid out (SVG or HTML asked), may be NULL */
    const char *const *path_svgs;    /* per root cause, entries may be NULL */
};
/* The writers of outputs.def's lines, declared from the table itself (a new
 * export needs no line here): 0, or -1 with the reason in err.  vw_graphs is
 * viewer.c's, vw_html_write vw_html.c's, vw_extrap_write_file vw_extrap.c's,
 * vw_caliper_write vw_caliper.c's (below), vw_summary_write
 * vw_summary_file.c's. */
#define SCALANA_OUTPUT(NAME, flag, files, writer, what) \
    VW_HIDDEN int writer(const struct vw_write_ctx *c, char *err, size_t errlen);
#include "scalana/outputs.def"
#undef SCALANA_OUTPUT
/* Writes len bytes of data to dir/name: 0, or -1 with the reason in err (vw_out.c). */
VW_HIDDEN int vw_save_file(const char *dir, const char *name, const char *data, size_t len, char *err, size_t errlen);
/* Writes o's memory buffer to dir/name ("" when empty): 0, or -1 with the
 * reason in err (out of memory while o was filled: "out of memory writing name"). */
VW_HIDDEN int vw_out_save(struct vw_out *o, const char *dir, const char *name, char *err, size_t errlen);
/* SVG figures drawn by our code (vw_plot.c) */
VW_HIDDEN void vw_plot_scaling(struct vw_out *o, const struct vw_report *r, const json_t *v, const char *series);
/* The series drawn hollow next to a fitted series (mean <-> max of the same kind). */
VW_HIDDEN const char *vw_plot_companion(const char *series);
VW_HIDDEN void vw_plot_bars(struct vw_out *o, const json_t *metrics);
VW_HIDDEN void vw_plot_heatmap(struct vw_out *o, const json_t *matrix, const char *unit);
VW_HIDDEN void vw_plot_runs(struct vw_out *o, const struct vw_report *r);
/* Inline assets (vw_assets.c) */
VW_HIDDEN extern const char vw_css[];
VW_HIDDEN extern const char vw_js[];
/* The interactive views' stylesheet and script (viewer/vw_views.css, vw_views.js,
 * turned into C strings at build time by cmake/embed_text.cmake) */
VW_HIDDEN extern const char vw_views_css[];
VW_HIDDEN extern const char vw_views_js[];

/* ---- node labels of both exports (vw_label.c): labels[i] is vertex i's label
 * among its siblings (the vertices of the same parent in the whole report, or
 * the roots): its name ("->" as "-_", control characters as spaces, "" as
 * "?"); name@line when a sibling has the same name; name@line#i when one also
 * has the same line; "#i" appended while two are still equal (i: the index in
 * vertices[]).  The same at every process count.  NULL when out of memory;
 * free with vw_node_labels_free(labels, r->nvert). */
VW_HIDDEN char **vw_node_labels(const struct vw_report *r);
VW_HIDDEN void vw_node_labels_free(char **labels, size_t n);
/* ---- Extra-P (vw_extrap.c) */
VW_HIDDEN void vw_extrap_write(struct vw_out *o, const struct vw_report *r);
/* ---- Hatchet/Thicket (vw_caliper.c): out_dir/caliper/scalana-<P>p.json, one
 * Caliper JSON profile per process count of r->runs; files of other counts
 * there are removed.  Returns 0, or -1 with the reason in err: vw_caliper_write,
 * declared with the other writers above. */
/* The before/after part of the terminal summary (report.json comparison); nothing when absent. */
VW_HIDDEN void vw_summary_compare(FILE *out, const json_t *report, int use_color);
/* The --predict part of the terminal summary (report.json prediction): each cause's
 * cost at P processes with its band, the dominant one; nothing when absent. */
VW_HIDDEN void vw_summary_predict(FILE *out, const json_t *report, int use_color);
/* The what-if part of the terminal summary (report.json what_if): "fixing #1 and #2:
 * 8.1 s -> 6.2 s"; nothing when absent. */
VW_HIDDEN void vw_summary_whatif(FILE *out, const json_t *report, int use_color);

/* ---- sampling rate (vw_summary.c) */
/** "cputime: asked 1000 Hz, obtained 250 Hz per thread (capped ...)" for the
 *  largest run of report.json's runs[] into buf; 0 when the report says no
 *  rate (older reports, no sampler). */
VW_HIDDEN int vw_sampling_line(const json_t *runs, char *buf, size_t n);

/* ---- errors */
VW_HIDDEN void vw_seterr(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
