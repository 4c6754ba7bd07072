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

int bs_loops_find(const struct bs_cfg *c, struct bs_loops *out)
{
    memset(out, 0, sizeof *out);
    uint32_t nb = c->nblocks;
    if (!nb) return 0;
    uint32_t *rpo_num = malloc(nb * sizeof *rpo_num), *order = malloc(nb * sizeof *order);
    uint32_t *idom = malloc(nb * sizeof *idom), *stack = malloc(nb * 2 * sizeof *stack);
    uint32_t *pred_off = calloc(nb + 1, sizeof *pred_off);
    uint32_t *pred = malloc((c->succ_off[nb] + 1) * sizeof *pred);
    uint8_t *mark = calloc(nb, 1);
    int rc = -1;
    if (!rpo_num || !order || !idom || !stack || !pred_off || !pred || !mark) goto done;
    /* predecessors */
    for (uint32_t b = 0; b < nb; b++)
        for (uint32_t k = c->succ_off[b]; k < c->succ_off[b + 1]; k++) pred_off[c->succ[k] + 1]++;
    for (uint32_t b = 0; b < nb; b++) pred_off[b + 1] += pred_off[b];
    {
        uint32_t *fill = calloc(nb, sizeof *fill);
        if (!fill) goto done;
        for (uint32_t b = 0; b < nb; b++)
            for (uint32_t k = c->succ_off[b]; k < c->succ_off[b + 1]; k++) {
                uint32_t s = c->succ[k];
                pred[pred_off[s] + fill[s]++] = b;
            }
        free(fill);
    }
    /* post-order by an iterative depth-first walk from the entry */
    uint32_t np = 0, sp = 0;
    for (uint32_t b = 0; b < nb; b++) rpo_num[b] = UNDEF, idom[b] = UNDEF;
    stack[sp++] = c->entry, stack[sp++] = c->succ_off[c->entry];
    mark[c->entry] = 1;
    while (sp) {
        uint32_t v = stack[sp - 2], *k = &stack[sp - 1];
        if (*k < c->succ_off[v + 1]) {
            uint32_t w = c->succ[(*k)++];
            if (!mark[w]) {
                mark[w] = 1;
                stack[sp++] = w, stack[sp++] = c->succ_off[w];
            }
            continue;
        }
        order[np++] = v; /* post-order */
        sp -= 2;
    }
    for (uint32_t i = 0; i < np; i++) rpo_num[order[i]] = i; /* larger: earlier in RPO */
    /* Cooper-Harvey-Kennedy: iterate in reverse post-order until stable */
    idom[c->entry] = c->entry;
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t i = np; i-- > 0;) {
            uint32_t v = order[i];
            if (v == c->entry) continue;
            uint32_t nd = UNDEF;
            for (uint32_t k = pred_off[v]; k < pred_off[v + 1]; k++) {
                uint32_t p = pred[k];
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
    /* back edges t->h with h dominating t; one loop per header */
    uint32_t *loop_of = malloc(nb * sizeof *loop_of);
    if (!loop_of) goto done;
    for (uint32_t b = 0; b < nb; b++) loop_of[b] = UNDEF;
    size_t cap = 0;
    for (uint32_t t = 0; t < nb; t++) {
        if (idom[t] == UNDEF) continue; /* unreachable */
        for (uint32_t k = c->succ_off[t]; k < c->succ_off[t + 1]; k++) {
            uint32_t h = c->succ[k];
            uint32_t d = t;
            while (d != h && d != c->entry) d = idom[d];
            if (d != h) {
                /* a retreating edge into a block that does not dominate it */
                if (rpo_num[h] >= rpo_num[t] && h != t) out->irreducible++;
                continue;
            }
            if (loop_of[h] == UNDEF) {
                if (out->n == cap) {
                    cap = cap ? cap * 2 : 8;
                    struct bs_loop *nl = realloc(out->loop, cap * sizeof *nl);
                    if (!nl) { free(loop_of); goto done; }
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
            if (!lt) { free(loop_of); goto done; }
            L->latches = lt;
            L->latches[L->nlatches++] = t;
            memset(mark, 0, nb);
            for (uint32_t i = 0; i < L->nblocks; i++) mark[L->blocks[i]] = 1;
            uint32_t *body = malloc(nb * sizeof *body), nbody = 0, top = 0;
            if (!body) { free(loop_of); goto done; }
            if (!mark[h]) mark[h] = 1, body[nbody++] = h;
            if (!mark[t]) mark[t] = 1, body[nbody++] = t, stack[top++] = t;
            while (top) {
                uint32_t v = stack[--top];
                for (uint32_t q = pred_off[v]; q < pred_off[v + 1]; q++) {
                    uint32_t p = pred[q];
                    if (mark[p] || idom[p] == UNDEF) continue;
                    mark[p] = 1, body[nbody++] = p, stack[top++] = p;
                }
            }
            uint32_t *nbks = realloc(L->blocks, (L->nblocks + nbody) * sizeof *nbks);
            if (!nbks) { free(body); free(loop_of); goto done; }
            memcpy(nbks + L->nblocks, body, nbody * sizeof *body);
            L->blocks = nbks, L->nblocks += nbody;
            free(body);
        }
    }
    free(loop_of);
    for (uint32_t i = 0; i < out->n; i++) qsort(out->loop[i].blocks, out->loop[i].nblocks, sizeof(uint32_t), cmp_u32);
    /* nesting: the parent of a loop is the smallest other loop holding its header */
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
    rc = 0;
done:
    free(rpo_num), free(order), free(idom), free(stack), free(pred_off), free(pred), free(mark);
    if (rc) bs_loops_free(out);
    return rc;
}

void bs_loops_free(struct bs_loops *l)
{
    for (uint32_t i = 0; i < l->n; i++) free(l->loop[i].blocks), free(l->loop[i].latches);
    free(l->loop);
    memset(l, 0, sizeof *l);
}
