/* attribute.c — attribution: every calling-context-tree node of a rank to a
 * PPG vertex.  Call paths are resolved to logical frames (inline chains
 * included) and walked from the outermost frame: a function with a PSG is
 * entered at its FUNCTION vertex and descended to the deepest vertex whose
 * source range holds the frame; code without a PSG becomes dynamic vertices
 * (function, call site); library frames fold into one vertex per entry point. */
#include "read/attribute.h"
#include "core/graph.h"
#include "core/mpi_table.h"
#include "core/options.h"
#include "core/types.h"
#include "read/demangle.h"
#include "read/omp.h"
#include "read/psg_index.h"
#include "read/symbolize.h"
#include "sc_alloc.h"
#include "sc_hash.h"
#include "scalana/profile_format.h"
#include "scalana/psg_format.h"

#include <stdlib.h>
#include <string.h>
#include <stdio.h>

enum { MODE_PRE = 0, MODE_APP = 1, MODE_LIB = 2 };
#define MAX_DEPTH 256

struct state { uint32_t v; uint8_t mode, done, busy; };

void an_attr_ctx_init(struct an_attr_ctx *c, struct an_graph *g, struct an_symbolizer *sym,
                      const struct an_psg *psg, const struct an_options *opt)
{
    memset(c, 0, sizeof *c);
    c->g = g, c->sym = sym, c->psg = psg, c->opt = opt;
    c->outside_root = AN_NONE;
}

void an_attr_ctx_free(struct an_attr_ctx *c)
{
    free(c->inst);
    c->inst = NULL, c->inst_cap = c->inst_n = 0;
    free(c->inst_weight);
    c->inst_weight = NULL, c->inst_weight_n = 0;
    sc_hash_free(&c->inst_index);
    free(c->memo);
    c->memo = NULL, c->memo_cap = c->memo_n = 0;
    sc_hash_free(&c->memo_index);
}

static uint64_t memo_key(uint32_t v, uint8_t mode, uint32_t module, uint64_t address, uint8_t kind, uint8_t flags)
{
    return address * 0x9e3779b97f4a7c15ull ^ ((uint64_t)v << 21) ^ ((uint64_t)module << 50) ^
           ((uint64_t)mode << 8) ^ ((uint64_t)kind << 4) ^ flags;
}

/* The memo entry of (v, mode) entering (module, address, kind, flags); with
 * insert, a new entry (nv AN_NONE) when there is none.  NULL when not found,
 * or out of memory for a new one (the step is then not memoised).  The
 * pointer is valid until the next insert. */
static struct an_step_memo *memo_find(struct an_attr_ctx *c, uint32_t v, uint8_t mode, uint32_t module,
                                      uint64_t address, uint8_t kind, uint8_t flags, int insert)
{
    uint64_t h = memo_key(v, mode, module, address, kind, flags);
    struct sc_hash_it it;
    for (uint32_t k = sc_hash_first(&c->memo_index, h, &it); k != SC_HASH_NONE; k = sc_hash_next(&c->memo_index, &it)) {
        struct an_step_memo *e = &c->memo[k];
        if (e->v == v && e->mode == mode && e->module == module && e->address == address && e->kind == kind &&
            e->flags == flags)
            return e;
    }
    if (!insert || c->memo_n >= SC_HASH_NONE) return NULL;
    if (c->memo_n == c->memo_cap) {
        size_t ncap = c->memo_cap ? c->memo_cap * 2 : 2048;
        struct an_step_memo *n = realloc(c->memo, ncap * sizeof *n);
        if (!n) return NULL;
        c->memo = n, c->memo_cap = ncap;
    }
    if (sc_hash_add(&c->memo_index, h, (uint32_t)c->memo_n)) return NULL;
    struct an_step_memo *e = &c->memo[c->memo_n++];
    memset(e, 0, sizeof *e);
    e->v = v, e->mode = mode, e->module = module, e->address = address, e->kind = (uint8_t)kind;
    e->flags = flags, e->nv = AN_NONE;
    return e;
}

/* Program order of vertex a against b (-1, 0, 1): their chains of sibling
 * orders compared from the root, so that a choice between vertices does not
 * depend on the order they were created in (serial and parallel analyses
 * create them in different orders). */
