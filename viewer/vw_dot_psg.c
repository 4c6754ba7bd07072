/* vw_dot_psg.c — the program structure graph (psg.dot) as a libcgraph graph:
 * one node per vertex with kind, source line, time and model, coloured by its
 * share of the scaling loss; above the bound it is cut to the root-cause paths,
 * their neighbourhood and the largest losses, the rest folded into "…" nodes. */
#include "vw_graph.h"
#include <stdlib.h>
#include <string.h>
#include <math.h>

static double vertex_time(const json_t *v)
{
    return vw_dbl(vw_metrics_last(v), "time_max_seconds", 0);
}

/* Keep v and its ancestors; returns how many were newly kept. */
static size_t keep_with_ancestors(const struct vw_report *r, unsigned char *keep, long v)
{
    size_t added = 0;
    while (v >= 0 && !keep[v]) {
        keep[v] = 1;
        added++;
        v = r->parent[v];
    }
    return added;
}

struct order { long v; double key; };
static int by_key_desc(const void *a, const void *b)
{
    const struct order *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? 1 : -1;
    return x->v < y->v ? -1 : (x->v > y->v);
}

/* Choose which vertices to lay out: all when they fit, else the root-cause
 * paths (with ancestors), then their children and siblings, then the vertices
 * with the largest scaling loss (then time), each with its ancestors. */
static size_t choose(const struct vw_report *r, unsigned char *keep, size_t max)
{
    size_t n = r->nvert, kept = 0;
    if (n <= max) {
        memset(keep, 1, n);
        return n;
    }
    memset(keep, 0, n);
    for (size_t i = 0; i < n; i++)
        if (r->on_path[i]) kept += keep_with_ancestors(r, keep, (long)i);
    struct order *ord = malloc(n * sizeof *ord);
    if (!ord) return kept;
    /* neighbourhood: children and siblings of path vertices, by time */
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (keep[i]) continue;
        int p = r->parent[i];
        int near = (p >= 0 && r->on_path[p]);
        if (!near && p >= 0)
            for (int s = r->children_first[p]; s >= 0 && !near; s = r->children_next[s])
                if (r->on_path[s]) near = 1;
        if (near) ord[m++] = (struct order){(long)i, vertex_time(vw_vertex(r, (long)i))};
    }
    qsort(ord, m, sizeof *ord, by_key_desc);
    for (size_t k = 0; k < m && kept < max; k++) kept += keep_with_ancestors(r, keep, ord[k].v);
    /* the largest scaling losses, then the largest times */
    m = 0;
    for (size_t i = 0; i < n; i++) {
        if (keep[i]) continue;
        const json_t *v = vw_vertex(r, (long)i);
        double loss = vw_dbl(v, "scaling_loss_seconds", 0);
        ord[m++] = (struct order){(long)i, (loss > 0 ? 1e12 + loss : 0) + vertex_time(v)};
    }
    qsort(ord, m, sizeof *ord, by_key_desc);
    for (size_t k = 0; k < m && kept < max; k++) kept += keep_with_ancestors(r, keep, ord[k].v);
    free(ord);
    return kept;
}

static void node_label(struct vw_out *lab, const struct vw_report *r, const json_t *v)
{
    if (*vw_kind_prefix(v)) {
        vw_label_text(lab, vw_kind_prefix(v), 0);
        vw_puts(lab, " ");
    }
    vw_label_text(lab, vw_str(v, "name", ""), 60);
    const char *op = vw_str(v, "operation", NULL);
    if (op && *op && !strstr(vw_str(v, "name", ""), op)) {
        vw_puts(lab, " (");
        vw_label_text(lab, op, 30);
        vw_puts(lab, ")");
    }
    const char *file = vw_str(v, "file", "");
    if (*file) {
        vw_puts(lab, "\\n");
        vw_label_text(lab, vw_basename(file), 50);
        vw_printf(lab, ":%ld", vw_int(v, "line", 0));
    }
    const json_t *m = vw_metrics_last(v);
    if (m) {
        vw_puts(lab, "\\nt_max ");
        vw_num(lab, vw_dbl(m, "time_max_seconds", 0));
        vw_printf(lab, " s @ %ld p", vw_int(m, "processes", 0));
        double incl = vw_dbl(m, "inclusive_mean_seconds", 0);
        if (incl > vw_dbl(m, "time_max_seconds", 0) * 1.001) {
            vw_puts(lab, ", incl. mean ");
            vw_num(lab, incl);
            vw_puts(lab, " s");
        }
        double imb = vw_dbl(m, "imbalance", 0);
        if (imb > 0) vw_printf(lab, ", imbalance %.2f", imb);
    }
    const json_t *model = json_object_get(v, "model");
    if (json_is_object(model)) {
        vw_puts(lab, "\\nmodel ");
        vw_label_text(lab, vw_str(model, "formula", "?"), 60);
    }
    double loss = vw_dbl(v, "scaling_loss_seconds", NAN);
    double loss_pct = vw_dbl(v, "scaling_loss_percent", NAN);
    /* below 0.1 % of the run a loss is noise on the label */
    if (isfinite(loss) && loss > 0 && !(isfinite(loss_pct) && loss_pct < 0.1)) {
        vw_puts(lab, "\\nscaling loss ");
        vw_num(lab, loss);
        vw_puts(lab, " s");
        double pct = vw_dbl(v, "scaling_loss_percent", NAN);
        if (isfinite(pct)) vw_printf(lab, " (%.1f%%)", pct);
    }
    (void)r;
}

