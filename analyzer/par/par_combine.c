/* par_combine.c — the combination step of the parallel analyzer (par.h).
 * Every analyzer process read a contiguous, ascending slice of the ranks of
 * every run.  (1) One vertex table: the others send process 0 their vertex
 * tables (and warnings); process 0 merges them in process order, finding or
 * creating each vertex by (parent, key) as attribution does, and sends the
 * merged table back; each process renames its vertices to the merged ids.
 * (2) Each process computes, on its own ranks, the per-rank inclusive times
 * and every vertex's statistics (an_run_finish_slice).  (3) The others send
 * process 0, per run, what is O(ranks) or O(vertices): their ranks' run
 * figures (wall, CPU, MPI, start-up, GPU busy, host), every vertex's totals
 * and statistics, their partner records and phases; process 0 builds each
 * run from them (its own slice first, then the others' in process order:
 * the lowest rank keeps a tie, as in a serial scan) and finishes its totals
 * (an_run_finish_totals).  The per-rank vertex arrays stay where they were
 * read; process 0 fetches those it needs (par_serve.c).  Format: native
 * byte order, both ends are the same build. */
#include "core/graph.h"
#include "core/types.h"
#include "core/warn.h"
#include "ppg/intervals.h"
#include "ppg/ppg.h"
#include "ppg/threads.h"
#include "ppg/vstat.h"
#include "read/ompt.h"
#include "sc_alloc.h"
#include "scalana/profile_format.h"
#include "scalana/psg_format.h"
#include "par.h"
#include "par_buf.h"
#include "par_mpi.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- (1) one vertex table --------------------------------------------------- */

static void put_vertices(struct wbuf *b, const struct an_graph *g)
{
    put_u32(b, g->n);
    for (uint32_t i = 0; i < g->n; i++) {
        const struct an_vertex *v = &g->v[i];
        put_u32(b, v->parent);
        uint32_t small[] = {v->kind, v->flags, v->op, v->line, v->last_line, v->column, (uint32_t)v->psg_unit,
                            v->psg_index};
        put(b, small, sizeof small);
        put_u64(b, v->key), put_u64(b, v->order), put_u64(b, v->psg_stable_id);
        put_str(b, v->name), put_str(b, v->function), put_str(b, v->file), put_str(b, v->linkage);
    }
}

/* Merges a vertex table into g: *map (malloc'ed, *nmap entries) from its ids
 * to g's.  Returns 0, or -1 when the table is short or inconsistent. */
static int get_vertices(struct rbuf *b, struct an_graph *g, uint32_t **mapp, uint32_t *nmap)
{
    uint32_t nv = get_u32(b);
    if (!fits(b, nv, 8)) return -1;
    uint32_t *map = sc_xmalloc(((size_t)nv + 1) * sizeof *map);
    for (uint32_t i = 0; i < nv && !b->bad; i++) {
        uint32_t parent = get_u32(b), small[8];
        get(b, small, sizeof small);
        uint64_t key = get_u64(b), order = get_u64(b), stable = get_u64(b);
        const char *name = get_str(b, &g->strings), *function = get_str(b, &g->strings);
        const char *file = get_str(b, &g->strings), *linkage = get_str(b, &g->strings);
        if (parent != AN_NONE && parent >= i) { /* parents are created before their children */
            b->bad = 1;
            break;
        }
        int created;
        uint32_t id = an_graph_get(g, parent == AN_NONE ? AN_NONE : map[parent], key, &created);
        struct an_vertex *v = &g->v[id];
        if (created) {
            v->kind = (uint16_t)small[0], v->flags = (uint16_t)small[1], v->op = small[2];
            v->line = small[3], v->last_line = small[4], v->column = small[5];
            v->psg_unit = (int32_t)small[6], v->psg_index = small[7];
            v->order = order, v->psg_stable_id = stable;
            v->name = name, v->function = function, v->file = file, v->linkage = linkage;
        } else {
            /* what attribution changes on a vertex after creating it, from every rank that
             * meets it: a call site turned into an MPI vertex (ppg.c), the sticky flags
             * (inlined / out-of-line call, attribute.c), and a dynamic function's lines
             * without a DWARF range (the smallest and largest line seen) */
            if (small[0] == PSG_MPI && v->kind != PSG_MPI) v->kind = PSG_MPI, v->op = small[2], v->name = name;
            else if (!v->op && small[2]) v->op = small[2];
            v->flags |= (uint16_t)small[1];
            if (v->kind == AN_KIND_DYNAMIC && !(v->flags & (AN_V_CALLSITE | AN_V_LIBRARY))) {
                if (small[3] && (v->line == 0 || small[3] < v->line)) v->line = small[3];
                if (small[4] > v->last_line) v->last_line = small[4];
            }
        }
        map[i] = id;
    }
    *mapp = map, *nmap = nv;
    return b->bad ? -1 : 0;
}

