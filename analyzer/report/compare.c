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
#include "report/compare.h"
#include "report/saving.h"
#include "report/report_json.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    if (an_jint(v, "id") == id) return v;
    size_t k;
    json_t *x;
    json_array_foreach(vs, k, x) if (an_jint(x, "id") == id) return x;
    return NULL;
}

/* The function a person reads, or its linkage name when both have one. */
static int same_function(const json_t *a, const json_t *b)
{
    const char *la = an_jstr(a, "linkage_name"), *lb = an_jstr(b, "linkage_name");
    if (*la && *lb) return strcmp(la, lb) == 0;
    return strcmp(an_jstr(a, "function"), an_jstr(b, "function")) == 0;
}

static int same_file(const json_t *a, const json_t *b)
{
    const char *fa = an_jstr(a, "file"), *fb = an_jstr(b, "file");
    return strcmp(fa, fb) == 0 || strcmp(base_name(fa), base_name(fb)) == 0;
}

/* One report with, for each vertex (by its place in "vertices"), its place
 * among the vertices of its kind in its function and file in line order (a
 * source line reached in several calling contexts counts once) and how many
 * there are: computed once, sorted, so that matching stays O(n log n). */
struct side {
    const json_t *r;
    size_t n;
    int *ord, *cnt;
    size_t *ix; /* vertex places sorted by kind, function, file, line, column */
};

static const char *fn_key(const json_t *v)
{
    const char *l = an_jstr(v, "linkage_name");
    return *l ? l : an_jstr(v, "function");
}

static const json_t *side_vertex(const struct side *s, size_t i)
{
    return json_array_get(json_object_get(s->r, "vertices"), i);
}

/* The group of a vertex: kind, function, file name. */
static int group_cmp(const json_t *a, const json_t *b)
{
    int c = strcmp(an_jstr(a, "kind"), an_jstr(b, "kind"));
    if (!c) c = strcmp(fn_key(a), fn_key(b));
    if (!c) c = strcmp(base_name(an_jstr(a, "file")), base_name(an_jstr(b, "file")));
    return c;
}

static int by_place(const void *x, const void *y, void *ctx)
{
    const struct side *s = ctx;
    const json_t *a = side_vertex(s, *(const size_t *)x), *b = side_vertex(s, *(const size_t *)y);
    int c = group_cmp(a, b);
    if (!c) c = (an_jint(a, "line") > an_jint(b, "line")) - (an_jint(a, "line") < an_jint(b, "line"));
    if (!c) c = (an_jint(a, "column") > an_jint(b, "column")) - (an_jint(a, "column") < an_jint(b, "column"));
    return c;
}

static void side_init(struct side *s, const json_t *report)
{
    s->r = report;
    s->n = json_array_size(json_object_get(report, "vertices"));
    s->ord = calloc(s->n + 1, sizeof *s->ord);
    s->cnt = calloc(s->n + 1, sizeof *s->cnt);
    size_t *ix = malloc((s->n + 1) * sizeof *ix);
    if (!s->ord || !s->cnt || !ix) abort();
    for (size_t i = 0; i < s->n; i++) ix[i] = i;
    qsort_r(ix, s->n, sizeof *ix, by_place, s); /* glibc's (the build defines _GNU_SOURCE) */
    for (size_t g = 0; g < s->n;) {
        /* one group: same kind, function and file */
        size_t e = g + 1;
        const json_t *first = side_vertex(s, ix[g]);
        while (e < s->n) {
            const json_t *v = side_vertex(s, ix[e]);
            if (strcmp(an_jstr(v, "kind"), an_jstr(first, "kind")) || strcmp(fn_key(v), fn_key(first)) ||
                strcmp(base_name(an_jstr(v, "file")), base_name(an_jstr(first, "file"))))
                break;
            e++;
        }
        int place = -1;
        for (size_t k = g; k < e; k++) {
            const json_t *v = side_vertex(s, ix[k]), *p = k > g ? side_vertex(s, ix[k - 1]) : NULL;
            if (!p || an_jint(p, "line") != an_jint(v, "line") || an_jint(p, "column") != an_jint(v, "column")) place++;
            s->ord[ix[k]] = place;
        }
        for (size_t k = g; k < e; k++) s->cnt[ix[k]] = place + 1;
        g = e;
    }
    s->ix = ix;
}

static void side_free(struct side *s) { free(s->ord), free(s->cnt), free(s->ix); }

