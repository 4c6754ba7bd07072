/* viewer.c — scalana_viewer_write(): renders one report into an output
 * directory, the exports of scalana/outputs.def in their order (the graphs
 * laid out once for DOT, SVG and the page), stopping at the first error. */
#include "vw_internal.h"
#include "sc_fs.h"
#include "scalana/outputs.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* DOT and SVG: written by write_graphs before the writers run. */
int vw_graphs(const struct vw_write_ctx *c, char *err, size_t errlen)
{
    (void)c, (void)err, (void)errlen;
    return 0;
}

typedef int (*vw_writer)(const struct vw_write_ctx *c, char *err, size_t errlen);
static const vw_writer writers[SCALANA_OUT_COUNT] = {
#define SCALANA_OUTPUT(NAME, flag, files, writer, what) [SCALANA_OUT_##NAME] = writer,
#include "scalana/outputs.def"
#undef SCALANA_OUTPUT
};

/* Write g as name.dot (want_dot) and, when wanted, render it (to name.svg
 * and/or *svg_out); the DOT file is written before the layout adds to g. */
static int emit_graph(vw_graph *g, const char *dir, const char *name, int want_dot, int want_svg_file,
                      char **svg_out, char *err, size_t errlen)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s.dot", dir, name) >= sizeof path) {
        vw_seterr(err, errlen, "output path too long: %s", dir);
        return -1;
    }
    if (want_dot && vw_graph_write_dot(g, path, err, errlen) != 0) return -1;
    if (!want_svg_file && !svg_out) return 0;
    char *svg = NULL;
    size_t len = 0;
    if (vw_graph_render_svg(g, &svg, &len, err, errlen) != 0) return -1;
    if (want_svg_file) {
        snprintf(path, sizeof path, "%s.svg", name);
        if (vw_save_file(dir, path, svg, len, err, errlen) != 0) { free(svg); return -1; }
    }
    if (svg_out) *svg_out = svg;
    else free(svg);
    return 0;
}

struct current_causes { const struct vw_report *r; int write_dot, write_svg; };

/* Whether this rendering writes cause graph rootcause-<rank>.<ext> again. */
static int written_now(long rank, const char *ext, void *ctx)
{
    const struct current_causes *cc = ctx;
    size_t i;
    const json_t *c;
    json_array_foreach(cc->r->root_causes, i, c)
        if (vw_int(c, "rank", (long)i + 1) == rank) return !strcmp(ext, "dot") ? cc->write_dot : cc->write_svg;
    return 0;
}

/* Removes the rootcause-N.dot / rootcause-N.svg files a previous rendering
 * left in dir that this one does not write (N not a current cause's rank, or
 * a kind of file not written now): re-analysing into the same directory
 * must not show causes of another analysis.  Only names of exactly that form
 * (written by the viewer) are touched. */
static void remove_stale_causes(const char *dir, const struct vw_report *r, int write_dot, int write_svg)
{
    struct current_causes cc = {r, write_dot, write_svg};
    sc_remove_cause_graphs(dir, written_now, &cc);
}

/* The graphs: psg.dot/.svg and rootcause-N.dot/.svg as opt asks, and the
 * SVGs the page embeds (in c, to be freed by the caller) when it is written. */
static int write_graphs(struct vw_write_ctx *c, char **psg_svg, char **note, char **path_svgs, size_t ncause,
                        char *err, size_t errlen)
{
    unsigned on = c->opt->outputs;
    int dot = !!(on & SCALANA_OUT_BIT(SCALANA_OUT_DOT)), svg = !!(on & SCALANA_OUT_BIT(SCALANA_OUT_SVG));
    int html = !!(on & SCALANA_OUT_BIT(SCALANA_OUT_HTML));
    if (!dot && !svg && !html) return 0;
    vw_graph *g = vw_psg_graph(c->r, c->opt->max_graph_vertices, note);
    if (!g) { vw_seterr(err, errlen, "cannot build the PSG graph (out of memory)"); return -1; }
    int e = emit_graph(g, c->out_dir, "psg", dot, svg, html ? psg_svg : NULL, err, errlen);
    vw_graph_close(g);
    if (e != 0) return -1;
    for (size_t i = 0; i < ncause; i++) {
        const json_t *cause = json_array_get(c->r->root_causes, i);
        char name[64];
        snprintf(name, sizeof name, "rootcause-%ld", vw_int(cause, "rank", (long)i + 1));
        g = vw_path_graph(c->r, cause, c->opt->max_graph_vertices);
        if (!g) { vw_seterr(err, errlen, "cannot build %s (out of memory)", name); return -1; }
        e = emit_graph(g, c->out_dir, name, dot, svg, html ? &path_svgs[i] : NULL, err, errlen);
        vw_graph_close(g);
        if (e != 0) return -1;
    }
    c->psg_svg = *psg_svg, c->psg_note = *note, c->path_svgs = (const char *const *)path_svgs;
    return 0;
}

int scalana_viewer_write(const json_t *report, const char *out_dir, const struct scalana_viewer_options *opt,
                         char *err, size_t errlen)
{
    static const struct scalana_viewer_options dot_only = {.outputs = SCALANA_OUT_BIT(SCALANA_OUT_DOT)};
    if (!opt) opt = &dot_only;
    if (!out_dir) {
        vw_seterr(err, errlen, "no output directory");
        return -1;
    }
    struct vw_report r;
    if (vw_report_open(&r, report, err, errlen) != 0) return -1;
    size_t ncause = json_array_size(r.root_causes);
    char **path_svgs = calloc(ncause ? ncause : 1, sizeof *path_svgs);
    char *psg_svg = NULL, *note = NULL;
    int rc = -1;
    if (!path_svgs) { vw_seterr(err, errlen, "out of memory"); goto out; }
    remove_stale_causes(out_dir, &r, !!(opt->outputs & SCALANA_OUT_BIT(SCALANA_OUT_DOT)),
                        !!(opt->outputs & SCALANA_OUT_BIT(SCALANA_OUT_SVG)));
    struct vw_write_ctx c = {&r, opt, out_dir, NULL, NULL, NULL};
    if (write_graphs(&c, &psg_svg, &note, path_svgs, ncause, err, errlen) != 0) goto out;
    for (int o = 0; o < SCALANA_OUT_COUNT; o++)
        if ((opt->outputs & SCALANA_OUT_BIT(o)) && writers[o](&c, err, errlen) != 0) goto out;
    rc = 0;
out:
    for (size_t i = 0; path_svgs && i < ncause; i++) free(path_svgs[i]);
    free(path_svgs);
    free(psg_svg);
    free(note);
    vw_report_close(&r);
    return rc;
}
