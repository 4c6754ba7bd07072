/* vw_summary.c — the terminal summary of a report: top root causes with
 * file:line, category, cost and evidence; the runs; data-quality warnings. */
#include "vw_internal.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int vw_sampling_line(const json_t *runs, char *buf, size_t n)
{
    size_t k = json_array_size(runs);
    const json_t *run = k ? json_array_get(runs, k - 1) : NULL;
    double asked = vw_dbl(run, "sample_rate_asked_hz", 0), got = vw_dbl(run, "sample_rate_obtained_hz", 0);
    double eff = vw_dbl(run, "sample_rate_effective_hz", 0), res = vw_dbl(run, "sampler_resolution_seconds", 0);
    if (!(asked > 0))
        return 0;
    /* obtained 0 with no signal is a run that got no sample (the program
     * blocked the signal); 0 with signals is an older profile that did not
     * say (then the rate the timer can deliver) */
    const json_t *sig = json_object_get(run, "signals");
    int none = !(got > 0) && json_is_integer(sig) && json_integer_value(sig) == 0;
    int len = snprintf(buf, n, "%s sampler: asked %.0f Hz, obtained %.0f Hz per thread%s",
                       vw_str(run, "sampler", "?"), asked, none ? 0 : got > 0 ? got : eff,
                       none ? " (no sample at all: see Data quality)" : "");
    if (json_is_true(json_object_get(run, "sample_rate_capped")) && len > 0 && (size_t)len < n)
        snprintf(buf + len, n - (size_t)len, " (capped at %.0f Hz by the %.3g ms kernel tick: a higher "
                 "SCALANA_FREQ gives no more samples; SCALANA_SAMPLER=taskclock is not capped)", eff, res * 1e3);
    return 1;
}

#define SUMMARY_CAUSES 5   /* root causes printed; the rest are counted */
#define SUMMARY_CANDIDATES 3 /* candidates printed when there is no root cause */

static const char *C(int on, const char *code) { return on ? code : ""; }

/* Print a string on one line, control characters replaced by spaces, at most max bytes. */
static void oneline(FILE *out, const char *s, size_t max)
{
    size_t n = 0;
    for (; s && *s && n < max; s++, n++) fputc((unsigned char)*s < 0x20 ? ' ' : *s, out);
    if (s && *s) fputs("...", out);
}

#define SUMMARY_WIDTH 100  /* terminal columns the wrapped texts fill */
#define SUMMARY_TEXT_MAX 4000 /* bytes of one evidence or warning text printed */

/* Print s wrapped at word boundaries into lines of at most SUMMARY_WIDTH
 * columns, the first starting at column `col`, the others indented by
 * `indent` spaces; control characters become spaces.  Never cuts a word
 * (a word longer than a line gets a line of its own); at most
 * SUMMARY_TEXT_MAX bytes, then "...". */
static void wrapped(FILE *out, const char *s, size_t col, size_t indent)
{
    size_t done = 0;
    int first = 1;
    while (s && *s && done < SUMMARY_TEXT_MAX) {
        while (*s == ' ') s++, done++;
        size_t w = 0;
        while (s[w] && s[w] != ' ') w++;
        if (!w) break;
        if (!first && col + 1 + w > SUMMARY_WIDTH) {
            fputc('\n', out);
            for (size_t k = 0; k < indent; k++) fputc(' ', out);
            col = indent;
        } else if (!first) {
            fputc(' ', out), col++;
        }
        first = 0;
        for (size_t k = 0; k < w; k++) fputc((unsigned char)s[k] < 0x20 ? ' ' : s[k], out);
        col += w, s += w, done += w;
    }
    if (s && *s) fputs("...", out);
}

/* One cause (a root cause or a candidate, report.json causes_json) as the
 * summary prints it: "#rank category location  cost s (percent%)", then,
 * with `details`, the evidence and the category's remedy. */