/* The first message of a process other than 0: ready (it found a run to
 * read), its vertices, warnings and the number of runs. */
static void put_header(struct wbuf *b, const struct an_analysis *a, int ready)
{
    put_u32(b, (uint32_t)ready);
    put_vertices(b, &a->g);
    put_u32(b, a->nwarnings);
    for (uint32_t i = 0; i < a->nwarnings; i++) put_str(b, a->warnings[i]);
    put_u32(b, a->nruns);
}

static int merge_header(struct an_analysis *a, int ready, const char *p, uint64_t n)
{
    struct rbuf b = {p, n, 0, 0};
    if (get_u32(&b) != (uint32_t)ready) return -1; /* one found the runs, the other not */
    uint32_t *map = NULL, nmap = 0;
    int rc = get_vertices(&b, &a->g, &map, &nmap);
    free(map);
    if (rc) return -1;
    uint32_t nw = get_u32(&b);
    for (uint32_t i = 0; i < nw && !b.bad; i++) an_warn(a, "%s", get_str(&b, &a->g.strings));
    if (get_u32(&b) != a->nruns) b.bad = 1;
    return b.bad || b.off != b.n ? -1 : 0;
}

/* Renames run r's vertices by map (old -> new, nmap entries) into a table
 * of n vertices. */
static void remap_run(struct an_run *r, const uint32_t *map, uint32_t nmap, uint32_t n)
{
    struct an_vrun *vr = sc_xcalloc((size_t)n + 1, sizeof *vr);
    for (uint32_t v = 0; v < r->nvr; v++) {
        if (v < nmap && map[v] != AN_NONE) vr[map[v]] = r->vr[v];
    }
    free(r->vr);
    r->vr = vr, r->nvr = n + 1;
    for (size_t k = 0; k < r->npeers; k++)
        r->peers[k].vertex = r->peers[k].vertex < nmap ? map[r->peers[k].vertex] : AN_NONE;
    for (uint32_t k = 0; k < r->nphases; k++)
        if (r->phases[k].vertex != AN_NONE)
            r->phases[k].vertex = r->phases[k].vertex < nmap ? map[r->phases[k].vertex] : AN_NONE;
    an_run_intervals_remap(r, map, nmap);
    an_run_remap_thread_cpu(r, map, nmap);
    an_run_remap_omp(r, map, nmap);
}

/* A process other than 0: takes the merged vertex table of process 0 and
 * renames its own vertices (and those of its runs) to its ids.  The string
 * pool is kept: names interned while reading stay valid. */
static int take_vertices(struct an_analysis *a, const char *p, uint64_t n)
{
    struct an_graph old = a->g, g;
    an_graph_init(&g);
    an_strpool_free(&g.strings);
    g.strings = old.strings;
    memset(&old.strings, 0, sizeof old.strings);
    struct rbuf b = {p, n, 0, 0};
    uint32_t *gmap = NULL, ng = 0;
    int rc = get_vertices(&b, &g, &gmap, &ng);
    free(gmap);
    uint32_t *map = sc_xmalloc(((size_t)old.n + 1) * sizeof *map);
    for (uint32_t i = 0; i < old.n && rc == 0; i++) {
        uint32_t parent = old.v[i].parent;
        map[i] = an_graph_find(&g, parent == AN_NONE ? AN_NONE : map[parent], old.v[i].key);
        if (map[i] == AN_NONE) rc = -1; /* process 0 merged every vertex of ours */
    }
    if (rc == 0 && b.off == b.n) {
        for (uint32_t j = 0; j < a->nruns; j++)
            if (a->runs[j].P) remap_run(&a->runs[j], map, old.n, g.n);
    } else {
        rc = -1;
    }
    free(map);
    a->g = g;
    an_graph_free(&old);
    return rc;
}