static int order_cmp(const struct an_graph *g, uint32_t a, uint32_t b)
{
    uint64_t ca[MAX_DEPTH + 1], cb[MAX_DEPTH + 1];
    int na = 0, nb = 0;
    for (uint32_t x = a; x != AN_NONE && na <= MAX_DEPTH; x = g->v[x].parent) ca[na++] = g->v[x].order;
    for (uint32_t x = b; x != AN_NONE && nb <= MAX_DEPTH; x = g->v[x].parent) cb[nb++] = g->v[x].order;
    while (na && nb) {
        uint64_t x = ca[--na], y = cb[--nb];
        if (x != y) return x < y ? -1 : 1;
    }
    return na < nb ? -1 : na > nb;
}

/* The instance of function name that a thread starting in it joins (an
 * OpenMP worker running an outlined body, which its own stack does not tie
 * to a fork): the one where this rank's main thread spent the most samples
 * (inst_weight, filled after the main thread is attributed), ties to the
 * first in program order.  A body forked from several call sites thus goes
 * whole to the heaviest (docs/analyzer.md, "OpenMP"), the same in the serial
 * and the parallel analyzer. */
static uint32_t inst_find(const struct an_attr_ctx *c, const char *name)
{
    struct sc_hash_it it;
    uint32_t best = AN_NONE;
    uint64_t best_w = 0;
    for (uint32_t k = sc_hash_first(&c->inst_index, an_hash_str(name, 7), &it); k != SC_HASH_NONE;
         k = sc_hash_next(&c->inst_index, &it)) {
        if (c->inst[k].name != name) continue;
        uint64_t w = c->inst_weight && k < c->inst_weight_n ? c->inst_weight[k] : 0;
        if (best == AN_NONE || w > best_w || (w == best_w && order_cmp(c->g, c->inst[k].v, best) < 0))
            best = c->inst[k].v, best_w = w;
    }
    return best;
}

/* Records that function name was entered at vertex v (every instance once). */
static void inst_add(struct an_attr_ctx *c, const char *name, uint32_t v)
{
    struct sc_hash_it it;
    for (uint32_t k = sc_hash_first(&c->inst_index, an_hash_str(name, 7), &it); k != SC_HASH_NONE;
         k = sc_hash_next(&c->inst_index, &it))
        if (c->inst[k].name == name && c->inst[k].v == v) return;
    if (c->inst_n == c->inst_cap) {
        c->inst_cap = c->inst_cap ? c->inst_cap * 2 : 128;
        c->inst = sc_xrealloc(c->inst, c->inst_cap * sizeof *c->inst);
    }
    if (sc_hash_add(&c->inst_index, an_hash_str(name, 7), (uint32_t)c->inst_n)) sc_oom();
    c->inst[c->inst_n].name = name, c->inst[c->inst_n].v = v;
    c->inst_n++;
}

/* inst_weight for rank d: the main thread's samples under each instance of a
 * function entered at more than one vertex (the others need no choice).  st:
 * the main thread's states; root_of: each node's thread root. */
static void inst_weigh(struct an_attr_ctx *c, const struct prf_rank_data *d, const struct state *st,
                       const uint32_t *root_of)
{
    free(c->inst_weight);
    c->inst_weight = NULL, c->inst_weight_n = 0;
    uint32_t *of_vertex = NULL; /* vertex -> 1 + its ambiguous instance's index */
    for (size_t k = 0; k < c->inst_n; k++) {
        struct sc_hash_it it;
        int many = 0;
        for (uint32_t j = sc_hash_first(&c->inst_index, an_hash_str(c->inst[k].name, 7), &it); j != SC_HASH_NONE;
             j = sc_hash_next(&c->inst_index, &it))
            many += c->inst[j].name == c->inst[k].name;
        if (many < 2) continue;
        if (!of_vertex) of_vertex = sc_xcalloc(c->g->n ? c->g->n : 1, sizeof *of_vertex);
        of_vertex[c->inst[k].v] = (uint32_t)k + 1;
    }
    if (!of_vertex) return;
    c->inst_weight = sc_xcalloc(c->inst_n, sizeof *c->inst_weight);
    c->inst_weight_n = c->inst_n;
    for (uint32_t i = 0; i < d->sample_count; i++) {
        uint32_t n = d->samples[i].node;
        if (n >= d->cct_count || !st[n].done || root_of[n] == AN_NONE || d->cct[root_of[n]].address != 0)
            continue;
        int depth = 0;
        for (uint32_t x = st[n].v; x != AN_NONE && x < c->g->n && depth++ <= MAX_DEPTH; x = c->g->v[x].parent)
            if (of_vertex[x]) c->inst_weight[of_vertex[x] - 1] += d->samples[i].count;
    }
    free(of_vertex);
}

