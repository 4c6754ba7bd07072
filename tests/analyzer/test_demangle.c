/* test_demangle.c — cmocka unit tests of names as a person reads them (analyzer/read/demangle.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/graph.h"
#include "core/options.h"
#include "core/types.h"
#include "read/demangle.h"
#include "unit_helpers.h"

#include <dlfcn.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Names a person reads: C++ linkage names demangled by libstdc++, others
 * unchanged; short forms for one-line locations. */
static void t_names(void **state)
{
    (void)state;
    struct an_strpool pool = {0};
    assert_string_equal(an_demangle(&pool, "_ZN4mini12_GLOBAL__N_113residual_normERKNS_3CsrERKSt6vectorIdSaIdEES8_"),
                        "mini::(anonymous namespace)::residual_norm(mini::Csr const&, std::vector<double, "
                        "std::allocator<double> > const&, std::vector<double, std::allocator<double> > const&)");
    assert_string_equal(an_demangle(&pool, "_ZL31ApplyMaterialPropertiesForElemsR6Domain"),
                        "ApplyMaterialPropertiesForElems(Domain&)");
    assert_string_equal(an_demangle(&pool, "relax"), "relax");
    assert_string_equal(an_demangle(&pool, "_QMkernelsPrelax"), "kernels::relax");
    assert_string_equal(an_demangle(&pool, "_QPsweep"), "sweep");
    assert_string_equal(an_demangle(&pool, "_QQmain"), "main program");
    assert_string_equal(an_demangle(&pool, "_QMnoproc"), "_QMnoproc");
    /* gfortran module procedures (issue 12: module_sweep_f built with mpif90) */
    assert_string_equal(an_demangle(&pool, "__sweep_mod_MOD_sweep_block"), "sweep_mod::sweep_block");
    assert_string_equal(an_demangle(&pool, "__relax_mod_MOD_relax_cells.constprop.0"),
                        "relax_mod::relax_cells.constprop.0");
    assert_string_equal(an_demangle(&pool, "__libc_start_main"), "__libc_start_main");
    assert_string_equal(an_demangle(&pool, "__MOD_x"), "__MOD_x");
    assert_string_equal(an_demangle(&pool, "_Znot_mangled"), "_Znot_mangled");
    assert_string_equal(an_short_function(&pool, "void mini::cg<int>(int*, int) const"), "mini::cg<int>");
    assert_string_equal(an_short_function(&pool, "main::$_1::operator()(int) const"), "main::$_1::operator()");
    assert_string_equal(an_short_function(&pool, "bool operator<(A const&, A const&)"), "operator<");
    /* qualified DWARF names without an argument list (gcc, no linkage name) */
    assert_string_equal(an_short_function(&pool, "(anonymous namespace)::apply_kernel<(anonymous namespace)::"
                                                 "RowSweep<double> >"),
                        "(anonymous namespace)::apply_kernel<...>");
    assert_string_equal(an_short_function(&pool, "(anonymous namespace)::Domain::relax"),
                        "(anonymous namespace)::Domain::relax");
    assert_string_equal(an_short_function(&pool, "(anonymous namespace)::Domain::relax(double)"),
                        "(anonymous namespace)::Domain::relax");
    assert_string_equal(an_short_function(&pool, "void miniFE::cg_solve<miniFE::CSRMatrix<double, int, int>, "
                                                 "miniFE::Vector<double, int, int>>(miniFE::CSRMatrix<double, int, int>&)"),
                        "miniFE::cg_solve<...>");
    assert_string_equal(an_short_function(&pool, "relax"), "relax");
    assert_string_equal(an_short_function(&pool, "program modproc"), "program modproc");
    /* flang's internal procedures, gfortran's module procedures and program
     * (the symbol-table names of a build without the pass or without -g) */
    assert_string_equal(an_demangle(&pool, "_QMmFouterPinner"), "m::outer.inner");
    assert_string_equal(an_demangle(&pool, "_QFextPsub"), "ext.sub");
    assert_string_equal(an_demangle(&pool, "_QFPstep"), "step");
    assert_string_equal(an_demangle(&pool, "_QMrelax_modPrelax"), "relax_mod::relax");
    assert_string_equal(an_demangle(&pool, "__relax_mod_MOD_relax"), "relax_mod::relax");
    assert_string_equal(an_demangle(&pool, "__m_MOD_outer"), "m::outer");
    assert_string_equal(an_demangle(&pool, "MAIN__"), "main program");
    assert_string_equal(an_demangle(&pool, "inner.0"), "inner");
    assert_string_equal(an_demangle(&pool, "relax.constprop.0"), "relax.constprop.0");
    assert_string_equal(an_demangle(&pool, "__libc_start_main"), "__libc_start_main");
    assert_string_equal(an_demangle(&pool, "__MOD_x"), "__MOD_x");
    /* paths folded lexically (PRK builds name "MPI1/PIC/../../common/x.c") */
    assert_string_equal(an_remap_path(NULL, &pool, "/w/prk/MPI1/PIC-static/../../common/MPI_bail_out.c"),
                        "/w/prk/common/MPI_bail_out.c");
    assert_string_equal(an_remap_path(NULL, &pool, "/a/./b//c.c"), "/a/b/c.c");
    assert_string_equal(an_remap_path(NULL, &pool, "/../x.c"), "/x.c");
    assert_string_equal(an_remap_path(NULL, &pool, "../src/../inc/h.h"), "../inc/h.h");
    assert_string_equal(an_remap_path(NULL, &pool, "a/../../x.c"), "../x.c");
    assert_string_equal(an_remap_path(NULL, &pool, "./x.c"), "x.c");
    assert_string_equal(an_remap_path(NULL, &pool, "/plain/x.c"), "/plain/x.c");
    assert_string_equal(an_remap_path(NULL, &pool, ""), "");
    an_strpool_free(&pool);
}

int main(void)
{
    unit_setup();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
