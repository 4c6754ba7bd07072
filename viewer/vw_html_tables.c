/* vw_html_tables.c — the table sections of index.html: the runs, every vertex
 * (searchable and sortable by the page's script), data quality and thresholds. */
#include "vw_html.h"
#include "vw_html_util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TABLE_ROWS 20000   /* above this a browser sorts and filters slowly */

void vw_html_runs(struct vw_out *o, const struct vw_html_ctx *c)
{
    const struct vw_report *r = c->r;
    vw_puts(o, "<section id=\"runs\"><h2>Runs</h2><table><thead><tr><th class=\"num\">processes</th><th class=\"num\">wall s</th>"
               "<th class=\"num\">spread s</th><th class=\"num\">parallel efficiency</th><th class=\"num\">CPU s (mean)</th>"
               "<th class=\"num\">MPI s (mean)</th><th class=\"num\">ranks per core</th>"
               "<th class=\"num\">threads per process</th><th class=\"num\">threads per core</th><th>MPI</th><th>sampler</th><th class=\"num\">repetitions</th></tr></thead><tbody>");
    size_t i;
    const json_t *run;
    json_array_foreach(r->runs, i, run) {
        double eff = vw_dbl(run, "parallel_efficiency", 0);
        double over = vw_dbl(run, "oversubscription", 0);
        vw_printf(o, "<tr><td class=\"num\">%ld</td><td class=\"num\">", vw_int(run, "processes", 0));
        vw_num(o, vw_dbl(run, "wall_seconds", 0));
        vw_puts(o, "</td><td class=\"num\">");
        vw_num(o, vw_dbl(run, "wall_seconds_spread", NAN));
        vw_printf(o, "</td><td class=\"num\">%.1f%%<span class=\"eff\" style=\"width:%.0fpx\"></span></td><td class=\"num\">",
                  eff * 100, fmin(eff, 1.5) * 60);
        vw_num(o, vw_dbl(run, "cpu_seconds_mean", NAN));
        vw_puts(o, "</td><td class=\"num\">");
        vw_num(o, vw_dbl(run, "mpi_seconds_mean", NAN));
        double tpc = vw_dbl(run, "threads_per_core", 0);
        vw_printf(o, "</td><td class=\"num%s\">%.2f</td><td class=\"num\">%ld</td><td class=\"num%s\">%.2f</td><td>",
                  over > 1 ? " warn" : "", over, vw_int(run, "threads_per_process", 1), tpc > 1 ? " warn" : "", tpc);
        vw_html(o, vw_str(run, "mpi_library", ""));
        vw_puts(o, "</td><td>");
        vw_html(o, vw_str(run, "sampler", ""));
        double sp = vw_dbl(run, "sample_period_seconds", 0);
        if (sp > 0) vw_printf(o, " (%g ms)", sp * 1e3);
        vw_puts(o, "</td><td class=\"num\" title=\"");
        size_t k;
        const json_t *d;
        json_array_foreach(json_object_get(run, "directories"), k, d) {
            if (k) vw_puts(o, "&#10;");
            vw_html(o, json_string_value(d));
        }
        vw_printf(o, "\">%zu</td></tr>", json_array_size(json_object_get(run, "directories")));
    }
    vw_puts(o, "</tbody></table>");
    if (json_array_size(r->runs) > 1) {
        vw_puts(o, "<div class=\"plots\"><figure id=\"runs-plot\">");
        vw_plot_runs(o, r);
        vw_puts(o, "<figcaption>Wall time (max over ranks, median of repetitions) against the ideal.</figcaption></figure></div>");
    }
    vw_puts(o, "</section>");
}

static void numcell(struct vw_out *o, double v)
{
    if (isfinite(v)) {
        vw_printf(o, "<td class=\"num\" data-v=\"%.9g\">", v);
        vw_num(o, v);
    } else {
        vw_puts(o, "<td class=\"num\" data-v=\"\">");
    }
    vw_puts(o, "</td>");
}

/* Rows of the vertex table: all of them up to MAX_TABLE_ROWS; above, the vertices
 * on paths and flagged ones, then by scaling loss and time (the order psg.dot keeps). */
