/* test_metrics.c — cmocka unit tests of metrics and scaling (analyzer/metrics/metrics.c): the scaling
 * mode (weak or strong) and the per-vertex scaling models. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/types.h"
#include "detect/category.h"
#include "metrics/metrics.h"
#include "ppg/work.h"
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

/* The base costs are judged against (an_run_base_seconds): wall / contention,
 * but for a run contended beyond contention_max at most the least contended
 * run's (wall / contention) per CPU second of its busiest process times this
 * run's busiest process's CPU seconds (miniFE beside two CPU hogs: 6.03 s
 * at contention 2 for 1.80 s quiet, the CPU time the same). */
static void t_base_seconds(void **state)
{
    (void)state;
    struct mini m;
    mode_case(&m, 1, 0);
    assert_int_equal(m.a.nscales, 3);
    struct an_scale *q = &m.a.scales[0], *big = &m.a.scales[2];
    q->wall = 2.0, q->rep->contention = 1.0;
    for (uint32_t i = 0; i < q->rep->P; i++) q->rep->cpu[i] = i ? 1.6 : 1.8; /* busiest 1.8 s */
    m.a.scales[1].rep->contention = 1.2;
    big->wall = 6.0, big->rep->contention = 2.0;
    for (uint32_t i = 0; i < big->rep->P; i++) big->rep->cpu[i] = i == 3 ? 1.0 : 0.8;
    /* 2.0 / 1.8 per CPU second x 1.0 s, not 6.0 / 2 */
    assert_true(fabs(an_run_base_seconds(&m.a, 2) - 2.0 / 1.8) < 1e-9);
    assert_true(fabs(an_base_seconds(&m.a) - 2.0 / 1.8) < 1e-9);
    /* the cap only lowers the base: a contended run faster than it keeps wall / contention */
    big->wall = 2.0;
    assert_true(fabs(an_run_base_seconds(&m.a, 2) - 1.0) < 1e-9);
    /* not contended beyond contention_max (1.5): wall / contention */
    big->wall = 6.0, big->rep->contention = 1.4;
    assert_true(fabs(an_run_base_seconds(&m.a, 2) - 6.0 / 1.4) < 1e-9);
    /* the least contended run itself, and a scale that does not exist */
    assert_true(fabs(an_run_base_seconds(&m.a, 0) - 2.0) < 1e-9);
    assert_true(an_run_base_seconds(&m.a, 3) == 0);
    an_analysis_free(&m.a);
    opt.scaling_flag = 0, opt.weak = 0;
}

/* A process of two busy threads beside two CPU hogs (miniFE's OpenMP build at
 * 1 process): its CPU time, 8 s over both threads in 7.05 s of wall, says
 * uncontended, while its MPI_Init thread waited 2.86 s for a core.  The
 * contention is at least wall / (wall - run delay); without a run delay it is
 * wall / CPU as before, and a single thread's own delay changes nothing. */