/* ---- (3) per run: figures of the ranks read, vertex totals and statistics --- */

/* The per-rank values of a float array that holds the ranks from lo on, at
 * the ranks listed. */
static void put_ranks_f32(struct wbuf *b, const float *x, uint32_t lo, const uint32_t *ranks, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) put(b, &x[ranks[i] - lo], sizeof(float));
}
static void get_ranks_f32(struct rbuf *b, float *x, const uint32_t *ranks, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) get(b, &x[ranks[i]], sizeof(float));
}

#define NTOTALS 13

/* put_run's OpenMP part (ompt.c): the ranks with OMPT records, their wait,
 * the threads per process and per core (maxima), and every region entry
 * with its fork location as strings (interned again where merged). */
static void put_run_omp(struct wbuf *b, const struct an_run *r)
{
    put_u32(b, r->omp_ranks), put_f64(b, r->ompt_wait_s);
    put_u32(b, r->threads_per_process), put_f64(b, r->threads_per_core);
    put_u64(b, r->nompr);
    for (size_t k = 0; k < r->nompr; k++) {
        const struct an_omp_region *e = &r->ompr[k];
        put_u32(b, e->vertex), put_u32(b, e->rank), put_u32(b, e->thread), put_u32(b, e->team);
        put_u64(b, e->regions), put_u64(b, e->forks);
        put_f64(b, e->time_s), put_f64(b, e->end_wait_s), put_f64(b, e->barrier_wait_s), put_f64(b, e->sync_wait_s);
        put_str(b, e->file ? e->file : ""), put_str(b, e->function ? e->function : ""), put_u32(b, e->line);
    }
}

static void put_run(struct wbuf *b, const struct an_run *r, uint32_t nv)
{
    put_u32(b, (uint32_t)r->bad);
    put_u32(b, r->P);
    if (!r->P) return;
    put_f64(b, r->period_s);
    uint64_t sums[] = {r->present_count, r->unresolved, r->samples, r->dropped, r->overruns, r->cct_overflow,
                       r->vol_switches, r->invol_switches, r->signals, r->weight, r->interval_overflow};
    put(b, sums, sizeof sums);
    put_u32(b, (uint32_t)r->has_intervals);
    put_f64(b, r->asked_hz), put_f64(b, r->effective_hz), put_f64(b, r->resolution_s), put_f64(b, r->obtained_hz);
    put_u32(b, r->rate_ranks);
    /* the ranks read here */
    uint32_t *ranks = sc_xmalloc(((size_t)r->present_count + 1) * sizeof *ranks), n = 0;
    for (uint32_t i = 0; i < r->P && n < r->present_count; i++)
        if (r->present[i]) ranks[n++] = i;
    put_u32(b, n);
    put(b, ranks, (size_t)n * sizeof *ranks);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = ranks[i];
        double d[] = {r->wall[k], r->cpu[k], r->mpi[k], r->cpu_wait[k], r->gpu_sync[k],
                      r->startup ? r->startup[k] : 0, r->gpu_busy[k], r->omp_wait[k], r->run_delay[k]};
        put(b, d, sizeof d);
        put_u32(b, r->ranks_on_host[k]), put_u32(b, r->usable_cores[k]);
    }
    uint32_t nu = 0;
    for (uint32_t i = 0; i < r->P; i++) nu += r->unreadable && r->unreadable[i];
    put_u32(b, nu);
    for (uint32_t i = 0; i < r->P && nu; i++)
        if (r->unreadable[i]) put_u32(b, i), put(b, &r->unreadable[i], 1);
    /* every vertex: a present rank without it counts with zeros in its statistics */
    put_u32(b, nv);
    for (uint32_t v = 0; v < nv; v++) {
        static const struct an_vrun none;
        const struct an_vrun *x = v < r->nvr ? &r->vr[v] : &none;
        struct an_vstat st;
        if (v < r->nvr) st = x->st;
        else an_vstat_slice(r, x, &st);
        put_u32(b, x->has);
        double d[NTOTALS] = {x->samples, x->samples_incl, x->mpi_samples, x->signals, x->signals_incl, x->calls,
                             x->bytes_sent, x->bytes_recv, x->gpu_kernel_s, x->gpu_copy_s, x->gpu_sync_s,
                             x->min_call_s, (double)x->ranks};
        put(b, d, sizeof d);
        put(b, &st, sizeof st);
    }
    put_u64(b, r->unmatched);
    put_u64(b, r->nedges);
    put(b, r->edges, r->nedges * sizeof *r->edges);
    put_u32(b, r->nphases);
    for (uint32_t k = 0; k < r->nphases; k++) {
        put_str(b, r->phases[k].name);
        put_u32(b, r->phases[k].vertex);
        put_ranks_f32(b, r->phases[k].time, r->slice_lo, ranks, n);
        put_ranks_f32(b, r->phases[k].count, r->slice_lo, ranks, n);
    }
    put_u32(b, r->work_ranks);
    put_u64(b, r->nwork);
    put(b, r->work, r->nwork * sizeof *r->work);
    put_u64(b, r->ntwork);
    put(b, r->twork, r->ntwork * sizeof *r->twork);
    put_u64(b, r->ntcpu);
    put(b, r->tcpu, r->ntcpu * sizeof *r->tcpu);
    put_run_omp(b, r);
    free(ranks);
}

