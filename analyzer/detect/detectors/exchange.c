/* exchange.c — detector "exchange": point-to-point exchanges whose volume per
 * process does not shrink with the work.  An exchange is the point-to-point
 * MPI vertices (sends, receives, Sendrecv, completions) of one iteration
 * loop: the outermost loop around them in their function, or the function
 * when there is none, summed over every calling context (an exchange helper
 * called from many places is one exchange).  The completions carry the time
 * of non-blocking calls, the starts carry the bytes; only together do they say
 * what the exchange costs.
 *
 * Judged on what the profiles count exactly, whatever else runs on the
 * machine: bytes per process and distinct partners per process, from the
 * smallest count with two or more processes (p0) to the largest (P).
 *  - growing communication: the bytes per process grow (by scaling_ratio)
 *    from the next smaller count with three or more processes (p0 when there
 *    is none): a recursive-doubling exchange adds a partner and a round of
 *    the same size at every doubling of p (more partners with fewer bytes
 *    each, a reduce-scatter's rounds, is a volume that shrinks);
 *  - halo exchange (surface to volume): strong scaling, the partners stay the
 *    same but the bytes per process do not shrink like the work (measured over
 *    ideal, ideal = bytes at p0 x p0 / P, at least scaling_ratio): the
 *    boundary of a slab stays as long while the slab gets thinner.
 * Both need bandwidth-bound messages (bytes per message at least
 * bandwidth_bytes): below that a message's time is latency and scheduling,
 * which the growing_comm detector's transfer rule judges.  The cost is the time
 * per process in the exchange beyond what it would be had it shrunk like the
 * work (strong: its time at p0 x p0 / P; weak: its time at p0), each time
 * divided by its own run's contention first (with f processes sharing a
 * core, a second one process spends in the exchange is 1/f second of that
 * core; another job's load stretches the waits of both runs alike: miniAMR
 * beside two CPU hogs spent 16.4 s per process in its exchange at 2 and 11 s
 * at 4 processes, against 5.5 and 3.5 quiet, and dividing only the
 * difference by the processes per core made a 1.4 s growing communication
 * of a volume whose time shrank).  Waits at the exchange that a computation
 * cause already explains are left out of its time. */
#include "core/mpi_table.h"
#include "core/types.h"
#include "detect/detect.h"
#include "ppg/run_source.h"
#include "sc_alloc.h"
#include "scalana/psg_format.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int is_p2p(enum an_mpi_role r)
{
    return r == AN_MPI_SEND || r == AN_MPI_RECV || r == AN_MPI_SENDRECV || r == AN_MPI_COMPLETION;
}

/* Anchors of two contexts are the same exchange when they are the same source
 * construct: kind, file, line, function. */
static int same_anchor(const struct an_vertex *x, const struct an_vertex *y)
{
    return x->kind == y->kind && x->line == y->line &&
           (x->file == y->file || (x->file && y->file && !strcmp(x->file, y->file))) &&
           (x->function == y->function || (x->function && y->function && !strcmp(x->function, y->function)));
}

/* One exchange: its member vertices; v[0] is the member with the most time at
 * the largest count, where the cause is reported. */
struct exch { uint32_t *v, n, anchor; };

/* Figures of an exchange at scale s, per process of its representative run:
 * mean time (s), bytes sent + received, messages, the most distinct partners
 * of one process, and bytes per message. */
struct exch_fig { double time, bytes, partners, per_msg, spread; int present; };

static struct exch_fig figures(const struct an_analysis *a, const struct exch *x, uint32_t s)
{
    struct exch_fig f = {0, 0, 0, 0, 0, 0};
    const struct an_run *r = a->scales[s].rep;
    double n = fmax(1, r->present_count), calls_with_bytes = 0;
    for (uint32_t k = 0; k < x->n; k++) {
        const struct an_vmetrics *m = &a->vm[(size_t)s * a->g.n + x->v[k]];
        if (!m->present) continue;
        f.present = 1;
        f.time += m->mean, f.spread += m->spread, f.bytes += m->bytes / n;
        if (m->bytes > 0) calls_with_bytes += m->calls;
    }
    if (!f.present) return f;
    f.per_msg = calls_with_bytes > 0 ? f.bytes * n / calls_with_bytes : 0;
    /* distinct partners per process, from the partner records of the members */
    for (uint32_t i = 0; i < r->P; i++) {
        if (!r->present[i]) continue;
        size_t np;
        const struct an_peer_rec *pr = an_run_peers_of(r, i, &np);
        int32_t seen[64];
        uint32_t ns = 0;
        for (size_t k = 0; k < np && ns < 64; k++) {
            int mine = 0;
            for (uint32_t j = 0; j < x->n && !mine; j++) mine = pr[k].vertex == x->v[j];
            if (!mine || pr[k].peer < 0 || pr[k].count == 0) continue;
            int dup = 0;
            for (uint32_t j = 0; j < ns && !dup; j++) dup = seen[j] == pr[k].peer;
            if (!dup) seen[ns++] = pr[k].peer;
        }
        f.partners = fmax(f.partners, ns);
    }
    return f;
}