static void t_contention_run_delay(void **state)
{
    (void)state;
    struct an_run r;
    an_run_init(&r, 1);
    run_basics(&r, 7.05);
    r.cpu[0] = 8.0, r.mpi[0] = 0.05;
    assert_true(fabs(an_rank_contention(&r, 0) - 1.0) < 1e-9);
    r.run_delay[0] = 2.86;
    assert_true(fabs(an_rank_contention(&r, 0) - 7.05 / (7.05 - 2.86)) < 1e-9);
    /* one busy thread: wall outside MPI 7.0 over 4.14 s of CPU, the rest its delay */
    r.cpu[0] = 7.05 - 2.86 - 0.05;
    assert_true(fabs(an_rank_contention(&r, 0) - 7.0 / 4.14) < 1e-9);
    an_run_free(&r);
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

/* Replicated work the samples cannot tell from noise: weak scaling at 2, 4,
 * 8 processes, loop B1 (inside B) takes 0.03 x P / 2 s per process (0.12 s
 * at 8 against the ideal 0.03 s) but the CPU-time timer delivered 1, 2, 3
 * signals there per run (beside two CPU hogs weak_scaling's replicated loop
 * had 7 per process at 8).  When B1's counted iterations per process grow as
 * its time does (P / 2 x those at 2), the exact counts show the loss is there:
 * the root cause, non-scalable, at B1, at 0.09 s; when they stay the same per
 * process (the loop only ran slower), nothing is. */
static void replicated_case(struct mini *m, int grows, uint32_t *b1)
{
    mini_init(m, 0, 3);
    *b1 = add_v(&m->a.g, m->B, PSG_LOOP, "B1", 4, 0);
    m->a.g.v[*b1].psg_stable_id = 78;
    an_graph_sort_children(&m->a.g);
    uint32_t Ps[3] = {2, 4, 8};
    for (int k = 0; k < 3; k++) {
        uint32_t P = Ps[k];
        struct an_run *r = mini_run(m, k, P, 1.0);
        r->period_s = 0.05;
        double A[8], B[8], W[8];
        for (uint32_t i = 0; i < P; i++) A[i] = 0.5, B[i] = 0.03 * P / 2, W[i] = 0.001;
        set_cpu(r, m->A, A), set_cpu(r, *b1, B), set_mpi(r, m->ar, W, 10, 1e-5);
        an_run_vertex(r, *b1)->signals = k + 1, an_run_vertex(r, *b1)->samples = k + 1;
        r->work = calloc(P, sizeof *r->work);
        for (uint32_t i = 0; i < P; i++) r->work[i] = (struct an_work){78, i, grows ? 1000 * P / 2 : 1000};
        r->nwork = r->work_cap = P;
        r->work_ranks = P;
    }
    opt.scaling_flag = 1, opt.weak = 1;
    mini_finish(m);
    opt.scaling_flag = 0, opt.weak = 0;
}

static void t_replicated_counted(void **state)
{
    (void)state;
    struct mini m;
    uint32_t b1;
    replicated_case(&m, 0, &b1);
    assert_int_equal(m.a.ncauses, 0);
    an_analysis_free(&m.a);
    replicated_case(&m, 1, &b1);
    assert_int_equal(m.a.ncauses, 1);
    assert_int_equal(m.a.causes[0].vertex, b1);
    assert_string_equal(an_category_name(m.a.causes[0].cat), "non_scalable_computation");
    assert_int_equal(m.a.causes[0].nprocs, 8);
    assert_true(fabs(m.a.causes[0].cost - 0.09) < 0.005);
    an_analysis_free(&m.a);
}

/* Straight-line code C in the body of loop L2 (no loop below it), 1 s on
 * every process at 2, 4, 8 beside loop A's work, which shrinks as strong
 * scaling's ideal (8000 / P iterations).  L2's counted iterations say how
 * often C ran: when they shrink as the ideal too, each execution took
 * longer: resource contention (PRK PIC's particle push beside two CPU hogs);
 * when they stay the same per process, the work did not shrink:
 * non-scalable computation.  *cv is C. */
static void enclosing_case(struct mini *m, int shrinks, uint32_t *cv)
{
    mini_init(m, 0, 3);
    m->a.g.v[m->loop].psg_stable_id = 91;
    uint32_t l2 = add_v(&m->a.g, m->a.g.v[m->loop].parent, PSG_LOOP, "L2", 8, 0);
    m->a.g.v[l2].psg_stable_id = 92;
    *cv = add_v(&m->a.g, l2, PSG_COMPUTE, "C", 9, 0);
    an_graph_sort_children(&m->a.g);
    uint32_t Ps[3] = {2, 4, 8};
    for (int k = 0; k < 3; k++) {
        uint32_t P = Ps[k];
        struct an_run *r = mini_run(m, k, P, 8.0 / P + 1.0);
        double A[8], C[8], W[8];
        for (uint32_t i = 0; i < P; i++) A[i] = 8.0 / P, C[i] = 1.0, W[i] = 0.001;
        set_cpu(r, m->A, A), set_cpu(r, *cv, C), set_mpi(r, m->ar, W, 10, 1e-5);
        r->work = calloc(2 * P, sizeof *r->work);
        for (uint32_t i = 0; i < P; i++) {
            r->work[2 * i] = (struct an_work){91, i, 8000.0 / P};
            r->work[2 * i + 1] = (struct an_work){92, i, shrinks ? 8000.0 / P : 4000};
        }
        r->nwork = r->work_cap = 2 * P;
        r->work_ranks = P;
    }
    mini_finish(m);
}

static void t_enclosing_loop_work(void **state)
{
    (void)state;
    struct mini m;
    uint32_t c;
    enclosing_case(&m, 1, &c);
    uint32_t encl = an_work_enclosing_loop(&m.a.g, c);
    assert_int_not_equal(encl, AN_NONE);
    assert_int_equal(m.a.g.v[encl].psg_stable_id, 92);
    assert_true(m.a.ncauses >= 1);
    assert_int_equal(m.a.causes[0].vertex, c);
    assert_string_equal(an_category_name(m.a.causes[0].cat), "resource_contention");
    assert_non_null(strstr(m.a.causes[0].evidence, "iterations of the enclosing loop per process 4000 at 2"));
    an_analysis_free(&m.a);
    enclosing_case(&m, 0, &c);
    assert_true(m.a.ncauses >= 1);
    assert_int_equal(m.a.causes[0].vertex, c);
    assert_string_equal(an_category_name(m.a.causes[0].cat), "non_scalable_computation");
    assert_non_null(strstr(m.a.causes[0].evidence, "the work per process does not shrink"));
    an_analysis_free(&m.a);
    /* behind a branch the loop's count is not how often the code ran */
    mini_init(&m, 0, 1);
    uint32_t br = add_v(&m.a.g, m.loop, PSG_BRANCH, "if", 6, 0);
    c = add_v(&m.a.g, br, PSG_COMPUTE, "C", 7, 0);
    m.a.g.v[m.loop].psg_stable_id = 91;
    assert_int_equal(an_work_enclosing_loop(&m.a.g, c), AN_NONE);
    assert_int_equal(an_work_enclosing_loop(&m.a.g, m.loop), AN_NONE); /* nothing encloses the loop */
    an_graph_free(&m.a.g);
    free(m.a.runs);
}

int main(void)
{
    unit_setup();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_scaling_mode),
        cmocka_unit_test(t_base_seconds),
        cmocka_unit_test(t_contention_run_delay),
        cmocka_unit_test(t_scaling),
        cmocka_unit_test(t_replicated_counted),
        cmocka_unit_test(t_enclosing_loop_work),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
