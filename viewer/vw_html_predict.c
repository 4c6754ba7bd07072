/* vw_html_predict.c — the prediction section of index.html (report.json
 * "prediction", present with scalana-analyze --predict P): each root cause's
 * cost at the largest measured count and at P, with its band and model, and
 * the cause that dominates at P. */
#include "vw_html.h"
#include <math.h>
#include <string.h>

static const char *file_base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

void vw_html_predict(struct vw_out *o, const struct vw_html_ctx *c)
{
    const json_t *pr = json_object_get(c->r->root, "prediction");
    if (!json_is_object(pr)) return;
    long P = vw_int(pr, "processes", 0), dom = vw_int(pr, "dominant_rank", 0);
    vw_printf(o, "<section id=\"prediction\"><h2>At %ld processes</h2><p class=\"note\">Each root cause's cost "
                 "extended from the measured runs by a scaling model of its excess; the band spans the fits with "
                 "each measured count left out, widened by the cost's noise.", P);
    if (isfinite(vw_dbl(pr, "run_seconds", NAN))) {
        vw_puts(o, " Run time with a core per process: ");
        vw_num(o, vw_dbl(pr, "run_seconds", NAN));
        vw_puts(o, " s.");
    }
    if (dom) vw_printf(o, " <strong>#%ld dominates there.</strong>", dom);
    vw_puts(o, "</p><table><thead><tr><th class=\"num\">#</th><th>category</th><th>location</th>"
               "<th class=\"num\">cost s (measured count)</th>");
    vw_printf(o, "<th class=\"num\">predicted s at %ld</th><th class=\"num\">band s</th><th>model of the excess</th>"
                 "</tr></thead><tbody>", P);
    size_t k;
    const json_t *x;
    json_array_foreach(json_object_get(pr, "causes"), k, x) {
        long rank = vw_int(x, "rank", 0);
        vw_printf(o, "<tr%s><td class=\"num\">%ld</td><td>", rank == dom ? " class=\"warn\"" : "", rank);
        vw_html(o, vw_category_title(vw_str(x, "category", "")));
        vw_puts(o, "</td><td>");
        vw_html(o, file_base(vw_str(x, "file", "")));
        vw_printf(o, ":%ld-%ld in ", vw_int(x, "line", 0), vw_int(x, "last_line", 0));
        vw_html(o, vw_str(x, "function", ""));
        vw_puts(o, "</td><td class=\"num\">");
        vw_num(o, vw_dbl(x, "cost_seconds", NAN));
        vw_printf(o, " (%ld)</td><td class=\"num\">", vw_int(x, "cost_processes", 0));
        vw_num(o, vw_dbl(x, "predicted_cost_seconds", NAN));
        vw_puts(o, "</td><td class=\"num\">");
        if (isfinite(vw_dbl(x, "predicted_cost_seconds", NAN))) {
            vw_num(o, vw_dbl(x, "band_low_seconds", NAN));
            vw_puts(o, "&ndash;");
            vw_num(o, vw_dbl(x, "band_high_seconds", NAN));
        }
        vw_puts(o, "</td><td>");
        vw_html(o, isfinite(vw_dbl(x, "predicted_cost_seconds", NAN)) ? vw_str(x, "model", "") : vw_str(x, "reason", ""));
        vw_puts(o, "</td></tr>");
    }
    vw_puts(o, "</tbody></table></section>");
}
