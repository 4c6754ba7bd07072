/* build.c — one binary's Program Structure Graph from its machine code:
 * per function the CFG, its natural loops, the inline scope each loop
 * belongs to, its source lines, and the call sites (MPI, calls to the
 * binary's own functions, inlined calls); then one PSG unit in the pass's
 * on-disk form.  The rules are in docs/binstruct.md. */
#include "binstruct.h"
#include "analyzer.h"
#include "scalana/mpi_ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNDEF UINT32_MAX
/* Without a located back-edge jump, a loop belongs to the deepest inline
 * scope that holds at least this share of its instructions with a line
 * (optimised code mixes a few of the caller's instructions into an inlined
 * loop). */
#define OWNER_SHARE 0.75

/* A vertex of the tree being built (one tree per source function). */
struct tnode {
    uint16_t kind, flags;
    uint32_t op, parent, fn;
    uint32_t kids, next;  /* children as built (most recent first), for find_child */
    const char *file, *callee, *display;
    uint32_t first, last, col;
};

/* A source function: every instance of it (out-of-line copy, clones,
 * inlined copies) adds to one tree. */
struct afn {
    const char *name, *display, *file;
    uint32_t first, last, root;
    uint8_t reaches_mpi;
};

struct builder {
    struct an_strpool pool;
    struct bs_elf elf;
    struct bs_dwarf dw;
    struct bs_disasm *dis;
    struct tnode *t; size_t nt, capt;
    struct afn *fn; size_t nfn, capfn;
    uint32_t *fn_slot; size_t fn_cap; /* open addressing on interned name pointers */
    struct bs_sym *entries; size_t nentries; /* entry address -> frame name of the binary's functions */
    uint32_t loops;
    int oom;
};

static const char *base_of(const char *p)
{
    const char *s = p ? strrchr(p, '/') : NULL;
    return s ? s + 1 : (p ? p : "");
}

static uint32_t node_new(struct builder *B, const struct tnode *x)
{
    if (B->nt == B->capt) {
        size_t nc = B->capt ? B->capt * 2 : 1024;
        struct tnode *p = realloc(B->t, nc * sizeof *p);
        if (!p) { B->oom = 1; return UNDEF; }
        B->t = p, B->capt = nc;
    }
    uint32_t id = (uint32_t)B->nt++;
    B->t[id] = *x;
    B->t[id].kids = UNDEF;
    B->t[id].next = x->parent != UNDEF ? B->t[x->parent].kids : UNDEF;
    if (x->parent != UNDEF) B->t[x->parent].kids = id;
    return id;
}

static size_t ptr_hash(const void *p, size_t cap)
{
    uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 17) & (cap - 1);
}

/* The source function of scope s (created with its FUNCTION vertex). */
static uint32_t afn_of(struct builder *B, const struct bs_scope *s)
{
    if ((B->nfn + 1) * 2 > B->fn_cap) {
        size_t nc = B->fn_cap ? B->fn_cap * 2 : 1024;
        uint32_t *ns = malloc(nc * sizeof *ns);
        if (!ns) { B->oom = 1; return UNDEF; }
        memset(ns, 0xff, nc * sizeof *ns);
        for (size_t i = 0; i < B->nfn; i++) {
            size_t h = ptr_hash(B->fn[i].name, nc);
            while (ns[h] != UNDEF) h = (h + 1) & (nc - 1);
            ns[h] = (uint32_t)i;
        }
        free(B->fn_slot);
        B->fn_slot = ns, B->fn_cap = nc;
    }
    size_t h = ptr_hash(s->name, B->fn_cap);
    while (B->fn_slot[h] != UNDEF) {
        struct afn *a = &B->fn[B->fn_slot[h]];
        if (a->name == s->name) {
            if (!*a->file && *s->decl_file) a->file = s->decl_file;
            if (!a->first && s->decl_line) a->first = s->decl_line;
            return B->fn_slot[h];
        }
        h = (h + 1) & (B->fn_cap - 1);
    }
    if (B->nfn == B->capfn) {
        size_t nc = B->capfn ? B->capfn * 2 : 256;
        struct afn *p = realloc(B->fn, nc * sizeof *p);
        if (!p) { B->oom = 1; return UNDEF; }
        B->fn = p, B->capfn = nc;
    }
    uint32_t id = (uint32_t)B->nfn;
    struct tnode r = {.kind = PSG_FUNCTION, .parent = UNDEF, .fn = id, .file = s->decl_file,
                      .display = s->display, .callee = ""};
    uint32_t root = node_new(B, &r);
    if (root == UNDEF) return UNDEF;
    B->fn[B->nfn++] = (struct afn){s->name, s->display, s->decl_file, s->decl_line, s->decl_line, root, 0};
    B->fn_slot[h] = id;
    return id;
}

