/* test_waits.c — cmocka unit tests of backtracking from wait states (analyzer/detect/detectors/waits.c):
 * an imbalance found, GPU-bound late processes, waits at collectives per communicator, a balanced
 * halo cycle finds nothing, blame that rotates is reported as such, a chain of late senders
 * through one receive is a pipeline, a lone unexplained late sender is a wait for a message, a
 * loop that every process runs but only one has work in is a load imbalance (a serial section
 * when it is reached through a branch), a late sender whose work lies before its non-blocking
 * posts is found by the exact interval before the first post, a contended run's wait is not
 * confirmed by a run with a core per process whose partner other load descheduled, a late process's
 * gap between wall and CPU time is interference when it waited for a core (its run delay). */
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
#include "scalana/mpi_ops.h"
#include "unit_helpers.h"

#include <dlfcn.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void t_backtrack_imbalance(void **state)
{
    (void)state;
    struct mini m;
    const uint32_t P = 8;
    mini_init(&m, P, 1);
    struct an_run *r = mini_run(&m, 0, P, 2.0);
    double A[8], B[8], W[8];
    for (uint32_t i = 0; i < P; i++) A[i] = 1.0, B[i] = i == 2 ? 0.8 : 0.2;
    for (uint32_t i = 0; i < P; i++) W[i] = 0.01 + (0.8 - B[i]);
    set_cpu(r, m.A, A), set_cpu(r, m.B, B), set_mpi(r, m.ar, W, 100, 1e-4);
    mini_finish(&m);
    assert_int_equal(m.a.ncauses, 1);
    const struct an_cause *c = &m.a.causes[0];
    assert_int_equal(c->vertex, m.B);
    assert_string_equal(an_category_name(c->cat), "load_imbalance");
    assert_int_equal(c->nprocs, 1);
    assert_int_equal(c->procs[0], 2);
    assert_true(c->cost > 0.5 && c->cost < 0.7);
    assert_string_equal(c->path[0].edge, "symptom");
    assert_string_equal(c->path[c->npath - 1].edge, "root");
    /* waits: t_i - min_j t_j */
    double w[8];
    an_waits(&m.a, r, m.ar, w);
    assert_true(fabs(w[2]) < 1e-6 && fabs(w[0] - 0.6) < 1e-5);
    an_analysis_free(&m.a);
}

/* The walk meets B as a whole, only mildly uneven (rank 2: 1.5 s against
 * 1.22 s, 1.21x the mean, under the imbalance threshold), but inside it B1
 * takes 0.3 s on rank 2 against 0.02 s, in four loops of 0.075 s each (no
 * one of them worth the minimum cost alone: the imbalance detector, which
 * judges each vertex's own time, finds none): B1 is the load imbalance the
 * others wait for.  LULESH's gcc OpenMP build: call LagrangeLeapFrog at
 * 1.2x, CalcEnergyForElems inside it at 221 samples against 38 over its
 * parallel regions, reported as "too thin" before. */
static void t_significant_inside(void **state)
{
    (void)state;
    struct mini m;
    const uint32_t P = 8;
    mini_init(&m, P, 1);
    uint32_t b1 = add_v(&m.a.g, m.B, PSG_LOOP, "B1", 6, 0), b2 = add_v(&m.a.g, m.B, PSG_LOOP, "B2", 12, 0);
    uint32_t part[4];
    for (uint32_t k = 0; k < 4; k++) part[k] = add_v(&m.a.g, b1, PSG_LOOP, "B1part", 7 + k, 0);
    an_graph_sort_children(&m.a.g);
    struct an_run *r = mini_run(&m, 0, P, 3.0);
    double A[8], Bp[8], B2[8], W[8];
    for (uint32_t i = 0; i < P; i++)
        A[i] = 1.0, Bp[i] = i == 2 ? 0.075 : 0.005, B2[i] = 1.2, W[i] = 0.01 + 4 * (0.075 - Bp[i]);
    set_cpu(r, m.A, A), set_cpu(r, b2, B2), set_mpi(r, m.ar, W, 100, 1e-4);
    for (uint32_t k = 0; k < 4; k++) set_cpu(r, part[k], Bp);
    mini_finish(&m);
    assert_true(m.a.ncauses >= 1);
    const struct an_cause *c = &m.a.causes[0];
    assert_true(c->vertex == b1 || c->vertex == part[0] || c->vertex == part[1] || c->vertex == part[2] ||
                c->vertex == part[3]);
    assert_string_equal(an_category_name(c->cat), "load_imbalance");
    assert_int_equal(c->nprocs, 1);
    assert_int_equal(c->procs[0], 2);
    an_analysis_free(&m.a);
}