static const char *kind_color(const char *kind)
{
    if (!strcmp(kind, "MPI")) return "#2166ac";
    if (!strcmp(kind, "GPU")) return "#762a83";
    if (!strcmp(kind, "LOOP")) return "#1b7837";
    if (!strcmp(kind, "FUNCTION")) return "#000000";
    if (!strcmp(kind, "DYNAMIC")) return "#8c510a";
    return "#555555";
}

/* The largest scaling loss of a kept vertex (the node colours' scale). */
static double max_kept_loss(const struct vw_report *r, const unsigned char *keep)
{
    double maxloss = 0;
    for (size_t i = 0; i < r->nvert; i++) {
        double l = vw_dbl(vw_vertex(r, (long)i), "scaling_loss_seconds", 0);
        if (keep[i] && l > maxloss) maxloss = l;
    }
    return maxloss;
}

/* The node of kept vertex i: label, tooltip, link to its table row, its
 * loss's colour, its kind's border; root causes and path vertices stand out. */
static Agnode_t *psg_node(Agraph_t *g, const struct vw_report *r, size_t i, double maxloss, struct vw_out *lab)
{
    char name[64], buf[64];
    const json_t *v = vw_vertex(r, (long)i);
    snprintf(name, sizeof name, "v%zu", i);
    Agnode_t *nd = agnode(g, name, 1);
    lab->len = 0;
    if (lab->buf) lab->buf[0] = '\0';
    node_label(lab, r, v);
    vw_gset(nd, "label", lab->buf ? lab->buf : "");
    lab->len = 0;
    vw_label_text(lab, vw_str(v, "name", ""), 0);
    if (*vw_str(v, "file", "")) {
        vw_puts(lab, " — ");
        vw_label_text(lab, vw_str(v, "file", ""), 0);
        vw_printf(lab, ":%ld", vw_int(v, "line", 0));
    } else {
        vw_puts(lab, " (no source line)"); /* a build without -g */
    }
    vw_gset(nd, "tooltip", lab->buf ? lab->buf : "");
    snprintf(buf, sizeof buf, "#vrow-%zu", i);
    vw_gset(nd, "URL", buf);
    snprintf(buf, sizeof buf, "psg-v%zu", i);
    vw_gset(nd, "id", buf);
    const char *kind = vw_str(v, "kind", "");
    double loss = vw_dbl(v, "scaling_loss_seconds", 0);
    int dark = 0;
    char col[8];
    vw_loss_color(maxloss > 0 ? loss / maxloss : 0, col, &dark);
    vw_gset(nd, "fillcolor", col);
    if (dark) vw_gset(nd, "fontcolor", "#ffffff");
    vw_gset(nd, "color", kind_color(kind));
    if (!strcmp(kind, "LOOP")) vw_gset(nd, "style", "filled,rounded");
    if (vw_has_flag(v, "root_cause")) {
        vw_gset(nd, "penwidth", "3");
        vw_gset(nd, "color", "#b2182b");
    } else if (r->on_path[i]) {
        vw_gset(nd, "penwidth", "2");
    }
    return nd;
}

/* The "…" node of the cnt vertices (t_max summing tsum) folded below kept
 * vertex s (s == nvert: below no kept vertex, the dropped roots). */
