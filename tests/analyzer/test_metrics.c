/* test_metrics.c — cmocka unit tests of metrics and scaling (analyzer/metrics/metrics.c): the scaling
 * mode (weak or strong) and the per-vertex scaling models. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/types.h"
#include "detect/category.h"
#include "metrics/metrics.h"
#include "unit_helpers.h"

#include <dlfcn.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Strong or weak scaling from the runs: constant work per process at 2, 4, 8
 * processes is weak scaling (nothing non-scalable); --strong overrides it
 * (with a warning), and then the same runs are non-scalable. */
static void mode_case(struct mini *m, int flag, int weak)
{
    mini_init(m, 0, 3);
    uint32_t Ps[3] = {2, 4, 8};
    for (int k = 0; k < 3; k++) {
        uint32_t P = Ps[k];
        struct an_run *r = mini_run(m, k, P, 2.0);
        double A[8], B[8], W[8];
        for (uint32_t i = 0; i < P; i++) A[i] = 1.5, B[i] = 0.4, W[i] = 0.001;
        set_cpu(r, m->A, A), set_cpu(r, m->B, B), set_mpi(r, m->ar, W, 10, 1e-5);
    }
    opt.scaling_flag = flag, opt.weak = weak;
    mini_finish(m);
}

static void t_scaling_mode(void **state)
{
    (void)state;
    struct mini m;
    mode_case(&m, 0, 0);
    assert_true(m.a.scaling.weak && !m.a.scaling.from_flag && !m.a.scaling.uncertain);
    assert_true(fabs(m.a.scaling.work_slope - 1) < 0.05);
    assert_int_equal(m.a.ncauses, 0);
    an_analysis_free(&m.a);
    mode_case(&m, 1, 0);
    assert_false(m.a.scaling.weak);
    assert_true(m.a.ncauses >= 1);
    assert_string_equal(an_category_name(m.a.causes[0].cat), "non_scalable_computation");
    assert_true(has_warning(&m, "looks like weak scaling", NULL));
    an_analysis_free(&m.a);
    opt.scaling_flag = 0, opt.weak = 0;
}

static void t_scaling(void **state)
{
    (void)state;
    /* three counts: A scales, B constant on every process (replicated), Allreduce balanced */
    struct mini m;
    mini_init(&m, 0, 3);
    uint32_t Ps[3] = {2, 4, 8};
    for (int k = 0; k < 3; k++) {
        uint32_t P = Ps[k];
        struct an_run *r = mini_run(&m, k, P, 8.0 / P + 1.0);
        double A[8], B[8], W[8];
        for (uint32_t i = 0; i < P; i++) A[i] = 8.0 / P, B[i] = 1.0, W[i] = 0.001;
        set_cpu(r, m.A, A), set_cpu(r, m.B, B), set_mpi(r, m.ar, W, 10, 1e-5);
    }
    mini_finish(&m);
    assert_int_equal(m.a.nscales, 3);
    assert_true(m.a.vflags[m.B] & AN_F_NON_SCALABLE);
    assert_false(m.a.vflags[m.A] & AN_F_NON_SCALABLE);
    assert_true(m.a.ncauses >= 1);
    assert_int_equal(m.a.causes[0].vertex, m.B);
    assert_string_equal(an_category_name(m.a.causes[0].cat), "non_scalable_computation");
    /* loss = 1.0 - 1.0 * 2 / 8 */
    assert_true(fabs(m.a.causes[0].cost - 0.75) < 1e-3);
    assert_true(m.a.model[m.A].valid);
    an_analysis_free(&m.a);
}

int main(void)
{
    unit_setup();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_scaling_mode),
        cmocka_unit_test(t_scaling),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
