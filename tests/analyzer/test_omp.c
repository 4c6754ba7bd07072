/* test_omp.c — cmocka unit tests of analyzer/read/omp.c: which sampled calling
 * contexts were inside an OpenMP runtime (an_omp_runtime_nodes), and the
 * names of OpenMP code. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "read/omp.h"
#include "scalana/profile_format.h"

#include <stdlib.h>
#include <string.h>

/* modules: 0 the program, 1 libc, 2 libomp, 3 libm; strings at their offsets */
static const char strtab[] = "\0/work/app\0/usr/lib/x86_64-linux-gnu/libc.so.6\0/usr/lib/llvm-19/lib/libomp.so.5\0"
                             "/usr/lib/x86_64-linux-gnu/libm.so.6";

static void rank_with(struct prf_rank_data *d, struct prf_module *mod, struct prf_cct_node *cct, uint32_t n)
{
    memset(d, 0, sizeof *d);
    d->strings = strtab, d->strings_bytes = sizeof strtab;
    uint32_t off = 1;
    for (uint32_t m = 0; m < 4; m++) {
        mod[m] = (struct prf_module){.path = off, .build_id = 0};
        off += (uint32_t)strlen(strtab + off) + 1;
    }
    d->modules = mod, d->module_count = 4;
    d->cct = cct, d->cct_count = n;
}

static void t_runtime_nodes(void **state)
{
    (void)state;
    struct prf_module mod[4];
    /* 0 root; 1 main (app); 2 the fork in libomp; 3 futex in libc below it;
     * 4 memcpy in libc below main; 5 exp in libm below the fork; 6 libc below
     * libc below libomp; 7 libc at a thread's root (no caller known) */
    struct prf_cct_node cct[] = {
        {PRF_NONE, PRF_NONE, 0, PRF_CCT_ROOT, 0}, {0, 0, 0x10, PRF_CCT_CALLSITE, 0},
        {1, 2, 0x20, PRF_CCT_CALLSITE, 0},        {2, 1, 0x30, PRF_CCT_PC, 0},
        {1, 1, 0x40, PRF_CCT_PC, 0},              {2, 3, 0x50, PRF_CCT_PC, 0},
        {3, 1, 0x60, PRF_CCT_PC, 0},              {0, 1, 0x70, PRF_CCT_PC, 0},
    };
    struct prf_rank_data d;
    rank_with(&d, mod, cct, 8);
    uint8_t *in = an_omp_runtime_nodes(&d);
    const uint8_t want[] = {0, 0, 1, 1, 0, 0, 1, 0};
    for (uint32_t k = 0; k < 8; k++) assert_int_equal(in[k], want[k]);
    free(in);
}

static void t_runtime_nodes_cycle(void **state)
{
    (void)state;
    struct prf_module mod[4];
    /* a corrupt parent chain of libc frames that loops: cut, not followed */
    struct prf_cct_node cct[] = {{1, 1, 0x10, PRF_CCT_PC, 0}, {0, 1, 0x20, PRF_CCT_PC, 0},
                                 {7, 1, 0x30, PRF_CCT_PC, 0}};
    struct prf_rank_data d;
    rank_with(&d, mod, cct, 3);
    uint8_t *in = an_omp_runtime_nodes(&d);
    for (uint32_t k = 0; k < 3; k++) assert_int_equal(in[k], 0);
    free(in);
}

static void t_names(void **state)
{
    (void)state;
    char buf[64];
    assert_string_equal(an_omp_outlined_parent("main._omp_fn.0", buf, sizeof buf), "main");
    assert_string_equal(an_omp_outlined_parent(".omp_outlined.", buf, sizeof buf), "");
    assert_null(an_omp_outlined_parent("relax", buf, sizeof buf));
    assert_true(an_omp_fork_entry("GOMP_parallel"));
    assert_false(an_omp_fork_entry("GOMP_barrier"));
    assert_true(an_omp_runtime_function("__kmpc_barrier"));
    assert_false(an_omp_runtime_function("main"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_runtime_nodes),
        cmocka_unit_test(t_runtime_nodes_cycle),
        cmocka_unit_test(t_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
