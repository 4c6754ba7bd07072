/* test_unit.c — cmocka unit tests of scalana-analyze on constructed inputs:
 * the vertex table, PSG descent, attribution of real addresses of this test
 * binary (libdw) to PSG vertices in context, the PPG of a rank (MPI vertices,
 * edges, inclusive time), waits at collectives per communicator, and
 * backtracking (imbalance found, balanced halo cycle finds nothing, blame
 * that rotates is reported as such). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analyzer.h"
#include "detect.h"

#include <dlfcn.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- code whose addresses are attributed ---------------------------------- */
static volatile uint64_t sink;
__attribute__((noinline)) static uint64_t here(void) { return (uint64_t)(uintptr_t)__builtin_return_address(0); }
static const int KERNEL_FIRST = __LINE__ + 1;
__attribute__((noinline)) void unit_kernel(uint64_t *pc, uint64_t *ra)
{
    *ra = (uint64_t)(uintptr_t)__builtin_return_address(0);
    static const int LOOP_FIRST = __LINE__ + 1;
    for (int i = 0; i < 4; i++) {
        static const int PC_LINE = __LINE__ + 1;
        *pc = here();
        sink += (uint64_t)i + (uint64_t)PC_LINE * 0;
    }
    sink += (uint64_t)LOOP_FIRST * 0;
}
static const int KERNEL_LAST = __LINE__ - 1;
static const int CALL_LINE = __LINE__ + 3;
__attribute__((noinline)) void unit_main(uint64_t *pc, uint64_t *ra)
{
    unit_kernel(pc, ra);
    sink++;
}
static const int MAIN_LAST = __LINE__ - 1;

/* ---- helpers ----------------------------------------------------------------- */
static void json_decref_wrapper(void *j) { json_decref((json_t *)j); }
static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

static struct an_options opt;

static uint32_t add_v(struct an_graph *g, uint32_t parent, unsigned kind, const char *name, uint32_t line,
                      uint32_t op)
{
    int created;
    uint32_t v = an_graph_get(g, parent, an_hash_str(name, line), &created);
    g->v[v].kind = (uint16_t)kind;
    g->v[v].name = g->v[v].function = an_intern(&g->strings, name);
    g->v[v].file = an_intern(&g->strings, "t.c");
    g->v[v].line = g->v[v].last_line = line;
    g->v[v].order = line;
    g->v[v].op = op;
    return v;
}

static void set_cpu(struct an_run *r, uint32_t v, const double *t)
{
    struct an_vrun *x = an_run_vertex(r, v);
    x->cpu = calloc(r->P, sizeof *x->cpu);
    /* weight 1 per signal: as many signals as periods */
    for (uint32_t i = 0; i < r->P; i++)
        x->cpu[i] = (float)t[i], x->samples += t[i] / r->period_s, x->signals += t[i] / r->period_s;
}

static void set_mpi(struct an_run *r, uint32_t v, const double *t, double calls, double min_call)
{
    struct an_vrun *x = an_run_vertex(r, v);
    x->mpi = calloc(r->P, sizeof *x->mpi);
    x->ncalls = calloc(r->P, sizeof *x->ncalls);
    for (uint32_t i = 0; i < r->P; i++) x->mpi[i] = (float)t[i], x->ncalls[i] = (float)calls;
    x->calls = calls * r->P;
    x->min_call_s = min_call;
}

static void run_basics(struct an_run *r, double wall)
{
    r->period_s = 0.001;
    for (uint32_t i = 0; i < r->P; i++) r->present[i] = 1, r->wall[i] = wall;
    r->present_count = r->P;
}

/* ---- tests ------------------------------------------------------------------ */
static void t_graph(void **state)
{
    (void)state;
    struct an_graph g;
    an_graph_init(&g);
    int c1, c2;
    uint32_t a = an_graph_get(&g, AN_NONE, 42, &c1), b = an_graph_get(&g, AN_NONE, 42, &c2);
    assert_int_equal(a, b);
    assert_true(c1 && !c2);
    for (int i = 0; i < 5000; i++) an_graph_get(&g, a, (uint64_t)i, NULL);
    assert_int_equal(g.n, 5001);
    assert_int_equal(an_graph_find(&g, a, 4999), 5000);
    uint32_t x = add_v(&g, a, PSG_COMPUTE, "late", 30, 0), y = add_v(&g, a, PSG_COMPUTE, "early", 3, 0);
    g.v[x].order = 300000, g.v[y].order = 1;
    an_graph_sort_children(&g);
    assert_int_equal(g.v[a].first_child, 0 + 1); /* key 0 has order 0 */
    assert_true(an_graph_is_ancestor(&g, a, x));
    assert_false(an_graph_is_ancestor(&g, x, a));
    assert_ptr_equal(an_intern(&g.strings, "abc"), an_intern(&g.strings, "abc"));
    an_graph_free(&g);
}

static struct psg_graph build_psg(void)
{
    struct psg_builder *b = psg_builder_new("test_unit.c", "test", PSG_LANG_C, PSG_UNIT_HAS_DEBUG_INFO, 10);
    struct psg_vertex v;
    memset(&v, 0, sizeof v);
    v.kind = PSG_FUNCTION, v.parent = PSG_NO_PARENT, v.file = __FILE__, v.function = "unit_main";
    v.first_line = (uint32_t)CALL_LINE - 1, v.last_line = (uint32_t)MAIN_LAST, v.stable_id = 1;
    uint32_t fm = psg_builder_add(b, &v);
    v.kind = PSG_CALL, v.parent = fm, v.first_line = v.last_line = (uint32_t)CALL_LINE, v.callee = "unit_kernel";
    v.stable_id = 2;
    psg_builder_add(b, &v);
    memset(&v, 0, sizeof v);
    v.kind = PSG_FUNCTION, v.parent = PSG_NO_PARENT, v.file = __FILE__, v.function = "unit_kernel";
    v.first_line = (uint32_t)KERNEL_FIRST, v.last_line = (uint32_t)KERNEL_LAST, v.stable_id = 3;
    uint32_t fk = psg_builder_add(b, &v);
    v.kind = PSG_LOOP, v.parent = fk, v.first_line = (uint32_t)KERNEL_FIRST + 3, v.last_line = (uint32_t)KERNEL_FIRST + 7;
    v.stable_id = 4;
    uint32_t lp = psg_builder_add(b, &v);
    v.kind = PSG_COMPUTE, v.parent = lp, v.first_line = (uint32_t)KERNEL_FIRST + 4, v.last_line = (uint32_t)KERNEL_FIRST + 6;
    v.stable_id = 5;
    psg_builder_add(b, &v);
    unsigned char *bytes;
    size_t n;
    assert_int_equal(psg_builder_finish(b, &bytes, &n), 0);
    psg_builder_free(b);
    struct psg_graph g;
    char err[256];
    assert_int_equal(psg_parse(bytes, n, &g, err, sizeof err), 0);
    free(bytes);
    return g;
}

