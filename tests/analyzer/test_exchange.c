/* test_exchange.c — cmocka unit tests of the point-to-point exchange detector
 * (analyzer/detect/detectors/exchange.c): a recursive-doubling exchange whose bytes per
 * process grow is growing communication at its MPI_Send; a halo whose bytes per
 * process stay while the work shrinks is a halo exchange at its MPI_Waitall;
 * the same halo in small (latency-bound) messages, and an exchange whose volume
 * shrinks with more partners, are left alone; the runs of a recursive doubling
 * stretched by other load (every time of a run x its contention) cost what the
 * quiet ones do. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/graph.h"
#include "core/types.h"
#include "detect/category.h"
#include "metrics/metrics.h"
#include "ppg/ppg.h"
#include "scalana/profile_format.h"
#include "scalana/psg_format.h"
#include "unit_helpers.h"
#include "scalana/mpi_ops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum shape { DOUBLING, HALO, SHRINKING };

/* Runs at 2, 4 and 8 processes of main -> loop -> {A (work 4/p s), Irecv, Send or
 * Isend, Wait(all)}: per process `rounds` messages of `msg` bytes each way per
 * iteration (40 iterations), to `rounds` partners, costing `per_byte` seconds a
 * byte in the completion (HALO) or the send (DOUBLING, SHRINKING).  *cause: the
 * first cause's vertex, category, cost; returns the vertex that should hold it. */
static uint32_t exchange_case_stretched(enum shape shape, double msg, const double *stretch, struct an_cause *first,
                                       uint32_t *ncauses)
{
    struct mini m;
    mini_init(&m, 0, 3);
    uint32_t irecv = add_v(&m.a.g, m.loop, PSG_MPI, "MPI_Irecv", 6, scalana_mpi_op_from_name("MPI_Irecv"));
    uint32_t send = add_v(&m.a.g, m.loop, PSG_MPI, shape == HALO ? "MPI_Isend" : "MPI_Send", 7,
                          scalana_mpi_op_from_name(shape == HALO ? "MPI_Isend" : "MPI_Send"));
    uint32_t wait = add_v(&m.a.g, m.loop, PSG_MPI, shape == HALO ? "MPI_Waitall" : "MPI_Wait", 8,
                          scalana_mpi_op_from_name(shape == HALO ? "MPI_Waitall" : "MPI_Wait"));
    an_graph_sort_children(&m.a.g);
    const double per_byte = 2e-9, iters = 40;
    uint32_t Ps[3] = {2, 4, 8};
    for (int k = 0; k < 3; k++) {
        uint32_t P = Ps[k], lg = k + 1;
        /* stretch[k]: the run computed and waited stretch[k] times as long (other
         * load): its wall outside MPI over its CPU time, its contention, says so */
        double f = stretch ? stretch[k] : 1;
        struct an_run *r = mini_run(&m, k, P, 4.0);
        double A[8], T[8], Z[8], W[8];
        r->peers = calloc(8 * P, sizeof *r->peers), r->peers_cap = 8 * P;
        for (uint32_t i = 0; i < P; i++) {
            uint32_t nb = shape == HALO ? (i == 0 || i == P - 1 ? 1 : 2) : lg;
            double bytes = shape == SHRINKING ? msg / P * 2 : msg;   /* per message */
            A[i] = 4.0 / P, Z[i] = 1e-4, W[i] = 0.01;
            T[i] = f * iters * nb * bytes * per_byte;
            for (uint32_t j = 0; j < nb; j++) {
                int32_t peer = shape == HALO ? (int32_t)(j == 0 && i > 0 ? i - 1 : i + 1) : (int32_t)(i ^ (1u << j));
                r->peers[r->npeers++] = (struct an_peer_rec){i, irecv, peer, 1, PRF_PEER_RECV, 0, 1,
                                                             (uint64_t)iters, (uint64_t)(iters * bytes), 0, 0, 0};
                r->peers[r->npeers++] = (struct an_peer_rec){i, send, peer, 1, PRF_PEER_SEND, 0, 1,
                                                             (uint64_t)iters, (uint64_t)(iters * bytes), 0, 0, 0};
            }
        }
        double calls = iters * (shape == HALO ? 2 : lg);
        set_cpu(r, m.A, A), set_mpi(r, m.ar, W, iters, 1e-4);
        /* the fastest call of the transfer moves one message: no wait in it */
        double one = (shape == SHRINKING ? msg / P * 2 : msg) * per_byte;
        set_mpi(r, irecv, Z, calls, 1e-6);
        set_mpi(r, send, shape == HALO ? Z : T, calls, shape == HALO ? 1e-6 : one);
        set_mpi(r, wait, shape == HALO ? T : Z, iters, shape == HALO ? one : 1e-6);
        if (stretch)
            for (uint32_t i = 0; i < P; i++) {
                r->cpu[i] = A[i], r->mpi[i] = T[i] + W[i] + 2 * Z[i];
                r->wall[i] = f * A[i] + r->mpi[i];
            }
        double tot = 0;
        for (uint32_t i = 0; i < P; i++)
            tot += (shape == HALO ? (i == 0 || i == P - 1 ? 1 : 2) : lg) * iters *
                   (shape == SHRINKING ? msg / P * 2 : msg);
        an_run_vertex(r, irecv)->bytes_recv = tot;
        an_run_vertex(r, send)->bytes_sent = tot;
    }
    mini_finish(&m);
    *ncauses = m.a.ncauses;
    memset(first, 0, sizeof *first);
    if (m.a.ncauses) *first = m.a.causes[0], first->procs = NULL, first->waiting = NULL, first->path = NULL;
    uint32_t want = shape == HALO ? wait : send;
    an_analysis_free(&m.a);
    return want;
}

