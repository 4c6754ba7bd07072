/* vw_extrap.c — extrap.jsonl: Extra-P's JSON Lines input, one line per call
 * path, process count and metric, so a user can cross-check our models.
 *
 * Extra-P refuses an experiment in which one (call path, metric) pair lacks a
 * measurement at one of the coordinates, merges two lines of the same call
 * path and count into repetitions, and splits call paths at "->".  So the
 * file is a complete cube: every call path (vertex), every process count of
 * the study and every metric below, 0 where nothing was measured (a vertex
 * not sampled, or not reached, at that count); every call path is unique and
 * no name holds the separator.  The rules are in docs/viewer.md. */
#include "vw_internal.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Significant digits of the seconds written: those of report.json, which the
 * analyzer writes with JSON_REAL_PRECISION(6) (analyzer/main.c), so a value
 * taken from report.json is written as the same number, and the noise of the
 * analyzer's single-precision sums beyond them is not. */
#define EXTRAP_DIGITS 6

/* The metrics, each written for every call path at every count. */
enum { M_TIME, M_TIME_MEAN, M_TIME_MAX, M_EXCL_MEAN, M_EXCL_MAX, M_BYTES, M_CALLS, NMETRICS };
static const char *const metric_names[NMETRICS] = {
    "time",                /* inclusive mean seconds: the series `model` is fitted on */
    "time_mean",           /* inclusive seconds of the subtree, mean over processes */
    "time_max",            /* ... the slowest process's (the series of `model_max`) */
    "exclusive_time_mean", /* the vertex's own seconds, mean over processes */
    "exclusive_time_max",  /* ... the slowest process's */
    "bytes",               /* bytes sent + received by the subtree's MPI calls, all processes */
    "mpi_calls",           /* MPI calls of the subtree, all processes */
};

/* A report value as a measurement: finite and not negative (the schema's
 * minimum); `missing` when the key is absent or not a number. */
