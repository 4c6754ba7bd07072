/* gate.c — scalana-analyze --gate: the before/after comparison of two
 * builds (compare.c) judged for continuous integration.  A root cause new
 * in the later build, or one whose cost grew beyond its noise band, fails
 * the gate; the verdict goes into report.json ("gate"), a JUnit XML file
 * (--junit) and a Markdown summary (--markdown).  docs/analyzer.md, "A gate
 * for CI", gives the rule and an example job. */
#include "report/gate.h"
#include "core/types.h"
#include "report/report_json.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

static double real0(const json_t *o, const char *k)
{
    double x = an_jreal(o, k);
    return isfinite(x) ? x : 0;
}

static json_t *num(double x) { return isfinite(x) ? json_real(x) : json_null(); }

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* The side of a compared cause that names its location: the after build's
 * where it has one (the code as it is now), else the before build's. */
static const json_t *cause_side(const json_t *c)
{
    const json_t *a = json_object_get(c, "after");
    if (json_is_object(a)) return a;
    const json_t *b = json_object_get(c, "before");
    return json_is_object(b) ? b : json_object_get(c, "after_below_thresholds");
}

/* The cost the before build had at the cause's place: its root cause's, or,
 * for a new one, its candidate's under the thresholds; the noise of it. */
static const json_t *before_side(const json_t *c)
{
    const json_t *b = json_object_get(c, "before");
    return json_is_object(b) ? b : json_object_get(c, "before_below_thresholds");
}

static const json_t *after_side(const json_t *c)
{
    const json_t *a = json_object_get(c, "after");
    return json_is_object(a) ? a : json_object_get(c, "after_below_thresholds");
}

void *an_gate_judge(const void *comparison, const struct an_thresholds *th)
{
    const json_t *cmp = comparison;
    json_t *gate = json_object(), *arr = json_array();
    if (!gate || !arr) abort();
    int n_new = 0, n_regressed = 0, n_fixed = 0, n_improved = 0, n_unchanged = 0;
    size_t k;
    const json_t *c;
    json_array_foreach(json_object_get(cmp, "causes"), k, c) {
        const char *status = an_jstr(c, "status");
        const json_t *side = cause_side(c), *bs = before_side(c), *as = after_side(c);
        double before = real0(c, "cost_before_seconds"), after = real0(c, "cost_after_seconds");
        double nb = bs ? real0(bs, "cost_noise_seconds") : 0, na = as ? real0(as, "cost_noise_seconds") : 0;
        double band = fmax(th->noise_sigmas * sqrt(nb * nb + na * na),
                           fmax(th->min_cost_percent / 100 * before, th->min_cost_seconds));
        double growth = after - before;
        const char *verdict;
        if (strcmp(status, "gone") == 0) verdict = "fixed", n_fixed++;
        else if (strcmp(status, "new") == 0 && !json_is_object(json_object_get(c, "before_below_thresholds")))
            verdict = "new", n_new++;
        else if (growth > band) verdict = "regressed", n_regressed++;
        else if (growth < -band) verdict = "improved", n_improved++;
        else verdict = "unchanged", n_unchanged++;
        int fails = !strcmp(verdict, "new") || !strcmp(verdict, "regressed");
        json_t *o = json_object();
        json_object_set_new(o, "verdict", json_string(verdict));
        json_object_set_new(o, "failed", json_boolean(fails));
        json_object_set_new(o, "status", json_string(status));
        json_object_set_new(o, "category", json_string(an_jstr(c, "category")));
        an_jcopy_location(o, side);
        json_object_set_new(o, "cost_before_seconds", num(before));
        json_object_set_new(o, "cost_after_seconds", num(after));
        json_object_set_new(o, "growth_seconds", num(growth));
        json_object_set_new(o, "band_seconds", num(band));
        if (json_is_string(json_object_get(c, "renamed_from")))
            json_object_set_new(o, "renamed_from", json_string(an_jstr(c, "renamed_from")));
        json_array_append_new(arr, o);
    }
    json_object_set_new(gate, "failed", json_boolean(n_new + n_regressed > 0));
    json_t *counts = json_pack("{s:i, s:i, s:i, s:i, s:i}", "new", n_new, "regressed", n_regressed, "fixed", n_fixed,
                               "improved", n_improved, "unchanged", n_unchanged);
    if (!counts) abort();
    json_object_set_new(gate, "counts", counts);
    json_object_set_new(gate, "rule",
                        json_string("fails on a new root cause, or a cost grown by more than max(noise_sigmas x "
                                    "sqrt(noise_before^2 + noise_after^2), min_cost_percent of the cost before, "
                                    "min_cost_seconds)"));
    json_object_set_new(gate, "noise_sigmas", json_real(th->noise_sigmas));
    json_object_set_new(gate, "before_build_id", json_string(an_jstr(json_object_get(cmp, "before"), "build_id")));
    json_object_set_new(gate, "after_build_id", json_string(an_jstr(json_object_get(cmp, "after"), "build_id")));
    json_object_set_new(gate, "cost_processes_before",
                        json_integer(json_integer_value(json_object_get(cmp, "cost_processes_before"))));
    json_object_set_new(gate, "cost_processes_after",
                        json_integer(json_integer_value(json_object_get(cmp, "cost_processes_after"))));
    json_object_set_new(gate, "causes", arr);
    return gate;
}

