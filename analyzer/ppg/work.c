/* work.c — the work each process did, from the loop work counters
 * (PRF_REC_WORK), and what it tells the detectors: a process that spent
 * more time in a loop *with the same iterations* as the others ran slower,
 * it was not given more work (an_work_compare; detect/work_judge.c draws the
 * conclusion for a cause).
 *
 * Counts are per LOOP vertex of the PSG, summed over the vertex's calling
 * contexts and the process's threads; the work of a vertex is that of the
 * loops in its subtree of the calling-context graph (docs/analyzer.md,
 * "Work and speed"). */
#include "ppg/work.h"
#include "core/types.h"
#include "ppg/run_source.h"
#include "sc_alloc.h"
#include "scalana/profile_format.h"
#include "scalana/psg_format.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void an_run_add_work(struct an_run *r, uint32_t rank, const struct prf_rank_data *d)
{
    if (!d->has_work) return;
    r->work_ranks++;
    for (uint32_t k = 0; k < d->work_count; k++) {
        if (!d->work[k].stable_id || !d->work[k].count) continue;
        if (r->nwork == r->work_cap) {
            r->work_cap = r->work_cap ? 2 * r->work_cap : 256;
            r->work = sc_xrealloc(r->work, r->work_cap * sizeof *r->work);
        }
        r->work[r->nwork++] = (struct an_work){d->work[k].stable_id, rank, (double)d->work[k].count};
        if (r->ntwork == r->twork_cap) {
            r->twork_cap = r->twork_cap ? 2 * r->twork_cap : 256;
            r->twork = sc_xrealloc(r->twork, r->twork_cap * sizeof *r->twork);
        }
        uint32_t th = d->work[k].thread == PRF_NONE ? AN_NONE : d->work[k].thread;
        r->twork[r->ntwork++] = (struct an_thread_work){d->work[k].stable_id, d->work[k].tid, rank, th,
                                                        (double)d->work[k].count};
    }
}

static int by_id_rank_tid(const void *a, const void *b)
{
    const struct an_thread_work *x = a, *y = b;
    if (x->stable_id != y->stable_id) return x->stable_id < y->stable_id ? -1 : 1;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int by_id_rank(const void *a, const void *b)
{
    const struct an_work *x = a, *y = b;
    if (x->stable_id != y->stable_id) return x->stable_id < y->stable_id ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

void an_run_finish_work(struct an_run *r)
{
    if (!r->nwork) return;
    qsort(r->work, r->nwork, sizeof *r->work, by_id_rank);
    /* one entry per (loop, rank): a rank's threads were separate entries */
    size_t n = 0;
    for (size_t i = 0; i < r->nwork; i++) {
        if (n && r->work[n - 1].stable_id == r->work[i].stable_id && r->work[n - 1].rank == r->work[i].rank)
            r->work[n - 1].count += r->work[i].count;
        else
            r->work[n++] = r->work[i];
    }
    r->nwork = n;
    qsort(r->twork, r->ntwork, sizeof *r->twork, by_id_rank_tid);
}

const char *an_work_measure(const struct an_run *r)
{
    return r->work_ranks ? "loop_iterations" : "none";
}

static int by_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The stable ids of the LOOP vertices in v's subtree, sorted, each once (a
 * loop reached through two call sites is one counter); *nid of them. */
static uint64_t *loops_below(const struct an_graph *g, uint32_t v, size_t *nid_out)
{
    size_t nid = 0, cap = 64;
    uint64_t *ids = sc_xmalloc(cap * sizeof *ids);
    uint32_t *stack = sc_xmalloc(((size_t)g->n + 1) * sizeof *stack), top = 0;
    stack[top++] = v;
    while (top) {
        uint32_t u = stack[--top];
        const struct an_vertex *x = &g->v[u];
        if (x->kind == PSG_LOOP && x->psg_stable_id) {
            if (nid == cap) ids = sc_xrealloc(ids, (cap *= 2) * sizeof *ids);
            ids[nid++] = x->psg_stable_id;
        }
        for (uint32_t c = x->first_child; c != AN_NONE; c = g->v[c].next_sibling) stack[top++] = c;
    }
    free(stack);
    qsort(ids, nid, sizeof *ids, by_u64);
    size_t n = 0;
    for (size_t i = 0; i < nid; i++)
        if (!n || ids[i] != ids[n - 1]) ids[n++] = ids[i];
    *nid_out = n;
    return ids;
}

int an_work_at(const struct an_graph *g, const struct an_run *r, uint32_t v, double *w)
{
    memset(w, 0, (size_t)r->P * sizeof *w);
    if (!r->nwork || v >= g->n) return 0;
    size_t nid;
    uint64_t *ids = loops_below(g, v, &nid);
    int any = 0;
    for (size_t i = 0; i < nid; i++) {
        size_t lo = 0, hi = r->nwork;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (r->work[mid].stable_id < ids[i]) lo = mid + 1;
            else hi = mid;
        }
        for (; lo < r->nwork && r->work[lo].stable_id == ids[i]; lo++)
            if (r->work[lo].rank < r->P) w[r->work[lo].rank] += r->work[lo].count, any = 1;
    }
    free(ids);
    return any;
}

