/* loops.c — dominators and natural loops of a machine-code CFG, with their
 * nesting (the method of docs/binstruct.md: Cooper-Harvey-Kennedy
 * dominators, back edges to a dominating header, loop bodies by a backward
 * walk from the back edges' sources). */
#include "binstruct.h"

#include <stdlib.h>
#include <string.h>

#define UNDEF UINT32_MAX

int bs_loop_has(const struct bs_loop *l, uint32_t b)
{
    uint32_t lo = 0, hi = l->nblocks;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (l->blocks[mid] < b) lo = mid + 1;
        else hi = mid;
    }
    return lo < l->nblocks && l->blocks[lo] == b;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Loops by size, largest first (an enclosing loop has more blocks). */
static int cmp_size(const void *a, const void *b)
{
    const struct bs_loop *x = a, *y = b;
    if (x->nblocks != y->nblocks) return x->nblocks > y->nblocks ? -1 : 1;
    return x->header < y->header ? -1 : x->header > y->header;
}

/* The scratch of one search: predecessors, the depth-first post-order and the
 * immediate dominators of a CFG's nb blocks. */
struct dom {
    uint32_t nb, np;              /* blocks; blocks reached from the entry */
    uint32_t *rpo_num, *order;    /* post-order number of a block (larger: earlier in RPO); blocks in it */
    uint32_t *idom, *stack;       /* immediate dominator (UNDEF: unreachable); walk stack (2 nb) */
    uint32_t *pred_off, *pred;    /* predecessors of block b: pred[pred_off[b] .. pred_off[b + 1]) */
    uint8_t *mark;
};

/* Predecessors of every block from the successor lists.  Returns 0, or -1
 * when out of memory. */
static int predecessors(const struct bs_cfg *c, struct dom *d)
{
    uint32_t nb = d->nb;
    for (uint32_t b = 0; b < nb; b++)
        for (uint32_t k = c->succ_off[b]; k < c->succ_off[b + 1]; k++) d->pred_off[c->succ[k] + 1]++;
    for (uint32_t b = 0; b < nb; b++) d->pred_off[b + 1] += d->pred_off[b];
    uint32_t *fill = calloc(nb, sizeof *fill);
    if (!fill) return -1;
    for (uint32_t b = 0; b < nb; b++)
        for (uint32_t k = c->succ_off[b]; k < c->succ_off[b + 1]; k++) {
            uint32_t s = c->succ[k];
            d->pred[d->pred_off[s] + fill[s]++] = b;
        }
    free(fill);
    return 0;
}

/* Post-order by an iterative depth-first walk from the entry. */
static void post_order(const struct bs_cfg *c, struct dom *d)
{
    uint32_t np = 0, sp = 0, *stack = d->stack;
    for (uint32_t b = 0; b < d->nb; b++) d->rpo_num[b] = UNDEF, d->idom[b] = UNDEF;
    stack[sp++] = c->entry, stack[sp++] = c->succ_off[c->entry];
    d->mark[c->entry] = 1;
    while (sp) {
        uint32_t v = stack[sp - 2], *k = &stack[sp - 1];
        if (*k < c->succ_off[v + 1]) {
            uint32_t w = c->succ[(*k)++];
            if (!d->mark[w]) {
                d->mark[w] = 1;
                stack[sp++] = w, stack[sp++] = c->succ_off[w];
            }
            continue;
        }
        d->order[np++] = v; /* post-order */
        sp -= 2;
    }
    for (uint32_t i = 0; i < np; i++) d->rpo_num[d->order[i]] = i; /* larger: earlier in RPO */
    d->np = np;
}

/* Cooper-Harvey-Kennedy: iterate in reverse post-order until stable. */
static void dominators(const struct bs_cfg *c, struct dom *d)
{
    uint32_t *idom = d->idom, *rpo_num = d->rpo_num;
    idom[c->entry] = c->entry;
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t i = d->np; i-- > 0;) {
            uint32_t v = d->order[i];
            if (v == c->entry) continue;
            uint32_t nd = UNDEF;
            for (uint32_t k = d->pred_off[v]; k < d->pred_off[v + 1]; k++) {
                uint32_t p = d->pred[k];
                if (idom[p] == UNDEF) continue;
                if (nd == UNDEF) { nd = p; continue; }
                uint32_t a = p, b = nd;
                while (a != b) {
                    while (rpo_num[a] < rpo_num[b]) a = idom[a];
                    while (rpo_num[b] < rpo_num[a]) b = idom[b];
                }
                nd = a;
            }
            if (nd != UNDEF && idom[v] != nd) idom[v] = nd, changed = 1;
        }
    }
}

/* The back edge t->h (h dominates t) joins the loop of header h (created on
 * its first back edge, loop_of[h]): t is one more latch, and the blocks that
 * reach t without passing h join its body.  Returns 0, or -1 when out of
 * memory. */
