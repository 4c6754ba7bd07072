/* test_psg_index.c — cmocka unit tests of lookups on the embedded PSG (analyzer/read/psg_index.c):
 * descent to the deepest vertex holding a source location; thin MPI wrappers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "read/psg_index.h"
#include "scalana/psg_format.h"
#include "unit_helpers.h"
#include "scalana/mpi_ops.h"

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

/* FUNCTION `name` with the given children (kind, op; a child of kind
 * PSG_LOOP gets an MPI vertex below it when nested is set). */
static void add_fn(struct psg_builder *b, const char *name, const uint16_t *kinds, int nk, int nested, uint64_t *id)
{
    struct psg_vertex v;
    memset(&v, 0, sizeof v);
    v.kind = PSG_FUNCTION, v.parent = PSG_NO_PARENT, v.file = "/w/mpistubs.c", v.function = name;
    v.first_line = 10, v.last_line = 20, v.stable_id = ++*id;
    uint32_t f = psg_builder_add(b, &v);
    for (int k = 0; k < nk; k++) {
        v.kind = kinds[k], v.parent = f, v.first_line = v.last_line = 12 + (uint32_t)k, v.stable_id = ++*id;
        v.op = kinds[k] == PSG_MPI ? SCALANA_MPI_OP_Waitall : 0;
        v.callee = kinds[k] == PSG_CALL ? "helper" : NULL;
        v.column = 5;
        uint32_t c = psg_builder_add(b, &v);
        if (nested && kinds[k] == PSG_LOOP) {
            v.kind = PSG_MPI, v.parent = c, v.op = SCALANA_MPI_OP_Waitall, v.stable_id = ++*id;
            psg_builder_add(b, &v);
        }
    }
}

/* A function whose PSG is one MPI vertex and nothing else is a thin MPI
 * wrapper (hypre's hypre_MPI_Waitall); with a loop, a computation, another
 * call or a second MPI call it is not, nor is main. */
static void t_thin_mpi_wrapper(void **state)
{
    (void)state;
    struct psg_builder *b = psg_builder_new("/w/mpistubs.c", "test", PSG_LANG_C, PSG_UNIT_HAS_DEBUG_INFO, 10);
    uint64_t id = 0;
    const uint16_t mpi[] = {PSG_MPI}, two[] = {PSG_MPI, PSG_MPI}, comp[] = {PSG_COMPUTE, PSG_MPI},
                   call[] = {PSG_MPI, PSG_CALL}, loop[] = {PSG_LOOP};
    add_fn(b, "hypre_MPI_Waitall", mpi, 1, 0, &id);
    add_fn(b, "two_calls", two, 2, 0, &id);
    add_fn(b, "with_work", comp, 2, 0, &id);
    add_fn(b, "with_call", call, 2, 0, &id);
    add_fn(b, "in_loop", loop, 1, 1, &id);
    add_fn(b, "nothing", NULL, 0, 0, &id);
    add_fn(b, "main", mpi, 1, 0, &id);
    unsigned char *bytes;
    size_t n;
    assert_int_equal(psg_builder_finish(b, &bytes, &n), 0);
    psg_builder_free(b);
    struct psg_graph g;
    char err[256];
    assert_int_equal(psg_parse(bytes, n, &g, err, sizeof err), 0);
    free(bytes);
    struct an_psg x;
    assert_int_equal(an_psg_index(&x, &g), 0);
    static const struct { const char *fn; int thin; } want[] = {
        {"hypre_MPI_Waitall", 1}, {"two_calls", 0}, {"with_work", 0}, {"with_call", 0},
        {"in_loop", 0}, {"nothing", 0}, {"main", 0},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        uint32_t u, fi;
        assert_true(an_psg_function(&x, want[k].fn, &u, &fi));
        if (an_psg_thin_mpi_wrapper(&x, u, fi) != want[k].thin) fail_msg("%s: thin wrapper should be %d", want[k].fn, want[k].thin);
    }
    /* not a FUNCTION vertex, out of range */
    uint32_t u, fi;
    assert_true(an_psg_function(&x, "hypre_MPI_Waitall", &u, &fi));
    assert_false(an_psg_thin_mpi_wrapper(&x, u, fi + 1));
    assert_false(an_psg_thin_mpi_wrapper(&x, u, 100000));
    assert_false(an_psg_thin_mpi_wrapper(NULL, 0, 0));
    an_psg_free(&x);
    psg_graph_free(&g);
}

int main(void)
{
    unit_setup();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_psg_descend),
        cmocka_unit_test(t_thin_mpi_wrapper),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