/* Appends a count and that many entries of elem bytes to *arr (*n entries,
 * *cap allocated); each entry's uint32 world rank at rank_off must be < P. */
static void get_appended(struct rbuf *b, void **arr, size_t *n, size_t *cap, size_t elem, size_t rank_off,
                         uint32_t P)
{
    uint64_t k = get_u64(b);
    if (b->bad || !fits(b, k, elem)) {
        b->bad = 1;
        return;
    }
    *arr = sc_xrealloc(*arr, (*n + k + 1) * elem);
    unsigned char *p = (unsigned char *)*arr + *n * elem;
    get(b, p, k * elem);
    for (uint64_t i = 0; i < k && !b->bad; i++) {
        uint32_t rank;
        memcpy(&rank, p + i * elem + rank_off, sizeof rank);
        if (rank >= P) b->bad = 1;
    }
    *n += k, *cap = *n + 1;
}

/* merge_run's run totals and sampling rate. */
static void merge_run_totals(struct rbuf *b, struct an_run *r)
{
    double period = get_f64(b);
    if (!r->period_s) r->period_s = period;
    uint64_t sums[11];
    get(b, sums, sizeof sums);
    r->present_count += (uint32_t)sums[0], r->unresolved += sums[1], r->samples += sums[2];
    r->dropped += sums[3], r->overruns += sums[4], r->cct_overflow += sums[5], r->vol_switches += sums[6];
    r->invol_switches += sums[7], r->signals += sums[8], r->weight += sums[9], r->interval_overflow += sums[10];
    if (get_u32(b)) r->has_intervals = 1;
    double asked = get_f64(b), eff = get_f64(b), res = get_f64(b), obt = get_f64(b);
    uint32_t rr = get_u32(b);
    if (rr) {
        /* the later ranks' rate wins, as in a serial read; obtained is the mean over ranks */
        r->asked_hz = asked, r->effective_hz = eff, r->resolution_s = res;
        r->obtained_hz = (r->obtained_hz * r->rate_ranks + obt * rr) / (r->rate_ranks + rr);
        r->rate_ranks += rr;
    } else if (!r->asked_hz) {
        r->asked_hz = asked;
    }
}

/* merge_run's per-rank figures of the sender's ranks and its unreadable
 * ranks.  Returns the sender's ranks (*n of them, malloc'ed), or NULL with
 * b->bad set when the message does not hold them. */
