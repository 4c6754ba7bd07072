/* test_ppg.c — cmocka unit tests of the PPG of a rank (analyzer/ppg/ppg.c): MPI vertices, edges,
 * inclusive time, and sample weights against signals. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/graph.h"
#include "core/types.h"
#include "detect/detect.h"
#include "metrics/metrics.h"
#include "ppg/intervals.h"
#include "ppg/ppg.h"
#include "ppg/vtime.h"
#include "read/attribute.h"
#include "read/symbolize.h"
#include "scalana/profile_format.h"
#include "scalana/psg_format.h"
#include "unit_helpers.h"

#include <dlfcn.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void t_attribution_dynamic_and_ppg(void **state)
{
    (void)state;
    char exe[PATH_MAX], bid[128] = "";
    assert_non_null(realpath("/proc/self/exe", exe));
    an_elf_build_id(exe, bid, sizeof bid);
    struct an_graph g;
    an_graph_init(&g);
    struct an_symbolizer *sym = an_sym_new(&g.strings, exe, bid);
    struct an_attr_ctx c;
    an_attr_ctx_init(&c, &g, sym, NULL, &opt);
    struct an_run r;
    an_run_init(&r, 2);
    char err[256];
    for (uint32_t rank = 0; rank < 2; rank++) {
        struct fake_rank f;
        fake_rank(&f, rank, 2, bid);
        assert_int_equal(an_run_add_rank(&r, &c, &f.d, err, sizeof err), 0);
    }
    struct fake_rank f;
    fake_rank(&f, 1, 2, bid);
    assert_int_equal(an_run_add_rank(&r, &c, &f.d, err, sizeof err), -1); /* twice */
    an_run_finish(&r, &g);
    /* dynamic vertices: unit_main -> call site -> unit_kernel; MPI children at the call site */
    uint32_t kernel = AN_NONE, send = AN_NONE, recv = AN_NONE;
    for (uint32_t v = 0; v < g.n; v++) {
        if (!strcmp(g.v[v].function, "unit_kernel") && g.v[v].kind == AN_KIND_DYNAMIC) kernel = v;
        if (g.v[v].kind == PSG_MPI && g.v[v].op == 100) send = v;
        if (g.v[v].kind == PSG_MPI && g.v[v].op == 120) recv = v;
    }
    assert_int_not_equal(kernel, AN_NONE);
    assert_int_not_equal(send, AN_NONE);
    assert_int_not_equal(recv, AN_NONE);
    assert_true(fabs(r.vr[kernel].cpu[1] - 0.101) < 1e-6);
    assert_true(fabs(r.vr[send].mpi[0] - 0.001) < 1e-6);
    assert_true(r.vr[kernel].icpu[0] > 0);
    /* inclusive at the root holds cpu and mpi of both */
    uint32_t root = kernel;
    while (g.v[root].parent != AN_NONE) root = g.v[root].parent;
    assert_true(fabs(r.vr[root].incl[0] - (0.100 + 0.001 + 0.002)) < 1e-5);
    /* one matched edge send -> recv, nothing unmatched */
    assert_int_equal(r.nedges, 1);
    assert_int_equal(r.edges[0].send_vertex, send);
    assert_int_equal(r.edges[0].recv_vertex, recv);
    assert_int_equal(r.edges[0].messages, 20);
    assert_int_equal(r.unmatched, 0);
    double *bytes, *msgs;
    assert_int_equal(an_run_matrix(&r, &bytes, &msgs), 0);
    assert_true(bytes[0 * 2 + 1] == 1000 && bytes[1 * 2 + 0] == 1000 && msgs[0] == 0);
    free(bytes), free(msgs);
    assert_true(r.oversub == 1.0);
    an_run_free(&r);
    an_attr_ctx_free(&c);
    an_sym_free(sym);
    an_graph_free(&g);
}

