/* tree.c — the per-function trees of recovered vertices: nodes linked to
 * their parents, source functions by name, and finding a vertex seen again
 * (the same loop or call in another machine copy). */
#include "tree.h"

#include <stdlib.h>
#include <string.h>

const char *bs_base_of(const char *p)
{
    const char *s = p ? strrchr(p, '/') : NULL;
    return s ? s + 1 : (p ? p : "");
}

uint32_t bs_node_new(struct builder *B, const struct tnode *x)
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

static uint64_t ptr_key(const void *p) { return (uint64_t)(uintptr_t)p; }

uint32_t bs_fn_of(struct builder *B, const struct bs_scope *s)
{
    struct sc_hash_it it;
    for (uint32_t k = sc_hash_first(&B->fn_index, ptr_key(s->name), &it); k != SC_HASH_NONE;
         k = sc_hash_next(&B->fn_index, &it)) {
        struct afn *a = &B->fn[k];
        if (a->name == s->name) {
            if (!*a->file && *s->decl_file) a->file = s->decl_file;
            if (!a->first && s->decl_line) a->first = s->decl_line;
            return k;
        }
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
    uint32_t root = bs_node_new(B, &r);
    if (root == UNDEF) return UNDEF;
    if (sc_hash_add(&B->fn_index, ptr_key(s->name), id)) { B->oom = 1; return UNDEF; }
    B->fn[B->nfn++] = (struct afn){s->name, s->display, s->decl_file, s->decl_line, s->decl_line, root, 0};
    return id;
}

/* Only the children of parent are scanned: few per parent. */
uint32_t bs_find_child(const struct builder *B, uint32_t parent, uint16_t kind, uint32_t first, uint32_t last,
                       uint32_t col, const char *callee)
{
    for (uint32_t i = B->t[parent].kids; i != UNDEF; i = B->t[i].next) {
        const struct tnode *x = &B->t[i];
        if (x->kind != kind) continue;
        if (kind == PSG_LOOP) {
            /* one source loop in several machine loops (versioned, peeled,
             * in several inlined copies) starts on the same line; a range
             * that merely holds another is kept apart (a machine loop whose
             * lines stray, e.g. code shared by cross-jumping, must not
             * swallow the loops beside it: descent prefers the tighter) */
            (void)last;
            if (x->first == first) return (uint32_t)i;
        } else if (x->first == first && x->col == col && x->callee == callee) {
            return (uint32_t)i;
        }
    }
    return UNDEF;
}

uint32_t bs_fn_find(const struct builder *B, const char *name)
{
    struct sc_hash_it it;
    for (uint32_t k = sc_hash_first(&B->fn_index, ptr_key(name), &it); k != SC_HASH_NONE;
         k = sc_hash_next(&B->fn_index, &it))
        if (B->fn[k].name == name) return k;
    return UNDEF;
}
