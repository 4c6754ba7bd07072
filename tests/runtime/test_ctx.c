/* test_ctx.c — the MPI context table never merges distinct call paths:
 * with a path hash that collides for every path (a stand-in for the real
 * rt_path_hash, rt_path.c), each path still gets a context of its own, found
 * again on the next call (rt_stats.c compares the paths); and
 * the calling-context tree grows past its first mapping without losing or
 * merging nodes (rt_cct.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "core/rt_core.h"
#include "tables/rt_tables.h"

/* Every path has the same hash: the worst case of a weak hash. */

uint64_t rt_path_hash(void *const *frames, int n)
{
    (void)frames;
    (void)n;
    return 0x1234;
}

static void test_colliding_paths(void **state)
{
    (void)state;
    static struct rt_thread t;
    assert_int_equal(rt_cct_init(&t.cct, 1u << 20, 0), 0);
    enum { NPATH = 3000 };
    uint32_t ids[NPATH];
    void *f[3];
    for (int round = 0; round < 2; round++)
        for (uintptr_t i = 0; i < NPATH; i++) {
            /* distinct paths sharing prefixes: leaf, middle, outer frames */
            f[0] = (void *)(0x1000 + (i % 7) * 16);
            f[1] = (void *)(0x2000 + (i / 7 % 11) * 16);
            f[2] = (void *)(0x3000 + i / 77 * 16);
            uint32_t node = PRF_NONE;
            uint32_t id = rt_ctx_get(&t, f, 3, 0, 100, 1, 0, &node);
            assert_int_not_equal(id, UINT32_MAX);
            if (round == 0)
                ids[i] = id;
            else
                assert_int_equal(id, ids[i]); /* found again, not a new one */
            rt_ctx_add(id, 10, 1, 0);
        }
    uint32_t n = 0;
    struct rt_ctx *c = rt_ctx_array(&n);
    assert_int_equal(n, NPATH);
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(c[i].calls, 2);
    /* the same path with another operation or truncated is another context */
    uint32_t node;
    f[0] = (void *)0x1000, f[1] = (void *)0x2000, f[2] = (void *)0x3000;
    uint32_t a = rt_ctx_get(&t, f, 3, 0, 100, 1, 0, &node);
    assert_int_equal(a, ids[0]);
    assert_int_not_equal(rt_ctx_get(&t, f, 3, 0, 101, 1, 0, &node), a);
    assert_int_not_equal(rt_ctx_get(&t, f, 3, 1, 100, 1, 0, &node), a);
    assert_int_not_equal(rt_ctx_get(&t, f, 2, 0, 100, 1, 0, &node), a);
}

static void test_tree_grows(void **state)
{
    (void)state;
    struct rt_cct c;
    uint32_t want = 3 * RT_CCT_INITIAL;
    assert_int_equal(rt_cct_init(&c, want + 8, 0), 0);
    assert_int_equal(c.cap, RT_CCT_INITIAL);
    void *f[2];
    uint32_t *leaf = malloc(want * sizeof *leaf);
    assert_non_null(leaf);
    for (uint32_t i = 0; i < want / 2; i++) {
        f[0] = (void *)(uintptr_t)(0x100000 + i * 4);
        f[1] = (void *)(uintptr_t)(0x10 + (i % 3) * 4);
        leaf[i] = rt_cct_insert(&c, f, 2, PRF_CCT_PC, 0);
    }
    assert_true(c.cap > RT_CCT_INITIAL);
    assert_int_equal(c.overflow_node, PRF_NONE);
    assert_int_equal(c.count, 1 + 3 + want / 2);
    for (uint32_t i = 0; i < want / 2; i++) {
        f[0] = (void *)(uintptr_t)(0x100000 + i * 4);
        f[1] = (void *)(uintptr_t)(0x10 + (i % 3) * 4);
        assert_int_equal(rt_cct_insert(&c, f, 2, PRF_CCT_PC, 0), leaf[i]);
        assert_int_equal(c.nodes[leaf[i]].address, 0x100000 + i * 4);
        assert_int_equal(c.nodes[c.nodes[leaf[i]].parent].address, 0x10 + (i % 3) * 4);
    }
    free(leaf);
}

int main(void)
{
    rt_g.world_rank = 1;
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_colliding_paths),
                                       cmocka_unit_test(test_tree_grows)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
