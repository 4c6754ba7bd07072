/* test_imbalance.c — cmocka unit tests of load imbalance (analyzer/detect/detectors/imbalance.c):
 * several culprits, a fixed imbalance, exact computation intervals, the work counters as evidence where the samples fail, a cost within
 * its noise. */
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

static void t_several_culprits(void **state)
{
    (void)state;
    struct mini m;
    const uint32_t P = 8;
    mini_init(&m, P, 1);
    struct an_run *r = mini_run(&m, 0, P, 2.0);
    double A[8], B[8], W[8];
    for (uint32_t i = 0; i < P; i++) A[i] = 1.0, B[i] = i == 1 || i == 2 || i == 5 ? 0.4 : 0.2;
    for (uint32_t i = 0; i < P; i++) W[i] = 0.01 + (0.4 - B[i]);
    set_cpu(r, m.A, A), set_cpu(r, m.B, B), set_mpi(r, m.ar, W, 100, 1e-4);
    mini_finish(&m);
    assert_int_equal(m.a.ncauses, 1);
    const struct an_cause *c = &m.a.causes[0];
    assert_int_equal(c->vertex, m.B);
    assert_string_equal(an_category_name(c->cat), "load_imbalance");
    assert_int_equal(c->nprocs, 3);
    assert_int_equal(c->procs[0], 1), assert_int_equal(c->procs[1], 2), assert_int_equal(c->procs[2], 5);
    assert_int_equal(c->nwaiting, 5);
    for (uint32_t k = 0; k < c->nwaiting; k++) assert_true(c->waiting[k] != 1 && c->waiting[k] != 2 && c->waiting[k] != 5);
    assert_true(fabs(c->cost - 0.2) < 0.005);
    assert_non_null(c->cost_rule);
    an_analysis_free(&m.a);
    /* the same 8 processes on 2 cores (4 per core): costed with a core per
     * process, as on the machine the program is meant for (detect.c
     * run_cores); a rerun on these 2 cores would save 0.3 s */
    mini_init(&m, P, 1);
    r = mini_run(&m, 0, P, 2.0);
    set_cpu(r, m.A, A), set_cpu(r, m.B, B), set_mpi(r, m.ar, W, 100, 1e-4);
    for (uint32_t i = 0; i < P; i++) r->usable_cores[i] = 2, r->ranks_on_host[i] = P;
    mini_finish(&m);
    assert_true(fabs(r->oversub - 4) < 1e-9);
    assert_int_equal(m.a.ncauses, 1);
    assert_int_equal(m.a.causes[0].nprocs, 3);
    assert_true(fabs(m.a.causes[0].cost - 0.2) < 0.005);
    an_analysis_free(&m.a);
    /* a new user's trial program: 4 of 8 ranks with 3x the work,
     * 8 processes on 2 cores.  In a model of the run's own 2 cores the cores
     * stay busy whatever the distribution, the "saving" was 0.002 s and the
     * cause was silently dropped; with a core per process it is heavy - light */
    mini_init(&m, P, 1);
    r = mini_run(&m, 0, P, 2.0);
    for (uint32_t i = 0; i < P; i++) B[i] = i >= 4 ? 0.6 : 0.2, W[i] = 0.01 + (0.6 - B[i]);
    set_cpu(r, m.A, A), set_cpu(r, m.B, B), set_mpi(r, m.ar, W, 100, 1e-4);
    for (uint32_t i = 0; i < P; i++) r->usable_cores[i] = 2, r->ranks_on_host[i] = P;
    mini_finish(&m);
    assert_int_equal(m.a.ncauses, 1);
    assert_int_equal(m.a.causes[0].vertex, m.B);
    assert_int_equal(m.a.causes[0].nprocs, 4);
    for (uint32_t k = 0; k < 4; k++) assert_int_equal(m.a.causes[0].procs[k], 4 + k);
    assert_true(fabs(m.a.causes[0].cost - 0.4) < 0.01);
    an_analysis_free(&m.a);
}

/* Exact computation intervals: 4 processes, a 0.4 s run at 200 Hz; rank 0
 * computes 0.06 s before each Allreduce, the others 0.03 s (6 samples against
 * 3: too thin for the samples alone).  With the intervals the imbalance is
 * measured: the loop is the cause, its cost the interval's saving (0.06 -
 * 0.03 with a core each). */