static int add_back_edge(struct dom *d, struct bs_loops *out, uint32_t *loop_of, size_t *cap, uint32_t t,
                         uint32_t h)
{
    uint32_t nb = d->nb;
    if (loop_of[h] == UNDEF) {
        if (out->n == *cap) {
            *cap = *cap ? *cap * 2 : 8;
            struct bs_loop *nl = realloc(out->loop, *cap * sizeof *nl);
            if (!nl) return -1;
            out->loop = nl;
        }
        loop_of[h] = out->n;
        struct bs_loop *L = &out->loop[out->n++];
        memset(L, 0, sizeof *L);
        L->header = h, L->parent = UNDEF;
    }
    /* body: walk backwards from t, not past h; mark[] reused as the visit set */
    struct bs_loop *L = &out->loop[loop_of[h]];
    uint32_t *lt = realloc(L->latches, (L->nlatches + 1) * sizeof *lt);
    if (!lt) return -1;
    L->latches = lt;
    L->latches[L->nlatches++] = t;
    uint8_t *mark = d->mark;
    memset(mark, 0, nb);
    for (uint32_t i = 0; i < L->nblocks; i++) mark[L->blocks[i]] = 1;
    uint32_t *body = malloc(nb * sizeof *body), nbody = 0, top = 0;
    if (!body) return -1;
    if (!mark[h]) mark[h] = 1, body[nbody++] = h;
    if (!mark[t]) mark[t] = 1, body[nbody++] = t, d->stack[top++] = t;
    while (top) {
        uint32_t v = d->stack[--top];
        for (uint32_t q = d->pred_off[v]; q < d->pred_off[v + 1]; q++) {
            uint32_t p = d->pred[q];
            if (mark[p] || d->idom[p] == UNDEF) continue;
            mark[p] = 1, body[nbody++] = p, d->stack[top++] = p;
        }
    }
    uint32_t *nbks = realloc(L->blocks, (L->nblocks + nbody) * sizeof *nbks);
    if (!nbks) { free(body); return -1; }
    memcpy(nbks + L->nblocks, body, nbody * sizeof *body);
    L->blocks = nbks, L->nblocks += nbody;
    free(body);
    return 0;
}

/* Back edges t->h with h dominating t; one loop per header.  A retreating
 * edge into a block that does not dominate it counts as irreducible.
 * Returns 0, or -1 when out of memory. */
static int natural_loops(const struct bs_cfg *c, struct dom *d, struct bs_loops *out)
{
    uint32_t nb = d->nb;
    uint32_t *loop_of = malloc(nb * sizeof *loop_of);
    if (!loop_of) return -1;
    for (uint32_t b = 0; b < nb; b++) loop_of[b] = UNDEF;
    size_t cap = 0;
    for (uint32_t t = 0; t < nb; t++) {
        if (d->idom[t] == UNDEF) continue; /* unreachable */
        for (uint32_t k = c->succ_off[t]; k < c->succ_off[t + 1]; k++) {
            uint32_t h = c->succ[k];
            uint32_t x = t;
            while (x != h && x != c->entry) x = d->idom[x];
            if (x != h) {
                if (d->rpo_num[h] >= d->rpo_num[t] && h != t) out->irreducible++;
                continue;
            }
            if (add_back_edge(d, out, loop_of, &cap, t, h) < 0) { free(loop_of); return -1; }
        }
    }
    free(loop_of);
    return 0;
}

/* Nesting: the parent of a loop is the smallest other loop holding its
 * header (loops sorted by size first, each body by block). */
static void nest_loops(struct bs_loops *out)
{
    for (uint32_t i = 0; i < out->n; i++) qsort(out->loop[i].blocks, out->loop[i].nblocks, sizeof(uint32_t), cmp_u32);
    qsort(out->loop, out->n, sizeof *out->loop, cmp_size);
    for (uint32_t i = 0; i < out->n; i++) {
        struct bs_loop *L = &out->loop[i];
        for (uint32_t j = i; j-- > 0;)
            if (bs_loop_has(&out->loop[j], L->header)) {
                L->parent = j;
                L->depth = out->loop[j].depth + 1;
                break;
            }
    }
}

int bs_loops_find(const struct bs_cfg *c, struct bs_loops *out)
{
    memset(out, 0, sizeof *out);
    uint32_t nb = c->nblocks;
    if (!nb) return 0;
    struct dom d = {.nb = nb};
    d.rpo_num = malloc(nb * sizeof *d.rpo_num), d.order = malloc(nb * sizeof *d.order);
    d.idom = malloc(nb * sizeof *d.idom), d.stack = malloc(nb * 2 * sizeof *d.stack);
    d.pred_off = calloc(nb + 1, sizeof *d.pred_off);
    d.pred = malloc((c->succ_off[nb] + 1) * sizeof *d.pred);
    d.mark = calloc(nb, 1);
    int rc = -1;
    if (!d.rpo_num || !d.order || !d.idom || !d.stack || !d.pred_off || !d.pred || !d.mark) goto done;
    if (predecessors(c, &d) < 0) goto done;
    post_order(c, &d);
    dominators(c, &d);
    if (natural_loops(c, &d, out) < 0) goto done;
    nest_loops(out);
    rc = 0;
done:
    free(d.rpo_num), free(d.order), free(d.idom), free(d.stack), free(d.pred_off), free(d.pred), free(d.mark);
    if (rc) bs_loops_free(out);
    return rc;
}

void bs_loops_free(struct bs_loops *l)
{
    for (uint32_t i = 0; i < l->n; i++) free(l->loop[i].blocks), free(l->loop[i].latches);
    free(l->loop);
    memset(l, 0, sizeof *l);
}
