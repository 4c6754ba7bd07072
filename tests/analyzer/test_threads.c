/* test_threads.c — cmocka unit tests of the CPU time per thread (analyzer/ppg/threads.c)
 * and the OpenMP causes found from it (analyzer/detect/detectors/omp_threads.c): the
 * split of a team by its samples and its noise guard, the team a region ran
 * with, and on a hand-made MPI + OpenMP run the thread imbalance of a region's
 * loop, the serial loop between regions, and a process imbalance inside a
 * region costed in wall time (its CPU seconds divided by the team). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/graph.h"
#include "core/types.h"
#include "detect/category.h"
#include "metrics/metrics.h"
#include "ppg/threads.h"
#include "scalana/psg_format.h"
#include "unit_helpers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PERIOD 0.005 /* 200 Hz: a signal per 5 ms of CPU */

static void split_of(double c0, double c1, struct an_thread_split *s)
{
    double cpu[2] = {c0, c1}, sig[2] = {c0 / PERIOD, c1 / PERIOD};
    an_thread_cpu_split(cpu, sig, 2, PERIOD, &opt.th, s);
}

static void t_split(void **state)
{
    (void)state;
    struct an_thread_split s;
    /* schedule(static) over a triangle: the second thread has 3/4 */
    split_of(0.15, 0.45, &s);
    assert_true(s.significant);
    assert_int_equal(s.heaviest, 1);
    assert_true(fabs(s.ratio - 1.5) < 1e-9);
    assert_true(fabs(s.saving - 0.15) < 1e-9);
    assert_true(s.noise > 0 && s.noise < 0.05);
    /* balanced within the samples' noise */
    split_of(0.30, 0.33, &s);
    assert_false(s.significant);
    /* 1:3 but 16 signals in all: under min_samples, noise */
    split_of(0.02, 0.06, &s);
    assert_false(s.significant);
    /* a ratio under the imbalance threshold, however many samples */
    split_of(10.0, 12.0, &s);
    assert_true(s.p_value < 1e-6);
    assert_false(s.significant);
    /* one thread, or nothing sampled: no split */
    double one = 1, none[2] = {0, 0};
    assert_int_equal(an_thread_cpu_split(&one, &one, 1, PERIOD, &opt.th, &s), 0);
    assert_int_equal(an_thread_cpu_split(none, none, 2, PERIOD, &opt.th, &s), 0);
    /* Fisher's combination: one p-value is itself; two of 0.01 give
     * exp(-9.21) (1 + 9.21) = 0.00102 */
    double one_p = 0.5, two_p[2] = {0.01, 0.01}, half[8] = {0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5};
    assert_true(fabs(an_fisher_combine(&one_p, 1) - 0.5) < 1e-12);
    assert_true(fabs(an_fisher_combine(two_p, 2) - 0.0010210340371976) < 1e-9);
    assert_true(an_fisher_combine(half, 8) > 0.5); /* no evidence stays none */
    assert_true(an_fisher_combine(NULL, 0) == 1);
    assert_true(fabs(an_serial_saving(0.4, 2) - 0.2) < 1e-12);
    assert_true(an_serial_saving(0.4, 1) == 0);
}

/* main -> iteration LOOP -> {CALL region body (OpenMP) -> LOOP rows, LOOP serial, Allreduce} */
struct omp_mini {
    struct mini m;
    uint32_t region, rows, serial;
};

static void add_tcpu(struct an_run *r, uint32_t v, uint32_t rank, uint32_t thread, double cpu)
{
    an_run_add_thread_cpu(r, rank, thread, v, cpu, cpu / r->period_s);
}

/* P processes; rows[i][t]: CPU seconds of thread t of rank i in the region's
 * loop; serial[i]: the main thread's in the loop outside the region. */