/* Children are found by scanning: trees are small per parent and built once. */
static uint32_t find_child(const struct builder *B, uint32_t parent, uint16_t kind, uint32_t first, uint32_t last,
                           uint32_t col, const char *callee)
{
    for (uint32_t i = B->t[parent].kids; i != UNDEF; i = B->t[i].next) {
        const struct tnode *x = &B->t[i];
        if (x->kind != kind) continue;
        if (kind == PSG_LOOP) {
            /* one source loop in several machine loops (versioned, peeled,
             * in several inlined copies): the same first line, or one range
             * inside the other */
            if (x->first == first || (first >= x->first && last <= x->last) ||
                (x->first >= first && x->last <= last))
                return (uint32_t)i;
        } else if (x->first == first && x->col == col && x->callee == callee) {
            return (uint32_t)i;
        }
    }
    return UNDEF;
}

static uint32_t lower_bound(const struct bs_insn *ins, size_t n, uint64_t a)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ins[mid].addr < a) lo = mid + 1;
        else hi = mid;
    }
    return (uint32_t)lo;
}

static int cmp_insn(const void *a, const void *b)
{
    const struct bs_insn *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The name frames give the function starting at addr in this binary, or
 * NULL when none starts there. */
static const char *entry_name(const struct builder *B, uint64_t addr)
{
    const struct bs_sym *s = bs_sym_at(B->entries, B->nentries, addr);
    return s ? s->name : NULL;
}

/* Per-function working state. */
struct fwork {
    const struct bs_func *f;
    struct bs_insn *ins; size_t n;
    uint32_t *owner;          /* innermost scope of each instruction */
    uint32_t *line, *col;     /* 0: no row */
    const char **base;        /* base name of the row's file */
    uint32_t *afn;            /* source function of each scope */
    struct bs_cfg cfg;
    struct bs_loops L;
    uint32_t *loop_owner, *loop_node;
    uint32_t (*latch_line)[4]; /* lines of a loop's back-edge jumps in its own scope (0: none) */
    uint32_t *inner;          /* innermost loop of each block, UNDEF none */
};

/* The tree vertex under which something of scope s at block b goes: the
 * innermost loop around b that belongs to s and was kept, else s's FUNCTION. */
static uint32_t parent_for(const struct builder *B, const struct fwork *w, uint32_t s, uint32_t b)
{
    for (uint32_t l = b < w->cfg.nblocks ? w->inner[b] : UNDEF; l != UNDEF; l = w->L.loop[l].parent)
        if (w->loop_owner[l] == s && w->loop_node[l] != UNDEF) return w->loop_node[l];
    return B->fn[w->afn[s]].root;
}

static void cover(struct afn *a, const struct tnode *x)
{
    if (x->first && (!a->first || x->first < a->first)) a->first = x->first;
    if (x->last > a->last) a->last = x->last;
}

static void add_leaf(struct builder *B, struct fwork *w, uint32_t s, uint32_t b, uint16_t kind, uint32_t op,
                     const char *file, uint32_t line, uint32_t col, const char *callee, const char *display)
{
    if (!line) return; /* attribution matches by line: a site without one cannot be found */
    uint32_t p = parent_for(B, w, s, b);
    if (find_child(B, p, kind, line, line, col, callee) != UNDEF) return;
    struct tnode x = {.kind = kind, .op = op, .parent = p, .fn = w->afn[s], .file = file, .callee = callee,
                      .display = display, .first = line, .last = line, .col = col};
    if (node_new(B, &x) == UNDEF) return;
    struct afn *a = &B->fn[w->afn[s]];
    if (!strcmp(base_of(file), base_of(a->file))) cover(a, &x);
}

static void do_loops(struct builder *B, struct fwork *w)
{
    const struct bs_func *f = w->f;
    uint32_t ns = f->nscopes;
    uint32_t *cnt = calloc(ns, sizeof *cnt);
    if (!cnt) { B->oom = 1; return; }
    for (uint32_t li = 0; li < w->L.n; li++) {
        const struct bs_loop *L = &w->L.loop[li];
        w->loop_owner[li] = 0, w->loop_node[li] = UNDEF;
        memset(cnt, 0, ns * sizeof *cnt);
        uint32_t total = 0;
        for (uint32_t k = 0; k < L->nblocks; k++) {
            uint32_t b = L->blocks[k];
            for (uint32_t i = w->cfg.first[b]; i < w->cfg.first[b] + w->cfg.count[b]; i++) {
                if (!w->line[i]) continue;
                total++;
                for (uint32_t s = w->owner[i]; s != UNDEF; s = f->scope[s].parent) cnt[s]++;
            }
        }
        if (!total) continue; /* no line information: not addressable */
        /* The loop is the source loop whose test jumps back: the scope of
         * its back-edge jumps (the deepest scope holding all of them).  A
         * caller's loop around an inlined body is mostly the callee's
         * instructions, but jumps back on the caller's line. */
        uint32_t o = UNDEF;
        for (uint32_t k = 0; k < L->nlatches; k++) {
            uint32_t b = L->latches[k];
            uint32_t j = w->cfg.first[b] + w->cfg.count[b] - 1;
            if (!w->line[j]) continue;
            uint32_t s = w->owner[j];
            if (o == UNDEF) { o = s; continue; }
            /* common ancestor of o and s */
            while (f->scope[s].depth > f->scope[o].depth) s = f->scope[s].parent;
            while (f->scope[o].depth > f->scope[s].depth) o = f->scope[o].parent;
            while (o != s) o = f->scope[o].parent, s = f->scope[s].parent;
        }
        if (o == UNDEF) {
            o = 0;
            for (uint32_t s = 1; s < ns; s++)
                if (cnt[s] >= OWNER_SHARE * total && f->scope[s].depth > f->scope[o].depth) o = s;
        }
        w->loop_owner[li] = o;
        const struct bs_scope *os = &f->scope[o];
        const char *ob = base_of(os->decl_file);
        /* the loop's own test lines, and those of the loops around it in the
         * same scope: the test of an enclosing loop is not a line of this
         * one (gcc puts the outer induction's address arithmetic on the
         * outer `for` line inside the inner loop), unless both tests share
         * a line (`for (...) for (...) x;`) */
        uint32_t nl = 0;
        for (uint32_t k = 0; k < L->nlatches && nl < 4; k++) {
            uint32_t b = L->latches[k], j = w->cfg.first[b] + w->cfg.count[b] - 1;
            if (w->line[j] && w->owner[j] == o && !strcmp(w->base[j], ob)) w->latch_line[li][nl++] = w->line[j];
        }
        uint32_t outer[16], nouter = 0;
        for (uint32_t q = L->parent; q != UNDEF && nouter < 16; q = w->L.loop[q].parent) {
            if (w->loop_owner[q] != o || w->loop_node[q] == UNDEF) continue;
            for (uint32_t k = 0; k < 4 && w->latch_line[q][k] && nouter < 16; k++) {
                int own = 0;
                for (uint32_t m = 0; m < nl; m++) own |= w->latch_line[li][m] == w->latch_line[q][k];
                if (!own) outer[nouter++] = w->latch_line[q][k];
            }
        }
        uint32_t first = 0, last = 0;
        for (uint32_t k = 0; k < L->nblocks; k++) {
            uint32_t b = L->blocks[k];
            for (uint32_t i = w->cfg.first[b]; i < w->cfg.first[b] + w->cfg.count[b]; i++) {
                uint32_t ln = w->line[i];
                if (!ln || w->owner[i] != o || (w->ins[i].flags & BS_F_NO_LINE) || strcmp(w->base[i], ob) != 0)
                    continue;
                if (os->decl_line && ln < os->decl_line) continue; /* a caller's row at the inline entry */
                int skip = 0;
                for (uint32_t m = 0; m < nouter; m++) skip |= ln == outer[m];
                if (skip) continue;
                if (!first || ln < first) first = ln;
                if (ln > last) last = ln;
            }
        }
        /* calls inlined into the loop's body are lines of it too */
        for (uint32_t s = 1; s < ns; s++) {
            const struct bs_scope *c = &f->scope[s];
            if (c->parent != o || !c->call_line || strcmp(base_of(c->call_file), ob) != 0) continue;
            uint32_t ei = lower_bound(w->ins, w->n, c->entry);
            if (ei >= w->n || !bs_loop_has(L, bs_cfg_block_of(&w->cfg, ei))) continue;
            if (!first || c->call_line < first) first = c->call_line;
            if (c->call_line > last) last = c->call_line;
        }
        if (!first) continue;
        /* the loop's place: inside the nearest enclosing loop of the same scope */
        uint32_t p = B->fn[w->afn[o]].root;
        for (uint32_t q = L->parent; q != UNDEF; q = w->L.loop[q].parent)
            if (w->loop_owner[q] == o && w->loop_node[q] != UNDEF) { p = w->loop_node[q]; break; }
        uint32_t m = find_child(B, p, PSG_LOOP, first, last, 0, NULL);
        if (m != UNDEF) {
            struct tnode *x = &B->t[m];
            if (first < x->first) x->first = first;
            if (last > x->last) x->last = last;
        } else {
            struct tnode x = {.kind = PSG_LOOP, .parent = p, .fn = w->afn[o], .file = os->decl_file, .callee = "",
                              .display = "", .first = first, .last = last};
            m = node_new(B, &x);
            if (m == UNDEF) break;
            B->loops++;
        }
        w->loop_node[li] = m;
        cover(&B->fn[w->afn[o]], &B->t[m]);
    }
    free(cnt);
}

static void do_calls(struct builder *B, struct fwork *w)
{
    const struct bs_func *f = w->f;
    const struct bs_elf *e = &B->elf;
    for (size_t i = 0; i < w->n; i++) {
        const struct bs_insn *x = &w->ins[i];
        int call = x->kind == BS_I_CALL || x->kind == BS_I_CALL_IND;
        int tail = 0;
        if (x->kind == BS_I_JMP) {
            /* a jump out of the function is a tail call */
            uint32_t t = lower_bound(w->ins, w->n, x->target);
            tail = t >= w->n || w->ins[t].addr != x->target;
        } else if (x->kind == BS_I_JMP_IND && (x->flags & BS_F_GOT_SLOT)) {
            tail = 1;
        }
        if (!call && !tail) continue;
        const char *name = NULL;
        int own = 0;
        if (x->flags & BS_F_GOT_SLOT) {
            const struct bs_sym *g = bs_sym_at(e->got, e->ngot, x->target);
            name = g ? g->name : NULL;
        } else if (x->kind == BS_I_CALL || x->kind == BS_I_JMP) {
            const struct bs_sym *p = bs_sym_holding(e->plt, e->nplt, x->target);
            if (p) name = p->name;
            else if ((name = entry_name(B, x->target))) own = 1;
        }
        uint32_t s = w->owner[i];
        uint32_t b = bs_cfg_block_of(&w->cfg, (uint32_t)i);
        if (!w->line[i]) continue;
        const char *file = !strcmp(w->base[i], base_of(f->scope[s].decl_file)) ? f->scope[s].decl_file
                                                                               : bs_dwarf_file(&B->dw, f, x->addr);
        scalana_mpi_op op = name ? scalana_mpi_op_from_name(name) : SCALANA_MPI_OP_NONE;
        if (op != SCALANA_MPI_OP_NONE) {
            const char *nm = an_intern(&B->pool, name);
            add_leaf(B, w, s, b, PSG_MPI, op, file, w->line[i], w->col[i], nm, nm);
        } else if (own) {
            const char *nm = an_intern(&B->pool, name);
            add_leaf(B, w, s, b, PSG_CALL, 0, file, w->line[i], w->col[i], nm, an_demangle(&B->pool, nm));
        } else if (x->kind == BS_I_CALL_IND && !name) {
            add_leaf(B, w, s, b, PSG_CALL_INDIRECT, 0, file, w->line[i], w->col[i], an_intern(&B->pool, ""),
                     an_intern(&B->pool, ""));
        }
        /* other imports (libc, libm) are work of the enclosing vertex, as in the pass */
    }
    /* inlined calls: where the symbolizer puts the caller's frame */
    for (uint32_t s = 1; s < f->nscopes; s++) {
        const struct bs_scope *c = &f->scope[s];
        uint32_t ei = lower_bound(w->ins, w->n, c->entry);
        uint32_t b = ei < w->n ? bs_cfg_block_of(&w->cfg, ei) : UNDEF;
        add_leaf(B, w, c->parent, b, PSG_CALL, 0, c->call_file, c->call_line, c->call_col, c->name, c->display);
    }
}

static void do_function(struct builder *B, const struct bs_func *f)
{
    struct fwork w;
    memset(&w, 0, sizeof w);
    w.f = f;
    const struct bs_scope *top = &f->scope[0];
    size_t cap = 0;
    for (uint32_t r = 0; r < top->nranges; r++) {
        uint64_t lo = top->ranges[r][0], hi = top->ranges[r][1];
        const unsigned char *code = bs_elf_code(&B->elf, lo, hi - lo);
        if (code && bs_disasm_range(B->dis, code, hi - lo, lo, &w.ins, &w.n, &cap) != 0) { B->oom = 1; goto out; }
    }
    if (!w.n) goto out;
    qsort(w.ins, w.n, sizeof *w.ins, cmp_insn);
    w.afn = malloc(f->nscopes * sizeof *w.afn);
    if (!w.afn) { B->oom = 1; goto out; }
    for (uint32_t s = 0; s < f->nscopes; s++)
        if ((w.afn[s] = afn_of(B, &f->scope[s])) == UNDEF) goto out;
    if (!f->cu) goto out; /* no lines: only the FUNCTION vertex (docs/binstruct.md) */
    w.owner = calloc(w.n, sizeof *w.owner);
    w.line = calloc(w.n, sizeof *w.line);
    w.col = calloc(w.n, sizeof *w.col);
    w.base = calloc(w.n, sizeof *w.base);
    if (!w.owner || !w.line || !w.col || !w.base) { B->oom = 1; goto out; }
    for (uint32_t s = 1; s < f->nscopes; s++)
        for (uint32_t r = 0; r < f->scope[s].nranges; r++)
            for (uint32_t i = lower_bound(w.ins, w.n, f->scope[s].ranges[r][0]);
                 i < w.n && w.ins[i].addr < f->scope[s].ranges[r][1]; i++)
                if (f->scope[s].depth > f->scope[w.owner[i]].depth) w.owner[i] = s;
    for (size_t i = 0; i < w.n; i++) {
        if (bs_dwarf_line(f, w.ins[i].addr, &w.base[i], &w.line[i], &w.col[i]) != 0) w.line[i] = 0, w.base[i] = "";
        uint32_t s = w.owner[i];
        struct afn *a = &B->fn[w.afn[s]];
        if (w.line[i] && !strcmp(w.base[i], base_of(a->file)) && (!f->scope[s].decl_line || w.line[i] >= f->scope[s].decl_line) &&
            w.line[i] > a->last)
            a->last = w.line[i];
    }
    if (bs_cfg_build(w.ins, w.n, top->entry, bs_elf_read, &B->elf, &w.cfg) != 0 || bs_loops_find(&w.cfg, &w.L) != 0) {
        B->oom = 1;
        goto out;
    }
    w.loop_owner = calloc(w.L.n + 1, sizeof *w.loop_owner);
    w.loop_node = calloc(w.L.n + 1, sizeof *w.loop_node);
    w.latch_line = calloc(w.L.n + 1, sizeof *w.latch_line);
    w.inner = malloc((w.cfg.nblocks + 1) * sizeof *w.inner);
    if (!w.loop_owner || !w.loop_node || !w.latch_line || !w.inner) { B->oom = 1; goto out; }
    for (uint32_t b = 0; b < w.cfg.nblocks; b++) w.inner[b] = UNDEF;
    /* loops come outer first: the last one holding a block is its innermost */
    for (uint32_t l = 0; l < w.L.n; l++)
        for (uint32_t k = 0; k < w.L.loop[l].nblocks; k++) w.inner[w.L.loop[l].blocks[k]] = l;
    do_loops(B, &w);
    do_calls(B, &w);
out:
    bs_loops_free(&w.L);
    bs_cfg_free(&w.cfg);
    free(w.ins), free(w.owner), free(w.line), free(w.col), free(w.base), free(w.afn);
    free(w.loop_owner), free(w.loop_node), free(w.latch_line), free(w.inner);
}

/* ---- emission ------------------------------------------------------------ */

struct emit {
    struct builder *B;
    struct psg_builder *pb;
    uint32_t *kid_first, *kid_next;
    uint8_t *memo; /* reaches() */
    struct ord_slot *ord; size_t ord_cap; /* ordinal() */
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
struct ord_slot { uint64_t h; uint32_t id, count; };

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
    for (size_t k = (size_t)h & (E->ord_cap - 1);; k = (k + 1) & (E->ord_cap - 1)) {
        struct ord_slot *o = &E->ord[k];
        if (!o->count) {
            o->h = h, o->id = id, o->count = 1;
            return 0;
        }
        const struct tnode *y = &E->B->t[o->id];
        if (o->h == h && y->fn == x->fn && y->kind == x->kind && y->first == x->first && y->col == x->col &&
            y->file == x->file)
            return o->count++;
    }
}

/* The source function named name, or UNDEF. */
static uint32_t afn_find(const struct builder *B, const char *name)
{
    if (!B->fn_cap) return UNDEF;
    for (size_t h = ptr_hash(name, B->fn_cap); B->fn_slot[h] != UNDEF; h = (h + 1) & (B->fn_cap - 1))
        if (B->fn[B->fn_slot[h]].name == name) return B->fn_slot[h];
    return UNDEF;
}

/* Whether vertex id's subtree holds MPI or a call into a function that
 * reaches MPI (memo: 0 unknown, 1 no, 2 yes; recomputed per round). */
static int reaches(const struct builder *B, const struct emit *E, uint8_t *memo, uint32_t id, int depth)
{
    if (memo[id]) return memo[id] == 2;
    const struct tnode *x = &B->t[id];
    int r = 0;
    if (x->kind == PSG_MPI) {
        r = 1;
    } else if (x->kind == PSG_CALL) {
        uint32_t k = afn_find(B, x->callee);
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

static int serialise(struct builder *B, const char *path, uint32_t language, unsigned char **out, size_t *n)
{
    struct emit E = {B, NULL, NULL, NULL, NULL, NULL, 0, 0};
    size_t nt = B->nt;
    for (E.ord_cap = 64; E.ord_cap < 2 * nt + 2;) E.ord_cap *= 2;
    E.ord = calloc(E.ord_cap, sizeof *E.ord);
    E.kid_first = malloc((nt + 1) * sizeof *E.kid_first);
    E.kid_next = malloc((nt + 1) * sizeof *E.kid_next);
    E.memo = calloc(nt + 1, 1);
    uint32_t *order = malloc((nt + 1) * sizeof *order), *fns = malloc((B->nfn + 1) * sizeof *fns);
    int rc = -1;
    if (!E.kid_first || !E.kid_next || !E.memo || !E.ord || !order || !fns) goto done;
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
    return rc;
}

static int cmp_sym_addr(const void *a, const void *b)
{
    const struct bs_sym *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int bs_recover(const char *path, unsigned char **out, size_t *out_bytes, uint32_t *nloops, char *err,
               size_t errlen)
{
    *out = NULL, *out_bytes = 0;
    if (nloops) *nloops = 0;
    if (!bs_available()) {
        snprintf(err, errlen, "%s: cannot recover its structure: this scalana-analyze was built without Capstone "
                              "(install libcapstone-dev and rebuild)", path);
        return -1;
    }
    struct builder B;
    memset(&B, 0, sizeof B);
    int rc = -1;
    if (bs_elf_open(path, &B.elf, err, errlen) != 0) return -1;
    B.dis = bs_disasm_new(B.elf.machine);
    if (!B.dis) {
        snprintf(err, errlen, "%s: cannot recover its structure: machine %u is not supported (x86-64 only)", path,
                 B.elf.machine);
        goto done;
    }
    if (bs_dwarf_functions(&B.elf, &B.pool, &B.dw) != 0) {
        snprintf(err, errlen, "%s: out of memory reading its DWARF", path);
        goto done;
    }
    if (!B.dw.nf) {
        snprintf(err, errlen, "%s: no functions in its symbol tables or DWARF", path);
        goto done;
    }
    /* entry address -> frame name: DWARF names first (they are what frames carry) */
    B.entries = malloc(B.dw.nf * sizeof *B.entries);
    if (!B.entries) { snprintf(err, errlen, "%s: out of memory", path); goto done; }
    for (size_t i = 0; i < B.dw.nf; i++) {
        const struct bs_scope *s = &B.dw.f[i].scope[0];
        B.entries[B.nentries++] = (struct bs_sym){s->entry, 0, s->name};
    }
    qsort(B.entries, B.nentries, sizeof *B.entries, cmp_sym_addr);
    uint32_t language = PSG_LANG_UNKNOWN;
    for (size_t i = 0; i < B.dw.nf && !B.oom; i++) {
        do_function(&B, &B.dw.f[i]);
        if (!language && !strcmp(B.dw.f[i].scope[0].name, "main")) language = B.dw.f[i].language;
    }
    for (size_t i = 0; i < B.dw.nf && !language; i++) language = B.dw.f[i].language;
    if (B.oom) {
        snprintf(err, errlen, "%s: out of memory recovering its structure", path);
        goto done;
    }
    if (serialise(&B, path, language, out, out_bytes) != 0) {
        snprintf(err, errlen, "%s: out of memory writing its recovered PSG", path);
        goto done;
    }
    if (nloops) *nloops = B.loops;
    rc = 0;
done:
    free(B.entries);
    free(B.t), free(B.fn), free(B.fn_slot);
    bs_dwarf_free(&B.dw);
    bs_disasm_free(B.dis);
    bs_elf_close(&B.elf);
    an_strpool_free(&B.pool);
    return rc;
}
