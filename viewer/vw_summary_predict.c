/* vw_summary_predict.c — the --predict part of the terminal summary
 * (report.json "prediction"): each root cause's cost extended to P
 * processes with its band, and the cause that dominates there. */
#include "vw_internal.h"
#include <math.h>
#include <string.h>

static const char *file_base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

void vw_summary_predict(FILE *f, const json_t *report, int color)
{
    const json_t *pr = json_object_get(report, "prediction");
    if (!json_is_object(pr)) return;
    const char *bold = color ? "\033[1m" : "", *reset = color ? "\033[0m" : "";
    long P = vw_int(pr, "processes", 0), dom = vw_int(pr, "dominant_rank", 0);
    fprintf(f, "\n%sAt %ld processes%s (predicted from the runs at", bold, P, reset);
    size_t k;
    const json_t *x;
    json_array_foreach(json_object_get(pr, "measured_processes"), k, x) fprintf(f, "%s%lld", k ? ", " : " ", (long long)json_integer_value(x));
    fputs(")", f);
    if (isfinite(vw_dbl(pr, "run_seconds", NAN)))
        fprintf(f, ": run time with a core per process %.3g s", vw_dbl(pr, "run_seconds", NAN));
    fputc('\n', f);
    json_array_foreach(json_object_get(pr, "causes"), k, x) {
        double pred = vw_dbl(x, "predicted_cost_seconds", NAN);
        fprintf(f, "  %s#%ld %s at %s:%ld-%ld in %s: %.3g s at %ld -> ", vw_int(x, "rank", 0) == dom ? "*" : " ",
                vw_int(x, "rank", 0), vw_str(x, "category", ""), file_base(vw_str(x, "file", "")), vw_int(x, "line", 0),
                vw_int(x, "last_line", 0), vw_str(x, "function", ""), vw_dbl(x, "cost_seconds", NAN),
                vw_int(x, "cost_processes", 0));
        if (isfinite(pred))
            fprintf(f, "%.3g s (band %.3g-%.3g s; %s)\n", pred, vw_dbl(x, "band_low_seconds", NAN),
                    vw_dbl(x, "band_high_seconds", NAN), vw_str(x, "model", ""));
        else
            fprintf(f, "no prediction (%s)\n", vw_str(x, "reason", ""));
    }
    if (dom)
        fprintf(f, "  #%ld dominates at %ld processes%s\n", dom, P,
                dom > 1 ? " (not #1 of the measured runs)" : "");
    else if (json_array_size(json_object_get(pr, "causes")))
        fputs("  no cause can be predicted there\n", f);
    else
        fputs("  no root cause to predict\n", f);
}
