/* vw_summary_compare.c — the before/after part of the terminal summary
 * (report.json "comparison"): wall time per process count, then each root
 * cause gone, remaining, changed or new with its cost and its location's
 * slowest process before and after. */
#include "vw_internal.h"
#include <math.h>
#include <string.h>

static const char *file_base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

void vw_summary_compare(FILE *f, const json_t *report, int color)
{
    const json_t *c = json_object_get(report, "comparison");
    if (!json_is_object(c)) return;
    const char *bold = color ? "\033[1m" : "", *reset = color ? "\033[0m" : "", *yellow = color ? "\033[33m" : "";
    const json_t *b = json_object_get(c, "before"), *a = json_object_get(c, "after");
    size_t nb = json_array_size(json_object_get(b, "directories")), na = json_array_size(json_object_get(a, "directories"));
    fprintf(f, "\n%sBefore/after%s: build %.12s (%zu run%s) -> build %.12s (%zu run%s)\n", bold, reset,
            vw_str(b, "build_id", "?"), nb, nb == 1 ? "" : "s", vw_str(a, "build_id", "?"), na, na == 1 ? "" : "s");
    size_t k;
    const json_t *s;
    json_array_foreach(json_object_get(c, "scales"), k, s) {
        double saved = vw_dbl(s, "saved_seconds", NAN);
        fprintf(f, "  %3ld processes: wall %.3g s -> %.3g s (%s %.3g s, %+.0f%%)\n", vw_int(s, "processes", 0),
                vw_dbl(s, "before_wall_seconds", NAN), vw_dbl(s, "after_wall_seconds", NAN),
                saved >= 0 ? "saved" : "lost", fabs(saved), -vw_dbl(s, "saved_percent", NAN));
    }
    if (!json_array_size(json_object_get(c, "scales")))
        fputs("  no process count in common: wall times cannot be compared\n", f);
    const json_t *n = json_object_get(c, "counts");
    fprintf(f, "  root causes: %ld gone, %ld remain, %ld changed category, %ld new\n", vw_int(n, "gone", 0),
            vw_int(n, "remains", 0), vw_int(n, "changed", 0), vw_int(n, "new", 0));
    const json_t *x;
    json_array_foreach(json_object_get(c, "causes"), k, x) {
        const json_t *side = json_is_object(json_object_get(x, "before")) ? json_object_get(x, "before")
                                                                         : json_object_get(x, "after");
        const char *st = vw_str(x, "status", "");
        fprintf(f, "  %s%-8s%s %s at %s:%ld-%ld in %s: cost %.3g s -> %.3g s (saved %.3g s)%s\n",
                strcmp(st, "new") == 0 ? yellow : "", st, strcmp(st, "new") == 0 ? reset : "",
                vw_str(x, "category", ""), file_base(vw_str(side, "file", "")), vw_int(side, "line", 0),
                vw_int(side, "last_line", 0), vw_str(side, "function", ""), vw_dbl(x, "cost_before_seconds", NAN),
                vw_dbl(x, "cost_after_seconds", NAN), vw_dbl(x, "saved_seconds", NAN),
                json_object_get(x, "after_below_thresholds") ? " (what is left is under the thresholds)" : "");
        if (json_is_number(json_object_get(x, "predicted_saving_seconds"))) {
            /* predicted against measured (analyzer/report/saving.c) */
            double err = vw_dbl(x, "prediction_error", NAN);
            fprintf(f, "           predicted saving %.3g s at %ld processes, measured %.3g s with a core per process "
                       "(wall %.3g s, noise %.2g s)",
                    vw_dbl(x, "predicted_saving_seconds", NAN), vw_int(x, "predicted_saving_processes", 0),
                    vw_dbl(x, "measured_saving_seconds", NAN), vw_dbl(x, "measured_wall_saving_seconds", NAN),
                    vw_dbl(x, "measured_saving_noise_seconds", 0));
            if (vw_int(x, "measured_saving_processes", 0) != vw_int(x, "predicted_saving_processes", 0))
                fprintf(f, " at %ld processes", vw_int(x, "measured_saving_processes", 0));
            if (isfinite(err)) fprintf(f, ": error %+.0f%%", err * 100);
            if (vw_int(x, "prediction_combined", 0) > 1)
                fprintf(f, " (the %ld fixed causes together)", vw_int(x, "prediction_combined", 0));
            fputc('\n', f);
        }
        size_t j;
        const json_t *p;
        json_array_foreach(json_object_get(x, "per_process_count"), j, p)
            fprintf(f, "           %ld processes: its slowest process %.3g s -> %.3g s there\n",
                    vw_int(p, "processes", 0), vw_dbl(p, "before_max_seconds", NAN), vw_dbl(p, "after_max_seconds", NAN));
    }
}
