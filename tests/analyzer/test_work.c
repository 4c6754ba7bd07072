/* test_work.c — cmocka unit tests of work against speed (analyzer/ppg/work.c,
 * an_work_compare): culprits with more loop iterations did more work, with
 * the same iterations and more CPU time they ran slower, and the others
 * with no CPU time sampled there make the time ratio infinite, not NaN (a
 * LULESH OpenMP report printed "spent nan % more CPU time"), and a cause
 * whose culprits' CPU time for the same iterations is beyond speed_max is
 * not judged speed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/graph.h"
#include "core/types.h"
#include "detect/category.h"
#include "detect/judge.h"
#include "ppg/work.h"
#include "scalana/psg_format.h"
#include "unit_helpers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* A cause at the loop, judged: equal iterations in 2x the CPU time are speed
 * (undecided, a warning); in 10x, or where the others had no CPU time there,
 * the work inside the iterations differs (PRK PIC: 4 iterations of a memcpy
 * of the received particles everywhere, 0.84 s on two processes, none
 * sampled on the others): the cause stands, judged by time. */
static void t_judge_speed_max(void **state)
{
    (void)state;
    double same[P] = {1000, 1000, 1000};
    float slow2[P] = {0.2f, 0.1f, 0.1f}, slow10[P] = {1.0f, 0.1f, 0.1f}, only[P] = {0.84f, 0, 0};
    const float *cases[3] = {slow2, slow10, only};
    enum an_work_verdict want[3] = {AN_WORK_SAME, AN_WORK_UNKNOWN, AN_WORK_UNKNOWN};
    for (int k = 0; k < 3; k++) {
        struct an_analysis a;
        memset(&a, 0, sizeof a);
        a.opt = &opt;
        struct an_run r;
        uint32_t loop, culprit = 0;
        make(&a.g, &r, &loop, same, cases[k]);
        struct an_cause c;
        memset(&c, 0, sizeof c);
        c.vertex = loop, c.procs = &culprit, c.nprocs = 1, c.cat = AN_CAT_LOAD_IMBALANCE;
        assert_int_equal(an_work_judge_cause(&a, &r, &c), want[k]);
        if (want[k] == AN_WORK_SAME) {
            assert_non_null(c.undecided);
            assert_int_equal(a.nwarnings, 1);
            assert_non_null(strstr(a.warnings[0], "speed, not work"));
        } else {
            assert_null(c.undecided);
            assert_int_equal(a.nwarnings, 0);
            assert_non_null(strstr(c.evidence, "which the loop counters do not see"));
        }
        for (uint32_t i = 0; i < a.nwarnings; i++) free(a.warnings[i]);
        free(a.warnings);
        an_run_free(&r);
        an_graph_free(&a.g);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_work_and_speed),
        cmocka_unit_test(t_judge_speed_max),
    };
    unit_setup();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