/* Whether a warning of m contains every one of the strings (NULL-terminated). */
/* Statistical tests count signals, not weights.  A CPU-time timer asked for
 * 1000 Hz on a 250 Hz kernel delivers a signal per tick weighted by the
 * periods it merged: the same CPU seconds then rest on fewer observations.
 * One process spends 0.2 s in B against 0.1 s on three others: as 200
 * against 100 signals of weight 1 that is significant (a cause at B); as 10
 * against 5 signals of weight 20 it is not (binomial tail about 0.07 against
 * alpha / 3), and the advice for more samples must not be "raise
 * SCALANA_FREQ" where the timer is capped. */
static void weighted_case(struct mini *m, uint64_t weight_per_signal)
{
    const uint32_t P = 4;
    mini_init(m, P, 1);
    struct an_run *r = mini_run(m, 0, P, 1.0);
    double A[4] = {0.5, 0.5, 0.5, 0.5}, B[4] = {0.1, 0.1, 0.1, 0.2}, W[4];
    for (uint32_t i = 0; i < P; i++) W[i] = 0.01 + 0.2 - B[i];
    set_cpu(r, m->A, A), set_cpu(r, m->B, B), set_mpi(r, m->ar, W, 100, 1e-4);
    /* the run's signals and weights as an_run_add_rank sums them from prf_sample */
    r->weight = 2000 + 500;                  /* periods: 2.0 s of A + 0.5 s of B at 1 ms */
    r->signals = r->weight / weight_per_signal;
    r->asked_hz = 1000, r->effective_hz = weight_per_signal > 1 ? 1000.0 / weight_per_signal : 1000;
    r->resolution_s = weight_per_signal > 1 ? 0.001 * weight_per_signal : 0;
    strcpy(r->sampler, "cputime");
    mini_finish(m);
}

static void t_signals_not_weights(void **state)
{
    (void)state;
    struct mini m;
    weighted_case(&m, 1);
    assert_true(fabs(an_signal_s(&m.a.runs[0]) - 0.001) < 1e-12);
    int found = 0;
    for (uint32_t k = 0; k < m.a.ncauses; k++)
        if (m.a.causes[k].vertex == m.B && m.a.causes[k].nprocs == 1 && m.a.causes[k].procs[0] == 3) found = 1;
    assert_true(found);
    an_analysis_free(&m.a);

    weighted_case(&m, 20);
    assert_true(fabs(an_signal_s(&m.a.runs[0]) - 0.020) < 1e-12);
    assert_true(an_rate_capped(&m.a.runs[0]));
    for (uint32_t k = 0; k < m.a.ncauses; k++) assert_int_not_equal(m.a.causes[k].vertex, m.B);
    /* same counts as seconds / signal: the split test itself is not significant */
    struct an_detect d;
    memset(&d, 0, sizeof d);
    d.a = &m.a, d.big = &m.a.scales[m.a.nscales - 1], d.r = d.big->rep, d.N = m.a.g.n, d.P = 4;
    double x[4] = {0.1, 0.1, 0.1, 0.2};
    struct an_split sp;
    an_split_values(&d, x, an_signal_s(d.r), &sp);
    assert_false(sp.significant);
    assert_true(sp.p_value > 0.02 && sp.p_value < 0.2);
    an_split_free(&sp);
    an_split_values(&d, x, 0.001, &sp); /* weights as counts: overconfident */
    assert_true(sp.significant);
    an_split_free(&sp);
    /* advice where the timer is capped */
    char how[256];
    an_more_samples_advice(d.r, how, sizeof how);
    assert_non_null(strstr(how, "taskclock"));
    assert_non_null(strstr(how, "gives no more samples"));
    for (uint32_t k = 0; k < m.a.nwarnings; k++)
        if (strstr(m.a.warnings[k], "SCALANA_FREQ")) assert_non_null(strstr(m.a.warnings[k], "no more samples"));
    an_analysis_free(&m.a);

    /* the sums an_run_add_rank makes from real records: 10 signals of weight
     * 20 and 5 of weight 1 per rank */
    char exe[PATH_MAX], bid[128] = "";
    assert_non_null(realpath("/proc/self/exe", exe));
    an_elf_build_id(exe, bid, sizeof bid);
    struct an_graph g;
    an_graph_init(&g);
    struct an_symbolizer *sym = an_sym_new(&g.strings, exe, bid);
    struct an_attr_ctx c;
    an_attr_ctx_init(&c, &g, sym, NULL, &opt);
    struct an_run r;
    an_run_init(&r, 2);
    char err[256];
    for (uint32_t rank = 0; rank < 2; rank++) {
        struct fake_rank f;
        fake_rank(&f, rank, 2, bid);
        f.smp[0].count = 10, f.smp[0].weight = 200;
        f.d.has_sampling = 1;
        f.d.sampling = (struct prf_sampling){PRF_SAMPLER_CPUTIME, 1000, 1000000, 4000000, 4000000,
                                             15, 205, 60000000, 250.0, {0, 0}};
        assert_int_equal(an_run_add_rank(&r, &c, &f.d, err, sizeof err), 0);
    }
    an_run_finish(&r, &g);
    assert_int_equal(r.signals, 30);
    assert_int_equal(r.weight, 410);
    assert_true(fabs(r.signal_s - 410.0 / 30 * 0.001) < 1e-12);
    assert_true(fabs(r.asked_hz - 1000) < 1e-9 && fabs(r.effective_hz - 250) < 1e-9);
    assert_true(fabs(r.obtained_hz - 250) < 1e-9 && fabs(r.resolution_s - 0.004) < 1e-12);
    an_run_free(&r);
    an_attr_ctx_free(&c);
    an_sym_free(sym);
    an_graph_free(&g);
}

