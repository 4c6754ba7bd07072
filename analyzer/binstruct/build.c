/* build.c — one binary's Program Structure Graph from its machine code:
 * per function the CFG, its natural loops, the inline scope each loop
 * belongs to, the instructions whose lines count for it, and the call sites
 * (MPI, calls to the binary's own functions, inlined calls), into the trees
 * of tree.c; emit.c makes the PSG unit.  The rules are in docs/binstruct.md. */
#include "tree.h"
#include "core/graph.h"
#include "read/demangle.h"
#include "read/omp.h"
#include "scalana/gpu_calls.h"
#include "scalana/mpi_ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Without a located back-edge jump, a loop belongs to the deepest inline
 * scope that holds at least this share of its instructions with a line
 * (optimised code mixes a few of the caller's instructions into an inlined
 * loop). */
#define OWNER_SHARE 0.75

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
    uint32_t *stmt, *stmt0;   /* smallest line of a statement beginning there (is_stmt rows with
                                 code, zero-length ones), 0: none */
    const char **base;        /* base name of the row's file */
    uint32_t *afn;            /* source function of each scope */
    struct bs_cfg cfg;
    struct bs_loops L;
    uint32_t *loop_owner, *loop_node;
    uint32_t (*latch_line)[4]; /* lines of a loop's back-edge jumps in its own scope (0: none) */
    uint32_t *inner;          /* innermost loop of each block, UNDEF none */
    uint32_t *ev;             /* scratch: the lines of one loop (3 n + nscopes) */
    uint32_t ret_line[1], nret; /* the function's closing line (its last return's), when known */
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
    if (bs_find_child(B, p, kind, line, line, col, callee) != UNDEF) return;
    struct tnode x = {.kind = kind, .op = op, .parent = p, .fn = w->afn[s], .file = file, .callee = callee,
                      .display = display, .first = line, .last = line, .col = col};
    if (bs_node_new(B, &x) == UNDEF) return;
    struct afn *a = &B->fn[w->afn[s]];
    if (!strcmp(bs_base_of(file), bs_base_of(a->file))) cover(a, &x);
}

/* Counts, per scope, the instructions with a line in loop L (cnt[ns], the
 * scope and its ancestors each); returns the instructions with a line. */
static uint32_t count_loop_lines(const struct fwork *w, const struct bs_loop *L, uint32_t *cnt, uint32_t ns)
{
    const struct bs_func *f = w->f;
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
    return total;
}

/* The loop is the source loop whose test jumps back: the scope of its
 * back-edge jumps (the deepest scope holding all of them).  A caller's loop
 * around an inlined body is mostly the callee's instructions, but jumps back
 * on the caller's line.  Without a jump back with a line: the deepest scope
 * holding OWNER_SHARE of the loop's lines. */
static uint32_t loop_scope(const struct fwork *w, const struct bs_loop *L, const uint32_t *cnt, uint32_t total)
{
    const struct bs_func *f = w->f;
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
        for (uint32_t s = 1; s < f->nscopes; s++)
            if (cnt[s] >= OWNER_SHARE * total && f->scope[s].depth > f->scope[o].depth) o = s;
    }
    return o;
}

/* The loop's own test lines (into w->latch_line[li], at most 4; returns how
 * many): its jumps back in scope o, file ob, but the closing line. */
static uint32_t own_test_lines(struct fwork *w, const struct bs_loop *L, uint32_t li, uint32_t o, const char *ob)
{
    uint32_t nl = 0;
    for (uint32_t k = 0; k < L->nlatches && nl < 4; k++) {
        uint32_t b = L->latches[k], j = w->cfg.first[b] + w->cfg.count[b] - 1;
        int ret = 0; /* a jump back on the closing line was moved after the return (below) */
        for (uint32_t m = 0; m < w->nret; m++) ret |= w->ret_line[m] == w->line[j];
        if (w->line[j] && !ret && w->owner[j] == o && !strcmp(w->base[j], ob)) w->latch_line[li][nl++] = w->line[j];
    }
    return nl;
}

