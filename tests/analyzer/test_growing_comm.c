/* test_growing_comm.c — cmocka unit tests of growing communication
 * (analyzer/detect/detectors/growing_comm.c): against its control, per call site, back-to-back
 * collectives. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/graph.h"
#include "core/types.h"
#include "detect/category.h"
#include "metrics/metrics.h"
#include "ppg/ppg.h"
#include "scalana/psg_format.h"
#include "unit_helpers.h"

#include <dlfcn.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stdio.h>

/* Three counts; an Allgather next to the Allreduce; `grow` says whether the
 * Allgather's shortest call grows beyond the Allreduce's (its control). */
static void growing_case2(int grow, double bytes_per_rank, int min_grows, int *flagged);

static void growing_case(int grow, int *flagged) { growing_case2(grow, 0, 1, flagged); }

/* grow: the Allgather's time grows beyond the crowding; min_grows: its
 * shortest call does too (else only its per-process total, as on a machine so
 * crowded that every shortest call is scheduling); bytes_per_rank: bytes each
 * process contributes per call (each call moves P times that per process). */
static void growing_case2(int grow, double bytes_per_rank, int min_grows, int *flagged)
{
    struct mini m;
    mini_init(&m, 0, 3);
    uint32_t ag = add_v(&m.a.g, m.loop, PSG_MPI, "MPI_Allgather", 6, 208);
    an_graph_sort_children(&m.a.g);
    uint32_t Ps[3] = {2, 4, 8};
    for (int k = 0; k < 3; k++) {
        uint32_t P = Ps[k];
        struct an_run *r = mini_run(&m, k, P, 4.0);
        double A[8], W[8], G[8];
        /* crowding makes every call slower with p; only a growing Allgather grows beyond it */
        double crowd = 0.001 * P, own = grow ? 0.01 * P : 0.0;
        if (!min_grows) {
            /* the crowding is measured: wall/CPU P/2 (contention 1 at 2, 4 at 8 processes);
             * a growing volume grows faster than it */
            for (uint32_t i = 0; i < P; i++) r->cpu[i] = 4.0 * 2 / P;
            own *= P / 2.0;
        }
        for (uint32_t i = 0; i < P; i++) A[i] = 4.0 / P, W[i] = 100 * crowd, G[i] = 100 * (crowd + own);
        set_cpu(r, m.A, A), set_mpi(r, m.ar, W, 100, crowd), set_mpi(r, ag, G, 100, crowd + (min_grows ? own : 0));
        struct an_vrun *x = an_run_vertex(r, ag);
        x->bytes_sent = bytes_per_rank * x->calls, x->bytes_recv = bytes_per_rank * P * x->calls;
    }
    mini_finish(&m);
    *flagged = (m.a.vflags[ag] & AN_F_NON_SCALABLE) != 0;
    if (grow && *flagged) {
        assert_true(m.a.ncauses >= 1);
        assert_int_equal(m.a.causes[0].vertex, ag);
        assert_string_equal(an_category_name(m.a.causes[0].cat), "growing_communication");
    }
    /* the Allreduce's own time grows 4x with the unmeasured crowding (min_grows):
     * a latency-bound collective growing with p, named (after the Allgather);
     * with the crowding measured (contention) it does not grow */
    if (min_grows) {
        assert_true(m.a.vflags[m.ar] & AN_F_NON_SCALABLE);
        if (!grow) {
            assert_int_equal(m.a.causes[0].vertex, m.ar);
            assert_non_null(strstr(m.a.causes[0].evidence, "latency-bound"));
        }
    } else {
        assert_false(m.a.vflags[m.ar] & AN_F_NON_SCALABLE);
    }
    an_analysis_free(&m.a);
}

/* A latency-bound Allreduce on a contended machine (contention P/2): with
 * back_to_back set, 2560 calls of which 2540 follow the previous call with no
 * computation between (intervals: 2559 of them, 19 relaxation phases of
 * 10 ms), and its time per process grows 0.02 s x p^2, faster than the
 * contention: growing communication.
 * Without (one call per iteration after each phase) the same growth is the
 * scheduler's: no cause, a warning; without intervals (back_to_back < 0) a warning says
 * that it cannot be judged. */
