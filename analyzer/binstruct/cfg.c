/* cfg.c — basic blocks and edges of one function's machine code: leaders at
 * the entry, at jump targets and after every instruction that ends a block;
 * gcc's jump tables are read to find the cases of an indirect jump. */
#include "binstruct.h"

#include <stdlib.h>
#include <string.h>

#define MAX_TABLE 4096 /* entries read from one jump table, at most */

uint32_t bs_insn_lower_bound(const struct bs_insn *ins, size_t n, uint64_t a)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ins[mid].addr < a) lo = mid + 1;
        else hi = mid;
    }
    return (uint32_t)lo;
}

/* Index of the instruction at address a, or UINT32_MAX when no instruction
 * starts there. */
static uint32_t insn_at(const struct bs_insn *ins, size_t n, uint64_t a)
{
    uint32_t i = bs_insn_lower_bound(ins, n, a);
    return i < n && ins[i].addr == a ? i : UINT32_MAX;
}

struct edges { uint32_t (*e)[2]; size_t n, cap; };

static int edge_add(struct edges *E, uint32_t from_insn, uint32_t to_insn)
{
    if (E->n == E->cap) {
        size_t nc = E->cap ? E->cap * 2 : 256;
        void *p = realloc(E->e, nc * sizeof *E->e);
        if (!p) return -1;
        E->e = p, E->cap = nc;
    }
    E->e[E->n][0] = from_insn, E->e[E->n][1] = to_insn;
    E->n++;
    return 0;
}

/* The case targets of the indirect jump ins[j]: gcc's position-independent
 * table (`lea T(%rip),%rX; movslq (%rX,%rI,4),%rI; add %rX,%rI; jmp *%rI`,
 * entries are int32 offsets from T) or an absolute table (`jmp *T(,%rI,8)`).
 * The bound comes from the `cmp $N` that guards the index when one is seen
 * shortly before; else entries are read while they land on an instruction
 * of the function.  Appends edges; returns how many targets were found. */
static size_t jump_table(const struct bs_insn *ins, size_t n, uint32_t j, bs_read_fn rd, void *ctx,
                         struct edges *E, int *oom)
{
    uint64_t base = 0, bound = MAX_TABLE;
    int absolute = (ins[j].flags & BS_F_ABS_TABLE) != 0;
    if (absolute) base = ins[j].target;
    for (uint32_t k = j, back = 0; k-- > 0 && back < 12; back++) {
        if (!absolute && !base && (ins[k].flags & BS_F_LEA_RIP)) base = ins[k].target;
        if (ins[k].flags & BS_F_CMP_IMM) {
            if (ins[k].target + 1 < bound) bound = ins[k].target + 1;
            break;
        }
        if (ins[k].kind == BS_I_RET || ins[k].kind == BS_I_JMP || ins[k].kind == BS_I_JMP_IND) break;
    }
    if (!base || !rd) return 0;
    size_t found = 0;
    for (uint64_t e = 0; e < bound; e++) {
        uint64_t t;
        if (absolute) {
            uint64_t w;
            if (rd(ctx, base + e * 8, &w, 8) != 0) break;
            t = w;
        } else {
            int32_t w;
            if (rd(ctx, base + e * 4, &w, 4) != 0) break;
            t = base + (uint64_t)(int64_t)w;
        }
        uint32_t ti = insn_at(ins, n, t);
        if (ti == UINT32_MAX) break; /* past the table, or not this function's */
        if (edge_add(E, j, ti) != 0) { *oom = 1; return found; }
        found++;
    }
    return found;
}

static int cmp_edge(const void *a, const void *b)
{
    const uint32_t *x = a, *y = b;
    if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

uint32_t bs_cfg_block_of(const struct bs_cfg *c, uint32_t i)
{
    uint32_t lo = 0, hi = c->nblocks;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (c->first[mid] <= i) lo = mid + 1;
        else hi = mid;
    }
    return lo ? lo - 1 : 0;
}