static void folded_node(Agraph_t *g, const struct vw_report *r, Agnode_t **node, size_t s, size_t cnt,
                        double tsum, struct vw_out *lab)
{
    char name[64], buf[64];
    snprintf(name, sizeof name, "folded_%zu", s);
    Agnode_t *f = agnode(g, name, 1);
    lab->len = 0;
    vw_printf(lab, "\xE2\x80\xA6 %zu more vertices\\nt_max sum ", cnt);
    vw_num(lab, tsum);
    vw_puts(lab, " s");
    vw_gset(f, "label", lab->buf);
    vw_gset(f, "shape", "note");
    vw_gset(f, "style", "dashed");
    vw_gset(f, "fontcolor", "#555555");
    snprintf(buf, sizeof buf, "psg-folded-%zu", s);
    vw_gset(f, "id", buf);
    if (s < r->nvert) {
        Agedge_t *e = agedge(g, node[s], f, NULL, 1);
        snprintf(buf, sizeof buf, "psg-fe%zu", s);
        if (e) { vw_gset(e, "style", "dashed"); vw_gset(e, "id", buf); }
    }
}

/* Folds what was left out: one "…" node per kept parent, one for dropped
 * roots, and the graph's note saying so (*note, malloc'ed).  0, or -1
 * without memory. */
static int fold_dropped(Agraph_t *g, const struct vw_report *r, const unsigned char *keep, Agnode_t **node,
                        size_t kept, struct vw_out *lab, char **note)
{
    size_t n = r->nvert, folded_total = 0;
    size_t *cnt = calloc(n + 1, sizeof *cnt);
    double *tsum = calloc(n + 1, sizeof *tsum);
    if (!cnt || !tsum) { free(cnt); free(tsum); return -1; }
    for (size_t i = 0; i < n; i++) {
        if (keep[i]) continue;
        long a = r->parent[i];
        while (a >= 0 && !keep[a]) a = r->parent[a];
        size_t slot = a >= 0 ? (size_t)a : n;
        cnt[slot]++;
        tsum[slot] += vertex_time(vw_vertex(r, (long)i));
        folded_total++;
    }
    for (size_t s = 0; s <= n; s++)
        if (cnt[s]) folded_node(g, r, node, s, cnt[s], tsum[s], lab);
    free(cnt);
    free(tsum);
    lab->len = 0;
    vw_printf(lab, "Showing %zu of %zu vertices: the root-cause paths with their neighbourhood "
                   "and the largest scaling losses; %zu vertices are folded into the "
                   "\xE2\x80\xA6 nodes (all are in report.json and the vertex table).",
              kept, n, folded_total);
    *note = strdup(lab->buf ? lab->buf : "");
    vw_gset(g, "label", lab->buf);
    vw_gset(g, "labelloc", "t");
    return 0;
}

vw_graph *vw_psg_graph(const struct vw_report *r, size_t max, char **note)
{
    *note = NULL;
    if (max == 0) max = SCALANA_VIEWER_DEFAULT_MAX_GRAPH_VERTICES;
    Agraph_t *g = vw_graph_open("psg", "psg-graph", "filled");
    if (!g) return NULL;
    agattr(g, AGEDGE, "arrowsize", "0.6");

    size_t n = r->nvert;
    unsigned char *keep = calloc(n ? n : 1, 1);
    Agnode_t **node = calloc(n ? n : 1, sizeof *node);
    struct vw_out lab;
    vw_out_init_mem(&lab);
    if (!keep || !node) goto fail;
    size_t kept = choose(r, keep, max);

    double maxloss = max_kept_loss(r, keep);
    for (size_t i = 0; i < n; i++)
        if (keep[i]) node[i] = psg_node(g, r, i, maxloss, &lab);
    char buf[64];
    for (size_t i = 0; i < n; i++) {
        int p = r->parent[i];
        if (keep[i] && p >= 0 && node[p]) {
            Agedge_t *e = agedge(g, node[p], node[i], NULL, 1);
            snprintf(buf, sizeof buf, "psg-e%zu", i);
            if (e) vw_gset(e, "id", buf);
        }
    }
    if (kept < n && fold_dropped(g, r, keep, node, kept, &lab, note) != 0) goto fail;
    vw_out_free(&lab);
    free(keep);
    free(node);
    return g;
fail:
    vw_out_free(&lab);
    free(keep);
    free(node);
    agclose(g);
    return NULL;
}