static void omp_case(struct omp_mini *o, uint32_t P, double rows[][2], const double *serial)
{
    struct mini *m = &o->m;
    mini_init(m, P, 1);
    struct an_graph *g = &m->a.g;
    o->region = add_v(g, m->loop, PSG_FUNCTION, "relax", 10, 0);
    g->v[o->region].flags |= AN_V_OMP_REGION;
    o->rows = add_v(g, o->region, PSG_LOOP, "rows", 11, 0);
    g->v[o->rows].last_line = 14;
    o->serial = add_v(g, m->loop, PSG_LOOP, "serial", 20, 0);
    g->v[o->serial].last_line = 21;
    an_graph_sort_children(g);
    struct an_run *r = mini_run(m, 0, P, 2.0);
    r->period_s = PERIOD;
    double *rc = calloc(P, sizeof *rc), *sc = calloc(P, sizeof *sc), *w = calloc(P, sizeof *w);
    double most = 0;
    for (uint32_t i = 0; i < P; i++) {
        rc[i] = rows[i][0] + rows[i][1], sc[i] = serial[i];
        most = fmax(most, fmax(rows[i][0], rows[i][1]) + serial[i]);
        for (uint32_t t = 0; t < 2; t++) add_tcpu(r, o->rows, i, t, rows[i][t]);
        add_tcpu(r, o->serial, i, 0, serial[i]);
    }
    /* the others wait at the Allreduce for the slowest */
    for (uint32_t i = 0; i < P; i++) w[i] = 0.001 + most - (fmax(rows[i][0], rows[i][1]) + serial[i]);
    set_cpu(r, o->rows, rc), set_cpu(r, o->serial, sc), set_mpi(r, m->ar, w, 20, 1e-5);
    free(rc), free(sc), free(w);
    mini_finish(m);
}

static const struct an_cause *cause_at(const struct mini *m, uint32_t v)
{
    for (uint32_t k = 0; k < m->a.ncauses; k++)
        if (m->a.causes[k].vertex == v) return &m->a.causes[k];
    return NULL;
}

/* A cause or candidate at v (a short loop may cost less than the minimum). */
static const struct an_cause *found_at(const struct mini *m, uint32_t v)
{
    const struct an_cause *c = cause_at(m, v);
    for (uint32_t k = 0; !c && k < m->a.ncandidates; k++)
        if (m->a.candidates[k].vertex == v) c = &m->a.candidates[k];
    return c;
}

static void t_store(void **state)
{
    (void)state;
    struct omp_mini o;
    double rows[2][2] = {{0.2, 0.2}, {0.2, 0.2}}, serial[2] = {0.001, 0.001};
    omp_case(&o, 2, rows, serial);
    const struct an_run *r = &o.m.a.runs[0];
    uint32_t *th, n;
    double *cpu, *sig;
    /* the iteration loop holds both threads' region work; outside regions the main thread's */
    n = an_thread_cpu_at(&o.m.a.g, r, o.m.loop, 1, 0, &th, &cpu, &sig);
    assert_int_equal(n, 2);
    assert_int_equal(th[0], 0), assert_int_equal(th[1], 1);
    assert_true(fabs(cpu[0] - 0.201) < 1e-9 && fabs(cpu[1] - 0.2) < 1e-9);
    free(th), free(cpu), free(sig);
    n = an_thread_cpu_at(&o.m.a.g, r, o.m.loop, 1, 1, &th, &cpu, &sig);
    assert_int_equal(n, 1);
    assert_true(fabs(cpu[0] - 0.001) < 1e-9);
    free(th), free(cpu), free(sig);
    assert_int_equal(an_omp_region_of(&o.m.a.g, o.rows), o.region);
    assert_int_equal(an_omp_region_of(&o.m.a.g, o.serial), AN_NONE);
    assert_int_equal(an_omp_team(&o.m.a.g, r, o.rows, 0), 2);
    assert_int_equal(an_omp_team(&o.m.a.g, r, o.serial, 0), 1);
    assert_int_equal(an_omp_team(&o.m.a.g, r, AN_NONE, 0), 2);
    /* balanced threads and processes, a negligible serial part: nothing */
    assert_int_equal(o.m.a.ncauses, 0);
    an_analysis_free(&o.m.a);
}

