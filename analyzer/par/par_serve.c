/* par_serve.c — the parallel source of a run's per-rank data (run_source.h):
 * process 0 of a parallel analysis asks, the others answer (par.h).  After
 * an_par_combine, process 0 holds every run's per-rank run figures and
 * every vertex's statistics, but the per-rank vertex arrays (vertices x
 * ranks) stay with the process that read each rank.  What the detectors and
 * the report need of them process 0's source asks for: the arrays of one
 * vertex (an_vr fetches a vertex the first time it is used, so only the
 * vertices the detectors look at come whole to process 0), the partner
 * records of a rank, the per-rank interval sums before or after an MPI
 * vertex, a site's figures, and the robust outliers of the inclusive time,
 * computed together with exact order statistics.  A request goes to every
 * other process; each answers about its slice of the ranks, and process 0
 * answers its own from the run of its slice (par_run.own) with the same
 * code.  Format: native byte order (par_buf.h). */
#include "core/types.h"
#include "models/stats.h"
#include "ppg/intervals.h"
#include "ppg/ppg.h"
#include "ppg/run_source.h"
#include "ppg/vstat.h"
#include "sc_alloc.h"
#include "par.h"
#include "par_buf.h"
#include "par_mpi.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { REQ_FETCH = 1, REQ_INTERVALS, REQ_SORT, REQ_COUNT, REQ_ABSDEV, REQ_OUTLIERS, REQ_SITE, REQ_PEERS, REQ_DONE };

/* ---- answers: about the ranks a slice run holds ----------------------------- */

static void answer_fetch(const struct an_run *r, uint32_t v, struct wbuf *o)
{
    static const struct an_vrun none;
    const struct an_vrun *x = v < r->nvr ? &r->vr[v] : &none;
    uint32_t L = r->slice_n;
    put_u32(o, r->slice_lo), put_u32(o, L);
    const float *f[] = {x->cpu, x->mpi, x->ncalls, x->gpu, x->incl, x->icpu, x->igpu};
    uint32_t mask = 0;
    for (int k = 0; k < 7; k++) mask |= f[k] ? 1u << k : 0;
    if (x->comm) mask |= 1u << 7;
    put_u32(o, mask);
    for (int k = 0; k < 7; k++)
        if (f[k]) put(o, f[k], (size_t)L * sizeof(float));
    if (x->comm) put(o, x->comm, (size_t)L * sizeof *x->comm);
    uint32_t ni = 0;
    for (uint32_t k = 0; k < r->nintervals; k++) ni += r->intervals[k].next_vertex == v;
    put_u32(o, ni);
    for (uint32_t k = 0; k < r->nintervals; k++) {
        const struct an_interval *q = &r->intervals[k];
        if (q->next_vertex != v) continue;
        put_u32(o, q->prev_vertex), put_u32(o, (uint32_t)q->cpu_exact);
        const float *arr[] = {q->count, q->wall, q->wall_min, q->wall_max, q->wall_sq, q->cpu};
        for (int j = 0; j < 6; j++) put(o, arr[j], (size_t)L * sizeof(float));
    }
}

/* The order-preserving key of a float's bit pattern (negative values
 * reversed below the positive ones): keys compare as the values do. */
