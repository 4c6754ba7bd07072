/* unit_helpers.h — what the analyzer's unit tests (tests/analyzer/test_*.c)
 * share: a vertex table and runs built by hand (add_v, set_cpu, set_mpi,
 * run_basics), a rank's profile made from nothing (fake_rank), a one-run
 * analysis of main -> LOOP -> {A, B, Allreduce} (mini_init, mini_finish), the
 * options every test starts from (opt, unit_setup) and unit_code.h, the code
 * whose addresses the attribution tests resolve.  Static inline: each test
 * file is its own program. */
#ifndef SCALANA_TESTS_UNIT_HELPERS_H
#define SCALANA_TESTS_UNIT_HELPERS_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/graph.h"
#include "core/options.h"
#include "core/types.h"
#include "detect/find.h"
#include "metrics/metrics.h"
#include "ppg/ppg.h"
#include "scalana/profile_format.h"
#include "scalana/psg_format.h"
#include "unit_code.h"

#include <dlfcn.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

/* ---- helpers ----------------------------------------------------------------- */
static inline void json_decref_wrapper(void *j) { json_decref((json_t *)j); }
static inline uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

static struct an_options opt;

static inline uint32_t add_v(struct an_graph *g, uint32_t parent, unsigned kind, const char *name, uint32_t line,
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

static inline void set_cpu(struct an_run *r, uint32_t v, const double *t)
{
    struct an_vrun *x = an_run_vertex(r, v);
    x->cpu = calloc(r->P, sizeof *x->cpu);
    /* weight 1 per signal: as many signals as periods */
    for (uint32_t i = 0; i < r->P; i++)
        x->cpu[i] = (float)t[i], x->samples += t[i] / r->period_s, x->signals += t[i] / r->period_s;
}

static inline void set_mpi(struct an_run *r, uint32_t v, const double *t, double calls, double min_call)
{
    struct an_vrun *x = an_run_vertex(r, v);
    x->mpi = calloc(r->P, sizeof *x->mpi);
    x->ncalls = calloc(r->P, sizeof *x->ncalls);
    for (uint32_t i = 0; i < r->P; i++) x->mpi[i] = (float)t[i], x->ncalls[i] = (float)calls;
    x->calls = calls * r->P;
    x->min_call_s = min_call;
}

static inline void run_basics(struct an_run *r, double wall)
{
    r->period_s = 0.001;
    for (uint32_t i = 0; i < r->P; i++) r->present[i] = 1, r->wall[i] = wall;
    r->present_count = r->P;
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

static inline void fake_rank(struct fake_rank *f, uint32_t rank, uint32_t P, const char *bid)
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

/* An analysis of one hand-made run: main -> LOOP -> {A, B, Allreduce}. */
struct mini {
    struct an_analysis a;
    uint32_t loop, A, B, ar;
};

static inline void mini_init(struct mini *m, uint32_t P, uint32_t nruns)
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

/* Run k of the mini analysis, made for P present processes of wall seconds each
 * (an_run_init, run_basics). */
static inline struct an_run *mini_run(struct mini *m, uint32_t k, uint32_t P, double wall)
{
    struct an_run *r = &m->a.runs[k];
    an_run_init(r, P);
    run_basics(r, wall);
    return r;
}

static inline void mini_finish(struct mini *m)
{
    for (uint32_t i = 0; i < m->a.nruns; i++) an_run_finish(&m->a.runs[i], &m->a.g);
    an_group_scales(&m->a);
    an_compute_metrics(&m->a);
    an_find_root_causes(&m->a);
}

static inline int has_warning(const struct mini *m, ...)
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

/* The options every test starts from: the defaults, quiet. */
static inline void unit_setup(void)
{
    an_options_defaults(&opt);
    opt.quiet = 1, opt.progress = 0;
}

#endif