static void t_psg_descend(void **state)
{
    (void)state;
    struct psg_graph g = build_psg();
    struct an_psg x;
    assert_int_equal(an_psg_index(&x, &g), 0);
    uint32_t u, fi;
    assert_true(an_psg_function(&x, "unit_kernel", &u, &fi));
    assert_false(an_psg_function(&x, "nope", &u, &fi));
    uint32_t chain[8];
    uint32_t n = an_psg_descend(&x, u, fi, __FILE__, (uint32_t)KERNEL_FIRST + 5, 0, 0, chain, 8);
    assert_int_equal(n, 2);
    assert_int_equal(g.units[u].vertices[chain[0]].kind, PSG_LOOP);
    assert_int_equal(g.units[u].vertices[chain[1]].kind, PSG_COMPUTE);
    /* a line outside every child stays on the function */
    assert_int_equal(an_psg_descend(&x, u, fi, __FILE__, (uint32_t)KERNEL_FIRST + 1, 0, 0, chain, 8), 0);
    /* a call site picks the CALL vertex */
    assert_true(an_psg_function(&x, "unit_main", &u, &fi));
    n = an_psg_descend(&x, u, fi, __FILE__, (uint32_t)CALL_LINE, 5, 1, chain, 8);
    assert_int_equal(n, 1);
    assert_int_equal(g.units[u].vertices[chain[0]].kind, PSG_CALL);
    an_psg_free(&x);
    psg_graph_free(&g);
}

/* A rank whose CCT holds real addresses of unit_main -> unit_kernel. */
struct fake_rank {
    char strtab[PATH_MAX + 128];
    struct prf_module mod;
    struct prf_cct_node cct[4];
    struct prf_sample smp[2];
    struct prf_mpi_context mpi[2];
    struct prf_peer peers[2];
    struct prf_rank_data d;
};

static void fake_rank(struct fake_rank *f, uint32_t rank, uint32_t P, const char *bid)
{
    uint64_t pc, ra;
    unit_main(&pc, &ra);
    Dl_info dl;
    assert_true(dladdr((void *)(uintptr_t)pc, &dl));
    uint64_t base = (uint64_t)(uintptr_t)dl.dli_fbase;
    char exe[PATH_MAX];
    assert_non_null(realpath("/proc/self/exe", exe));
    memset(f, 0, sizeof *f);
    size_t sl = 1;
    uint32_t s_path = (uint32_t)sl;
    sl += (size_t)sprintf(f->strtab + sl, "%s", exe) + 1;
    uint32_t s_bid = (uint32_t)sl;
    sl += (size_t)sprintf(f->strtab + sl, "%s", bid) + 1;
    f->mod = (struct prf_module){s_path, s_bid, base};
    /* the frame of unit_main is the return address into it */
    f->cct[0] = (struct prf_cct_node){PRF_NONE, PRF_NONE, 0, PRF_CCT_ROOT, 0};
    f->cct[1] = (struct prf_cct_node){0, 0, ra - base, PRF_CCT_CALLSITE, 0};
    f->cct[2] = (struct prf_cct_node){1, 0, pc - base, PRF_CCT_PC, 0};
    f->cct[3] = (struct prf_cct_node){0, 0, ra - base, PRF_CCT_CALLSITE, 0}; /* same site: an MPI context */
    f->smp[0] = (struct prf_sample){2, 0, 0, 0, 100, 100 + rank};
    f->smp[1] = (struct prf_sample){3, 0, PRF_SAMPLE_IN_MPI, 0, 5, 5};
    f->mpi[0] = (struct prf_mpi_context){0, 3, 100 /* Send */, 0, 1, 10, 1000, 0, 1000000, 200000, 50000};
    f->peers[0] = (struct prf_peer){0, (int32_t)((rank + 1) % P), 3, PRF_PEER_SEND, 1, 10, 1000, 1000000, 0, 0};
    f->mpi[1] = (struct prf_mpi_context){1, 3, 120 /* Recv */, 0, 1, 10, 0, 1000, 2000000, 400000, 50000};
    f->peers[1] = (struct prf_peer){1, (int32_t)((rank + P - 1) % P), 3, PRF_PEER_RECV, 1, 10, 1000, 2000000, 10, 2000000};
    f->d.info.world_rank = rank, f->d.info.world_size = P, f->d.info.sample_period_ns = 1000000;
    f->d.info.wall_ns = 2000000000ull, f->d.info.usable_cores = 2, f->d.info.ranks_on_host = P;
    f->d.strings = f->strtab, f->d.strings_bytes = sl;
    f->d.modules = &f->mod, f->d.module_count = 1;
    f->d.cct = f->cct, f->d.cct_count = 4;
    f->d.samples = f->smp, f->d.sample_count = 2;
    f->d.mpi = f->mpi, f->d.mpi_count = 2;
    f->d.peers = f->peers, f->d.peer_count = 2;
}

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

/* A plain `cc ../relpath_main.c` build records a relative file name: the
 * symbolizer joins it to DW_AT_comp_dir ("../" folded), so report.json and the
 * viewer name a file that exists. */
