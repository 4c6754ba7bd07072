/* find.c — the root-cause engine: runs the detectors (detect/detectors/, in
 * the order of detectors/detectors.def), then merges causes that nest, moves
 * causes under the thresholds to the candidates (after the judges:
 * detect/judge.h) and ranks the rest by cost with its noise. */
#include "detect/find.h"
#include "detect/detect.h"
#include "detect/judge.h"
#include "metrics/metrics.h"
#include "ppg/vtime.h"
#include "core/graph.h"
#include "sc_alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const struct an_detector *const an_detectors[] = {
#define AN_DETECTOR(name) &an_detector_##name,
#include "detectors/detectors.def"
#undef AN_DETECTOR
};
const size_t an_detector_count = sizeof an_detectors / sizeof *an_detectors;

/* ---- the engine ------------------------------------------------------------------------ */

static void free_cause(struct an_cause *c)
{
    free(c->procs), free(c->waiting), free(c->path), free(c->threads);
    memset(c, 0, sizeof *c);
}

/* Order of causes: cost, largest first; equal costs by source location
 * (file, line), then category (vertex ids depend on the order in which call
 * paths were met, locations do not). */
static const struct an_graph *rank_graph;
static int by_cost(const void *x, const void *y)
{
    const struct an_cause *a = x, *b = y;
    if (a->cost != b->cost) return a->cost > b->cost ? -1 : 1;
    const struct an_vertex *va = &rank_graph->v[a->vertex], *vb = &rank_graph->v[b->vertex];
    int f = strcmp(va->file, vb->file);
    if (f) return f;
    if (va->line != vb->line) return va->line < vb->line ? -1 : 1;
    if (a->cat != b->cat) return a->cat < b->cat ? -1 : 1;
    return a->vertex < b->vertex ? -1 : a->vertex > b->vertex;
}

static void rank_causes(const struct an_analysis *a, struct an_cause *c, uint32_t n)
{
    if (!n) return;
    rank_graph = &a->g;
    qsort(c, n, sizeof *c, by_cost);
}

/* Sampling noise of a cost of about `cost` seconds measured by signals of
 * s seconds each: one standard deviation of a Poisson count, sqrt(cost / s) * s
 * (none for a cost of exact times or counts, an_cause.noise_exact); plus the
 * repetition spread of the run's wall time at the largest count. */
static double cost_noise(const struct an_analysis *a, const struct an_cause *c)
{
    const struct an_scale *big = &a->scales[a->nscales - 1];
    double per = big->rep->period_s > 0 ? an_signal_s(big->rep) : 0; /* Poisson in signals */
    double sampling = per > 0 && c->cost > 0 && !c->noise_exact ? sqrt(c->cost / per) * per : 0;
    return sampling + (big->nreps > 1 ? big->wall_spread : 0);
}

/* One cause per subtree: a cause inside another cause's vertex wins, taking
 * the outer one's cost (when larger), culprits (when more) and evidence. */
static void merge_nested_causes(struct an_analysis *a)
{
    for (uint32_t i = 0; i < a->ncauses; i++) {
        for (uint32_t k = 0; k < a->ncauses; k++) {
            if (i == k || !a->causes[i].path || !a->causes[k].path) continue;
            struct an_cause *outer = &a->causes[i], *inner = &a->causes[k];
            if (!an_graph_is_ancestor(&a->g, outer->vertex, inner->vertex)) continue;
            if (inner->cost < outer->cost) {
                inner->cost = outer->cost;
                inner->cost_rule = outer->cost_rule;
                inner->cost_noise = outer->cost_noise, inner->noise_exact = outer->noise_exact;
                inner->nonzero_exact = outer->nonzero_exact;
                if (outer->nprocs > inner->nprocs) {
                    free(inner->procs);
                    inner->procs = outer->procs, inner->nprocs = outer->nprocs;
                    inner->nprocs_total = outer->nprocs_total;
                    outer->procs = NULL;
                }
            }
            an_cause_evidence(inner, "%s", outer->evidence);
            if (!outer->undecided) inner->undecided = NULL; /* a decided cause stays one */
            free_cause(outer);
            break;
        }
    }
}

/* One cause for one defect: a wait that no computation explained (a
 * wait_at_collective or message_wait whose late processes are culprits of
 * a computation cause found elsewhere, e.g. by the imbalance detector) is
 * that cause's effect when the computation's cost covers half of it: it
 * joins that cause's evidence instead of standing beside it (two_culprits.c:
 * rank 0's 0.31 s at the MPI_Allreduce is smooth_rows' 0.6 s on rank 1). */
