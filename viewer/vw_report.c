/* vw_report.c — read-only accessors over report.json (docs/report.schema.json):
 * lookups with defaults, the vertex tree, the set of vertices on root-cause paths. */
#include "vw_internal.h"
#include <stdlib.h>
#include <string.h>

const char *vw_str(const json_t *obj, const char *key, const char *dflt)
{
    const json_t *v = obj ? json_object_get(obj, key) : NULL;
    return json_is_string(v) ? json_string_value(v) : dflt;
}

double vw_dbl(const json_t *obj, const char *key, double dflt)
{
    const json_t *v = obj ? json_object_get(obj, key) : NULL;
    return json_is_number(v) ? json_number_value(v) : dflt;
}

long vw_int(const json_t *obj, const char *key, long dflt)
{
    const json_t *v = obj ? json_object_get(obj, key) : NULL;
    if (json_is_integer(v)) return (long)json_integer_value(v);
    if (json_is_real(v)) return (long)json_real_value(v);
    return dflt;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

size_t vw_ranges(long *v, size_t n, size_t max_ranges, char *buf, size_t len)
{
    if (len) buf[0] = 0;
    qsort(v, n, sizeof *v, cmp_long);
    size_t used = 0, ranges = 0, distinct = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && (v[j + 1] == v[j] || v[j + 1] == v[j] + 1)) j++;
        for (size_t k = i; k <= j; k++) distinct += k == i || v[k] != v[k - 1];
        if (ranges++ < max_ranges && used < len) {
            int w = v[j] > v[i] ? snprintf(buf + used, len - used, "%s%ld-%ld", used ? ", " : "", v[i], v[j])
                                : snprintf(buf + used, len - used, "%s%ld", used ? ", " : "", v[i]);
            if (w > 0) used += (size_t)w;
        } else if (ranges == max_ranges + 1 && used < len) {
            int w = snprintf(buf + used, len - used, ", ...");
            if (w > 0) used += (size_t)w;
        }
        i = j + 1;
    }
    return distinct;
}

size_t vw_int_ranges(const json_t *arr, char *buf, size_t len)
{
    size_t n = json_array_size(arr), i, k = 0;
    long *v = malloc((n + 1) * sizeof *v);
    if (!v) abort();
    const json_t *x;
    json_array_foreach(arr, i, x) if (json_is_integer(x)) v[k++] = (long)json_integer_value(x);
    size_t d = vw_ranges(v, k, VW_RANGES_MAX, buf, len);
    free(v);
    return d;
}

const json_t *vw_vertex(const struct vw_report *r, long i)
{
    if (i < 0 || (size_t)i >= r->nvert) return NULL;
    return json_array_get(r->vertices, (size_t)i);
}

const json_t *vw_metrics_at(const json_t *v, long processes)
{
    size_t i;
    const json_t *m;
    json_array_foreach(json_object_get(v, "metrics"), i, m)
        if (vw_int(m, "processes", 0) == processes) return m;
    return NULL;
}

const json_t *vw_metrics_last(const json_t *v)
{
    const json_t *ms = json_object_get(v, "metrics");
    const json_t *best = NULL;
    long bestp = -1;
    size_t i;
    const json_t *m;
    json_array_foreach(ms, i, m) {
        long p = vw_int(m, "processes", 0);
        if (p > bestp) { bestp = p; best = m; }
    }
    return best;
}

int vw_has_flag(const json_t *v, const char *flag)
{
    size_t i;
    const json_t *f;
    json_array_foreach(json_object_get(v, "flags"), i, f)
        if (json_is_string(f) && strcmp(json_string_value(f), flag) == 0) return 1;
    return 0;
}

const char *vw_kind_prefix(const json_t *v)
{
    const char *kind = vw_str(v, "kind", "");
    const char *name = vw_str(v, "name", "");
    size_t n = strlen(kind);
    if (n && strncmp(name, kind, n) == 0 && (name[n] == ' ' || name[n] == 0)) return "";
    return kind;
}

/* The categories: include/scalana/categories.def (one list for the
 * analyzer, the viewer, --help and the schema); NULL for an unknown name. */
