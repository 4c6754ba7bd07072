/* vw_html_data.c — the data of index.html's interactive views (calling-context
 * tree, flat and bottom-up tables, per-process panel, source, search), written
 * as one JSON document in a hidden element read by the page's script: the vertices at the
 * largest process count with their per-process times, the root causes, the
 * source of the functions.  The page computes inclusive times, groups and
 * medians from it; report.json stays the reference. */
#include "vw_html.h"
#include "vw_html_util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Per-process values embedded at most (vertices x processes): 1 000 000
 * numbers are about 8 MB of page; past it the vertices that matter most keep
 * theirs (on a path or flagged, then by time) and the page says so. */
#define MAX_PP_VALUES 1000000

static json_t *real(double x)
{
    return json_real(isfinite(x) ? x : 0.0);
}

/* keep[v] = 1 for the vertices whose per-process times are embedded, at most
 * max_values numbers in all */
static unsigned char *pp_keep(const struct vw_report *r, long p, size_t max_values, size_t *kept)
{
    size_t n = r->nvert;
    unsigned char *keep = calloc(n ? n : 1, 1);
    if (!keep) return NULL;
    *kept = 0;
    if (p <= 0) return keep;
    if ((size_t)p * n <= max_values) {
        memset(keep, 1, n);
        *kept = n;
        return keep;
    }
    struct vw_pick *pk = malloc(n * sizeof *pk);
    if (!pk) { free(keep); return NULL; }
    for (size_t i = 0; i < n; i++) {
        const json_t *v = vw_vertex(r, (long)i);
        double key = vw_dbl(vw_metrics_at(v, p), "inclusive_mean_seconds", 0);
        if (r->on_path[i] || json_array_size(json_object_get(v, "flags")) > 0) key += 1e15;
        pk[i] = (struct vw_pick){i, key};
    }
    qsort(pk, n, sizeof *pk, vw_pick_desc);
    /* each kept vertex carries its exclusive and its inclusive values ("pi"):
     * the page cannot add up a subtree of which it lacks a part */
    size_t budget = max_values / (2 * (size_t)p);
    for (size_t k = 0; k < budget && k < n; k++) keep[pk[k].v] = 1;
    *kept = budget < n ? budget : n;
    free(pk);
    return keep;
}

/* Inclusive seconds per process of the kept vertices: their subtree's exclusive
 * times added up, in one depth-first walk with an accumulator per vertex on the
 * current path (depth x p doubles; not done above 4 * MAX_PP_VALUES of them).
 * pi[v] is NULL when v is not kept or a vertex under it lacks per-process times. */
static json_t **inclusive_pp(const struct vw_report *r, long p, const unsigned char *keep)
{
    size_t n = r->nvert;
    json_t **pi = calloc(n ? n : 1, sizeof *pi);
    struct frame { int v, child, ok; } *st = malloc((n ? n : 1) * sizeof *st);
    double **acc = calloc(n ? n : 1, sizeof *acc);   /* acc[d]: the frame at depth d */
    if (!pi || !st || !acc || p <= 0) goto out;
    size_t maxdepth = 4 * (size_t)MAX_PP_VALUES / (size_t)p;
    for (size_t root = 0; root < n; root++) {
        if (r->parent[root] >= 0) continue;
        size_t sp = 0;
        st[sp++] = (struct frame){(int)root, -2, 1};
        while (sp > 0) {
            struct frame *f = &st[sp - 1];
            double *a = acc[sp - 1];
            if (f->child == -2) {   /* first visit: the vertex's own times */
                if (!a) {   /* too deep for the bound, or no memory: the vertices done so far keep theirs */
                    if (sp > maxdepth || !(a = acc[sp - 1] = malloc((size_t)p * sizeof *a))) goto out;
                }
                const json_t *m = vw_metrics_at(vw_vertex(r, f->v), p);
                const json_t *pp = json_object_get(m, "per_process_seconds");
                for (long k = 0; k < p; k++) a[k] = m ? json_number_value(json_array_get(pp, (size_t)k)) : 0.0;
                if (m && json_array_size(pp) != (size_t)p) f->ok = 0;
                f->child = r->children_first[f->v];
            }
            if (f->child >= 0) {
                int ch = f->child;
                f->child = r->children_next[ch];
                st[sp++] = (struct frame){ch, -2, 1};
                continue;
            }
            if (keep[f->v] && f->ok) {
                json_t *arr = json_array();
                for (long k = 0; arr && k < p; k++) json_array_append_new(arr, real(a[k]));
                pi[f->v] = arr;
            }
            sp--;
            if (sp > 0) {
                double *up = acc[sp - 1];
                for (long k = 0; k < p; k++) up[k] += a[k];
                if (!f->ok) st[sp - 1].ok = 0;
            }
        }
    }
out:
    for (size_t d = 0; acc && d < n; d++) free(acc[d]);
    free(acc);
    free(st);
    return pi;
}