static void intervals_case(int with_intervals, struct mini *m)
{
    const uint32_t P = 4;
    mini_init(m, P, 1);
    struct an_run *r = mini_run(m, 0, P, 0.4);
    r->period_s = 0.005;
    double A[4] = {0.2, 0.2, 0.2, 0.2}, B[4], W[4];
    for (uint32_t i = 0; i < P; i++) B[i] = i == 0 ? 0.06 : 0.03, W[i] = 0.001 + 0.06 - B[i];
    set_cpu(r, m->A, A), set_cpu(r, m->B, B), set_mpi(r, m->ar, W, 10, 1e-4);
    if (with_intervals) {
        r->intervals = calloc(1, sizeof *r->intervals);
        r->nintervals = 1, r->has_intervals = 1;
        struct an_interval *x = &r->intervals[0];
        x->prev_vertex = m->ar, x->next_vertex = m->ar, x->cpu_exact = 1;
        x->count = calloc(P, sizeof(float)), x->wall = calloc(P, sizeof(float)), x->cpu = calloc(P, sizeof(float));
        for (uint32_t i = 0; i < P; i++) x->count[i] = 10, x->cpu[i] = x->wall[i] = (float)B[i];
    }
    mini_finish(m);
}

static void t_exact_intervals(void **state)
{
    (void)state;
    struct mini m;
    intervals_case(0, &m);
    assert_int_equal(m.a.ncauses, 0);
    an_analysis_free(&m.a);
    intervals_case(1, &m);
    assert_int_equal(m.a.ncauses, 1);
    assert_int_equal(m.a.causes[0].vertex, m.B);
    assert_int_equal(m.a.causes[0].nprocs, 1);
    assert_int_equal(m.a.causes[0].procs[0], 0);
    assert_true(fabs(m.a.causes[0].cost - 0.03) < 0.002);
    assert_non_null(strstr(m.a.causes[0].evidence, "exact computation intervals"));
    an_analysis_free(&m.a);
}

/* The work counters where the samples fail: the same exact intervals (rank 0
 * 0.06 s before each Allreduce, the others 0.03 s), but rank 0's CPU-time
 * timer delivered no signal in B (beside two CPU hogs short_imbalance's
 * culprit got none for 0.23 s of its loop) while loop B1 inside B counted
 * twice the others' iterations there.  With the counters the loop is the
 * cause at the interval's cost; without them (the same iterations
 * everywhere) nothing is. */
static void work_case(int more_work, struct mini *m, uint32_t *b1)
{
    const uint32_t P = 4;
    mini_init(m, P, 1);
    *b1 = add_v(&m->a.g, m->B, PSG_LOOP, "B1", 4, 0);
    m->a.g.v[*b1].psg_stable_id = 77;
    an_graph_sort_children(&m->a.g);
    struct an_run *r = mini_run(m, 0, P, 0.4);
    r->period_s = 0.005;
    double A[4] = {0.2, 0.2, 0.2, 0.2}, B[4], W[4];
    for (uint32_t i = 0; i < P; i++) B[i] = i == 0 ? 0 : 0.03, W[i] = 0.001 + (i == 0 ? 0 : 0.03);
    set_cpu(r, m->A, A), set_cpu(r, *b1, B), set_mpi(r, m->ar, W, 10, 1e-4);
    r->intervals = calloc(1, sizeof *r->intervals);
    r->nintervals = 1, r->has_intervals = 1;
    struct an_interval *x = &r->intervals[0];
    x->prev_vertex = m->ar, x->next_vertex = m->ar, x->cpu_exact = 1;
    x->count = calloc(P, sizeof(float)), x->wall = calloc(P, sizeof(float)), x->cpu = calloc(P, sizeof(float));
    for (uint32_t i = 0; i < P; i++) x->count[i] = 10, x->cpu[i] = x->wall[i] = i == 0 ? 0.06f : 0.03f;
    r->work = calloc(P, sizeof *r->work);
    for (uint32_t i = 0; i < P; i++) r->work[i] = (struct an_work){77, i, i == 0 && more_work ? 2000 : 1000};
    r->nwork = r->work_cap = P;
    r->work_ranks = P;
    mini_finish(m);
}

static void t_work_counters_evidence(void **state)
{
    (void)state;
    struct mini m;
    uint32_t b1;
    work_case(0, &m, &b1);
    assert_int_equal(m.a.ncauses, 0);
    an_analysis_free(&m.a);
    work_case(1, &m, &b1);
    assert_int_equal(m.a.ncauses, 1);
    assert_int_equal(m.a.causes[0].vertex, b1);
    assert_string_equal(an_category_name(m.a.causes[0].cat), "load_imbalance");
    assert_int_equal(m.a.causes[0].nprocs, 1);
    assert_int_equal(m.a.causes[0].procs[0], 0);
    assert_true(fabs(m.a.causes[0].cost - 0.03) < 0.002);
    an_analysis_free(&m.a);
}

