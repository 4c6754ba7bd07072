/* ppg.c — the Program Performance Graph of one run: per rank and vertex the
 * exclusive CPU time from samples, MPI wall time, calls and bytes; inclusive
 * time; point-to-point partners matched into communication edges (send
 * context -> receive context) and the rank x rank matrix. */
#include "ppg/ppg.h"
#include "core/graph.h"
#include "core/mpi_table.h"
#include "core/types.h"
#include "ppg/intervals.h"
#include "ppg/run_source.h"
#include "ppg/threads.h"
#include "ppg/vstat.h"
#include "ppg/vtime.h"
#include "ppg/work.h"
#include "read/attribute.h"
#include "read/omp.h"
#include "read/ompt.h"
#include "sc_alloc.h"
#include "sc_hash.h"
#include "scalana/profile_format.h"
#include "scalana/psg_format.h"
#include "scalana/run_info.h"
#include "scalana/samplers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

void an_run_init(struct an_run *r, uint32_t P)
{
    memset(r, 0, sizeof *r);
    r->P = P;
    r->slice_lo = 0, r->slice_n = P;
    r->wall = sc_xcalloc(P, sizeof *r->wall);
    r->cpu = sc_xcalloc(P, sizeof *r->cpu);
    r->mpi = sc_xcalloc(P, sizeof *r->mpi);
    r->cpu_wait = sc_xcalloc(P, sizeof *r->cpu_wait);
    r->omp_wait = sc_xcalloc(P, sizeof *r->omp_wait);
    r->gpu_sync = sc_xcalloc(P, sizeof *r->gpu_sync);
    r->gpu_busy = sc_xcalloc(P, sizeof *r->gpu_busy);
    r->run_delay = sc_xmalloc((P ? P : 1) * sizeof *r->run_delay);
    for (uint32_t i = 0; i < P; i++) r->run_delay[i] = NAN;
    r->present = sc_xcalloc(P, 1);
    r->ranks_on_host = sc_xcalloc(P, sizeof *r->ranks_on_host);
    r->usable_cores = sc_xcalloc(P, sizeof *r->usable_cores);
}

void an_vrun_free_arrays(struct an_vrun *x)
{
    free(x->cpu), free(x->mpi), free(x->incl), free(x->comm);
    free(x->ncalls), free(x->icpu), free(x->gpu), free(x->igpu);
    x->cpu = x->mpi = x->incl = x->ncalls = x->icpu = x->gpu = x->igpu = NULL;
    x->comm = NULL;
}

void an_run_free(struct an_run *r)
{
    an_run_source_free(r);
    for (uint32_t v = 0; v < r->nvr; v++) an_vrun_free_arrays(&r->vr[v]);
    free(r->vr);
    free(r->wall), free(r->cpu), free(r->mpi), free(r->present);
    free(r->cpu_wait), free(r->omp_wait), free(r->gpu_sync), free(r->gpu_busy), free(r->startup);
    free(r->run_delay);
    for (uint32_t k = 0; k < r->nphases; k++) free(r->phases[k].time), free(r->phases[k].count);
    free(r->work), free(r->twork), free(r->ompr), free(r->tcpu);
    for (uint32_t k = 0; k < r->nintervals; k++) {
        struct an_interval *x = &r->intervals[k];
        free(x->count), free(x->wall), free(x->wall_min), free(x->wall_max), free(x->wall_sq);
        free(x->cpu);
    }
    free(r->intervals), sc_hash_free(&r->interval_index);
    free(r->phases);
    free(r->ranks_on_host), free(r->usable_cores);
    free(r->peers), free(r->peer_first), free(r->edges), free(r->missing), free(r->unreadable);
    free(r->dir);
    if (r->info.version) scalana_run_info_free(&r->info);
    memset(r, 0, sizeof *r);
}

struct an_vrun *an_run_vertex(struct an_run *r, uint32_t v)
{
    if (v >= r->nvr) {
        uint32_t n = r->nvr ? r->nvr : 256;
        while (n <= v) n *= 2;
        struct an_vrun *x = realloc(r->vr, n * sizeof *x);
        if (!x) abort();
        memset(x + r->nvr, 0, (n - r->nvr) * sizeof *x);
        r->vr = x, r->nvr = n;
    }
    return &r->vr[v];
}

