/* test_attribute.c — cmocka unit tests of attribution (analyzer/read/attribute.c): real addresses of
 * this test binary (libdw) to PSG vertices in context, threads and lost frames, and hostile
 * (random) calling-context trees. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/graph.h"
#include "core/types.h"
#include "detect/find.h"
#include "metrics/metrics.h"
#include "ppg/ppg.h"
#include "read/attribute.h"
#include "read/psg_index.h"
#include "read/symbolize.h"
#include "report/report.h"
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

static void t_attribution_psg(void **state)
{
    (void)state;
    char exe[PATH_MAX], bid[128] = "";
    assert_non_null(realpath("/proc/self/exe", exe));
    assert_int_equal(an_elf_build_id(exe, bid, sizeof bid), 0);
    struct psg_graph pg = build_psg();
    struct an_psg px;
    assert_int_equal(an_psg_index(&px, &pg), 0);
    struct an_graph g;
    an_graph_init(&g);
    struct an_symbolizer *sym = an_sym_new(&g.strings, exe, bid);
    struct an_attr_ctx c;
    an_attr_ctx_init(&c, &g, sym, &px, &opt);
    struct fake_rank f;
    fake_rank(&f, 0, 2, bid);
    uint32_t nv[4];
    uint64_t unresolved = 0;
    assert_int_equal(an_attribute_rank(&c, &f.d, nv, &unresolved), 0);
    assert_int_equal(unresolved, 0);
    /* the sample: unit_main -> CALL -> unit_kernel -> LOOP -> COMPUTE */
    const struct an_vertex *v = &g.v[nv[2]];
    assert_int_equal(v->kind, PSG_COMPUTE);
    assert_int_equal(g.v[v->parent].kind, PSG_LOOP);
    const struct an_vertex *fn = &g.v[g.v[v->parent].parent];
    assert_int_equal(fn->kind, PSG_FUNCTION);
    assert_string_equal(fn->function, "unit_kernel");
    assert_int_equal(g.v[fn->parent].kind, PSG_CALL);
    assert_int_equal(g.v[fn->parent].line, (uint32_t)CALL_LINE);
    assert_string_equal(g.v[g.v[fn->parent].parent].function, "unit_main");
    /* a second rank lands on the same vertices */
    struct fake_rank f2;
    fake_rank(&f2, 1, 2, bid);
    uint32_t nv2[4];
    assert_int_equal(an_attribute_rank(&c, &f2.d, nv2, &unresolved), 0);
    assert_int_equal(nv2[2], nv[2]);
    an_attr_ctx_free(&c);
    an_sym_free(sym);
    an_graph_free(&g);
    an_psg_free(&px);
    psg_graph_free(&pg);
}

static void t_attribution_threads_and_lost_frames(void **state)
{
    (void)state;
    char exe[PATH_MAX], bid[128] = "";
    assert_non_null(realpath("/proc/self/exe", exe));
    an_elf_build_id(exe, bid, sizeof bid);
    struct psg_graph pg = build_psg();
    struct an_psg px;
    assert_int_equal(an_psg_index(&px, &pg), 0);
    struct an_graph g;
    an_graph_init(&g);
    struct an_symbolizer *sym = an_sym_new(&g.strings, exe, bid);
    struct an_attr_ctx c;
    an_attr_ctx_init(&c, &g, sym, &px, &opt);
    struct fake_rank f;
    fake_rank(&f, 0, 1, bid);
    /* node 3 becomes a second thread's root, created at node 1 (the call in unit_main);
     * node 2 loses its parent frame: a main-thread path starting inside unit_kernel */
    struct prf_cct_node cct[5];
    memcpy(cct, f.cct, 4 * sizeof *cct);
    cct[3] = (struct prf_cct_node){PRF_NONE, PRF_NONE, 1, PRF_CCT_ROOT, 0};
    cct[4] = (struct prf_cct_node){3, 0, f.cct[2].address, PRF_CCT_PC, 0};
    cct[2].parent = 0;
    struct prf_thread th[2] = {{0, PRF_THREAD_MAIN, PRF_NONE, 0, 1, 0}, {1, PRF_THREAD_APP, 1, 0, 2, 0}};
    f.d.cct = cct, f.d.cct_count = 5;
    f.d.threads = th, f.d.thread_count = 2;
    f.d.mpi_count = 0, f.d.peer_count = 0;
    uint32_t nv[5];
    uint64_t unresolved = 0;
    assert_int_equal(an_attribute_rank(&c, &f.d, nv, &unresolved), 0);
    /* the lost frame: re-attached at the one PSG call of unit_kernel */
    const struct an_vertex *v = &g.v[nv[2]];
    assert_int_equal(v->kind, PSG_COMPUTE);
    uint32_t fn = g.v[v->parent].parent;
    assert_string_equal(g.v[fn].function, "unit_kernel");
    assert_int_equal(g.v[g.v[fn].parent].kind, PSG_CALL);
    /* the thread continues its creator's context: same vertices as a call path through it */
    assert_int_equal(nv[4], nv[2]);
    an_attr_ctx_free(&c);
    an_sym_free(sym);
    an_graph_free(&g);
    an_psg_free(&px);
    psg_graph_free(&pg);
}

