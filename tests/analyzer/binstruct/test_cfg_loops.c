/* test_cfg_loops.c — cmocka unit tests of the machine-code CFG (cfg.c) and
 * the natural loops (loops.c) on constructed instruction streams, for the
 * shapes real binaries rarely show on demand: a self loop, two back edges
 * into one header, a loop nest with an early exit, an irreducible cycle
 * (two entries: no loop), unreachable code, a jump table read through the
 * file (gcc's relative int32 table, bounded by its `cmp`), an indirect jump
 * that cannot be resolved (edges to the unreached blocks), a tail call;
 * and the start of a loop's lines (lines.c): strays before its first
 * statement dropped, its increments and a rotated body kept. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "binstruct.h"
#include "tree.h"

#include <stdlib.h>
#include <string.h>

/* Instructions 4 bytes apart from 0x1000: I(k) is the address of the k-th. */
#define I(k) (0x1000u + 4u * (k))

static struct bs_insn ins(unsigned k, unsigned kind, unsigned target_k)
{
    struct bs_insn x = {I(k), 0, 4, (uint8_t)kind, 0};
    if (kind == BS_I_JMP || kind == BS_I_JCC || kind == BS_I_CALL) x.target = I(target_k);
    return x;
}

static void build(struct bs_insn *v, size_t n, struct bs_cfg *c, struct bs_loops *l, bs_read_fn rd, void *ctx)
{
    assert_int_equal(bs_cfg_build(v, n, I(0), rd, ctx, c), 0);
    assert_int_equal(bs_loops_find(c, l), 0);
}

/* the block starting at instruction k */
static uint32_t blk(const struct bs_cfg *c, unsigned k)
{
    uint32_t b = bs_cfg_block_of(c, k);
    assert_int_equal(c->first[b], k);
    return b;
}

static int has_edge(const struct bs_cfg *c, uint32_t from, uint32_t to)
{
    for (uint32_t k = c->succ_off[from]; k < c->succ_off[from + 1]; k++)
        if (c->succ[k] == to) return 1;
    return 0;
}

static void free_all(struct bs_cfg *c, struct bs_loops *l)
{
    bs_loops_free(l);
    bs_cfg_free(c);
}

/* 0: x  1: jcc 1 (self loop)  2: ret */
static void t_self_loop(void **state)
{
    (void)state;
    struct bs_insn v[] = {ins(0, BS_I_OTHER, 0), ins(1, BS_I_JCC, 1), ins(2, BS_I_RET, 0)};
    struct bs_cfg c;
    struct bs_loops l;
    build(v, 3, &c, &l, NULL, NULL);
    assert_int_equal(c.nblocks, 3);
    assert_int_equal(l.n, 1);
    assert_int_equal(l.loop[0].header, blk(&c, 1));
    assert_int_equal(l.loop[0].nblocks, 1);
    assert_int_equal(l.loop[0].nlatches, 1);
    free_all(&c, &l);
}

/* a `continue` and the bottom test both jump back to the header at 1:
 * 0: x  1: jcc 4  2: jcc 1 (continue)  3: jcc 1 (latch)  4: ret */
static void t_two_back_edges(void **state)
{
    (void)state;
    struct bs_insn v[] = {ins(0, BS_I_OTHER, 0), ins(1, BS_I_JCC, 4), ins(2, BS_I_JCC, 1),
                          ins(3, BS_I_JCC, 1), ins(4, BS_I_RET, 0)};
    struct bs_cfg c;
    struct bs_loops l;
    build(v, 5, &c, &l, NULL, NULL);
    assert_int_equal(l.n, 1); /* one loop per header */
    assert_int_equal(l.loop[0].header, blk(&c, 1));
    assert_int_equal(l.loop[0].nlatches, 2);
    assert_int_equal(l.loop[0].nblocks, 3); /* 1, 2, 3 */
    assert_false(bs_loop_has(&l.loop[0], blk(&c, 4)));
    free_all(&c, &l);
}

/* an outer loop (header 1) around an inner one (header 2) with an early exit:
 * 0: x  1: x  2: x  3: jcc 7 (exit)  4: jcc 2 (inner latch)  5: x  6: jcc 1 (outer latch)  7: ret */