static uint32_t *merge_run_ranks(struct rbuf *b, struct an_run *r, uint32_t *np)
{
    uint32_t P = r->P, n = get_u32(b);
    if (b->bad || n > P || !fits(b, n, sizeof(uint32_t))) {
        b->bad = 1;
        return NULL;
    }
    uint32_t *ranks = sc_xmalloc(((size_t)n + 1) * sizeof *ranks);
    get(b, ranks, (size_t)n * sizeof *ranks);
    for (uint32_t i = 0; i < n && !b->bad; i++)
        if (ranks[i] >= P) b->bad = 1;
    for (uint32_t i = 0; i < n && !b->bad; i++) {
        uint32_t k = ranks[i];
        double d[9];
        get(b, d, sizeof d);
        r->present[k] = 1;
        r->wall[k] = d[0], r->cpu[k] = d[1], r->mpi[k] = d[2], r->cpu_wait[k] = d[3], r->gpu_sync[k] = d[4];
        r->startup[k] = d[5], r->gpu_busy[k] = d[6], r->omp_wait[k] = d[7], r->run_delay[k] = d[8];
        r->ranks_on_host[k] = get_u32(b), r->usable_cores[k] = get_u32(b);
    }
    uint32_t nu = get_u32(b);
    for (uint32_t i = 0; i < nu && !b->bad; i++) {
        uint32_t k = get_u32(b);
        uint8_t u;
        get(b, &u, 1);
        if (k < P && r->unreadable && u > r->unreadable[k]) r->unreadable[k] = u;
    }
    *np = n;
    return ranks;
}

/* merge_run's vertex totals and statistics (nvertices of them). */
static void merge_run_vertices(struct rbuf *b, struct an_run *r, uint32_t nvertices)
{
    uint32_t nv = get_u32(b);
    if (nv != nvertices) b->bad = 1;
    for (uint32_t v = 0; v < nv && !b->bad; v++) {
        struct an_vrun *x = &r->vr[v];
        uint32_t has = get_u32(b);
        double d[NTOTALS];
        struct an_vstat st;
        get(b, d, sizeof d);
        get(b, &st, sizeof st);
        x->has |= (uint16_t)has;
        x->samples += d[0], x->samples_incl += d[1], x->mpi_samples += d[2], x->signals += d[3];
        x->signals_incl += d[4], x->calls += d[5], x->bytes_sent += d[6], x->bytes_recv += d[7];
        x->gpu_kernel_s += d[8], x->gpu_copy_s += d[9], x->gpu_sync_s += d[10];
        if (d[11] > 0 && (x->min_call_s == 0 || d[11] < x->min_call_s)) x->min_call_s = d[11];
        x->ranks += (uint32_t)d[12];
        an_vstat_merge(&x->st, &st);
    }
}

/* merge_run's unmatched count and communication edges: 0, or -1 (b->bad)
 * when the message cannot hold the edges it counts. */
static int merge_run_edges(struct rbuf *b, struct an_run *r, uint32_t nvertices)
{
    r->unmatched += get_u64(b);
    uint64_t ne = get_u64(b);
    if (!fits(b, ne, sizeof *r->edges)) {
        b->bad = 1;
        return -1;
    }
    struct an_edge *e = sc_xmalloc((ne + 1) * sizeof *e);
    get(b, e, ne * sizeof *e);
    for (uint64_t i = 0; i < ne && !b->bad; i++)
        if (e[i].send_vertex >= nvertices || e[i].recv_vertex >= nvertices) b->bad = 1;
    if (!b->bad) an_run_add_edges(r, e, ne);
    free(e);
    return 0;
}

/* merge_run's phases: per phase (by name) the sender's ranks' time and count. */
static void merge_run_phases(struct rbuf *b, struct an_run *r, struct an_strpool *pool, uint32_t nvertices,
                             const uint32_t *ranks, uint32_t n)
{
    uint32_t nph = get_u32(b);
    for (uint32_t q = 0; q < nph && !b->bad; q++) {
        const char *name = get_str(b, pool);
        uint32_t v = get_u32(b);
        uint32_t j = 0;
        while (j < r->nphases && strcmp(r->phases[j].name, name) != 0) j++;
        if (j == r->nphases) {
            r->phases = sc_xrealloc(r->phases, (r->nphases + 1) * sizeof *r->phases);
            r->phases[j] = (struct an_phase_run){name, AN_NONE, sc_xcalloc(r->P, sizeof(float)), sc_xcalloc(r->P, sizeof(float))};
            r->nphases++;
        }
        if (r->phases[j].vertex == AN_NONE && v < nvertices) r->phases[j].vertex = v;
        get_ranks_f32(b, r->phases[j].time, ranks, n);
        get_ranks_f32(b, r->phases[j].count, ranks, n);
    }
}