/* An OpenMP outlined region body (main._omp_fn.0, main.omp_outlined) is code
 * of the function that holds the pragma: v (just created, its linkage set)
 * takes that function's name, and a function vertex is flagged as the
 * region's.  Returns whether v is in an outlined body. */
static int omp_region_function(struct an_attr_ctx *c, struct an_vertex *v)
{
    char pb[512];
    const char *par = an_omp_outlined_parent(v->linkage, pb, sizeof pb);
    if (!par) return 0;
    if (*par) {
        uint32_t u, i;
        const char *disp = NULL;
        if (c->psg && an_psg_function(c->psg, par, &u, &i)) disp = c->psg->g->units[u].vertices[i].display_name;
        v->function = disp && *disp ? an_intern(&c->g->strings, disp) : an_demangle(&c->g->strings, par);
    }
    if (v->kind == PSG_FUNCTION || (v->kind == AN_KIND_DYNAMIC && !(v->flags & AN_V_CALLSITE)))
        v->flags |= AN_V_OMP_REGION;
    return 1;
}

/* The vertex of PSG vertex (unit, index) under parent. */
static uint32_t psg_vertex(struct an_attr_ctx *c, uint32_t parent, uint32_t unit, uint32_t index)
{
    const struct psg_vertex *pv = &c->psg->g->units[unit].vertices[index];
    int created;
    uint64_t key = pv->stable_id ^ ((uint64_t)unit << 40) ^ index;
    uint32_t id = an_graph_get(c->g, parent, key, &created);
    if (created) {
        struct an_vertex *v = &c->g->v[id];
        v->kind = pv->kind;
        v->op = pv->kind == PSG_MPI || pv->kind == PSG_GPU ? pv->op : 0;
        v->line = pv->first_line;
        v->last_line = pv->last_line > pv->first_line ? pv->last_line : pv->first_line;
        v->column = pv->column;
        v->order = index;
        v->psg_stable_id = pv->stable_id;
        v->psg_unit = (int32_t)unit, v->psg_index = index;
        if (pv->flags & PSG_V_ATTRIBUTION_ONLY) v->flags |= AN_V_ATTRIB_ONLY;
        if (pv->flags & PSG_V_CONDITIONAL) v->flags |= AN_V_CONDITIONAL;
        if (!(c->psg->g->units[unit].flags & PSG_UNIT_MARKS_CONDITIONAL)) v->flags |= AN_V_COND_UNKNOWN;
        /* the enclosing function as a person reads it: the display name the
         * pass gave its FUNCTION vertex (the root of the PSG subtree) */
        const struct psg_unit *pu = &c->psg->g->units[unit];
        uint32_t root = index;
        for (uint32_t hops = 0; pu->vertices[root].parent != PSG_NO_PARENT && pu->vertices[root].parent < pu->vertex_count &&
                                hops < pu->vertex_count; hops++)
            root = pu->vertices[root].parent;
        const struct psg_vertex *rv = &pu->vertices[root];
        v->function = rv->kind == PSG_FUNCTION && rv->display_name && *rv->display_name
                          ? an_intern(&c->g->strings, rv->display_name)
                          : an_demangle(&c->g->strings, pv->function);
        v->linkage = an_intern(&c->g->strings, pv->function);
        v->file = an_remap_path(c->opt, &c->g->strings, pv->file);
        const char *name;
        char buf[512];
        int region = omp_region_function(c, v);
        switch (pv->kind) {
        case PSG_FUNCTION:
            name = v->function;
            if (region) {
                snprintf(buf, sizeof buf, "parallel region in %s", v->function);
                name = buf;
            }
            break;
        case PSG_MPI: name = an_mpi_name(pv->op); break;
        case PSG_CALL: case PSG_CALL_INDIRECT: case PSG_CALL_RECURSIVE: case PSG_GPU:
            if (pv->kind == PSG_CALL && pv->callee && an_omp_outlined_parent(pv->callee, buf, sizeof buf)) {
                /* the fork of an OpenMP region (docs/binstruct.md): what the
                 * runtime spends there is the region's, not a callee's */
                name = "parallel region";
                break;
            }
            snprintf(buf, sizeof buf, "call %s", pv->display_name && *pv->display_name ? pv->display_name
                                                 : (pv->callee && *pv->callee ? pv->callee : "(indirect)"));
            name = buf;
            break;
        default:
            snprintf(buf, sizeof buf, "%s %u-%u", psg_kind_name(pv->kind), pv->first_line, v->last_line);
            name = buf;
        }
        v->name = an_intern(&c->g->strings, name);
    }
    return id;
}