static void print_cause(FILE *out, const json_t *rc, size_t i, int color, int details)
{
    const char *bold = C(color, "\033[1m"), *red = C(color, "\033[31m"), *dim = C(color, "\033[2m"),
               *reset = C(color, "\033[0m");
    fprintf(out, "  %s#%ld%s %s%-26s%s ", bold, vw_int(rc, "rank", (long)i + 1), reset, red,
            vw_category_title(vw_str(rc, "category", NULL)), reset);
    const char *file = vw_str(rc, "file", "");
    const char *where = vw_str(rc, "location", "");
    if (*where) {
        /* the loop, its function and the chain of call sites from main */
        oneline(out, where, 240);
    } else if (*file) {
        oneline(out, file, 120);
        long line = vw_int(rc, "line", 0), last = vw_int(rc, "last_line", 0);
        if (last > line) fprintf(out, ":%ld-%ld", line, last); /* a multi-line cause: its range */
        else fprintf(out, ":%ld", line);
    } else {
        fputs("(no source location)", out);
    }
    const char *fn = vw_str(rc, "function", "");
    if (*fn && !*where) { fputs(" in ", out); oneline(out, fn, 80); }
    fprintf(out, "  %s%.3g s (%.1f%%)%s\n", bold, vw_dbl(rc, "cost_seconds", 0), vw_dbl(rc, "cost_percent", 0), reset);
    if (!details) {
        char procs[200];
        size_t np = vw_int_ranges(json_object_get(rc, "processes"), procs, sizeof procs);
        if (np) fprintf(out, "      %sprocess%s %s%s\n", dim, np == 1 ? "" : "es", procs, reset);
        return;
    }
    fprintf(out, "      %s", dim);
    wrapped(out, vw_str(rc, "evidence", ""), 6, 6);
    fprintf(out, "%s\n", reset);
    /* the cause's own remedy (an OpenMP serial section), else its category's */
    const char *fix = vw_str(rc, "remedy", vw_category_remedy(vw_str(rc, "category", NULL)));
    if (*fix) {
        fputs("      what to do: ", out);
        wrapped(out, fix, 18, 8);
        fputc('\n', out);
    }
}

/* x rounded down to its first `digits` significant digits, strictly under x
 * (x > 0): a threshold to suggest that lets the value through even when
 * report.json rounded it up (its 6 digits), short to type (0.0734 -> 0.07
 * with 1 digit, 1111.05 -> 1100 with 2). */
static double round_down_significant(double x, int digits)
{
    if (!(x > 0) || !isfinite(x)) return x;
    x *= 1 - 1e-6;
    double unit = pow(10, floor(log10(x)) - (digits - 1));
    return floor(x / unit) * unit;
}