int an_gate_failed(const void *gate) { return json_is_true(json_object_get((const json_t *)gate, "failed")); }

/* Closes f, a file written to: 0, or -1 with errno set (EIO when a write
 * failed without one) when a write or the close failed. */
static int close_checked(FILE *f)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        if (!errno) errno = EIO;
        return -1;
    }
    return 0;
}

/* s with the five XML special characters escaped (attribute-safe); control
 * characters other than tab and newline, which XML 1.0 forbids, dropped. */
static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        switch (ch) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default:
            if (ch >= 0x20 || ch == '\t' || ch == '\n') fputc(ch, f);
        }
    }
}

/* "load_imbalance at load_imbalance.c:20-22 in relax_cells" into buf. */
static const char *cause_title(const json_t *g, char *buf, size_t n)
{
    snprintf(buf, n, "%s at %s:%lld-%lld in %s", an_jstr(g, "category"), base_name(an_jstr(g, "file")),
             (long long)json_integer_value(json_object_get(g, "line")),
             (long long)json_integer_value(json_object_get(g, "last_line")), an_jstr(g, "function"));
    return buf;
}

/* The failure text: file:line, category, cost before and after, band. */
static const char *failure_text(const json_t *g, char *buf, size_t n)
{
    const char *v = an_jstr(g, "verdict");
    snprintf(buf, n, "%s:%lld: %s: %s: cost before %.3g s, after %.3g s (%s %.3g s, noise band %.3g s)",
             an_jstr(g, "file"), (long long)json_integer_value(json_object_get(g, "line")), an_jstr(g, "category"),
             !strcmp(v, "new") ? "new root cause" : "cost grew beyond the noise band", real0(g, "cost_before_seconds"),
             real0(g, "cost_after_seconds"), "grew by", real0(g, "growth_seconds"), real0(g, "band_seconds"));
    return buf;
}

int an_gate_write_junit(const void *gate_v, const char *path)
{
    const json_t *gate = gate_v, *causes = json_object_get(gate, "causes");
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    size_t n = json_array_size(causes);
    long failures = 0;
    size_t k;
    const json_t *g;
    json_array_foreach(causes, k, g) failures += json_is_true(json_object_get(g, "failed"));
    size_t tests = n ? n : 1;
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    fprintf(f, "<testsuites name=\"scalana-gate\" tests=\"%zu\" failures=\"%ld\" errors=\"0\">\n", tests, failures);
    fputs("  <testsuite name=\"scalana-gate: build ", f);
    xml_text(f, an_jstr(gate, "before_build_id"));
    fputs(" -&gt; build ", f);
    xml_text(f, an_jstr(gate, "after_build_id"));
    fprintf(f, "\" tests=\"%zu\" failures=\"%ld\" errors=\"0\" skipped=\"0\">\n", tests, failures);
    char title[1024], text[2048];
    json_array_foreach(causes, k, g) {
        fputs("    <testcase classname=\"scalana.", f);
        xml_text(f, an_jstr(g, "category"));
        fputs("\" name=\"", f);
        xml_text(f, cause_title(g, title, sizeof title));
        fputs("\" file=\"", f);
        xml_text(f, an_jstr(g, "file"));
        fprintf(f, "\" line=\"%lld\"", (long long)json_integer_value(json_object_get(g, "line")));
        if (!json_is_true(json_object_get(g, "failed"))) {
            fputs(">\n      <system-out>", f);
            snprintf(text, sizeof text, "%s: cost before %.3g s, after %.3g s (noise band %.3g s)",
                     an_jstr(g, "verdict"), real0(g, "cost_before_seconds"), real0(g, "cost_after_seconds"),
                     real0(g, "band_seconds"));
            xml_text(f, text);
            fputs("</system-out>\n    </testcase>\n", f);
            continue;
        }
        failure_text(g, text, sizeof text);
        fputs(">\n      <failure type=\"", f);
        xml_text(f, an_jstr(g, "verdict"));
        fputs("\" message=\"", f);
        xml_text(f, text);
        fputs("\">", f);
        xml_text(f, text);
        if (*an_jstr(g, "location")) fputs("\n", f), xml_text(f, an_jstr(g, "location"));
        fputs("</failure>\n    </testcase>\n", f);
    }
    if (!n) fputs("    <testcase classname=\"scalana\" name=\"no root cause in either build\"/>\n", f);
    fputs("  </testsuite>\n</testsuites>\n", f);
    return close_checked(f);
}

/* Markdown table cell text: | and newlines would break the row. */
static void md_cell(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|') fputs("\\|", f);
        else if (*s == '\n' || *s == '\r') fputc(' ', f);
        else fputc(*s, f);
    }
}