/* merge_run's OpenMP part (put_run_omp): counts and waits add, threads per
 * process and per core are maxima, region entries are appended. */
static void merge_run_omp(struct rbuf *b, struct an_run *r, struct an_strpool *pool, uint32_t nvertices)
{
    r->omp_ranks += get_u32(b);
    r->ompt_wait_s += get_f64(b);
    uint32_t tpp = get_u32(b);
    double tpc = get_f64(b);
    if (tpp > r->threads_per_process) r->threads_per_process = tpp;
    if (tpc > r->threads_per_core) r->threads_per_core = tpc;
    uint64_t n = get_u64(b);
    /* each entry takes at least 76 bytes: a count beyond the message is corrupt */
    if (b->bad || !fits(b, n, 76)) {
        b->bad = 1;
        return;
    }
    r->ompr = sc_xrealloc(r->ompr, (r->nompr + n + 1) * sizeof *r->ompr);
    for (uint64_t k = 0; k < n && !b->bad; k++) {
        struct an_omp_region *e = &r->ompr[r->nompr];
        e->vertex = get_u32(b), e->rank = get_u32(b), e->thread = get_u32(b), e->team = get_u32(b);
        e->regions = get_u64(b), e->forks = get_u64(b);
        e->time_s = get_f64(b), e->end_wait_s = get_f64(b), e->barrier_wait_s = get_f64(b);
        e->sync_wait_s = get_f64(b);
        e->file = get_str(b, pool), e->function = get_str(b, pool), e->line = get_u32(b);
        if (e->vertex >= nvertices || e->rank >= r->P) b->bad = 1;
        else r->nompr++;
    }
    r->ompr_cap = r->nompr + 1;
}

/* Merges one process's part of run r (whole: slice (0, P)). */
static void merge_run(struct rbuf *b, struct an_run *r, struct an_strpool *pool, uint32_t nvertices)
{
    uint32_t bad = get_u32(b), P = get_u32(b);
    if (bad) r->bad = 1;
    if (!P) return;
    if (P != r->P) {
        b->bad = 1; /* the processes disagree on the run's world size: cannot happen with the same files */
        return;
    }
    merge_run_totals(b, r);
    uint32_t n = 0;
    uint32_t *ranks = merge_run_ranks(b, r, &n);
    if (!ranks) return;
    merge_run_vertices(b, r, nvertices);
    if (merge_run_edges(b, r, nvertices) != 0) {
        free(ranks);
        return;
    }
    merge_run_phases(b, r, pool, nvertices, ranks, n);
    /* work entries: appended, sorted by an_run_finish_totals */
    r->work_ranks += get_u32(b);
    get_appended(b, (void **)&r->work, &r->nwork, &r->work_cap, sizeof *r->work,
                 offsetof(struct an_work, rank), P);
    get_appended(b, (void **)&r->twork, &r->ntwork, &r->twork_cap, sizeof *r->twork,
                 offsetof(struct an_thread_work, rank), P);
    size_t ntc = r->ntcpu;
    get_appended(b, (void **)&r->tcpu, &r->ntcpu, &r->tcpu_cap, sizeof *r->tcpu,
                 offsetof(struct an_thread_cpu, rank), P);
    for (size_t k = ntc; k < r->ntcpu && !b->bad; k++)
        if (r->tcpu[k].vertex >= nvertices) b->bad = 1;
    merge_run_omp(b, r, pool, nvertices);
    free(ranks);
}

/* Process 0: the whole run j of the analysis, from its own slice (moved
 * into G's parallel source, an_par_attach) and the others' parts merged
 * after it.  Returns where the own slice now is. */
