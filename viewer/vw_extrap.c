/* vw_extrap.c — extrap.jsonl: Extra-P's JSON Lines input, one line per call
 * path, process count and metric, so a user can cross-check our models. */
#include "vw_internal.h"
#include <stdlib.h>
#include <string.h>

/* One call-path segment: the vertex name, disambiguated from an earlier
 * sibling of the same name by its line, then by its id. */
static char *segment(const struct vw_report *r, long i)
{
    const json_t *v = vw_vertex(r, i);
    const char *name = vw_str(v, "name", "?");
    int p = r->parent[i];
    int same_name = 0, same_line = 0;
    long line = vw_int(v, "line", 0);
    long first = p >= 0 ? r->children_first[p] : -1;
    if (p < 0) {   /* roots: siblings are the other roots */
        for (long k = 0; k < i; k++)
            if (r->parent[k] < 0 && !strcmp(vw_str(vw_vertex(r, k), "name", "?"), name)) {
                same_name = 1;
                if (vw_int(vw_vertex(r, k), "line", 0) == line) same_line = 1;
            }
    } else {
        for (long k = first; k >= 0 && k != i; k = r->children_next[k])
            if (!strcmp(vw_str(vw_vertex(r, k), "name", "?"), name)) {
                same_name = 1;
                if (vw_int(vw_vertex(r, k), "line", 0) == line) same_line = 1;
            }
    }
    /* "->" separates call-path levels in Extra-P; keep it out of names */
    size_t n = strlen(name);
    char *s = malloc(n + 48);
    if (!s) return NULL;
    size_t w = 0;
    for (size_t k = 0; k < n; k++) {
        if (name[k] == '-' && name[k + 1] == '>') { s[w++] = '-'; s[w++] = '_'; k++; continue; }
        s[w++] = name[k];
    }
    s[w] = '\0';
    if (same_line) snprintf(s + w, 48, "@%ld#%ld", line, i);
    else if (same_name) snprintf(s + w, 48, "@%ld", line);
    return s;
}

static int emit(struct vw_out *o, const char *callpath, long p, const char *metric, double value)
{
    json_t *line = json_pack("{s:{s:I},s:s,s:s,s:f}", "params", "p", (json_int_t)p, "callpath", callpath,
                             "metric", metric, "value", value);
    if (!line) return -1;
    char *txt = json_dumps(line, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(15));
    json_decref(line);
    if (!txt) return -1;
    vw_puts(o, txt);
    vw_puts(o, "\n");
    free(txt);
    return 0;
}

/* Call path of vertex i ("main->loop->MPI_Allreduce"), memoised in path[]. */
static const char *callpath(const struct vw_report *r, char **path, long *chain, long i)
{
    size_t depth = 0;
    long a = i;
    while (a >= 0 && !path[a] && depth < r->nvert) { chain[depth++] = a; a = r->parent[a]; }
    while (depth-- > 0) {
        long v = chain[depth];
        char *seg = segment(r, v);
        if (!seg) return NULL;
        int p = r->parent[v];
        if (p >= 0 && path[p]) {
            size_t lp = strlen(path[p]), ls = strlen(seg);
            char *s = malloc(lp + ls + 3);
            if (!s) { free(seg); return NULL; }
            memcpy(s, path[p], lp);
            memcpy(s + lp, "->", 2);
            memcpy(s + lp + 2, seg, ls + 1);
            free(seg);
            path[v] = s;
        } else {
            path[v] = seg;
        }
    }
    return path[i];
}

void vw_extrap_write(struct vw_out *o, const struct vw_report *r)
{
    size_t n = r->nvert;
    char **path = calloc(n ? n : 1, sizeof *path);
    long *chain = malloc((n ? n : 1) * sizeof *chain);
    if (!path || !chain) { free(path); free(chain); o->failed = 1; return; }
    /* besides "time", a few series worth a second model; zero counts are left out
     * (the file grows with vertices x depth x counts x metrics) */
    static const struct { const char *key, *metric; int skip_zero; } metrics[] = {
        {"time_mean_seconds", "time_mean", 0},
        {"time_max_seconds", "time_max", 0},
        {"bytes", "bytes", 1},
        {"mpi_calls", "mpi_calls", 1},
    };
    /* Extra-P builds its call tree from the order of the lines: parents first,
     * so walk the tree in pre-order (roots, then children, in index order) */
    long *order = malloc((n ? n : 1) * sizeof *order), *stack = malloc((n ? n : 1) * sizeof *stack);
    size_t norder = 0, sp = 0;
    if (!order || !stack) { free(order); free(stack); free(path); free(chain); o->failed = 1; return; }
    for (size_t root = n; root-- > 0;)
        if (r->parent[root] < 0) stack[sp++] = (long)root;
    while (sp > 0 && norder < n) {
        long v = stack[--sp];
        order[norder++] = v;
        size_t first = sp;
        for (int c = r->children_first[v]; c >= 0; c = r->children_next[c]) stack[sp++] = c;
        for (size_t a = first, b = sp; b > a + 1; a++, b--) { long t = stack[a]; stack[a] = stack[b - 1]; stack[b - 1] = t; }
    }
    for (size_t k = 0; k < norder && !o->failed; k++) {
        size_t i = (size_t)order[k];
        const char *cp = callpath(r, path, chain, (long)i);
        if (!cp) { o->failed = 1; break; }
        const json_t *v = vw_vertex(r, (long)i);
        const char *fitted = vw_str(json_object_get(v, "model"), "metric", "time_max_seconds");
        size_t k;
        const json_t *m;
        json_array_foreach(json_object_get(v, "metrics"), k, m) {
            long p = vw_int(m, "processes", 0);
            const json_t *t = json_object_get(m, fitted);
            /* "time": the series our model was fitted on */
            if (json_is_number(t) && emit(o, cp, p, "time", json_number_value(t)) != 0) o->failed = 1;
            for (size_t q = 0; q < sizeof metrics / sizeof metrics[0]; q++) {
                const json_t *x = json_object_get(m, metrics[q].key);
                if (!json_is_number(x) || !strcmp(metrics[q].key, fitted)) continue;   /* that one is "time" */
                if (metrics[q].skip_zero && json_number_value(x) == 0) continue;
                if (emit(o, cp, p, metrics[q].metric, json_number_value(x)) != 0) o->failed = 1;
            }
        }
    }
    for (size_t i = 0; i < n; i++) free(path[i]);
    free(order);
    free(stack);
    free(path);
    free(chain);
}