/* The test lines of the loops around loop li in the same scope o (outer[16];
 * returns how many): the test of an enclosing loop is not a line of this one
 * (gcc puts the outer induction's address arithmetic on the outer `for` line
 * inside the inner loop), unless both tests share a line
 * (`for (...) for (...) x;`). */
static uint32_t outer_test_lines(const struct fwork *w, const struct bs_loop *L, uint32_t li, uint32_t o,
                                 uint32_t nl, uint32_t *outer)
{
    uint32_t nouter = 0;
    for (uint32_t q = L->parent; q != UNDEF && nouter < 16; q = w->L.loop[q].parent) {
        if (w->loop_owner[q] != o || w->loop_node[q] == UNDEF) continue;
        for (uint32_t k = 0; k < 4 && w->latch_line[q][k] && nouter < 16; k++) {
            int own = 0;
            for (uint32_t m = 0; m < nl; m++) own |= w->latch_line[li][m] == w->latch_line[q][k];
            if (!own) outer[nouter++] = w->latch_line[q][k];
        }
    }
    return nouter;
}

/* What the lines of one loop are gathered against: its scope o (file ob),
 * the outer loops' test lines, and what was found: the lines (w->ev, nev),
 * the smallest line of a statement that begins in the loop, and the lines of
 * the loop's register increments. */
struct loop_lines {
    uint32_t o;
    const struct bs_scope *os;
    const char *ob;
    const uint32_t *outer; uint32_t nouter;
    uint32_t fn_last;          /* the function's lines with code so far */
    uint32_t nev, first_stmt;
    uint32_t steps[8], nsteps;
};

/* Whether line ln is an outer loop's test or the function's closing line
 * (the closing line, brace or epilogue, is outside every loop: gcc gives it
 * to blocks it moves after the return). */
static int skip_line(const struct fwork *w, const struct loop_lines *ll, uint32_t ln)
{
    int skip = 0;
    for (uint32_t m = 0; m < ll->nouter; m++) skip |= ln == ll->outer[m];
    for (uint32_t m = 0; m < w->nret && !skip; m++) skip = ln == w->ret_line[m];
    return skip;
}

/* The rows of the loop's instructions in its scope, and its register
 * increments among them. */
static void row_lines(struct fwork *w, const struct bs_loop *L, struct loop_lines *ll)
{
    for (uint32_t k = 0; k < L->nblocks; k++) {
        uint32_t b = L->blocks[k];
        for (uint32_t i = w->cfg.first[b]; i < w->cfg.first[b] + w->cfg.count[b]; i++) {
            uint32_t ln = w->line[i];
            if (!ln || w->owner[i] != ll->o || (w->ins[i].flags & BS_F_NO_LINE) || strcmp(w->base[i], ll->ob) != 0)
                continue;
            if (ll->os->decl_line && ln < ll->os->decl_line) continue; /* a caller's row at the inline entry */
            if (skip_line(w, ll, ln)) continue;
            w->ev[ll->nev++] = ln;
            if ((w->ins[i].flags & BS_F_STEP) && ll->nsteps < 8) {
                int seen = 0;
                for (uint32_t m = 0; m < ll->nsteps; m++) seen |= ll->steps[m] == ln;
                if (!seen) ll->steps[ll->nsteps++] = ln;
            }
        }
    }
}

/* The statements that begin in the loop, and the calls inlined into its body
 * (lines of it too, and statements of it: the statement's own is_stmt row
 * may lie in the callee's code). */