static void t_backtrack_gpu_bound(void **state)
{
    (void)state;
    /* process 1 launches four times the kernel work; the others wait at the Allreduce */
    struct mini m;
    const uint32_t P = 4;
    mini_init(&m, P, 1);
    uint32_t launch = add_v(&m.a.g, m.loop, PSG_GPU, "call cudaLaunchKernel", 3, 1);
    an_graph_sort_children(&m.a.g);
    struct an_run *r = mini_run(&m, 0, P, 2.0);
    double A[4] = {0.5, 0.5, 0.5, 0.5}, W[4], K[4] = {0.2, 0.8, 0.2, 0.2};
    for (uint32_t i = 0; i < P; i++) W[i] = 0.01 + 0.8 - K[i];
    set_cpu(r, m.A, A), set_mpi(r, m.ar, W, 100, 1e-4);
    struct an_vrun *x = an_run_vertex(r, launch);
    x->gpu = calloc(P, sizeof *x->gpu);
    for (uint32_t i = 0; i < P; i++) x->gpu[i] = (float)K[i], x->gpu_kernel_s += K[i];
    mini_finish(&m);
    /* first the GPU-bound launch; then the host computation during which the light
     * processes' GPUs idled: min(0.5, 2 - 0.2) - 0.2 asynchronous on three of four */
    assert_int_equal(m.a.ncauses, 2);
    assert_int_equal(m.a.causes[1].vertex, m.A);
    assert_string_equal(an_category_name(m.a.causes[1].cat), "gpu_idle");
    assert_true(fabs(m.a.causes[1].cost - 0.225) < 0.01);
    assert_int_equal(m.a.causes[0].vertex, launch);
    assert_string_equal(an_category_name(m.a.causes[0].cat), "gpu_bound");
    assert_int_equal(m.a.causes[0].nprocs, 1);
    assert_int_equal(m.a.causes[0].procs[0], 1);
    /* the saving of bringing the heavy rank's kernels down to the others': 0.8 - 0.2 */
    assert_true(fabs(m.a.causes[0].cost - 0.6) < 0.01);
    an_analysis_free(&m.a);
}

static void t_wait_at_collective(void **state)
{
    (void)state;
    /* process 2 arrives late for a reason no sample shows (it slept): the wait is its own cause */
    struct mini m;
    const uint32_t P = 4;
    mini_init(&m, P, 1);
    struct an_run *r = mini_run(&m, 0, P, 2.0);
    double A[4] = {0.5, 0.5, 0.5, 0.5}, W[4] = {0.81, 0.81, 0.01, 0.81};
    set_cpu(r, m.A, A), set_mpi(r, m.ar, W, 100, 1e-4);
    mini_finish(&m);
    assert_int_equal(m.a.ncauses, 1);
    assert_int_equal(m.a.causes[0].vertex, m.ar);
    assert_string_equal(an_category_name(m.a.causes[0].cat), "wait_at_collective");
    assert_int_equal(m.a.causes[0].nprocs, 1);
    assert_int_equal(m.a.causes[0].procs[0], 2);
    assert_true(fabs(m.a.causes[0].cost - 0.8) < 0.01);
    an_analysis_free(&m.a);
    /* the same on a crowded machine (wall/CPU 4): not blamed, a warning instead */
    mini_init(&m, P, 1);
    r = mini_run(&m, 0, P, 2.0);
    for (uint32_t i = 0; i < P; i++) r->cpu[i] = 0.5;
    set_cpu(r, m.A, A), set_mpi(r, m.ar, W, 100, 1e-4);
    mini_finish(&m);
    assert_true(r->contention >= 4);
    assert_int_equal(m.a.ncauses, 0);
    assert_true(m.a.nwarnings >= 1);
    an_analysis_free(&m.a);
}