static uint32_t dyn_vertex(struct an_attr_ctx *c, uint32_t parent, const char *tag, const char *name,
                           const char *file, uint32_t line, uint32_t col, uint16_t flags, int *created)
{
    char key[64];
    snprintf(key, sizeof key, "%s:%u:%u", tag, line, col);
    uint64_t k = an_hash_str(name, an_hash_str(key, an_hash_str(file, 11)));
    uint32_t id = an_graph_get(c->g, parent, k, created);
    struct an_vertex *v = &c->g->v[id];
    if (*created) {
        v->kind = AN_KIND_DYNAMIC;
        v->flags = flags | AN_V_DYNAMIC;
        v->function = an_demangle(&c->g->strings, name);
        v->linkage = an_intern(&c->g->strings, name);
        v->name = v->function;
        if (!(flags & AN_V_LIBRARY) && omp_region_function(c, v) && (v->flags & AN_V_OMP_REGION)) {
            char nm[600];
            snprintf(nm, sizeof nm, "parallel region in %s", v->function);
            v->name = an_intern(&c->g->strings, nm);
        }
        v->file = an_remap_path(c->opt, &c->g->strings, file);
        v->line = v->last_line = line;
        v->column = col;
        v->order = ((uint64_t)line << 20) | col;
    }
    return id;
}

static uint32_t find_ancestor_fn(const struct an_graph *g, uint32_t cur, int32_t unit, uint32_t index,
                                 uint64_t dyn_key)
{
    for (uint32_t x = cur; x != AN_NONE; x = g->v[x].parent) {
        const struct an_vertex *v = &g->v[x];
        if (unit >= 0 ? (v->psg_unit == unit && v->psg_index == index && v->kind == PSG_FUNCTION)
                      : (v->key == dyn_key && (v->flags & AN_V_DYNAMIC) && !(v->flags & AN_V_CALLSITE)))
            return x;
    }
    return AN_NONE;
}

/* A main-thread call path that does not start at main lost its outer frames
 * (an unwinder that missed a frame): re-attach it at the one PSG call site
 * that calls the function, else under main.  Returns the parent vertex. */
static uint32_t reattach(struct an_attr_ctx *c, const char *function)
{
    if (c->psg && c->psg->g) {
        const struct psg_graph *g = c->psg->g;
        uint32_t fu = 0, fi = 0, hits = 0;
        for (uint32_t u = 0; u < g->unit_count && hits < 2; u++)
            for (uint32_t i = 0; i < g->units[u].vertex_count && hits < 2; i++) {
                const struct psg_vertex *v = &g->units[u].vertices[i];
                if ((v->kind == PSG_CALL || v->kind == PSG_CALL_RECURSIVE) && v->callee && !strcmp(v->callee, function))
                    fu = u, fi = i, hits++;
            }
        if (hits == 1) {
            uint32_t chain[256], n = 0;
            for (uint32_t x = fi; x != PSG_NO_PARENT && n < 256; x = g->units[fu].vertices[x].parent) chain[n++] = x;
            uint32_t cur = AN_NONE;
            while (n--) cur = psg_vertex(c, cur, fu, chain[n]);
            return cur;
        }
    }
    uint64_t mkey = an_hash_str("main", an_hash_str("fn:0:0", an_hash_str("", 11)));
    uint32_t m = an_graph_find(c->g, AN_NONE, mkey);
    if (m == AN_NONE && c->psg) {
        uint32_t u, i;
        if (an_psg_function(c->psg, "main", &u, &i)) return psg_vertex(c, AN_NONE, u, i);
    }
    return m;
}

static struct state enter1(struct an_attr_ctx *c, struct state s, const struct an_frame *f, int is_call,
                           int thread_root_join);

/* Calls expanded from one macro share its line and column (miniFE's
 * RUN_TIMED_FUNCTION("...", generate_matrix_structure(...), ...) puts
 * mytimer() and the timed call on driver.hpp:181:3): the descent took the
 * first.  Entering the callee tells which it was: the PSG CALL at the same
 * line and column that calls `callee`, among the descendants of v's parent
 * (a folded COMPUTE's attribution-only calls included), when v calls
 * another function.  Returns the vertex to continue from. */
