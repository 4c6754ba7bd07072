/* vw_dot_path.c — one root cause's backtracking path (rootcause-N.dot) as a
 * libcgraph graph: a cluster per process, control-flow edges inside clusters,
 * communication/collective edges between them, drawn in causal direction
 * (from the root towards the symptom); the root highlighted. */
#include "vw_graph.h"
#include <stdlib.h>
#include <string.h>
#include <math.h>

/* The cluster of process proc, made on first use.  Open defect: libcgraph
 * writes a graph's clusters in the order of IDs that depend on memory
 * addresses, so their order in rootcause-N.dot (and the SVG) can change with
 * the output directory's name or the viewer's build; their contents do not. */
static Agraph_t *cluster_for(Agraph_t *g, long proc)
{
    char name[64], label[64], id[128];
    snprintf(name, sizeof name, "cluster_rank%ld", proc);
    Agraph_t *c = agsubg(g, name, 0);
    if (c) return c;
    c = agsubg(g, name, 1);
    if (!c) return NULL;
    if (proc >= 0) snprintf(label, sizeof label, "rank %ld", proc);
    else snprintf(label, sizeof label, "all ranks");
    vw_gset(c, "label", label);
    snprintf(id, sizeof id, "%s-rank%ld", agnameof(g), proc);
    vw_gset(c, "id", id);
    vw_gset(c, "style", "rounded,filled");
    vw_gset(c, "fillcolor", "#f7f7f7");
    vw_gset(c, "color", "#999999");
    return c;
}

static const char *edge_style(const char *kind, const char **color)
{
    *color = "#333333";
    if (!strcmp(kind, "communication")) { *color = "#d6604d"; return "bold"; }
    if (!strcmp(kind, "collective")) { *color = "#b2182b"; return "bold,dashed"; }
    if (!strcmp(kind, "loop_back")) return "dotted";
    if (!strcmp(kind, "call") || !strcmp(kind, "return")) { *color = "#2166ac"; return "solid"; }
    return "solid";
}

/* The label of path step st at vertex v: kind and name, file:line, the
 * wait, the step's own label when it says more than the name. */
static void step_label(struct vw_out *lab, const json_t *st, const json_t *v)
{
    lab->len = 0;
    if (*vw_kind_prefix(v)) {
        vw_label_text(lab, vw_kind_prefix(v), 0);
        vw_puts(lab, " ");
    }
    vw_label_text(lab, vw_str(v, "name", "?"), 60);
    vw_puts(lab, "\\n");
    const char *file = vw_str(st, "file", vw_str(v, "file", ""));
    if (*file) {
        vw_label_text(lab, vw_basename(file), 50);
        vw_printf(lab, ":%ld", vw_int(st, "line", vw_int(v, "line", 0)));
    } else {
        vw_puts(lab, "(no source line)");
    }
    double w = vw_dbl(st, "wait_seconds", NAN);
    if (isfinite(w) && w > 0) {
        vw_puts(lab, "\\nwaits ");
        vw_num(lab, w);
        vw_puts(lab, " s");
    }
    const char *sl = vw_str(st, "label", NULL);
    if (sl && *sl && strcmp(sl, vw_str(v, "name", "")) != 0) {
        vw_puts(lab, "\\n");
        vw_label_text(lab, sl, 80);
    }
}

/* The edge from step nd (earlier cause) to the previous step prev, styled
 * by the step's edge kind. */
static void link_steps(Agraph_t *g, Agnode_t *nd, Agnode_t *prev, const char *kind, const char *gname, size_t k)
{
    Agedge_t *e = agedge(g, nd, prev, NULL, 1);
    if (!e) return;
    const char *color;
    vw_gset(e, "style", edge_style(kind, &color));
    vw_gset(e, "color", color);
    /* "root"/"symptom" mark the ends, not a kind of edge */
    int plain = !strcmp(kind, "root") || !strcmp(kind, "symptom");
    vw_gset(e, "label", plain ? "" : kind);
    vw_gset(e, "fontcolor", color);
    char eid[96];
    snprintf(eid, sizeof eid, "%s-e%zu", gname, k);
    vw_gset(e, "id", eid);
}

/* The first shown steps of rc's path, each a node in its process's cluster,
 * linked in causal direction. */