static void t_relative_source(void **state)
{
    (void)state;
    const char *prog = RELPATH_PROG;
    char bid[128] = "", cmd[4200], line[512];
    assert_int_equal(an_elf_build_id(prog, bid, sizeof bid), 0);
    /* the module-relative address of relpath_work (a PIE's symbol value) */
    snprintf(cmd, sizeof cmd, "nm '%s'", prog);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    unsigned long long addr = 0;
    char type, name[256];
    while (fgets(line, sizeof line, p))
        if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 && !strcmp(name, "relpath_work")) break;
        else addr = 0;
    pclose(p);
    assert_true(addr != 0);
    struct an_strpool pool = {0};
    struct an_symbolizer *sym = an_sym_new(&pool, prog, bid);
    char warn[512] = "";
    uint32_t m = an_sym_module(sym, prog, bid, warn, sizeof warn);
    const struct an_resolved *r = an_sym_resolve(sym, m, addr + 8, 0);
    assert_true(r->nframes >= 1);
    const char *file = r->frames[r->nframes - 1].file;
    assert_int_equal(strncmp(RELPATH_REL, "../", 3), 0); /* the build really was relative */
    assert_true(file[0] == '/');
    assert_null(strstr(file, "/../"));
    assert_null(strstr(file, "/./"));
    assert_non_null(strstr(file, "tests/analyzer/relpath_main.c"));
    assert_int_equal(access(file, R_OK), 0);
    an_sym_free(sym);
    an_strpool_free(&pool);
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

/* An analysis of one hand-made run: main -> LOOP -> {A, B, Allreduce}. */
struct mini {
    struct an_analysis a;
    uint32_t loop, A, B, ar;
};

static void mini_init(struct mini *m, uint32_t P, uint32_t nruns)
{
    memset(m, 0, sizeof *m);
    m->a.opt = &opt;
    an_graph_init(&m->a.g);
    uint32_t fn = add_v(&m->a.g, AN_NONE, PSG_FUNCTION, "main", 1, 0);
    m->loop = add_v(&m->a.g, fn, PSG_LOOP, "loop", 2, 0);
    m->A = add_v(&m->a.g, m->loop, PSG_COMPUTE, "A", 3, 0);
    m->B = add_v(&m->a.g, m->loop, PSG_COMPUTE, "B", 4, 0);
    m->ar = add_v(&m->a.g, m->loop, PSG_MPI, "MPI_Allreduce", 5, 203);
    an_graph_sort_children(&m->a.g);
    m->a.runs = calloc(nruns, sizeof *m->a.runs);
    m->a.nruns = nruns;
    (void)P;
}

static void mini_finish(struct mini *m)
{
    for (uint32_t i = 0; i < m->a.nruns; i++) an_run_finish(&m->a.runs[i], &m->a.g);
    an_group_scales(&m->a);
    an_compute_metrics(&m->a);
    an_find_root_causes(&m->a);
}