/* The place of v in s's vertices (-1 when it is not one of them). */
static long side_index(const struct side *s, const json_t *v)
{
    json_int_t id = an_jint(v, "id");
    if (id >= 0 && (size_t)id < s->n && side_vertex(s, (size_t)id) == v) return (long)id;
    for (size_t i = 0; i < s->n; i++)
        if (side_vertex(s, i) == v) return (long)i;
    return -1;
}

/* How far apart two vertices' locations are (lines), or -1 when they are
 * not the same location: another kind, function or file, or further apart
 * than AN_COMPARE_LINE_SHIFT lines and at another place in the order of such
 * vertices of the function, counted from its first one with as many of them
 * in both builds, or counted from its last one (a loop added above).  With
 * renamed set, the function may differ (a function renamed): then only
 * lines within AN_COMPARE_LINE_SHIFT match. */
static long location_distance_as(const struct side *b, const json_t *vb, const struct side *a, const json_t *va,
                                 int renamed)
{
    if (!vb || !va) return -1;
    if (strcmp(an_jstr(vb, "kind"), an_jstr(va, "kind")) != 0 || !same_file(vb, va)) return -1;
    if (!renamed && !same_function(vb, va)) return -1;
    long d = labs((long)(an_jint(vb, "line") - an_jint(va, "line")));
    if (d <= AN_COMPARE_LINE_SHIFT) return d;
    if (renamed) return -1;
    long ib = side_index(b, vb), ia = side_index(a, va);
    if (ib < 0 || ia < 0) return -1;
    if (b->ord[ib] == a->ord[ia] && b->cnt[ib] == a->cnt[ia]) return d;
    return b->cnt[ib] - b->ord[ib] == a->cnt[ia] - a->ord[ia] ? d : -1;
}

static long location_distance(const struct side *b, const json_t *vb, const struct side *a, const json_t *va)
{
    return location_distance_as(b, vb, a, va, 0);
}

/* The vertex of side a at the location of vb of side b (closest lines), or NULL. */
static const json_t *find_vertex(const struct side *b, const json_t *vb, const struct side *a)
{
    const json_t *best = NULL;
    long bestd = -1;
    if (!vb) return NULL;
    /* its group in a's sorted places (binary search), else every vertex: the
     * group key takes the linkage name where the vertex has one */
    size_t lo = 0, hi = a->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (group_cmp(side_vertex(a, a->ix[mid]), vb) < 0) lo = mid + 1;
        else hi = mid;
    }
    for (size_t k = lo; k < a->n && group_cmp(side_vertex(a, a->ix[k]), vb) == 0; k++) {
        const json_t *x = side_vertex(a, a->ix[k]);
        long d = location_distance(b, vb, a, x);
        if (d >= 0 && (bestd < 0 || d < bestd)) best = x, bestd = d;
    }
    for (size_t k = 0; !best && k < a->n; k++) {
        const json_t *x = side_vertex(a, k);
        long d = location_distance(b, vb, a, x);
        if (d >= 0 && (bestd < 0 || d < bestd)) best = x, bestd = d;
    }
    return best;
}

/* The entry of a report array (a vertex's "metrics", the report's "runs")
 * for P processes, or NULL. */
static const json_t *at_processes(const json_t *array, json_int_t P)
{
    size_t k;
    json_t *m;
    json_array_foreach(array, k, m) if (an_jint(m, "processes") == P) return m;
    return NULL;
}

/* The metrics entry of vertex v at P processes, or NULL. */
static const json_t *metrics_at(const json_t *v, json_int_t P)
{
    return at_processes(json_object_get(v, "metrics"), P);
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
    json_array_foreach(b, i, x) json_array_foreach(a, j, y) if (an_jint(x, "processes") == an_jint(y, "processes")) {
        v[(*n)++] = an_jint(x, "processes");
        break;
    }
    return v;
}

