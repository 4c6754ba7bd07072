/* vw_caliper.c — caliper/scalana-<P>p.json: one profile per measured process
 * count in Caliper's JSON ("json-split") form, the form that Hatchet's
 * GraphFrame.from_caliper and Thicket's Thicket.from_caliper read as they
 * are.  Each file holds that run's calling-context tree (the report's
 * vertices present at that count), exclusive and inclusive seconds per node
 * and world rank, and the run's metadata as top-level keys (docs/viewer.md). */
#include "vw_internal.h"
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CALI_DIR "caliper"

/* s as a JSON string literal (jansson's escaping). */
static void put_string(struct vw_out *o, const char *s)
{
    json_t *j = json_string(s);
    char *txt = j ? json_dumps(j, JSON_ENCODE_ANY | JSON_ENSURE_ASCII) : NULL;
    json_decref(j);
    vw_puts(o, txt ? txt : "\"?\"");
    free(txt);
}

/* The metrics entry of vertex v at process count p, or NULL. */
static const json_t *metrics_at(const json_t *v, long p)
{
    size_t k;
    const json_t *m;
    json_array_foreach(json_object_get(v, "metrics"), k, m)
        if (vw_int(m, "processes", 0) == p) return m;
    return NULL;
}

/* Metadata of the run: Caliper/Adiak names where they exist (mpi.world.size,
 * jobsize, executable, executablepath, cmdline, launchdate), ScalAna's under
 * "scalana.".  The command and date come from the run's run.json when its
 * directory is still there. */
static void put_metadata(struct vw_out *o, const struct vw_report *r, const json_t *run, long p, int per_process)
{
    const json_t *prog = json_object_get(r->root, "program");
    const char *exe = vw_str(prog, "executable", "");
    const char *base = strrchr(exe, '/');
    base = base ? base + 1 : exe;
    vw_printf(o, ",\n\"mpi.world.size\":%ld,\"jobsize\":%ld", p, p);
    vw_puts(o, ",\n\"executable\":");
    put_string(o, base);
    vw_puts(o, ",\"executablepath\":");
    put_string(o, exe);
    const json_t *dirs = json_object_get(run, "directories");
    const char *dir = json_string_value(json_array_get(dirs, 0));
    json_t *info = NULL;
    if (dir) {
        char path[4096];
        if ((size_t)snprintf(path, sizeof path, "%s/run.json", dir) < sizeof path)
            info = json_load_file(path, 0, NULL);
    }
    const json_t *cmd = json_object_get(info, "command");
    if (json_is_array(cmd) && json_array_size(cmd)) {
        size_t len = 1, k;
        const json_t *a;
        json_array_foreach(cmd, k, a) len += strlen(json_is_string(a) ? json_string_value(a) : "") + 1;
        char *line = malloc(len);
        if (line) {
            line[0] = 0;
            json_array_foreach(cmd, k, a) {
                if (k) strcat(line, " ");
                strcat(line, json_is_string(a) ? json_string_value(a) : "");
            }
            vw_puts(o, ",\n\"cmdline\":");
            put_string(o, line);
            free(line);
        } else {
            o->failed = 1;
        }
    }
    const json_t *start = json_object_get(info, "start_realtime_ns");
    if (json_is_integer(start) && json_integer_value(start) > 0)
        vw_printf(o, ",\n\"launchdate\":%lld", (long long)(json_integer_value(start) / 1000000000));
    if (json_is_string(json_object_get(info, "start_time"))) {
        vw_puts(o, ",\"scalana.start_time\":");
        put_string(o, json_string_value(json_object_get(info, "start_time")));
    }
    json_decref(info);
    vw_puts(o, ",\n\"scalana.version\":");
    put_string(o, vw_str(json_object_get(r->root, "tool"), "version", ""));
    vw_puts(o, ",\"scalana.build_id\":");
    put_string(o, vw_str(prog, "build_id", ""));
    vw_puts(o, ",\"scalana.scaling\":");
    put_string(o, vw_str(r->root, "scaling", "strong"));
    vw_printf(o, ",\n\"scalana.wall_seconds\":%.9g,\"scalana.repetitions\":%zu",
              vw_dbl(run, "wall_seconds", 0), json_array_size(dirs));
    vw_puts(o, ",\"scalana.sampler\":");
    put_string(o, vw_str(run, "sampler", "none"));
    if (dir) {
        vw_puts(o, ",\"scalana.run_directory\":");
        put_string(o, dir);
    }
    vw_printf(o, ",\n\"scalana.time_unit\":\"seconds\",\"scalana.rank\":\"world\",\"scalana.per_process\":%s",
              per_process ? "true" : "false");
}