static void t_backtrack_imbalance(void **state)
{
    (void)state;
    struct mini m;
    const uint32_t P = 8;
    mini_init(&m, P, 1);
    struct an_run *r = &m.a.runs[0];
    an_run_init(r, P);
    run_basics(r, 2.0);
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

static int has_warning(const struct mini *m, ...);

/* 3 of 8 processes twice as heavy (miniFE's pattern, several culprits): all
 * three named, none of them among the waiting processes, and the cost is the
 * saving of bringing them down to the others (a core each: the critical path
 * shortens by 0.4 - 0.2; on 2 cores the run's work shrinks by 3 x 0.2 / 2). */
/* Rank 0's loop B costs 1.3 s at 4 and 8 processes (flat in p); the other
 * ranks run the same loop with `other` of its time and wait at the
 * Allreduce.  Returns the category of the cause at B. */
static enum an_category lulesh_case(double other)
{
    struct mini m;
    mini_init(&m, 0, 2);
    uint32_t Ps[2] = {4, 8};
    for (int k = 0; k < 2; k++) {
        uint32_t P = Ps[k];
        struct an_run *r = &m.a.runs[k];
        an_run_init(r, P);
        run_basics(r, 3.0);
        double A[8], B[8], W[8];
        for (uint32_t i = 0; i < P; i++) {
            A[i] = 1.0, B[i] = i == 0 ? 1.3 : 1.3 * other, W[i] = 0.01 + 1.3 - B[i];
            r->cpu[i] = A[i] + B[i], r->mpi[i] = W[i];
        }
        set_cpu(r, m.A, A), set_cpu(r, m.B, B), set_mpi(r, m.ar, W, 100, 1e-5);
    }
    mini_finish(&m);
    enum an_category cat = AN_CAT_COUNT;
    for (uint32_t k = 0; k < m.a.ncauses; k++)
        if (m.a.causes[k].vertex == m.B) cat = m.a.causes[k].cat;
    an_analysis_free(&m.a);
    return cat;
}

/* LULESH -b 4 -c 8: the other ranks run rank 0's region loop with 3-15 % of
 * its time (mean 6 %): the same code with unequal amounts, load imbalance;
 * with no time there on the others: a serial bottleneck. */
static void t_category_runs_everywhere(void **state)
{
    (void)state;
    assert_int_equal(lulesh_case(0.064), AN_CAT_LOAD_IMBALANCE);
    assert_int_equal(lulesh_case(0.0), AN_CAT_SERIAL);
    /* the former serial_share of 0.1 called it a serial bottleneck */
    double keep = opt.th.serial_share;
    opt.th.serial_share = 0.1;
    assert_int_equal(lulesh_case(0.064), AN_CAT_SERIAL);
    opt.th.serial_share = keep;
}

static void t_several_culprits(void **state)
{
    (void)state;
    struct mini m;
    const uint32_t P = 8;
    mini_init(&m, P, 1);
    struct an_run *r = &m.a.runs[0];
    an_run_init(r, P);
    run_basics(r, 2.0);
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
    r = &m.a.runs[0];
    an_run_init(r, P);
    run_basics(r, 2.0);
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
    r = &m.a.runs[0];
    an_run_init(r, P);
    run_basics(r, 2.0);
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

/* The CPU model of a fix: fair sharing of the cores (the saving the planted
 * examples compare with, examples/common/example.h). */
static void t_shared_time(void **state)
{
    (void)state;
    double w[8] = {3, 1, 1, 1, 1, 1, 3, 1};
    /* 8 active on 2 cores: 4 s until the light ones finish, then 2 s for the two heavy */
    assert_true(fabs(an_shared_time(w, 8, 2) - 6) < 1e-12);
    double v[4] = {1, 2, 3, 4};
    assert_true(fabs(an_shared_time(v, 4, 4) - 4) < 1e-12); /* a core each: the max */
    double u[2] = {2, 0};
    assert_true(fabs(an_shared_time(u, 2, 1) - 2) < 1e-12); /* a waiting process uses none */
}

/* The location rule: the excess lives in a loop of a callee (main -> loop ->
 * call kernel -> kernel -> inner loop -> block); the cause is that block, not
 * the call.  With the excess split over two blocks of the callee (45 % each)
 * and the function itself, no child holds most of it: the location stays at
 * the callee's function.  When
 * the loop's body spends most of it in a timer it calls (no loop there), the
 * body stays the location. */
static void location_case(int split, uint32_t *cause, uint32_t *kernel_fn, uint32_t *body, uint32_t *call)
{
    struct mini m;
    const uint32_t P = 4;
    mini_init(&m, P, 1);
    *call = add_v(&m.a.g, m.loop, PSG_CALL, "call kernel", 3, 0);
    *kernel_fn = add_v(&m.a.g, *call, PSG_FUNCTION, "kernel", 20, 0);
    uint32_t inner = add_v(&m.a.g, *kernel_fn, PSG_LOOP, "inner", 21, 0);
    *body = add_v(&m.a.g, inner, PSG_COMPUTE, "body", 22, 0);
    uint32_t tail = add_v(&m.a.g, *kernel_fn, PSG_COMPUTE, "tail", 25, 0);
    /* split 2: the loop's body spends most of its excess in a timer it calls */
    uint32_t tcall = add_v(&m.a.g, *body, PSG_CALL, "call timer", 22, 0);
    uint32_t timer = add_v(&m.a.g, tcall, PSG_FUNCTION, "timer", 40, 0);
    an_graph_sort_children(&m.a.g);
    struct an_run *r = &m.a.runs[0];
    an_run_init(r, P);
    run_basics(r, 2.0);
    double body_t[4], tail_t[4], W[4], A[4] = {0.5, 0.5, 0.5, 0.5};
    double timer_t[4], fn_t[4];
    for (uint32_t i = 0; i < P; i++) {
        double extra = i == 3 ? 0.6 : 0;
        /* split 1: 45 % in the loop's body, 45 % in the tail block, 10 % in the function itself */
        body_t[i] = 0.3 + (split == 1 ? 0.45 * extra : split == 2 ? 0.1 * extra : extra);
        tail_t[i] = 0.2 + (split == 1 ? 0.45 * extra : 0), timer_t[i] = 0.1 + (split == 2 ? 0.9 * extra : 0);
        fn_t[i] = 0.05 + (split == 1 ? 0.1 * extra : 0);
        W[i] = 0.01 + 0.6 - extra;
    }
    set_cpu(r, m.A, A), set_cpu(r, *body, body_t), set_cpu(r, tail, tail_t), set_mpi(r, m.ar, W, 100, 1e-4);
    set_cpu(r, timer, timer_t), set_cpu(r, *kernel_fn, fn_t);
    mini_finish(&m);
    assert_true(m.a.ncauses >= 1);
    *cause = m.a.causes[0].vertex;
    assert_int_equal(m.a.causes[0].nprocs, 1);
    assert_int_equal(m.a.causes[0].procs[0], 3);
    an_analysis_free(&m.a);
}

static void t_location_rule(void **state)
{
    (void)state;
    uint32_t cause, fn, body, call;
    location_case(0, &cause, &fn, &body, &call);
    assert_int_equal(cause, body);
    location_case(1, &cause, &fn, &body, &call);
    assert_int_equal(cause, fn);
    /* inside the loop, a call to code without loops (a timer) is not the location */
    location_case(2, &cause, &fn, &body, &call);
    assert_int_equal(cause, body);
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
    struct an_run *r = &m->a.runs[0];
    an_run_init(r, P);
    run_basics(r, 0.4);
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

/* Strong or weak scaling from the runs: constant work per process at 2, 4, 8
 * processes is weak scaling (nothing non-scalable); --strong overrides it
 * (with a warning), and then the same runs are non-scalable. */
static void mode_case(struct mini *m, int flag, int weak)
{
    mini_init(m, 0, 3);
    uint32_t Ps[3] = {2, 4, 8};
    for (int k = 0; k < 3; k++) {
        uint32_t P = Ps[k];
        struct an_run *r = &m->a.runs[k];
        an_run_init(r, P);
        run_basics(r, 2.0);
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
        struct an_run *r = &m->a.runs[k];
        an_run_init(r, P);
        run_basics(r, 3.0);
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

/* A significant imbalance that saves less than the minimum cost is a
 * candidate, never a root cause. */
static void t_candidates(void **state)
{
    (void)state;
    struct mini m;
    const uint32_t P = 4;
    mini_init(&m, P, 1);
    struct an_run *r = &m.a.runs[0];
    an_run_init(r, P);
    run_basics(r, 10.0);
    /* saving 0.75 - 0.3 under the minimum cost of 0.5 s (5 % of 10 s) */
    double A[4] = {8, 8, 8, 8}, B[4] = {0.75, 0.3, 0.3, 0.3}, W[4];
    for (uint32_t i = 0; i < P; i++) W[i] = 0.01 + 0.75 - B[i];
    set_cpu(r, m.A, A), set_cpu(r, m.B, B), set_mpi(r, m.ar, W, 100, 1e-4);
    mini_finish(&m);
    assert_int_equal(m.a.ncauses, 0);
    assert_true(m.a.ncandidates >= 1);
    assert_int_equal(m.a.candidates[0].vertex, m.B);
    assert_true(m.a.candidates[0].cost < an_min_cost(&m.a));
    assert_true(fabs(m.a.candidates[0].cost - 0.45) < 0.01);
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
    struct an_run *r = &m.a.runs[0];
    an_run_init(r, P);
    run_basics(r, 2.0);
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

/* A GPU program whose processes compute on the host between launches while
 * their GPUs idle: gpu_idle at the host computation, not when the device work
 * could have overlapped it. */
static void gpu_idle_case(struct mini *m, double kernel_s, double sync_s)
{
    const uint32_t P = 4;
    mini_init(m, P, 1);
    uint32_t launch = add_v(&m->a.g, m->loop, PSG_GPU, "call cudaLaunchKernel", 3, 1);
    m->A = add_v(&m->a.g, m->loop, PSG_COMPUTE, "host_step", 4, 0);
    an_graph_sort_children(&m->a.g);
    struct an_run *r = &m->a.runs[0];
    an_run_init(r, P);
    run_basics(r, 2.0);
    double A[4] = {1.0, 1.0, 1.0, 1.0}, W[4] = {0.01, 0.01, 0.01, 0.01};
    set_cpu(r, m->A, A), set_mpi(r, m->ar, W, 100, 1e-4);
    struct an_vrun *x = an_run_vertex(r, launch);
    x->gpu = calloc(P, sizeof *x->gpu);
    for (uint32_t i = 0; i < P; i++) x->gpu[i] = (float)kernel_s, x->gpu_kernel_s += kernel_s, r->gpu_sync[i] = sync_s;
    mini_finish(m);
}

static void t_gpu_idle(void **state)
{
    (void)state;
    struct mini m;
    /* 0.2 s of kernels per process, waited for (synchronised): 1 s of host work leaves the GPU idle */
    gpu_idle_case(&m, 0.2, 0.2);
    assert_int_equal(m.a.ncauses, 1);
    assert_int_equal(m.a.causes[0].vertex, m.A);
    assert_string_equal(an_category_name(m.a.causes[0].cat), "gpu_idle");
    assert_int_equal(m.a.causes[0].nprocs, 4);
    assert_true(fabs(m.a.causes[0].cost - 1.0) < 0.01);
    an_analysis_free(&m.a);
    /* 0.6 s of kernels, none waited for: at most 0.6 s could overlap the host work */
    gpu_idle_case(&m, 0.6, 0.0);
    assert_int_equal(m.a.ncauses, 1);
    assert_string_equal(an_category_name(m.a.causes[0].cat), "gpu_idle");
    assert_true(fabs(m.a.causes[0].cost - 0.4) < 0.01);
    an_analysis_free(&m.a);
    /* 0.95 s asynchronous device work could hide nearly all of it: below the minimum cost */
    gpu_idle_case(&m, 0.95, 0.0);
    assert_int_equal(m.a.ncauses, 0);
    an_analysis_free(&m.a);
    /* GPUs busy most of the run: not idle */
    gpu_idle_case(&m, 1.2, 1.2);
    assert_int_equal(m.a.ncauses, 0);
    an_analysis_free(&m.a);
}

static void t_wait_at_collective(void **state)
{
    (void)state;
    /* process 2 arrives late for a reason no sample shows (it slept): the wait is its own cause */
    struct mini m;
    const uint32_t P = 4;
    mini_init(&m, P, 1);
    struct an_run *r = &m.a.runs[0];
    an_run_init(r, P);
    run_basics(r, 2.0);
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
    r = &m.a.runs[0];
    an_run_init(r, P);
    run_basics(r, 2.0);
    for (uint32_t i = 0; i < P; i++) r->cpu[i] = 0.5;
    set_cpu(r, m.A, A), set_mpi(r, m.ar, W, 100, 1e-4);
    mini_finish(&m);
    assert_true(r->contention >= 4);
    assert_int_equal(m.a.ncauses, 0);
    assert_true(m.a.nwarnings >= 1);
    an_analysis_free(&m.a);
}

/* Contention leaves the time inside MPI out: a process that spends 6 of its 10 s
 * in a collective and computes 4 s outside it on a core of its own ran
 * uncontended (wall/CPU would say 2.5x); with 1 s of CPU outside MPI it ran 4x. */
static void t_contention(void **state)
{
    (void)state;
    struct mini m;
    const uint32_t P = 4;
    for (int crowded = 0; crowded < 2; crowded++) {
        mini_init(&m, P, 1);
        struct an_run *r = &m.a.runs[0];
        an_run_init(r, P);
        run_basics(r, 10.0);
        double A[4], W[4];
        for (uint32_t i = 0; i < P; i++) {
            A[i] = crowded ? 1.0 : 4.0, W[i] = 6.0;
            r->mpi[i] = 6.0;                        /* the rank's whole MPI wall time */
            r->cpu[i] = A[i] + 0.5, r->cpu_wait[i] = 0.5; /* 0.5 s of it polling inside MPI */
        }
        set_cpu(r, m.A, A), set_mpi(r, m.ar, W, 100, 0.05);
        mini_finish(&m);
        if (crowded) assert_true(fabs(r->contention - 4.0) < 1e-6);
        else assert_true(fabs(r->contention - 1.0) < 1e-6);
        an_analysis_free(&m.a);
    }
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
    struct an_run *r = &m->a.runs[0];
    an_run_init(r, P);
    run_basics(r, 1.0);
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

static int has_warning(const struct mini *m, ...)
{
    for (uint32_t k = 0; k < m->a.nwarnings; k++) {
        va_list ap;
        va_start(ap, m);
        int all = 1;
        for (const char *s; (s = va_arg(ap, const char *));) all &= strstr(m->a.warnings[k], s) != NULL;
        va_end(ap);
        if (all) return 1;
    }
    return 0;
}

/* The user trial (tests/analyzer issue 1): rank 0 prepares each step alone
 * (0.3 s CPU = 60 samples at 200 Hz, under the 97 of min_samples) while 7
 * processes wait for it at a collective, on a 4x crowded machine.  The
 * difference (60 samples against none) is significant and the wait it
 * explains is measured: it is the root cause, not oversubscription.  With 6
 * samples against none on 2 processes (p = 1/64) the evidence is too thin: a
 * warning names the vertex, its samples and SCALANA_FREQ, and does not blame
 * oversubscription. */
static void t_short_serial_section(void **state)
{
    (void)state;
    struct mini m;
    const uint32_t P = 8;
    mini_init(&m, P, 1);
    struct an_run *r = &m.a.runs[0];
    an_run_init(r, P);
    run_basics(r, 2.0);
    r->period_s = 0.005;
    double A[8], B[8], W[8];
    for (uint32_t i = 0; i < P; i++) {
        A[i] = 0.4, B[i] = i == 0 ? 0.3 : 0, W[i] = i == 0 ? 0.01 : 0.31;
        r->cpu[i] = 0.5; /* wall/CPU 4: crowded */
    }
    set_cpu(r, m.A, A), set_cpu(r, m.B, B), set_mpi(r, m.ar, W, 10, 1e-4);
    mini_finish(&m);
    assert_true(r->contention >= 3.9);
    assert_true(r->vr[m.B].samples < opt.th.min_samples);
    assert_int_equal(m.a.ncauses, 1);
    assert_int_equal(m.a.causes[0].vertex, m.B);
    assert_int_equal(m.a.causes[0].nprocs, 1);
    assert_int_equal(m.a.causes[0].procs[0], 0);
    assert_true(m.a.causes[0].cost > 0.25 && m.a.causes[0].cost < 0.35);
    assert_false(has_warning(&m, "oversubscription", NULL));
    an_analysis_free(&m.a);

    /* too few samples: say so precisely */
    mini_init(&m, 2, 1);
    r = &m.a.runs[0];
    an_run_init(r, 2);
    run_basics(r, 0.4);
    r->period_s = 0.005;
    double A2[2] = {0.1, 0.1}, B2[2] = {0.03, 0}, W2[2] = {0.001, 0.031};
    set_cpu(r, m.A, A2), set_cpu(r, m.B, B2), set_mpi(r, m.ar, W2, 10, 1e-4);
    mini_finish(&m);
    assert_int_equal(m.a.ncauses, 0);
    assert_true(has_warning(&m, "too thin", "B (t.c:4)", "6 samples", "SCALANA_FREQ", "200 Hz", NULL));
    assert_false(has_warning(&m, "oversubscription", NULL));
    an_analysis_free(&m.a);

    /* balanced work with noise (one process 10 % slower, its peers wait for it):
     * no cause, and no "too thin" lead either */
    mini_init(&m, P, 1);
    r = &m.a.runs[0];
    an_run_init(r, P);
    run_basics(r, 1.2);
    r->period_s = 0.005;
    for (uint32_t i = 0; i < P; i++) A[i] = i == 3 ? 1.1 : 1.0, B[i] = 0, W[i] = i == 3 ? 0.001 : 0.101;
    set_cpu(r, m.A, A), set_mpi(r, m.ar, W, 10, 1e-4);
    mini_finish(&m);
    assert_int_equal(m.a.ncauses, 0);
    assert_false(has_warning(&m, "too thin", NULL));
    an_analysis_free(&m.a);
    /* (the same with no imbalance gate would name A: the gate is what keeps it quiet) */
    double imb = opt.th.imbalance;
    opt.th.imbalance = 1.0;
    mini_init(&m, P, 1);
    r = &m.a.runs[0];
    an_run_init(r, P);
    run_basics(r, 1.2);
    r->period_s = 0.005;
    set_cpu(r, m.A, A), set_mpi(r, m.ar, W, 10, 1e-4);
    mini_finish(&m);
    opt.th.imbalance = imb;
    assert_true(has_warning(&m, "too thin", "A (t.c:3)", NULL));
    an_analysis_free(&m.a);
}

static void t_waits_per_communicator(void **state)
{
    (void)state;
    struct mini m;
    const uint32_t P = 4;
    mini_init(&m, P, 1);
    struct an_run *r = &m.a.runs[0];
    an_run_init(r, P);
    run_basics(r, 1.0);
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
    struct an_run *r = &m.a.runs[0];
    an_run_init(r, P);
    run_basics(r, 2.0);
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
    struct an_run *r = &m.a.runs[0];
    an_run_init(r, P);
    run_basics(r, 2.0);
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

static void t_scaling(void **state)
{
    (void)state;
    /* three counts: A scales, B constant on every process (replicated), Allreduce balanced */
    struct mini m;
    mini_init(&m, 0, 3);
    uint32_t Ps[3] = {2, 4, 8};
    for (int k = 0; k < 3; k++) {
        uint32_t P = Ps[k];
        struct an_run *r = &m.a.runs[k];
        an_run_init(r, P);
        run_basics(r, 8.0 / P + 1.0);
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
        struct an_run *r = &m.a.runs[k];
        an_run_init(r, P);
        run_basics(r, 4.0);
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
        struct an_run *r = &m.a.runs[k];
        an_run_init(r, P);
        run_basics(r, 4.0);
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
        /* the saving: 2560 calls x (1.28 - 0.08 s) / 2560 growth per call from
         * 2 processes, on 4 processes per core at 8 */
        assert_true(fabs(m.a.causes[0].cost - 1.2 / 4) < 1e-3);
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
        struct an_run *r = &m.a.runs[k];
        an_run_init(r, P);
        run_basics(r, 4.0);
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
        struct an_run *r = &m.a.runs[k];
        an_run_init(r, P);
        run_basics(r, 4.0);
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

/* Phases: "solve" scales, "setup" stays at 1 s per process and is imbalanced at 8. */
static void t_phases(void **state)
{
    (void)state;
    struct mini m;
    mini_init(&m, 0, 2);
    uint32_t Ps[2] = {2, 8};
    for (int k = 0; k < 2; k++) {
        uint32_t P = Ps[k];
        struct an_run *r = &m.a.runs[k];
        an_run_init(r, P);
        run_basics(r, 10.0);
        r->phases = calloc(2, sizeof *r->phases);
        r->nphases = 2;
        const char *names[2] = {"solve", "setup"};
        for (int j = 0; j < 2; j++) {
            r->phases[j].name = an_intern(&m.a.g.strings, names[j]);
            r->phases[j].vertex = m.loop;
            r->phases[j].time = calloc(P, sizeof(float)), r->phases[j].count = calloc(P, sizeof(float));
            for (uint32_t i = 0; i < P; i++) {
                r->phases[j].time[i] = j == 0 ? 16.0f / P : (P == 8 && i == 3 ? 2.0f : 1.0f);
                r->phases[j].count[i] = 1;
            }
        }
    }
    mini_finish(&m);
    json_t *ph = an_phases_json(&m.a);
    assert_int_equal(json_array_size(ph), 2);
    json_t *solve = json_array_get(ph, 0), *setup = json_array_get(ph, 1);
    assert_string_equal(json_string_value(json_object_get(solve, "name")), "solve");
    assert_true(fabs(json_real_value(json_object_get(solve, "scaling_efficiency")) - 1.0) < 1e-6);
    double eff = json_real_value(json_object_get(setup, "scaling_efficiency"));
    assert_true(eff < 0.3); /* ideal 0.25 s against 1.125 s */
    json_t *last = json_array_get(json_object_get(setup, "metrics"), 1);
    assert_int_equal(json_integer_value(json_object_get(last, "max_process")), 3);
    int imb = 0, scal = 0;
    for (uint32_t i = 0; i < m.a.nwarnings; i++) {
        if (strstr(m.a.warnings[i], "'setup': imbalanced")) imb = 1;
        if (strstr(m.a.warnings[i], "'setup'") && strstr(m.a.warnings[i], "efficiency")) scal = 1;
        assert_null(strstr(m.a.warnings[i], "'solve'"));
    }
    assert_true(imb && scal);
    json_decref(ph);
    an_analysis_free(&m.a);
}

/* One list of categories (include/scalana/categories.def): the names are
 * exactly docs/report.schema.json's enum, each with a label and a remedy;
 * --help lists every one. */
static void t_categories_schema(void **state)
{
    (void)state;
    json_error_t err;
    json_t *schema = json_load_file(REPORT_SCHEMA, 0, &err);
    assert_non_null(schema);
    json_t *en;
    en = json_object_get(json_object_get(json_object_get(json_object_get(json_object_get(schema, "$defs"),
                                                                         "root_cause"), "properties"), "category"),
                         "enum");
    assert_true(json_is_array(en));
    assert_int_equal(json_array_size(en), AN_CAT_COUNT);
    for (int c = 0; c < AN_CAT_COUNT; c++) {
        int found = 0;
        size_t i;
        json_t *x;
        json_array_foreach(en, i, x) found += strcmp(json_string_value(x), an_category_name((enum an_category)c)) == 0;
        assert_int_equal(found, 1);
        assert_true(strlen(an_category_label((enum an_category)c)) > 3);
        assert_true(strlen(an_category_remedy((enum an_category)c)) > 20);
    }
    json_decref(schema);
    /* --help prints every category with its remedy */
    char path[] = "/tmp/scalana-help-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stdout);
    int saved = dup(1);
    dup2(fd, 1);
    struct an_options o;
    an_options_defaults(&o);
    char *argv[] = {"scalana-analyze", "--help", NULL};
    int rc = an_options_parse(&o, 2, argv);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    assert_int_equal(rc, 1);
    FILE *f = fopen(path, "r");
    static char text[16384];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f), close(fd), unlink(path);
    for (int c = 0; c < AN_CAT_COUNT; c++) assert_non_null(strstr(text, an_category_name((enum an_category)c)));
    an_options_free(&o);
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

/* Names a person reads: C++ linkage names demangled by libstdc++, others
 * unchanged; short forms for one-line locations. */
static void t_names(void **state)
{
    (void)state;
    struct an_strpool pool = {0};
    assert_string_equal(an_demangle(&pool, "_ZN4mini12_GLOBAL__N_113residual_normERKNS_3CsrERKSt6vectorIdSaIdEES8_"),
                        "mini::(anonymous namespace)::residual_norm(mini::Csr const&, std::vector<double, "
                        "std::allocator<double> > const&, std::vector<double, std::allocator<double> > const&)");
    assert_string_equal(an_demangle(&pool, "_ZL31ApplyMaterialPropertiesForElemsR6Domain"),
                        "ApplyMaterialPropertiesForElems(Domain&)");
    assert_string_equal(an_demangle(&pool, "relax"), "relax");
    assert_string_equal(an_demangle(&pool, "_QMkernelsPrelax"), "kernels::relax");
    assert_string_equal(an_demangle(&pool, "_QPsweep"), "sweep");
    assert_string_equal(an_demangle(&pool, "_QQmain"), "main program");
    assert_string_equal(an_demangle(&pool, "_QMnoproc"), "_QMnoproc");
    /* gfortran module procedures (issue 12: module_sweep_f built with mpif90) */
    assert_string_equal(an_demangle(&pool, "__sweep_mod_MOD_sweep_block"), "sweep_mod::sweep_block");
    assert_string_equal(an_demangle(&pool, "__relax_mod_MOD_relax_cells.constprop.0"),
                        "relax_mod::relax_cells.constprop.0");
    assert_string_equal(an_demangle(&pool, "__libc_start_main"), "__libc_start_main");
    assert_string_equal(an_demangle(&pool, "__MOD_x"), "__MOD_x");
    assert_string_equal(an_demangle(&pool, "_Znot_mangled"), "_Znot_mangled");
    assert_string_equal(an_short_function(&pool, "void mini::cg<int>(int*, int) const"), "mini::cg<int>");
    assert_string_equal(an_short_function(&pool, "main::$_1::operator()(int) const"), "main::$_1::operator()");
    assert_string_equal(an_short_function(&pool, "bool operator<(A const&, A const&)"), "operator<");
    /* qualified DWARF names without an argument list (gcc, no linkage name) */
    assert_string_equal(an_short_function(&pool, "(anonymous namespace)::apply_kernel<(anonymous namespace)::"
                                                 "RowSweep<double> >"),
                        "(anonymous namespace)::apply_kernel<...>");
    assert_string_equal(an_short_function(&pool, "(anonymous namespace)::Domain::relax"),
                        "(anonymous namespace)::Domain::relax");
    assert_string_equal(an_short_function(&pool, "(anonymous namespace)::Domain::relax(double)"),
                        "(anonymous namespace)::Domain::relax");
    assert_string_equal(an_short_function(&pool, "void miniFE::cg_solve<miniFE::CSRMatrix<double, int, int>, "
                                                 "miniFE::Vector<double, int, int>>(miniFE::CSRMatrix<double, int, int>&)"),
                        "miniFE::cg_solve<...>");
    assert_string_equal(an_short_function(&pool, "relax"), "relax");
    assert_string_equal(an_short_function(&pool, "program modproc"), "program modproc");
    /* flang's internal procedures, gfortran's module procedures and program
     * (the symbol-table names of a build without the pass or without -g) */
    assert_string_equal(an_demangle(&pool, "_QMmFouterPinner"), "m::outer.inner");
    assert_string_equal(an_demangle(&pool, "_QFextPsub"), "ext.sub");
    assert_string_equal(an_demangle(&pool, "_QFPstep"), "step");
    assert_string_equal(an_demangle(&pool, "_QMrelax_modPrelax"), "relax_mod::relax");
    assert_string_equal(an_demangle(&pool, "__relax_mod_MOD_relax"), "relax_mod::relax");
    assert_string_equal(an_demangle(&pool, "__m_MOD_outer"), "m::outer");
    assert_string_equal(an_demangle(&pool, "MAIN__"), "main program");
    assert_string_equal(an_demangle(&pool, "inner.0"), "inner");
    assert_string_equal(an_demangle(&pool, "relax.constprop.0"), "relax.constprop.0");
    assert_string_equal(an_demangle(&pool, "__libc_start_main"), "__libc_start_main");
    assert_string_equal(an_demangle(&pool, "__MOD_x"), "__MOD_x");
    /* paths folded lexically (PRK builds name "MPI1/PIC/../../common/x.c") */
    assert_string_equal(an_remap_path(NULL, &pool, "/w/prk/MPI1/PIC-static/../../common/MPI_bail_out.c"),
                        "/w/prk/common/MPI_bail_out.c");
    assert_string_equal(an_remap_path(NULL, &pool, "/a/./b//c.c"), "/a/b/c.c");
    assert_string_equal(an_remap_path(NULL, &pool, "/../x.c"), "/x.c");
    assert_string_equal(an_remap_path(NULL, &pool, "../src/../inc/h.h"), "../inc/h.h");
    assert_string_equal(an_remap_path(NULL, &pool, "a/../../x.c"), "../x.c");
    assert_string_equal(an_remap_path(NULL, &pool, "./x.c"), "x.c");
    assert_string_equal(an_remap_path(NULL, &pool, "/plain/x.c"), "/plain/x.c");
    assert_string_equal(an_remap_path(NULL, &pool, ""), "");
    an_strpool_free(&pool);
}

static void t_options(void **state)
{
    (void)state;
    struct an_options o;
    an_options_defaults(&o);
    char th[] = "imbalance=1.5", sp[] = "/a=/b"; /* parsed in place */
    char *argv[] = {"scalana-analyze", "-o", "out", "--weak", "-t", th, "--source-path", sp, "d1", "d2", NULL};
    assert_int_equal(an_options_parse(&o, 10, argv), 0);
    assert_true(o.weak);
    assert_true(o.th.imbalance == 1.5);
    assert_int_equal(o.run_dir_count, 2);
    struct an_strpool p = {0};
    assert_string_equal(an_remap_path(&o, &p, "/a/x.c"), "/b/x.c");
    assert_string_equal(an_remap_path(&o, &p, "/c/x.c"), "/c/x.c");
    an_strpool_free(&p);
    an_options_free(&o);
    an_options_defaults(&o);
    char ns[] = "nosuch=1";
    char *bad[] = {"scalana-analyze", "-t", ns, "d", NULL};
    assert_int_equal(an_options_parse(&o, 4, bad), -1);
    an_options_free(&o);
    assert_string_equal(an_mpi_name(203), "MPI_Allreduce");
    assert_int_equal(an_mpi_role(203), AN_MPI_COLLECTIVE);
    assert_true(an_mpi_nonblocking(121));
}

int main(void)
{
    an_options_defaults(&opt);
    opt.quiet = 1, opt.progress = 0;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_graph),
        cmocka_unit_test(t_psg_descend),
        cmocka_unit_test(t_attribution_psg),
        cmocka_unit_test(t_relative_source),
        cmocka_unit_test(t_attribution_threads_and_lost_frames),
        cmocka_unit_test(t_attribution_dynamic_and_ppg),
        cmocka_unit_test(t_backtrack_imbalance),
        cmocka_unit_test(t_several_culprits),
        cmocka_unit_test(t_shared_time),
        cmocka_unit_test(t_location_rule),
        cmocka_unit_test(t_exact_intervals),
        cmocka_unit_test(t_scaling_mode),
        cmocka_unit_test(t_imbalance_fix),
        cmocka_unit_test(t_candidates),
        cmocka_unit_test(t_backtrack_gpu_bound),
        cmocka_unit_test(t_gpu_idle),
        cmocka_unit_test(t_wait_at_collective),
        cmocka_unit_test(t_contention),
        cmocka_unit_test(t_short_serial_section),
        cmocka_unit_test(t_waits_per_communicator),
        cmocka_unit_test(t_balanced_halo_cycle),
        cmocka_unit_test(t_rotating_blame),
        cmocka_unit_test(t_scaling),
        cmocka_unit_test(t_growing_communication_control),
        cmocka_unit_test(t_growing_comm_base),
        cmocka_unit_test(t_category_runs_everywhere),
        cmocka_unit_test(t_growing_comm_call_site),
        cmocka_unit_test(t_back_to_back_collective),
        cmocka_unit_test(t_phases),
        cmocka_unit_test(t_hostile_ranks),
        cmocka_unit_test(t_names),
        cmocka_unit_test(t_options),
        cmocka_unit_test(t_categories_schema),
        cmocka_unit_test(t_signals_not_weights),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
