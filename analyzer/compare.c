/* compare.c — before/after: two analyses of one program, each of the runs
 * of one build, compared as report.json objects.  A root cause of the
 * earlier build is matched to one of the later build by category and
 * location (function, kind of vertex, file, lines within
 * AN_COMPARE_LINE_SHIFT, or the same place in the order of such vertices of
 * the function); it went away ("gone"; its cost after is that of a
 * candidate under the thresholds at its place, else 0), remains, changed
 * category, or is new.  For each, the cost before and after and the time of its location at
 * every process count both builds ran; for the program, the wall time at
 * each such count.  The method is described in docs/analyzer.md. */
#include "analyzer.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *str(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static json_int_t integer(const json_t *o, const char *k) { return json_integer_value(json_object_get(o, k)); }

static double real(const json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static json_t *num(double x) { return isfinite(x) ? json_real(x) : json_null(); }

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static const json_t *vertex(const json_t *report, json_int_t id)
{
    const json_t *vs = json_object_get(report, "vertices");
    if (id < 0 || (size_t)id >= json_array_size(vs)) return NULL;
    const json_t *v = json_array_get(vs, (size_t)id);
    /* the array is indexed by id; should it not be, search */
    if (integer(v, "id") == id) return v;
    size_t k;
    json_t *x;
    json_array_foreach(vs, k, x) if (integer(x, "id") == id) return x;
    return NULL;
}

/* The function a person reads, or its linkage name when both have one. */
static int same_function(const json_t *a, const json_t *b)
{
    const char *la = str(a, "linkage_name"), *lb = str(b, "linkage_name");
    if (*la && *lb) return strcmp(la, lb) == 0;
    return strcmp(str(a, "function"), str(b, "function")) == 0;
}

static int same_file(const json_t *a, const json_t *b)
{
    const char *fa = str(a, "file"), *fb = str(b, "file");
    return strcmp(fa, fb) == 0 || strcmp(base_name(fa), base_name(fb)) == 0;
}

/* Place of v among the vertices of its kind in its function and file, in
 * line order (0 first), and how many there are. */
static int ordinal(const json_t *report, const json_t *v, int *count)
{
    const json_t *vs = json_object_get(report, "vertices");
    size_t k;
    json_t *x;
    int before = 0, n = 0;
    json_int_t line = integer(v, "line"), col = integer(v, "column"), id = integer(v, "id");
    json_array_foreach(vs, k, x) {
        if (strcmp(str(x, "kind"), str(v, "kind")) != 0 || !same_function(x, v) || !same_file(x, v)) continue;
        json_int_t l = integer(x, "line"), c = integer(x, "column");
        /* the same source line in several calling contexts counts once */
        int dup = 0;
        size_t j;
        json_t *y;
        json_array_foreach(vs, j, y) {
            if (j >= k) break;
            if (integer(y, "line") == l && integer(y, "column") == c &&
                strcmp(str(y, "kind"), str(v, "kind")) == 0 && same_function(y, v) && same_file(y, v)) {
                dup = 1;
                break;
            }
        }
        if (dup) continue;
        n++;
        if (l < line || (l == line && c < col) || (l == line && c == col && integer(x, "id") < id)) before++;
    }
    *count = n;
    return before;
}

/* How far apart two vertices' locations are (lines), or -1 when they are
 * not the same location: another kind, function or file, or further apart
 * than AN_COMPARE_LINE_SHIFT lines and not at the same place in the order of
 * such vertices of the function. */
static long location_distance(const json_t *rb, const json_t *vb, const json_t *ra, const json_t *va)
{
    if (!vb || !va) return -1;
    if (strcmp(str(vb, "kind"), str(va, "kind")) != 0 || !same_function(vb, va) || !same_file(vb, va)) return -1;
    long d = labs((long)(integer(vb, "line") - integer(va, "line")));
    if (d <= AN_COMPARE_LINE_SHIFT) return d;
    int nb, na;
    int ob = ordinal(rb, vb, &nb), oa = ordinal(ra, va, &na);
    return ob == oa && nb == na ? d : -1;
}

/* The vertex of the later report at the location of vb (closest lines), or NULL. */
static const json_t *find_vertex(const json_t *rb, const json_t *vb, const json_t *ra)
{
    const json_t *best = NULL;
    long bestd = -1;
    size_t k;
    json_t *x;
    json_array_foreach(json_object_get(ra, "vertices"), k, x) {
        long d = location_distance(rb, vb, ra, x);
        if (d >= 0 && (bestd < 0 || d < bestd)) best = x, bestd = d;
    }
    return best;
}

/* The metrics entry of vertex v at P processes, or NULL. */
static const json_t *metrics_at(const json_t *v, json_int_t P)
{
    size_t k;
    json_t *m;
    json_array_foreach(json_object_get(v, "metrics"), k, m) if (integer(m, "processes") == P) return m;
    return NULL;
}

/* The process counts both reports ran, ascending. */
static json_int_t *common_counts(const json_t *rb, const json_t *ra, size_t *n)
{
    const json_t *b = json_object_get(rb, "runs"), *a = json_object_get(ra, "runs");
    json_int_t *v = calloc(json_array_size(b) + 1, sizeof *v);
    if (!v) abort();
    *n = 0;
    size_t i, j;
    json_t *x, *y;
    json_array_foreach(b, i, x) json_array_foreach(a, j, y) if (integer(x, "processes") == integer(y, "processes")) {
        v[(*n)++] = integer(x, "processes");
        break;
    }
    return v;
}

static const json_t *run_at(const json_t *report, json_int_t P)
{
    size_t k;
    json_t *r;
    json_array_foreach(json_object_get(report, "runs"), k, r) if (integer(r, "processes") == P) return r;
    return NULL;
}

/* The time of a cause's location per process count, before and after:
 * inclusive time (the location with everything it calls), the mean over
 * processes and the slowest process's; after is 0 where the location is gone
 * from the later build's graph (code removed, or never run). */
static json_t *location_times(const json_t *rb, const json_t *vb, const json_t *ra, const json_t *va,
                              const json_int_t *counts, size_t ncounts)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < ncounts; i++) {
        const json_t *mb = vb ? metrics_at(vb, counts[i]) : NULL, *ma = va ? metrics_at(va, counts[i]) : NULL;
        if (!mb && !ma) continue;
        double bm = mb ? real(mb, "inclusive_mean_seconds") : 0, bx = mb ? real(mb, "inclusive_max_seconds") : 0;
        double am = ma ? real(ma, "inclusive_mean_seconds") : 0, ax = ma ? real(ma, "inclusive_max_seconds") : 0;
        json_t *o = json_object();
        json_object_set_new(o, "processes", json_integer(counts[i]));
        json_object_set_new(o, "before_mean_seconds", num(bm));
        json_object_set_new(o, "after_mean_seconds", num(am));
        json_object_set_new(o, "before_max_seconds", num(bx));
        json_object_set_new(o, "after_max_seconds", num(ax));
        json_object_set_new(o, "saved_max_seconds", num(bx - ax));
        json_array_append_new(arr, o);
    }
    (void)rb, (void)ra;
    return arr;
}