static uint32_t repick_call(struct an_attr_ctx *c, uint32_t v, const char *callee)
{
    const struct an_vertex *x = &c->g->v[v];
    if (x->psg_unit < 0 || (x->kind != PSG_CALL && x->kind != PSG_CALL_RECURSIVE) || !callee || !*callee)
        return v;
    uint32_t u = (uint32_t)x->psg_unit;
    const struct psg_unit *pu = &c->psg->g->units[u];
    const struct psg_vertex *pv = &pu->vertices[x->psg_index];
    uint32_t p = pv->parent;
    if (!pv->callee || !strcmp(pv->callee, callee) || p >= pu->vertex_count || x->parent == AN_NONE) return v;
    /* pre-order: p's descendants follow it contiguously */
    for (uint32_t k = p + 1; k < pu->vertex_count; k++) {
        uint32_t chain[64], n = 0, y = k;
        while (y != p && y < pu->vertex_count && n < 64) chain[n++] = y, y = pu->vertices[y].parent;
        if (y != p) break; /* left the subtree */
        const struct psg_vertex *o = &pu->vertices[k];
        if (k == x->psg_index || (o->kind != PSG_CALL && o->kind != PSG_CALL_RECURSIVE) ||
            o->first_line != pv->first_line || o->column != pv->column || !o->callee || strcmp(o->callee, callee))
            continue;
        uint32_t nv = x->parent;
        uint16_t how = x->flags & (AN_V_CALL_INLINED | AN_V_CALL_OUTOFLINE);
        while (n--) nv = psg_vertex(c, nv, u, chain[n]);
        c->g->v[nv].flags |= how;
        return nv;
    }
    return v;
}

/* Enters logical frame f from state s; a call frame (is_call) marks the
 * call-like vertex it reaches as entered inline (the next frame is in the
 * same physical frame: `inlined`) or through a real call, for call chains. */
static struct state enter(struct an_attr_ctx *c, struct state s, const struct an_frame *f, int is_call,
                          int inlined, int thread_root_join)
{
    s = enter1(c, s, f, is_call, thread_root_join);
    if (is_call && s.v != AN_NONE && s.mode == MODE_APP) {
        struct an_vertex *v = &c->g->v[s.v];
        if (v->kind == PSG_CALL || v->kind == PSG_CALL_INDIRECT || v->kind == PSG_CALL_RECURSIVE ||
            (v->flags & AN_V_CALLSITE))
            v->flags |= inlined ? AN_V_CALL_INLINED : AN_V_CALL_OUTOFLINE;
    }
    return s;
}

/* flang's _QQmain, gfortran's MAIN__: the program by its name (gfortran's
 * DWARF gives it: "jac" with DW_AT_main_subprogram) on the new function
 * vertex v of frame f. */
static void name_program(struct an_attr_ctx *c, struct an_vertex *v, const struct an_frame *f)
{
    if (f->main_program && strcmp(f->function, "_QQmain") != 0 && strcmp(f->function, "main") != 0) {
        char pn[300];
        snprintf(pn, sizeof pn, "program %s", f->function);
        v->function = v->name = an_intern(&c->g->strings, pn);
    } else if (!strcmp(f->function, "_QQmain") || !strcmp(f->function, "MAIN__")) {
        const char *pn = an_fortran_program(&c->g->strings, f->file, f->fn_first);
        if (pn) v->function = v->name = pn;
    }
}

/* Entering frame f of a function with a PSG (unit, fi): the FUNCTION vertex
 * in this context, then the deepest PSG vertex holding f's location; a call
 * the PSG does not list becomes a dynamic call site.  from_app: called by the
 * application's code. */