static double measured(const json_t *m, const char *key, double missing)
{
    const json_t *x = json_object_get(m, key);
    if (!json_is_number(x)) return missing;
    double v = json_number_value(x);
    return isfinite(v) && v > 0 ? v : 0.0;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* The study's process counts, ascending and distinct: those of runs[] and of
 * every vertex's metrics[] (a count a vertex has but runs[] lacks is kept). */
static long *study_counts(const struct vw_report *r, size_t *n)
{
    size_t cap = json_array_size(r->runs) + 1, k = 0, i, j;
    for (i = 0; i < r->nvert; i++) cap += json_array_size(json_object_get(vw_vertex(r, (long)i), "metrics"));
    long *c = malloc(cap * sizeof *c);
    if (!c) return NULL;
    const json_t *x;
    json_array_foreach(r->runs, i, x)
        if (vw_int(x, "processes", 0) > 0) c[k++] = vw_int(x, "processes", 0);
    for (i = 0; i < r->nvert; i++)
        json_array_foreach(json_object_get(vw_vertex(r, (long)i), "metrics"), j, x)
            if (vw_int(x, "processes", 0) > 0) c[k++] = vw_int(x, "processes", 0);
    qsort(c, k, sizeof *c, cmp_long);
    size_t u = 0;
    for (i = 0; i < k; i++)
        if (!u || c[u - 1] != c[i]) c[u++] = c[i];
    *n = u;
    return c;
}

static long count_index(const long *c, size_t n, long p)
{
    const long *hit = bsearch(&p, c, n, sizeof *c, cmp_long);
    return hit ? (long)(hit - c) : -1;
}

/* Vertices in pre-order (roots, then children, in index order): a parent's
 * line comes before its children's, as Extra-P lists its call tree. */
static long *preorder(const struct vw_report *r, size_t *norder)
{
    size_t n = r->nvert ? r->nvert : 1, k = 0, sp = 0;
    long *order = malloc(n * sizeof *order), *stack = malloc(n * sizeof *stack);
    if (!order || !stack) { free(order); free(stack); return NULL; }
    for (size_t root = r->nvert; root-- > 0;)
        if (r->parent[root] < 0) stack[sp++] = (long)root;
    while (sp > 0 && k < r->nvert) {
        long v = stack[--sp];
        order[k++] = v;
        size_t first = sp;
        for (int c = r->children_first[v]; c >= 0; c = r->children_next[c]) stack[sp++] = c;
        for (size_t a = first, b = sp; b > a + 1; a++, b--) { long t = stack[a]; stack[a] = stack[b - 1]; stack[b - 1] = t; }
    }
    free(stack);
    *norder = k;
    return order;
}

/* Call paths of all vertices (malloc'd strings, parents first by `order`):
 * "main->LOOP 12-15->MPI_Allreduce". */
static char **call_paths(const struct vw_report *r, const long *order, size_t norder)
{
    size_t n = r->nvert ? r->nvert : 1;
    char **level = vw_node_labels(r);
    char **path = level ? calloc(n, sizeof *path) : NULL;
    int ok = path != NULL;
    for (size_t k = 0; ok && k < norder; k++) {
        long v = order[k];
        int p = r->parent[v];
        if (p < 0) { path[v] = level[v], level[v] = NULL; continue; }
        size_t lp = strlen(path[p]), ll = strlen(level[v]);
        path[v] = malloc(lp + ll + 3);
        if (path[v]) {
            memcpy(path[v], path[p], lp);
            memcpy(path[v] + lp, "->", 2);
            memcpy(path[v] + lp + 2, level[v], ll + 1);
        }
        ok = path[v] != NULL;
    }
    vw_node_labels_free(level, level ? r->nvert : 0);
    if (!ok && path) {
        for (size_t i = 0; i < n; i++) free(path[i]);
        free(path);
        return NULL;
    }
    return path;
}

/* val[(v * nc + c) * NMETRICS + m] for every vertex, count and metric.  Own
 * values from report.json (the first metrics[] entry of a count; 0 where the
 * vertex has none); inclusive ones as measured, or, where report.json lacks
 * them, from the children: mean = own + sum of the children's (exact: a mean
 * over the same processes is linear), max = the largest of own, children's
 * max and the mean (a lower bound); bytes and calls summed over the subtree. */
static double *values(const struct vw_report *r, const long *counts, size_t nc, const long *order, size_t norder)
{
    size_t n = r->nvert ? r->nvert : 1;
    double *val = calloc(n * nc * NMETRICS + 1, sizeof *val);
    double *kid_mean = calloc(n * nc + 1, sizeof *kid_mean), *kid_max = calloc(n * nc + 1, sizeof *kid_max);
    unsigned char *seen = calloc(n * nc + 1, 1);
    if (!val || !kid_mean || !kid_max || !seen) { free(val); free(kid_mean); free(kid_max); free(seen); return NULL; }
    for (size_t k = norder; k-- > 0;) {   /* children before their parent */
        long v = order[k];
        size_t j;
        const json_t *m;
        for (size_t c = 0; c < nc; c++) {   /* not measured at this count */
            double *x = &val[((size_t)v * nc + c) * NMETRICS];
            x[M_TIME_MEAN] = x[M_TIME_MAX] = NAN;
        }
        json_array_foreach(json_object_get(vw_vertex(r, v), "metrics"), j, m) {
            long c = count_index(counts, nc, vw_int(m, "processes", 0));
            if (c < 0 || seen[(size_t)v * nc + (size_t)c]) continue;
            seen[(size_t)v * nc + (size_t)c] = 1;
            double *x = &val[((size_t)v * nc + (size_t)c) * NMETRICS];
            x[M_EXCL_MEAN] = measured(m, "time_mean_seconds", 0);
            x[M_EXCL_MAX] = measured(m, "time_max_seconds", 0);
            x[M_TIME_MEAN] = measured(m, "inclusive_mean_seconds", NAN);
            x[M_TIME_MAX] = measured(m, "inclusive_max_seconds", NAN);
            x[M_BYTES] += measured(m, "bytes", 0);   /* the children's are already there */
            x[M_CALLS] += measured(m, "mpi_calls", 0);
        }
        int p = r->parent[v];
        for (size_t c = 0; c < nc; c++) {
            size_t vc = (size_t)v * nc + c;
            double *x = &val[vc * NMETRICS];
            if (isnan(x[M_TIME_MEAN])) x[M_TIME_MEAN] = x[M_EXCL_MEAN] + kid_mean[vc];
            if (isnan(x[M_TIME_MAX])) x[M_TIME_MAX] = fmax(fmax(x[M_EXCL_MAX], kid_max[vc]), x[M_TIME_MEAN]);
            x[M_TIME] = x[M_TIME_MEAN];
            if (p < 0) continue;
            size_t pc = (size_t)p * nc + c;
            double *y = &val[pc * NMETRICS];
            kid_mean[pc] += x[M_TIME_MEAN];
            kid_max[pc] = fmax(kid_max[pc], x[M_TIME_MAX]);
            y[M_BYTES] += x[M_BYTES];
            y[M_CALLS] += x[M_CALLS];
        }
    }
    free(kid_mean);
    free(kid_max);
    free(seen);
    return val;
}

/* Writes extrap.jsonl of report r into o: call paths x counts x NMETRICS
 * lines (none for a report without vertices or counts); values in seconds,
 * bytes and calls as in the table above.  Out of memory sets o->failed. */
void vw_extrap_write(struct vw_out *o, const struct vw_report *r)
{
    size_t nc = 0, norder = 0;
    long *counts = study_counts(r, &nc);
    long *order = counts ? preorder(r, &norder) : NULL;
    char **path = order ? call_paths(r, order, norder) : NULL;
    double *val = path ? values(r, counts, nc, order, norder) : NULL;
    if (!val) o->failed = 1;
    for (size_t k = 0; val && k < norder && !o->failed; k++) {
        long v = order[k];
        json_t *s = json_string(path[v]);
        char *cp = s ? json_dumps(s, JSON_ENCODE_ANY | JSON_ENSURE_ASCII) : NULL;
        json_decref(s);
        if (!cp) { o->failed = 1; break; }
        for (size_t c = 0; c < nc; c++)
            for (int m = 0; m < NMETRICS; m++) {
                double x = val[((size_t)v * nc + c) * NMETRICS + m];
                /* seconds with report.json's digits (the analyzer's float
                 * noise beyond them is no data); bytes and calls are sums of counts, exact */
                if (m == M_BYTES || m == M_CALLS)
                    vw_printf(o, "{\"params\":{\"p\":%ld},\"callpath\":%s,\"metric\":\"%s\",\"value\":%.15g}\n",
                              counts[c], cp, metric_names[m], x);
                else
                    vw_printf(o, "{\"params\":{\"p\":%ld},\"callpath\":%s,\"metric\":\"%s\",\"value\":%.*g}\n",
                              counts[c], cp, metric_names[m], EXTRAP_DIGITS, x);
            }
        free(cp);
    }
    if (path)
        for (size_t i = 0; i < r->nvert; i++) free(path[i]);
    free(path);
    free(val);
    free(order);
    free(counts);
}

int vw_extrap_write_file(const struct vw_write_ctx *c, char *err, size_t errlen)
{
    struct vw_out o;
    vw_out_init_mem(&o);
    vw_extrap_write(&o, c->r);
    int e = vw_out_save(&o, c->out_dir, "extrap.jsonl", err, errlen);
    vw_out_free(&o);
    return e;
}