/* The tree of one process count's profile: the vertices measured at p in
 * pre-order, and their times per process (or means). */
struct cal_tree {
    size_t norder;      /* vertices measured at p */
    size_t ranks;       /* columns of excl/incl: p per process, else 1 (means) */
    int per_process;
    long *order;        /* node k's vertex */
    long *node;         /* vertex i's node, -1 when not measured */
    long *parent_node;  /* node k's parent node, -1 for roots */
    const json_t **m;   /* vertex i's metrics at p, NULL when not measured */
    double *excl, *incl; /* [k * ranks + q] */
};

/* The vertices measured at p, parents first (pre-order, siblings in report
 * order); a vertex whose parent was not measured at p hangs under its
 * nearest measured ancestor.  stack: nvert entries of scratch. */
static void cal_preorder(const struct vw_report *r, long p, struct cal_tree *c, long *stack)
{
    c->per_process = 1;
    for (size_t i = 0; i < r->nvert; i++) c->node[i] = -1;
    for (size_t i = 0; i < r->nvert; i++) {
        c->m[i] = metrics_at(vw_vertex(r, (long)i), p);
        if (c->m[i] && json_array_size(json_object_get(c->m[i], "per_process_seconds")) != (size_t)p)
            c->per_process = 0;
    }
    size_t norder = 0, sp = 0;
    for (size_t root = r->nvert; root-- > 0;)
        if (r->parent[root] < 0) stack[sp++] = (long)root;
    while (sp > 0 && norder < r->nvert) {
        long v = stack[--sp];
        if (c->m[v]) c->node[v] = (long)norder, c->order[norder++] = v;
        size_t first = sp;
        for (int ch = r->children_first[v]; ch >= 0; ch = r->children_next[ch]) stack[sp++] = ch;
        for (size_t a = first, b = sp; b > a + 1; a++, b--) { long t = stack[a]; stack[a] = stack[b - 1]; stack[b - 1] = t; }
    }
    c->norder = norder;
    c->ranks = c->per_process ? (size_t)p : 1;
}

/* Exclusive and inclusive times of every node: per process, inclusive =
 * exclusive + the children's inclusive (the analyzer's rule; the report
 * keeps only the exclusive time per process); means: the report's
 * inclusive mean, else the same rule over means.  0, or -1 without memory. */
static int cal_times(const struct vw_report *r, struct cal_tree *c)
{
    size_t norder = c->norder, ranks = c->ranks;
    c->excl = calloc(norder * ranks + 1, sizeof *c->excl);
    c->incl = calloc(norder * ranks + 1, sizeof *c->incl);
    if (!c->excl || !c->incl) return -1;
    double *excl = c->excl, *incl = c->incl;
    for (size_t k = 0; k < norder; k++) {
        const json_t *pp = json_object_get(c->m[c->order[k]], "per_process_seconds");
        for (size_t q = 0; q < ranks; q++)
            excl[k * ranks + q] = c->per_process ? json_number_value(json_array_get(pp, q))
                                                 : vw_dbl(c->m[c->order[k]], "time_mean_seconds", 0);
        if (!c->per_process) incl[k] = vw_dbl(c->m[c->order[k]], "inclusive_mean_seconds", -1);
    }
    for (size_t k = 0; k < norder; k++) {
        long a = r->parent[c->order[k]];
        while (a >= 0 && c->node[a] < 0) a = r->parent[a];
        c->parent_node[k] = a >= 0 ? c->node[a] : -1;
    }
    const long *parent_node = c->parent_node;
    if (c->per_process) {
        for (size_t k = norder; k-- > 0;) {
            for (size_t q = 0; q < ranks; q++) incl[k * ranks + q] += excl[k * ranks + q];
            if (parent_node[k] >= 0)
                for (size_t q = 0; q < ranks; q++) incl[(size_t)parent_node[k] * ranks + q] += incl[k * ranks + q];
        }
        return 0;
    }
    double *below = calloc(norder + 1, sizeof *below);
    if (!below) return -1;
    for (size_t k = norder; k-- > 0;) {
        if (incl[k] < 0) incl[k] = excl[k] + below[k];
        if (parent_node[k] >= 0) below[parent_node[k]] += incl[k];
    }
    free(below);
    return 0;
}