static struct state enter_psg(struct an_attr_ctx *c, struct state s, const struct an_frame *f, int is_call,
                              int from_app, uint32_t unit, uint32_t fi)
{
    int created;
    if (s.v != AN_NONE) s.v = repick_call(c, s.v, f->function);
    /* a thin MPI wrapper of the application (hypre_MPI_Waitall, which
     * only returns MPI_Waitall(...)) is not entered: its MPI call is
     * named at the wrapper's call site in the caller, the code a person
     * changes, as a tail call (gcc -O2) shows it anyway */
    if (from_app && an_psg_thin_mpi_wrapper(c->psg, unit, fi)) return s;
    uint32_t fv = find_ancestor_fn(c->g, s.v, (int32_t)unit, fi, 0);
    if (fv == AN_NONE) {
        fv = psg_vertex(c, s.v, unit, fi);
        if (s.v != AN_NONE) inst_add(c, an_intern(&c->g->strings, f->function), fv);
    }
    /* a location outside the function's own lines is code inlined from
     * elsewhere without inline information (e.g. flang): keep it on the function */
    const struct psg_vertex *pf = &c->psg->g->units[unit].vertices[fi];
    uint32_t plast = pf->last_line > pf->first_line ? pf->last_line : pf->first_line;
    if (pf->first_line && f->line && (f->line < pf->first_line || f->line > plast)) {
        s.v = fv;
        return s;
    }
    uint32_t chain[64];
    uint32_t n = an_psg_descend(c->psg, unit, fi, f->file, f->line, f->column, is_call, chain, 64);
    uint32_t cur = fv;
    for (uint32_t k = 0; k < n; k++) cur = psg_vertex(c, cur, unit, chain[k]);
    if (!is_call || n == 0 || c->g->v[cur].kind == PSG_COMPUTE || c->g->v[cur].kind == PSG_LOOP ||
        c->g->v[cur].kind == PSG_BRANCH || c->g->v[cur].kind == PSG_FUNCTION) {
        if (is_call && c->g->v[cur].kind != PSG_COMPUTE && !(c->g->v[cur].flags & AN_V_ATTRIB_ONLY)) {
            /* a call the PSG does not list (e.g. to a library): a dynamic call site */
            uint32_t at = cur;
            cur = dyn_vertex(c, cur, "cs", "call", f->file, f->line, f->column, AN_V_CALLSITE, &created);
            if (created) {
                struct an_vertex *cv = &c->g->v[cur];
                cv->kind = PSG_CALL;
                cv->function = c->g->v[at].function, cv->linkage = c->g->v[at].linkage;
            }
        }
    }
    s.v = cur;
    return s;
}

/* Entering frame f of the application's code without a PSG: one dynamic
 * function vertex per function in this context (its lines from DWARF, else
 * where it was seen), and under it a call site when f is a call. */
static struct state enter_app(struct an_attr_ctx *c, struct state s, const struct an_frame *f, int is_call)
{
    int created;
    uint64_t fkey = an_hash_str(f->function, an_hash_str("fn:0:0", an_hash_str("", 11)));
    uint32_t fv = find_ancestor_fn(c->g, s.v, -1, 0, fkey);
    if (fv == AN_NONE) {
        fv = dyn_vertex(c, s.v, "fn", f->function, "", 0, 0, f->exe_nodebug ? AN_V_NODEBUG : 0, &created);
        if (created) {
            struct an_vertex *v = &c->g->v[fv];
            v->file = an_remap_path(c->opt, &c->g->strings, f->file);
            v->line = v->last_line = f->line;
            if (s.v != AN_NONE) inst_add(c, an_intern(&c->g->strings, f->function), fv);
            name_program(c, v, f);
        }
    }
    struct an_vertex *v = &c->g->v[fv];
    if (f->fn_first && f->fn_last >= f->fn_first) {
        /* the function's own lines from DWARF: the same in every run */
        v->line = f->fn_first, v->last_line = f->fn_last;
    } else {
        /* no DWARF range: the lines samples and calls were seen at */
        if (f->line && (v->line == 0 || f->line < v->line)) v->line = f->line;
        if (f->line > v->last_line) v->last_line = f->line;
    }
    if (is_call) {
        char nm[512];
        if (f->line || !f->exe_nodebug) snprintf(nm, sizeof nm, "call at line %u", f->line);
        else snprintf(nm, sizeof nm, "call at %s+0x%x", f->function, f->sym_offset); /* no lines: by address */
        uint32_t cs = dyn_vertex(c, fv, "cs", nm, f->file, f->line, f->column,
                                 AN_V_CALLSITE | (f->exe_nodebug ? AN_V_NODEBUG : 0), &created);
        if (created) {
            c->g->v[cs].kind = PSG_CALL, c->g->v[cs].function = v->function, c->g->v[cs].linkage = v->linkage;
            if (!f->line && f->exe_nodebug) c->g->v[cs].order = f->sym_offset; /* code order */
        }
        s.v = cs;
    } else {
        s.v = fv;
    }
    return s;
}