static void t_waits_per_communicator(void **state)
{
    (void)state;
    struct mini m;
    const uint32_t P = 4;
    mini_init(&m, P, 1);
    struct an_run *r = mini_run(&m, 0, P, 1.0);
    double W[4] = {0.5, 0.1, 0.9, 0.3};
    set_mpi(r, m.ar, W, 10, 1e-4);
    struct an_vrun *x = an_run_vertex(r, m.ar);
    x->comm = calloc(P, sizeof *x->comm);
    x->comm[0] = x->comm[1] = 7, x->comm[2] = x->comm[3] = 9; /* two row communicators */
    double w[4];
    an_waits(&m.a, r, m.ar, w);
    assert_true(fabs(w[0] - 0.4) < 1e-6 && fabs(w[1]) < 1e-6 && fabs(w[2] - 0.6) < 1e-6 && fabs(w[3]) < 1e-6);
    an_analysis_free(&m.a);
}

static void t_balanced_halo_cycle(void **state)
{
    (void)state;
    /* a halo exchange in a loop: balanced compute, recv waits of noise size only */
    struct mini m;
    const uint32_t P = 16;
    mini_init(&m, P, 1);
    uint32_t recv = add_v(&m.a.g, m.loop, PSG_MPI, "MPI_Recv", 6, 120);
    uint32_t send = add_v(&m.a.g, m.loop, PSG_MPI, "MPI_Send", 7, 100);
    an_graph_sort_children(&m.a.g);
    struct an_run *r = mini_run(&m, 0, P, 2.0);
    double A[16], B[16], W[16], R[16], S[16];
    for (uint32_t i = 0; i < P; i++) {
        A[i] = 1.0 + 0.002 * (i % 3), B[i] = 0.5 + 0.001 * (i % 5);
        W[i] = 0.005 + 0.001 * (i % 2), R[i] = 0.02 + 0.001 * (i % 4), S[i] = 0.001;
    }
    set_cpu(r, m.A, A), set_cpu(r, m.B, B), set_mpi(r, m.ar, W, 100, 4e-5);
    set_mpi(r, recv, R, 100, 1e-4), set_mpi(r, send, S, 100, 1e-5);
    for (uint32_t i = 0; i < P; i++) {
        struct an_peer_rec pr = {i, recv, (int32_t)((i + P - 1) % P), 1, PRF_PEER_RECV, 120, 1, 100, 800, 20000000, 100, 20000000};
        struct an_peer_rec ps = {i, send, (int32_t)((i + 1) % P), 1, PRF_PEER_SEND, 100, 1, 100, 800, 1000000, 0, 0};
        if (r->npeers + 2 > r->peers_cap) {
            r->peers_cap = r->peers_cap ? r->peers_cap * 2 : 64;
            r->peers = realloc(r->peers, r->peers_cap * sizeof *r->peers);
        }
        r->peers[r->npeers++] = pr, r->peers[r->npeers++] = ps;
    }
    mini_finish(&m);
    assert_int_equal(m.a.ncauses, 0);
    assert_int_equal(r->nedges, 1);
    an_analysis_free(&m.a);
}