static void path_steps(Agraph_t *g, const struct vw_report *r, const json_t *path, size_t shown,
                       const char *gname, struct vw_out *lab)
{
    Agnode_t *prev = NULL;
    char name[96];
    for (size_t k = 0; k < shown; k++) {
        const json_t *st = json_array_get(path, k);
        long vi = vw_int(st, "vertex", -1);
        long proc = vw_int(st, "process", -1);
        const char *kind = vw_str(st, "edge", "control");
        const json_t *v = vw_vertex(r, vi);
        Agraph_t *c = cluster_for(g, proc);
        if (!c) break;
        snprintf(name, sizeof name, "r%ld_v%ld", proc, vi);
        Agnode_t *nd = agnode(g, name, 0);
        if (!nd) {
            nd = agnode(c, name, 1);
            step_label(lab, st, v);
            vw_gset(nd, "label", lab->buf);
            char idbuf[96];
            snprintf(idbuf, sizeof idbuf, "%s-step%zu", gname, k);
            vw_gset(nd, "id", idbuf);
        }
        if (!strcmp(kind, "root")) {
            vw_gset(nd, "fillcolor", "#b2182b");
            vw_gset(nd, "fontcolor", "#ffffff");
            vw_gset(nd, "penwidth", "3");
        } else if (!strcmp(kind, "symptom")) {
            vw_gset(nd, "fillcolor", "#fdae61");
        }
        /* causal direction: from this step (earlier cause) to the previous one */
        if (prev && prev != nd) link_steps(g, nd, prev, kind, gname, k);
        prev = nd;
    }
}

/* No path recorded: the cause is its own symptom, one node. */
static void lone_cause(Agraph_t *g, const struct vw_report *r, const json_t *rc, const char *gname,
                       struct vw_out *lab)
{
    long vi = vw_int(rc, "vertex", -1);
    const json_t *v = vw_vertex(r, vi);
    const json_t *procs = json_object_get(rc, "processes");
    long proc = json_array_size(procs) == 1 ? (long)json_integer_value(json_array_get(procs, 0)) : -1;
    Agraph_t *c = cluster_for(g, proc);
    if (!c) return;
    char name[96];
    snprintf(name, sizeof name, "r%ld_v%ld", proc, vi);
    Agnode_t *nd = agnode(c, name, 1);
    lab->len = 0;
    vw_label_text(lab, vw_str(v, "name", vw_str(rc, "function", "?")), 60);
    vw_puts(lab, "\\n");
    if (*vw_str(rc, "file", "")) {
        vw_label_text(lab, vw_basename(vw_str(rc, "file", "")), 50);
        vw_printf(lab, ":%ld", vw_int(rc, "line", 0));
    } else {
        vw_puts(lab, "(no source line)");
    }
    vw_gset(nd, "label", lab->buf);
    vw_gset(nd, "fillcolor", "#b2182b");
    vw_gset(nd, "fontcolor", "#ffffff");
    vw_gset(nd, "penwidth", "3");
    char idbuf[96];
    snprintf(idbuf, sizeof idbuf, "%s-root", gname);
    vw_gset(nd, "id", idbuf);
}

/* The graph's title: the cause, where, its cost, and how much of the path is shown. */
static void cause_title(Agraph_t *g, const json_t *rc, size_t shown, size_t nsteps, struct vw_out *lab)
{
    lab->len = 0;
    vw_printf(lab, "Root cause #%ld: ", vw_int(rc, "rank", 0));
    vw_label_text(lab, vw_category_title(vw_str(rc, "category", NULL)), 0);
    if (*vw_str(rc, "location", "")) {
        /* "loop relax.c:12-15 in relax_block, inlined into main at relax.c:33" */
        vw_puts(lab, "\\n");
        vw_label_text(lab, vw_str(rc, "location", ""), 200);
    } else if (*vw_str(rc, "file", "")) {
        vw_puts(lab, " at ");
        vw_label_text(lab, vw_basename(vw_str(rc, "file", "")), 60);
        vw_printf(lab, ":%ld", vw_int(rc, "line", 0));
    }
    vw_puts(lab, ", cost ");
    vw_num(lab, vw_dbl(rc, "cost_seconds", 0));
    vw_printf(lab, " s (%.1f%%)", vw_dbl(rc, "cost_percent", 0));
    if (shown < nsteps)
        vw_printf(lab, "\\nshowing the first %zu of %zu steps (see report.json for all)", shown, nsteps);
    vw_gset(g, "label", lab->buf);
    vw_gset(g, "labelloc", "t");
}

vw_graph *vw_path_graph(const struct vw_report *r, const json_t *rc, size_t max)
{
    if (max == 0) max = SCALANA_VIEWER_DEFAULT_MAX_GRAPH_VERTICES;
    char gname[64];
    snprintf(gname, sizeof gname, "rootcause_%ld", vw_int(rc, "rank", 0));
    Agraph_t *g = vw_graph_open(gname, gname, "filled,rounded");
    if (!g) return NULL;
    vw_gset(g, "compound", "true");
    agattr(g, AGEDGE, "fontname", "Helvetica");
    agattr(g, AGEDGE, "fontsize", "9");

    struct vw_out lab;
    vw_out_init_mem(&lab);
    const json_t *path = json_object_get(rc, "path");
    size_t nsteps = json_array_size(path);
    size_t shown = nsteps > max ? max : nsteps;
    path_steps(g, r, path, shown, gname, &lab);
    if (nsteps == 0) lone_cause(g, r, rc, gname, &lab);
    cause_title(g, rc, shown, nsteps, &lab);
    vw_out_free(&lab);
    return g;
}