/* Decodable but hostile ranks: parents out of range or in cycles, unknown
 * modules and kinds, nodes and contexts out of range.  Nothing may crash. */
static void t_hostile_ranks(void **state)
{
    (void)state;
    char exe[PATH_MAX], bid[128] = "";
    assert_non_null(realpath("/proc/self/exe", exe));
    an_elf_build_id(exe, bid, sizeof bid);
    uint64_t seed = 12345;
#define RND() xorshift(&seed)
    for (int iter = 0; iter < 60; iter++) {
        struct an_analysis a;
        memset(&a, 0, sizeof a);
        a.opt = &opt;
        an_graph_init(&a.g);
        struct an_symbolizer *sym = an_sym_new(&a.g.strings, exe, bid);
        struct an_attr_ctx c;
        an_attr_ctx_init(&c, &a.g, sym, NULL, &opt);
        const uint32_t P = 1 + (uint32_t)(RND() % 6);
        a.runs = calloc(1, sizeof *a.runs);
        a.nruns = 1;
        an_run_init(&a.runs[0], P);
        for (uint32_t rank = 0; rank < P; rank++) {
            struct fake_rank f;
            fake_rank(&f, rank, P, bid);
            enum { N = 24 };
            struct prf_cct_node cct[N];
            struct prf_sample smp[8];
            struct prf_mpi_context mpi[4];
            struct prf_peer peers[6];
            struct prf_gpu_activity gpu[3];
            struct prf_thread th[2] = {{0, 0, PRF_NONE, 0, 1, 0}, {1, 1, (uint32_t)(RND() % (N + 3)), 0, 2, 0}};
            for (uint32_t i = 0; i < N; i++) {
                cct[i].parent = i == 0 ? PRF_NONE : (uint32_t)(RND() % (N + 2));
                cct[i].kind = (uint32_t)(RND() % 5);
                cct[i].module = RND() % 4 == 0 ? PRF_NONE : (uint32_t)(RND() % 3);
                cct[i].address = RND() % 3 ? f.cct[1 + RND() % 2].address + RND() % 64 : RND();
                cct[i].reserved = 0;
            }
            for (uint32_t i = 0; i < 8; i++)
                smp[i] = (struct prf_sample){(uint32_t)(RND() % (N + 2)), 0, (uint32_t)(RND() % 4), 0, 1 + RND() % 50, 1 + RND() % 50};
            for (uint32_t i = 0; i < 4; i++)
                mpi[i] = (struct prf_mpi_context){i, (uint32_t)(RND() % (N + 2)), (uint32_t)(RND() % 300), 0, RND() % 3,
                                                  RND() % 10, RND() % 1000, RND() % 1000, RND() % 100000000, 0, RND() % 1000};
            for (uint32_t i = 0; i < 6; i++)
                peers[i] = (struct prf_peer){(uint32_t)(RND() % 6), (int32_t)(RND() % (P + 2)) - 1, (int32_t)(RND() % 3) - 1,
                                             (uint32_t)(RND() % 4), RND() % 3, RND() % 10, RND() % 1000, RND() % 1000000,
                                             RND() % 5, RND() % 1000000};
            for (uint32_t i = 0; i < 3; i++)
                gpu[i] = (struct prf_gpu_activity){(uint32_t)(RND() % (N + 2)), (uint32_t)(RND() % 6), 0, 0, 1,
                                                   RND() % 100000000, 0, 0};
            f.d.cct = cct, f.d.cct_count = N;
            f.d.samples = smp, f.d.sample_count = 8;
            f.d.mpi = mpi, f.d.mpi_count = 4;
            f.d.peers = peers, f.d.peer_count = 6;
            f.d.gpu = gpu, f.d.gpu_count = 3;
            f.d.threads = th, f.d.thread_count = 2;
            f.d.module_count = 1;
            f.d.info.cpu_user_ns = RND() % 2000000000;
            char err[256];
            an_run_add_rank(&a.runs[0], &c, &f.d, err, sizeof err);
        }
        an_run_finish(&a.runs[0], &a.g);
        an_graph_sort_children(&a.g);
        an_group_scales(&a);
        an_compute_metrics(&a);
        an_find_root_causes(&a);
        json_decref_wrapper(an_report_build(&a));
        an_attr_ctx_free(&c);
        an_sym_free(sym);
        an_analysis_free(&a);
    }
#undef RND
}

int main(void)
{
    unit_setup();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_attribution_psg),
        cmocka_unit_test(t_attribution_threads_and_lost_frames),
        cmocka_unit_test(t_hostile_ranks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