static void back_to_back_case(int back_to_back, int *flagged, int *warned)
{
    struct mini m;
    mini_init(&m, 0, 3);
    uint32_t Ps[3] = {2, 4, 8};
    for (int k = 0; k < 3; k++) {
        uint32_t P = Ps[k];
        struct an_run *r = mini_run(&m, k, P, 4.0);
        double A[8], W[8];
        for (uint32_t i = 0; i < P; i++) A[i] = 4.0 / P, W[i] = 0.02 * P * P, r->cpu[i] = 4.0 * 2 / P;
        double calls = back_to_back > 0 ? 2560 : 20;
        for (uint32_t i = 0; i < P; i++) r->usable_cores[i] = 2, r->ranks_on_host[i] = P; /* 2 cores */
        set_cpu(r, m.A, A), set_mpi(r, m.ar, W, calls, 1e-6);
        if (back_to_back < 0) continue;
        r->intervals = calloc(1, sizeof *r->intervals);
        r->nintervals = 1, r->has_intervals = 1;
        struct an_interval *x = &r->intervals[0];
        x->prev_vertex = x->next_vertex = m.ar;
        x->count = calloc(P, sizeof(float)), x->wall = calloc(P, sizeof(float)), x->wall_sq = calloc(P, sizeof(float));
        for (uint32_t i = 0; i < P; i++)
            x->count[i] = (float)(calls - 1), x->wall[i] = 19 * 0.01f, x->wall_sq[i] = 19 * 0.0001f;
    }
    mini_finish(&m);
    assert_true(m.a.runs[2].contention > opt.th.contention_max);
    *flagged = (m.a.vflags[m.ar] & AN_F_NON_SCALABLE) != 0;
    *warned = has_warning(&m, "cannot be told from waiting for the scheduler", NULL);
    if (*flagged) {
        assert_true(m.a.ncauses >= 1);
        assert_int_equal(m.a.causes[0].vertex, m.ar);
        assert_string_equal(an_category_name(m.a.causes[0].cat), "growing_communication");
        assert_non_null(strstr(m.a.causes[0].evidence, "caveat"));
        /* the saving: 2560 calls x the growth per call from 2 processes, each
         * run's time per call divided by its contention (4 at 8, 1 at 2):
         * 1.28 / 4 - 0.08 */
        assert_true(fabs(m.a.causes[0].cost - (1.28 / 4 - 0.08)) < 1e-3);
    }
    an_analysis_free(&m.a);
}

/* An uncontended latency-bound Allreduce at 1, 2, 4, 8 processes (a core
 * each): 1000 calls per process, 0.1 ms in all at 1 process (a copy), then
 * 0.1, 0.3, 0.7 s.  Its cost is the growth from 2 processes (0.6 s), not from
 * the copy at 1 (0.6999 s), and the evidence starts at 2. */
static void t_growing_comm_base(void **state)
{
    (void)state;
    struct mini m;
    mini_init(&m, 0, 4);
    uint32_t Ps[4] = {1, 2, 4, 8};
    double Ws[4] = {1e-4, 0.1, 0.3, 0.7};
    for (int k = 0; k < 4; k++) {
        uint32_t P = Ps[k];
        struct an_run *r = mini_run(&m, k, P, 4.0);
        double A[8], W[8];
        for (uint32_t i = 0; i < P; i++) A[i] = 3.0 / P, W[i] = Ws[k], r->cpu[i] = 4.0 - Ws[k];
        for (uint32_t i = 0; i < P; i++) r->mpi[i] = Ws[k];
        set_cpu(r, m.A, A), set_mpi(r, m.ar, W, 1000, Ws[k] / 1000);
    }
    mini_finish(&m);
    assert_true(m.a.ncauses >= 1);
    const struct an_cause *c = &m.a.causes[0];
    assert_int_equal(c->vertex, m.ar);
    assert_string_equal(an_category_name(c->cat), "growing_communication");
    assert_true(fabs(c->cost - 0.6) < 1e-3);
    assert_non_null(strstr(c->evidence, "at 2 to"));
    an_analysis_free(&m.a);
}