static void t_rotating_blame(void **state)
{
    (void)state;
    /* every process waits long in a receive, the late peer changes, compute is balanced */
    struct mini m;
    const uint32_t P = 4;
    mini_init(&m, P, 1);
    uint32_t recv = add_v(&m.a.g, m.loop, PSG_MPI, "MPI_Recv", 6, 120);
    an_graph_sort_children(&m.a.g);
    struct an_run *r = mini_run(&m, 0, P, 2.0);
    double A[4] = {1, 1, 1, 1}, R[4] = {0.8, 0.8, 0.8, 0.8}, W[4] = {0.01, 0.01, 0.01, 0.01};
    set_cpu(r, m.A, A), set_mpi(r, recv, R, 100, 1e-4), set_mpi(r, m.ar, W, 10, 1e-4);
    r->peers = calloc(2 * P, sizeof *r->peers);
    for (uint32_t i = 0; i < P; i++) {
        r->peers[r->npeers++] = (struct an_peer_rec){i, recv, (int32_t)((i + 1) % P), 1, PRF_PEER_RECV, 120, 1, 50, 400, 400000000, 25, 400000000};
        r->peers[r->npeers++] = (struct an_peer_rec){i, recv, (int32_t)((i + P - 1) % P), 1, PRF_PEER_RECV, 120, 1, 50, 400, 400000000, 25, 390000000};
    }
    mini_finish(&m);
    assert_int_equal(m.a.ncauses, 1);
    assert_string_equal(an_category_name(m.a.causes[0].cat), "rotating_blame");
    assert_non_null(strstr(m.a.causes[0].evidence, "rotates"));
    an_analysis_free(&m.a);
}


/* A receive of rank i from rank i - 1 (rank 0 receives nothing), waits growing
 * along the chain, balanced compute: the fill and drain of a pipeline. */
static void pipeline_run_op(struct mini *m, uint32_t P, const double *R, int chain, const char *recv_op)
{
    unsigned op = scalana_mpi_op_from_name(recv_op);
    mini_init(m, P, 1);
    uint32_t recv = add_v(&m->a.g, m->loop, PSG_MPI, recv_op, 6, op);
    uint32_t send = add_v(&m->a.g, m->loop, PSG_MPI, "MPI_Send", 7, scalana_mpi_op_from_name("MPI_Send"));
    an_graph_sort_children(&m->a.g);
    struct an_run *r = mini_run(m, 0, P, 4.0);
    double A[8], S[8], W[8];
    for (uint32_t i = 0; i < P; i++) A[i] = 1.0, S[i] = 0.001, W[i] = 0.01;
    set_cpu(r, m->A, A), set_mpi(r, recv, R, 100, 1e-4), set_mpi(r, send, S, 100, 1e-5);
    set_mpi(r, m->ar, W, 10, 1e-4);
    r->peers = calloc(2 * P, sizeof *r->peers);
    for (uint32_t i = 0; i < P; i++) {
        uint32_t from = chain ? i - 1 : 0;
        if (i > 0)
            r->peers[r->npeers++] = (struct an_peer_rec){i, recv, (int32_t)from, 1, PRF_PEER_RECV, op, 1, 100, 800,
                                                         (uint64_t)(R[i] * 1e9), 100, (uint64_t)(R[i] * 1e9)};
        if (chain ? i + 1 < P : i == 0)
            for (uint32_t j = chain ? i + 1 : 1; j < (chain ? i + 2 : P); j++)
                r->peers[r->npeers++] = (struct an_peer_rec){i, send, (int32_t)j, 1, PRF_PEER_SEND, op, 1, 100,
                                                             800, 1000000, 0, 0};
    }
    mini_finish(m);
}

static void pipeline_run(struct mini *m, uint32_t P, const double *R, int chain)
{
    pipeline_run_op(m, P, R, chain, "MPI_Recv");
}

