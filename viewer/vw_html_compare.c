/* vw_html_compare.c — the before/after section of index.html (report.json
 * "comparison", present when the analysis compared two builds): wall time per
 * process count, and each root cause gone, remaining, changed or new with its
 * cost and the time of its location before and after. */
#include "vw_html.h"
#include <math.h>
#include <string.h>

static const char *file_base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static void seconds_cell(struct vw_out *o, const json_t *obj, const char *key)
{
    vw_puts(o, "<td class=\"num\">");
    vw_num(o, vw_dbl(obj, key, NAN));
    vw_puts(o, "</td>");
}

void vw_html_compare(struct vw_out *o, const struct vw_html_ctx *c)
{
    const json_t *cmp = json_object_get(c->r->root, "comparison");
    if (!json_is_object(cmp)) return;
    const json_t *b = json_object_get(cmp, "before"), *a = json_object_get(cmp, "after");
    vw_puts(o, "<section id=\"comparison\"><h2>Before and after</h2><p class=\"note\">build ");
    vw_html(o, vw_str(b, "build_id", "?"));
    vw_printf(o, " (%zu runs, its own report in <a href=\"before/index.html\">before/</a>) &rarr; build ",
              json_array_size(json_object_get(b, "directories")));
    vw_html(o, vw_str(a, "build_id", "?"));
    vw_printf(o, " (%zu runs, this report). Causes are the same when category, function, file and kind of "
                 "location agree and the lines are within %ld of each other.</p>",
              json_array_size(json_object_get(a, "directories")), vw_int(cmp, "line_shift_tolerance", 0));
    vw_puts(o, "<table><thead><tr><th class=\"num\">processes</th><th class=\"num\">wall s before</th>"
               "<th class=\"num\">wall s after</th><th class=\"num\">saved s</th><th class=\"num\">saved</th>"
               "<th class=\"num\">spread s</th></tr></thead><tbody>");
    size_t i;
    const json_t *s;
    json_array_foreach(json_object_get(cmp, "scales"), i, s) {
        vw_printf(o, "<tr><td class=\"num\">%ld</td>", vw_int(s, "processes", 0));
        seconds_cell(o, s, "before_wall_seconds");
        seconds_cell(o, s, "after_wall_seconds");
        seconds_cell(o, s, "saved_seconds");
        double pct = vw_dbl(s, "saved_percent", NAN);
        if (isfinite(pct)) vw_printf(o, "<td class=\"num\">%.0f%%</td>", pct);
        else vw_puts(o, "<td></td>");
        seconds_cell(o, s, "spread_seconds");
        vw_puts(o, "</tr>");
    }
    vw_puts(o, "</tbody></table>");
    const json_t *n = json_object_get(cmp, "counts");
    vw_printf(o, "<p>Root causes: %ld gone, %ld remain, %ld changed category, %ld new.</p>",
              vw_int(n, "gone", 0), vw_int(n, "remains", 0), vw_int(n, "changed", 0), vw_int(n, "new", 0));
    if (!json_array_size(json_object_get(cmp, "causes"))) {
        vw_puts(o, "</section>");
        return;
    }
    vw_puts(o, "<table><thead><tr><th>status</th><th>category</th><th>location</th><th class=\"num\">cost s before</th>"
               "<th class=\"num\">cost s after</th><th class=\"num\">saved s</th><th class=\"num\">predicted saving s</th>"
               "<th class=\"num\">measured saving s (a core per process)</th><th class=\"num\">error</th>"
               "<th>slowest process there, before &rarr; after</th>"
               "</tr></thead><tbody>");
    const json_t *x;
    json_array_foreach(json_object_get(cmp, "causes"), i, x) {
        const json_t *side = json_is_object(json_object_get(x, "before")) ? json_object_get(x, "before")
                                                                         : json_object_get(x, "after");
        const char *st = vw_str(x, "status", "");
        vw_printf(o, "<tr><td class=\"%s\">", strcmp(st, "new") == 0 ? "warn" : "");
        vw_html(o, st);
        vw_puts(o, "</td><td>");
        vw_html(o, vw_category_title(vw_str(x, "category", "")));
        vw_puts(o, "</td><td>");
        vw_html(o, file_base(vw_str(side, "file", "")));
        vw_printf(o, ":%ld-%ld in ", vw_int(side, "line", 0), vw_int(side, "last_line", 0));
        vw_html(o, vw_str(side, "function", ""));
        vw_puts(o, "</td>");
        seconds_cell(o, x, "cost_before_seconds");
        seconds_cell(o, x, "cost_after_seconds");
        seconds_cell(o, x, "saved_seconds");
        /* predicted against measured (analyzer/report/saving.c): gone and changed causes */
        seconds_cell(o, x, "predicted_saving_seconds");
        vw_puts(o, "<td class=\"num\">");
        vw_num(o, vw_dbl(x, "measured_saving_seconds", NAN));
        if (isfinite(vw_dbl(x, "measured_saving_noise_seconds", NAN))) {
            vw_puts(o, " &plusmn; ");
            vw_num(o, vw_dbl(x, "measured_saving_noise_seconds", NAN));
        }
        if (json_is_integer(json_object_get(x, "measured_saving_processes")))
            vw_printf(o, " (%ld processes)", vw_int(x, "measured_saving_processes", 0));
        vw_puts(o, "</td>");
        double err = vw_dbl(x, "prediction_error", NAN);
        if (isfinite(err)) vw_printf(o, "<td class=\"num\">%+.0f%%</td>", err * 100);
        else vw_puts(o, "<td></td>");
        vw_puts(o, "<td>");
        size_t k;
        const json_t *p;
        json_array_foreach(json_object_get(x, "per_process_count"), k, p) {
            if (k) vw_puts(o, "; ");
            vw_printf(o, "%ld: ", vw_int(p, "processes", 0));
            vw_num(o, vw_dbl(p, "before_max_seconds", NAN));
            vw_puts(o, " &rarr; ");
            vw_num(o, vw_dbl(p, "after_max_seconds", NAN));
            vw_puts(o, " s");
        }
        vw_puts(o, "</td></tr>");
    }
    vw_puts(o, "</tbody></table></section>");
}
