/* vw_summary_whatif.c — the what-if part of the terminal summary
 * (report.json "what_if"): the predicted run time at the largest count with
 * root cause 1 fixed, 1 and 2, ..., against the sum of their costs. */
#include "vw_internal.h"
#include <math.h>
#include <string.h>

void vw_summary_whatif(FILE *f, const json_t *report, int color)
{
    const json_t *w = json_object_get(report, "what_if");
    if (!json_is_object(w) || !json_array_size(json_object_get(w, "steps"))) return;
    const char *bold = color ? "\033[1m" : "", *reset = color ? "\033[0m" : "";
    double base = vw_dbl(w, "base_seconds", NAN);
    fprintf(f, "\n%sWhat if%s (%ld processes, a core per process, replayed):\n", bold, reset,
            vw_int(w, "processes", 0));
    size_t k;
    const json_t *st;
    json_array_foreach(json_object_get(w, "steps"), k, st) {
        char who[256] = "";
        size_t n = json_array_size(json_object_get(st, "causes")), len = 0;
        for (size_t j = 0; j < n && len < sizeof who - 16; j++)
            len += (size_t)snprintf(who + len, sizeof who - len, "%s#%lld", j == 0 ? "" : j + 1 == n ? " and " : ", ",
                                    (long long)json_integer_value(json_array_get(json_object_get(st, "causes"), j)));
        fprintf(f, "  fixing %s: %.3g s -> %.3g s", who, base, vw_dbl(st, "predicted_seconds", NAN));
        if (n > 1) fprintf(f, " (saves %.3g s; their costs add up to %.3g s)", vw_dbl(st, "saving_seconds", NAN),
                           vw_dbl(st, "sum_of_costs_seconds", NAN));
        fputc('\n', f);
    }
}