static const struct an_run *start_whole_run(struct an_run *G, struct an_run *own, uint32_t j, uint32_t nv)
{
    an_run_init(G, own->P);
    G->dir = own->dir, own->dir = NULL;
    G->info = own->info;
    memset(&own->info, 0, sizeof own->info);
    memcpy(G->sampler, own->sampler, sizeof G->sampler);
    G->bad = own->bad;
    G->unreadable = sc_xcalloc(own->P ? own->P : 1, 1);
    G->startup = sc_xcalloc(own->P ? own->P : 1, sizeof *G->startup);
    if (nv) an_run_vertex(G, nv - 1);
    for (uint32_t v = 0; v < G->nvr; v++) an_vstat_init(&G->vr[v].st);
    return an_par_attach(G, own, j);
}

/* ---- the exchange ----------------------------------------------------------- */

static void send_or_abort(const struct an_mpi_ops *ops, int dest, struct wbuf *b, int me)
{
    if (ops->send(dest, b->p, b->n) != 0) {
        fprintf(stderr, "scalana-analyze: error: analyzer process %d: cannot send its part to process %d\n", me, dest);
        ops->abort(1);
    }
    free(b->p);
    memset(b, 0, sizeof *b);
}

static void recv_or_abort(const struct an_mpi_ops *ops, int src, void **p, uint64_t *n)
{
    *p = NULL, *n = 0;
    if (ops->recv(src, p, n) != 0) {
        fprintf(stderr, "scalana-analyze: error: the part of analyzer process %d could not be received\n", src);
        ops->abort(1);
    }
}

static void mismatch(const struct an_mpi_ops *ops, int k)
{
    fprintf(stderr, "scalana-analyze: error: analyzer process %d did not find the runs process 0 found "
                    "(other run directories, world sizes or executable): every analyzer process must "
                    "see the same run directories (a shared file system)\n", k);
    ops->abort(1);
}

/* ---- (2b) partner records matched where their sender was read ---------------- */

/* The process whose slice of a run of P holds world rank s (s < P). */
static int owner_of(uint32_t s, uint32_t P, int N)
{
    for (int k = 0; k < N; k++) {
        uint32_t lo, n;
        an_par_slice_of(P, k, N, &lo, &n);
        if (s >= lo && s - lo < n) return k;
    }
    return N - 1;
}

/* Every record of a (sender, receiver, communicator) goes to the process
 * whose slice holds the sender (a receive record's sender is its peer); one
 * exchange per pair of processes, in the same order everywhere (the lower
 * sends first), so blocking sends cannot deadlock.  Each process matches
 * what it received, in process order (the order a serial read meets the
 * records), into its run's edges and unmatched count, then indexes its own
 * records by rank for process 0's questions (an_run_peers_of). */
static void match_where_read(const struct an_mpi_ops *ops, struct an_run *r, int N, int me)
{
    struct wbuf *out = sc_xcalloc((size_t)N, sizeof *out);
    for (size_t i = 0; i < r->npeers; i++) {
        const struct an_peer_rec *p = &r->peers[i];
        int64_t s = (p->flags & PRF_PEER_SEND) ? (int64_t)p->rank : (int64_t)p->peer;
        int dest = p->peer >= 0 && s >= 0 && s < (int64_t)r->P ? owner_of((uint32_t)s, r->P, N) : me;
        put(&out[dest], p, sizeof *p);
    }
    struct wbuf *in = sc_xcalloc((size_t)N, sizeof *in);
    in[me] = out[me];
    memset(&out[me], 0, sizeof out[me]);
    for (int i = 0; i < N; i++)
        for (int k = i + 1; k < N; k++) {
            void *p;
            uint64_t n;
            if (me == i) {
                send_or_abort(ops, k, &out[k], me);
                recv_or_abort(ops, k, &p, &n);
                in[k] = (struct wbuf){p, n, n};
            } else if (me == k) {
                recv_or_abort(ops, i, &p, &n);
                in[i] = (struct wbuf){p, n, n};
                send_or_abort(ops, i, &out[i], me);
            }
        }
    struct an_run m;
    memset(&m, 0, sizeof m);
    m.P = r->P;
    for (int k = 0; k < N; k++) {
        if (in[k].n % sizeof *m.peers) mismatch(ops, k);
        size_t c = in[k].n / sizeof *m.peers;
        m.peers = sc_xrealloc(m.peers, (m.npeers + c + 1) * sizeof *m.peers);
        if (c) memcpy(m.peers + m.npeers, in[k].p, c * sizeof *m.peers);
        m.npeers += c;
        free(in[k].p);
    }
    free(in), free(out);
    an_run_match_edges(&m);
    free(r->edges);
    r->edges = m.edges, r->nedges = m.nedges, r->edges_cap = m.edges_cap;
    r->unmatched += m.unmatched;
    free(m.peers);
    an_run_index_peers(r);
}