/* The vertex an MPI context's time goes to: the PSG MPI vertex, a dynamic
 * call site turned into an MPI vertex, or a dynamic MPI child. */
static uint32_t mpi_vertex(struct an_graph *g, uint32_t v, uint32_t op)
{
    struct an_vertex *x = &g->v[v];
    if (x->kind == PSG_MPI && (x->op == op || x->op == 0)) {
        x->op = op;
        return v;
    }
    if ((x->flags & AN_V_CALLSITE) && (x->op == 0 || x->op == op)) {
        x->kind = PSG_MPI;
        x->op = op;
        x->name = an_intern(&g->strings, an_mpi_name(op));
        return v;
    }
    int created;
    uint32_t id = an_graph_get(g, v, an_hash_str(an_mpi_name(op), 0x4d5049), &created);
    if (created) {
        struct an_vertex *m = &g->v[id], *p = &g->v[v];
        m->kind = PSG_MPI;
        m->flags = AN_V_DYNAMIC;
        m->op = op;
        m->name = an_intern(&g->strings, an_mpi_name(op));
        m->function = p->function, m->linkage = p->linkage;
        m->file = p->file;
        m->line = m->last_line = p->line;
        m->column = p->column;
        m->order = p->order;
    }
    return id;
}

void an_more_samples_advice(const struct an_run *r, char *out, size_t n)
{
    double got = r->obtained_hz > 0 ? r->obtained_hz : r->effective_hz > 0 ? r->effective_hz
                 : r->period_s > 0 ? 1 / r->period_s : 0;
    if (an_rate_capped(r))
        snprintf(out, n, "run longer or use SCALANA_SAMPLER=taskclock: the %s timer is capped at %.0f Hz "
                 "here (kernel tick %.3g ms; asked %.0f Hz), so a higher SCALANA_FREQ gives no more samples",
                 r->sampler[0] ? r->sampler : "cputime", r->effective_hz, r->resolution_s * 1e3, r->asked_hz);
    else
        snprintf(out, n, "run longer or raise SCALANA_FREQ (now %.0f Hz obtained)", got);
}

/* The rate rank d asked for and obtained (PRF_REC_SAMPLING; older
 * profiles: asked = 1 / period, nothing else known). */
static void an_run_add_rate(struct an_run *r, const struct prf_rank_data *d)
{
    if (!d->has_sampling) {
        if (!r->asked_hz && d->info.sample_period_ns) r->asked_hz = 1e9 / (double)d->info.sample_period_ns;
        return;
    }
    const struct prf_sampling *s = &d->sampling;
    if (s->sampler == PRF_SAMPLER_NONE) return;
    r->asked_hz = s->asked_hz;
    if (s->effective_period_ns) r->effective_hz = 1e9 / (double)s->effective_period_ns;
    r->resolution_s = s->resolution_ns * 1e-9;
    r->obtained_hz = (r->obtained_hz * r->rate_ranks + s->obtained_hz) / (r->rate_ranks + 1);
    r->rate_ranks++;
}

/* Rank `rank`'s MPI contexts (index li into the per-rank arrays) into their
 * vertices: time, calls, bytes, the shortest call, the communicator of a
 * collective.  ctx_v[k] gets context k's vertex (AN_NONE without a call
 * path); nv, the vertex of each CCT node, moves an MPI context's node to
 * its MPI vertex. */