static void t_nest(void **state)
{
    (void)state;
    struct bs_insn v[] = {ins(0, BS_I_OTHER, 0), ins(1, BS_I_OTHER, 0), ins(2, BS_I_OTHER, 0),
                          ins(3, BS_I_JCC, 7), ins(4, BS_I_JCC, 2), ins(5, BS_I_OTHER, 0),
                          ins(6, BS_I_JCC, 1), ins(7, BS_I_RET, 0)};
    struct bs_cfg c;
    struct bs_loops l;
    build(v, 8, &c, &l, NULL, NULL);
    assert_int_equal(l.n, 2);
    /* outer first */
    assert_int_equal(l.loop[0].header, blk(&c, 1));
    assert_int_equal(l.loop[0].parent, UINT32_MAX);
    assert_int_equal(l.loop[0].depth, 0);
    assert_int_equal(l.loop[1].header, blk(&c, 2));
    assert_int_equal(l.loop[1].parent, 0);
    assert_int_equal(l.loop[1].depth, 1);
    assert_true(bs_loop_has(&l.loop[0], blk(&c, 5)));
    assert_false(bs_loop_has(&l.loop[1], blk(&c, 5)));
    assert_false(bs_loop_has(&l.loop[0], blk(&c, 7)));
    free_all(&c, &l);
}

/* a cycle entered at two places (2 and 3) from the entry: no header
 * dominates the other, so no natural loop; counted as irreducible.
 * 0: jcc 3  1: jmp 2  2: x  3: jcc 2  4: ret   (2 -> 3 by fall-through, 3 -> 2) */
static void t_irreducible(void **state)
{
    (void)state;
    struct bs_insn v[] = {ins(0, BS_I_JCC, 3), ins(1, BS_I_JMP, 2), ins(2, BS_I_OTHER, 0),
                          ins(3, BS_I_JCC, 2), ins(4, BS_I_RET, 0)};
    struct bs_cfg c;
    struct bs_loops l;
    build(v, 5, &c, &l, NULL, NULL);
    assert_int_equal(l.n, 0);
    assert_int_equal(l.irreducible, 1);
    free_all(&c, &l);
}

/* code after a return that nothing jumps to: no edge into it, its cycle is
 * unreachable and makes no loop.  0: ret  1: x  2: jcc 1  3: ret */
static void t_unreachable(void **state)
{
    (void)state;
    struct bs_insn v[] = {ins(0, BS_I_RET, 0), ins(1, BS_I_OTHER, 0), ins(2, BS_I_JCC, 1), ins(3, BS_I_RET, 0)};
    struct bs_cfg c;
    struct bs_loops l;
    build(v, 4, &c, &l, NULL, NULL);
    assert_int_equal(l.n, 0);
    free_all(&c, &l);
}

/* the bytes of a fake text section for jump tables: [table at 0x2000] */
struct fake_mem { uint64_t base; unsigned char b[64]; };
static int fake_read(void *ctx, uint64_t addr, void *out, size_t n)
{
    struct fake_mem *m = ctx;
    if (addr < m->base || addr + n > m->base + sizeof m->b) return -1;
    memcpy(out, m->b + (addr - m->base), n);
    return 0;
}

/* a loop around a switch through gcc's relative table:
 * 0: x (header)  1: cmp $2  2: ja 9  3: lea T(%rip)  4: jmp *  5: x; jmp 8  6: x; jmp 8  7: x
 * 8: jcc 0 (latch)  9: ret ; T holds int32 offsets of 5, 6, 7 from T, then garbage */
static void t_jump_table(void **state)
{
    (void)state;
    struct fake_mem m = {0x2000, {0}};
    int32_t off[4] = {(int32_t)(I(5) - 0x2000), (int32_t)(I(6) - 0x2000), (int32_t)(I(7) - 0x2000),
                      (int32_t)(I(0) - 0x2000)}; /* a 4th entry past the bound: must not be read */
    memcpy(m.b, off, sizeof off);
    struct bs_insn v[] = {ins(0, BS_I_OTHER, 0), ins(1, BS_I_OTHER, 0), ins(2, BS_I_JCC, 9),
                          ins(3, BS_I_OTHER, 0), ins(4, BS_I_JMP_IND, 0), ins(5, BS_I_JMP, 8),
                          ins(6, BS_I_JMP, 8), ins(7, BS_I_OTHER, 0), ins(8, BS_I_JCC, 0), ins(9, BS_I_RET, 0)};
    v[1].flags = BS_F_CMP_IMM, v[1].target = 2;
    v[3].flags = BS_F_LEA_RIP, v[3].target = 0x2000;
    struct bs_cfg c;
    struct bs_loops l;
    build(v, 10, &c, &l, fake_read, &m);
    uint32_t sw = blk(&c, 3);
    assert_true(has_edge(&c, sw, blk(&c, 5)));
    assert_true(has_edge(&c, sw, blk(&c, 6)));
    assert_true(has_edge(&c, sw, blk(&c, 7)));
    assert_false(has_edge(&c, sw, blk(&c, 0))); /* the bound stopped the read */
    assert_int_equal(c.unresolved_indirect, 0);
    assert_int_equal(l.n, 1);
    assert_int_equal(l.loop[0].header, blk(&c, 0));
    for (unsigned k = 0; k <= 8; k++) assert_true(bs_loop_has(&l.loop[0], bs_cfg_block_of(&c, k)));
    free_all(&c, &l);
}

