/* emit.c — the recovered trees as one PSG unit in the pass's on-disk form
 * (include/scalana/psg_format.h, through the format library's builder). */
#include "tree.h"

#include <stdlib.h>
#include <string.h>

struct emit {
    struct builder *B;
    struct psg_builder *pb;
    uint32_t *kid_first, *kid_next;
    uint8_t *memo; /* reaches() */
    struct ord_entry *ord; uint32_t nord; /* ordinal(): one per distinct key */
    struct sc_hash ord_index;             /* indices into ord, by key */
    int failed;
};

static uint64_t mix(uint64_t h, const void *p, size_t n) { return psg_fnv1a64(p, n, h); }
static uint64_t mix_s(uint64_t h, const char *s)
{
    h = psg_fnv1a64(s, strlen(s), h);
    return psg_fnv1a64("\0", 1, h);
}
static uint64_t mix_u(uint64_t h, uint32_t v) { return mix(h, &v, sizeof v); }

/* Stable ids as the pass computes them (plugin/PsgEmitter.cpp): equal
 * across builds of the same source; the ordinal counts equal keys in the
 * function, in emission order. */
static uint64_t stable_id(const struct tnode *x, const char *fn, uint32_t ord)
{
    uint64_t h = mix_s(PSG_FNV_SEED, fn);
    h = mix_u(h, x->kind);
    h = mix_s(h, x->file ? x->file : "");
    h = mix_u(h, x->first);
    h = mix_u(h, x->col);
    return mix_u(h, ord);
}

/* Ordinals of equal keys within a function, counted in emission order
 * through a hash table of (function, kind, file, line, column). */
struct ord_entry { uint32_t id, count; };

static uint64_t ord_key(const struct tnode *x)
{
    uint64_t h = (uint64_t)(uintptr_t)x->file * 0x9e3779b97f4a7c15ull;
    h ^= ((uint64_t)x->fn << 32 | x->kind) * 0xbf58476d1ce4e5b9ull;
    h ^= ((uint64_t)x->first << 32 | x->col) * 0x94d049bb133111ebull;
    return h ^ (h >> 31);
}

static uint32_t ordinal(struct emit *E, uint32_t id)
{
    const struct tnode *x = &E->B->t[id];
    uint64_t h = ord_key(x);
    struct sc_hash_it it;
    for (uint32_t k = sc_hash_first(&E->ord_index, h, &it); k != SC_HASH_NONE; k = sc_hash_next(&E->ord_index, &it)) {
        const struct tnode *y = &E->B->t[E->ord[k].id];
        if (y->fn == x->fn && y->kind == x->kind && y->first == x->first && y->col == x->col && y->file == x->file)
            return E->ord[k].count++;
    }
    if (E->nord > E->B->nt || sc_hash_add(&E->ord_index, h, E->nord)) { /* room for every vertex is reserved */
        E->failed = 1;
        return 0;
    }
    E->ord[E->nord++] = (struct ord_entry){id, 1};
    return 0;
}

/* Whether vertex id's subtree holds MPI or a call into a function that
 * reaches MPI or a GPU call (memo: 0 unknown, 1 no, 2 yes; recomputed per round). */
static int reaches(const struct builder *B, const struct emit *E, uint8_t *memo, uint32_t id, int depth)
{
    if (memo[id]) return memo[id] == 2;
    const struct tnode *x = &B->t[id];
    int r = 0;
    if (x->kind == PSG_MPI || x->kind == PSG_GPU) {
        r = 1;
    } else if (x->kind == PSG_CALL) {
        uint32_t k = bs_fn_find(B, x->callee);
        r = k != UNDEF && B->fn[k].reaches_mpi;
    } else if (depth < 256) {
        for (uint32_t c = E->kid_first[id]; c != UNDEF && !r; c = E->kid_next[c])
            r = reaches(B, E, memo, c, depth + 1);
    }
    memo[id] = r ? 2 : 1;
    return r;
}