/* Index of file in files[] (appended when new); -1 for no file. */
static long file_index(json_t *files, json_t *seen, const char *file)
{
    if (!file || !*file) return -1;
    json_t *ix = json_object_get(seen, file);
    if (ix) return (long)json_integer_value(ix);
    long k = (long)json_array_size(files);
    json_array_append_new(files, json_string(file));
    json_object_set_new(seen, file, json_integer(k));
    return k;
}

static json_t *vertex_entry(const struct vw_report *r, size_t i, long p, int with_pp, json_t *pi, json_t *files, json_t *seen)
{
    const json_t *v = vw_vertex(r, (long)i);
    const json_t *m = vw_metrics_at(v, p);
    json_t *e = json_object();
    json_object_set_new(e, "p", json_integer(r->parent[i]));
    json_object_set_new(e, "k", json_string(vw_str(v, "kind", "")));
    json_object_set_new(e, "n", json_string(vw_str(v, "name", "")));
    json_object_set_new(e, "f", json_string(vw_str(v, "function", "")));
    json_object_set_new(e, "s", json_integer(file_index(files, seen, vw_str(v, "file", ""))));
    json_object_set_new(e, "l", json_integer(vw_int(v, "line", 0)));
    json_object_set_new(e, "e", json_integer(vw_int(v, "last_line", vw_int(v, "line", 0))));
    if (*vw_str(v, "operation", "")) json_object_set_new(e, "o", json_string(vw_str(v, "operation", "")));
    const json_t *flags = json_object_get(v, "flags");
    if (json_array_size(flags)) json_object_set(e, "g", (json_t *)flags);
    json_object_set_new(e, "x", json_pack("[ooo]", real(vw_dbl(m, "time_mean_seconds", 0)),
                                          real(vw_dbl(m, "time_max_seconds", 0)), real(vw_dbl(m, "time_min_seconds", 0))));
    json_object_set_new(e, "i", json_pack("[oo]", real(vw_dbl(m, "inclusive_mean_seconds", 0)),
                                          real(vw_dbl(m, "inclusive_max_seconds", 0))));
    if (vw_dbl(m, "mpi_calls", 0) > 0) json_object_set_new(e, "c", real(vw_dbl(m, "mpi_calls", 0)));
    if (vw_dbl(m, "bytes", 0) > 0) json_object_set_new(e, "b", real(vw_dbl(m, "bytes", 0)));
    const json_t *pp = json_object_get(m, "per_process_seconds");
    const json_t *out = json_object_get(m, "outliers");
    if (json_array_size(out)) json_object_set(e, "u", (json_t *)out);
    if (with_pp && json_array_size(pp) == (size_t)p) {
        json_t *a = json_array();
        size_t k;
        const json_t *x;
        json_array_foreach(pp, k, x) json_array_append_new(a, real(json_number_value(x)));
        json_object_set_new(e, "pp", a);
    } else if (!m) {
        json_object_set_new(e, "pp", json_null());   /* not measured at this count: zero everywhere */
    }
    /* else: no "pp": kept out of report.json or of the page (see ppnote) */
    if (pi) json_object_set_new(e, "pi", pi);
    return e;
}

