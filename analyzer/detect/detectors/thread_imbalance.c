/* thread_imbalance.c — detector "thread_imbalance": a loop whose work the
 * threads of a process split unevenly (OpenMP's schedule(static) over a
 * triangular nest: one thread gets the long rows), from the loop work
 * counters per thread (PRF_REC_WORK).  The others wait for the last thread
 * at the region's barrier; the process looks busy, so no process-level
 * detector sees it.  Its cost is what balancing saves per process, from the
 * loop's CPU time split in proportion to the threads' iterations. */
#include "core/graph.h"
#include "core/types.h"
#include "detect/detect.h"
#include "ppg/run_source.h"
#include "ppg/vtime.h"
#include "ppg/work.h"
#include "sc_alloc.h"
#include "scalana/psg_format.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One process's threads at vertex v: the saving of balancing them (seconds
 * of the process's run time), the max/mean of their iterations, and the
 * thread indexes heaviest first (*order, malloc'ed, *nthreads). */
struct split {
    double saving, ratio, cpu;
    uint32_t *order, nthreads;
    double max_w, min_w;
};

static int thread_split(struct an_detect *d, uint32_t v, uint32_t rank, struct split *s)
{
    memset(s, 0, sizeof *s);
    uint64_t *tids;
    uint32_t *threads, n;
    double *w;
    an_thread_work_at(&d->a->g, d->r, v, rank, &tids, &threads, &w, &n);
    int ok = 0;
    if (n >= 2 && an_vr_has(d->r, v, AN_HAS_ICPU)) {
        double sum = 0, max = 0, min = INFINITY;
        for (uint32_t k = 0; k < n; k++) sum += w[k], max = fmax(max, w[k]), min = fmin(min, w[k]);
        double cpu = an_vr(d->r, v)->icpu[rank];
        if (sum > 0 && cpu > 0) {
            /* the threads ran their iterations at one speed: thread k took
             * cpu * w_k / sum; the region ends with the slowest, balanced at
             * the mean */
            s->cpu = cpu;
            s->ratio = max / (sum / n);
            s->saving = cpu * (max / sum - 1.0 / n);
            s->max_w = max, s->min_w = min;
            s->order = sc_xmalloc(n * sizeof *s->order);
            s->nthreads = n;
            for (uint32_t k = 0; k < n; k++) s->order[k] = k;
            for (uint32_t i = 1; i < n; i++) /* heaviest first */
                for (uint32_t j = i; j > 0 && w[s->order[j]] > w[s->order[j - 1]]; j--) {
                    uint32_t t = s->order[j];
                    s->order[j] = s->order[j - 1], s->order[j - 1] = t;
                }
            for (uint32_t k = 0; k < n; k++) s->order[k] = threads[s->order[k]];
            ok = 1;
        }
    }
    free(tids), free(threads), free(w);
    return ok;
}

/* Whether v runs inside an OpenMP region body (omp.c): only there do the
 * threads share one loop's iterations at the same time; two pthreads that
 * run a loop in turn, or different amounts of it at different times, are
 * not a schedule to balance. */
static int in_region(const struct an_graph *g, uint32_t v)
{
    for (uint32_t u = v; u != AN_NONE; u = g->v[u].parent)
        if (g->v[u].flags & AN_V_OMP_REGION) return 1;
    return 0;
}

static int below_cause(const struct an_analysis *a, uint32_t v)
{
    for (uint32_t k = 0; k < a->ncauses; k++)
        if (a->causes[k].cat == AN_CAT_THREAD_IMBALANCE && an_graph_is_ancestor(&a->g, a->causes[k].vertex, v))
            return 1;
    return 0;
}

static void find(struct an_detect *d)
{
    struct an_analysis *a = d->a;
    const struct an_run *r = d->r;
    const struct an_thresholds *th = &a->opt->th;
    if (!r->ntwork) return;
    /* parents are created before their children: the outermost imbalanced
     * loop of a nest (the work-sharing loop) is met first */
    for (uint32_t v = 0; v < d->N && v < r->nvr; v++) {
        if (a->g.v[v].kind != PSG_LOOP || !a->g.v[v].psg_stable_id || !in_region(&a->g, v) ||
            below_cause(a, v))
            continue;
        double saving = 0, noise2 = 0, worst = 0;
        uint32_t *procs = sc_xmalloc(((size_t)d->P + 1) * sizeof *procs), np = 0;
        struct split best = {0};
        uint32_t best_rank = 0;
        for (uint32_t i = 0; i < d->P; i++) {
            struct split s;
            if (!r->present[i] || !thread_split(d, v, i, &s)) continue;
            if (s.ratio >= th->imbalance) {
                procs[np++] = i;
                saving += s.saving;
                /* the CPU time is sampled: its Poisson noise, scaled like the saving */
                double sig = an_signal_s(r);
                if (sig > 0) noise2 += sig * s.cpu * pow(s.saving / s.cpu, 2);
                if (s.saving > worst) {
                    free(best.order);
                    best = s, best_rank = i, worst = s.saving;
                    continue;
                }
            }
            free(s.order);
        }
        if (!np) {
            free(procs);
            continue;
        }
        /* every process saves its own; the job ends with the slowest: the mean
         * over the processes that have it, counted over all present ranks */
        double cost = saving / r->present_count;
        struct an_cause *c = an_cause_get(a, v);
        if (c->merged) {
            free(procs), free(best.order);
            continue;
        }
        c->cat = AN_CAT_THREAD_IMBALANCE;
        c->cost = cost;
        c->cost_noise = sqrt(noise2) / r->present_count;
        c->cost_rule = "the loop's CPU time per process split in proportion to its threads' iterations: the "
                       "slowest thread's share down to the mean, averaged over the processes";
        an_cause_procs(c, procs, np);
        an_cause_root_path(c, best_rank);
        c->threads = best.order, c->nthreads = best.nthreads;
        an_cause_evidence(c, "on process %u its %u threads ran between %.4g and %.4g loop iterations here "
                          "(max/mean %.2f); balanced, its %.3g CPU s in the loop would end %.3g s sooner; %u of "
                          "%u processes have threads out of balance here",
                          best_rank, best.nthreads, best.min_w, best.max_w, best.ratio, best.cpu, best.saving, np,
                          r->present_count);
    }
}

const struct an_detector an_detector_thread_imbalance = {
    "thread_imbalance",
    "a loop in an OpenMP region whose iterations the threads of a process split with max/mean >= imbalance "
    "(loop work counters per thread)",
    NULL, find};
