/* test_psg_index.c — cmocka unit tests of lookups on the embedded PSG (analyzer/psg_index.c):
 * descent to the deepest vertex holding a source location. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analyzer.h"
#include "detect.h"
#include "unit_helpers.h"

#include <dlfcn.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void t_psg_descend(void **state)
{
    (void)state;
    struct psg_graph g = build_psg();
    struct an_psg x;
    assert_int_equal(an_psg_index(&x, &g), 0);
    uint32_t u, fi;
    assert_true(an_psg_function(&x, "unit_kernel", &u, &fi));
    assert_false(an_psg_function(&x, "nope", &u, &fi));
    uint32_t chain[8];
    uint32_t n = an_psg_descend(&x, u, fi, UNIT_CODE_FILE, (uint32_t)KERNEL_FIRST + 5, 0, 0, chain, 8);
    assert_int_equal(n, 2);
    assert_int_equal(g.units[u].vertices[chain[0]].kind, PSG_LOOP);
    assert_int_equal(g.units[u].vertices[chain[1]].kind, PSG_COMPUTE);
    /* a line outside every child stays on the function */
    assert_int_equal(an_psg_descend(&x, u, fi, UNIT_CODE_FILE, (uint32_t)KERNEL_FIRST + 1, 0, 0, chain, 8), 0);
    /* a call site picks the CALL vertex */
    assert_true(an_psg_function(&x, "unit_main", &u, &fi));
    n = an_psg_descend(&x, u, fi, UNIT_CODE_FILE, (uint32_t)CALL_LINE, 5, 1, chain, 8);
    assert_int_equal(n, 1);
    assert_int_equal(g.units[u].vertices[chain[0]].kind, PSG_CALL);
    an_psg_free(&x);
    psg_graph_free(&g);
}

int main(void)
{
    unit_setup();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_psg_descend),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