static json_t *cause_entry(const json_t *rc, size_t i)
{
    const char *cat = vw_str(rc, "category", "");
    json_t *e = json_object();
    json_object_set_new(e, "rank", json_integer(vw_int(rc, "rank", (long)i + 1)));
    json_object_set_new(e, "cat", json_string(cat));
    json_object_set_new(e, "title", json_string(vw_category_title(cat)));
    json_object_set_new(e, "v", json_integer(vw_int(rc, "vertex", -1)));
    json_object_set_new(e, "fn", json_string(vw_str(rc, "function", "")));
    json_object_set_new(e, "where", json_string(vw_str(rc, "location", "")));
    json_object_set_new(e, "cost", real(vw_dbl(rc, "cost_seconds", 0)));
    const json_t *procs = json_object_get(rc, "processes");
    json_object_set(e, "procs", json_is_array(procs) ? (json_t *)procs : json_array());
    const json_t *wait = json_object_get(rc, "waiting_processes");
    if (json_is_array(wait)) json_object_set(e, "wait", (json_t *)wait);
    return e;
}

/* jansson refuses strings that are not UTF-8 (names come from report.json,
 * already valid); a failed json_string leaves a NULL we must not dereference:
 * json_object_set_new ignores NULL values, json_pack fails and returns NULL. */
static json_t *page_data(const struct vw_html_ctx *c, size_t max_values)
{
    const struct vw_report *r = c->r;
    long p = r->largest_processes;
    size_t kept = 0;
    unsigned char *keep = pp_keep(r, p, max_values, &kept);
    if (!keep) return NULL;
    json_t **pi = kept < r->nvert ? inclusive_pp(r, p, keep) : NULL;
    json_t *d = json_object(), *files = json_array(), *seen = json_object(), *vs = json_array(), *cs = json_array();
    if (!d || !files || !seen || !vs || !cs) {
        json_decref(d); json_decref(files); json_decref(seen); json_decref(vs); json_decref(cs);
        for (size_t i = 0; pi && i < r->nvert; i++) json_decref(pi[i]);
        free(pi);
        free(keep);
        return NULL;
    }
    for (size_t i = 0; i < r->nvert; i++)
        json_array_append_new(vs, vertex_entry(r, i, p, keep[i], pi ? pi[i] : NULL, files, seen));
    size_t i;
    const json_t *rc;
    json_array_foreach(r->root_causes, i, rc) json_array_append_new(cs, cause_entry(rc, i));
    json_object_set_new(d, "processes", json_integer(p));
    json_object_set_new(d, "v", vs);
    json_object_set_new(d, "causes", cs);
    if (p > 0 && kept < r->nvert) {
        char note[200];
        snprintf(note, sizeof note, "Per-process values are in the page for %zu of %zu vertices (at most %zu values); report.json has them all.",
                 kept, r->nvert, max_values);
        json_object_set_new(d, "ppnote", json_string(note));
    }
    json_object_set_new(d, "src", vw_html_sources(c, seen));
    json_object_set_new(d, "files", files);
    json_decref(seen);
    free(pi);
    free(keep);
    return d;
}

void vw_html_data(struct vw_out *o, const struct vw_html_ctx *c)
{
    vw_html_data_bounded(o, c, MAX_PP_VALUES);
}

void vw_html_data_bounded(struct vw_out *o, const struct vw_html_ctx *c, size_t max_values)
{
    json_t *d = page_data(c, max_values);
    char *s = d ? json_dumps(d, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(7)) : NULL;
    json_decref(d);
    if (!s) { o->failed = 1; return; }
    /* The JSON as the text of a hidden element, read with JSON.parse (several
     * times faster than a megabyte-sized literal in the script).  '<', '>' and
     * '&' occur only inside JSON strings, where \u003c, \u003e and \u0026 mean
     * the same: the text holds no markup and no entity, whatever the names. */
    vw_puts(o, "<div id=\"scalana-data\" hidden>");
    size_t run = 0, n = strlen(s);
    for (size_t k = 0; k < n; k++) {
        if (s[k] == '<' || s[k] == '>' || s[k] == '&') {
            vw_write(o, s + k - run, run);
            run = 0;
            vw_puts(o, s[k] == '<' ? "\\u003c" : s[k] == '>' ? "\\u003e" : "\\u0026");
        } else {
            run++;
        }
    }
    vw_write(o, s + n - run, run);
    vw_puts(o, "</div>\n");
    free(s);
}