static const json_t *run_at(const json_t *report, json_int_t P)
{
    return at_processes(json_object_get(report, "runs"), P);
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
        double bm = mb ? an_jreal(mb, "inclusive_mean_seconds") : 0, bx = mb ? an_jreal(mb, "inclusive_max_seconds") : 0;
        double am = ma ? an_jreal(ma, "inclusive_mean_seconds") : 0, ax = ma ? an_jreal(ma, "inclusive_max_seconds") : 0;
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
    json_object_set_new(o, "rank", json_integer(an_jint(c, "rank")));
    json_object_set_new(o, "category", json_string(an_jstr(c, "category")));
    json_object_set_new(o, "function", json_string(an_jstr(c, "function")));
    json_object_set_new(o, "file", json_string(an_jstr(c, "file")));
    json_object_set_new(o, "line", json_integer(an_jint(c, "line")));
    json_object_set_new(o, "last_line", json_integer(an_jint(c, "last_line")));
    json_object_set_new(o, "location", json_string(an_jstr(c, "location")));
    json_object_set_new(o, "cost_seconds", num(an_jreal(c, "cost_seconds")));
    json_object_set_new(o, "cost_percent", num(an_jreal(c, "cost_percent")));
    if (json_is_number(json_object_get(c, "cost_noise_seconds")))
        json_object_set_new(o, "cost_noise_seconds", num(an_jreal(c, "cost_noise_seconds")));
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
    json_array_foreach(json_object_get(report, "runs"), k, r) if (an_jint(r, "processes") > P) P = an_jint(r, "processes");
    return P;
}

static json_t *program_side(const json_t *report)
{
    json_t *o = json_object();
    const json_t *prog = json_object_get(report, "program");
    json_object_set_new(o, "build_id", json_string(an_jstr(prog, "build_id")));
    json_object_set_new(o, "executable", json_string(an_jstr(prog, "executable")));
    json_object_set_new(o, "executable_source", json_string(an_jstr(prog, "executable_source")));
    json_t *dirs = json_array(), *counts = json_array();
    size_t k, j;
    json_t *r, *d;
    json_array_foreach(json_object_get(report, "runs"), k, r) {
        json_array_append_new(counts, json_integer(an_jint(r, "processes")));
        json_array_foreach(json_object_get(r, "directories"), j, d) json_array_append(dirs, d);
    }
    json_object_set_new(o, "processes", counts);
    json_object_set_new(o, "directories", dirs);
    json_object_set_new(o, "root_cause_count", json_integer((json_int_t)json_array_size(json_object_get(report, "root_causes"))));
    return o;
}

/* What one comparison works on: the reports before and after, their sides
 * (vertices by place) and the process counts both ran. */
struct comparing {
    const json_t *rb, *ra;
    struct side sb, sa;
    json_int_t *counts; size_t ncounts;
};

/* The program: wall time per process count both ran. */
static json_t *wall_scales(const struct comparing *k)
{
    json_t *scales = json_array();
    for (size_t i = 0; i < k->ncounts; i++) {
        const json_t *b = run_at(k->rb, k->counts[i]), *a = run_at(k->ra, k->counts[i]);
        double wb = an_jreal(b, "wall_seconds"), wa = an_jreal(a, "wall_seconds");
        json_t *o = json_object();
        json_object_set_new(o, "processes", json_integer(k->counts[i]));
        json_object_set_new(o, "before_wall_seconds", num(wb));
        json_object_set_new(o, "after_wall_seconds", num(wa));
        json_object_set_new(o, "saved_seconds", num(wb - wa));
        json_object_set_new(o, "saved_percent", num(wb > 0 ? (wb - wa) / wb * 100 : NAN));
        /* repetitions at a count give a spread: a saving below it is noise */
        double sb = an_jreal(b, "wall_seconds_spread"), sa = an_jreal(a, "wall_seconds_spread");
        json_object_set_new(o, "spread_seconds", num(fmax(isfinite(sb) ? sb : 0, isfinite(sa) ? sa : 0)));
        json_object_set_new(o, "before_cpu_seconds_mean", num(an_jreal(b, "cpu_seconds_mean")));
        json_object_set_new(o, "after_cpu_seconds_mean", num(an_jreal(a, "cpu_seconds_mean")));
        json_object_set_new(o, "before_mpi_seconds_mean", num(an_jreal(b, "mpi_seconds_mean")));
        json_object_set_new(o, "after_mpi_seconds_mean", num(an_jreal(a, "mpi_seconds_mean")));
        json_array_append_new(scales, o);
    }
    return scales;
}

/* The causes paired: pair_b[i] the after cause of before cause i (-1: none),
 * pair_a[j] the reverse; changed_b: paired with another category, renamed_b:
 * paired with its function renamed. */
struct pairing {
    const json_t *cb, *ca; size_t nb, na;
    long *pair_b, *pair_a;
    int *changed_b, *renamed_b;
};

/* Pairs of the same category at the same location, closest first, in three
 * passes.  0: same category; 1: same category, the function renamed (same
 * file, kind and lines); 2: another category (changed). */
