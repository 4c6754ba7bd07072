/* non_scalable.c — detector "non_scalable": computation whose mean time per
 * process shrinks too slowly with p (strong scaling), or grows (weak
 * scaling), against the ideal from the smallest count: replicated or growing
 * work.  Its cost is the scaling loss at the largest count (metrics.c). */
#include "core/types.h"
#include "detect/detect.h"
#include "models/model.h"
#include "models/stats.h"
#include "ppg/run_source.h"
#include "ppg/vtime.h"
#include "ppg/work.h"
#include "sc_alloc.h"
#include "scalana/psg_format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether the loops below v counted iterations per process that exceed
 * their ideal at the largest count by scaling_ratio (strong: the smallest
 * count's per process times p0 / P; weak: the same).  Counts are exact, so
 * this is the evidence where the samples are too few for the count test
 * (beside two CPU hogs weak_scaling's replicated loop had 7 signals per
 * process at 8 processes, its iterations 8x those at 1). */
static int iterations_grow(struct an_detect *d, uint32_t v)
{
    struct an_analysis *a = d->a;
    uint32_t S = a->nscales, N = d->N;
    uint32_t s0 = 0;
    while (s0 + 1 < S && !a->vm[(size_t)s0 * N + v].present) s0++;
    if (s0 + 1 >= S) return 0;
    double w0, w1, p0 = a->scales[s0].P, P = d->big->P;
    if (!an_work_mean(&a->g, a->scales[s0].rep, v, &w0) || !an_work_mean(&a->g, d->r, v, &w1) || !(w0 > 0))
        return 0;
    double ideal = a->opt->weak ? w0 : w0 * p0 / P;
    return w1 >= a->opt->th.scaling_ratio * ideal;
}

/* Symptom rule: measured/ideal >= scaling_ratio, loss >= the minimum cost
 * and above the repetition spread, and the total sample count grew
 * significantly against ideal (strong: equal totals; weak: totals in
 * proportion to p) at alpha, with at least min_samples samples, or the
 * loop iterations below it grew as much (iterations_grow). */
static void mark(struct an_detect *d)
{
    struct an_analysis *a = d->a;
    const struct an_thresholds *th = &a->opt->th;
    uint32_t S = a->nscales, N = d->N;
    if (S < 2) return;
    double P = d->big->P;
    for (uint32_t v = 0; v < N; v++) {
        const struct an_vertex *vx = &a->g.v[v];
        const struct an_vmetrics *mb = &a->vm[(size_t)(S - 1) * N + v];
        if (vx->kind == PSG_MPI || !mb->present) continue;
        const struct an_vmetrics *m0 = NULL;
        uint32_t s0 = 0;
        for (uint32_t s = 0; s + 1 < S && !m0; s++)
            if (a->vm[(size_t)s * N + v].present) m0 = &a->vm[(size_t)s * N + v], s0 = s;
        if (!m0) continue;
        double p0 = a->scales[s0].P;
        double ideal = a->opt->weak ? scalana_ideal_weak(m0->mean, p0, P) : scalana_ideal_strong(m0->mean, p0, P);
        double loss = mb->mean - ideal, spread = fmax(mb->spread, m0->spread);
        if (!(ideal > 0 && mb->mean / ideal >= th->scaling_ratio && loss >= d->min_cost && loss > spread)) continue;
        const struct an_run *r0 = a->scales[s0].rep, *r1 = d->r;
        /* counts are signals; each run's signal rate per CPU second is 1 / signal_s */
        double per0 = r0->period_s > 0 ? an_signal_s(r0) : 0, per1 = r1->period_s > 0 ? an_signal_s(r1) : 0;
        uint64_t k1 = v < r1->nvr ? (uint64_t)llround(r1->vr[v].signals) : 0;
        uint64_t k0 = v < r0->nvr ? (uint64_t)llround(r0->vr[v].signals) : 0;
        double e1 = (a->opt->weak ? P : 1) * (per1 > 0 ? 1 / per1 : 1);
        double e0 = (a->opt->weak ? p0 : 1) * (per0 > 0 ? 1 / per0 : 1);
        if (scalana_counts_differ(k1, e1, k0, e0, SCALANA_GREATER, th->alpha, (uint64_t)th->min_samples) ||
            iterations_grow(d, v))
            a->vflags[v] |= AN_F_NON_SCALABLE;
    }
}

/* Work per process at the smallest count with the vertex and at the largest
 * (loop iterations, work.c): iterations that shrink as the ideal while the
 * time does not mean each iteration got slower as more processes shared the
 * machine (resource contention); iterations that do not shrink are the
 * code's (non-scalable computation). */
struct work_scaling {
    int known;            /* both counts have counted loops below the vertex (or enclosing it) */
    int enclosing;        /* the counts are the enclosing loop's (an_work_enclosing_loop) */
    int iterations_ok;    /* the iterations per process follow the ideal */
    double w0, w1, ideal; /* mean iterations per process: smallest, largest, ideal at the largest */
    uint32_t p0;
    double per_iteration; /* time per iteration at the largest / at the smallest count */
};

static int work_scaling(struct an_detect *d, uint32_t v, struct work_scaling *ws)
{
    struct an_analysis *a = d->a;
    uint32_t S = a->nscales, N = d->N;
    memset(ws, 0, sizeof *ws);
    uint32_t s0 = 0;
    while (s0 + 1 < S && !a->vm[(size_t)s0 * N + v].present) s0++;
    if (s0 + 1 >= S) return 0;
    const struct an_vmetrics *m0 = &a->vm[(size_t)s0 * N + v], *mb = &a->vm[(size_t)(S - 1) * N + v];
    /* straight-line code without a loop below it: how often it ran is the
     * count of the loop whose body holds it (PRK PIC's particle push, a
     * COMPUTE block of the particle loop) */
    uint32_t wv = v;
    int counted = an_work_mean(&a->g, d->r, v, &ws->w1);
    if (!counted) {
        wv = an_work_enclosing_loop(&a->g, v);
        if (wv == AN_NONE) return 0;
        ws->enclosing = 1;
        counted = an_work_mean(&a->g, d->r, wv, &ws->w1);
    }
    if (!counted || !an_work_mean(&a->g, a->scales[s0].rep, wv, &ws->w0) || !(ws->w0 > 0) || !(ws->w1 > 0) ||
        !(m0->mean > 0))
        return 0;
    ws->known = 1;
    ws->p0 = a->scales[s0].P;
    double P = d->big->P;
    ws->ideal = a->opt->weak ? ws->w0 : ws->w0 * ws->p0 / P;
    ws->per_iteration = (mb->mean / ws->w1) / (m0->mean / ws->w0);
    /* the time's excess over its ideal is not in the iterations: they exceed
     * theirs by under 10 % and under a quarter of the time's excess (the
     * margins of an_work_compare, a little wider: counts at two process
     * counts also differ by the remainder rows of a division) */
    double t_excess = mb->mean / (a->opt->weak ? m0->mean : m0->mean * ws->p0 / P) - 1;
    double w_excess = ws->w1 / ws->ideal - 1;
    ws->iterations_ok = w_excess < 0.1 && w_excess < 0.25 * t_excess;
    return 1;
}

static void work_evidence(struct an_detect *d, struct an_cause *c, const struct work_scaling *ws, int contention)
{
    size_t used = strlen(c->evidence);
    snprintf(c->evidence + used, sizeof c->evidence - used,
             "; %s per process %.4g at %u processes, %.4g at %u against an ideal %.4g: %s",
             ws->enclosing ? "iterations of the enclosing loop" : "loop iterations", ws->w0, ws->p0, ws->w1, d->P,
             ws->ideal,
             contention ? "the work shrinks as it should, each iteration takes longer"
                        : "the work per process does not shrink as it should");
    if (!contention) return;
    used = strlen(c->evidence);
    snprintf(c->evidence + used, sizeof c->evidence - used, " (%.2fx the time per iteration)", ws->per_iteration);
    /* on shared cores the time per iteration grows with the scheduler's
     * switches (caches refilled), not only with the memory system */
    if (d->r->contention > d->a->opt->th.contention_max)
        c->undecided = "the time per iteration grew on a run whose processes share cores (oversubscribed or "
                       "loaded): it may be the scheduler's, not the memory system's; rerun with a core per "
                       "process to decide";
}

static void find(struct an_detect *d)
{
    struct an_analysis *a = d->a;
    const struct an_thresholds *th = &a->opt->th;
    if (a->nscales < 2) return;
    const struct an_run *r = d->r;
    double *x = sc_xmalloc((d->P + 1) * sizeof *x);
    for (uint32_t v = 0; v < d->N; v++) {
        if (!(a->vflags[v] & AN_F_NON_SCALABLE) || a->g.v[v].kind == PSG_MPI) continue;
        const struct an_vmetrics *mb = &a->vm[(size_t)(a->nscales - 1) * d->N + v];
        struct an_cause *c = an_cause_get(a, v);
        /* the saving: each process's time there above the ideal removed, in the
         * CPU model (on a shared machine every process's replicated work costs
         * run time: 8 processes on 2 cores pay 4x the loss per process) */
        double ideal_mean = mb->mean - a->loss[v];
        double *work = sc_xmalloc((d->P + 1) * sizeof *work);
        /* replicated work: every process at the mean (their differences are
         * noise or an imbalance of its own) */
        for (uint32_t i = 0; i < d->P; i++) {
            work[i] = r->present[i] ? mb->mean : 0;
            x[i] = r->present[i] ? fmax(0, mb->mean - ideal_mean) : 0;
        }
        double cost = an_model_saving(a, r, AN_NONE, work, x);
        free(work);
        /* replicated or growing work: every process causes it, unless most of
         * the loss is the excess of a heavy group (then those processes).
         * Equal work on a crowded machine differs by 30 % or more of CPU time
         * between processes (13x contention: 0.68 s against a median of
         * 0.5 s), which must not single some out of a replicated loop. */
        uint32_t *procs = sc_xmalloc((d->P + 1) * sizeof *procs), np = 0;
        if (an_vr_has(r, v, AN_HAS_ICPU) && mb->imbalance >= th->imbalance) {
            const struct an_vrun *xv = an_vr(r, v);
            for (uint32_t i = 0; i < d->P; i++) x[i] = r->present[i] ? an_work(xv, i) : 0;
            struct an_split sp;
            an_split_values(d, x, r->period_s > 0 ? an_signal_s(r) : 0, &sp);
            if (sp.significant && sp.heavy_mean - sp.mean > th->location_share * a->loss[v])
                for (uint32_t k = 0; k < sp.nheavy; k++) procs[np++] = sp.heavy[k];
            an_split_free(&sp);
            /* a heavy group that ran the others' iterations only ran them
             * slower (another job on its cores): the growth is every
             * process's, not the group's (weak_scaling beside two CPU hogs) */
            double wr, tr;
            if (np && an_work_compare(&a->g, r, v, procs, np, &wr, &tr) == AN_WORK_SAME) np = 0;
        }
        if (np) {
            /* the mean grew because a heavy group works more: an imbalance (load
             * imbalance or serial bottleneck), the category a person can act on,
             * at the location rule's vertex; a cause found there from its waits
             * stays as it is */
            if (!c->merged) {
                uint32_t loc = an_locate_culprits(d, v, procs, np);
                if (loc != c->vertex) {
                    /* drop the fresh cause at v, take (or join) the one at loc */
                    a->ncauses--;
                    c = an_cause_get(a, loc);
                }
            }
            if (!c->merged) {
                c->cat = an_classify_computation(d, c->vertex, procs, np);
                double noise = 0;
                c->cost = an_fix_saving(d, c->vertex, AN_NONE, procs, np,
                                        c->cat == AN_CAT_SERIAL ? AN_FIX_SPREAD : an_imbalance_fix(d, c->vertex, procs, np),
                                        &noise);
                c->cost_noise = noise;
                c->cost_rule = "the culprits' work in the code brought down to the others' (or spread evenly): "
                               "run time with a core per process, before minus after";
                an_cause_root_path(c, procs[0]);
            }
            an_cause_procs(c, procs, np);
            an_cause_evidence(c, "its mean time per process grows beyond the ideal (%.3g s against %.3g s at %u "
                              "processes) because %u process%s work more there",
                              mb->mean, ideal_mean, d->P, c->nprocs, c->nprocs == 1 ? "" : "es");
            continue;
        }
        for (uint32_t i = 0; i < d->P; i++)
            if (r->present[i]) procs[np++] = i;
        struct work_scaling ws;
        int contention = work_scaling(d, v, &ws) && ws.iterations_ok;
        if (!c->merged || cost > c->cost) {
            c->cat = c->merged && c->cat == AN_CAT_SERIAL ? AN_CAT_SERIAL
                     : contention                      ? AN_CAT_CONTENTION
                                                       : AN_CAT_NON_SCALABLE;
            c->cost = cost;
            c->cost_rule = a->opt->weak ? "each process's time above the ideal (the smallest count's time, weak "
                                          "scaling) removed: run time with a core per process, before minus after"
                                        : "each process's time above the ideal (the smallest count's time x p0 / P, "
                                          "strong scaling) removed: run time with a core per process, before minus "
                                          "after";
            c->cost_noise = mb->spread;
            c->nonzero_exact = iterations_grow(d, v);
            an_cause_root_path(c, np ? procs[0] : 0);
        }
        double ideal = mb->mean - a->loss[v];
        an_cause_procs(c, procs, np);
        an_cause_evidence(c, "mean time per process %.3g s at %u processes against an ideal %.3g s "
                          "(%s scaling from %u processes); log-log slope %.2f; model %s",
                          mb->mean, d->P, ideal, a->opt->weak ? "weak" : "strong", a->scales[0].P,
                          a->model[v].has_slope ? a->model[v].loglog_slope : NAN,
                          a->model[v].valid ? a->model[v].formula : "n/a");
        if (ws.known) work_evidence(d, c, &ws, contention);
    }
    free(x);
}

const struct an_detector an_detector_non_scalable = {
    "non_scalable",
    "computation whose mean time per process at the largest count is scaling_ratio above the ideal "
    "(strong: t(p0) p0/P, weak: t(p0)), by at least the minimum cost",
    mark, find};