/* Process-seconds of wait at the exchange's members that causes found so far
 * (by the waits detector) explain, per process of the largest run. */
static double explained_per_process(const struct an_analysis *a, const struct exch *x, uint32_t P)
{
    double e = 0;
    for (uint32_t k = 0; k < a->ncauses; k++)
        for (uint32_t j = 0; j < x->n; j++)
            if (a->causes[k].symptom == x->v[j] && a->causes[k].vertex != x->v[j]) e += a->causes[k].explained_wait;
    return e / fmax(1, P);
}

static uint32_t find_exchanges(const struct an_detect *d, struct exch **out)
{
    const struct an_analysis *a = d->a;
    const struct an_graph *g = &a->g;
    uint32_t *anc = sc_xmalloc((d->N + 1) * sizeof *anc);
    for (uint32_t v = 0; v < d->N; v++)
        anc[v] = g->v[v].kind == PSG_MPI && is_p2p(an_mpi_role(g->v[v].op)) ? an_iteration_anchor(g, v) : AN_NONE;
    struct exch *ex = sc_xmalloc((d->N + 1) * sizeof *ex);
    uint32_t ne = 0;
    uint8_t *done = calloc(d->N + 1, 1);
    if (!done) abort();
    for (uint32_t v = 0; v < d->N; v++) {
        if (done[v] || anc[v] == AN_NONE) continue;
        struct exch *e = &ex[ne];
        e->v = sc_xmalloc((d->N - v + 1) * sizeof *e->v), e->n = 0, e->anchor = anc[v];
        for (uint32_t u = v; u < d->N; u++)
            if (!done[u] && anc[u] != AN_NONE && same_anchor(&g->v[anc[v]], &g->v[anc[u]]))
                done[u] = 1, e->v[e->n++] = u;
        if (!an_most_time_first(a, e->v, e->n)) { free(e->v); continue; }
        ne++;
    }
    free(done), free(anc);
    *out = ex;
    return ne;
}

/* The verdict on one exchange: 0 (none), AN_CAT_GROWING_COMM or AN_CAT_HALO,
 * with its cost (seconds at the largest count) and the figures it used. */
struct verdict { int cat; double cost, noise; struct exch_fig f0, fr, f1; uint32_t p0, pr; };

static struct verdict judge(const struct an_detect *d, const struct exch *x)
{
    const struct an_analysis *a = d->a;
    const struct an_thresholds *th = &a->opt->th;
    struct verdict vd;
    memset(&vd, 0, sizeof vd);
    uint32_t S = a->nscales, s0 = S, sr = S;
    for (uint32_t s = 0; s + 1 < S; s++) {
        if (a->scales[s].P < 2) continue;
        /* (the counts where the exchange moves bytes: from the vertex metrics,
         * the partner records are read for the three counts judged only) */
        double bytes = 0;
        for (uint32_t k = 0; k < x->n; k++) {
            const struct an_vmetrics *m = &a->vm[(size_t)s * a->g.n + x->v[k]];
            if (m->present) bytes += m->bytes;
        }
        if (!(bytes > 0)) continue;
        if (s0 == S) s0 = s;
        if (a->scales[s].P >= 3) sr = s;
    }
    if (s0 == S) return vd;
    if (sr == S) sr = s0;
    vd.f0 = figures(a, x, s0), vd.fr = figures(a, x, sr), vd.f1 = figures(a, x, S - 1);
    vd.p0 = a->scales[s0].P, vd.pr = a->scales[sr].P;
    const struct exch_fig *f0 = &vd.f0, *fr = &vd.fr, *f1 = &vd.f1;
    if (!f1->present || f1->per_msg < th->bandwidth_bytes || f0->bytes <= 0) return vd;
    double P = d->P, p0 = vd.p0;
    int weak = a->scaling.weak;
    /* growing: more bytes per process (more rounds, more partners) than at the
     * next smaller count; more partners alone, with fewer bytes, is a
     * volume that shrinks (a reduce-scatter's rounds) */
    int growing = f1->bytes / fmax(fr->bytes, 1) >= th->scaling_ratio;
    double ideal_bytes = weak ? f0->bytes : f0->bytes * p0 / P;
    /* halo: the same partners, a volume that does not shrink like the work */
    int halo = !weak && f1->partners <= fr->partners && f1->bytes / fmax(ideal_bytes, 1) >= th->scaling_ratio;
    if (!growing && !halo) return vd;
    double c0 = fmax(1, a->scales[s0].rep->contention), c1 = fmax(1, d->r->contention);
    double ideal_time = (weak ? f0->time : f0->time * p0 / P) / c0;
    double own = (f1->time - explained_per_process(a, x, d->r->present_count)) / c1;
    vd.cost = fmax(0, own - ideal_time);
    vd.noise = fmax(f1->spread / c1, f0->spread / c0);
    vd.cat = growing ? AN_CAT_GROWING_COMM : AN_CAT_HALO;
    return vd;
}