static void add_mpi_contexts(struct an_run *r, struct an_graph *g, const struct prf_rank_data *d, uint32_t li,
                             uint32_t *nv, uint32_t *ctx_v)
{
    for (uint32_t k = 0; k < d->mpi_count; k++) {
        const struct prf_mpi_context *m = &d->mpi[k];
        ctx_v[k] = AN_NONE;
        if (m->node >= d->cct_count) continue;
        uint32_t v = mpi_vertex(g, nv[m->node], m->op);
        ctx_v[k] = v;
        nv[m->node] = v;
        struct an_vrun *x = an_run_vertex(r, v);
        if (!x->mpi) x->mpi = sc_xcalloc(r->slice_n, sizeof *x->mpi);
        x->mpi[li] += (float)(m->time_ns * 1e-9);
        if (!x->ncalls) x->ncalls = sc_xcalloc(r->slice_n, sizeof *x->ncalls);
        x->ncalls[li] += (float)m->calls;
        x->calls += (double)m->calls;
        x->bytes_sent += (double)m->bytes_sent;
        x->bytes_recv += (double)m->bytes_received;
        double mn = m->min_time_ns * 1e-9;
        if (m->calls && (x->min_call_s == 0 || mn < x->min_call_s)) x->min_call_s = mn;
        if (an_mpi_role(m->op) == AN_MPI_COLLECTIVE && m->comm_id) {
            if (!x->comm) x->comm = sc_xcalloc(r->slice_n, sizeof *x->comm);
            x->comm[li] = m->comm_id;
        }
    }
}

/* World rank `rank`'s samples (index li, sample period `period` seconds)
 * into the vertices of their nodes (nv): CPU time outside any wait; inside
 * MPI, GPU synchronisation or the OpenMP runtime, wait samples. */
static void add_samples(struct an_run *r, const struct prf_rank_data *d, uint32_t rank, uint32_t li,
                        const uint32_t *nv, double period)
{
    uint8_t *omp_node = an_omp_runtime_nodes(d);
    /* a process of several threads: the CPU time of each (threads.c) */
    uint32_t *thread_of = d->thread_count >= 2 ? an_cct_thread_index(d) : NULL;
    for (uint32_t k = 0; k < d->sample_count; k++) {
        const struct prf_sample *s = &d->samples[k];
        if (s->node >= d->cct_count) continue;
        struct an_vrun *x = an_run_vertex(r, nv[s->node]);
        r->signals += s->count;
        r->weight += s->weight;
        /* a thread interrupted inside the OpenMP runtime spins at a barrier
         * (libgomp and libomp spin before they sleep), waits for a lock or
         * schedules, also in the futex or sched_yield it called: a wait state,
         * never computation of the code around it */
        int in_omp = d->cct[s->node].kind == PRF_CCT_PC && omp_node[s->node];
        if (in_omp) {
            /* not cpu_wait: the spinning thread holds its core, which is what
             * contention (wall over CPU) must see */
            x->mpi_samples += (double)s->weight;
            r->omp_wait[rank] += s->weight * period;
        } else if (s->flags & (PRF_SAMPLE_IN_MPI | PRF_SAMPLE_IN_GPU_SYNC)) {
            x->mpi_samples += (double)s->weight;
            r->cpu_wait[rank] += s->weight * period;
        } else {
            if (!x->cpu) x->cpu = sc_xcalloc(r->slice_n, sizeof *x->cpu);
            x->cpu[li] += (float)(s->weight * period);
            x->samples += (double)s->weight;
            x->signals += (double)s->count;
            if (thread_of)
                an_run_add_thread_cpu(r, rank, thread_of[s->node], nv[s->node], s->weight * period,
                                      (double)s->count);
        }
    }
    free(omp_node), free(thread_of);
}

/* World rank `rank`'s GPU activities (index li) into the vertices of the
 * nodes that launched them (nv): device seconds, host seconds blocked. */
static void add_gpu(struct an_run *r, const struct prf_rank_data *d, uint32_t rank, uint32_t li, const uint32_t *nv)
{
    for (uint32_t k = 0; k < d->gpu_count; k++) {
        const struct prf_gpu_activity *ga = &d->gpu[k];
        if (ga->node >= d->cct_count) continue;
        struct an_vrun *x = an_run_vertex(r, nv[ga->node]);
        double t = ga->time_ns * 1e-9;
        if (ga->kind == PRF_GPU_SYNC) {
            x->gpu_sync_s += t; /* host blocked: wall time, neither CPU nor device work */
            r->gpu_sync[rank] += t;
            continue;
        }
        if (!x->gpu) x->gpu = sc_xcalloc(r->slice_n, sizeof *x->gpu);
        x->gpu[li] += (float)t;
        if (ga->kind == PRF_GPU_KERNEL) x->gpu_kernel_s += t;
        else x->gpu_copy_s += t;
    }
}

