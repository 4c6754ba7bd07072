/* tree.h — the trees recovery builds, one per source function, before they
 * become one PSG unit (internal to analyzer/binstruct: tree.c keeps them,
 * lines.c names a loop's lines, emit.c serialises, build.c fills them). */
#ifndef SCALANA_BINSTRUCT_TREE_H
#define SCALANA_BINSTRUCT_TREE_H

#include "binstruct.h"
#include "core/types.h"
#include "sc_hash.h"

#define UNDEF UINT32_MAX

/* A vertex of the tree being built (one tree per source function). */
struct tnode {
    uint16_t kind, flags;
    uint32_t op, parent, fn;
    uint32_t kids, next;  /* children as built (most recent first), for bs_find_child */
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

/* The state of one recovery (bs_recover in build.c). */
struct builder {
    struct an_strpool pool;
    struct bs_elf elf;
    struct bs_dwarf dw;
    struct bs_disasm *dis;
    struct tnode *t; size_t nt, capt;
    struct afn *fn; size_t nfn, capfn;
    struct sc_hash fn_index; /* indices into fn, by interned name pointer */
    struct bs_sym *entries; size_t nentries; /* entry address -> frame name of the binary's functions */
    uint32_t loops;
    int oom;
};

/** Base name of a path ("" for NULL). */
const char *bs_base_of(const char *p);
/** Appends a copy of x (linked under x->parent); its index, or UNDEF when
 *  out of memory (B->oom set). */
uint32_t bs_node_new(struct builder *B, const struct tnode *x);
/** The source function of scope s, created with its FUNCTION vertex on
 *  first sight; UNDEF when out of memory. */
uint32_t bs_fn_of(struct builder *B, const struct bs_scope *s);
/** The source function named name (an interned pointer), or UNDEF. */
uint32_t bs_fn_find(const struct builder *B, const char *name);
/** The child of parent that is the same vertex as one of this kind at
 *  first..last (loops: the same first line; calls: the same line, column
 *  and callee), or UNDEF. */
uint32_t bs_find_child(const struct builder *B, uint32_t parent, uint16_t kind, uint32_t first, uint32_t last,
                       uint32_t col, const char *callee);
/** The source lines of one loop from the lines of its instructions
 *  (lines.c; the rule and its measurements are there). */
void bs_line_cluster(uint32_t *ev, uint32_t n, const uint32_t *test, uint32_t nt, uint32_t *first, uint32_t *last);
/** The first line of a loop: the smaller of first_stmt (the smallest line
 *  of a statement that begins inside it) and its test lines test[0..nt)
 *  (its back-edge and exit jumps'); 0, meaning unknown, when first_stmt is
 *  0 (lines.c). */
uint32_t bs_loop_start(uint32_t first_stmt, const uint32_t *test, uint32_t nt);
/** Drops the lines of ev[0..n) before start, except those in own[0..nown)
 *  (lines that step a register inside the loop: its increment); none when
 *  start is 0 or when they are a quarter of the lines or more (the body of
 *  a rotated loop).  Keeps the order of the others; returns how many are
 *  left. */
uint32_t bs_lines_from(uint32_t *ev, uint32_t n, uint32_t start, const uint32_t *own, uint32_t nown);
/** One PSG unit of every tree (emit.c): pre-order, children by line and
 *  column, stable ids as the pass computes them, PSG_V_REACHES_MPI to a
 *  fixed point over the calls.  Returns 0 with *out malloc'ed, -1 out of
 *  memory. */
int bs_serialise(struct builder *B, const char *path, uint32_t language, unsigned char **out, size_t *n);

#endif