static unsigned char *table_rows(const struct vw_report *r, size_t *nrows)
{
    size_t n = r->nvert;
    unsigned char *row = calloc(n ? n : 1, 1);
    if (!row) return NULL;
    if (n <= MAX_TABLE_ROWS) {
        memset(row, 1, n);
        *nrows = n;
        return row;
    }
    struct vw_pick *pk = malloc(n * sizeof *pk);
    if (!pk) { free(row); return NULL; }
    for (size_t i = 0; i < n; i++) {
        const json_t *v = vw_vertex(r, (long)i);
        double loss = vw_dbl(v, "scaling_loss_seconds", 0);
        double key = vw_dbl(vw_metrics_last(v), "time_max_seconds", 0);
        if (loss > 0) key += 1e12 + loss;
        if (r->on_path[i] || json_array_size(json_object_get(v, "flags")) > 0) key += 1e15;
        pk[i] = (struct vw_pick){i, key};
    }
    qsort(pk, n, sizeof *pk, vw_pick_desc);
    for (size_t k = 0; k < MAX_TABLE_ROWS; k++) row[pk[k].v] = 1;
    free(pk);
    *nrows = MAX_TABLE_ROWS;
    return row;
}

void vw_html_vertices(struct vw_out *o, const struct vw_html_ctx *c, const unsigned char *plotted)
{
    const struct vw_report *r = c->r;
    size_t nrows = 0;
    unsigned char *row = table_rows(r, &nrows);
    if (!row) { o->failed = 1; return; }
    vw_printf(o, "<section id=\"vertices\"><h2>All vertices</h2><input type=\"search\" id=\"vsearch\" placeholder=\"filter by name, file, kind, flag…\" aria-label=\"filter vertices\"> <span id=\"vcount\" class=\"note\">%zu vertices</span>",
              nrows);
    if (nrows < r->nvert)
        vw_printf(o, "<p class=\"note\">The %zu vertices on root-cause paths, flagged, or with the largest scaling loss and time, of %zu; all are in report.json and extrap.jsonl.</p>",
                  nrows, r->nvert);
    vw_puts(o, "<div class=\"tablewrap\"><table id=\"vtable\"><thead><tr><th class=\"num\">id</th><th class=\"num\">parent</th><th>kind</th><th>name</th><th>location</th>"
               "<th class=\"num\">p</th><th class=\"num\">t max s</th><th class=\"num\">t mean s</th><th class=\"num\">incl. mean s</th><th class=\"num\">imbalance</th>"
               "<th>model</th><th class=\"num\">scaling loss s</th><th class=\"num\">loss %</th><th>flags</th></tr></thead><tbody>");
    for (size_t i = 0; i < r->nvert; i++) {
        if (!row[i]) continue;
        const json_t *v = vw_vertex(r, (long)i);
        const json_t *m = vw_metrics_last(v);
        vw_printf(o, "<tr id=\"vrow-%zu\"><td class=\"num\" data-v=\"%zu\">", i, i);
        if (plotted[i]) vw_printf(o, "<a href=\"#plot-v%zu\" title=\"scaling plot\">%zu</a>", i, i);
        else vw_printf(o, "%zu", i);
        vw_puts(o, "</td>");
        if (r->parent[i] >= 0) vw_printf(o, "<td class=\"num\" data-v=\"%d\"><a href=\"#vrow-%d\">%d</a></td>", r->parent[i], r->parent[i], r->parent[i]);
        else vw_puts(o, "<td class=\"num\" data-v=\"-1\"></td>");
        vw_puts(o, "<td>");
        vw_html(o, vw_str(v, "kind", ""));
        vw_puts(o, "</td><td>");
        vw_html(o, vw_str(v, "name", ""));
        const char *op = vw_str(v, "operation", NULL);
        if (op && *op && !strstr(vw_str(v, "name", ""), op)) {
            vw_puts(o, " <span class=\"note\">");
            vw_html(o, op);
            vw_puts(o, "</span>");
        }
        /* its values per process (index.html's per-process view); no text, so the
         * table's filter sees the row's own words only */
        vw_printf(o, " <a class=\"ppl\" href=\"#pp-%zu\" title=\"values per process\" aria-label=\"values per process\"></a>", i);
        vw_puts(o, "</td><td class=\"loc\">");
        if (*vw_str(v, "file", "")) vw_html_loc(o, vw_str(v, "file", ""), vw_int(v, "line", 0));
        vw_puts(o, "</td>");
        numcell(o, m ? (double)vw_int(m, "processes", 0) : NAN);
        numcell(o, m ? vw_dbl(m, "time_max_seconds", NAN) : NAN);
        numcell(o, m ? vw_dbl(m, "time_mean_seconds", NAN) : NAN);
        numcell(o, m ? vw_dbl(m, "inclusive_mean_seconds", NAN) : NAN);
        numcell(o, m ? vw_dbl(m, "imbalance", NAN) : NAN);
        vw_puts(o, "<td>");
        const json_t *model = json_object_get(v, "model");
        if (json_is_object(model)) vw_html(o, vw_str(model, "formula", ""));
        vw_puts(o, "</td>");
        numcell(o, vw_dbl(v, "scaling_loss_seconds", NAN));
        numcell(o, vw_dbl(v, "scaling_loss_percent", NAN));
        vw_puts(o, "<td>");
        size_t k;
        const json_t *f;
        json_array_foreach(json_object_get(v, "flags"), k, f) {
            vw_puts(o, "<span class=\"flag ");
            vw_html(o, json_string_value(f));
            vw_puts(o, "\">");
            vw_html(o, json_string_value(f));
            vw_puts(o, "</span>");
        }
        vw_puts(o, "</td></tr>");
    }
    vw_puts(o, "</tbody></table></div></section>");
    free(row);
}

