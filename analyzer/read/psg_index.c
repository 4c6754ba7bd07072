/* psg_index.c — lookups on the embedded PSG that attribution needs: the
 * FUNCTION vertex of a linkage name, children in program order, and the
 * descent to the deepest vertex whose source range contains a location. */
#include "read/psg_index.h"
#include "core/graph.h"
#include "core/types.h"
#include "sc_hash.h"
#include "scalana/psg_format.h"

#include <stdlib.h>
#include <string.h>

static int is_call_like(unsigned kind)
{
    return kind == PSG_CALL || kind == PSG_CALL_INDIRECT || kind == PSG_CALL_RECURSIVE ||
           kind == PSG_MPI || kind == PSG_GPU;
}

static const char *base_name(const char *p)
{
    const char *s = p ? strrchr(p, '/') : NULL;
    return s ? s + 1 : (p ? p : "");
}

int an_psg_index(struct an_psg *x, const struct psg_graph *g)
{
    memset(x, 0, sizeof *x);
    x->g = g;
    if (!g || !g->unit_count) return 0;
    x->child_first = calloc(g->unit_count, sizeof *x->child_first);
    x->child_next = calloc(g->unit_count, sizeof *x->child_next);
    if (!x->child_first || !x->child_next) return -1;
    size_t nfn = 0;
    for (uint32_t u = 0; u < g->unit_count; u++) {
        const struct psg_unit *un = &g->units[u];
        uint32_t n = un->vertex_count;
        x->child_first[u] = malloc((n + 1) * sizeof(uint32_t));
        x->child_next[u] = malloc((n + 1) * sizeof(uint32_t));
        if (!x->child_first[u] || !x->child_next[u]) return -1;
        memset(x->child_first[u], 0xff, (n + 1) * sizeof(uint32_t));
        memset(x->child_next[u], 0xff, (n + 1) * sizeof(uint32_t));
        /* pre-order: link children in reverse so the list ends up in program order */
        for (uint32_t i = n; i-- > 0;) {
            uint32_t p = un->vertices[i].parent;
            if (p == PSG_NO_PARENT || p >= n) continue;
            x->child_next[u][i] = x->child_first[u][p];
            x->child_first[u][p] = i;
        }
        for (uint32_t i = 0; i < n; i++)
            if (un->vertices[i].kind == PSG_FUNCTION) nfn++;
    }
    x->fn = calloc(nfn + 1, sizeof *x->fn);
    if (!x->fn || sc_hash_reserve(&x->fn_index, nfn)) return -1;
    for (uint32_t u = 0; u < g->unit_count; u++) {
        const struct psg_unit *un = &g->units[u];
        for (uint32_t i = 0; i < un->vertex_count; i++) {
            const struct psg_vertex *v = &un->vertices[i];
            if (v->kind != PSG_FUNCTION || !v->function || !*v->function) continue;
            uint32_t unit, index;
            if (an_psg_function(x, v->function, &unit, &index)) continue; /* linkonce: the first copy stands for all */
            if (sc_hash_add(&x->fn_index, an_hash_str(v->function, 0), (uint32_t)x->fn_n)) return -1;
            x->fn[x->fn_n].name = v->function, x->fn[x->fn_n].unit = u, x->fn[x->fn_n].index = i;
            x->fn_n++;
        }
    }
    return 0;
}

void an_psg_free(struct an_psg *x)
{
    if (x->g)
        for (uint32_t u = 0; u < x->g->unit_count; u++) {
            if (x->child_first) free(x->child_first[u]);
            if (x->child_next) free(x->child_next[u]);
        }
    free(x->child_first);
    free(x->child_next);
    free(x->fn);
    sc_hash_free(&x->fn_index);
    memset(x, 0, sizeof *x);
}

int an_psg_function(const struct an_psg *x, const char *name, uint32_t *unit, uint32_t *index)
{
    if (!x || !name || !*name) return 0;
    struct sc_hash_it it;
    for (uint32_t k = sc_hash_first(&x->fn_index, an_hash_str(name, 0), &it); k != SC_HASH_NONE;
         k = sc_hash_next(&x->fn_index, &it))
        if (strcmp(x->fn[k].name, name) == 0) {
            *unit = x->fn[k].unit, *index = x->fn[k].index;
            return 1;
        }
    return 0;
}

uint32_t an_psg_descend(const struct an_psg *x, uint32_t unit, uint32_t from, const char *file,
                        uint32_t line, uint32_t column, int is_call, uint32_t *chain,
                        uint32_t maxchain)
{
    if (!x || !x->g || unit >= x->g->unit_count || line == 0) return 0;
    const struct psg_unit *un = &x->g->units[unit];
    const char *fb = base_name(file);
    uint32_t n = 0, cur = from;
    while (n < maxchain) {
        uint32_t best = AN_NONE;
        int best_score = 0;
        uint32_t best_span = UINT32_MAX;
        for (uint32_t c = x->child_first[unit][cur]; c != AN_NONE; c = x->child_next[unit][c]) {
            const struct psg_vertex *v = &un->vertices[c];
            if (*fb && v->file && *v->file && strcmp(base_name(v->file), fb) != 0) continue;
            int score = 0;
            uint32_t last = v->last_line > v->first_line ? v->last_line : v->first_line;
            if (is_call_like(v->kind)) {
                if (v->first_line == line) {
                    if (column && v->column && v->column == column) score = is_call ? 5 : 3;
                    else if (!column || !v->column) score = is_call ? 4 : 2;
                    else score = is_call ? 1 : 0; /* same line, other column */
                }
            } else if (v->first_line && v->first_line <= line && line <= last) {
                score = is_call ? 2 : 4;
            }
            if (!score) continue;
            uint32_t span = last - v->first_line;
            if (score > best_score || (score == best_score && span < best_span)) {
                best = c, best_score = score, best_span = span;
            }
        }
        if (best == AN_NONE) break;
        chain[n++] = best;
        cur = best;
        /* a folded COMPUTE is not a leaf: its attribution-only loops and
         * calls lie below it */
        if (is_call_like(un->vertices[best].kind)) break;
    }
    return n;
}

int an_psg_thin_mpi_wrapper(const struct an_psg *x, uint32_t unit, uint32_t fn)
{
    if (!x || !x->g || unit >= x->g->unit_count || fn >= x->g->units[unit].vertex_count) return 0;
    const struct psg_unit *un = &x->g->units[unit];
    const struct psg_vertex *f = &un->vertices[fn];
    if (f->kind != PSG_FUNCTION || !f->function) return 0;
    if (!strcmp(f->function, "main") || !strcmp(f->function, "MAIN__") || !strcmp(f->function, "_QQmain")) return 0;
    uint32_t c = x->child_first[unit][fn];
    if (c == AN_NONE || x->child_next[unit][c] != AN_NONE) return 0; /* none, or more than one */
    return un->vertices[c].kind == PSG_MPI && x->child_first[unit][c] == AN_NONE;
}