static void pair_causes(const struct comparing *k, struct pairing *p)
{
    p->cb = json_object_get(k->rb, "root_causes"), p->ca = json_object_get(k->ra, "root_causes");
    size_t nb = p->nb = json_array_size(p->cb), na = p->na = json_array_size(p->ca);
    p->pair_b = malloc((nb + 1) * sizeof *p->pair_b), p->pair_a = malloc((na + 1) * sizeof *p->pair_a);
    p->changed_b = calloc(nb + 1, sizeof *p->changed_b), p->renamed_b = calloc(nb + 1, sizeof *p->renamed_b);
    if (!p->pair_b || !p->pair_a || !p->changed_b || !p->renamed_b) abort();
    for (size_t i = 0; i < nb; i++) p->pair_b[i] = -1;
    for (size_t j = 0; j < na; j++) p->pair_a[j] = -1;
    for (int pass = 0; pass < 3; pass++) {
        for (;;) {
            long bi = -1, bj = -1, bd = -1;
            for (size_t i = 0; i < nb; i++) {
                if (p->pair_b[i] >= 0) continue;
                const json_t *x = json_array_get(p->cb, i);
                for (size_t j = 0; j < na; j++) {
                    if (p->pair_a[j] >= 0) continue;
                    const json_t *y = json_array_get(p->ca, j);
                    int same_cat = strcmp(an_jstr(x, "category"), an_jstr(y, "category")) == 0;
                    if (pass < 2 ? !same_cat : same_cat) continue;
                    long d = location_distance_as(&k->sb, vertex(k->rb, an_jint(x, "vertex")), &k->sa,
                                                  vertex(k->ra, an_jint(y, "vertex")), pass == 1);
                    if (d >= 0 && (bd < 0 || d < bd)) bi = (long)i, bj = (long)j, bd = d;
                }
            }
            if (bi < 0) break;
            p->pair_b[bi] = bj, p->pair_a[bj] = bi, p->changed_b[bi] = pass == 2, p->renamed_b[bi] = pass == 1;
        }
    }
}

static void pairing_free(struct pairing *p) { free(p->pair_b), free(p->pair_a), free(p->changed_b), free(p->renamed_b); }

/* The candidate of the report `after` (1) or before (0) of category cat
 * nearest to vertex v of the other side, or NULL. */
static const json_t *nearest_candidate(const struct comparing *k, int after, const char *cat, const json_t *v)
{
    const json_t *cand = NULL;
    long bestd = -1;
    size_t i;
    json_t *z;
    json_array_foreach(json_object_get(after ? k->ra : k->rb, "candidates"), i, z) {
        if (strcmp(an_jstr(z, "category"), cat) != 0) continue;
        long d = after ? location_distance(&k->sb, v, &k->sa, vertex(k->ra, an_jint(z, "vertex")))
                       : location_distance(&k->sb, vertex(k->rb, an_jint(z, "vertex")), &k->sa, v);
        if (d >= 0 && (bestd < 0 || d < bestd)) cand = z, bestd = d;
    }
    return cand;
}

/* The entry of before cause i: gone, remains or changed. */
static json_t *before_cause(const struct comparing *k, const struct pairing *p, size_t i)
{
    const json_t *x = json_array_get(p->cb, i), *y = p->pair_b[i] >= 0 ? json_array_get(p->ca, (size_t)p->pair_b[i]) : NULL;
    const json_t *vb = vertex(k->rb, an_jint(x, "vertex"));
    const json_t *va = y ? vertex(k->ra, an_jint(y, "vertex")) : find_vertex(&k->sb, vb, &k->sa);
    const char *status = !y ? "gone" : p->changed_b[i] ? "changed" : "remains";
    double cbs = an_jreal(x, "cost_seconds"), cas = y ? an_jreal(y, "cost_seconds") : 0;
    /* gone from the root causes, but found under the thresholds: its cost is what is left */
    const json_t *cand = NULL;
    if (!y) {
        cand = nearest_candidate(k, 1, an_jstr(x, "category"), vb);
        if (cand && isfinite(an_jreal(cand, "cost_seconds"))) cas = an_jreal(cand, "cost_seconds");
    }
    json_t *o = json_object();
    json_object_set_new(o, "status", json_string(status));
    json_object_set_new(o, "category", json_string(an_jstr(y && p->changed_b[i] ? y : x, "category")));
    json_object_set_new(o, "before", cause_brief(x));
    json_object_set_new(o, "after", y ? cause_brief(y) : json_null());
    if (p->renamed_b[i]) json_object_set_new(o, "renamed_from", json_string(an_jstr(x, "function")));
    if (cand) json_object_set_new(o, "after_below_thresholds", cause_brief(cand));
    json_object_set_new(o, "cost_before_seconds", num(cbs));
    json_object_set_new(o, "cost_after_seconds", num(cas));
    json_object_set_new(o, "saved_seconds", num(cbs - cas));
    json_object_set_new(o, "location_found_after", json_boolean(va != NULL));
    json_object_set_new(o, "per_process_count", location_times(k->rb, vb, k->ra, va, k->counts, k->ncounts));
    return o;
}

