/* ompt.c — OpenMP regions as OMPT measured them (PRF_REC_OMP, LLVM's libomp):
 * per run, each region's team size and each thread's wait at its barriers,
 * the threads per process and per core, and the OMPT wait in the time
 * summary (a wait state, never computation).  Runs of gcc's libgomp have no
 * such record: their barrier waits are the samples in libgomp (omp.c). */
#include "read/ompt.h"
#include "core/types.h"
#include "read/attribute.h"
#include "read/symbolize.h"
#include "scalana/profile_format.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The seconds of one entry's waits (barrier ending the region, barriers and
 * sync inside it). */
static double entry_wait(const struct an_omp_region *e) { return e->end_wait_s + e->barrier_wait_s + e->sync_wait_s; }

/* The fork call's own source location (the innermost frame of its return
 * address: the pragma's line), which the vertex of its node need not have (a
 * leaf call site attributes to the loop or function around it). */
static void fork_location(struct an_attr_ctx *c, const struct prf_rank_data *d, uint32_t node,
                          struct an_omp_region *e)
{
    const struct prf_cct_node *n = &d->cct[node];
    e->file = e->function = "";
    if (n->module >= d->module_count || !c->sym) return;
    uint32_t m = an_sym_module(c->sym, prf_string(d, d->modules[n->module].path),
                               prf_string(d, d->modules[n->module].build_id), NULL, 0);
    const struct an_resolved *res = an_sym_resolve(c->sym, m, n->address, n->kind == PRF_CCT_CALLSITE);
    if (!res->nframes) return;
    const struct an_frame *f = &res->frames[res->nframes - 1];
    e->file = f->file, e->line = f->line, e->function = res->frames[0].function;
}

void an_run_add_omp(struct an_run *r, struct an_attr_ctx *c, uint32_t rank, const struct prf_rank_data *d,
                    const uint32_t *nv)
{
    uint32_t threads = d->info.thread_count ? d->info.thread_count : 1; /* without OMPT: threads measured */
    if (d->has_omp) {
        r->omp_ranks++;
        uint32_t team = 0;
        for (uint32_t k = 0; k < d->omp_count; k++) {
            const struct prf_omp_region *x = &d->omp[k];
            if (x->node >= d->cct_count) continue;
            if (x->team_max > team) team = x->team_max;
            if (r->nompr == r->ompr_cap) {
                r->ompr_cap = r->ompr_cap ? r->ompr_cap * 2 : 64;
                struct an_omp_region *p = realloc(r->ompr, r->ompr_cap * sizeof *p);
                if (!p) abort();
                r->ompr = p;
            }
            struct an_omp_region *e = &r->ompr[r->nompr++];
            *e = (struct an_omp_region){nv[x->node], rank, x->thread, x->team_max, x->regions, x->forks,
                                        x->time_ns * 1e-9, x->end_wait_ns * 1e-9, x->barrier_wait_ns * 1e-9,
                                        x->sync_wait_ns * 1e-9, "", "", 0};
            fork_location(c, d, x->node, e);
            r->ompt_wait_s += entry_wait(e);
        }
        if (team) threads = team;
    }
    if (threads > r->threads_per_process) r->threads_per_process = threads;
    if (rank < r->P && r->usable_cores[rank]) {
        double per_core = (double)r->ranks_on_host[rank] * threads / r->usable_cores[rank];
        if (per_core > r->threads_per_core) r->threads_per_core = per_core;
    }
}

double an_ompt_wait_share(const struct an_run *r, double *seconds)
{
    double per_process = r->omp_ranks ? r->ompt_wait_s / r->omp_ranks : 0;
    if (seconds) *seconds = per_process;
    double thread_s = r->wall_max * (r->threads_per_process ? r->threads_per_process : 1);
    return thread_s > 0 ? fmin(1, per_process / thread_s) : 0;
}