static void t_pipeline(void **state)
{
    (void)state;
    struct mini m;
    double R[4] = {0.001, 0.31, 0.61, 0.91};
    pipeline_run(&m, 4, R, 1);
    assert_int_equal(m.a.ncauses, 1);
    const struct an_cause *c = &m.a.causes[0];
    assert_string_equal(an_category_name(c->cat), "pipeline_wait");
    assert_int_equal(c->nprocs, 0); /* no culprit process: the structure is the cause */
    /* waits 0, 0.3, 0.6, 0.9 beyond the fastest calls: mean over all 4 processes */
    assert_true(fabs(c->cost - 0.45) < 0.01);
    assert_non_null(strstr(c->evidence, "a pipeline of 4 late senders"));
    assert_non_null(strstr(c->evidence, "back to process 0"));
    an_analysis_free(&m.a);
    /* the same waits in a shift through MPI_Sendrecv: it sends before it waits,
     * so no link delays the next: no pipeline */
    pipeline_run_op(&m, 4, R, 1, "MPI_Sendrecv");
    for (uint32_t k = 0; k < m.a.ncauses; k++) assert_int_not_equal(m.a.causes[k].cat, AN_CAT_PIPELINE);
    an_analysis_free(&m.a);
}

static void t_message_wait(void **state)
{
    (void)state;
    /* rank 0 is late for its three receivers for a reason no sample shows; none of them
     * waits for another: no pipeline, no work to post a send before */
    struct mini m;
    double R[4] = {0.001, 0.81, 0.81, 0.81};
    pipeline_run(&m, 4, R, 0);
    assert_int_equal(m.a.ncauses, 1);
    const struct an_cause *c = &m.a.causes[0];
    assert_string_equal(an_category_name(c->cat), "message_wait");
    assert_int_equal(c->nprocs, 1);
    assert_int_equal(c->procs[0], 0);
    assert_true(fabs(c->cost - 0.8) < 0.01);
    an_analysis_free(&m.a);
}

/* A lone late sender (rank 0, for a reason no sample shows) on a 4x contended
 * run at 4 processes, and at 2 processes on a run with a core each whose
 * rank 1 waits 0.6 s for rank 0 there.  Rank 0's run delay at 2 processes is
 * `delay` seconds (other load descheduled it).  Returns the cause (or the
 * candidate) at the receive, or NULL. */
static const struct an_cause *contended_wait_case(struct mini *m, double delay)
{
    unsigned op = scalana_mpi_op_from_name("MPI_Recv");
    mini_init(m, 0, 2);
    uint32_t recv = add_v(&m->a.g, m->loop, PSG_MPI, "MPI_Recv", 6, op);
    uint32_t send = add_v(&m->a.g, m->loop, PSG_MPI, "MPI_Send", 7, scalana_mpi_op_from_name("MPI_Send"));
    an_graph_sort_children(&m->a.g);
    for (uint32_t k = 0; k < 2; k++) {
        uint32_t P = k ? 4 : 2;
        struct an_run *r = mini_run(m, k, P, 2.0);
        double A[4], S[4], W[4], R2[2] = {0.001, 0.61}, R4[4] = {0.001, 0.81, 0.81, 0.81};
        for (uint32_t i = 0; i < P; i++) A[i] = 1.0, S[i] = 0.001, W[i] = 0.01;
        const double *R = k ? R4 : R2;
        set_cpu(r, m->A, A), set_mpi(r, recv, R, 100, 1e-4), set_mpi(r, send, S, 100, 1e-5);
        set_mpi(r, m->ar, W, 10, 1e-4);
        if (k) for (uint32_t i = 0; i < P; i++) r->cpu[i] = 0.5; /* wall / CPU 4 */
        for (uint32_t i = 0; i < P; i++) r->run_delay[i] = !k && i == 0 ? delay : 0;
        r->peers = calloc(2 * P, sizeof *r->peers);
        for (uint32_t i = 1; i < P; i++) {
            r->peers[r->npeers++] = (struct an_peer_rec){i, recv, 0, 1, PRF_PEER_RECV, op, 1, 100, 800,
                                                         (uint64_t)(R[i] * 1e9), 100, (uint64_t)(R[i] * 1e9)};
            r->peers[r->npeers++] = (struct an_peer_rec){0, send, (int32_t)i, 1, PRF_PEER_SEND, op, 1, 100, 800,
                                                         1000000, 0, 0};
        }
    }
    mini_finish(m);
    for (uint32_t k = 0; k < m->a.ncauses; k++)
        if (m->a.causes[k].vertex == recv) return &m->a.causes[k];
    for (uint32_t k = 0; k < m->a.ncandidates; k++) /* undecided: listed as a candidate */
        if (m->a.candidates[k].vertex == recv) return &m->a.candidates[k];
    return NULL;
}