/* The entry of after cause j that no before cause paired: new. */
static json_t *new_cause(const struct comparing *k, const struct pairing *p, size_t j)
{
    const json_t *y = json_array_get(p->ca, j);
    const json_t *va = vertex(k->ra, an_jint(y, "vertex"));
    const json_t *vb = find_vertex(&k->sa, va, &k->sb);
    double cas = an_jreal(y, "cost_seconds"), cbs = 0;
    /* new among the root causes, but there under the thresholds before: its cost then */
    const json_t *cand = nearest_candidate(k, 0, an_jstr(y, "category"), va);
    if (cand && isfinite(an_jreal(cand, "cost_seconds"))) cbs = an_jreal(cand, "cost_seconds");
    json_t *o = json_object();
    json_object_set_new(o, "status", json_string("new"));
    json_object_set_new(o, "category", json_string(an_jstr(y, "category")));
    json_object_set_new(o, "before", json_null());
    json_object_set_new(o, "after", cause_brief(y));
    if (cand) json_object_set_new(o, "before_below_thresholds", cause_brief(cand));
    json_object_set_new(o, "cost_before_seconds", num(cbs));
    json_object_set_new(o, "cost_after_seconds", num(cas));
    json_object_set_new(o, "saved_seconds", num(cbs - cas));
    json_object_set_new(o, "location_found_before", json_boolean(vb != NULL));
    json_object_set_new(o, "per_process_count", location_times(k->rb, vb, k->ra, va, k->counts, k->ncounts));
    return o;
}

void *an_compare_reports(const void *before_v, const void *after_v)
{
    struct comparing k = {.rb = before_v, .ra = after_v};
    side_init(&k.sb, k.rb);
    side_init(&k.sa, k.ra);
    json_t *out = json_object();
    json_object_set_new(out, "before", program_side(k.rb));
    json_object_set_new(out, "after", program_side(k.ra));
    json_object_set_new(out, "line_shift_tolerance", json_integer(AN_COMPARE_LINE_SHIFT));
    k.counts = common_counts(k.rb, k.ra, &k.ncounts);
    json_t *cj = json_array();
    for (size_t i = 0; i < k.ncounts; i++) json_array_append_new(cj, json_integer(k.counts[i]));
    json_object_set_new(out, "common_processes", cj);
    json_object_set_new(out, "scales", wall_scales(&k));

    struct pairing p;
    pair_causes(&k, &p);
    json_t *causes = json_array();
    int n_gone = 0, n_remain = 0, n_changed = 0, n_new = 0;
    for (size_t i = 0; i < p.nb; i++) {
        json_array_append_new(causes, before_cause(&k, &p, i));
        int paired = p.pair_b[i] >= 0;
        n_gone += !paired, n_remain += paired && !p.changed_b[i], n_changed += paired && p.changed_b[i];
    }
    for (size_t j = 0; j < p.na; j++) {
        if (p.pair_a[j] >= 0) continue;
        json_array_append_new(causes, new_cause(&k, &p, j));
        n_new++;
    }
    json_object_set_new(out, "causes", causes);
    json_t *cnt = json_object();
    json_object_set_new(cnt, "gone", json_integer(n_gone));
    json_object_set_new(cnt, "remains", json_integer(n_remain));
    json_object_set_new(cnt, "changed", json_integer(n_changed));
    json_object_set_new(cnt, "new", json_integer(n_new));
    json_object_set_new(out, "counts", cnt);
    json_object_set_new(out, "cost_processes_before", json_integer(largest_count(k.rb)));
    json_object_set_new(out, "cost_processes_after", json_integer(largest_count(k.ra)));
    pairing_free(&p), free(k.counts);
    side_free(&k.sb), side_free(&k.sa);
    an_compare_savings(out, k.rb, k.ra); /* predicted against measured (saving.c) */
    return out;
}
