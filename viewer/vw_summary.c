/* vw_summary.c — the terminal summary of a report: top root causes with
 * file:line, category, cost and evidence; the runs; data-quality warnings. */
#include "vw_internal.h"
#include <math.h>
#include <string.h>

#define SUMMARY_CAUSES 5   /* root causes printed; the rest are counted */

static const char *C(int on, const char *code) { return on ? code : ""; }

/* Print a string on one line, control characters replaced by spaces, at most max bytes. */
static void oneline(FILE *out, const char *s, size_t max)
{
    size_t n = 0;
    for (; s && *s && n < max; s++, n++) fputc((unsigned char)*s < 0x20 ? ' ' : *s, out);
    if (s && *s) fputs("...", out);
}

void scalana_viewer_print_summary(FILE *out, const json_t *report, int color)
{
    const char *bold = C(color, "\033[1m"), *red = C(color, "\033[31m"), *yellow = C(color, "\033[33m"),
               *dim = C(color, "\033[2m"), *reset = C(color, "\033[0m");
    const json_t *prog = json_object_get(report, "program");
    const json_t *runs = json_object_get(report, "runs");
    const json_t *rcs = json_object_get(report, "root_causes");
    fprintf(out, "%sScalAna report%s: ", bold, reset);
    oneline(out, vw_str(prog, "executable", "?"), 200);
    fprintf(out, " (%s scaling, %zu runs)\n", vw_str(report, "scaling", "strong"), json_array_size(runs));

    size_t n = json_array_size(rcs);
    if (n == 0) {
        fprintf(out, "\nNo root cause found.\n");
    } else {
        fprintf(out, "\n%sRoot causes%s (time explained at the largest process count):\n", bold, reset);
        size_t i;
        const json_t *rc;
        json_array_foreach(rcs, i, rc) {
            if (i >= SUMMARY_CAUSES) {
                fprintf(out, "  ... and %zu more (see index.html or report.json)\n", n - SUMMARY_CAUSES);
                break;
            }
            fprintf(out, "  %s#%ld%s %s%-26s%s ", bold, vw_int(rc, "rank", (long)i + 1), reset, red,
                    vw_category_title(vw_str(rc, "category", NULL)), reset);
            const char *file = vw_str(rc, "file", "");
            if (*file) {
                oneline(out, file, 120);
                fprintf(out, ":%ld", vw_int(rc, "line", 0));
            } else {
                fputs("(no source location)", out);
            }
            const char *fn = vw_str(rc, "function", "");
            if (*fn) { fputs(" in ", out); oneline(out, fn, 80); }
            fprintf(out, "  %s%.3g s (%.1f%%)%s\n", bold, vw_dbl(rc, "cost_seconds", 0), vw_dbl(rc, "cost_percent", 0), reset);
            fprintf(out, "      %s", dim);
            oneline(out, vw_str(rc, "evidence", ""), 300);
            fprintf(out, "%s\n", reset);
        }
    }

    if (json_array_size(runs)) {
        fprintf(out, "\n%sRuns%s:\n  %10s %12s %10s %12s\n", bold, reset, "processes", "wall s", "efficiency", "ranks/core");
        size_t i;
        const json_t *run;
        json_array_foreach(runs, i, run)
            fprintf(out, "  %10ld %12.4g %9.1f%% %12.2f\n", vw_int(run, "processes", 0), vw_dbl(run, "wall_seconds", 0),
                    vw_dbl(run, "parallel_efficiency", 0) * 100, vw_dbl(run, "oversubscription", 0));
    }

    const json_t *dq = json_object_get(report, "data_quality");
    const json_t *w = json_object_get(dq, "warnings");
    size_t nmiss = json_array_size(json_object_get(dq, "missing_ranks"));
    if (json_array_size(w) || nmiss) {
        fprintf(out, "\n%sData quality%s:\n", bold, reset);
        size_t i;
        const json_t *x;
        json_array_foreach(w, i, x) {
            fprintf(out, "  %swarning:%s ", yellow, reset);
            oneline(out, json_string_value(x), 300);
            fputc('\n', out);
        }
        if (nmiss) fprintf(out, "  %swarning:%s missing ranks: %zu (their profiles were not found)\n", yellow, reset, nmiss);
    }
}