static void statement_lines(struct fwork *w, const struct bs_loop *L, struct loop_lines *ll)
{
    const struct bs_func *f = w->f;
    uint32_t o = ll->o;
    for (uint32_t k = 0; k < L->nblocks; k++) {
        uint32_t b = L->blocks[k];
        for (uint32_t i = w->cfg.first[b]; i < w->cfg.first[b] + w->cfg.count[b]; i++) {
            if (w->owner[i] != o || strcmp(w->base[i], ll->ob) != 0) continue;
            /* a zero-length row only inside the scope: at its border it
             * may be the last statement of the inlined code before it */
            uint32_t both[2] = {(w->ins[i].flags & BS_F_NO_LINE) ? 0 : w->stmt[i], /* as the lines above */
                                i > 0 && w->owner[i - 1] == o ? w->stmt0[i] : 0};
            for (int z = 0; z < 2; z++) {
                uint32_t ln = both[z];
                if (!ln || (ll->os->decl_line && ln < ll->os->decl_line) || ln > ll->fn_last) continue;
                if (skip_line(w, ll, ln)) continue;
                /* a statement of the loop even where none of its
                 * instructions carries its line: gcc gives the `i++` of
                 * `while (x >= end[i])\n i++;` the row of the test and
                 * marks only the start of the statement (a zero-length
                 * row) with its own line */
                w->ev[ll->nev++] = ln;
                if (!ll->first_stmt || ln < ll->first_stmt) ll->first_stmt = ln;
            }
        }
    }
    for (uint32_t s = 1; s < f->nscopes; s++) {
        const struct bs_scope *c = &f->scope[s];
        if (c->parent != o || !c->call_line || strcmp(bs_base_of(c->call_file), ll->ob) != 0) continue;
        uint32_t ei = bs_insn_lower_bound(w->ins, w->n, c->entry);
        if (ei >= w->n || !bs_loop_has(L, bs_cfg_block_of(&w->cfg, ei))) continue;
        w->ev[ll->nev++] = c->call_line;
        if (!ll->first_stmt || c->call_line < ll->first_stmt) ll->first_stmt = c->call_line;
    }
}

/* The loop's test lines (tests[8]; returns how many): its own jumps back,
 * then its exits (a loop's test need not be its jump back: gcc rotates a
 * loop so that the test leaves from the middle). */
static uint32_t test_lines(const struct fwork *w, const struct bs_loop *L, uint32_t li, uint32_t nl,
                           const struct loop_lines *ll, uint32_t *tests)
{
    uint32_t ntests = 0;
    for (uint32_t m = 0; m < nl && ntests < 8; m++) tests[ntests++] = w->latch_line[li][m];
    for (uint32_t k = 0; k < L->nblocks && ntests < 8; k++) {
        uint32_t b = L->blocks[k], j = w->cfg.first[b] + w->cfg.count[b] - 1;
        if ((w->ins[j].kind != BS_I_JCC && w->ins[j].kind != BS_I_JMP) || !w->line[j] || w->owner[j] != ll->o ||
            strcmp(w->base[j], ll->ob) != 0)
            continue;
        int out = 0;
        for (uint32_t e = w->cfg.succ_off[b]; e < w->cfg.succ_off[b + 1]; e++) out |= !bs_loop_has(L, w->cfg.succ[e]);
        if (out) tests[ntests++] = w->line[j];
    }
    return ntests;
}

/* The loop's place: inside the nearest enclosing loop of the same scope,
 * joined with a LOOP vertex already there on its lines, else a new one.
 * Returns 0, or -1 when out of memory. */