static void t_thread_imbalance(void **state)
{
    (void)state;
    struct omp_mini o;
    /* every process: its second thread 3/4 of the loop */
    double rows[2][2] = {{0.2, 0.6}, {0.2, 0.6}}, serial[2] = {0.001, 0.001};
    omp_case(&o, 2, rows, serial);
    const struct an_cause *c = cause_at(&o.m, o.rows);
    assert_non_null(c);
    assert_string_equal(an_category_name(c->cat), "thread_imbalance");
    assert_int_equal(c->nprocs, 2);
    assert_int_equal(c->nthreads, 2);
    assert_int_equal(c->threads[0], 1), assert_int_equal(c->threads[1], 0);
    assert_true(fabs(c->cost - 0.2) < 1e-6); /* max 0.6 - mean 0.4 */
    assert_null(cause_at(&o.m, o.serial));
    an_analysis_free(&o.m.a);
}

/* a loaded machine: 0.1 and 0.3 CPU s per process (20 : 60 signals), p about
 * 1e-6 alone; with 0.03 : 0.09 s (6 : 18 signals, p = 0.023 each) no process
 * passes alone, four together do */
static void t_few_signals(void **state)
{
    (void)state;
    struct omp_mini o;
    double rows[4][2] = {{0.03, 0.09}, {0.03, 0.09}, {0.03, 0.09}, {0.03, 0.09}};
    double serial[4] = {0.0, 0.0, 0.0, 0.0};
    struct an_thread_split s;
    split_of(0.03, 0.09, &s);
    assert_false(s.significant);
    omp_case(&o, 4, rows, serial);
    /* 96 signals in all: one under min_samples (97) */
    assert_null(found_at(&o.m, o.rows));
    an_analysis_free(&o.m.a);
    double more[4][2] = {{0.035, 0.105}, {0.035, 0.105}, {0.035, 0.105}, {0.035, 0.105}};
    omp_case(&o, 4, more, serial);
    const struct an_cause *c = found_at(&o.m, o.rows); /* 0.035 s: under the minimum cost */
    assert_non_null(c);
    assert_int_equal(c->nprocs, 4);
    assert_true(fabs(c->cost - 0.035) < 1e-6);
    an_analysis_free(&o.m.a);
}

static void t_serial(void **state)
{
    (void)state;
    struct omp_mini o;
    double rows[2][2] = {{0.2, 0.2}, {0.2, 0.2}}, serial[2] = {0.4, 0.4};
    omp_case(&o, 2, rows, serial);
    const struct an_cause *c = cause_at(&o.m, o.serial);
    assert_non_null(c);
    assert_string_equal(an_category_name(c->cat), "serial_bottleneck");
    assert_int_equal(c->nthreads, 1);
    assert_int_equal(c->threads[0], 0);
    assert_true(fabs(c->cost - 0.2) < 1e-6); /* 0.4 (1 - 1/2) */
    assert_non_null(c->remedy);
    assert_non_null(strstr(c->remedy, "parallel region"));
    assert_null(cause_at(&o.m, o.rows));
    an_analysis_free(&o.m.a);
}

static void t_process_in_region(void **state)
{
    (void)state;
    struct omp_mini o;
    /* rank 1 has 3x the rows, its threads balanced: 0.4 CPU s more per thread,
     * 0.8 CPU s in all, 0.4 s of wall time with 2 threads */
    double rows[4][2] = {{0.2, 0.2}, {0.2, 0.2}, {0.2, 0.2}, {0.6, 0.6}};
    double serial[4] = {0.001, 0.001, 0.001, 0.001};
    omp_case(&o, 4, rows, serial);
    assert_true(o.m.a.ncauses >= 1);
    const struct an_cause *c = &o.m.a.causes[0];
    assert_string_equal(an_category_name(c->cat), "load_imbalance");
    assert_true(an_graph_is_ancestor(&o.m.a.g, o.rows, c->vertex) || c->vertex == o.rows);
    assert_int_equal(c->nprocs, 1);
    assert_int_equal(c->procs[0], 3);
    assert_int_equal(c->nthreads, 0); /* a process cause names no thread */
    assert_true(fabs(c->cost - 0.4) < 0.04);
    an_analysis_free(&o.m.a);
}

int main(void)
{
    unit_setup();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_split),
        cmocka_unit_test(t_store),
        cmocka_unit_test(t_thread_imbalance),
        cmocka_unit_test(t_few_signals),
        cmocka_unit_test(t_serial),
        cmocka_unit_test(t_process_in_region),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