static int finishable(const struct an_run *r) { return !r->bad && r->P; }

void an_par_combine(struct an_analysis *a, int ready)
{
    const struct an_mpi_ops *ops = an_par_ops();
    int N = an_par_size(), me = an_par_rank();
    free(a->peak_rss);
    a->nprocs = (uint32_t)N;
    a->peak_rss = sc_xcalloc((size_t)N, sizeof *a->peak_rss);
    if (N <= 1 || !ops) {
        for (uint32_t j = 0; ready && j < a->nruns; j++)
            if (!a->runs[j].bad) an_run_finish(&a->runs[j], &a->g);
        return;
    }
    struct wbuf b = {0};
    void *p;
    uint64_t n;
    /* (1) one vertex table */
    if (me != 0) {
        put_header(&b, a, ready);
        send_or_abort(ops, 0, &b, me);
        if (!ready) return;
        recv_or_abort(ops, 0, &p, &n);
        if (take_vertices(a, p, n) != 0) mismatch(ops, me);
        free(p);
    } else {
        for (int k = 1; k < N; k++) {
            recv_or_abort(ops, k, &p, &n);
            if (merge_header(a, ready, p, n) != 0) mismatch(ops, k);
            free(p);
        }
        if (!ready) return;
        put_vertices(&b, &a->g);
        for (int k = 1; k < N; k++)
            if (ops->send(k, b.p, b.n) != 0) {
                fprintf(stderr, "scalana-analyze: error: analyzer process 0: cannot send the vertex table to process %d\n", k);
                ops->abort(1);
            }
        free(b.p);
        memset(&b, 0, sizeof b);
    }
    /* (2) each process's ranks; the partner records matched where their senders were read */
    for (uint32_t j = 0; j < a->nruns; j++) {
        if (finishable(&a->runs[j])) an_run_finish_slice(&a->runs[j], &a->g);
        if (a->runs[j].P) match_where_read(ops, &a->runs[j], N, me);
    }
    /* (3) the runs on process 0 */
    uint32_t nv = a->g.n;
    if (me != 0) {
        for (uint32_t j = 0; j < a->nruns; j++) {
            put_run(&b, &a->runs[j], nv);
            send_or_abort(ops, 0, &b, me);
        }
        return;
    }
    for (uint32_t j = 0; j < a->nruns; j++) {
        struct an_run *r = &a->runs[j];
        if (!r->P) {
            /* skipped by every process before it was read (the same checks everywhere) */
            for (int k = 1; k < N; k++) {
                recv_or_abort(ops, k, &p, &n);
                struct rbuf rb = {p, n, 0, 0};
                uint32_t bad = get_u32(&rb), P = get_u32(&rb);
                (void)bad;
                if (rb.bad || P) mismatch(ops, k);
                free(p);
            }
            continue;
        }
        struct an_run own;
        own = *r;
        memset(r, 0, sizeof *r);
        put_run(&b, start_whole_run(r, &own, j, nv), nv);
        struct rbuf rb = {b.p, b.n, 0, 0};
        merge_run(&rb, r, &a->g.strings, nv);
        free(b.p);
        memset(&b, 0, sizeof b);
        for (int k = 1; k < N; k++) {
            recv_or_abort(ops, k, &p, &n);
            struct rbuf kb = {p, n, 0, 0};
            merge_run(&kb, r, &a->g.strings, nv);
            if (kb.bad || kb.off != kb.n) mismatch(ops, k);
            free(p);
        }
        if (!r->bad && !r->present_count) {
            an_warn(a, "%s: no rank could be read; run skipped", r->dir);
            r->bad = 1;
        }
        if (!r->bad) an_run_finish_totals(r);
    }
    an_par_start_serving();
}
