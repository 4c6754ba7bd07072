/* par_combine.c — the exchange of the parallel analyzer (par.h): every
 * analyzer process but 0 sends process 0 what its slices of the runs
 * produced, one message for its vertex table and warnings, then one per run
 * (per rank of its slice the figures an_run_add_rank accumulated, the run's
 * sums), and process 0 merges them, process by process in rank order, into
 * its own analysis.  Slices are contiguous and ascending, so merging in rank order
 * appends vertices, peers, phases and intervals in the order a serial read
 * meets them; sums over ranks are added in another order (floating-point
 * rounding only).  Format: native byte order, both ends are the same build. */
#include "analyzer.h"
#include "par.h"
#include "par_mpi.h"

#include <stdlib.h>
#include <string.h>

struct wbuf { char *p; uint64_t n, cap; };
struct rbuf { const char *p; uint64_t n, off; int bad; };

static void put(struct wbuf *b, const void *x, size_t n)
{
    if (b->n + n > b->cap) {
        uint64_t c = b->cap ? b->cap : 1 << 16;
        while (c < b->n + n) c *= 2;
        b->p = sc_xrealloc(b->p, c), b->cap = c;
    }
    memcpy(b->p + b->n, x, n);
    b->n += n;
}
static void put_u32(struct wbuf *b, uint32_t v) { put(b, &v, sizeof v); }
static void put_u64(struct wbuf *b, uint64_t v) { put(b, &v, sizeof v); }
static void put_f64(struct wbuf *b, double v) { put(b, &v, sizeof v); }
static void put_str(struct wbuf *b, const char *s)
{
    uint32_t n = s ? (uint32_t)strlen(s) : 0;
    put_u32(b, n);
    put(b, s ? s : "", n);
}

static void get(struct rbuf *b, void *x, size_t n)
{
    if (b->bad || b->off + n > b->n) {
        b->bad = 1;
        memset(x, 0, n);
        return;
    }
    memcpy(x, b->p + b->off, n);
    b->off += n;
}
static uint32_t get_u32(struct rbuf *b) { uint32_t v; get(b, &v, sizeof v); return v; }
static uint64_t get_u64(struct rbuf *b) { uint64_t v; get(b, &v, sizeof v); return v; }
static double get_f64(struct rbuf *b) { double v; get(b, &v, sizeof v); return v; }
/* A string interned in pool. */
static const char *get_str(struct rbuf *b, struct an_strpool *pool)
{
    uint32_t n = get_u32(b);
    if (b->bad || b->off + n > b->n) {
        b->bad = 1;
        return "";
    }
    char *s = sc_xmalloc((size_t)n + 1);
    memcpy(s, b->p + b->off, n);
    s[n] = 0;
    b->off += n;
    const char *r = an_intern(pool, s);
    free(s);
    return r;
}

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

enum { M_CPU = 1, M_MPI = 2, M_NCALLS = 4, M_GPU = 8, M_COMM = 16 };

static int vrun_used(const struct an_vrun *x)
{
    return x->cpu || x->mpi || x->ncalls || x->gpu || x->comm || x->samples || x->mpi_samples || x->signals ||
           x->calls || x->gpu_sync_s || x->gpu_kernel_s || x->gpu_copy_s;
}

