/* intervals.c — a run's exact computation intervals (the time
 * between two consecutive MPI calls of one thread, recorded by the runtime
 * per pair of calling contexts and attributed here to pairs of MPI vertices
 * by ppg.c): their records, their sums over a slice of ranks, their renaming;
 * the queries (an_interval_before/after) ask the run's source (ppg/run_source.c). */
#include "ppg/intervals.h"
#include "core/types.h"
#include "sc_alloc.h"
#include "sc_hash.h"
#include "scalana/profile_format.h"
#include "scalana/samplers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void an_interval_sum_slice(const struct an_run *r, uint32_t v, int want_next, int want_cpu, double *out)
{
    for (uint32_t k = 0; k < r->nintervals; k++) {
        const struct an_interval *x = &r->intervals[k];
        if ((want_next ? x->next_vertex : x->prev_vertex) != v) continue;
        const float *a = want_cpu ? x->cpu : x->wall;
        if (!a) continue;
        for (uint32_t i = 0; i < r->slice_n; i++) out[i] += a[i];
    }
}

/* ---- ingestion ---------------------------------------------------------------- */

static uint64_t pair_key(uint32_t prev, uint32_t next) { return (uint64_t)prev << 32 | next; }

/* The run's record of (prev, next), created with per-rank arrays. */
static struct an_interval *interval_get(struct an_run *r, uint32_t prev, uint32_t next)
{
    struct sc_hash_it it;
    for (uint32_t k = sc_hash_first(&r->interval_index, pair_key(prev, next), &it); k != SC_HASH_NONE;
         k = sc_hash_next(&r->interval_index, &it)) {
        struct an_interval *x = &r->intervals[k];
        if (x->prev_vertex == prev && x->next_vertex == next) return x;
    }
    uint32_t n0 = r->nintervals;
    if (n0 == 0 || (n0 >= 16 && (n0 & (n0 - 1)) == 0)) {
        /* capacity: 16, then the next power of two (grown when nintervals reaches it) */
        uint32_t cap = r->nintervals ? r->nintervals * 2 : 16;
        r->intervals = sc_xrealloc(r->intervals, cap * sizeof *r->intervals);
    }
    struct an_interval *x = &r->intervals[r->nintervals];
    memset(x, 0, sizeof *x);
    x->prev_vertex = prev, x->next_vertex = next;
    x->count = sc_xcalloc(r->slice_n, sizeof(float));
    x->wall = sc_xcalloc(r->slice_n, sizeof(float));
    x->wall_min = sc_xcalloc(r->slice_n, sizeof(float));
    x->wall_max = sc_xcalloc(r->slice_n, sizeof(float));
    x->wall_sq = sc_xcalloc(r->slice_n, sizeof(float));
    x->cpu = sc_xcalloc(r->slice_n, sizeof(float));
    x->cpu_exact = 1;
    if (sc_hash_add(&r->interval_index, pair_key(prev, next), r->nintervals)) sc_oom();
    r->nintervals++;
    return x;
}

/* One interval record's CPU seconds on its rank: read with the clock, the
 * series completed (see an_run_add_intervals), or estimated; *unc_s is how
 * far the estimated part may be off (0 when none): the sampler periods plus
 * one, since an interval that got no sample may still have run up to one. */
static double record_cpu(const struct prf_interval *v, int cpu_sampler, double period_s, double *unc_s)
{
    /* The runtime reads the clock only in intervals it predicts long from
     * the one before after the same context, so the first of a series never
     * is: where the clock read all but a tenth of them (AN_IV_COMPLETE_SHARE)
     * the others get the measured mean, as read */
    uint64_t unread = v->count > v->cpu_count ? v->count - v->cpu_count : 0;
    double read = v->cpu_ns * 1e-9;
    *unc_s = 0;
    if (!unread) return read;
    if (v->cpu_count && (double)unread <= AN_IV_COMPLETE_SHARE * (double)v->count)
        return read + (double)unread * read / (double)v->cpu_count;
    /* sampler periods, or the wall time where no CPU clock is sampled */
    double est = cpu_sampler ? (double)v->cpu_samples * period_s : (double)(v->wall_ns - v->cpu_wall_ns) * 1e-9;
    *unc_s = est + (cpu_sampler ? period_s : 0);
    return read + est;
}