void an_run_remap_omp(struct an_run *r, const uint32_t *map, uint32_t nmap)
{
    size_t n = 0;
    for (size_t k = 0; k < r->nompr; k++) {
        uint32_t v = r->ompr[k].vertex;
        if (v >= nmap || map[v] == AN_NONE) continue;
        r->ompr[n] = r->ompr[k];
        r->ompr[n++].vertex = map[v];
    }
    r->nompr = n;
}

/* The same region: the same vertex and fork line (strings are interned). */
static int same_region(const struct an_omp_region *a, const struct an_omp_region *b)
{
    return a->vertex == b->vertex && a->line == b->line && a->file == b->file;
}

static int by_vertex_rank_thread(const void *x, const void *y)
{
    const struct an_omp_region *a = x, *b = y;
    if (a->vertex != b->vertex) return a->vertex < b->vertex ? -1 : 1;
    if (a->line != b->line) return a->line < b->line ? -1 : 1;
    int f = strcmp(a->file, b->file);
    if (f) return f;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    return a->thread < b->thread ? -1 : a->thread > b->thread;
}

/* At most this many (rank, thread) rows per region in report.json. */
#define AN_OMPT_THREAD_ROWS 256

json_t *an_ompt_regions_json(const struct an_run *r, const struct an_graph *g)
{
    json_t *arr = json_array();
    struct an_omp_region *e = r->nompr ? malloc(r->nompr * sizeof *e) : NULL;
    if (r->nompr && !e) abort();
    if (e) memcpy(e, r->ompr, r->nompr * sizeof *e);
    qsort(e, r->nompr, sizeof *e, by_vertex_rank_thread);
    for (size_t i = 0; i < r->nompr;) {
        size_t j = i;
        uint32_t team = 0, nth = 0;
        uint64_t forks = 0;
        double wait = 0, wait_max = 0, time_s = 0;
        json_t *threads = json_array();
        for (; j < r->nompr && same_region(&e[j], &e[i]); j++) {
            const struct an_omp_region *x = &e[j];
            if (x->team > team) team = x->team;
            forks += x->forks, time_s += x->time_s;
            wait += entry_wait(x), nth++;
            if (entry_wait(x) > wait_max) wait_max = entry_wait(x);
            if (j - i >= AN_OMPT_THREAD_ROWS) continue;
            json_array_append_new(threads, json_pack("{sI sI sI sf sf sf sf}", "rank", (json_int_t)x->rank,
                                                     "thread", (json_int_t)x->thread, "instances",
                                                     (json_int_t)x->regions, "wait_seconds", entry_wait(x),
                                                     "end_barrier_wait_seconds", x->end_wait_s,
                                                     "barrier_wait_seconds", x->barrier_wait_s,
                                                     "sync_wait_seconds", x->sync_wait_s));
        }
        const struct an_vertex *v = e[i].vertex < g->n ? &g->v[e[i].vertex] : NULL;
        json_t *o = json_object();
        /* where the fork is, else (no line for its address) the vertex it attributes to */
        int own = e[i].line && *e[i].file;
        json_object_set_new(o, "function", json_string(v && v->function ? v->function : e[i].function));
        json_object_set_new(o, "file", json_string(own ? e[i].file : v && v->file ? v->file : ""));
        json_object_set_new(o, "line", json_integer(own ? e[i].line : v ? v->line : 0));
        json_object_set_new(o, "team_size", json_integer(team));
        double ranks = r->omp_ranks ? r->omp_ranks : 1;
        json_object_set_new(o, "instances_mean", json_real((double)forks / ranks));
        json_object_set_new(o, "seconds_mean", json_real(time_s / ranks));
        json_object_set_new(o, "wait_seconds_mean_per_thread", json_real(nth ? wait / nth : 0));
        json_object_set_new(o, "wait_seconds_max_per_thread", json_real(wait_max));
        json_object_set_new(o, "threads", threads);
        json_array_append_new(arr, o);
        i = j;
    }
    free(e);
    return arr;
}
