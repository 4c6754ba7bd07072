/* test_graph.c — cmocka unit tests of the vertex table (analyzer/core/graph.c): (parent, key) found
 * again, children in program order. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/graph.h"
#include "core/types.h"
#include "scalana/psg_format.h"
#include "unit_helpers.h"

#include <dlfcn.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- tests ------------------------------------------------------------------ */
static void t_graph(void **state)
{
    (void)state;
    struct an_graph g;
    an_graph_init(&g);
    int c1, c2;
    uint32_t a = an_graph_get(&g, AN_NONE, 42, &c1), b = an_graph_get(&g, AN_NONE, 42, &c2);
    assert_int_equal(a, b);
    assert_true(c1 && !c2);
    for (int i = 0; i < 5000; i++) an_graph_get(&g, a, (uint64_t)i, NULL);
    assert_int_equal(g.n, 5001);
    assert_int_equal(an_graph_find(&g, a, 4999), 5000);
    uint32_t x = add_v(&g, a, PSG_COMPUTE, "late", 30, 0), y = add_v(&g, a, PSG_COMPUTE, "early", 3, 0);
    g.v[x].order = 300000, g.v[y].order = 1;
    an_graph_sort_children(&g);
    assert_int_equal(g.v[a].first_child, 0 + 1); /* key 0 has order 0 */
    assert_true(an_graph_is_ancestor(&g, a, x));
    assert_false(an_graph_is_ancestor(&g, x, a));
    assert_ptr_equal(an_intern(&g.strings, "abc"), an_intern(&g.strings, "abc"));
    an_graph_free(&g);
}

int main(void)
{
    unit_setup();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_graph),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