/* A wait of a contended run is the program's when a run with a core per
 * process shows it too; not when the partner was descheduled there for as
 * long (its run delay): that wait was the other load's. */
static void t_contended_wait_run_delay(void **state)
{
    (void)state;
    struct mini m;
    const struct an_cause *c = contended_wait_case(&m, 0);
    assert_non_null(c);
    assert_string_equal(an_category_name(c->cat), "message_wait");
    assert_null(c->undecided);
    assert_non_null(strstr(c->evidence, "a run with a core per process shows a wait at this call too"));
    an_analysis_free(&m.a);
    /* rank 0 waited 0.55 s for a core at 2 processes: 0.06 s of rank 1's wait is left */
    c = contended_wait_case(&m, 0.55);
    assert_non_null(c);
    for (uint32_t k = 0; k < m.a.ncauses; k++) assert_int_not_equal(m.a.causes[k].cat, AN_CAT_MESSAGE_WAIT);
    assert_non_null(c->undecided);
    assert_non_null(strstr(c->evidence, "no run with a core per process shows a wait at this call"));
    assert_true(has_warning(&m, "not judged", "MPI_Recv", NULL));
    an_analysis_free(&m.a);
}

/* Process 2 of 4 (a core each) computes as much as the others, 1.19 CPU s,
 * but 0.8 s longer on the wall clock; the others wait for it at the
 * Allreduce.  Its run delay (time runnable without a core) is `delay`
 * seconds, NAN where not measured. */
static void late_unsampled_run(struct mini *m, double delay)
{
    const uint32_t P = 4;
    mini_init(m, P, 1);
    struct an_run *r = mini_run(m, 0, P, 2.0);
    double A[4] = {1.19, 1.19, 1.19, 1.19}, W[4] = {0.81, 0.81, 0.01, 0.81};
    set_cpu(r, m->A, A), set_mpi(r, m->ar, W, 100, 1e-4);
    for (uint32_t i = 0; i < P; i++) r->cpu[i] = 1.19, r->mpi[i] = W[i], r->run_delay[i] = i == 2 ? delay : 0.01;
    mini_finish(m);
}

/* Waiting for a core is interference, not the code's; sleeping or reading a
 * file (no run delay) is the code's, though both leave the same gap between
 * wall and CPU time. */
static void t_interference_run_delay(void **state)
{
    (void)state;
    struct mini m;
    /* it waited 0.78 s for a core: interference, an undecided candidate */
    late_unsampled_run(&m, 0.78);
    assert_int_equal(m.a.ncauses, 0);
    assert_true(has_warning(&m, "interference: at 4 processes, process [2]", "waited 0.78 s for a core", NULL));
    an_analysis_free(&m.a);
    /* older profiles without run delays: judged on the gap alone, as interference */
    late_unsampled_run(&m, NAN);
    assert_int_equal(m.a.ncauses, 0);
    assert_true(has_warning(&m, "interference: at 4 processes, process [2]", NULL));
    assert_false(has_warning(&m, "for a core (the scheduler's run delay)", NULL));
    an_analysis_free(&m.a);
    /* no run delay: it slept or blocked outside MPI, the wait is the code's */
    late_unsampled_run(&m, 0.0);
    assert_int_equal(m.a.ncauses, 1);
    assert_string_equal(an_category_name(m.a.causes[0].cat), "wait_at_collective");
    assert_int_equal(m.a.causes[0].procs[0], 2);
    assert_null(m.a.causes[0].undecided);
    assert_false(has_warning(&m, "interference", NULL));
    an_analysis_free(&m.a);
}