static const struct vw_category { const char *key, *title, *remedy; } *find_category(const char *c)
{
    static const struct vw_category t[] = {
#define SCALANA_CATEGORY(e, name, label, remedy) {name, label, remedy},
#include "scalana/categories.def"
#undef SCALANA_CATEGORY
    };
    if (c)
        for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
            if (strcmp(c, t[i].key) == 0) return &t[i];
    return NULL;
}

const char *vw_category_title(const char *c)
{
    const struct vw_category *k = find_category(c);
    return k ? k->title : c ? c : "unknown";
}

const char *vw_category_remedy(const char *c)
{
    const struct vw_category *k = find_category(c);
    return k ? k->remedy : "";
}

static const json_t *empty_array(void)
{
    static json_t *e;   /* one shared, never freed, never modified */
    if (!e) e = json_array();
    return e;
}

int vw_report_open(struct vw_report *r, const json_t *report, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    if (!json_is_object(report)) {
        vw_seterr(err, errlen, "report is not a JSON object");
        return -1;
    }
    r->root = report;
    r->vertices = json_object_get(report, "vertices");
    r->root_causes = json_object_get(report, "root_causes");
    r->runs = json_object_get(report, "runs");
    if (!json_is_array(r->vertices)) r->vertices = empty_array();
    if (!json_is_array(r->root_causes)) r->root_causes = empty_array();
    if (!json_is_array(r->runs)) r->runs = empty_array();
    if (!r->vertices || !r->root_causes || !r->runs) {
        vw_seterr(err, errlen, "out of memory");
        return -1;
    }
    r->nvert = json_array_size(r->vertices);
    size_t i;
    const json_t *run;
    json_array_foreach(r->runs, i, run) {
        long p = vw_int(run, "processes", 0);
        if (p > r->largest_processes) {
            r->largest_processes = (int)p;
            r->largest_wall = vw_dbl(run, "wall_seconds", 0);
        }
    }
    size_t n = r->nvert ? r->nvert : 1;
    r->on_path = calloc(n, 1);
    r->children_first = malloc(n * sizeof(int));
    r->children_next = malloc(n * sizeof(int));
    r->parent = malloc(n * sizeof(int));
    if (!r->on_path || !r->children_first || !r->children_next || !r->parent) {
        vw_report_close(r);
        vw_seterr(err, errlen, "out of memory");
        return -1;
    }
    for (i = 0; i < r->nvert; i++) {
        r->children_first[i] = r->children_next[i] = -1;
        const json_t *p = json_object_get(json_array_get(r->vertices, i), "parent");
        long pi = json_is_integer(p) ? (long)json_integer_value(p) : -1;
        /* a parent must be a valid, different vertex; cycles are cut below */
        r->parent[i] = (pi >= 0 && (size_t)pi < r->nvert && (size_t)pi != i) ? (int)pi : -1;
    }
    /* break parent cycles (a malformed report must not hang us): walk up at most nvert steps */
    for (i = 0; i < r->nvert; i++) {
        long cur = r->parent[i];
        size_t steps = 0;
        while (cur >= 0 && steps <= r->nvert) { cur = r->parent[cur]; steps++; }
        if (steps > r->nvert) r->parent[i] = -1;
    }
    /* children in order of index (= program order for the analyzer's numbering) */
    for (size_t k = r->nvert; k-- > 0;) {
        int p = r->parent[k];
        if (p >= 0) { r->children_next[k] = r->children_first[p]; r->children_first[p] = (int)k; }
    }
    const json_t *rc;
    json_array_foreach(r->root_causes, i, rc) {
        long v = vw_int(rc, "vertex", -1);
        if (v >= 0 && (size_t)v < r->nvert) r->on_path[v] = 1;
        size_t k;
        const json_t *st;
        json_array_foreach(json_object_get(rc, "path"), k, st) {
            long sv = vw_int(st, "vertex", -1);
            if (sv >= 0 && (size_t)sv < r->nvert) r->on_path[sv] = 1;
        }
    }
    return 0;
}

void vw_report_close(struct vw_report *r)
{
    free(r->on_path);
    free(r->children_first);
    free(r->children_next);
    free(r->parent);
    r->on_path = NULL;
    r->children_first = r->children_next = r->parent = NULL;
}