uint32_t an_thread_work_at(const struct an_graph *g, const struct an_run *r, uint32_t v, uint32_t rank,
                           uint64_t **tids, uint32_t **threads, double **w, uint32_t *n)
{
    *tids = NULL, *threads = NULL, *w = NULL, *n = 0;
    if (!r->ntwork || v >= g->n) return 0;
    size_t nid, cap = 0;
    uint64_t *ids = loops_below(g, v, &nid);
    for (size_t i = 0; i < nid; i++) {
        size_t lo = 0, hi = r->ntwork;
        while (lo < hi) { /* first entry of (id, rank) */
            size_t mid = (lo + hi) / 2;
            const struct an_thread_work *x = &r->twork[mid];
            if (x->stable_id < ids[i] || (x->stable_id == ids[i] && x->rank < rank)) lo = mid + 1;
            else hi = mid;
        }
        for (; lo < r->ntwork && r->twork[lo].stable_id == ids[i] && r->twork[lo].rank == rank; lo++) {
            const struct an_thread_work *x = &r->twork[lo];
            uint32_t k = 0;
            while (k < *n && (*tids)[k] != x->tid) k++;
            if (k == *n) {
                if (*n == cap) {
                    cap = cap ? 2 * cap : 8;
                    *tids = sc_xrealloc(*tids, cap * sizeof **tids);
                    *threads = sc_xrealloc(*threads, cap * sizeof **threads);
                    *w = sc_xrealloc(*w, cap * sizeof **w);
                }
                (*tids)[k] = x->tid, (*threads)[k] = x->thread, (*w)[k] = 0;
                (*n)++;
            }
            (*w)[k] += x->count;
        }
    }
    free(ids);
    return *n;
}

uint32_t an_work_enclosing_loop(const struct an_graph *g, uint32_t v)
{
    if (v >= g->n || (g->v[v].flags & AN_V_CONDITIONAL)) return AN_NONE;
    for (uint32_t u = g->v[v].parent; u != AN_NONE && u < g->n; u = g->v[u].parent) {
        const struct an_vertex *x = &g->v[u];
        if (x->kind == PSG_BRANCH || (x->flags & AN_V_CONDITIONAL)) return AN_NONE;
        if (x->kind == PSG_LOOP) return x->psg_stable_id ? u : AN_NONE;
    }
    return AN_NONE;
}

int an_work_mean(const struct an_graph *g, const struct an_run *r, uint32_t v, double *mean)
{
    *mean = 0;
    if (!r->present_count) return 0;
    double *w = sc_xmalloc(((size_t)r->P + 1) * sizeof *w);
    int any = an_work_at(g, r, v, w);
    double s = 0;
    for (uint32_t i = 0; i < r->P; i++)
        if (r->present[i]) s += w[i];
    free(w);
    *mean = s / r->present_count;
    return any;
}

enum an_work_verdict an_work_compare(const struct an_graph *g, const struct an_run *r, uint32_t v,
                                     const uint32_t *procs, uint32_t np, double *work_ratio,
                                     double *time_ratio)
{
    *work_ratio = *time_ratio = NAN;
    if (!np || np >= r->present_count || v >= r->nvr) return AN_WORK_UNKNOWN;
    double *w = sc_xmalloc(((size_t)r->P + 1) * sizeof *w);
    const float *icpu = an_vr(r, v)->icpu;
    if (!icpu || !an_work_at(g, r, v, w)) {
        free(w);
        return AN_WORK_UNKNOWN;
    }
    uint8_t *heavy = sc_xcalloc((size_t)r->P + 1, 1);
    for (uint32_t k = 0; k < np; k++)
        if (procs[k] < r->P) heavy[procs[k]] = 1;
    double hs = 0, ls = 0, ht = 0, lt = 0;
    uint32_t hn = 0, ln = 0;
    for (uint32_t i = 0; i < r->P; i++) {
        if (!r->present[i]) continue;
        if (heavy[i]) hs += w[i], ht += icpu[i], hn++;
        else ls += w[i], lt += icpu[i], ln++;
    }
    free(heavy), free(w);
    if (!hn || !ln) return AN_WORK_UNKNOWN;
    double hm = hs / hn, lm = ls / ln;
    *time_ratio = lt > 0 ? (ht / hn) / (lt / ln) : ht > 0 ? INFINITY : NAN; /* none sampled on the others */
    if (!(lm > 0)) return hm > 0 ? AN_WORK_MORE : AN_WORK_UNKNOWN;
    *work_ratio = hm / lm;
    /* Same work: the culprits' iterations exceed the others' by under 5 %
     * and by under a quarter of their CPU-time excess; the rest of the
     * excess is speed.  A cause raised from wall times (a late sender whose
     * CPU time is not in excess: it waited for a core) needs only the 5 %.
     * A loop whose per-iteration work differs between processes (inner
     * work the counters do not see: straight-line code, a library call)
     * looks the same; docs/analyzer.md says so. */
    double excess = *work_ratio - 1;
    if (excess < 0.05 && (!(*time_ratio > 1) || excess < 0.25 * (*time_ratio - 1))) return AN_WORK_SAME;
    return AN_WORK_MORE;
}
