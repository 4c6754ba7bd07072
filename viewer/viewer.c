/* viewer.c — scalana_viewer_write(): renders one report into an output
 * directory (DOT, SVG, index.html, extrap.jsonl), stopping at the first error. */
#include "vw_internal.h"
#include "sc_fs.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int write_file(const char *dir, const char *name, const char *data, size_t len, char *err, size_t errlen)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path) {
        vw_seterr(err, errlen, "output path too long: %s/%s", dir, name);
        return -1;
    }
    FILE *fp = fopen(path, "w");
    if (!fp) {
        vw_seterr(err, errlen, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    size_t w = fwrite(data, 1, len, fp);
    if (fclose(fp) != 0 || w != len) {
        vw_seterr(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* Write g as name.dot and, when wanted, render it (to name.svg and/or *svg_out). */
static int emit_graph(vw_graph *g, const char *dir, const char *name, int want_svg_file,
                      char **svg_out, char *err, size_t errlen)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s.dot", dir, name) >= sizeof path) {
        vw_seterr(err, errlen, "output path too long: %s", dir);
        return -1;
    }
    if (vw_graph_write_dot(g, path, err, errlen) != 0) return -1;
    if (!want_svg_file && !svg_out) return 0;
    char *svg = NULL;
    size_t len = 0;
    if (vw_graph_render_svg(g, &svg, &len, err, errlen) != 0) return -1;
    if (want_svg_file) {
        snprintf(path, sizeof path, "%s.svg", name);
        if (write_file(dir, path, svg, len, err, errlen) != 0) { free(svg); return -1; }
    }
    if (svg_out) *svg_out = svg;
    else free(svg);
    return 0;
}

struct current_causes { const struct vw_report *r; int write_svg; };

/* Whether this rendering writes cause graph rootcause-<rank>.<ext> again. */
static int written_now(long rank, const char *ext, void *ctx)
{
    const struct current_causes *cc = ctx;
    size_t i;
    const json_t *c;
    json_array_foreach(cc->r->root_causes, i, c)
        if (vw_int(c, "rank", (long)i + 1) == rank) return !strcmp(ext, "dot") || cc->write_svg;
    return 0;
}

/* Removes the rootcause-N.dot / rootcause-N.svg files a previous rendering
 * left in dir that this one does not write (N not a current cause's rank, or
 * an SVG when none is written now): re-analysing into the same directory
 * must not show causes of another analysis.  Only names of exactly that form
 * (written by the viewer) are touched. */
static void remove_stale_causes(const char *dir, const struct vw_report *r, int write_svg)
{
    struct current_causes cc = {r, write_svg};
    sc_remove_cause_graphs(dir, written_now, &cc);
}

int scalana_viewer_write(const json_t *report, const char *out_dir, const struct scalana_viewer_options *opt,
                         char *err, size_t errlen)
{
    static const struct scalana_viewer_options none;
    if (!opt) opt = &none;
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
    remove_stale_causes(out_dir, &r, opt->write_svg);

    vw_graph *g = vw_psg_graph(&r, opt->max_graph_vertices, &note);
    if (!g) { vw_seterr(err, errlen, "cannot build the PSG graph (out of memory)"); goto out; }
    int e = emit_graph(g, out_dir, "psg", opt->write_svg, opt->write_html ? &psg_svg : NULL, err, errlen);
    vw_graph_close(g);
    if (e != 0) goto out;

    for (size_t i = 0; i < ncause; i++) {
        const json_t *cause = json_array_get(r.root_causes, i);
        char name[64];
        snprintf(name, sizeof name, "rootcause-%ld", vw_int(cause, "rank", (long)i + 1));
        g = vw_path_graph(&r, cause, opt->max_graph_vertices);
        if (!g) { vw_seterr(err, errlen, "cannot build %s (out of memory)", name); goto out; }
        e = emit_graph(g, out_dir, name, opt->write_svg, opt->write_html ? &path_svgs[i] : NULL, err, errlen);
        vw_graph_close(g);
        if (e != 0) goto out;
    }

    if (opt->write_html) {
        struct vw_out o;
        vw_out_init_mem(&o);
        struct vw_html_ctx c = {&r, opt, psg_svg, note, (const char *const *)path_svgs};
        vw_html_page(&o, &c);
        if (vw_out_error(&o)) { vw_out_free(&o); vw_seterr(err, errlen, "out of memory writing index.html"); goto out; }
        e = write_file(out_dir, "index.html", o.buf, o.len, err, errlen);
        vw_out_free(&o);
        if (e != 0) goto out;
    }
    if (opt->write_extrap) {
        struct vw_out o;
        vw_out_init_mem(&o);
        vw_extrap_write(&o, &r);
        if (vw_out_error(&o)) { vw_out_free(&o); vw_seterr(err, errlen, "out of memory writing extrap.jsonl"); goto out; }
        e = write_file(out_dir, "extrap.jsonl", o.buf ? o.buf : "", o.len, err, errlen);
        vw_out_free(&o);
        if (e != 0) goto out;
    }
    if (opt->write_caliper && vw_caliper_write(&r, out_dir, err, errlen) != 0) goto out;
    rc = 0;
out:
    for (size_t i = 0; path_svgs && i < ncause; i++) free(path_svgs[i]);
    free(path_svgs);
    free(psg_svg);
    free(note);
    vw_report_close(&r);
    return rc;
}