/* The kinds of column scalana.kind, "?" last for any other. */
static const char *const cal_kinds[] = {"FUNCTION", "LOOP", "BRANCH", "CALL", "CALL_INDIRECT", "CALL_RECURSIVE",
                                        "MPI", "GPU", "COMPUTE", "DYNAMIC", "?"};
#define CAL_NKINDS (sizeof cal_kinds / sizeof cal_kinds[0])

/* "data", "columns" and "column_metadata": one row per node (and process). */
static void cal_put_data(struct vw_out *o, const struct vw_report *r, const struct cal_tree *c)
{
    size_t norder = c->norder, ranks = c->ranks;
    int per_process = c->per_process;
    vw_puts(o, "{\n\"data\":[");
    for (size_t k = 0; k < norder; k++) {
        const char *kind = vw_str(vw_vertex(r, c->order[k]), "kind", "?");
        size_t ki = 0;
        while (ki + 1 < CAL_NKINDS && strcmp(cal_kinds[ki], kind)) ki++;
        for (size_t q = 0; q < ranks; q++) {
            vw_printf(o, "%s\n[%zu,", k || q ? "," : "", k);
            if (per_process) vw_printf(o, "%zu,", q);
            vw_printf(o, "%.9g,%.9g,%zu,%zu,%zu]", c->excl[k * ranks + q], c->incl[k * ranks + q], norder + k,
                      2 * norder + k, 3 * norder + ki);
        }
    }
    vw_puts(o, "],\n\"columns\":[\"path\",");
    if (per_process) vw_puts(o, "\"mpi.rank\",");
    vw_puts(o, "\"sum#time.duration\",\"inclusive#sum#time.duration\",\"scalana.vertex\",\"source.location\","
               "\"scalana.kind\"],\n\"column_metadata\":[{\"is_value\":false},");
    if (per_process) vw_puts(o, "{\"is_value\":true},");
    vw_puts(o, "{\"is_value\":true,\"attribute.unit\":\"sec\"},{\"is_value\":true,\"attribute.unit\":\"sec\"},"
               "{\"is_value\":false},{\"is_value\":false},{\"is_value\":false}],\n\"nodes\":[");
}

/* "nodes": the tree (column "path"), then one entry per vertex for the
 * columns scalana.vertex and source.location, one per kind. */
static void cal_put_nodes(struct vw_out *o, const struct vw_report *r, char *const *labels, const struct cal_tree *c)
{
    size_t norder = c->norder;
    char buf[1024];
    for (size_t k = 0; k < norder; k++) {
        vw_puts(o, k ? ",\n{\"label\":" : "\n{\"label\":");
        put_string(o, labels[c->order[k]]);
        vw_puts(o, ",\"column\":\"path\"");
        if (c->parent_node[k] >= 0) vw_printf(o, ",\"parent\":%ld", c->parent_node[k]);
        vw_puts(o, "}");
    }
    for (size_t k = 0; k < norder; k++)
        vw_printf(o, "%s\n{\"label\":\"%ld\",\"column\":\"scalana.vertex\"}", norder ? "," : "", c->order[k]);
    for (size_t k = 0; k < norder; k++) {
        const json_t *v = vw_vertex(r, c->order[k]);
        long line = vw_int(v, "line", 0), last = vw_int(v, "last_line", line);
        if (last > line) snprintf(buf, sizeof buf, "%s:%ld-%ld", vw_str(v, "file", "?"), line, last);
        else snprintf(buf, sizeof buf, "%s:%ld", vw_str(v, "file", "?"), line);
        vw_puts(o, ",\n{\"label\":");
        put_string(o, buf);
        vw_puts(o, ",\"column\":\"source.location\"}");
    }
    for (size_t ki = 0; ki < CAL_NKINDS; ki++)
        vw_printf(o, "%s\n{\"label\":\"%s\",\"column\":\"scalana.kind\"}", norder || ki ? "," : "", cal_kinds[ki]);
    vw_puts(o, "]");
}