/* Enters logical frame f from state s. */
static struct state enter1(struct an_attr_ctx *c, struct state s, const struct an_frame *f, int is_call,
                           int thread_root_join)
{
    uint32_t unit = 0, fi = 0;
    int has_psg = c->psg && an_psg_function(c->psg, f->function, &unit, &fi);
    /* an executable without DWARF (built without -g): its functions, named by
     * the symbol table, are the program's too; the walk still starts at main
     * (not at _start, which has no DWARF in any build) */
    int nodebug_app = f->exe_nodebug && (s.mode != MODE_PRE || !strcmp(f->function, "main") ||
                                         !strcmp(f->function, "MAIN__"));
    int app = has_psg || (f->in_exe && f->has_dwarf) || nodebug_app;
    int from_app = s.mode == MODE_APP && s.v != AN_NONE; /* called by the application's code */
    if (s.mode == MODE_APP && !app && an_omp_runtime_function(f->function)) {
        /* the OpenMP runtime between a fork call and the region's outlined
         * body (GOMP_parallel, __kmpc_fork_call) is not where time goes: what
         * it spends (the master at the region's closing barrier) stays on
         * the call at the pragma's line, and the body is entered below it */
        s.mode = MODE_LIB;
        return s;
    }
    if (s.mode == MODE_PRE) {
        if (!app) return s;
        s.mode = MODE_APP;
        if (s.v == AN_NONE && thread_root_join) {
            /* a thread that starts in a function seen elsewhere joins that instance */
            uint32_t j = inst_find(c, an_intern(&c->g->strings, f->function));
            char pb[512];
            if (j != AN_NONE) s.v = c->g->v[j].parent;
            else if (an_omp_outlined_parent(f->function, pb, sizeof pb))
                s.v = reattach(c, f->function); /* a worker of a region the master was not seen in */
            c->no_memo = 1;
        } else if (s.v == AN_NONE && strcmp(f->function, "main") != 0 && strcmp(f->function, "MAIN__") != 0) {
            s.v = reattach(c, f->function);
            c->no_memo = 1;
        }
    } else if (s.mode == MODE_LIB) {
        if (!app) return s;
        s.mode = MODE_APP;
    } else if (s.v != AN_NONE && !has_psg &&
               (c->g->v[s.v].kind == PSG_COMPUTE || (c->g->v[s.v].flags & AN_V_ATTRIB_ONLY))) {
        /* inside folded work a frame without a PSG (a library call, a small
         * helper without loops) adds no vertex: its time stays here; a
         * function with a PSG is entered (its loops are listed) */
        return s;
    }
    if (s.v != AN_NONE && c->g->v[s.v].depth >= MAX_DEPTH) return s;

    if (has_psg) return enter_psg(c, s, f, is_call, from_app, unit, fi);
    if (app) return enter_app(c, s, f, is_call);
    int created;
    /* library or unknown code: one vertex per entry point */
    s.v = dyn_vertex(c, s.v, "lib", *f->function ? f->function : "<unknown>", "", 0, 0, AN_V_LIBRARY, &created);
    s.mode = MODE_LIB;
    return s;
}

static struct state step(struct an_attr_ctx *c, struct state s, const struct prf_cct_node *n,
                         const uint32_t *module_ids, uint32_t module_count, uint64_t *unresolved,
                         int thread_root_join)
{
    if (n->kind == PRF_CCT_OVERFLOW) return s;
    if (n->module == PRF_NONE || n->module >= module_count) {
        (*unresolved)++;
        static const struct an_frame unk = {.function = "<unknown>", .file = ""};
        if (s.mode == MODE_PRE) return s;
        return enter(c, s, &unk, n->kind != PRF_CCT_PC, 0, 0);
    }
    uint32_t mid = module_ids[n->module];
    uint8_t flags = 0;
    /* memoised unless the result depends on what was seen before (thread joins,
     * re-attached paths at the very start) */
    int memo = !thread_root_join;
    struct an_step_memo *m = memo ? memo_find(c, s.v, s.mode, mid, n->address, (uint8_t)n->kind, flags, 0) : NULL;
    if (m) {
        if (m->unres) (*unresolved)++;
        s.v = m->nv, s.mode = m->nmode;
        return s;
    }
    const struct an_resolved *r = an_sym_resolve(c->sym, mid, n->address, n->kind == PRF_CCT_CALLSITE);
    if (r->unresolved) (*unresolved)++;
    struct state in = s;
    c->no_memo = 0;
    for (uint32_t k = 0; k < r->nframes; k++) {
        int last = k + 1 == r->nframes;
        s = enter(c, s, &r->frames[k], last ? n->kind != PRF_CCT_PC : 1, !last, thread_root_join);
    }
    m = memo && !c->no_memo ? memo_find(c, in.v, in.mode, mid, n->address, (uint8_t)n->kind, flags, 1) : NULL;
    if (m) {
        m->nv = s.v, m->nmode = s.mode;
        m->unres = r->unresolved;
    }
    return s;
}