static uint32_t float_key(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
static float key_float(uint32_t k)
{
    uint32_t u = (k & 0x80000000u) ? (k & 0x7fffffffu) : ~k;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* The inclusive times of one run's slice sorted per vertex (REQ_SORT),
 * kept for the counting rounds of the selection. */
static struct sorted {
    uint32_t run, nv, L;
    float **x; /* [nv] sorted values, NULL: all zero */
} cache = {UINT32_MAX, 0, 0, NULL};

static void cache_free(void)
{
    for (uint32_t v = 0; v < cache.nv; v++) free(cache.x[v]);
    free(cache.x);
    cache = (struct sorted){UINT32_MAX, 0, 0, NULL};
}

static int by_key(const void *a, const void *b)
{
    uint32_t x = float_key(*(const float *)a), y = float_key(*(const float *)b);
    return x < y ? -1 : x > y;
}

static void answer_sort(const struct an_run *r, uint32_t j)
{
    cache_free();
    cache.run = j, cache.nv = r->nvr, cache.L = r->slice_n;
    cache.x = sc_xcalloc((size_t)r->nvr + 1, sizeof *cache.x);
    for (uint32_t v = 0; v < r->nvr; v++) {
        if (!r->vr[v].incl) continue;
        cache.x[v] = sc_xmalloc(((size_t)r->slice_n + 1) * sizeof(float));
        memcpy(cache.x[v], r->vr[v].incl, (size_t)r->slice_n * sizeof(float));
        qsort(cache.x[v], r->slice_n, sizeof(float), by_key);
    }
}

/* Values of vertex v's slice with key <= k. */
static uint64_t count_le(uint32_t v, uint32_t k)
{
    const float *x = v < cache.nv ? cache.x[v] : NULL;
    if (!x) return float_key(0.0f) <= k ? cache.L : 0;
    uint32_t lo = 0, hi = cache.L; /* first index with key > k */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (float_key(x[mid]) <= k) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Values x of vertex v's slice with fabs(x - med) <= d: the values at or
 * above med form a suffix of the sorted slice on which the deviation grows,
 * those below a prefix on which it shrinks. */
static uint64_t count_dev_le(uint32_t v, double med, double d)
{
    const float *x = v < cache.nv ? cache.x[v] : NULL;
    if (!x) return fabs(0.0 - med) <= d ? cache.L : 0;
    uint32_t lo = 0, hi = cache.L, p;
    while (lo < hi) { /* p: first index with x >= med */
        uint32_t mid = lo + (hi - lo) / 2;
        if ((double)x[mid] >= med) hi = mid;
        else lo = mid + 1;
    }
    p = lo;
    uint32_t a = p, b = cache.L; /* first index at or above p with a deviation > d */
    while (a < b) {
        uint32_t mid = a + (b - a) / 2;
        if (fabs((double)x[mid] - med) <= d) a = mid + 1;
        else b = mid;
    }
    uint64_t above = a - p;
    a = 0, b = p; /* first index below p with a deviation <= d */
    while (a < b) {
        uint32_t mid = a + (b - a) / 2;
        if (fabs((double)x[mid] - med) <= d) b = mid;
        else a = mid + 1;
    }
    return above + (p - a);
}

static void answer_count(struct rbuf *q, struct wbuf *o)
{
    uint32_t stage = get_u32(q), m = get_u32(q);
    if (!fits(q, m, 12)) return;
    for (uint32_t i = 0; i < m && !q->bad; i++) {
        uint32_t v = get_u32(q);
        uint64_t key = get_u64(q);
        if (stage == 0) {
            put_u64(o, count_le(v, (uint32_t)key));
        } else {
            double med = get_f64(q), d;
            memcpy(&d, &key, sizeof d);
            put_u64(o, count_dev_le(v, med, d));
        }
    }
}

static void answer_absdev(const struct an_run *r, struct rbuf *q, struct wbuf *o)
{
    uint32_t m = get_u32(q);
    if (!fits(q, m, 12)) return;
    for (uint32_t i = 0; i < m && !q->bad; i++) {
        uint32_t v = get_u32(q);
        double med = get_f64(q), s = 0;
        const float *x = v < r->nvr ? r->vr[v].incl : NULL;
        for (uint32_t k = 0; k < r->slice_n; k++) s += fabs((x ? (double)x[k] : 0.0) - med);
        put_f64(o, s);
    }
}

static void answer_outliers(const struct an_run *r, struct rbuf *q, struct wbuf *o)
{
    double threshold = get_f64(q);
    uint32_t m = get_u32(q);
    if (!fits(q, m, 20)) return;
    for (uint32_t i = 0; i < m && !q->bad; i++) {
        uint32_t v = get_u32(q);
        double med = get_f64(q), scale = get_f64(q);
        const float *x = v < r->nvr ? r->vr[v].incl : NULL;
        uint32_t found = 0, idx[16];
        for (uint32_t k = 0; k < r->slice_n; k++) {
            double val = x ? (double)x[k] : 0.0;
            if (scalana_robust_is_outlier(val, med, scale, threshold, SCALANA_OUTLIER_HIGH, NULL)) {
                if (found < 16) idx[found] = r->slice_lo + k;
                found++;
            }
        }
        put_u32(o, found);
        put(o, idx, (size_t)(found < 16 ? found : 16) * sizeof *idx);
    }
}

static void answer_intervals(const struct an_run *r, struct rbuf *q, struct wbuf *o)
{
    uint32_t v = get_u32(q), want_next = get_u32(q), want_cpu = get_u32(q);
    double *out = sc_xcalloc((size_t)r->slice_n + 1, sizeof *out);
    an_interval_sum_slice(r, v, (int)want_next, (int)want_cpu, out);
    put_u32(o, r->slice_lo), put_u32(o, r->slice_n);
    put(o, out, (size_t)r->slice_n * sizeof *out);
    free(out);
}

static void answer_site(const struct an_run *r, struct rbuf *q, struct wbuf *o)
{
    uint32_t nv = get_u32(q);
    if (!fits(q, nv, sizeof(uint32_t))) return;
    uint32_t *v = sc_xmalloc(((size_t)nv + 1) * sizeof *v);
    get(q, v, (size_t)nv * sizeof *v);
    struct an_site_figures f;
    an_site_figures_slice(r, v, nv, &f);
    put(o, &f, sizeof f);
    free(v);
}

/* The partner records of one rank, from the process whose slice holds it
 * (the others answer none). */
static void answer_peers(const struct an_run *r, struct rbuf *q, struct wbuf *o)
{
    uint32_t rank = get_u32(q);
    size_t n = 0;
    const struct an_peer_rec *p = NULL;
    if (rank >= r->slice_lo && rank - r->slice_lo < r->slice_n) p = an_run_peers_of(r, rank, &n);
    put_u64(o, n);
    put(o, p, n * sizeof *p);
}

/* One request about slice run r (run j) into the answer o. */
static void answer(const struct an_run *r, uint32_t j, uint32_t type, struct rbuf *q, struct wbuf *o)
{
    switch (type) {
    case REQ_FETCH: answer_fetch(r, get_u32(q), o); break;
    case REQ_INTERVALS: answer_intervals(r, q, o); break;
    case REQ_SORT: answer_sort(r, j); break;
    case REQ_COUNT: answer_count(q, o); break;
    case REQ_ABSDEV: answer_absdev(r, q, o); break;
    case REQ_OUTLIERS: answer_outliers(r, q, o); break;
    case REQ_SITE: answer_site(r, q, o); break;
    case REQ_PEERS: answer_peers(r, q, o); break;
    default: q->bad = 1;
    }
}

/* ---- process 0: asking ----------------------------------------------------- */

static uint32_t served_analysis; /* process 0: 1 while the others serve this analysis */

/* What the parallel source keeps of a whole run on process 0 (its
 * source_state): the fetch cache is its own. */
struct par_run {
    struct an_run *run;   /* the whole run: its vertex records and intervals receive what is fetched */
    struct an_run *own;   /* the run of process 0's own slice */
    uint32_t index;       /* the run's place in an_analysis.runs, the same on every process */
    uint8_t *fetched;     /* [nfetched] 1: the vertex's arrays are in run->vr */
    uint32_t nfetched;
    struct an_peer_list { struct an_peer_rec *p; size_t n; uint8_t have; } *peers; /* [P] */
};

static struct par_run *state_of(const struct an_run *r) { return r->source_state; }

/* Sends request req (type, run, body) to every other process and answers it
 * for r's own slice; the answers in process order (ans[0] process 0's), each
 * to be freed.  Aborts the job when an answer does not come. */
static void ask(const struct an_run *r, struct wbuf *req, struct wbuf *ans)
{
    const struct an_mpi_ops *ops = an_par_ops();
    int N = an_par_size();
    for (int k = 1; k < N; k++)
        if (ops->send(k, req->p, req->n) != 0) {
            fprintf(stderr, "scalana-analyze: error: analyzer process 0: cannot send a request to process %d\n", k);
            ops->abort(1);
        }
    struct rbuf q = {req->p, req->n, 0, 0};
    uint32_t type = get_u32(&q), j = get_u32(&q);
    memset(&ans[0], 0, sizeof ans[0]);
    answer(state_of(r)->own, j, type, &q, &ans[0]);
    for (int k = 1; k < N; k++) {
        void *p = NULL;
        uint64_t n = 0;
        if (ops->recv(k, &p, &n) != 0) {
            fprintf(stderr, "scalana-analyze: error: analyzer process %d did not answer process 0\n", k);
            ops->abort(1);
        }
        ans[k] = (struct wbuf){p, n, n};
    }
    free(req->p);
    memset(req, 0, sizeof *req);
}

static void bad_answer(int k)
{
    fprintf(stderr, "scalana-analyze: error: analyzer process %d answered process 0 with a short message\n", k);
    an_par_ops()->abort(1);
}

/* Fetches vertex v's per-rank arrays (and the intervals that end at v) from
 * every process into the whole run's r->vr[v] (arrays of r->P entries, by
 * world rank).  Aborts the job when a process does not answer. */
static void fetch(struct par_run *s, uint32_t v)
{
    struct an_run *r = s->run;
    int N = an_par_size();
    struct an_vrun *x = &r->vr[v];
    if (v >= s->nfetched) {
        uint32_t n = s->nfetched ? s->nfetched : 256;
        while (n <= v) n *= 2;
        s->fetched = sc_xrealloc(s->fetched, n);
        memset(s->fetched + s->nfetched, 0, n - s->nfetched);
        s->nfetched = n;
    }
    s->fetched[v] = 1;
    if (!x->has) return; /* no rank has arrays: nothing to fetch */
    struct wbuf req = {0}, *ans = sc_xcalloc((size_t)N, sizeof *ans);
    put_u32(&req, REQ_FETCH), put_u32(&req, s->index), put_u32(&req, v);
    ask(r, &req, ans);
    float **f[] = {&x->cpu, &x->mpi, &x->ncalls, &x->gpu, &x->incl, &x->icpu, &x->igpu};
    for (int k = 0; k < N; k++) {
        struct rbuf b = {ans[k].p, ans[k].n, 0, 0};
        uint32_t lo = get_u32(&b), L = get_u32(&b), mask = get_u32(&b);
        if (b.bad || (uint64_t)lo + L > r->P) bad_answer(k);
        for (int q = 0; q < 7; q++) {
            if (!(mask & (1u << q))) continue;
            if (!*f[q]) *f[q] = sc_xcalloc(r->P, sizeof(float));
            get(&b, *f[q] + lo, (size_t)L * sizeof(float));
        }
        if (mask & (1u << 7)) {
            if (!x->comm) x->comm = sc_xcalloc(r->P, sizeof *x->comm);
            get(&b, x->comm + lo, (size_t)L * sizeof *x->comm);
        }
        uint32_t ni = get_u32(&b);
        for (uint32_t i = 0; i < ni && !b.bad; i++) {
            uint32_t prev = get_u32(&b), exact = get_u32(&b);
            struct an_interval *iv = an_run_interval(r, prev, v);
            if (!exact) iv->cpu_exact = 0;
            float *arr[] = {iv->count, iv->wall, iv->wall_min, iv->wall_max, iv->wall_sq, iv->cpu};
            for (int q = 0; q < 6; q++) get(&b, arr[q] + lo, (size_t)L * sizeof(float));
        }
        if (b.bad || b.off != b.n) bad_answer(k);
        free(ans[k].p);
    }
    free(ans);
}

static int fetched(const struct par_run *s, uint32_t v) { return v < s->nfetched && s->fetched[v]; }

static const struct an_vrun *par_vertex(const struct an_run *r, uint32_t v)
{
    struct par_run *s = state_of(r);
    if (!fetched(s, v)) fetch(s, v);
    return &r->vr[v];
}

static int par_has(const struct an_run *r, uint32_t v, unsigned has)
{
    const struct an_vrun *x = &r->vr[v];
    /* a vertex not fetched yet: what the processes that hold its ranks said */
    return ((fetched(state_of(r), v) ? an_vrun_arrays(x) : x->has) & has) != 0;
}

/* Forgets the partner records asked for (par_peers). */
static void peers_clear(struct par_run *s)
{
    for (uint32_t i = 0; s->peers && i < s->run->P; i++) {
        free(s->peers[i].p);
        s->peers[i] = (struct an_peer_list){NULL, 0, 0};
    }
}

static void par_release(const struct an_run *r)
{
    struct par_run *s = state_of(r);
    for (uint32_t v = 0; v < s->nfetched && v < s->run->nvr; v++) {
        if (!s->fetched[v]) continue;
        an_vrun_free_arrays(&s->run->vr[v]);
        s->fetched[v] = 0;
    }
    peers_clear(s);
}

/* out[P] = the per-rank sums of the intervals that end (want_next 1) or
 * start (0) at v, CPU (want_cpu 1) or wall seconds, from the processes that
 * hold the ranks. */
static void par_interval_sum(const struct an_run *r, uint32_t v, int want_next, int want_cpu, double *out)
{
    int N = an_par_size();
    struct wbuf req = {0}, *ans = sc_xcalloc((size_t)N, sizeof *ans);
    put_u32(&req, REQ_INTERVALS), put_u32(&req, state_of(r)->index);
    put_u32(&req, v), put_u32(&req, (uint32_t)want_next), put_u32(&req, (uint32_t)want_cpu);
    ask(r, &req, ans);
    for (int k = 0; k < N; k++) {
        struct rbuf b = {ans[k].p, ans[k].n, 0, 0};
        uint32_t lo = get_u32(&b), L = get_u32(&b);
        if (b.bad || (uint64_t)lo + L > r->P) bad_answer(k);
        get(&b, out + lo, (size_t)L * sizeof *out);
        if (b.bad || b.off != b.n) bad_answer(k);
        free(ans[k].p);
    }
    free(ans);
}

/* an_site_figures over every rank, combined from every process's
 * an_site_figures_slice (minima and sums). */
static void par_site_figures(const struct an_run *r, const uint32_t *v, uint32_t nv, struct an_site_figures *f)
{
    int N = an_par_size();
    struct wbuf req = {0}, *ans = sc_xcalloc((size_t)N, sizeof *ans);
    put_u32(&req, REQ_SITE), put_u32(&req, state_of(r)->index), put_u32(&req, nv);
    put(&req, v, (size_t)nv * sizeof *v);
    ask(r, &req, ans);
    *f = (struct an_site_figures){INFINITY, 1, 0, 0};
    for (int k = 0; k < N; k++) {
        struct rbuf b = {ans[k].p, ans[k].n, 0, 0};
        struct an_site_figures g;
        get(&b, &g, sizeof g);
        if (b.bad || b.off != b.n) bad_answer(k);
        f->fastest = fmin(f->fastest, g.fastest), f->share = fmin(f->share, g.share);
        f->sum_t += g.sum_t, f->n += g.n;
        free(ans[k].p);
    }
    free(ans);
}

/* The partner records of world rank `rank`, asked of the process that read
 * it and kept until par_release (*n of them). */
static const struct an_peer_rec *par_peers(const struct an_run *r, uint32_t rank, size_t *n)
{
    struct par_run *s = state_of(r);
    if (!s->peers) s->peers = sc_xcalloc(r->P, sizeof *s->peers);
    struct an_peer_list *c = &s->peers[rank];
    if (!c->have) {
        int N = an_par_size();
        struct wbuf req = {0}, *ans = sc_xcalloc((size_t)N, sizeof *ans);
        put_u32(&req, REQ_PEERS), put_u32(&req, s->index), put_u32(&req, rank);
        ask(r, &req, ans);
        for (int k = 0; k < N; k++) {
            struct rbuf b = {ans[k].p, ans[k].n, 0, 0};
            uint64_t m = get_u64(&b);
            if (!fits(&b, m, sizeof *c->p)) bad_answer(k);
            if (m) {
                c->p = sc_xrealloc(c->p, (c->n + m) * sizeof *c->p);
                get(&b, c->p + c->n, m * sizeof *c->p);
                c->n += m;
            }
            if (b.bad || b.off != b.n) bad_answer(k);
            free(ans[k].p);
        }
        free(ans);
        c->have = 1;
    }
    *n = c->n;
    return c->p;
}

/* Sums the u64 answers of a counting round into cnt[m]. */
static void count_round(const struct an_run *r, uint32_t stage, uint32_t m, const uint32_t *vs, const uint64_t *keys,
                        const double *med, uint64_t *cnt)
{
    int N = an_par_size();
    struct wbuf req = {0}, *ans = sc_xcalloc((size_t)N, sizeof *ans);
    put_u32(&req, REQ_COUNT), put_u32(&req, state_of(r)->index), put_u32(&req, stage), put_u32(&req, m);
    for (uint32_t i = 0; i < m; i++) {
        put_u32(&req, vs[i]), put_u64(&req, keys[i]);
        if (stage) put_f64(&req, med[i]);
    }
    ask(r, &req, ans);
    memset(cnt, 0, (size_t)m * sizeof *cnt);
    for (int k = 0; k < N; k++) {
        struct rbuf b = {ans[k].p, ans[k].n, 0, 0};
        for (uint32_t i = 0; i < m; i++) cnt[i] += get_u64(&b);
        if (b.bad || b.off != b.n) bad_answer(k);
        free(ans[k].p);
    }
    free(ans);
}

/* The order statistics want[i] (0-based) of the items: the smallest key
 * whose count of values at or below it exceeds want[i], found by bisection
 * over [0, top] (every item at once: one counting round per bit). */
static void select_keys(const struct an_run *r, uint32_t stage, uint32_t m, const uint32_t *vs, const uint64_t *want,
                        const double *med, uint64_t top, uint64_t *key)
{
    uint64_t *lo = sc_xcalloc((size_t)m + 1, sizeof *lo), *hi = sc_xcalloc((size_t)m + 1, sizeof *hi);
    uint64_t *mid = sc_xcalloc((size_t)m + 1, sizeof *mid), *cnt = sc_xcalloc((size_t)m + 1, sizeof *cnt);
    for (uint32_t i = 0; i < m; i++) lo[i] = 0, hi[i] = top;
    for (;;) {
        int open = 0;
        for (uint32_t i = 0; i < m; i++) {
            mid[i] = lo[i] + (hi[i] - lo[i]) / 2;
            open |= lo[i] < hi[i];
        }
        if (!open) break;
        count_round(r, stage, m, vs, mid, med, cnt);
        for (uint32_t i = 0; i < m; i++) {
            if (lo[i] >= hi[i]) continue;
            if (cnt[i] >= want[i] + 1) hi[i] = mid[i];
            else lo[i] = mid[i] + 1;
        }
    }
    memcpy(key, lo, (size_t)m * sizeof *key);
    free(lo), free(hi), free(mid), free(cnt);
}

/* The robust outliers of every vertex's inclusive time over the run's P
 * processes (scalana_robust_outliers with threshold, high side) computed by
 * the processes together, with exact medians and median absolute
 * deviations (distributed selection: bisection on the values' bit patterns,
 * counts summed over processes).  out[v * 17] gets the number found,
 * out[v * 17 + 1 ..] the first 16 world ranks, ascending, for v < nv;
 * vertices without inclusive time get 0. */
static void par_outliers(const struct an_run *r, uint32_t nv, double threshold, uint32_t *out)
{
    int N = an_par_size();
    memset(out, 0, (size_t)nv * 17 * sizeof *out);
    uint64_t P = r->P;
    if (P < 3) return;
    uint32_t *vs = sc_xcalloc((size_t)nv + 1, sizeof *vs), m = 0;
    for (uint32_t v = 0; v < nv; v++)
        if (an_vr_has(r, v, AN_HAS_INCL)) vs[m++] = v;
    if (!m) {
        free(vs);
        return;
    }
    struct wbuf req = {0}, *ans = sc_xcalloc((size_t)N, sizeof *ans);
    put_u32(&req, REQ_SORT), put_u32(&req, state_of(r)->index);
    ask(r, &req, ans);
    for (int k = 0; k < N; k++) free(ans[k].p);
    /* two order statistics per vertex: the upper and lower middle (n even) */
    uint32_t m2 = 2 * m;
    uint32_t *v2 = sc_xmalloc((size_t)m2 * sizeof *v2);
    uint64_t *want = sc_xmalloc((size_t)m2 * sizeof *want), *key = sc_xmalloc((size_t)m2 * sizeof *key);
    double *med = sc_xcalloc((size_t)m2, sizeof *med), *mad = sc_xcalloc((size_t)m, sizeof *mad);
    for (uint32_t i = 0; i < m; i++) {
        v2[2 * i] = v2[2 * i + 1] = vs[i];
        want[2 * i] = P / 2, want[2 * i + 1] = P % 2 ? P / 2 : P / 2 - 1;
    }
    /* the median of the values (floats: 32-bit keys) */
    select_keys(r, 0, m2, v2, want, NULL, UINT32_MAX, key);
    for (uint32_t i = 0; i < m; i++) {
        double hi = key_float((uint32_t)key[2 * i]), lo = key_float((uint32_t)key[2 * i + 1]);
        med[2 * i] = med[2 * i + 1] = P % 2 ? hi : 0.5 * (lo + hi);
    }
    /* the median of the absolute deviations (non-negative doubles: their bits are ordered keys) */
    uint64_t top;
    double inf = INFINITY;
    memcpy(&top, &inf, sizeof top);
    select_keys(r, 1, m2, v2, want, med, top, key);
    for (uint32_t i = 0; i < m; i++) {
        double hi, lo;
        memcpy(&hi, &key[2 * i], sizeof hi);
        memcpy(&lo, &key[2 * i + 1], sizeof lo);
        mad[i] = P % 2 ? hi : 0.5 * (lo + hi);
    }
    /* the scale of scalana_robust_outliers: the mean absolute deviation where the MAD is 0 */
    double *scale = sc_xcalloc((size_t)m, sizeof *scale), *mean_ad = sc_xcalloc((size_t)m, sizeof *mean_ad);
    uint32_t nz = 0;
    for (uint32_t i = 0; i < m; i++) nz += !(mad[i] > 0);
    if (nz) {
        put_u32(&req, REQ_ABSDEV), put_u32(&req, state_of(r)->index), put_u32(&req, m);
        for (uint32_t i = 0; i < m; i++) put_u32(&req, vs[i]), put_f64(&req, med[2 * i]);
        ask(r, &req, ans);
        double *sum = sc_xcalloc((size_t)m, sizeof *sum);
        for (int k = 0; k < N; k++) {
            struct rbuf b = {ans[k].p, ans[k].n, 0, 0};
            for (uint32_t i = 0; i < m; i++) sum[i] += get_f64(&b);
            if (b.bad || b.off != b.n) bad_answer(k);
            free(ans[k].p);
        }
        for (uint32_t i = 0; i < m; i++) mean_ad[i] = sum[i] / (double)P;
        free(sum);
    }
    for (uint32_t i = 0; i < m; i++) scale[i] = scalana_robust_scale(mad[i], mean_ad[i]);
    put_u32(&req, REQ_OUTLIERS), put_u32(&req, state_of(r)->index), put_f64(&req, threshold), put_u32(&req, m);
    for (uint32_t i = 0; i < m; i++) put_u32(&req, vs[i]), put_f64(&req, med[2 * i]), put_f64(&req, scale[i]);
    ask(r, &req, ans);
    for (int k = 0; k < N; k++) {
        struct rbuf b = {ans[k].p, ans[k].n, 0, 0};
        for (uint32_t i = 0; i < m && !b.bad; i++) {
            uint32_t *o = out + (size_t)vs[i] * 17;
            uint32_t found = get_u32(&b), idx[16];
            get(&b, idx, (size_t)(found < 16 ? found : 16) * sizeof *idx);
            for (uint32_t q = 0; q < found && q < 16 && o[0] + q < 16; q++) o[1 + o[0] + q] = idx[q];
            o[0] += found;
        }
        if (b.bad || b.off != b.n) bad_answer(k);
        free(ans[k].p);
    }
    free(ans), free(vs), free(v2), free(want), free(key), free(med), free(mad), free(scale), free(mean_ad);
}

/* ---- the source ------------------------------------------------------------- */

static void par_free(struct an_run *r)
{
    struct par_run *s = state_of(r);
    if (!s) return;
    if (s->own) an_run_free(s->own), free(s->own);
    peers_clear(s);
    free(s->peers), free(s->fetched), free(s);
}

static const struct an_run_source par_source = {
    .name = "parallel",
    .holds_ranks = 0,
    .vertex = par_vertex,
    .has = par_has,
    .release = par_release,
    .peers = par_peers,
    .interval_sum = par_interval_sum,
    .outliers = par_outliers,
    .site_figures = par_site_figures,
    .free = par_free,
};

const struct an_run *an_par_attach(struct an_run *G, struct an_run *own, uint32_t j)
{
    struct par_run *s = sc_xcalloc(1, sizeof *s);
    s->run = G, s->index = j;
    s->own = sc_xmalloc(sizeof *s->own);
    *s->own = *own;
    memset(own, 0, sizeof *own);
    G->source = &par_source, G->source_state = s;
    return s->own;
}

/* ---- the other processes: serving ------------------------------------------ */

void an_par_serve(struct an_analysis *a)
{
    const struct an_mpi_ops *ops = an_par_ops();
    int me = an_par_rank();
    if (an_par_size() <= 1 || !ops || me == 0) return;
    for (;;) {
        void *p = NULL;
        uint64_t n = 0;
        if (ops->recv(0, &p, &n) != 0) {
            fprintf(stderr, "scalana-analyze: error: analyzer process %d: no request from process 0\n", me);
            ops->abort(1);
        }
        struct rbuf q = {p, n, 0, 0};
        uint32_t type = get_u32(&q), j = get_u32(&q);
        struct wbuf o = {0};
        int done = type == REQ_DONE;
        if (done) {
            cache_free();
            put_u64(&o, an_peak_rss_bytes());
        } else if (j < a->nruns) {
            answer(&a->runs[j], j, type, &q, &o);
        } else {
            q.bad = 1;
        }
        if (q.bad || q.off != q.n) {
            fprintf(stderr, "scalana-analyze: error: analyzer process %d: a request of process 0 it cannot read\n", me);
            ops->abort(1);
        }
        free(p);
        if (ops->send(0, o.p, o.n) != 0) {
            fprintf(stderr, "scalana-analyze: error: analyzer process %d: cannot answer process 0\n", me);
            ops->abort(1);
        }
        free(o.p);
        if (done) return;
    }
}

void an_par_start_serving(void) { served_analysis = 1; }

void an_par_done(struct an_analysis *a)
{
    const struct an_mpi_ops *ops = an_par_ops();
    int N = an_par_size();
    if (!a->peak_rss) {
        a->nprocs = (uint32_t)N;
        a->peak_rss = sc_xcalloc((size_t)N, sizeof *a->peak_rss);
    }
    a->peak_rss[0] = an_peak_rss_bytes();
    if (N <= 1 || !ops || an_par_rank() != 0 || !served_analysis) return;
    served_analysis = 0;
    cache_free();
    struct wbuf req = {0};
    put_u32(&req, REQ_DONE), put_u32(&req, 0);
    for (int k = 1; k < N; k++)
        if (ops->send(k, req.p, req.n) != 0) ops->abort(1);
    free(req.p);
    for (int k = 1; k < N; k++) {
        void *p = NULL;
        uint64_t n = 0;
        if (ops->recv(k, &p, &n) != 0 || n != sizeof(uint64_t)) {
            fprintf(stderr, "scalana-analyze: error: analyzer process %d did not finish\n", k);
            ops->abort(1);
        }
        memcpy(&a->peak_rss[k], p, sizeof(uint64_t));
        free(p);
    }
}