/* One run's part read by this process: its ranks' figures and its sums. */
static void put_run(struct wbuf *b, const struct an_run *r)
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
        double d[] = {r->wall[k], r->cpu[k], r->mpi[k], r->cpu_wait[k], r->gpu_sync[k]};
        put(b, d, sizeof d);
        put_u32(b, r->ranks_on_host[k]), put_u32(b, r->usable_cores[k]);
    }
    uint32_t nu = 0;
    for (uint32_t i = 0; i < r->P; i++) nu += r->unreadable && r->unreadable[i];
    put_u32(b, nu);
    for (uint32_t i = 0; i < r->P && nu; i++)
        if (r->unreadable[i]) put_u32(b, i), put(b, &r->unreadable[i], 1);
    /* vertex records */
    uint32_t nv = 0;
    for (uint32_t v = 0; v < r->nvr; v++) nv += vrun_used(&r->vr[v]);
    put_u32(b, nv);
    for (uint32_t v = 0; v < r->nvr; v++) {
        const struct an_vrun *x = &r->vr[v];
        if (!vrun_used(x)) continue;
        uint32_t mask = (x->cpu ? M_CPU : 0) | (x->mpi ? M_MPI : 0) | (x->ncalls ? M_NCALLS : 0) |
                        (x->gpu ? M_GPU : 0) | (x->comm ? M_COMM : 0);
        put_u32(b, v), put_u32(b, mask);
        double d[] = {x->samples, x->mpi_samples, x->signals, x->calls, x->bytes_sent, x->bytes_recv,
                      x->gpu_kernel_s, x->gpu_copy_s, x->gpu_sync_s, x->min_call_s};
        put(b, d, sizeof d);
        if (x->cpu) put_ranks_f32(b, x->cpu, r->slice_lo, ranks, n);
        if (x->mpi) put_ranks_f32(b, x->mpi, r->slice_lo, ranks, n);
        if (x->ncalls) put_ranks_f32(b, x->ncalls, r->slice_lo, ranks, n);
        if (x->gpu) put_ranks_f32(b, x->gpu, r->slice_lo, ranks, n);
        if (x->comm)
            for (uint32_t i = 0; i < n; i++) put_u64(b, x->comm[ranks[i] - r->slice_lo]);
    }
    put_u64(b, r->npeers);
    put(b, r->peers, r->npeers * sizeof *r->peers);
    put_u32(b, r->nphases);
    for (uint32_t k = 0; k < r->nphases; k++) {
        put_str(b, r->phases[k].name);
        put_u32(b, r->phases[k].vertex);
        put_ranks_f32(b, r->phases[k].time, r->slice_lo, ranks, n);
        put_ranks_f32(b, r->phases[k].count, r->slice_lo, ranks, n);
    }
    put_u32(b, r->nintervals);
    for (uint32_t k = 0; k < r->nintervals; k++) {
        const struct an_interval *x = &r->intervals[k];
        put_u32(b, x->prev_vertex), put_u32(b, x->next_vertex), put_u32(b, (uint32_t)x->cpu_exact);
        const float *arr[] = {x->count, x->wall, x->wall_min, x->wall_max, x->wall_sq, x->cpu};
        for (int j = 0; j < 6; j++) put_ranks_f32(b, arr[j], r->slice_lo, ranks, n);
    }
    free(ranks);
}

/* The first message: ready (this process found a run to read), its
 * vertices, warnings and the number of runs; one message per run follows
 * (put_run). */
static void put_header(struct wbuf *b, const struct an_analysis *a, int ready)
{
    put_u32(b, (uint32_t)ready);
    put_u32(b, a->g.n);
    for (uint32_t i = 0; i < a->g.n; i++) {
        const struct an_vertex *v = &a->g.v[i];
        put_u32(b, v->parent);
        uint32_t small[] = {v->kind, v->flags, v->op, v->line, v->last_line, v->column, (uint32_t)v->psg_unit,
                            v->psg_index};
        put(b, small, sizeof small);
        put_u64(b, v->key), put_u64(b, v->order), put_u64(b, v->psg_stable_id);
        put_str(b, v->name), put_str(b, v->function), put_str(b, v->file), put_str(b, v->linkage);
    }
    put_u32(b, a->nwarnings);
    for (uint32_t i = 0; i < a->nwarnings; i++) put_str(b, a->warnings[i]);
    put_u32(b, a->nruns);
}

static uint32_t remap(const uint32_t *map, uint32_t nmap, uint32_t v)
{
    return v == AN_NONE || v >= nmap ? AN_NONE : map[v];
}

