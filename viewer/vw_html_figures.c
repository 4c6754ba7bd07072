/* vw_html_figures.c — the figure sections of index.html: scaling plots of the
 * vertices that matter most, per-process bars of imbalanced vertices, the
 * communication heat maps and the inline structure graph. */
#include "vw_html.h"
#include "vw_html_util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SCALING_PLOTS 24     /* per-vertex scaling plots drawn */
#define MAX_BAR_PLOTS 16         /* per-process bar charts drawn */

static const char *plot_legend =
    "<p class=\"legend\"><b class=\"lg-meas\">\xE2\x97\x8F</b> the series the model was fitted on "
    "<b class=\"lg-mean\">\xE2\x97\x8B</b> its companion (max or mean over ranks, named under each plot) "
    "<b class=\"lg-meas\">\xE2\x80\x94</b> fitted model "
    "<b class=\"lg-ideal\">- -</b> ideal scaling from the smallest count; both axes logarithmic.</p>";

void vw_html_scaling(struct vw_out *o, const struct vw_html_ctx *c, unsigned char *plotted)
{
    const struct vw_report *r = c->r;
    size_t n = r->nvert;
    struct vw_pick *pk = malloc((n ? n : 1) * sizeof *pk);
    if (!pk) return;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const json_t *v = vw_vertex(r, (long)i);
        if (json_array_size(json_object_get(v, "metrics")) < 2) continue;
        double key = vw_dbl(v, "scaling_loss_seconds", 0);
        if (vw_has_flag(v, "root_cause") || r->on_path[i]) key += 2e12;
        else if (vw_has_flag(v, "non_scalable")) key += 1e12;
        if (key <= 0) key = vw_dbl(vw_metrics_last(v), "time_max_seconds", 0) * 1e-6;
        if (key <= 0) continue;
        pk[m++] = (struct vw_pick){i, key};
    }
    qsort(pk, m, sizeof *pk, vw_pick_desc);
    vw_puts(o, "<section id=\"scaling\"><h2>Scaling of vertices</h2>");
    if (m == 0) {
        vw_puts(o, "<p>Scaling plots need runs at two or more process counts.</p></section>");
        free(pk);
        return;
    }
    size_t shown = m > MAX_SCALING_PLOTS ? MAX_SCALING_PLOTS : m;
    vw_printf(o, "<p class=\"note\">The %zu vertices on root-cause paths, flagged non-scalable or with the largest scaling loss%s.</p>",
              shown, m > shown ? " (the others: see the vertex table and extrap.jsonl)" : "");
    vw_puts(o, plot_legend);
    vw_puts(o, "<div class=\"plots\">");
    for (size_t k = 0; k < shown; k++) {
        const json_t *v = vw_vertex(r, (long)pk[k].v);
        plotted[pk[k].v] = 1;
        vw_printf(o, "<figure id=\"plot-v%zu\">", pk[k].v);
        const json_t *model = json_object_get(v, "model");
        const char *series = vw_str(model, "metric", "time_max_seconds");
        vw_plot_scaling(o, r, v, series);
        vw_printf(o, "<figcaption><a href=\"#vrow-%zu\">#%zu</a> ", pk[k].v, pk[k].v);
        vw_html(o, vw_kind_prefix(v));
        vw_puts(o, " <b>");
        vw_html(o, vw_str(v, "name", ""));
        vw_puts(o, "</b> <span class=\"loc\">");
        vw_html_loc(o, vw_str(v, "file", ""), vw_int(v, "line", 0));
        vw_puts(o, "</span>");
        vw_puts(o, "<br><span class=\"note\">\xE2\x97\x8F ");
        vw_html(o, series);
        vw_puts(o, " \xE2\x97\x8B ");
        vw_html(o, vw_plot_companion(series));
        vw_puts(o, "</span>");
        if (json_is_object(model)) {
            vw_puts(o, "<br>t(p) = ");
            vw_html(o, vw_str(model, "formula", ""));
            vw_puts(o, " <span class=\"note\">(");
            vw_html(o, vw_str(model, "quality", ""));
            vw_puts(o, ")</span>");
        }
        double loss = vw_dbl(v, "scaling_loss_seconds", 0);
        if (loss > 0) {
            vw_puts(o, "<br>scaling loss ");
            vw_num(o, loss);
            vw_printf(o, " s (%.1f%%)", vw_dbl(v, "scaling_loss_percent", 0));
        }
        vw_puts(o, "</figcaption></figure>");
    }
    vw_puts(o, "</div></section>");
    free(pk);
}

/* the metrics entry with per-process times at the largest count */
static const json_t *metrics_with_pp(const json_t *v)
{
    const json_t *best = NULL;
    long bp = -1;
    size_t i;
    const json_t *m;
    json_array_foreach(json_object_get(v, "metrics"), i, m) {
        long p = vw_int(m, "processes", 0);
        if (json_array_size(json_object_get(m, "per_process_seconds")) > 0 && p > bp) { bp = p; best = m; }
    }
    return best;
}