/* World rank `rank`'s point-to-point partner records, each attributed to
 * the vertex of its MPI context (ctx_v), appended to r->peers. */
static void add_peers(struct an_run *r, const struct prf_rank_data *d, uint32_t rank, const uint32_t *ctx_v)
{
    for (uint32_t k = 0; k < d->peer_count; k++) {
        const struct prf_peer *p = &d->peers[k];
        if (p->context >= d->mpi_count || ctx_v[p->context] == AN_NONE) continue;
        if (r->npeers == r->peers_cap) {
            r->peers_cap = r->peers_cap ? r->peers_cap * 2 : 1024;
            struct an_peer_rec *np = realloc(r->peers, r->peers_cap * sizeof *np);
            if (!np) abort();
            r->peers = np;
        }
        struct an_peer_rec *q = &r->peers[r->npeers++];
        q->rank = rank, q->vertex = ctx_v[p->context];
        q->peer = p->peer, q->tag = p->tag, q->flags = p->flags, q->comm = p->comm_id;
        q->op = d->mpi[p->context].op;
        q->count = p->count, q->bytes = p->bytes, q->time_ns = p->time_ns;
        q->last_count = p->last_count, q->last_wait_ns = p->last_wait_ns;
    }
}

/* A rank's user phases (index li) into the run's, by name: time inside,
 * times entered, the vertex where the phase began (nv). */
static void add_phases(struct an_run *r, struct an_graph *g, const struct prf_rank_data *d, uint32_t li,
                       const uint32_t *nv)
{
    for (uint32_t k = 0; k < d->phase_count; k++) {
        const struct prf_phase *ph = &d->phases[k];
        const char *name = an_intern(&g->strings, prf_string(d, ph->name));
        uint32_t j = 0;
        while (j < r->nphases && strcmp(r->phases[j].name, name) != 0) j++;
        if (j == r->nphases) {
            if (r->nphases >= 4096) continue; /* a corrupt profile's worth */
            struct an_phase_run *np = realloc(r->phases, (r->nphases + 1) * sizeof *np);
            if (!np) abort();
            r->phases = np;
            r->phases[j] = (struct an_phase_run){name, AN_NONE, sc_xcalloc(r->slice_n, sizeof(float)),
                                                 sc_xcalloc(r->slice_n, sizeof(float))};
            r->nphases++;
        }
        struct an_phase_run *q = &r->phases[j];
        if (q->vertex == AN_NONE && ph->node < d->cct_count) q->vertex = nv[ph->node];
        q->time[li] += (float)(ph->time_ns * 1e-9);
        q->count[li] += (float)ph->count;
    }
}

/* World rank `rank`'s run figures from its RANK_INFO (and its sampling
 * rate) into r.  Returns the rank's sample period in seconds. */
static double add_rank_info(struct an_run *r, const struct prf_rank_data *d, uint32_t rank)
{
    const struct prf_rank_info *in = &d->info;
    double period = in->sample_period_ns ? in->sample_period_ns * 1e-9 : r->period_s;
    if (!r->period_s) r->period_s = period;
    r->wall[rank] = in->wall_ns * 1e-9;
    r->cpu[rank] = (in->cpu_user_ns + in->cpu_system_ns) * 1e-9;
    r->mpi[rank] = in->mpi_time_ns * 1e-9;
    r->run_delay[rank] = in->flags & PRF_RANK_RUN_DELAY ? in->run_delay_ns * 1e-9 : NAN;
    r->ranks_on_host[rank] = in->ranks_on_host;
    r->usable_cores[rank] = in->usable_cores;
    r->samples += in->samples_weight;
    an_run_add_rate(r, d);
    r->dropped += in->samples_dropped;
    r->overruns += in->samples_overrun;
    r->cct_overflow += in->cct_overflow;
    r->vol_switches += in->voluntary_switches;
    r->invol_switches += in->involuntary_switches;
    return period;
}