static void emit(struct emit *E, uint32_t id, uint32_t parent, uint32_t depth)
{
    struct builder *B = E->B;
    const struct tnode *x = &B->t[id];
    const struct afn *a = &B->fn[x->fn];
    struct psg_vertex v;
    memset(&v, 0, sizeof v);
    v.stable_id = stable_id(x, a->name, ordinal(E, id));
    v.parent = parent;
    v.kind = x->kind;
    v.flags = x->kind != PSG_FUNCTION && reaches(B, E, E->memo, id, 0) ? PSG_V_REACHES_MPI : 0;
    v.op = x->op;
    v.loop_depth = depth;
    v.file = x->kind == PSG_FUNCTION ? a->file : x->file;
    v.function = a->name;
    if (x->kind == PSG_FUNCTION) {
        v.first_line = a->first;
        v.last_line = a->last > a->first ? a->last : a->first;
        v.display_name = a->display;
    } else {
        v.first_line = x->first, v.last_line = x->last, v.column = x->col;
        v.display_name = x->display;
        v.callee = x->callee;
    }
    uint32_t me = psg_builder_add(E->pb, &v);
    if (me == UINT32_MAX) { E->failed = 1; return; }
    for (uint32_t c = E->kid_first[id]; c != UNDEF && !E->failed; c = E->kid_next[c])
        emit(E, c, me, depth + (x->kind == PSG_LOOP));
}

static const struct builder *sort_B;
static int cmp_node(const void *a, const void *b)
{
    const struct tnode *x = &sort_B->t[*(const uint32_t *)a], *y = &sort_B->t[*(const uint32_t *)b];
    if (x->first != y->first) return x->first < y->first ? -1 : 1;
    if (x->col != y->col) return x->col < y->col ? -1 : 1;
    if (x->kind != y->kind) return x->kind == PSG_LOOP ? -1 : y->kind == PSG_LOOP ? 1 : x->kind < y->kind ? -1 : 1;
    return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}
static int cmp_fn(const void *a, const void *b)
{
    const struct afn *x = &sort_B->fn[*(const uint32_t *)a], *y = &sort_B->fn[*(const uint32_t *)b];
    int c = strcmp(x->file, y->file);
    if (c) return c;
    if (x->first != y->first) return x->first < y->first ? -1 : 1;
    return strcmp(x->name, y->name);
}

int bs_serialise(struct builder *B, const char *path, uint32_t language, unsigned char **out, size_t *n)
{
    struct emit E;
    memset(&E, 0, sizeof E);
    E.B = B;
    size_t nt = B->nt;
    E.ord = malloc((nt + 1) * sizeof *E.ord);
    E.kid_first = malloc((nt + 1) * sizeof *E.kid_first);
    E.kid_next = malloc((nt + 1) * sizeof *E.kid_next);
    E.memo = calloc(nt + 1, 1);
    uint32_t *order = malloc((nt + 1) * sizeof *order), *fns = malloc((B->nfn + 1) * sizeof *fns);
    int rc = -1;
    if (!E.kid_first || !E.kid_next || !E.memo || !E.ord || !order || !fns || sc_hash_reserve(&E.ord_index, nt))
        goto done;
    /* children in source order: link the sorted list in reverse */
    for (size_t i = 0; i < nt; i++) order[i] = (uint32_t)i, E.kid_first[i] = E.kid_next[i] = UNDEF;
    sort_B = B;
    qsort(order, nt, sizeof *order, cmp_node);
    for (size_t k = nt; k-- > 0;) {
        uint32_t i = order[k], p = B->t[i].parent;
        if (p == UNDEF) continue;
        E.kid_next[i] = E.kid_first[p];
        E.kid_first[p] = i;
    }
    /* which functions reach MPI: to a fixed point over the calls */
    for (int changed = 1, round = 0; changed && round < 64; round++) {
        changed = 0;
        memset(E.memo, 0, nt);
        for (size_t k = 0; k < B->nfn; k++)
            if (!B->fn[k].reaches_mpi && reaches(B, &E, E.memo, B->fn[k].root, 0))
                B->fn[k].reaches_mpi = 1, changed = 1;
    }
    memset(E.memo, 0, nt);
    for (size_t k = 0; k < B->nfn; k++) fns[k] = (uint32_t)k;
    qsort(fns, B->nfn, sizeof *fns, cmp_fn);
    E.pb = psg_builder_new(path, BS_PRODUCER_FULL, language, PSG_UNIT_HAS_DEBUG_INFO | PSG_UNIT_OPTIMIZED, 0);
    if (!E.pb) goto done;
    for (size_t k = 0; k < B->nfn && !E.failed; k++) {
        const struct afn *a = &B->fn[fns[k]];
        /* a function known only from the symbol table, without calls or
         * loops, says nothing the call paths do not */
        if (!*a->file && E.kid_first[a->root] == UNDEF) continue;
        emit(&E, a->root, PSG_NO_PARENT, 0);
    }
    if (!E.failed && psg_builder_finish(E.pb, out, n) == 0) rc = 0;
done:
    if (E.pb) psg_builder_free(E.pb);
    free(E.kid_first), free(E.kid_next), free(E.memo), free(E.ord), free(order), free(fns);
    sc_hash_free(&E.ord_index);
    return rc;
}