/* Added work or a wrong distribution: at 1, 2, 4 processes the last rank has
 * twice its share of B.  When that is extra work (the total grows with it:
 * 1, 1.5, 1.25) the fix removes it; when the total is fixed (the last rank 2
 * of p + 1 parts) the fix spreads it: with a core each 0.5 - 0.25 = 0.25 s
 * against 0.4 - 0.25 = 0.15 s at 4 processes. */
static void fix_case(struct mini *m, int fixed_total)
{
    mini_init(m, 0, 3);
    uint32_t Ps[3] = {1, 2, 4};
    for (int k = 0; k < 3; k++) {
        uint32_t P = Ps[k];
        struct an_run *r = mini_run(m, k, P, 3.0);
        double A[4], B[4], W[4];
        for (uint32_t i = 0; i < P; i++) {
            int heavy = P > 1 && i == P - 1;
            A[i] = 2.0 / P; /* scales */
            B[i] = fixed_total ? (heavy ? 2.0 : 1.0) / (P > 1 ? P + 1 : 1) : (heavy ? 2.0 : 1.0) / P;
        }
        double mx = 0;
        for (uint32_t i = 0; i < P; i++) mx = fmax(mx, B[i]);
        for (uint32_t i = 0; i < P; i++) W[i] = 0.001 + mx - B[i];
        set_cpu(r, m->A, A), set_cpu(r, m->B, B), set_mpi(r, m->ar, W, 100, 1e-5);
    }
    mini_finish(m);
}

static void t_imbalance_fix(void **state)
{
    (void)state;
    struct mini m;
    fix_case(&m, 0);
    assert_true(m.a.ncauses >= 1);
    assert_int_equal(m.a.causes[0].vertex, m.B);
    assert_int_equal(m.a.causes[0].procs[0], 3);
    assert_non_null(strstr(m.a.causes[0].cost_rule, "brought down"));
    assert_true(fabs(m.a.causes[0].cost - 0.25) < 0.01);
    an_analysis_free(&m.a);
    fix_case(&m, 1);
    assert_true(m.a.ncauses >= 1);
    assert_int_equal(m.a.causes[0].vertex, m.B);
    assert_non_null(strstr(m.a.causes[0].cost_rule, "spread evenly"));
    /* spread: 0.4 on the last rank against the mean 0.25 */
    assert_true(fabs(m.a.causes[0].cost - 0.15) < 0.01);
    an_analysis_free(&m.a);
}

/* A sampled imbalance the Poisson test finds (rank 0: 0.031 s of B, 6
 * samples of 5 ms, against 0.001 s on the others) but whose cost, 0.03 s, is
 * within 2.5 standard deviations of its sampling noise (sqrt(0.03 x 0.005)
 * = 0.012 s): a candidate, not a root cause (noise_sigmas); with
 * noise_sigmas = 0 the same runs give it as the root cause.  The same cost
 * from exact computation intervals carries no sampling noise
 * (t_exact_intervals). */
static void noisy_case(struct mini *m, double sigmas)
{
    const uint32_t P = 4;
    mini_init(m, P, 1);
    m->a.opt->th.noise_sigmas = sigmas;
    struct an_run *r = mini_run(m, 0, P, 0.4);
    r->period_s = 0.005;
    double A[4] = {0.2, 0.2, 0.2, 0.2}, B[4], W[4];
    for (uint32_t i = 0; i < P; i++) B[i] = i == 0 ? 0.031 : 0.001, W[i] = 0.001 + 0.031 - B[i];
    set_cpu(r, m->A, A), set_cpu(r, m->B, B), set_mpi(r, m->ar, W, 10, 1e-4);
    mini_finish(m);
}

static void t_within_noise(void **state)
{
    (void)state;
    struct mini m;
    noisy_case(&m, 2.5);
    assert_int_equal(m.a.ncauses, 0);
    assert_true(m.a.ncandidates >= 1);
    assert_int_equal(m.a.candidates[0].vertex, m.B);
    assert_true(fabs(m.a.candidates[0].cost - 0.03) < 0.003);
    assert_true(m.a.candidates[0].cost < 2.5 * m.a.candidates[0].cost_noise);
    assert_true(m.a.candidates[0].cost > 2 * m.a.candidates[0].cost_noise);
    an_analysis_free(&m.a);
    noisy_case(&m, 0);
    assert_int_equal(m.a.ncauses, 1);
    assert_int_equal(m.a.causes[0].vertex, m.B);
    assert_int_equal(m.a.causes[0].procs[0], 0);
    an_analysis_free(&m.a);
    opt.th.noise_sigmas = 2.5; /* the default, for the tests after */
}

int main(void)
{
    unit_setup();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_several_culprits),
        cmocka_unit_test(t_exact_intervals),
        cmocka_unit_test(t_work_counters_evidence),
        cmocka_unit_test(t_imbalance_fix),
        cmocka_unit_test(t_within_noise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