int an_run_add_rank(struct an_run *r, struct an_attr_ctx *c, const struct prf_rank_data *d,
                    char *err, size_t errlen)
{
    uint32_t rank = d->info.world_rank;
    if (rank >= r->P) {
        snprintf(err, errlen, "rank %u outside the run's %u processes", rank, r->P);
        return -1;
    }
    if (r->present[rank]) {
        snprintf(err, errlen, "rank %u appears twice; the second copy is ignored", rank);
        return -1;
    }
    if (rank < r->slice_lo || rank - r->slice_lo >= r->slice_n) {
        /* a section whose rank is not the one the file's index gives it (parallel analysis) */
        snprintf(err, errlen, "rank %u outside this analyzer process's ranks %u-%u", rank, r->slice_lo,
                 r->slice_lo + r->slice_n - 1);
        return -1;
    }
    uint32_t li = rank - r->slice_lo; /* index into the per-vertex arrays */
    uint32_t *nv = malloc((d->cct_count + 1) * sizeof *nv);
    if (!nv) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    uint64_t unresolved = 0;
    if (an_attribute_rank(c, d, nv, &unresolved) != 0) {
        free(nv);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    r->present[rank] = 1;
    r->present_count++;
    r->unresolved += unresolved;
    double period = add_rank_info(r, d, rank);

    uint32_t *ctx_v = malloc((d->mpi_count + 1) * sizeof *ctx_v);
    if (!ctx_v) {
        free(nv);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    add_mpi_contexts(r, c->g, d, li, nv, ctx_v);
    add_samples(r, d, rank, li, nv, period);
    add_gpu(r, d, rank, li, nv);
    add_peers(r, d, rank, ctx_v);
    add_phases(r, c->g, d, li, nv);
    if (d->has_intervals)
        an_run_add_intervals(r, rank, d, ctx_v, period);
    an_run_add_work(r, rank, d);
    an_run_add_omp(r, c, rank, d, nv);
    free(ctx_v);
    free(nv);
    return 0;
}

/* ---- communication edges ---------------------------------------------------- */

static const struct an_run *sort_run;
static int by_key(const void *a, const void *b)
{
    const struct an_peer_rec *x = &sort_run->peers[*(const size_t *)a], *y = &sort_run->peers[*(const size_t *)b];
    int64_t xs = (x->flags & PRF_PEER_SEND) ? (int64_t)x->rank : (int64_t)x->peer, ys = (y->flags & PRF_PEER_SEND) ? (int64_t)y->rank : (int64_t)y->peer;
    int64_t xr = (x->flags & PRF_PEER_SEND) ? (int64_t)x->peer : (int64_t)x->rank, yr = (y->flags & PRF_PEER_SEND) ? (int64_t)y->peer : (int64_t)y->rank;
    if (xs != ys) return xs < ys ? -1 : 1;
    if (xr != yr) return xr < yr ? -1 : 1;
    if (x->comm != y->comm) return x->comm < y->comm ? -1 : 1;
    return 0;
}
static int by_rank(const void *a, const void *b)
{
    const struct an_peer_rec *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    if (x->vertex != y->vertex) return x->vertex < y->vertex ? -1 : 1;
    return 0;
}

/* Adds messages, bytes and rank pairs to the edge (sv, rv) of run r, appending it
 * when new (edges keep the order in which they were first seen). */
static void add_edge(struct an_run *r, uint32_t sv, uint32_t rv, uint64_t msgs, uint64_t bytes, uint32_t pairs)
{
    struct an_edge *e = NULL;
    for (size_t i = r->nedges; i-- > 0 && i + 64 >= r->nedges && !e;) /* recent edges first */
        if (r->edges[i].send_vertex == sv && r->edges[i].recv_vertex == rv) e = &r->edges[i];
    for (size_t i = 0; i < r->nedges && !e; i++)
        if (r->edges[i].send_vertex == sv && r->edges[i].recv_vertex == rv) e = &r->edges[i];
    if (e) {
        e->messages += msgs, e->bytes += bytes, e->pairs += pairs;
        return;
    }
    if (r->nedges == r->edges_cap) {
        r->edges_cap = r->edges_cap ? r->edges_cap * 2 : 64;
        r->edges = sc_xrealloc(r->edges, r->edges_cap * sizeof *r->edges);
    }
    r->edges[r->nedges++] = (struct an_edge){sv, rv, msgs, bytes, pairs};
}

void an_run_add_edges(struct an_run *r, const struct an_edge *e, size_t n)
{
    for (size_t i = 0; i < n; i++) add_edge(r, e[i].send_vertex, e[i].recv_vertex, e[i].messages, e[i].bytes, e[i].pairs);
}

void an_run_match_edges(struct an_run *r)
{
    size_t n = r->npeers;
    size_t *ix = malloc((n + 1) * sizeof *ix);
    if (!ix) abort();
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (r->peers[i].peer >= 0 && (r->peers[i].flags & (PRF_PEER_SEND | PRF_PEER_RECV))) ix[m++] = i;
        else if (r->peers[i].peer < 0) r->unmatched += r->peers[i].count;
    sort_run = r;
    qsort(ix, m, sizeof *ix, by_key);
    for (size_t a = 0; a < m;) {
        size_t b = a + 1;
        while (b < m && by_key(&ix[a], &ix[b]) == 0) b++;
        /* group [a, b): one (sender, receiver, comm) */
        uint64_t sent = 0, recvd = 0;
        for (size_t i = a; i < b; i++) {
            const struct an_peer_rec *p = &r->peers[ix[i]];
            if (p->flags & PRF_PEER_SEND) sent += p->count; else recvd += p->count;
        }
        for (size_t i = a; i < b; i++) {
            const struct an_peer_rec *s = &r->peers[ix[i]];
            if (!(s->flags & PRF_PEER_SEND)) continue;
            uint64_t tot = 0;
            for (size_t k = a; k < b; k++) {
                const struct an_peer_rec *q = &r->peers[ix[k]];
                if ((q->flags & PRF_PEER_RECV) && (q->tag == s->tag || q->tag < 0 || s->tag < 0)) tot += q->count;
            }
            for (size_t k = a; k < b && tot; k++) {
                const struct an_peer_rec *q = &r->peers[ix[k]];
                if (!(q->flags & PRF_PEER_RECV) || !(q->tag == s->tag || q->tag < 0 || s->tag < 0)) continue;
                double share = (double)q->count / (double)tot;
                add_edge(r, s->vertex, q->vertex, (uint64_t)llround(s->count * share), (uint64_t)llround(s->bytes * share), 1);
            }
        }
        r->unmatched += sent > recvd ? sent - recvd : recvd - sent;
        a = b;
    }
    free(ix);
}

void an_run_finish_slice(struct an_run *r, const struct an_graph *g)
{
    uint32_t L = r->slice_n, lo = r->slice_lo; /* the arrays hold world ranks lo .. lo + L - 1 */
    if (r->nvr < g->n) an_run_vertex(r, g->n ? g->n - 1 : 0);
    /* inclusive time: children have larger ids than their parents */
    for (uint32_t v = g->n; v-- > 0;) {
        struct an_vrun *x = &r->vr[v];
        if (!x->cpu && !x->mpi && !x->incl && !x->gpu && !x->igpu) continue;
        if (x->gpu) {
            if (!x->igpu) x->igpu = sc_xcalloc(L, sizeof *x->igpu);
            for (uint32_t i = 0; i < L; i++) x->igpu[i] += x->gpu[i];
        }
        if (x->igpu && g->v[v].parent != AN_NONE) {
            struct an_vrun *y = &r->vr[g->v[v].parent];
            if (!y->igpu) y->igpu = sc_xcalloc(L, sizeof *y->igpu);
            for (uint32_t i = 0; i < L; i++) y->igpu[i] += x->igpu[i];
        }
        if (!x->incl) x->incl = sc_xcalloc(L, sizeof *x->incl);
        for (uint32_t i = 0; i < L; i++) x->incl[i] += (float)an_vtime(x, i);
        if (x->cpu && !x->icpu) x->icpu = sc_xcalloc(L, sizeof *x->icpu);
        if (x->cpu)
            for (uint32_t i = 0; i < L; i++) x->icpu[i] += x->cpu[i];
        uint32_t p = g->v[v].parent;
        if (p == AN_NONE) continue;
        struct an_vrun *y = &r->vr[p];
        if (!y->incl) y->incl = sc_xcalloc(L, sizeof *y->incl);
        for (uint32_t i = 0; i < L; i++) y->incl[i] += x->incl[i];
        if (x->icpu) {
            if (!y->icpu) y->icpu = sc_xcalloc(L, sizeof *y->icpu);
            for (uint32_t i = 0; i < L; i++) y->icpu[i] += x->icpu[i];
        }
        y->samples_incl += x->samples_incl + x->samples;
        y->signals_incl += x->signals_incl + x->signals;
    }
    /* GPU device time per process: the sum of its vertices' (activity whose
     * launch was not seen, node PRF_NONE, is not attributed and not counted);
     * MPI_Init/Finalize per process: start-up waits, not load (contention) */
    for (uint32_t i = 0; i < L; i++) r->gpu_busy[lo + i] = 0;
    free(r->startup);
    r->startup = sc_xcalloc(r->P, sizeof *r->startup); /* kept: gpu_idle measures the run from MPI_Init's end */
    for (uint32_t v = 0; v < g->n; v++) {
        struct an_vrun *x = &r->vr[v];
        if (x->gpu)
            for (uint32_t i = 0; i < L; i++) r->gpu_busy[lo + i] += x->gpu[i];
        if (g->v[v].kind == PSG_MPI && an_mpi_is_init(g->v[v].op) && x->mpi)
            for (uint32_t i = 0; i < L; i++) r->startup[lo + i] += x->mpi[i];
        x->ranks = 0;
        if (x->incl)
            for (uint32_t i = 0; i < L; i++)
                if (x->incl[i] > 0) x->ranks++;
        x->has = (uint16_t)an_vrun_arrays(x);
        an_vstat_slice(r, x, &x->st);
    }
}

double an_rank_contention(const struct an_run *r, uint32_t i)
{
    double wout, cout;
    if (an_rank_outside_mpi(r, i, &wout, &cout) != 0) return NAN;
    double q = fmax(1, wout / cout);
    /* The CPU time sums every thread of the process: two busy threads that
     * each got half a core look uncontended.  The MPI_Init thread's run
     * delay (runnable, no core: the kernel's count, from MPI_Init's end to
     * the profile's write) says how much slower than a core of its own it
     * ran; it never counts sleep or blocking, so it can only be less than
     * the truth, and for a process of one busy thread it is wall / CPU again. */
    double w = r->wall[i] - (r->startup ? r->startup[i] : 0), rd = r->run_delay[i];
    if (isfinite(rd) && rd > 0 && w > rd) q = fmax(q, w / (w - rd));
    return q;
}

int an_rank_outside_mpi(const struct an_run *r, uint32_t i, double *wall_out, double *cpu_out)
{
    if (i >= r->P || !r->present[i] || r->cpu[i] <= 0) return -1;
    int kind = scalana_sampler_of_word(r->sampler, NULL);
    int cpu_sampler = !r->sampler[0] || (kind >= 0 && scalana_sampler_cpu_clock((uint32_t)kind));
    double per = an_signal_s(r); /* 20 signals, not 20 periods of weight */
    double startup = r->startup ? r->startup[i] : 0;
    double mpi_wall = r->mpi[i] > startup ? r->mpi[i] : startup;
    double wout = r->wall[i] - mpi_wall - r->gpu_sync[i];
    double cout = r->cpu[i] - (cpu_sampler ? r->cpu_wait[i] : 0);
    if (!(wout > 0 && cout >= 20 * per)) return -1;
    *wall_out = wout, *cpu_out = cout;
    return 0;
}

void an_run_finish_totals(struct an_run *r)
{
    an_run_finish_work(r);
    an_run_finish_thread_cpu(r);
    /* one signal's CPU seconds: periods per signal times the period */
    r->signal_s = r->signals && r->period_s > 0 ? (double)r->weight / (double)r->signals * r->period_s : 0;
    /* per-run totals */
    double ws = 0, cs = 0, ms = 0;
    r->oversub = 0;
    free(r->missing);
    r->missing = sc_xcalloc(r->P, sizeof *r->missing);
    r->nmissing = r->nunreadable = 0;
    for (uint32_t i = 0; i < r->P; i++) {
        if (!r->present[i]) {
            r->missing[r->nmissing++] = i;
            if (r->unreadable && r->unreadable[i]) r->nunreadable++;
            continue;
        }
        if (r->wall[i] > r->wall_max) r->wall_max = r->wall[i];
        ws += r->wall[i], cs += r->cpu[i], ms += r->mpi[i];
        if (r->usable_cores[i]) {
            double f = (double)r->ranks_on_host[i] / r->usable_cores[i];
            if (f > r->oversub) r->oversub = f;
        }
    }
    (void)ws;
    if (r->present_count) r->cpu_mean = cs / r->present_count, r->mpi_mean = ms / r->present_count;
    if (r->info.version && r->info.host_count) {
        /* run.json's hosts count the union of the ranks' affinity masks: prefer them
         * to the per-rank counts (a rank bound to one core says 1) */
        r->oversub = 0;
        for (uint32_t h = 0; h < r->info.host_count; h++) {
            const struct scalana_run_host *hh = &r->info.hosts[h];
            if (hh->usable_cores) {
                double f = (double)hh->rank_count / hh->usable_cores;
                if (f > r->oversub) r->oversub = f;
            }
        }
    }
    if (r->oversub == 0) r->oversub = 1;
    /* Contention: a process computing outside MPI wants the CPU all the time, so
     * on the best-served process (wall outside MPI and GPU waits) / (CPU there)
     * is how much slower than "a core per process" the machine let it compute.
     * Time inside MPI (collectives, waits: wall time, polling or blocked) and
     * host time blocked on the GPU are not load from other jobs and are left
     * out of both sides (CPU inside them: the samples flagged IN_MPI /
     * IN_GPU_SYNC with a CPU-time sampler).  A process with fewer than 20
     * sampling signals of CPU time outside MPI says too little; when no process
     * has enough, the whole wall (less MPI_Init/Finalize) over CPU is used. */
    double best = INFINITY, fallback = INFINITY;
    for (uint32_t i = 0; i < r->P; i++) {
        if (!r->present[i] || r->cpu[i] <= 0) continue;
        double w = r->wall[i] - r->startup[i];
        if (w > 0) fallback = fmin(fallback, fmax(1, w / r->cpu[i]));
        double q = an_rank_contention(r, i);
        if (isfinite(q)) best = fmin(best, q);
    }
    if (!isfinite(best)) best = fallback;
    r->contention = fmax(r->oversub, isfinite(best) ? best : 1);
    /* edges, then peers by rank (where the run's source holds them elsewhere,
     * they were matched where they were read: docs/parallel-analysis.md) */
    if (an_run_holds_ranks(r)) {
        an_run_match_edges(r);
        an_run_index_peers(r);
    }
}

void an_run_index_peers(struct an_run *r)
{
    if (r->npeers) qsort(r->peers, r->npeers, sizeof *r->peers, by_rank);
    free(r->peer_first);
    r->peer_first = sc_xcalloc(r->P + 1, sizeof *r->peer_first);
    size_t k = 0;
    for (uint32_t i = 0; i <= r->P; i++) {
        while (k < r->npeers && r->peers[k].rank < i) k++;
        r->peer_first[i] = k;
    }
}

void an_run_finish(struct an_run *r, const struct an_graph *g)
{
    an_run_finish_slice(r, g);
    an_run_finish_totals(r);
}

int an_run_matrix(const struct an_run *r, double **bytes, double **messages)
{
    size_t n = (size_t)r->P * r->P;
    *bytes = calloc(n ? n : 1, sizeof **bytes);
    *messages = calloc(n ? n : 1, sizeof **messages);
    if (!*bytes || !*messages) {
        free(*bytes), free(*messages);
        return -1;
    }
    for (uint32_t rank = 0; rank < r->P; rank++) {
        size_t np;
        const struct an_peer_rec *pr = an_run_peers_of(r, rank, &np);
        for (size_t i = 0; i < np; i++) {
            const struct an_peer_rec *p = &pr[i];
            if (!(p->flags & PRF_PEER_SEND) || p->peer < 0 || (uint32_t)p->peer >= r->P) continue;
            (*bytes)[(size_t)p->rank * r->P + (uint32_t)p->peer] += (double)p->bytes;
            (*messages)[(size_t)p->rank * r->P + (uint32_t)p->peer] += (double)p->count;
        }
    }
    return 0;
}