static json_t *cause_brief(const json_t *c)
{
    json_t *o = json_object();
    json_object_set_new(o, "rank", json_integer(integer(c, "rank")));
    json_object_set_new(o, "category", json_string(str(c, "category")));
    json_object_set_new(o, "function", json_string(str(c, "function")));
    json_object_set_new(o, "file", json_string(str(c, "file")));
    json_object_set_new(o, "line", json_integer(integer(c, "line")));
    json_object_set_new(o, "last_line", json_integer(integer(c, "last_line")));
    json_object_set_new(o, "location", json_string(str(c, "location")));
    json_object_set_new(o, "cost_seconds", num(real(c, "cost_seconds")));
    json_object_set_new(o, "cost_percent", num(real(c, "cost_percent")));
    json_t *p = json_object_get(c, "processes");
    json_object_set_new(o, "processes", p ? json_deep_copy(p) : json_array());
    return o;
}

/* Largest process count of a report's runs (0 when none). */
static json_int_t largest_count(const json_t *report)
{
    json_int_t P = 0;
    size_t k;
    json_t *r;
    json_array_foreach(json_object_get(report, "runs"), k, r) if (integer(r, "processes") > P) P = integer(r, "processes");
    return P;
}

static json_t *program_side(const json_t *report)
{
    json_t *o = json_object();
    const json_t *prog = json_object_get(report, "program");
    json_object_set_new(o, "build_id", json_string(str(prog, "build_id")));
    json_object_set_new(o, "executable", json_string(str(prog, "executable")));
    json_object_set_new(o, "executable_source", json_string(str(prog, "executable_source")));
    json_t *dirs = json_array(), *counts = json_array();
    size_t k, j;
    json_t *r, *d;
    json_array_foreach(json_object_get(report, "runs"), k, r) {
        json_array_append_new(counts, json_integer(integer(r, "processes")));
        json_array_foreach(json_object_get(r, "directories"), j, d) json_array_append(dirs, d);
    }
    json_object_set_new(o, "processes", counts);
    json_object_set_new(o, "directories", dirs);
    json_object_set_new(o, "root_cause_count", json_integer((json_int_t)json_array_size(json_object_get(report, "root_causes"))));
    return o;
}