void vw_html_imbalance(struct vw_out *o, const struct vw_html_ctx *c)
{
    const struct vw_report *r = c->r;
    size_t n = r->nvert;
    struct vw_pick *pk = malloc((n ? n : 1) * sizeof *pk);
    if (!pk) return;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const json_t *v = vw_vertex(r, (long)i);
        const json_t *mm = metrics_with_pp(v);
        if (!mm) continue;
        double imb = vw_dbl(mm, "imbalance", 0);
        int flagged = vw_has_flag(v, "imbalanced") || (vw_has_flag(v, "root_cause") && imb > 1.05);
        if (!flagged) continue;
        pk[m++] = (struct vw_pick){i, (vw_dbl(mm, "time_max_seconds", 0) - vw_dbl(mm, "time_mean_seconds", 0))};
    }
    qsort(pk, m, sizeof *pk, vw_pick_desc);
    vw_puts(o, "<section id=\"imbalance\"><h2>Imbalanced vertices</h2>");
    if (m == 0) {
        vw_puts(o, "<p>No vertex is flagged as imbalanced (or per-process times were not kept).</p></section>");
        free(pk);
        return;
    }
    size_t shown = m > MAX_BAR_PLOTS ? MAX_BAR_PLOTS : m;
    vw_printf(o, "<p class=\"note\">Time per process at the largest count with per-process data; outliers in red, the dashed line is the mean. %zu of %zu shown, by time lost to imbalance (max − mean).</p><div class=\"plots\">",
              shown, m);
    for (size_t k = 0; k < shown; k++) {
        const json_t *v = vw_vertex(r, (long)pk[k].v);
        const json_t *mm = metrics_with_pp(v);
        vw_printf(o, "<figure id=\"bars-v%zu\">", pk[k].v);
        vw_plot_bars(o, mm);
        vw_printf(o, "<figcaption><a href=\"#vrow-%zu\">#%zu</a> <b>", pk[k].v, pk[k].v);
        vw_html(o, vw_str(v, "name", ""));
        vw_puts(o, "</b> <span class=\"loc\">");
        vw_html_loc(o, vw_str(v, "file", ""), vw_int(v, "line", 0));
        vw_printf(o, "</span><br>%ld processes, imbalance (max/mean) %.2f, outliers: ",
                  vw_int(mm, "processes", 0), vw_dbl(mm, "imbalance", 0));
        vw_html_int_list(o, json_object_get(mm, "outliers"), 16);
        vw_puts(o, "</figcaption></figure>");
    }
    vw_puts(o, "</div></section>");
    free(pk);
}

void vw_html_comm(struct vw_out *o, const struct vw_html_ctx *c)
{
    const json_t *comm = json_object_get(c->r->root, "communication");
    vw_puts(o, "<section id=\"communication\"><h2>Communication matrix</h2>");
    const json_t *bytes = json_object_get(comm, "bytes");
    const json_t *msgs = json_object_get(comm, "messages");
    if (json_array_size(bytes) == 0 && json_array_size(msgs) == 0) {
        vw_puts(o, "<p>No point-to-point communication was recorded.</p></section>");
        return;
    }
    vw_printf(o, "<p class=\"note\">Point-to-point traffic between world ranks at the largest run (%ld processes); colour on a log scale, hover for values.%s</p><div class=\"plots\">",
              vw_int(comm, "processes", (long)json_array_size(bytes ? bytes : msgs)),
              json_array_size(bytes) > 64 ? " Each cell sums a block of ranks." : "");
    if (json_array_size(bytes)) {
        vw_puts(o, "<figure id=\"heat-bytes\">");
        vw_plot_heatmap(o, bytes, "bytes");
        vw_puts(o, "<figcaption>bytes sent (row: sender, column: receiver)</figcaption></figure>");
    }
    if (json_array_size(msgs)) {
        vw_puts(o, "<figure id=\"heat-messages\">");
        vw_plot_heatmap(o, msgs, "messages");
        vw_puts(o, "<figcaption>messages sent</figcaption></figure>");
    }
    vw_puts(o, "</div></section>");
}

void vw_html_psg(struct vw_out *o, const struct vw_html_ctx *c)
{
    vw_puts(o, "<section id=\"psg\"><h2>Program structure graph</h2>");
    if (!c->psg_svg) {
        vw_puts(o, "<p class=\"missing\">The graph was not rendered (see psg.dot).</p></section>");
        return;
    }
    vw_puts(o, "<p class=\"note\">Colour: share of the largest scaling loss; thick red border: root cause. Wheel to zoom, drag to pan, click a vertex for its row in the table.</p>");
    if (c->psg_note) {
        vw_puts(o, "<p class=\"note\">");
        vw_html(o, c->psg_note);
        vw_puts(o, "</p>");
    }
    vw_puts(o, "<div class=\"toolbar\"><button type=\"button\" id=\"zin\">+</button><button type=\"button\" id=\"zout\">\xE2\x88\x92</button><button type=\"button\" id=\"zfit\">fit</button></div>");
    vw_puts(o, "<div class=\"viewport\" id=\"psgview\">");
    vw_html_inline_svg(o, c->psg_svg);
    vw_puts(o, "</div></section>");
}