static uint32_t exchange_case(enum shape shape, double msg, struct an_cause *first, uint32_t *ncauses)
{
    return exchange_case_stretched(shape, msg, NULL, first, ncauses);
}

static void t_recursive_doubling(void **state)
{
    (void)state;
    struct an_cause c;
    uint32_t n, want = exchange_case(DOUBLING, 8e6, &c, &n);
    assert_true(n >= 1);
    assert_int_equal(c.vertex, want);
    assert_string_equal(an_category_name(c.cat), "growing_communication");
    assert_non_null(strstr(c.evidence, "partners per process go from 2 to 3"));
    /* time per process at 8: 3 rounds x 40 x 8 MB x 2 ns = 1.92 s; had it shrunk like
     * the work from 2 processes (0.64 s): 0.16 s; a core per process here */
    assert_true(fabs(c.cost - (1.92 - 0.16)) < 0.02);
}

static void t_halo(void **state)
{
    (void)state;
    struct an_cause c;
    uint32_t n, want = exchange_case(HALO, 8e6, &c, &n);
    assert_true(n >= 1);
    assert_int_equal(c.vertex, want);
    assert_string_equal(an_category_name(c.cat), "halo_exchange");
    /* the interior processes' 2 lines: 40 x 2 x 8 MB x 2 ns = 1.28 s, the ends' 0.64 s:
     * mean at 8 = 1.12 s, at 2 = 0.64 s, ideal at 8 = 0.16 s */
    assert_true(fabs(c.cost - (1.12 - 0.16)) < 0.02);
    assert_non_null(strstr(c.evidence, "does not shrink with the subdomain"));
}

/* miniAMR beside two CPU hogs: its exchange took 16.4 s per process at 2
 * processes (contention 1.97) and 11 s at 4 (2.74), quiet 5.5 and 3.5; the
 * difference divided by the processes per core was a 1.4 s growing
 * communication for a volume whose time shrank.  Each run's time is now
 * divided by its own contention: the stretched runs cost what quiet ones do,
 * and without the division this is 3 x 1.92 - 1.5 x 0.16 = 5.5 s. */
static void t_contended_exchange(void **state)
{
    (void)state;
    const double stretch[3] = {1.5, 2.0, 3.0};
    struct an_cause c;
    uint32_t n, want = exchange_case_stretched(DOUBLING, 8e6, stretch, &c, &n);
    assert_true(n >= 1);
    assert_int_equal(c.vertex, want);
    assert_string_equal(an_category_name(c.cat), "growing_communication");
    assert_true(fabs(c.cost - (1.92 - 0.16)) < 0.05);
    assert_non_null(strstr(c.evidence, "each run's time is divided by its contention"));
}

static void t_left_alone(void **state)
{
    (void)state;
    struct an_cause c;
    uint32_t n;
    /* 8 KB lines: latency-bound, not this detector's */
    exchange_case(HALO, 8e3, &c, &n);
    for (uint32_t k = 0; k < n; k++) assert_int_not_equal(c.cat, AN_CAT_HALO);
    /* more partners, each round smaller: the volume per process shrinks */
    exchange_case(SHRINKING, 8e6, &c, &n);
    assert_false(n && (c.cat == AN_CAT_GROWING_COMM || c.cat == AN_CAT_HALO));
}

int main(void)
{
    unit_setup();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_recursive_doubling),
        cmocka_unit_test(t_halo),
        cmocka_unit_test(t_contended_exchange),
        cmocka_unit_test(t_left_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