static int place_loop(struct builder *B, struct fwork *w, const struct bs_loop *L, uint32_t li,
                      const struct loop_lines *ll, uint32_t first, uint32_t last)
{
    uint32_t o = ll->o;
    uint32_t p = B->fn[w->afn[o]].root;
    for (uint32_t q = L->parent; q != UNDEF; q = w->L.loop[q].parent)
        if (w->loop_owner[q] == o && w->loop_node[q] != UNDEF) { p = w->loop_node[q]; break; }
    uint32_t m = bs_find_child(B, p, PSG_LOOP, first, last, 0, NULL);
    if (m != UNDEF) {
        struct tnode *x = &B->t[m];
        if (first < x->first) x->first = first;
        if (last > x->last) x->last = last;
    } else {
        struct tnode x = {.kind = PSG_LOOP, .parent = p, .fn = w->afn[o], .file = ll->os->decl_file, .callee = "",
                          .display = "", .first = first, .last = last};
        m = bs_node_new(B, &x);
        if (m == UNDEF) return -1;
        B->loops++;
    }
    w->loop_node[li] = m;
    cover(&B->fn[w->afn[o]], &B->t[m]);
    return 0;
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
        uint32_t total = count_loop_lines(w, L, cnt, ns);
        if (!total) continue; /* no line information: not addressable */
        uint32_t o = loop_scope(w, L, cnt, total);
        w->loop_owner[li] = o;
        struct loop_lines ll = {.o = o, .os = &f->scope[o]};
        ll.ob = bs_base_of(ll.os->decl_file);
        uint32_t nl = own_test_lines(w, L, li, o, ll.ob);
        uint32_t outer[16];
        ll.nouter = outer_test_lines(w, L, li, o, nl, outer);
        ll.outer = outer;
        ll.fn_last = B->fn[w->afn[o]].last;
        row_lines(w, L, &ll);
        statement_lines(w, L, &ll);
        /* The loop starts at its first statement or its test, whichever
         * comes first: a line before both is not the loop's (bs_loop_start,
         * bs_lines_from).  gcc gives such lines to code it places inside
         * the loop for something outside it: the out-of-SSA copies of a
         * variable set before the loop and the invariants hoisted into an
         * inner loop's preheader keep the location of a statement before
         * the loop (miniFE's `unsigned roffset = 0;` three lines above its
         * loop nest, `double *w = malloc(...), saving = 0.0;` on the line
         * above a loop, NPB LU's `if (south.eq.-1) iend1 = nx - 3` above
         * erhs's), but never mark it as a statement that begins there
         * (is_stmt), while the statements of the loop begin at addresses
         * inside it.  Kept all the same: the lines of the loop's register
         * increments (a `for` split by gcc tests another condition on
         * another line, its `i++` keeps the `for` line), and lines before
         * the first statement that are a quarter of the loop or more (a
         * rotated loop whose first iteration was peeled runs its first
         * statements at the bottom, unmarked).  A loop in which no
         * statement begins (a compiler that marks none) keeps all its
         * lines. */
        uint32_t tests[8];
        uint32_t ntests = test_lines(w, L, li, nl, &ll, tests);
        uint32_t nev = bs_lines_from(w->ev, ll.nev, bs_loop_start(ll.first_stmt, tests, ntests), ll.steps, ll.nsteps);
        uint32_t first = 0, last = 0;
        bs_line_cluster(w->ev, nev, w->latch_line[li], nl, &first, &last);
        if (!first) continue;
        if (place_loop(B, w, L, li, &ll, first, last) < 0) break;
    }
    free(cnt);
}

/* The outlined region body passed to the OpenMP fork call at instruction i
 * of block b: the function of this binary whose entry the last
 * `lea fn(%rip), reg` before the call in its block computes (gcc passes it
 * in %rdi to GOMP_parallel, clang in %rdx to __kmpc_fork_call), when its
 * name is that of an outlined body; NULL otherwise. */