static void join_explained_waits(struct an_analysis *a)
{
    for (uint32_t i = 0; i < a->ncauses; i++) {
        struct an_cause *w = &a->causes[i];
        if (!w->path || !w->nprocs || (w->cat != AN_CAT_WAIT_COLLECTIVE && w->cat != AN_CAT_MESSAGE_WAIT)) continue;
        for (uint32_t k = 0; k < a->ncauses; k++) {
            struct an_cause *c = &a->causes[k];
            if (k == i || !c->path || (c->cat != AN_CAT_LOAD_IMBALANCE && c->cat != AN_CAT_SERIAL) ||
                c->cost < 0.5 * w->cost)
                continue;
            int all = 1;
            for (uint32_t j = 0; j < w->nprocs && all; j++) {
                int in = 0;
                for (uint32_t m = 0; m < c->nprocs && !in; m++) in = c->procs[m] == w->procs[j];
                all = in;
            }
            if (!all) continue;
            an_cause_evidence(c, "the others wait for it at %s (%.3g s, mean over the waiting processes)",
                              a->g.v[w->vertex].name ? a->g.v[w->vertex].name : "an MPI call", w->cost);
            free_cause(w);
            break;
        }
    }
}

/* A culprit is never a waiting process (merges may have widened the culprits). */
static void culprits_not_waiting(struct an_analysis *a)
{
    for (uint32_t i = 0; i < a->ncauses; i++) {
        struct an_cause *c = &a->causes[i];
        uint32_t n = 0;
        for (uint32_t k = 0; k < c->nwaiting; k++) {
            int cul = 0;
            for (uint32_t j = 0; j < c->nprocs && !cul; j++) cul = c->procs[j] == c->waiting[k];
            if (!cul) c->waiting[n++] = c->waiting[k];
        }
        c->nwaiting = n;
    }
}

/* Thresholds: under them a cause is a candidate, never a root cause; the
 * causes that remain, and the candidates, ranked. */
static void separate_candidates(struct an_analysis *a, const struct an_detect *d)
{
    uint32_t n = 0;
    const struct an_scale *big = d->big;
    for (uint32_t i = 0; i < a->ncauses; i++) {
        struct an_cause *c = &a->causes[i];
        if (!c->path) {
            free_cause(c);
            continue;
        }
        if (c->cost > big->wall && big->wall > 0) c->cost = big->wall;
        /* more iterations on the culprits: the code's, whatever else slowed them */
        if (!c->undecided && an_work_judge_cause(a, d->r, c) != AN_WORK_MORE && !c->undecided)
            an_interference_judge_cause(a, d->r, c);
        c->cost_noise = fmax(c->cost_noise, cost_noise(a, c));
        /* a cost within its noise is not told from zero (noise_sigmas),
         * unless exact counts tell it */
        int noisy = !c->nonzero_exact && c->cost < a->opt->th.noise_sigmas * c->cost_noise;
        if (c->undecided || c->cost < d->min_cost || c->cost <= 0 || noisy) {
            a->vflags[c->vertex] &= ~(uint32_t)AN_F_ROOT_CAUSE;
            if (c->cost > 0) {
                struct an_cause *cc = realloc(a->candidates, (a->ncandidates + 1) * sizeof *cc);
                if (!cc) abort();
                a->candidates = cc;
                a->candidates[a->ncandidates++] = *c;
            } else {
                free_cause(c);
            }
            continue;
        }
        a->vflags[c->vertex] |= AN_F_ROOT_CAUSE;
        a->causes[n++] = *c;
    }
    a->ncauses = n;
    rank_causes(a, a->causes, n);
    rank_causes(a, a->candidates, a->ncandidates);
}

void an_find_root_causes(struct an_analysis *a)
{
    if (!a->nscales) return;
    struct an_detect d;
    memset(&d, 0, sizeof d);
    d.a = a, d.big = &a->scales[a->nscales - 1], d.r = d.big->rep, d.N = a->g.n, d.P = d.big->P;
    d.min_cost = an_min_cost(a);
    d.prev = sc_xmalloc((d.N + 1) * sizeof *d.prev);
    d.last_child = sc_xmalloc((d.N + 1) * sizeof *d.last_child);
    memset(d.prev, 0xff, (d.N + 1) * sizeof *d.prev);
    memset(d.last_child, 0xff, (d.N + 1) * sizeof *d.last_child);
    for (uint32_t p = 0; p < d.N; p++) {
        uint32_t last = AN_NONE;
        for (uint32_t c = a->g.v[p].first_child; c != AN_NONE; c = a->g.v[c].next_sibling) {
            d.prev[c] = last;
            last = c;
        }
        d.last_child[p] = last;
    }
    for (size_t k = 0; k < an_detector_count; k++)
        if (an_detectors[k]->mark) an_detectors[k]->mark(&d);
    for (size_t k = 0; k < an_detector_count; k++)
        if (an_detectors[k]->find) an_detectors[k]->find(&d);
    merge_nested_causes(a);
    join_explained_waits(a);
    culprits_not_waiting(a);
    separate_candidates(a, &d);
    free(d.prev), free(d.last_child);
}