void *an_compare_reports(const void *before_v, const void *after_v)
{
    const json_t *rb = before_v, *ra = after_v;
    json_t *out = json_object();
    json_object_set_new(out, "before", program_side(rb));
    json_object_set_new(out, "after", program_side(ra));
    json_object_set_new(out, "line_shift_tolerance", json_integer(AN_COMPARE_LINE_SHIFT));
    size_t ncounts;
    json_int_t *counts = common_counts(rb, ra, &ncounts);
    json_t *cj = json_array();
    for (size_t i = 0; i < ncounts; i++) json_array_append_new(cj, json_integer(counts[i]));
    json_object_set_new(out, "common_processes", cj);

    /* the program: wall time per process count both ran */
    json_t *scales = json_array();
    for (size_t i = 0; i < ncounts; i++) {
        const json_t *b = run_at(rb, counts[i]), *a = run_at(ra, counts[i]);
        double wb = real(b, "wall_seconds"), wa = real(a, "wall_seconds");
        json_t *o = json_object();
        json_object_set_new(o, "processes", json_integer(counts[i]));
        json_object_set_new(o, "before_wall_seconds", num(wb));
        json_object_set_new(o, "after_wall_seconds", num(wa));
        json_object_set_new(o, "saved_seconds", num(wb - wa));
        json_object_set_new(o, "saved_percent", num(wb > 0 ? (wb - wa) / wb * 100 : NAN));
        /* repetitions at a count give a spread: a saving below it is noise */
        double sb = real(b, "wall_seconds_spread"), sa = real(a, "wall_seconds_spread");
        json_object_set_new(o, "spread_seconds", num(fmax(isfinite(sb) ? sb : 0, isfinite(sa) ? sa : 0)));
        json_object_set_new(o, "before_cpu_seconds_mean", num(real(b, "cpu_seconds_mean")));
        json_object_set_new(o, "after_cpu_seconds_mean", num(real(a, "cpu_seconds_mean")));
        json_object_set_new(o, "before_mpi_seconds_mean", num(real(b, "mpi_seconds_mean")));
        json_object_set_new(o, "after_mpi_seconds_mean", num(real(a, "mpi_seconds_mean")));
        json_array_append_new(scales, o);
    }
    json_object_set_new(out, "scales", scales);

    /* the causes: pairs of the same category at the same location, closest first */
    const json_t *cb = json_object_get(rb, "root_causes"), *ca = json_object_get(ra, "root_causes");
    size_t nb = json_array_size(cb), na = json_array_size(ca);
    long *pair_b = malloc((nb + 1) * sizeof *pair_b), *pair_a = malloc((na + 1) * sizeof *pair_a);
    int *changed_b = calloc(nb + 1, sizeof *changed_b);
    if (!pair_b || !pair_a || !changed_b) abort();
    for (size_t i = 0; i < nb; i++) pair_b[i] = -1;
    for (size_t j = 0; j < na; j++) pair_a[j] = -1;
    for (int pass = 0; pass < 2; pass++) { /* 0: same category, 1: another category (changed) */
        for (;;) {
            long bi = -1, bj = -1, bd = -1;
            for (size_t i = 0; i < nb; i++) {
                if (pair_b[i] >= 0) continue;
                const json_t *x = json_array_get(cb, i);
                for (size_t j = 0; j < na; j++) {
                    if (pair_a[j] >= 0) continue;
                    const json_t *y = json_array_get(ca, j);
                    int same_cat = strcmp(str(x, "category"), str(y, "category")) == 0;
                    if (pass == 0 ? !same_cat : same_cat) continue;
                    long d = location_distance(rb, vertex(rb, integer(x, "vertex")), ra, vertex(ra, integer(y, "vertex")));
                    if (d >= 0 && (bd < 0 || d < bd)) bi = (long)i, bj = (long)j, bd = d;
                }
            }
            if (bi < 0) break;
            pair_b[bi] = bj, pair_a[bj] = bi, changed_b[bi] = pass;
        }
    }
    json_t *causes = json_array();
    int n_gone = 0, n_remain = 0, n_changed = 0, n_new = 0;
    for (size_t i = 0; i < nb; i++) {
        const json_t *x = json_array_get(cb, i), *y = pair_b[i] >= 0 ? json_array_get(ca, (size_t)pair_b[i]) : NULL;
        const json_t *vb = vertex(rb, integer(x, "vertex"));
        const json_t *va = y ? vertex(ra, integer(y, "vertex")) : find_vertex(rb, vb, ra);
        const char *status = !y ? "gone" : changed_b[i] ? "changed" : "remains";
        double cbs = real(x, "cost_seconds"), cas = y ? real(y, "cost_seconds") : 0;
        /* gone from the root causes, but found under the thresholds: its cost is what is left */
        const json_t *cand = NULL;
        if (!y) {
            long bestd = -1;
            size_t k;
            json_t *z;
            json_array_foreach(json_object_get(ra, "candidates"), k, z) {
                if (strcmp(str(z, "category"), str(x, "category")) != 0) continue;
                long d = location_distance(rb, vb, ra, vertex(ra, integer(z, "vertex")));
                if (d >= 0 && (bestd < 0 || d < bestd)) cand = z, bestd = d;
            }
            if (cand && isfinite(real(cand, "cost_seconds"))) cas = real(cand, "cost_seconds");
        }
        json_t *o = json_object();
        json_object_set_new(o, "status", json_string(status));
        json_object_set_new(o, "category", json_string(str(y && changed_b[i] ? y : x, "category")));
        json_object_set_new(o, "before", cause_brief(x));
        json_object_set_new(o, "after", y ? cause_brief(y) : json_null());
        if (cand) json_object_set_new(o, "after_below_thresholds", cause_brief(cand));
        json_object_set_new(o, "cost_before_seconds", num(cbs));
        json_object_set_new(o, "cost_after_seconds", num(cas));
        json_object_set_new(o, "saved_seconds", num(cbs - cas));
        json_object_set_new(o, "location_found_after", json_boolean(va != NULL));
        json_object_set_new(o, "per_process_count", location_times(rb, vb, ra, va, counts, ncounts));
        json_array_append_new(causes, o);
        n_gone += !y, n_remain += y && !changed_b[i], n_changed += y && changed_b[i];
    }
    for (size_t j = 0; j < na; j++) {
        if (pair_a[j] >= 0) continue;
        const json_t *y = json_array_get(ca, j);
        const json_t *va = vertex(ra, integer(y, "vertex"));
        const json_t *vb = find_vertex(ra, va, rb);
        double cas = real(y, "cost_seconds");
        json_t *o = json_object();
        json_object_set_new(o, "status", json_string("new"));
        json_object_set_new(o, "category", json_string(str(y, "category")));
        json_object_set_new(o, "before", json_null());
        json_object_set_new(o, "after", cause_brief(y));
        json_object_set_new(o, "cost_before_seconds", json_real(0));
        json_object_set_new(o, "cost_after_seconds", num(cas));
        json_object_set_new(o, "saved_seconds", num(-cas));
        json_object_set_new(o, "location_found_before", json_boolean(vb != NULL));
        json_object_set_new(o, "per_process_count", location_times(rb, vb, ra, va, counts, ncounts));
        json_array_append_new(causes, o);
        n_new++;
    }
    json_object_set_new(out, "causes", causes);
    json_t *cnt = json_object();
    json_object_set_new(cnt, "gone", json_integer(n_gone));
    json_object_set_new(cnt, "remains", json_integer(n_remain));
    json_object_set_new(cnt, "changed", json_integer(n_changed));
    json_object_set_new(cnt, "new", json_integer(n_new));
    json_object_set_new(out, "counts", cnt);
    json_object_set_new(out, "cost_processes_before", json_integer(largest_count(rb)));
    json_object_set_new(out, "cost_processes_after", json_integer(largest_count(ra)));
    free(pair_b), free(pair_a), free(changed_b), free(counts);
    return out;
}