void vw_candidate_note(const json_t *report, char *buf, size_t n)
{
    const json_t *top = json_array_get(json_object_get(report, "candidates"), 0);
    const json_t *th = json_object_get(report, "thresholds");
    /* min_cost_percent applies to the share of the run's time on its own
     * cores (cost_percent_of_base), cost_percent where a report lacks it */
    double pct = vw_dbl(top, "cost_percent_of_base", vw_dbl(top, "cost_percent", 0));
    double min_pct = vw_dbl(th, "min_cost_percent", NAN), min_s = vw_dbl(th, "min_cost_seconds", NAN);
    if (n) buf[0] = 0;
    if (!top) return;
    /* a cause the runs cannot decide (report.json undecided): no threshold
     * to lower, a run to make */
    const char *why = json_string_value(json_object_get(top, "undecided"));
    if (why) {
        snprintf(buf, n, "not judged: %s; rerun with a core per process (fewer processes, or a machine without "
                         "other load) to decide", why);
        return;
    }
    char now[64], sugg[64];
    /* above the minimum cost but within its sampling noise (noise_sigmas):
     * more samples decide it, not a lower threshold */
    double cost = vw_dbl(top, "cost_seconds", 0), noise = vw_dbl(top, "cost_noise_seconds", 0);
    double sig = vw_dbl(th, "noise_sigmas", NAN);
    if (isfinite(sig) && noise > 0 && cost < sig * noise && !(isfinite(min_pct) && pct < min_pct)) {
        char c_txt[64], n_txt[64];
        vw_num_text(c_txt, sizeof c_txt, cost);
        vw_num_text(n_txt, sizeof n_txt, noise);
        vw_num_text(now, sizeof now, sig);
        snprintf(buf, n, "within its sampling noise: %s s with a standard deviation of %s s, under noise_sigmas = %s: "
                         "run longer or raise SCALANA_FREQ to decide it", c_txt, n_txt, now);
        return;
    }
    /* the minimum cost is max(min_cost_seconds, min_cost_percent x base)
     * (docs/analyzer.md): the percentage binds unless the candidate is
     * above it in percent, then the seconds do.  Printed short: the
     * threshold to 4 significant digits, the suggestion rounded down to a
     * whole percent (from 1 %) or to one significant digit, the seconds to
     * two (always under the candidate's cost, so it passes). */
    if (isfinite(min_pct) && pct < min_pct) {
        vw_num_text(now, sizeof now, min_pct);
        vw_num_text(sugg, sizeof sugg, pct >= 1 ? floor(pct * (1 - 1e-6)) : round_down_significant(pct, 1));
        snprintf(buf, n, "under min_cost_percent = %s %%: lower it with scalana-analyze -t min_cost_percent=%s",
                 now, sugg);
    } else if (isfinite(min_s)) {
        vw_num_text(now, sizeof now, min_s);
        vw_num_text(sugg, sizeof sugg, round_down_significant(vw_dbl(top, "cost_seconds", 0) * 0.9, 2));
        snprintf(buf, n, "under min_cost_seconds = %s s: lower it with scalana-analyze -t min_cost_seconds=%s",
                 now, sugg);
    } else {
        snprintf(buf, n, "under the minimum cost (thresholds min_cost_percent, min_cost_seconds)");
    }
}

/* The top SUMMARY_CANDIDATES candidates (report.json candidates[], causes
 * under the minimum cost), labelled as such, with the threshold they are
 * under and how to lower it. */
static void print_candidates(FILE *out, const json_t *report, int color)
{
    const json_t *cands = json_object_get(report, "candidates");
    size_t nc = json_array_size(cands), i;
    if (!nc) return;
    char note[400];
    vw_candidate_note(report, note, sizeof note);
    fprintf(out, "\n%zu candidate%s under the thresholds (not root causes):\n  ", nc, nc == 1 ? "" : "s");
    wrapped(out, note, 2, 2);
    fputc('\n', out);
    const json_t *rc;
    json_array_foreach(cands, i, rc) {
        if (i >= SUMMARY_CANDIDATES) {
            fprintf(out, "  ... and %zu more (see report.json candidates)\n", nc - SUMMARY_CANDIDATES);
            break;
        }
        print_cause(out, rc, i, color, 0);
    }
}

void vw_missing_ranks_text(const json_t *mr, int word, char *buf, size_t len)
{
    size_t n = json_array_size(mr), i, k, used = 0;
    long *ranks = malloc((n + 1) * sizeof *ranks);
    if (!ranks) abort();
    const json_t *x;
    buf[0] = 0;
    json_array_foreach(mr, i, x) {
        long p = vw_int(x, "processes", 0);
        int seen = 0;
        for (k = 0; k < i && !seen; k++) seen = vw_int(json_array_get(mr, k), "processes", 0) == p;
        if (seen || used >= len) continue; /* that run was written with its first missing rank */
        size_t m = 0;
        const json_t *y;
        json_array_foreach(mr, k, y) if (vw_int(y, "processes", 0) == p) ranks[m++] = vw_int(y, "rank", -1);
        char list[200], run[64] = "";
        size_t d = vw_ranges(ranks, m, VW_RANGES_MAX, list, sizeof list);
        if (p > 0) snprintf(run, sizeof run, " of the %ld-process run", p);
        int w = snprintf(buf + used, len - used, "%s%s%s%s (%zu rank%s)", used ? "; " : "",
                         !word ? "" : d == 1 ? "rank " : "ranks ", list, run, d, d == 1 ? "" : "s");
        if (w > 0) used += (size_t)w;
    }
    free(ranks);
}