int bs_cfg_build(const struct bs_insn *ins, size_t n, uint64_t entry, bs_read_fn rd, void *rdctx,
                 struct bs_cfg *out)
{
    memset(out, 0, sizeof *out);
    if (!n) return 0;
    struct edges E = {0};
    int oom = 0;
    uint8_t *leader = calloc(n + 1, 1);
    uint8_t *unres = calloc(n + 1, 1);
    uint8_t *falls_on = NULL;
    if (!leader || !unres) goto fail;
    uint32_t ei = insn_at(ins, n, entry);
    if (ei == UINT32_MAX) ei = 0;
    leader[0] = leader[ei] = 1;
    /* jump edges between instructions first; blocks follow from them, then
     * the fall-through edges out of each block's last instruction */
    falls_on = calloc(n + 1, 1);
    if (!falls_on) goto fail;
    for (size_t i = 0; i < n; i++) {
        const struct bs_insn *x = &ins[i];
        int ends = 1, falls = 0;
        uint32_t t = UINT32_MAX;
        switch (x->kind) {
        case BS_I_JMP: t = insn_at(ins, n, x->target); break;
        case BS_I_JCC: t = insn_at(ins, n, x->target), falls = 1; break;
        case BS_I_JMP_IND:
            if (!jump_table(ins, n, (uint32_t)i, rd, rdctx, &E, &oom)) unres[i] = 1;
            if (oom) goto fail;
            break;
        case BS_I_RET: case BS_I_HALT: break;
        default: ends = 0, falls = 1;
        }
        /* a gap (another function's code, padding) ends the block too */
        int contiguous = i + 1 < n && ins[i + 1].addr == x->addr + x->size;
        if (ends || !contiguous) leader[i + 1] = 1;
        if (t != UINT32_MAX) {
            leader[t] = 1;
            if (edge_add(&E, (uint32_t)i, t) != 0) goto fail;
        }
        falls_on[i] = (uint8_t)(falls && contiguous);
    }
    for (size_t k = 0; k < E.n; k++) leader[E.e[k][1]] = 1;
    for (size_t i = 0; i + 1 < n; i++)
        if (falls_on[i] && leader[i + 1] && edge_add(&E, (uint32_t)i, (uint32_t)(i + 1)) != 0) goto fail;
    free(falls_on);
    falls_on = NULL;
    /* blocks in address order; the entry's block is remembered */
    uint32_t nb = 0;
    for (size_t i = 0; i < n; i++) nb += leader[i];
    out->first = malloc(nb * sizeof *out->first);
    out->count = malloc(nb * sizeof *out->count);
    if (!out->first || !out->count) goto fail;
    out->nblocks = nb;
    for (size_t i = 0, b = 0; i < n; i++)
        if (leader[i]) out->first[b++] = (uint32_t)i;
    for (uint32_t b = 0; b < nb; b++)
        out->count[b] = (b + 1 < nb ? out->first[b + 1] : (uint32_t)n) - out->first[b];
    /* block-level edges: from the block of the source to the block starting at the target */
    for (size_t k = 0; k < E.n; k++) {
        E.e[k][0] = bs_cfg_block_of(out, E.e[k][0]);
        E.e[k][1] = bs_cfg_block_of(out, E.e[k][1]);
    }
    /* an unresolved indirect jump may reach any block that nothing else reaches */
    uint8_t *reached = calloc(nb, 1);
    if (!reached) goto fail;
    for (size_t k = 0; k < E.n; k++) reached[E.e[k][1]] = 1;
    reached[bs_cfg_block_of(out, ei)] = 1;
    for (size_t i = 0; i < n; i++) {
        if (!unres[i]) continue;
        out->unresolved_indirect++;
        uint32_t from = bs_cfg_block_of(out, (uint32_t)i);
        for (uint32_t b = 0; b < nb; b++)
            if (!reached[b] && edge_add(&E, from, b) != 0) { free(reached); goto fail; }
    }
    free(reached);
    qsort(E.e, E.n, sizeof *E.e, cmp_edge);
    out->succ_off = calloc(nb + 1, sizeof *out->succ_off);
    out->succ = malloc((E.n + 1) * sizeof *out->succ);
    if (!out->succ_off || !out->succ) goto fail;
    size_t ns = 0;
    for (size_t k = 0; k < E.n; k++) {
        if (k && E.e[k][0] == E.e[k - 1][0] && E.e[k][1] == E.e[k - 1][1]) continue;
        out->succ[ns++] = E.e[k][1];
        out->succ_off[E.e[k][0] + 1]++;
    }
    for (uint32_t b = 0; b < nb; b++) out->succ_off[b + 1] += out->succ_off[b];
    out->entry = bs_cfg_block_of(out, ei);
    free(leader), free(unres), free(E.e);
    return 0;
fail:
    free(leader), free(unres), free(falls_on), free(E.e);
    bs_cfg_free(out);
    return -1;
}

void bs_cfg_free(struct bs_cfg *c)
{
    free(c->first), free(c->count), free(c->succ_off), free(c->succ);
    memset(c, 0, sizeof *c);
}