/* the same loop with an indirect jump nothing explains: the case blocks
 * nothing else reaches get edges from it, so the loop is still found */
static void t_unresolved_indirect(void **state)
{
    (void)state;
    struct bs_insn v[] = {ins(0, BS_I_OTHER, 0), ins(1, BS_I_JMP_IND, 0), ins(2, BS_I_JMP, 4),
                          ins(3, BS_I_OTHER, 0), ins(4, BS_I_JCC, 0), ins(5, BS_I_RET, 0)};
    struct bs_cfg c;
    struct bs_loops l;
    build(v, 6, &c, &l, NULL, NULL);
    assert_int_equal(c.unresolved_indirect, 1);
    assert_true(has_edge(&c, blk(&c, 0), blk(&c, 2)));
    assert_true(has_edge(&c, blk(&c, 0), blk(&c, 3)));
    assert_int_equal(l.n, 1);
    assert_true(bs_loop_has(&l.loop[0], blk(&c, 2)));
    assert_true(bs_loop_has(&l.loop[0], blk(&c, 3)));
    free_all(&c, &l);
}

/* a jump out of the function (a tail call) has no edge; a call falls through
 * 0: call X  1: jcc 0  2: jmp (outside) */
static void t_tail_call(void **state)
{
    (void)state;
    struct bs_insn v[] = {ins(0, BS_I_CALL, 0), ins(1, BS_I_JCC, 0), ins(2, BS_I_JMP, 0)};
    v[0].target = 0x9000, v[2].target = 0x9000;
    struct bs_cfg c;
    struct bs_loops l;
    build(v, 3, &c, &l, NULL, NULL);
    uint32_t last = bs_cfg_block_of(&c, 2);
    assert_int_equal(c.succ_off[last + 1] - c.succ_off[last], 0);
    assert_int_equal(l.n, 1); /* 0 -> 1 -> 0 */
    free_all(&c, &l);
}

/* A loop's lines from its first statement or test on: the stray line of
 * code gcc placed in the loop for the statement before it is dropped, the
 * line of its increment is not, lines before the start that are a quarter
 * of the loop are a rotated body; an unknown start keeps everything. */
static void t_loop_start(void **state)
{
    (void)state;
    const uint32_t tests[] = {25, 0};
    assert_int_equal(bs_loop_start(23, tests, 2), 23); /* a statement before the test */
    assert_int_equal(bs_loop_start(26, tests, 2), 25); /* the test first (a `for`) */
    assert_int_equal(bs_loop_start(0, tests, 2), 0);   /* no statement begins in it: unknown */
    uint32_t ev[] = {37, 36, 38, 39, 39, 40, 41, 37, 38, 41};
    uint32_t n = bs_lines_from(ev, 10, 37, NULL, 0);
    assert_int_equal(n, 9);
    for (uint32_t i = 0; i < n; i++) assert_true(ev[i] >= 37);
    assert_int_equal(ev[0], 37), assert_int_equal(ev[1], 38); /* the order is kept */
    uint32_t ev2[] = {21, 22, 19, 22, 21, 19, 22, 22, 21, 21};
    const uint32_t step = 19; /* `i++` of a split `for`: add $1 on its line */
    assert_int_equal(bs_lines_from(ev2, 10, 21, &step, 1), 10);
    uint32_t ev3[] = {326, 327, 328, 330, 335, 336, 337, 338, 339, 335};
    assert_int_equal(bs_lines_from(ev3, 10, 330, NULL, 0), 10); /* 3 of 10 before 330: a rotated body */
    uint32_t ev4[] = {5, 9, 9};
    assert_int_equal(bs_lines_from(ev4, 3, 0, NULL, 0), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_loop_start),
        cmocka_unit_test(t_self_loop),       cmocka_unit_test(t_two_back_edges),
        cmocka_unit_test(t_nest),            cmocka_unit_test(t_irreducible),
        cmocka_unit_test(t_unreachable),     cmocka_unit_test(t_jump_table),
        cmocka_unit_test(t_unresolved_indirect), cmocka_unit_test(t_tail_call),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