/* The heading: the program, the scaling mode, the runs; how the structure
 * was found, who analysed, the sampling rate obtained. */
static void print_heading(FILE *out, const json_t *report, int color)
{
    const char *bold = C(color, "\033[1m"), *dim = C(color, "\033[2m"), *reset = C(color, "\033[0m");
    const json_t *prog = json_object_get(report, "program");
    const json_t *runs = json_object_get(report, "runs");
    fprintf(out, "%sScalAna report%s: ", bold, reset);
    oneline(out, vw_str(prog, "path", vw_str(prog, "executable", "?")), 200); /* the program, not the run's copy */
    /* runs[] has one entry per process count; its directories are the runs */
    size_t ncounts = json_array_size(runs), ndirs = 0, ri;
    const json_t *rj;
    json_array_foreach(runs, ri, rj) {
        size_t nd = json_array_size(json_object_get(rj, "directories"));
        ndirs += nd ? nd : 1;
    }
    fprintf(out, " (%s scaling, ", vw_str(report, "scaling", "strong"));
    if (ndirs != ncounts)
        fprintf(out, "%zu process count%s, ", ncounts, ncounts == 1 ? "" : "s");
    fprintf(out, "%zu run%s)\n", ndirs, ndirs == 1 ? "" : "s");

    if (!strcmp(vw_str(prog, "psg_source", ""), "machine_code"))
        fprintf(out, "%sstructure recovered from machine code (built without scalana-cc): %lld loops%s\n", dim,
                (long long)json_integer_value(json_object_get(prog, "psg_loops")), reset);
    /* a parallel analysis says so (report.json tool; docs/parallel-analysis.md) */
    const json_t *tool = json_object_get(report, "tool");
    long nan = vw_int(tool, "analyzer_processes", 1);
    const json_t *rss = json_object_get(tool, "analyzer_peak_rss_bytes");
    if (nan > 1) {
        fprintf(out, "%sanalysed by %ld processes (mpirun); peak memory per process:", dim, nan);
        size_t k;
        const json_t *x;
        json_array_foreach(rss, k, x) fprintf(out, " %.0f", (double)json_integer_value(x) / 1048576.0);
        fprintf(out, " MiB%s\n", reset);
    }
    char rate[400];
    if (vw_sampling_line(runs, rate, sizeof rate))
        fprintf(out, "  %s%s%s\n", dim, rate, reset);
}

/* The root causes, the first SUMMARY_CAUSES of them; without any, where
 * the time went and the candidates below the thresholds. */
static void print_causes(FILE *out, const json_t *report, int color)
{
    const char *bold = C(color, "\033[1m"), *reset = C(color, "\033[0m");
    const json_t *rcs = json_object_get(report, "root_causes");
    size_t n = json_array_size(rcs);
    if (n == 0) {
        const json_t *ts = json_object_get(report, "time_summary");
        fprintf(out, "\nNo root cause above the thresholds.\n");
        if (*vw_str(ts, "text", "")) {
            fputs("  ", out);
            wrapped(out, vw_str(ts, "text", ""), 2, 2);
            fputc('\n', out);
        }
        /* MPI_Init/MPI_Finalize: a line of their own, not among the top places */
        const char *su = vw_str(json_object_get(ts, "startup_shutdown"), "text", "");
        if (*su) {
            fputs("  ", out);
            wrapped(out, su, 2, 2);
            fputc('\n', out);
        }
        print_candidates(out, report, color);
        return;
    }
    fprintf(out, "\n%sRoot causes%s (time explained at the largest process count):\n", bold, reset);
    size_t i;
    const json_t *rc;
    json_array_foreach(rcs, i, rc) {
        if (i >= SUMMARY_CAUSES) {
            fprintf(out, "  ... and %zu more (see index.html or report.json)\n", n - SUMMARY_CAUSES);
            break;
        }
        print_cause(out, rc, i, color, 1);
    }
}