/* A series the runtime read in all but its first interval is exact, and a
 * one-off interval before it, estimated from one sample, does not spoil the
 * exactness of the CPU before the same MPI vertex while its uncertainty (its
 * periods plus one) is under a tenth of it (short_imbalance beside two CPU
 * hogs: its cost came from samples, 0.160 s against 0.125 s planted). */
static void t_intervals_completed(void **state)
{
    (void)state;
    for (int big_estimate = 0; big_estimate < 2; big_estimate++) {
        struct an_run r;
        an_run_init(&r, 1);
        struct prf_rank_data d;
        memset(&d, 0, sizeof d);
        d.info.sampler = PRF_SAMPLER_CPUTIME;
        const uint64_t ms = 1000000;
        struct prf_interval iv[2] = {
            /* context 0 (MPI_Init) -> 1 (the loop's MPI_Allreduce): not read, 1 period */
            {.prev_context = 0, .next_context = 1, .count = 1, .wall_ns = 8 * ms, .wall_min_ns = 8 * ms,
             .wall_max_ns = 8 * ms, .cpu_samples = big_estimate ? 30 : 1},
            /* 1 -> 1: 19 intervals of 6 ms, 18 read */
            {.prev_context = 1, .next_context = 1, .count = 19, .wall_ns = 19 * 6 * ms, .wall_min_ns = 6 * ms,
             .wall_max_ns = 6 * ms, .cpu_ns = 18 * 6 * ms, .cpu_count = 18, .cpu_wall_ns = 18 * 6 * ms,
             .cpu_samples = 3},
        };
        d.intervals = iv, d.interval_count = 2;
        const uint32_t ctx_vertex[2] = {3, 4};
        an_run_add_intervals(&r, 0, &d, ctx_vertex, 0.005);
        struct an_interval *loop = an_run_interval(&r, 4, 4), *first = an_run_interval(&r, 3, 4);
        /* the unread one gets the read ones' mean, not the 3 samples */
        assert_true(fabs(loop->cpu[0] - 0.114) < 1e-6);
        assert_int_equal(loop->cpu_exact, 1);
        /* 1 period (5 ms, +5 ms uncertainty) beside 0.119 s: exact; 30 periods: not */
        assert_true(fabs(first->cpu[0] - (big_estimate ? 0.150 : 0.005)) < 1e-6);
        assert_int_equal(first->cpu_exact, big_estimate ? 0 : 1);
        an_run_free(&r);
    }
}

int main(void)
{
    unit_setup();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_attribution_dynamic_and_ppg),
        cmocka_unit_test(t_signals_not_weights),
        cmocka_unit_test(t_intervals_completed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