int an_gate_write_markdown(const void *gate_v, const void *comparison, const char *path)
{
    const json_t *gate = gate_v, *cmp = comparison, *cn = json_object_get(gate, "counts");
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    int failed = an_gate_failed(gate);
    fprintf(f, "## ScalAna gate: %s\n\n", failed ? "FAIL" : "pass");
    fprintf(f, "Build `%.12s` → build `%.12s`: %lld new, %lld regressed, %lld fixed, %lld improved, %lld unchanged "
               "root cause(s); costs at %lld → %lld processes.\n\n",
            an_jstr(gate, "before_build_id"), an_jstr(gate, "after_build_id"),
            (long long)json_integer_value(json_object_get(cn, "new")),
            (long long)json_integer_value(json_object_get(cn, "regressed")),
            (long long)json_integer_value(json_object_get(cn, "fixed")),
            (long long)json_integer_value(json_object_get(cn, "improved")),
            (long long)json_integer_value(json_object_get(cn, "unchanged")),
            (long long)json_integer_value(json_object_get(gate, "cost_processes_before")),
            (long long)json_integer_value(json_object_get(gate, "cost_processes_after")));
    size_t k;
    const json_t *g;
    if (json_array_size(json_object_get(gate, "causes"))) {
        fputs("| verdict | category | location | cost before (s) | cost after (s) | noise band (s) |\n"
              "|---|---|---|---:|---:|---:|\n", f);
        json_array_foreach(json_object_get(gate, "causes"), k, g) {
            int fails = json_is_true(json_object_get(g, "failed"));
            fprintf(f, "| %s%s%s | ", fails ? "**" : "", an_jstr(g, "verdict"), fails ? "**" : "");
            md_cell(f, an_jstr(g, "category"));
            fputs(" | `", f);
            char title[1024];
            snprintf(title, sizeof title, "%s:%lld-%lld", base_name(an_jstr(g, "file")),
                     (long long)json_integer_value(json_object_get(g, "line")),
                     (long long)json_integer_value(json_object_get(g, "last_line")));
            md_cell(f, title);
            fputs("` in ", f);
            md_cell(f, an_jstr(g, "function"));
            fprintf(f, " | %.3g | %.3g | %.3g |\n", real0(g, "cost_before_seconds"), real0(g, "cost_after_seconds"),
                    real0(g, "band_seconds"));
        }
        fputc('\n', f);
    } else {
        fputs("No root cause in either build.\n\n", f);
    }
    if (json_array_size(json_object_get(cmp, "scales"))) {
        fputs("| processes | wall before (s) | wall after (s) | saved (s) | spread (s) |\n|---:|---:|---:|---:|---:|\n", f);
        json_array_foreach(json_object_get(cmp, "scales"), k, g)
            fprintf(f, "| %lld | %.3g | %.3g | %.3g | %.3g |\n",
                    (long long)json_integer_value(json_object_get(g, "processes")), real0(g, "before_wall_seconds"),
                    real0(g, "after_wall_seconds"), real0(g, "saved_seconds"), real0(g, "spread_seconds"));
        fputc('\n', f);
    }
    return close_checked(f);
}

void an_gate_print(FILE *f, const void *gate_v)
{
    const json_t *gate = gate_v, *cn = json_object_get(gate, "counts");
    fprintf(f, "gate: %s: %lld new, %lld regressed, %lld fixed, %lld improved, %lld unchanged\n",
            an_gate_failed(gate) ? "FAIL" : "pass", (long long)json_integer_value(json_object_get(cn, "new")),
            (long long)json_integer_value(json_object_get(cn, "regressed")),
            (long long)json_integer_value(json_object_get(cn, "fixed")),
            (long long)json_integer_value(json_object_get(cn, "improved")),
            (long long)json_integer_value(json_object_get(cn, "unchanged")));
    size_t k;
    const json_t *g;
    char text[2048];
    json_array_foreach(json_object_get(gate, "causes"), k, g)
        if (json_is_true(json_object_get(g, "failed"))) fprintf(f, "  %s\n", failure_text(g, text, sizeof text));
}

int an_gate_apply(const struct an_options *o, void *report_v)
{
    json_t *report = report_v;
    const json_t *cmp = json_object_get(report, "comparison");
    if (!json_is_object(cmp)) {
        fputs("scalana-analyze: error: --gate: no comparison of two builds to judge\n", stderr);
        return 2;
    }
    json_t *gate = an_gate_judge(cmp, &o->th);
    json_object_set_new(report, "gate", gate);
    int rc = an_gate_failed(gate);
    if (o->junit && an_gate_write_junit(gate, o->junit) != 0) {
        fprintf(stderr, "scalana-analyze: error: cannot write %s: %s\n", o->junit, strerror(errno));
        rc = 2;
    }
    if (o->markdown && an_gate_write_markdown(gate, cmp, o->markdown) != 0) {
        fprintf(stderr, "scalana-analyze: error: cannot write %s: %s\n", o->markdown, strerror(errno));
        rc = 2;
    }
    return rc;
}