/* The runs table: processes, wall time, efficiency, oversubscription; partial runs marked. */
static void print_runs(FILE *out, const json_t *runs, int color)
{
    const char *bold = C(color, "\033[1m"), *yellow = C(color, "\033[33m"), *reset = C(color, "\033[0m");
    if (!json_array_size(runs)) return;
    fprintf(out, "\n%sRuns%s:\n  %10s %12s %10s %12s\n", bold, reset, "processes", "wall s", "efficiency", "ranks/core");
    size_t i;
    const json_t *run;
    json_array_foreach(runs, i, run) {
        fprintf(out, "  %10ld %12.4g %9.1f%% %12.2f", vw_int(run, "processes", 0), vw_dbl(run, "wall_seconds", 0),
                vw_dbl(run, "parallel_efficiency", 0) * 100, vw_dbl(run, "oversubscription", 0));
        /* a run with ranks missing or unreadable is partial: its figures lack those ranks */
        long miss = vw_int(run, "missing_ranks", 0), unr = vw_int(run, "unreadable_ranks", 0);
        if (miss > 0 || json_is_true(json_object_get(run, "partial"))) {
            fprintf(out, "  %spartial:%s %ld rank%s missing", yellow, reset, miss, miss == 1 ? "" : "s");
            if (unr > 0) fprintf(out, " (%ld unreadable)", unr);
        }
        fputc('\n', out);
    }
}

/* The data-quality warnings, and the missing ranks with why they are missing. */
static void print_data_quality(FILE *out, const json_t *dq, int color)
{
    const char *bold = C(color, "\033[1m"), *yellow = C(color, "\033[33m"), *reset = C(color, "\033[0m");
    const json_t *w = json_object_get(dq, "warnings");
    size_t nmiss = json_array_size(json_object_get(dq, "missing_ranks"));
    if (!json_array_size(w) && !nmiss) return;
    fprintf(out, "\n%sData quality%s:\n", bold, reset);
    size_t i;
    const json_t *x;
    json_array_foreach(w, i, x) {
        fprintf(out, "  %swarning:%s ", yellow, reset);
        wrapped(out, json_string_value(x), 11, 4);
        fputc('\n', out);
    }
    if (nmiss) {
        size_t unr = 0, k;
        const json_t *m;
        json_array_foreach(json_object_get(dq, "missing_ranks"), k, m)
            if (!strcmp(vw_str(m, "reason", ""), "unreadable")) unr++;
        char list[1200], text[1400];
        vw_missing_ranks_text(json_object_get(dq, "missing_ranks"), 0, list, sizeof list);
        if (unr == nmiss) snprintf(text, sizeof text, "missing ranks: %s (their profiles are truncated, corrupt or refused)", list);
        else if (unr) snprintf(text, sizeof text, "missing ranks: %s (%zu not written, %zu in truncated, corrupt or refused profiles)", list, nmiss - unr, unr);
        else snprintf(text, sizeof text, "missing ranks: %s (their profiles were not found)", list);
        fprintf(out, "  %swarning:%s ", yellow, reset);
        wrapped(out, text, 11, 4);
        fputc('\n', out);
    }
}

void scalana_viewer_print_summary(FILE *out, const json_t *report, int color)
{
    print_heading(out, report, color);
    print_causes(out, report, color);
    print_runs(out, json_object_get(report, "runs"), color);
    print_data_quality(out, json_object_get(report, "data_quality"), color);
    vw_summary_compare(out, report, color);
    vw_summary_whatif(out, report, color);
    vw_summary_predict(out, report, color);
}