static const char *outlined_arg(const struct builder *B, const struct fwork *w, size_t i, uint32_t b)
{
    char buf[512];
    for (size_t k = i; k-- > w->cfg.first[b] && i - k <= 32;) {
        if (!(w->ins[k].flags & BS_F_LEA_RIP)) continue;
        const char *n = entry_name(B, w->ins[k].target);
        if (n && an_omp_outlined_parent(n, buf, sizeof buf)) return n;
    }
    /* a fork inside a loop: gcc hoists the body's address out of it (into a
     * callee-saved register); the last such lea before the call then */
    for (size_t k = i; k-- > 0;) {
        if (!(w->ins[k].flags & BS_F_LEA_RIP)) continue;
        const char *n = entry_name(B, w->ins[k].target);
        if (n && an_omp_outlined_parent(n, buf, sizeof buf)) return n;
    }
    return NULL;
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
            uint32_t t = bs_insn_lower_bound(w->ins, w->n, x->target);
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
        const char *file = !strcmp(w->base[i], bs_base_of(f->scope[s].decl_file)) ? f->scope[s].decl_file
                                                                               : bs_dwarf_file(&B->dw, f, x->addr);
        scalana_mpi_op op = name ? scalana_mpi_op_from_name(name) : SCALANA_MPI_OP_NONE;
        const char *nm_omp = NULL;
        int gop = name ? scalana_gpu_psg_op(name) : -1; /* as the compiler pass does */
        if (gop >= 0) {
            const char *nm = an_intern(&B->pool, name);
            add_leaf(B, w, s, b, PSG_GPU, (uint32_t)gop, file, w->line[i], w->col[i], nm, an_demangle(&B->pool, nm));
        } else if (op != SCALANA_MPI_OP_NONE) {
            const char *nm = an_intern(&B->pool, name);
            add_leaf(B, w, s, b, PSG_MPI, op, file, w->line[i], w->col[i], nm, nm);
        } else if (name && an_omp_fork_entry(name) && (nm_omp = outlined_arg(B, w, i, b))) {
            /* an OpenMP fork: the region's outlined body is called from here */
            add_leaf(B, w, s, b, PSG_CALL, 0, file, w->line[i], w->col[i], nm_omp, an_demangle(&B->pool, nm_omp));
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
        uint32_t ei = bs_insn_lower_bound(w->ins, w->n, c->entry);
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
    /* without DWARF nothing in it has a line to be attributed by: a function
     * known only from the symbol table is not disassembled (calls into it
     * from code with lines still name it) */
    if (!f->cu) return;
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
        if ((w.afn[s] = bs_fn_of(B, &f->scope[s])) == UNDEF) goto out;
    w.owner = calloc(w.n, sizeof *w.owner);
    w.line = calloc(w.n, sizeof *w.line);
    w.col = calloc(w.n, sizeof *w.col);
    w.base = calloc(w.n, sizeof *w.base);
    if (!w.owner || !w.line || !w.col || !w.base) { B->oom = 1; goto out; }
    for (uint32_t s = 1; s < f->nscopes; s++)
        for (uint32_t r = 0; r < f->scope[s].nranges; r++)
            for (uint32_t i = bs_insn_lower_bound(w.ins, w.n, f->scope[s].ranges[r][0]);
                 i < w.n && w.ins[i].addr < f->scope[s].ranges[r][1]; i++)
                if (f->scope[s].depth > f->scope[w.owner[i]].depth) w.owner[i] = s;
    uint64_t *row = malloc(w.n * sizeof *row);
    if (!row) { B->oom = 1; goto out; }
    for (size_t i = 0; i < w.n; i++)
        if (bs_dwarf_line(f, w.ins[i].addr, &w.base[i], &w.line[i], &w.col[i], &row[i]) != 0)
            w.line[i] = 0, w.base[i] = "", row[i] = w.ins[i].addr;
    if (bs_cfg_build(w.ins, w.n, top->entry, bs_elf_read, &B->elf, &w.cfg) != 0 || bs_loops_find(&w.cfg, &w.L) != 0) {
        free(row);
        B->oom = 1;
        goto out;
    }
    /* A block that nothing falls into (after a jump or a return) and whose
     * first row starts before it has no line of its own: gcc emits no row
     * for the blocks it moves out of line after a function's return, and
     * the lookup would give them the return's line. */
    for (uint32_t b = 0; b < w.cfg.nblocks; b++) {
        uint32_t i0 = w.cfg.first[b], p = i0;
        /* the instruction before, over alignment nops */
        while (p > 0 && (w.ins[p - 1].flags & BS_F_NOP) && w.ins[p - 1].addr + w.ins[p - 1].size == w.ins[p].addr) p--;
        const struct bs_insn *prev = p ? &w.ins[p - 1] : NULL;
        int fall = prev && prev->addr + prev->size == w.ins[p].addr &&
                   (prev->kind == BS_I_OTHER || prev->kind == BS_I_JCC || prev->kind == BS_I_CALL ||
                    prev->kind == BS_I_CALL_IND);
        if (fall || row[i0] >= w.ins[i0].addr) continue;
        for (uint32_t i = i0; i < i0 + w.cfg.count[b] && row[i] < w.ins[i0].addr; i++) w.line[i] = 0, w.base[i] = "";
    }
    free(row);
    w.stmt = malloc(w.n * sizeof *w.stmt);
    w.stmt0 = malloc(w.n * sizeof *w.stmt0);
    if (!w.stmt || !w.stmt0) { B->oom = 1; goto out; }
    bs_dwarf_stmt_lines(f, w.ins, w.n, w.base, w.stmt, w.stmt0);
    /* the function's closing line: that of its last return, when no code of
     * its own lies below it (returns on other lines are tail-duplicated
     * `return` statements and loop guards, which belong where they are) */
    {
        uint32_t close = 0, below = 0;
        const char *fb = bs_base_of(f->scope[0].decl_file);
        for (size_t i = 0; i < w.n; i++) {
            if (!w.line[i] || w.owner[i] != 0 || strcmp(w.base[i], fb) != 0) continue;
            if (w.ins[i].kind == BS_I_RET && w.line[i] > close) close = w.line[i];
            if (w.ins[i].kind != BS_I_RET && !(w.ins[i].flags & BS_F_NO_LINE) && w.line[i] > below) below = w.line[i];
        }
        if (close && close >= below) w.ret_line[w.nret++] = close;
    }
    for (size_t i = 0; i < w.n; i++) {
        uint32_t s = w.owner[i];
        struct afn *a = &B->fn[w.afn[s]];
        if (w.line[i] && !strcmp(w.base[i], bs_base_of(a->file)) && (!f->scope[s].decl_line || w.line[i] >= f->scope[s].decl_line) &&
            w.line[i] > a->last)
            a->last = w.line[i];
    }
    w.loop_owner = calloc(w.L.n + 1, sizeof *w.loop_owner);
    w.loop_node = calloc(w.L.n + 1, sizeof *w.loop_node);
    w.latch_line = calloc(w.L.n + 1, sizeof *w.latch_line);
    w.ev = malloc((3 * w.n + f->nscopes + 1) * sizeof *w.ev); /* a line and two statements per instruction */
    w.inner = malloc((w.cfg.nblocks + 1) * sizeof *w.inner);
    if (!w.loop_owner || !w.loop_node || !w.latch_line || !w.inner || !w.ev) { B->oom = 1; goto out; }
    for (uint32_t b = 0; b < w.cfg.nblocks; b++) w.inner[b] = UNDEF;
    /* loops come outer first: the last one holding a block is its innermost */
    for (uint32_t l = 0; l < w.L.n; l++)
        for (uint32_t k = 0; k < w.L.loop[l].nblocks; k++) w.inner[w.L.loop[l].blocks[k]] = l;
    do_loops(B, &w);
    do_calls(B, &w);
out:
    bs_loops_free(&w.L);
    bs_cfg_free(&w.cfg);
    free(w.ins), free(w.owner), free(w.line), free(w.col), free(w.base), free(w.afn), free(w.stmt), free(w.stmt0);
    free(w.loop_owner), free(w.loop_node), free(w.latch_line), free(w.inner), free(w.ev);
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
    if (bs_serialise(&B, path, language, out, out_bytes) != 0) {
        snprintf(err, errlen, "%s: out of memory writing its recovered PSG", path);
        goto done;
    }
    if (nloops) *nloops = B.loops;
    rc = 0;
done:
    free(B.entries);
    free(B.t), free(B.fn), sc_hash_free(&B.fn_index);
    bs_dwarf_free(&B.dw);
    bs_disasm_free(B.dis);
    bs_elf_close(&B.elf);
    an_strpool_free(&B.pool);
    return rc;
}