/* One MPI_Allreduce call site (t.c:50) reached from 8 calling contexts,
 * uncontended, 1, 2, 4, 8 processes: each context grows 0.075 s from 2
 * processes, under symptom_share of the 0.2 s minimum cost; the site, summed,
 * grows 0.6 s: one growing communication cause of 0.6 s, at one of the
 * contexts, whose evidence says it is summed over 8. */
static void t_growing_comm_call_site(void **state)
{
    (void)state;
    struct mini m;
    mini_init(&m, 0, 4);
    uint32_t ctx[8];
    for (int c = 0; c < 8; c++) {
        char name[16];
        snprintf(name, sizeof name, "f%d", c);
        uint32_t f = add_v(&m.a.g, m.loop, PSG_FUNCTION, name, 10 + (uint32_t)c, 0);
        ctx[c] = add_v(&m.a.g, f, PSG_MPI, "MPI_Allreduce", 50, 203);
    }
    an_graph_sort_children(&m.a.g);
    uint32_t Ps[4] = {1, 2, 4, 8};
    double Ws[4] = {1e-4, 0.1, 0.3, 0.7};
    for (int k = 0; k < 4; k++) {
        uint32_t P = Ps[k];
        struct an_run *r = mini_run(&m, k, P, 4.0);
        double A[8], W[8];
        for (uint32_t i = 0; i < P; i++) A[i] = 3.0 / P, W[i] = Ws[k] / 8, r->cpu[i] = 4.0 - Ws[k], r->mpi[i] = Ws[k];
        set_cpu(r, m.A, A);
        for (int c = 0; c < 8; c++) set_mpi(r, ctx[c], W, 125, Ws[k] / 1000);
    }
    mini_finish(&m);
    uint32_t found = 0;
    for (uint32_t k = 0; k < m.a.ncauses; k++) {
        const struct an_cause *c = &m.a.causes[k];
        if (c->cat != AN_CAT_GROWING_COMM) continue;
        found++;
        assert_true(fabs(c->cost - 0.6) < 1e-3);
        assert_non_null(strstr(c->evidence, "summed over the call's 8 calling contexts"));
        int is_ctx = 0;
        for (int j = 0; j < 8; j++) is_ctx |= c->vertex == ctx[j];
        assert_true(is_ctx);
    }
    assert_int_equal(found, 1);
    an_analysis_free(&m.a);
}

static void t_back_to_back_collective(void **state)
{
    (void)state;
    int flagged, warned;
    back_to_back_case(1, &flagged, &warned);
    assert_true(flagged);
    /* one call per iteration after computation: no cause, but a warning with
     * its growth (it cannot be told from the scheduler's) */
    back_to_back_case(0, &flagged, &warned);
    assert_false(flagged);
    assert_true(warned);
    back_to_back_case(-1, &flagged, &warned);
    assert_false(flagged);
    assert_true(warned);
}

static void t_growing_communication_control(void **state)
{
    (void)state;
    int flagged;
    growing_case(1, &flagged);
    assert_true(flagged);
    /* growing as much as its control with a crowding that contention does not
     * show: its own time per process still grows 4x, which is what a person pays */
    growing_case(0, &flagged);
    assert_true(flagged);
    /* every shortest call is crowded: a 1 MB-per-process Allgather is still found by its
     * volume and the time of its fastest process; an 8-byte one is not (latency-bound on
     * a contended run: a warning, it cannot be told from waiting for the scheduler), an
     * Allgather that grows only with the contention is not */
    growing_case2(1, 1 << 20, 0, &flagged);
    assert_true(flagged);
    growing_case2(1, 8, 0, &flagged);
    assert_false(flagged);
    growing_case2(0, 1 << 20, 0, &flagged);
    assert_false(flagged);
}

int main(void)
{
    unit_setup();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_growing_communication_control),
        cmocka_unit_test(t_growing_comm_base),
        cmocka_unit_test(t_growing_comm_call_site),
        cmocka_unit_test(t_back_to_back_collective),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