/* PRK PIC with every particle on rank 0: the particle loop, in main's iteration
 * loop, runs zero times on the others, who wait at the Allreduce; rank 0's time
 * there stays 1.6 s from 2 to 4 processes.  Reached by everyone: load imbalance at
 * the loop.  The same loop lifted out of `if (rank == 0)` (PSG_V_CONDITIONAL): a
 * serial bottleneck. */
static void zero_trip_case(int conditional, const char *want)
{
    struct mini m;
    mini_init(&m, 0, 2);
    m.a.has_psg = 1;
    uint32_t part = add_v(&m.a.g, m.A, PSG_LOOP, "particles", 3, 0);
    m.a.g.v[part].last_line = 9;
    if (conditional) m.a.g.v[part].flags |= AN_V_CONDITIONAL;
    an_graph_sort_children(&m.a.g);
    uint32_t Ps[2] = {2, 4};
    for (int k = 0; k < 2; k++) {
        uint32_t P = Ps[k];
        struct an_run *r = mini_run(&m, k, P, 4.0);
        double L[4], B[4], W[4];
        for (uint32_t i = 0; i < P; i++) L[i] = i == 0 ? 1.6 : 0, B[i] = 0.2, W[i] = i == 0 ? 0.01 : 1.61;
        set_cpu(r, part, L), set_cpu(r, m.B, B), set_mpi(r, m.ar, W, 100, 1e-4);
    }
    mini_finish(&m);
    assert_true(m.a.ncauses >= 1);
    const struct an_cause *c = &m.a.causes[0];
    assert_int_equal(c->vertex, part);
    assert_string_equal(an_category_name(c->cat), want);
    assert_int_equal(c->nprocs, 1);
    assert_int_equal(c->procs[0], 0);
    an_analysis_free(&m.a);
}

static void t_zero_trip_loop(void **state)
{
    (void)state;
    zero_trip_case(0, "load_imbalance");
    zero_trip_case(1, "serial_bottleneck");
}

/* One interval of every process, CPU seconds per process (exact), from MPI
 * vertex `from` to `to`, 20 times. */
static void add_interval(struct an_run *r, uint32_t from, uint32_t to, const double *cpu)
{
    r->intervals = realloc(r->intervals, (r->nintervals + 1) * sizeof *r->intervals);
    struct an_interval *x = &r->intervals[r->nintervals++];
    memset(x, 0, sizeof *x);
    x->prev_vertex = from, x->next_vertex = to, x->cpu_exact = 1;
    x->count = calloc(r->P, sizeof(float)), x->wall = calloc(r->P, sizeof(float)), x->cpu = calloc(r->P, sizeof(float));
    for (uint32_t i = 0; i < r->P; i++) x->count[i] = 20, x->cpu[i] = x->wall[i] = (float)cpu[i];
    r->has_intervals = 1;
}

/* late_sender_chain beside two CPU hogs: a halo exchange (MPI_Irecv,
 * MPI_Isend, MPI_Waitall) in a loop after the relaxation A, 8 processes;
 * rank 4 also runs the boundary update B first, 0.30 s of CPU seen as only 2
 * merged signals (Poisson p = 0.016 against 0 on the others: too thin at
 * alpha / 7), and the others wait at MPI_Waitall.  The exact interval before
 * the late send holds nothing (it starts at the MPI_Irecv post); the one
 * before the first post holds 0.57 s on rank 4 against 0.27 s: the late
 * sender is B, at about its 0.30 s. */
