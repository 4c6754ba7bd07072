/* imbalance.c — detector "imbalance": computation out of balance at the
 * largest count that no earlier detector explained (nobody was found waiting
 * for it, e.g. because the waits are spread over many MPI calls).  The
 * processes split into a heavy and a light group (an_split_values); the
 * cost is what balancing it saves, max - mean; the category load imbalance
 * or serial bottleneck (an_classify_computation). */
#include "core/graph.h"
#include "core/types.h"
#include "detect/detect.h"
#include "ppg/run_source.h"
#include "ppg/vtime.h"
#include "sc_alloc.h"
#include "scalana/psg_format.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Symptom rule: the vertex's own (exclusive) CPU time splits into a
 * significantly heavier group (sample counts, Poisson test at alpha / (n - 1),
 * heavy mean / mean >= imbalance) with max - mean at least the minimum cost. */
static void mark(struct an_detect *d)
{
    struct an_analysis *a = d->a;
    const struct an_run *r = d->r;
    double *x = sc_xmalloc((d->P + 1) * sizeof *x);
    for (uint32_t v = 0; v < d->N && v < r->nvr; v++) {
        const struct an_vmetrics *mb = &a->vm[(size_t)(a->nscales - 1) * d->N + v];
        if (a->g.v[v].kind == PSG_MPI || !mb->present || !an_vr_has(r, v, AN_HAS_CPU)) continue;
        /* the saving is at most max - mean (an_balance_saving: a group's mean is at most
         * the max), known from the vertex's statistics without its per-process values
         * (a parallel analysis fetches only the vertices past this test; the margin
         * covers the rounding of sums added in another order) */
        const struct an_vstat *st = &r->vr[v].st;
        if (st->n && st->max_cpu - st->sum_cpu / st->n < d->min_cost * (1 - 1e-9)) continue;
        const float *cpu = an_vr(r, v)->cpu;
        for (uint32_t i = 0; i < d->P; i++) x[i] = r->present[i] ? cpu[i] : 0;
        if (an_balance_saving(r, x) < d->min_cost) continue;
        struct an_split sp;
        an_split_values(d, x, an_signal_s(r), &sp);
        if (sp.significant) a->vflags[v] |= AN_F_IMBALANCED;
        an_split_free(&sp);
    }
    free(x);
}

static void find(struct an_detect *d)
{
    struct an_analysis *a = d->a;
    const struct an_run *r = d->r;
    double *x = sc_xmalloc((d->P + 1) * sizeof *x);
    for (uint32_t v = 0; v < d->N; v++) {
        if (!(a->vflags[v] & AN_F_IMBALANCED)) continue;
        int covered = 0;
        for (uint32_t k = 0; k < a->ncauses && !covered; k++)
            covered = a->causes[k].path && (an_graph_is_ancestor(&a->g, a->causes[k].vertex, v) ||
                                            an_graph_is_ancestor(&a->g, v, a->causes[k].vertex));
        if (covered) continue;
        const float *cpu = an_vr(r, v)->cpu;
        for (uint32_t i = 0; i < d->P; i++) x[i] = r->present[i] ? cpu[i] : 0;
        struct an_split sp;
        an_split_values(d, x, an_signal_s(r), &sp);
        uint8_t *heavy = calloc(d->P + 1, 1);
        if (!heavy) abort();
        for (uint32_t k = 0; k < sp.nheavy; k++) heavy[sp.heavy[k]] = 1;
        struct an_groups gr = {d, heavy};
        uint32_t loc = an_locate_from(d, v, an_group_excess, &gr);
        free(heavy);
        uint32_t *procs = sc_xmalloc((sp.nheavy + 1) * sizeof *procs);
        memcpy(procs, sp.heavy, sp.nheavy * sizeof *procs);
        uint32_t np = sp.nheavy;
        struct an_cause *c = an_cause_get(a, loc);
        if (c->merged) {
            free(procs);
            an_split_free(&sp);
            continue;
        }
        c->cat = an_classify_computation(d, c->vertex, procs, np);
        double noise = 0;
        int spread = c->cat == AN_CAT_SERIAL || an_imbalance_fix(d, c->vertex, procs, np) == AN_FIX_SPREAD;
        c->cost = an_fix_saving(d, c->vertex, AN_NONE, procs, np, spread ? AN_FIX_SPREAD : AN_FIX_EXCESS, &noise);
        c->cost_noise = noise;
        c->cost_rule = spread ? "the code's work spread evenly over the processes: run time of the processes' "
                                "computation before minus after, a core per process"
                              : "the culprits' work in the code brought down to the others': run time of the "
                                "processes' computation before minus after, a core per process";
        an_cause_procs(c, procs, np);
        an_cause_root_path(c, np ? c->procs[0] : 0);
        an_cause_evidence(c, "%u of %u processes spend %.3g s there against %.3g s on the others (max %.3g s, "
                          "mean %.3g s, exact Poisson test p = %.2g); no wait found that it causes",
                          sp.nheavy, r->present_count, sp.heavy_mean, sp.light_mean, sp.max, sp.mean, sp.p_value);
        an_split_free(&sp);
    }
    free(x);
}

const struct an_detector an_detector_imbalance = {
    "imbalance",
    "computation whose time splits the processes into a significantly heavier group (heavy mean / "
    "mean >= imbalance) with max - mean at least the minimum cost, that no wait was traced to",
    mark, find};