/* Writes the profile of process count p (runs[] entry run) to o; labels[i]
 * is vertex i's node label. */
static void write_run(struct vw_out *o, const struct vw_report *r, char *const *labels, const json_t *run, long p)
{
    size_t n = r->nvert ? r->nvert : 1;
    struct cal_tree c = {0};
    long *stack = malloc(n * sizeof *stack);
    c.order = malloc(n * sizeof *c.order), c.node = malloc(n * sizeof *c.node);
    c.m = calloc(n, sizeof *c.m);
    if (!c.order || !stack || !c.node || !c.m) goto oom;
    cal_preorder(r, p, &c, stack);
    c.parent_node = stack; /* reused: node index of each node's parent, -1 for roots */
    if (cal_times(r, &c) != 0) goto oom;
    cal_put_data(o, r, &c);
    cal_put_nodes(o, r, labels, &c);
    put_metadata(o, r, run, p, c.per_process);
    vw_puts(o, "\n}\n");
    goto out;
oom:
    o->failed = 1;
out:
    free(c.order), free(stack), free(c.node), free(c.m), free(c.excl), free(c.incl);
}

/* scalana-<P>p.json, or 0 when name is not of that form. */
static long file_count(const char *name)
{
    long p = 0;
    int end = 0;
    if (strncmp(name, "scalana-", 8) || !(name[8] >= '1' && name[8] <= '9')) return 0;
    if (sscanf(name, "scalana-%ldp.json%n", &p, &end) != 1 || name[end] || end == 0) return 0;
    return p;
}

int vw_caliper_write(const struct vw_write_ctx *c, char *err, size_t errlen)
{
    const struct vw_report *r = c->r;
    const char *out_dir = c->out_dir;
    char dir[4096], path[4096];
    if ((size_t)snprintf(dir, sizeof dir, "%s/%s", out_dir, CALI_DIR) >= sizeof dir - 32) {
        vw_seterr(err, errlen, "output path too long: %s/%s", out_dir, CALI_DIR);
        return -1;
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        vw_seterr(err, errlen, "cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    /* a file of a count this report does not have is an earlier analysis's:
     * Thicket reads every file of the directory, so it goes */
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        long p = file_count(e->d_name);
        if (!p) continue;
        int keep = 0;
        size_t i;
        const json_t *run;
        json_array_foreach(r->runs, i, run) keep |= vw_int(run, "processes", 0) == p;
        if (!keep && (size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < sizeof path) unlink(path);
    }
    if (d) closedir(d);
    /* the labels of extrap.jsonl's call paths (Hatchet, like Extra-P, matches
     * nodes of two profiles by their label under the same parent) */
    char **labels = vw_node_labels(r);
    int rc = -1;
    if (!labels) { vw_seterr(err, errlen, "out of memory writing %s", dir); return -1; }
    size_t i;
    const json_t *run;
    json_array_foreach(r->runs, i, run) {
        long p = vw_int(run, "processes", 0);
        if (p <= 0) continue;
        if ((size_t)snprintf(path, sizeof path, "%s/scalana-%ldp.json", dir, p) >= sizeof path) {
            vw_seterr(err, errlen, "output path too long: %s", dir);
            goto out;
        }
        FILE *fp = fopen(path, "w");
        if (!fp) {
            vw_seterr(err, errlen, "cannot create %s: %s", path, strerror(errno));
            goto out;
        }
        struct vw_out o;
        vw_out_init_file(&o, fp);
        write_run(&o, r, labels, run, p);
        int failed = vw_out_error(&o);
        errno = 0;
        if (fclose(fp) != 0 || failed) {
            vw_seterr(err, errlen, "cannot write %s: %s", path, errno ? strerror(errno) : "write or allocation failed");
            goto out;
        }
    }
    rc = 0;
out:
    vw_node_labels_free(labels, r->nvert);
    return rc;
}