static void dq_row(struct vw_out *o, const char *name, const json_t *dq, const char *key, const char *what)
{
    vw_puts(o, "<tr><th>");
    vw_html(o, name);
    vw_puts(o, "</th><td class=\"num\">");
    vw_num(o, vw_dbl(dq, key, NAN));
    vw_puts(o, "</td><td class=\"note\">");
    vw_html(o, what);
    vw_puts(o, "</td></tr>");
}

void vw_html_quality(struct vw_out *o, const struct vw_html_ctx *c)
{
    const json_t *dq = json_object_get(c->r->root, "data_quality");
    vw_puts(o, "<section id=\"quality\"><h2>Data quality</h2><table><tbody>");
    dq_row(o, "samples", dq, "samples", "timer samples attributed to vertices");
    dq_row(o, "dropped", dq, "dropped", "samples dropped (taken while inside the tool)");
    dq_row(o, "overruns", dq, "overruns", "timer overruns (samples the kernel merged)");
    dq_row(o, "unresolved frames", dq, "unresolved_frames", "call-path frames without file/line");
    dq_row(o, "unmatched messages", dq, "unmatched_messages", "sends or receives without a partner");
    dq_row(o, "oversubscription", dq, "oversubscription", "ranks per core, max over runs and hosts (above 1, waits are noisier)");
    vw_puts(o, "</tbody></table>");
    const json_t *mr = json_object_get(dq, "missing_ranks");
    if (json_array_size(mr)) {
        /* the summary's text: rank ranges per run (vw_summary.c) */
        char list[2000];
        vw_missing_ranks_text(mr, 1, list, sizeof list);
        vw_puts(o, "<p class=\"warn\">Missing ranks: ");
        vw_html(o, list);
        vw_puts(o, "</p>");
    }
    const json_t *w = json_object_get(dq, "warnings");
    if (json_array_size(w)) {
        vw_puts(o, "<h3>Warnings</h3><ul class=\"warnings\">");
        size_t i;
        const json_t *x;
        json_array_foreach(w, i, x) {
            vw_puts(o, "<li class=\"warn\">");
            vw_html(o, json_string_value(x));
            vw_puts(o, "</li>");
        }
        vw_puts(o, "</ul>");
    }
    const json_t *th = json_object_get(c->r->root, "thresholds");
    if (json_object_size(th)) {
        vw_puts(o, "<h3>Thresholds used</h3><table><tbody>");
        const char *k;
        const json_t *x;
        json_object_foreach((json_t *)th, k, x) {
            vw_puts(o, "<tr><th>");
            vw_html(o, k);
            vw_puts(o, "</th><td class=\"num\">");
            vw_num(o, json_number_value(x));
            vw_puts(o, "</td></tr>");
        }
        vw_puts(o, "</tbody></table>");
    }
    vw_puts(o, "</section>");
}
