/* vw_html.c — index.html: one self-contained page (inline CSS, JS and SVG; a
 * Content-Security-Policy forbids every network request) built from report.json;
 * the page frame (head, header, navigation), calling the section writers in order. */
#include "vw_html.h"
#include <stdlib.h>
#include <string.h>

void vw_html_page(struct vw_out *o, const struct vw_html_ctx *c)
{
    const struct vw_report *r = c->r;
    const json_t *prog = json_object_get(r->root, "program");
    const char *exe = vw_str(prog, "path", vw_str(prog, "executable", "?")); /* the program, not the run's copy */
    const char *base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
    vw_puts(o, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
               "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>ScalAna report: ");
    vw_html(o, base);
    vw_puts(o, "</title><style>");
    vw_puts(o, vw_css);
    vw_puts(o, vw_views_css);
    vw_puts(o, "</style></head><body><header><h1>ScalAna report: ");
    vw_html(o, base);
    vw_puts(o, "</h1><p class=\"meta\">");
    vw_html(o, exe);
    vw_puts(o, " · build-id ");
    vw_html(o, vw_str(prog, "build_id", "?"));
    if (!strcmp(vw_str(prog, "psg_source", ""), "machine_code")) vw_puts(o, " · structure recovered from machine code");
    vw_puts(o, " · ");
    vw_html(o, vw_str(r->root, "scaling", "strong"));
    /* runs[] has one entry per process count; its directories are the runs */
    size_t ncounts = json_array_size(r->runs), ndirs = 0, ri;
    const json_t *rj;
    json_array_foreach(r->runs, ri, rj) {
        size_t nd = json_array_size(json_object_get(rj, "directories"));
        ndirs += nd ? nd : 1;
    }
    vw_puts(o, " scaling · ");
    if (ndirs != ncounts) vw_printf(o, "%zu process count%s, ", ncounts, ncounts == 1 ? "" : "s");
    vw_printf(o, "%zu run%s", ndirs, ndirs == 1 ? "" : "s");
    if (r->largest_processes > 0) vw_printf(o, ", up to %d processes", r->largest_processes);
    if (r->largest_wall > 0) {
        vw_puts(o, " (");
        vw_num(o, r->largest_wall);
        vw_puts(o, " s)");
    }
    const json_t *tool = json_object_get(r->root, "tool");
    vw_puts(o, " · ");
    vw_html(o, vw_str(tool, "name", "scalana"));
    vw_puts(o, " ");
    vw_html(o, vw_str(tool, "version", ""));
    if (json_is_false(json_object_get(prog, "has_psg")))
        vw_puts(o, " · no compiler PSG: call paths recovered from samples");
    char rate[400];
    if (vw_sampling_line(r->runs, rate, sizeof rate)) {
        vw_puts(o, " · ");
        vw_html(o, rate);
    }
    vw_puts(o, "</p><div class=\"gsearch\"><input type=\"search\" id=\"gsearch\" placeholder=\"search function, file, MPI call, rank, category\xE2\x80\xA6\" aria-label=\"search the report\" autocomplete=\"off\"><ol id=\"gresults\" hidden></ol></div><nav>");
    if (json_is_object(json_object_get(r->root, "comparison"))) vw_puts(o, "<a href=\"#comparison\">Before/after</a>");
    if (json_is_object(json_object_get(r->root, "prediction"))) vw_puts(o, "<a href=\"#prediction\">Prediction</a>");
    vw_puts(o, "<a href=\"#causes\">Root causes</a><a href=\"#runs\">Runs</a>"
               "<a href=\"#calltree\">Call tree</a><a href=\"#flat\">Flat</a><a href=\"#perprocess\">Per process</a><a href=\"#source\">Source</a>"
               "<a href=\"#scaling\">Scaling</a>"
               "<a href=\"#imbalance\">Imbalance</a><a href=\"#communication\">Communication</a><a href=\"#psg\">Graph</a>"
               "<a href=\"#vertices\">Vertices</a><a href=\"#quality\">Data quality</a></nav></header><main>");
    unsigned char *plotted = calloc(r->nvert ? r->nvert : 1, 1);
    if (!plotted) { o->failed = 1; return; }
    vw_html_compare(o, c);
    vw_html_predict(o, c);
    vw_html_causes(o, c);
    vw_html_runs(o, c);
    vw_html_views(o, c);
    vw_html_scaling(o, c, plotted);
    vw_html_imbalance(o, c);
    vw_html_comm(o, c);
    vw_html_psg(o, c);
    vw_html_vertices(o, c, plotted);
    vw_html_quality(o, c);
    free(plotted);
    vw_html_data(o, c);
    vw_puts(o, "</main><script>");
    vw_puts(o, vw_js);
    vw_puts(o, vw_views_js);
    vw_puts(o, "</script></body></html>\n");
}

int vw_html_write(const struct vw_write_ctx *c, char *err, size_t errlen)
{
    struct vw_out o;
    vw_out_init_mem(&o);
    struct vw_html_ctx h = {c->r, c->opt, c->psg_svg, c->psg_note, c->path_svgs};
    vw_html_page(&o, &h);
    int e = vw_out_save(&o, c->out_dir, "index.html", err, errlen);
    vw_out_free(&o);
    return e;
}
