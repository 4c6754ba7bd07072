/* test_cct.c — unit tests of the calling-context tree (runtime/callpath/rt_cct.c):
 * paths share prefixes, leaf kinds are distinct, the size cap sends the rest
 * to one overflow node, truncated paths start at the overflow node. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/rt_core.h"
#include "callpath/rt_callpath.h"

/* rt_cct.c needs nothing else from the runtime. */

static void test_prefix_sharing(void **state)
{
    (void)state;
    struct rt_cct c;
    assert_int_equal(rt_cct_init(&c, 64, 7), 0);
    assert_int_equal(c.nodes[0].kind, PRF_CCT_ROOT);
    assert_int_equal(c.nodes[0].address, 7);
    void *a[3] = {(void *)0x30, (void *)0x20, (void *)0x10}; /* leaf first */
    void *b[3] = {(void *)0x31, (void *)0x20, (void *)0x10};
    uint32_t la = rt_cct_insert(&c, a, 3, PRF_CCT_PC, 0);
    uint32_t lb = rt_cct_insert(&c, b, 3, PRF_CCT_PC, 0);
    assert_int_equal(c.count, 5); /* root, 0x10, 0x20, 0x30, 0x31 */
    assert_int_not_equal(la, lb);
    assert_int_equal(c.nodes[la].parent, c.nodes[lb].parent);
    assert_int_equal(c.nodes[c.nodes[la].parent].address, 0x20);
    assert_int_equal(rt_cct_insert(&c, a, 3, PRF_CCT_PC, 0), la); /* found again */
    /* Same address as a call site is a different node. */
    uint32_t ca = rt_cct_insert(&c, a, 3, PRF_CCT_CALLSITE, 0);
    assert_int_not_equal(ca, la);
    assert_int_equal(c.nodes[ca].kind, PRF_CCT_CALLSITE);
    /* A path from the outermost frame: the outermost is the root's child. */
    uint32_t p = la;
    while (c.nodes[p].parent != 0)
        p = c.nodes[p].parent;
    assert_int_equal(c.nodes[p].address, 0x10);
}

static void test_overflow(void **state)
{
    (void)state;
    struct rt_cct c;
    assert_int_equal(rt_cct_init(&c, 8, 0), 0);
    void *f[1];
    uint32_t last = 0;
    for (uintptr_t i = 1; i <= 20; i++) {
        f[0] = (void *)(i * 16);
        last = rt_cct_insert(&c, f, 1, PRF_CCT_PC, 0);
    }
    assert_true(c.count <= 8);
    assert_int_not_equal(c.overflow_node, PRF_NONE);
    assert_int_equal(last, c.overflow_node);
    assert_int_equal(c.nodes[c.overflow_node].kind, PRF_CCT_OVERFLOW);
    assert_int_equal(c.nodes[c.overflow_node].parent, 0);
    assert_true(c.overflow >= 12);
}

static void test_truncated(void **state)
{
    (void)state;
    struct rt_cct c;
    assert_int_equal(rt_cct_init(&c, 64, 0), 0);
    void *f[2] = {(void *)0x2, (void *)0x1};
    uint32_t leaf = rt_cct_insert(&c, f, 2, PRF_CCT_PC, 1);
    uint32_t p = c.nodes[leaf].parent;
    p = c.nodes[p].parent;
    assert_int_equal(c.nodes[p].kind, PRF_CCT_OVERFLOW);
    assert_int_equal(c.overflow, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prefix_sharing),
        cmocka_unit_test(test_overflow),
        cmocka_unit_test(test_truncated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