void an_compare_print(FILE *f, const void *cmp_v)
{
    const json_t *c = cmp_v;
    const json_t *b = json_object_get(c, "before"), *a = json_object_get(c, "after");
    const char *bb = str(b, "build_id"), *ab = str(a, "build_id");
    fprintf(f, "\nBefore/after: build %.12s (%zu run%s) -> build %.12s (%zu run%s)\n", *bb ? bb : "?",
            json_array_size(json_object_get(b, "directories")),
            json_array_size(json_object_get(b, "directories")) == 1 ? "" : "s", *ab ? ab : "?",
            json_array_size(json_object_get(a, "directories")),
            json_array_size(json_object_get(a, "directories")) == 1 ? "" : "s");
    size_t k;
    json_t *s;
    json_array_foreach(json_object_get(c, "scales"), k, s)
        fprintf(f, "  %3lld processes: wall %.3g s -> %.3g s (%s%.3g s, %+.0f%%)\n", (long long)integer(s, "processes"),
                real(s, "before_wall_seconds"), real(s, "after_wall_seconds"),
                real(s, "saved_seconds") >= 0 ? "saved " : "lost ", fabs(real(s, "saved_seconds")),
                -real(s, "saved_percent"));
    if (!json_array_size(json_object_get(c, "scales")))
        fputs("  no process count in common: wall times cannot be compared\n", f);
    const json_t *n = json_object_get(c, "counts");
    fprintf(f, "  root causes: %lld gone, %lld remain, %lld changed category, %lld new\n", (long long)integer(n, "gone"),
            (long long)integer(n, "remains"), (long long)integer(n, "changed"), (long long)integer(n, "new"));
    json_t *x;
    json_array_foreach(json_object_get(c, "causes"), k, x) {
        const json_t *side = json_is_object(json_object_get(x, "before")) ? json_object_get(x, "before")
                                                                         : json_object_get(x, "after");
        fprintf(f, "  %-8s %s at %s:%lld-%lld in %s: cost %.3g s -> %.3g s (saved %.3g s)%s\n", str(x, "status"),
                str(x, "category"), base_name(str(side, "file")), (long long)integer(side, "line"),
                (long long)integer(side, "last_line"), str(side, "function"), real(x, "cost_before_seconds"),
                real(x, "cost_after_seconds"), real(x, "saved_seconds"),
                json_object_get(x, "after_below_thresholds") ? " (what is left is under the thresholds)" : "");
        size_t j;
        json_t *p;
        json_array_foreach(json_object_get(x, "per_process_count"), j, p)
            fprintf(f, "           %lld processes: its slowest process %.3g s -> %.3g s there\n",
                    (long long)integer(p, "processes"), real(p, "before_max_seconds"), real(p, "after_max_seconds"));
    }
}