/* Merges one process's part of run r; map turns its vertex ids into ours. */
static void merge_run(struct rbuf *b, struct an_run *r, struct an_strpool *pool, const uint32_t *map, uint32_t nmap)
{
    uint32_t bad = get_u32(b), P = get_u32(b);
    if (bad) r->bad = 1;
    if (!P) return;
    if (P != r->P || r->slice_lo != 0 || r->slice_n != P) {
        b->bad = 1; /* the processes disagree on the run's world size: cannot happen with the same files */
        return;
    }
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
    uint32_t n = get_u32(b);
    if (b->bad || (uint64_t)n > P) {
        b->bad = 1;
        return;
    }
    uint32_t *ranks = sc_xmalloc(((size_t)n + 1) * sizeof *ranks);
    get(b, ranks, (size_t)n * sizeof *ranks);
    for (uint32_t i = 0; i < n && !b->bad; i++)
        if (ranks[i] >= P) b->bad = 1;
    for (uint32_t i = 0; i < n && !b->bad; i++) {
        uint32_t k = ranks[i];
        double d[5];
        get(b, d, sizeof d);
        r->present[k] = 1;
        r->wall[k] = d[0], r->cpu[k] = d[1], r->mpi[k] = d[2], r->cpu_wait[k] = d[3], r->gpu_sync[k] = d[4];
        r->ranks_on_host[k] = get_u32(b), r->usable_cores[k] = get_u32(b);
    }
    uint32_t nu = get_u32(b);
    for (uint32_t i = 0; i < nu && !b->bad; i++) {
        uint32_t k = get_u32(b);
        uint8_t u;
        get(b, &u, 1);
        if (k < P && r->unreadable && u > r->unreadable[k]) r->unreadable[k] = u;
    }
    uint32_t nv = get_u32(b);
    for (uint32_t q = 0; q < nv && !b->bad; q++) {
        uint32_t v = remap(map, nmap, get_u32(b)), mask = get_u32(b);
        double d[10];
        get(b, d, sizeof d);
        if (v == AN_NONE) {
            b->bad = 1;
            break;
        }
        struct an_vrun *x = an_run_vertex(r, v);
        x->samples += d[0], x->mpi_samples += d[1], x->signals += d[2], x->calls += d[3];
        x->bytes_sent += d[4], x->bytes_recv += d[5], x->gpu_kernel_s += d[6], x->gpu_copy_s += d[7];
        x->gpu_sync_s += d[8];
        if (d[9] > 0 && (x->min_call_s == 0 || d[9] < x->min_call_s)) x->min_call_s = d[9];
        float **arr[] = {&x->cpu, &x->mpi, &x->ncalls, &x->gpu};
        for (int j = 0; j < 4; j++) {
            if (!(mask & (1u << j))) continue;
            if (!*arr[j]) *arr[j] = sc_xcalloc(P, sizeof(float));
            get_ranks_f32(b, *arr[j], ranks, n);
        }
        if (mask & M_COMM) {
            if (!x->comm) x->comm = sc_xcalloc(P, sizeof *x->comm);
            for (uint32_t i = 0; i < n; i++) x->comm[ranks[i]] = get_u64(b);
        }
    }
    uint64_t np = get_u64(b);
    if (b->bad || np > (b->n - b->off) / sizeof *r->peers) {
        b->bad = 1;
        free(ranks);
        return;
    }
    if (np) {
        r->peers = sc_xrealloc(r->peers, (r->npeers + np) * sizeof *r->peers);
        get(b, r->peers + r->npeers, np * sizeof *r->peers);
        for (uint64_t i = 0; i < np; i++) r->peers[r->npeers + i].vertex = remap(map, nmap, r->peers[r->npeers + i].vertex);
        r->npeers += np, r->peers_cap = r->npeers;
    }
    uint32_t nph = get_u32(b);
    for (uint32_t q = 0; q < nph && !b->bad; q++) {
        const char *name = get_str(b, pool);
        uint32_t v = remap(map, nmap, get_u32(b));
        uint32_t j = 0;
        while (j < r->nphases && strcmp(r->phases[j].name, name) != 0) j++;
        if (j == r->nphases) {
            r->phases = sc_xrealloc(r->phases, (r->nphases + 1) * sizeof *r->phases);
            r->phases[j] = (struct an_phase_run){name, AN_NONE, sc_xcalloc(P, sizeof(float)), sc_xcalloc(P, sizeof(float))};
            r->nphases++;
        }
        if (r->phases[j].vertex == AN_NONE) r->phases[j].vertex = v;
        get_ranks_f32(b, r->phases[j].time, ranks, n);
        get_ranks_f32(b, r->phases[j].count, ranks, n);
    }
    uint32_t ni = get_u32(b);
    for (uint32_t q = 0; q < ni && !b->bad; q++) {
        uint32_t pv = get_u32(b), nx = get_u32(b), exact = get_u32(b);
        struct an_interval *x = an_run_interval(r, remap(map, nmap, pv), remap(map, nmap, nx));
        if (!exact) x->cpu_exact = 0;
        float *arr[] = {x->count, x->wall, x->wall_min, x->wall_max, x->wall_sq, x->cpu};
        for (int j = 0; j < 6; j++) get_ranks_f32(b, arr[j], ranks, n);
    }
    free(ranks);
}

/* Merges one process's first message into a (ready: ours found a run to
 * read): its vertices into our table, *map (malloc'ed, *nmap entries) from
 * its vertex ids to ours, its warnings.  Returns 0, or -1 when the message
 * is short or inconsistent with ours. */