static void find(struct an_detect *d)
{
    struct an_analysis *a = d->a;
    const struct an_thresholds *th = &a->opt->th;
    if (a->nscales < 2) return;
    struct exch *ex;
    uint32_t ne = find_exchanges(d, &ex);
    const double lo = th->symptom_share * d->min_cost;
    for (uint32_t k = 0; k < ne; k++) {
        const struct exch *x = &ex[k];
        struct verdict vd = judge(d, x);
        if (!vd.cat || vd.cost < lo || vd.cost <= vd.noise) continue;
        uint32_t v = x->v[0];
        struct an_cause *c = an_cause_get(a, v);
        /* a wait there that no computation explained (wait for a message,
         * rotating blame) is the transfer itself when the bytes say so: the
         * interior processes of a halo move twice the ends' bytes, which the
         * waits detector sees as time beyond their fastest calls */
        int unexplained = c->merged && c->vertex == c->symptom &&
                          (c->cat == AN_CAT_MESSAGE_WAIT || c->cat == AN_CAT_ROTATING);
        if (c->merged && c->cost >= vd.cost && !unexplained) continue;
        if (unexplained) {
            /* the transfer is everyone's: no late partner to name */
            c->evidence[0] = '\0';
            free(c->procs), c->procs = NULL, c->nprocs = c->nprocs_total = 0;
        }
        c->cat = (enum an_category)vd.cat;
        c->cost = vd.cost;
        c->undecided = NULL; /* the volumes and partners are exact: decided */
        c->cost_rule = "time per process in the exchange at the largest count beyond its time had it shrunk like "
                       "the work (strong: its time at the smallest count with two or more processes x p0 / P; "
                       "weak: that time), each time divided by its run's contention";
        c->cost_noise = vd.noise, c->noise_exact = 1;
        c->symptom = AN_NONE;
        an_cause_root_path(c, 0);
        an_cause_procs(c, sc_xmalloc(sizeof(uint32_t)), 0);
        const struct an_vertex *an = &a->g.v[x->anchor];
        an_cause_evidence(c, "point-to-point exchange of %s (%s at %s:%u, %u MPI call sites and contexts): per "
                          "process %.3g MB to %.3g partner%s at %u processes, %.3g MB to %.3g at %u "
                          "(%.3g KB per message, bandwidth-bound); %.3g s per process in it at %u, %.3g s at %u",
                          an->function ? an->function : "?", an->kind == PSG_LOOP ? "loop" : "function",
                          an->file ? an->file : "?", an->line, x->n, vd.f0.bytes / 1e6, vd.f0.partners,
                          vd.f0.partners == 1 ? "" : "s", vd.p0, vd.f1.bytes / 1e6, vd.f1.partners, d->P,
                          vd.f1.per_msg / 1e3, vd.f0.time, vd.p0, vd.f1.time, d->P);
        if (vd.cat == AN_CAT_HALO)
            an_cause_evidence(c, "the bytes per process shrink %.2gx from %u to %u processes while the work per "
                              "process shrinks %.2gx: the boundary does not shrink with the subdomain",
                              vd.f0.bytes / fmax(vd.f1.bytes, 1), vd.p0, d->P, (double)d->P / vd.p0);
        else
            an_cause_evidence(c, "from %u to %u processes the partners per process go from %.3g to %.3g and the "
                              "bytes per process grow %.2gx", vd.pr, d->P, vd.fr.partners, vd.f1.partners,
                              vd.f1.bytes / fmax(vd.fr.bytes, 1));
        if (d->r->contention > th->contention_max)
            an_cause_evidence(c, "caveat: the run at %u processes was %.2gx contended (oversubscribed or loaded): "
                              "the volumes and partners are exact, each run's time is divided by its contention",
                              d->P, d->r->contention);
        a->vflags[v] |= AN_F_NON_SCALABLE;
    }
    for (uint32_t k = 0; k < ne; k++) free(ex[k].v);
    free(ex);
}

const struct an_detector an_detector_exchange = {
    "exchange",
    "a point-to-point exchange (the sends, receives and completions of one loop) whose bandwidth-bound volume "
    "or partners per process grow with p (growing communication), or do not shrink like the work (halo)",
    NULL, find};
