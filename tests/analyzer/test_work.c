/* test_work.c — cmocka unit tests of work against speed (analyzer/ppg/work.c,
 * an_work_compare): culprits with more loop iterations did more work, with
 * the same iterations and more CPU time they ran slower, and the others
 * with no CPU time sampled there make the time ratio infinite, not NaN (a
 * LULESH OpenMP report printed "spent nan % more CPU time"). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/graph.h"
#include "core/types.h"
#include "ppg/work.h"
#include "scalana/psg_format.h"
#include "unit_helpers.h"

#include <math.h>
#include <stdlib.h>

#define P 3

/* main -> LOOP (stable id 42); rank r ran iters[r] iterations and icpu[r] s. */
static void make(struct an_graph *g, struct an_run *r, uint32_t *loop, const double *iters, const float *icpu)
{
    an_graph_init(g);
    uint32_t m = add_v(g, AN_NONE, PSG_FUNCTION, "main", 1, 0);
    *loop = add_v(g, m, PSG_LOOP, "LOOP 10-12", 10, 0);
    g->v[*loop].psg_stable_id = 42;
    an_run_init(r, P);
    run_basics(r, 1.0);
    struct an_vrun *x = an_run_vertex(r, *loop);
    x->icpu = calloc(P, sizeof *x->icpu);
    for (uint32_t i = 0; i < P; i++) x->icpu[i] = icpu[i];
    r->work = calloc(P, sizeof *r->work);
    for (uint32_t i = 0; i < P; i++) r->work[i] = (struct an_work){42, i, iters[i]};
    r->nwork = r->work_cap = P;
    r->work_ranks = P;
}

static enum an_work_verdict judge(const double *iters, const float *icpu, double *wr, double *tr)
{
    struct an_graph g;
    struct an_run r;
    uint32_t loop, culprit = 0;
    make(&g, &r, &loop, iters, icpu);
    enum an_work_verdict v = an_work_compare(&g, &r, loop, &culprit, 1, wr, tr);
    an_run_free(&r);
    an_graph_free(&g);
    return v;
}

static void t_work_and_speed(void **state)
{
    (void)state;
    double wr, tr;
    /* twice the iterations: work */
    double more[P] = {2000, 1000, 1000}, same[P] = {1000, 1000, 1000};
    float slow2[P] = {0.2f, 0.1f, 0.1f};
    assert_int_equal(judge(more, slow2, &wr, &tr), AN_WORK_MORE);
    assert_true(fabs(wr - 2) < 1e-9);
    /* the same iterations in twice the CPU time: speed */
    assert_int_equal(judge(same, slow2, &wr, &tr), AN_WORK_SAME);
    assert_true(fabs(wr - 1) < 1e-9);
    assert_true(fabs(tr - 2) < 1e-6);
    /* the others had no CPU sampled there: speed, with an infinite ratio */
    float only[P] = {0.05f, 0, 0};
    assert_int_equal(judge(same, only, &wr, &tr), AN_WORK_SAME);
    assert_true(isinf(tr) && tr > 0);
    /* nobody had CPU sampled there: the ratio is unknown */
    float none[P] = {0, 0, 0};
    judge(same, none, &wr, &tr);
    assert_true(isnan(tr));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_work_and_speed),
    };
    unit_setup();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