static int merge_header(struct an_analysis *a, int ready, const char *p, uint64_t n, uint32_t **mapp, uint32_t *nmap)
{
    struct rbuf b = {p, n, 0, 0};
    struct an_graph *g = &a->g;
    if (get_u32(&b) != (uint32_t)ready) return -1; /* one found the runs, the other not */
    if (!ready) return 0;
    uint32_t nv = get_u32(&b);
    if (b.bad || nv > n / 8) return -1;
    uint32_t *map = sc_xmalloc(((size_t)nv + 1) * sizeof *map);
    for (uint32_t i = 0; i < nv && !b.bad; i++) {
        uint32_t parent = get_u32(&b), small[8];
        get(&b, small, sizeof small);
        uint64_t key = get_u64(&b), order = get_u64(&b), stable = get_u64(&b);
        const char *name = get_str(&b, &g->strings), *function = get_str(&b, &g->strings);
        const char *file = get_str(&b, &g->strings), *linkage = get_str(&b, &g->strings);
        if (parent != AN_NONE && parent >= i) { /* parents are created before their children */
            b.bad = 1;
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
    uint32_t nw = get_u32(&b);
    for (uint32_t i = 0; i < nw && !b.bad; i++) an_warn(a, "%s", get_str(&b, &g->strings));
    if (get_u32(&b) != a->nruns) b.bad = 1;
    *mapp = map, *nmap = nv;
    return b.bad || b.off != b.n ? -1 : 0;
}

static void send_or_abort(const struct an_mpi_ops *ops, struct wbuf *b, int me)
{
    if (ops->send(0, b->p, b->n) != 0) {
        fprintf(stderr, "scalana-analyze: error: analyzer process %d: cannot send its part to process 0\n", me);
        ops->abort(1);
    }
    free(b->p);
    memset(b, 0, sizeof *b);
}

/* Receives the next message of process k and merges it: the header when
 * run is NULL (*map set), else its part of run.  Aborts the job on failure. */
static void recv_merge(const struct an_mpi_ops *ops, struct an_analysis *a, int ready, int k, struct an_run *run,
                       uint32_t **map, uint32_t *nmap)
{
    void *p = NULL;
    uint64_t n = 0;
    int rc = ops->recv(k, &p, &n);
    if (rc == 0 && !run) {
        rc = merge_header(a, ready, p, n, map, nmap);
    } else if (rc == 0) {
        struct rbuf b = {p, n, 0, 0};
        merge_run(&b, run, &a->g.strings, *map, *nmap);
        rc = b.bad || b.off != b.n ? -1 : 0;
    }
    if (rc != 0) {
        if (p)
            fprintf(stderr, "scalana-analyze: error: analyzer process %d did not find the runs process 0 found "
                            "(other run directories, world sizes or executable): every analyzer process must "
                            "see the same run directories (a shared file system)\n", k);
        else
            fprintf(stderr, "scalana-analyze: error: the part of analyzer process %d could not be received\n", k);
        ops->abort(1);
    }
    free(p);
}

void an_par_combine(struct an_analysis *a, int ready)
{
    const struct an_mpi_ops *ops = an_par_ops();
    int N = an_par_size(), me = an_par_rank();
    free(a->peak_rss);
    a->nprocs = (uint32_t)N;
    a->peak_rss = sc_xcalloc((size_t)N, sizeof *a->peak_rss);
    if (N <= 1 || !ops) {
        a->peak_rss[0] = an_peak_rss_bytes();
        return;
    }
    if (me != 0) {
        /* one message per run, each run freed once sent: the peak is the state plus one run's message */
        struct wbuf b = {0};
        put_header(&b, a, ready);
        send_or_abort(ops, &b, me);
        for (uint32_t j = 0; ready && j < a->nruns; j++) {
            put_run(&b, &a->runs[j]);
            send_or_abort(ops, &b, me);
            an_run_free(&a->runs[j]);
        }
    } else {
        for (int k = 1; k < N; k++) {
            uint32_t *map = NULL, nmap = 0;
            recv_merge(ops, a, ready, k, NULL, &map, &nmap);
            for (uint32_t j = 0; ready && j < a->nruns; j++) recv_merge(ops, a, ready, k, &a->runs[j], &map, &nmap);
            free(map);
        }
    }
    if (ops->gather_u64(an_peak_rss_bytes(), a->peak_rss) != 0) ops->abort(1);
}