static void t_late_sender_posts(void **state)
{
    (void)state;
    const uint32_t P = 8, late = 4;
    struct mini m;
    mini_init(&m, P, 1);
    unsigned oirecv = scalana_mpi_op_from_name("MPI_Irecv"), oisend = scalana_mpi_op_from_name("MPI_Isend"),
             owaitall = scalana_mpi_op_from_name("MPI_Waitall");
    uint32_t irecv = add_v(&m.a.g, m.loop, PSG_MPI, "MPI_Irecv", 6, oirecv);
    uint32_t isend = add_v(&m.a.g, m.loop, PSG_MPI, "MPI_Isend", 7, oisend);
    uint32_t waitall = add_v(&m.a.g, m.loop, PSG_MPI, "MPI_Waitall", 8, owaitall);
    m.a.g.v[m.ar].order = 1; /* the Allreduce before the loop's work: the walk stops there */
    m.a.g.v[m.B].order = 2, m.a.g.v[m.A].order = 3;
    an_graph_sort_children(&m.a.g);
    struct an_run *r = mini_run(&m, 0, P, 4.0);
    r->period_s = 0.15; /* one signal per 0.15 CPU s: the timer's ticks merged */
    double A[8], B[8], W[8], S[8], Z[8] = {0}, ivl[8], ar[8];
    for (uint32_t i = 0; i < P; i++) {
        A[i] = 0.27, B[i] = i == late ? 0.30 : 0, S[i] = 1e-4, ar[i] = 0.001;
        W[i] = i == late ? 0.01 : (i == late - 1 || i == late + 1) ? 0.75 : 0.4;
        ivl[i] = A[i] + B[i];
    }
    set_cpu(r, m.A, A), set_cpu(r, m.B, B);
    set_mpi(r, irecv, S, 40, 1e-6), set_mpi(r, isend, S, 40, 1e-6), set_mpi(r, waitall, W, 20, 1e-4);
    set_mpi(r, m.ar, ar, 1, 1e-4);
    add_interval(r, waitall, irecv, ivl);
    add_interval(r, irecv, irecv, Z);
    add_interval(r, irecv, isend, Z);
    add_interval(r, isend, isend, Z);
    add_interval(r, isend, waitall, Z);
    r->peers = calloc(4 * P, sizeof *r->peers);
    for (uint32_t i = 0; i < P; i++)
        for (int d = -1; d <= 1; d += 2) {
            int q = (int)i + d;
            if (q < 0 || q >= (int)P) continue;
            uint64_t wait = (uint32_t)q == late ? (uint64_t)(W[i] * 1e9) : 1000000;
            uint64_t last = (uint32_t)q == late ? 20 : 0; /* the late peer completes last */
            r->peers[r->npeers++] = (struct an_peer_rec){i, waitall, q, 0, PRF_PEER_RECV, owaitall, 1, 20, 8192,
                                                         wait, last, last ? wait : 0};
            r->peers[r->npeers++] = (struct an_peer_rec){i, isend, q, 0, PRF_PEER_SEND, oisend, 1, 20, 8192,
                                                         1000000, 0, 0};
        }
    mini_finish(&m);
    assert_true(m.a.ncauses >= 1);
    const struct an_cause *c = &m.a.causes[0];
    assert_int_equal(c->vertex, m.B);
    assert_string_equal(an_category_name(c->cat), "late_sender");
    assert_int_equal(c->nprocs, 1);
    assert_int_equal(c->procs[0], late);
    /* B's 0.30 s on rank 4 is what the others wait for: the saving is about it */
    assert_true(c->cost > 0.2 && c->cost < 0.4);
    an_analysis_free(&m.a);
}

int main(void)
{
    unit_setup();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_backtrack_imbalance),
        cmocka_unit_test(t_significant_inside),
        cmocka_unit_test(t_backtrack_gpu_bound),
        cmocka_unit_test(t_wait_at_collective),
        cmocka_unit_test(t_waits_per_communicator),
        cmocka_unit_test(t_balanced_halo_cycle),
        cmocka_unit_test(t_rotating_blame),
        cmocka_unit_test(t_pipeline),
        cmocka_unit_test(t_message_wait),
        cmocka_unit_test(t_contended_wait_run_delay),
        cmocka_unit_test(t_interference_run_delay),
        cmocka_unit_test(t_zero_trip_loop),
        cmocka_unit_test(t_late_sender_posts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