void an_run_add_intervals(struct an_run *r, uint32_t rank, const struct prf_rank_data *d,
                          const uint32_t *ctx_vertex, double period_s)
{
    if (rank < r->slice_lo || rank - r->slice_lo >= r->slice_n) return;
    uint32_t li = rank - r->slice_lo; /* index into the per-rank arrays */
    r->has_intervals = 1;
    r->interval_overflow += d->interval_info.overflow + d->interval_info.dropped;
    int cpu_sampler = scalana_sampler_cpu_clock(d->info.sampler);
    /* A record whose CPU is estimated spoils the exactness of its pair only
     * when the estimate's uncertainty is over AN_IV_COMPLETE_SHARE of this
     * rank's CPU in the intervals that end at its next vertex (exactness is
     * read there: the computation before an MPI call, waits.c): the one
     * interval from MPI_Init to short_imbalance's loop, 1 sample of 5 ms beside
     * 0.12 s read, kept its 19 read ones from deciding; beside two CPU hogs
     * the samples put its cost at 0.160 s against 0.125 s planted, the exact
     * intervals at 0.116 s.  First pass: each record's vertices and CPU, and
     * the CPU per next vertex; second: the records into their pairs. */
    size_t n = (size_t)d->interval_count + 1;
    struct sc_hash side = {0};
    uint32_t nside = 0, *pv = sc_xmalloc(n * sizeof *pv), *nx = sc_xmalloc(n * sizeof *nx),
             *at_next = sc_xmalloc(n * sizeof *at_next);
    uint64_t *keys = sc_xmalloc(n * sizeof *keys);
    double *tot = sc_xcalloc(n, sizeof *tot), *cpu = sc_xmalloc(n * sizeof *cpu), *unc = sc_xmalloc(n * sizeof *unc);
    for (uint32_t k = 0; k < d->interval_count; k++) {
        const struct prf_interval *v = &d->intervals[k];
        /* the decoder checked the context ids */
        pv[k] = v->prev_context == PRF_NONE ? AN_NONE : ctx_vertex[v->prev_context];
        nx[k] = v->next_context == PRF_NONE ? AN_NONE : ctx_vertex[v->next_context];
        if ((v->prev_context != PRF_NONE && pv[k] == AN_NONE) ||
            (v->next_context != PRF_NONE && nx[k] == AN_NONE)) {
            at_next[k] = UINT32_MAX; /* a context without a call path: nowhere to put it */
            continue;
        }
        cpu[k] = record_cpu(v, cpu_sampler, period_s, &unc[k]);
        struct sc_hash_it it;
        uint32_t j = sc_hash_first(&side, nx[k], &it);
        while (j != SC_HASH_NONE && keys[j] != nx[k]) j = sc_hash_next(&side, &it);
        if (j == SC_HASH_NONE) {
            j = nside++;
            keys[j] = nx[k];
            if (sc_hash_add(&side, nx[k], j)) sc_oom();
        }
        at_next[k] = j;
        tot[j] += cpu[k];
    }
    for (uint32_t k = 0; k < d->interval_count; k++) {
        if (at_next[k] == UINT32_MAX) continue;
        const struct prf_interval *v = &d->intervals[k];
        struct an_interval *x = interval_get(r, pv[k], nx[k]);
        double wall = v->wall_ns * 1e-9, mn = v->wall_min_ns * 1e-9, mx = v->wall_max_ns * 1e-9;
        if (x->count[li] == 0 || mn < x->wall_min[li]) x->wall_min[li] = (float)mn;
        if (mx > x->wall_max[li]) x->wall_max[li] = (float)mx;
        x->count[li] += (float)v->count;
        x->wall[li] += (float)wall;
        x->wall_sq[li] += (float)(v->wall_sq_ns2 * 1e-18);
        x->cpu[li] += (float)cpu[k];
        if (unc[k] > AN_IV_COMPLETE_SHARE * tot[at_next[k]]) x->cpu_exact = 0;
    }
    sc_hash_free(&side);
    free(pv), free(nx), free(at_next), free(keys), free(tot), free(cpu), free(unc);
}

struct an_interval *an_run_interval(struct an_run *r, uint32_t prev, uint32_t next)
{
    return interval_get(r, prev, next);
}

void an_run_intervals_remap(struct an_run *r, const uint32_t *map, uint32_t nmap)
{
    sc_hash_clear(&r->interval_index);
    for (uint32_t k = 0; k < r->nintervals; k++) {
        struct an_interval *x = &r->intervals[k];
        if (x->prev_vertex != AN_NONE) x->prev_vertex = x->prev_vertex < nmap ? map[x->prev_vertex] : AN_NONE;
        if (x->next_vertex != AN_NONE) x->next_vertex = x->next_vertex < nmap ? map[x->next_vertex] : AN_NONE;
        if (sc_hash_add(&r->interval_index, pair_key(x->prev_vertex, x->next_vertex), k)) sc_oom();
    }
}