int an_attribute_rank(struct an_attr_ctx *c, const struct prf_rank_data *d, uint32_t *node_vertex,
                      uint64_t *unresolved)
{
    uint32_t nn = d->cct_count;
    struct state *st = calloc(nn ? nn : 1, sizeof *st);
    uint32_t *mods = calloc(d->module_count ? d->module_count : 1, sizeof *mods);
    uint32_t *stack = malloc((nn + 1) * sizeof *stack);
    uint32_t *root_of = malloc((nn + 1) * sizeof *root_of);
    if (!st || !mods || !stack || !root_of) {
        free(st), free(mods), free(stack), free(root_of);
        return -1;
    }
    uint8_t *omp_module = an_omp_runtime_modules(d);
    for (uint32_t m = 0; m < d->module_count; m++) {
        char warn[1024];
        mods[m] = an_sym_module(c->sym, prf_string(d, d->modules[m].path),
                                prf_string(d, d->modules[m].build_id), warn, sizeof warn);
    }
    /* the thread root of every node (for ordering: the main thread first) */
    for (uint32_t i = 0; i < nn; i++) root_of[i] = AN_NONE;
    for (uint32_t i = 0; i < nn; i++) {
        uint32_t x = i, depth = 0;
        while (x < nn && root_of[x] == AN_NONE && d->cct[x].kind != PRF_CCT_ROOT && depth++ < nn)
            x = d->cct[x].parent;
        uint32_t r = x < nn ? (d->cct[x].kind == PRF_CCT_ROOT ? x : root_of[x]) : AN_NONE;
        x = i;
        depth = 0;
        while (x < nn && root_of[x] == AN_NONE && depth++ < nn) {
            root_of[x] = r;
            if (d->cct[x].kind == PRF_CCT_ROOT) break;
            x = d->cct[x].parent;
        }
    }
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) inst_weigh(c, d, st, root_of);
        for (uint32_t i = 0; i < nn; i++) {
            if (st[i].done) continue;
            uint32_t r = root_of[i];
            int main_thread = r != AN_NONE && d->cct[r].address == 0;
            if (pass == 0 && !main_thread) continue;
            /* walk up to the first node with a state, then down */
            uint32_t sp = 0, x = i;
            while (x < nn && !st[x].done && sp <= nn) {
                stack[sp++] = x;
                if (d->cct[x].kind == PRF_CCT_ROOT) break;
                x = d->cct[x].parent;
            }
            while (sp) {
                uint32_t y = stack[--sp];
                const struct prf_cct_node *n = &d->cct[y];
                struct state s = {AN_NONE, MODE_PRE, 0, 0};
                if (n->kind == PRF_CCT_ROOT) {
                    /* a thread created at a known call site continues its creator's context;
                     * not a thread of the OpenMP runtime's pool (created where the first
                     * region forked, it runs every region: each body joins the master's
                     * instance of that region by name, below) */
                    for (uint32_t t = 0; t < d->thread_count; t++) {
                        if (d->threads[t].index != n->address || d->threads[t].creator >= nn) continue;
                        uint32_t cr = d->threads[t].creator;
                        if (d->cct[cr].module < d->module_count && omp_module[d->cct[cr].module]) continue;
                        if (st[cr].done && st[cr].mode != MODE_PRE) s.v = st[cr].v, s.mode = MODE_PRE;
                    }
                } else if (n->parent < nn && st[n->parent].done) {
                    s = st[n->parent];
                    int join = !(root_of[y] != AN_NONE && d->cct[root_of[y]].address == 0);
                    s = step(c, s, n, mods, d->module_count, unresolved, join && s.v == AN_NONE);
                } else if (n->parent >= nn) {
                    s = step(c, s, n, mods, d->module_count, unresolved, 0);
                }
                s.done = 1;
                st[y] = s;
            }
        }
    }
    for (uint32_t i = 0; i < nn; i++) {
        uint32_t v = st[i].v;
        if (v == AN_NONE) {
            if (c->outside_root == AN_NONE) {
                int created;
                c->outside_root = an_graph_get(c->g, AN_NONE, an_hash_str("<outside main>", 3), &created);
                struct an_vertex *ov = &c->g->v[c->outside_root];
                ov->kind = AN_KIND_DYNAMIC;
                ov->flags = AN_V_DYNAMIC | AN_V_ROOT;
                ov->name = ov->function = an_intern(&c->g->strings, "<outside main>");
                ov->order = UINT64_MAX;
            }
            v = c->outside_root;
        }
        node_vertex[i] = v;
    }
    free(st), free(mods), free(stack), free(root_of), free(omp_module);
    return 0;
}
