/* growing_comm.c — detector "growing_comm": communication whose own cost per
 * process grows with p.  The own cost of an MPI vertex is judged three ways,
 * all in uncontended seconds (divided by the run's contention):
 *  - transfer: calls per process x (its shortest single call - the shortest
 *    call of any other operation of the same role: the control for latency
 *    and scheduling);
 *  - volume: the bytes per call grew, are bandwidth-bound (bandwidth_bytes)
 *    and the time of its fastest process grew;
 *  - latency (collectives only, runs with contention <= contention_max):
 *    the time of its fastest process (the last arrival, which waited for
 *    nobody) grew by scaling_ratio and the minimum cost from the smallest
 *    count with two or more processes (on one process a collective is a
 *    copy), also when each call moves the same few bytes (a latency-bound
 *    Allreduce whose cost grows like log p or worse).  On a contended run
 *    the fastest process's time cannot be told from waiting for the
 *    scheduler: in a balanced loop of 8 processes on 2 cores the last
 *    arrival changes from one iteration to the next, so every process waits
 *    in most calls (one Allreduce per iteration: 6.9 ms per call for the
 *    fastest process, against 0.2 ms for a latency-bound loop of 128
 *    Allreduces) and neither the contention nor the shortest call (0.2 us)
 *    separates them.  There, with computation intervals, the time of the
 *    calls made back to back (after another MPI call with no computation
 *    between: back_to_back_seconds) is the operation's own and must grow the
 *    same way; without intervals a warning gives the growth instead.  Not
 *    for point-to-point calls and completions: there every call may wait
 *    for a partner.
 * On a contended run the cause is still reported, with a caveat.  Its cost is
 * what the run would save if each call cost what it cost at the smallest
 * count with two or more processes, on the run's cores (saving_seconds). */
#include "core/mpi_table.h"
#include "core/types.h"
#include "core/warn.h"
#include "detect/detect.h"
#include "ppg/run_source.h"
#include "ppg/vstat.h"
#include "sc_alloc.h"
#include "scalana/psg_format.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A call site: the MPI vertices of one operation at one source location
 * (file, line, column), i.e. one MPI call reached through several calling
 * contexts (HPCG's dot product calls its MPI_Allreduce from 26 places of the
 * CG and the multigrid).  Each context alone may be too small; the site is
 * judged on their sums.  v[0] is the member with the most time at the
 * largest count, where the cause is reported. */
struct site { uint32_t *v, n; };

static int in_site(const struct site *st, uint32_t u)
{
    for (uint32_t k = 0; k < st->n; k++)
        if (st->v[k] == u) return 1;
    return 0;
}

static double transfer_seconds(const struct an_analysis *a, const struct an_run *r, const struct site *st)
{
    if (!r->present_count) return 0;
    enum an_mpi_role role = an_mpi_role(a->g.v[st->v[0]].op);
    double base = INFINITY, mine = INFINITY, calls = 0;
    for (uint32_t k = 0; k < st->n; k++) {
        uint32_t v = st->v[k];
        if (!an_vr_has(r, v, AN_HAS_NCALLS) || r->vr[v].calls <= 0) continue;
        mine = fmin(mine, r->vr[v].min_call_s), calls += r->vr[v].calls;
    }
    if (!isfinite(mine) || calls <= 0) return 0;
    for (uint32_t u = 0; u < r->nvr && u < a->g.n; u++) {
        if (in_site(st, u) || !an_vr_has(r, u, AN_HAS_NCALLS) || r->vr[u].min_call_s <= 0 || a->g.v[u].kind != PSG_MPI) continue;
        if (an_mpi_role(a->g.v[u].op) != role) continue;
        base = fmin(base, r->vr[u].min_call_s);
    }
    if (!isfinite(base)) base = 0;
    double per_call = mine - base;
    if (per_call < 0) per_call = 0;
    return calls / r->present_count * per_call / fmax(1, r->contention);
}

/* Bytes (sent + received) per call of the site, over all processes of run r. */
static double bytes_per_call(const struct an_run *r, const struct site *st)
{
    double b = 0, c = 0;
    for (uint32_t k = 0; k < st->n; k++) {
        uint32_t v = st->v[k];
        if (v >= r->nvr) continue;
        b += r->vr[v].bytes_sent + r->vr[v].bytes_recv, c += r->vr[v].calls;
    }
    return c > 0 ? b / c : 0;
}

/* Time inside the site of the process that spent the least there (summed
 * over the site's contexts), in uncontended seconds (divided by the run's
 * contention). */
static double fastest_seconds(const struct an_run *r, const struct site *st)
{
    struct an_site_figures f;
    an_site_figures(r, st->v, st->n, &f);
    return isfinite(f.fastest) ? f.fastest / fmax(1, r->contention) : 0;
}

/* Time per process in the calls of the site made back to back: right
 * after another MPI call, with (almost) no computation in between, so with no
 * arrival skew from computation.  The computation intervals give, per pair of
 * MPI vertices, the count n, sum S and sum of squares Q of the interval
 * lengths; the long intervals among them number about S^2 / Q (the
 * participation ratio: exact for n_long equal intervals and the rest of
 * length 0, e.g. 19 relaxation phases among 2559 intervals between 128
 * Allreduces per iteration), the rest are back to back.  The share of the
 * site's calls made back to back on every process (the least over processes,
 * an_site_figures) times the mean time per process in the site, where that
 * share is at least min_share (back_to_back_share), else 0; measured
 * seconds.  -1 when the run recorded no intervals.  A call is back to back
 * only where every process made it so: a process that computed before it
 * (rank 0 preparing what it broadcasts) delays the others however directly
 * they call it; and only where most calls are, since the participation ratio
 * of a few unequal phases would call some of them short. */
static double back_to_back_seconds(const struct an_run *r, const struct site *st, double min_share)
{
    if (!r->has_intervals) return -1;
    struct an_site_figures f;
    an_site_figures(r, st->v, st->n, &f);
    if (!f.n) return -1;
    return f.share >= min_share ? f.share * f.sum_t / f.n : 0;
}

/* The smallest count below the largest where the site exists, with at least
 * min_p processes, or -1. */
static int first_scale(const struct an_analysis *a, const struct site *st, uint32_t min_p)
{
    for (uint32_t s = 0; s + 1 < a->nscales; s++) {
        if (a->scales[s].P < min_p) continue;
        for (uint32_t k = 0; k < st->n; k++)
            if (a->vm[(size_t)s * a->g.n + st->v[k]].present) return (int)s;
    }
    return -1;
}

/* Sums over the site at scale s: mean time per process, calls (all
 * processes), bytes, repetition spread, scaling loss (at the largest). */
struct site_sum { double mean, calls, bytes, spread, loss; };
static struct site_sum site_sum(const struct an_analysis *a, const struct site *st, uint32_t s)
{
    struct site_sum x = {0, 0, 0, 0, 0};
    for (uint32_t k = 0; k < st->n; k++) {
        const struct an_vmetrics *m = &a->vm[(size_t)s * a->g.n + st->v[k]];
        if (!m->present) continue;
        x.mean += m->mean, x.calls += m->calls, x.bytes += m->bytes, x.spread += m->spread;
        x.loss += a->loss[st->v[k]];
    }
    return x;
}

/* The saving of fixing the site (the growing operation's cost), seconds per
 * process at the largest count: its calls per process there times the
 * growth of its mean time per call from the base count, the smallest count
 * with two or more processes (on one process a collective is a copy and a
 * point-to-point call a local one, so growth from p = 1 would count the
 * operation's whole cost, which a fix cannot remove), each run's time per
 * call divided by its contention first: with f processes sharing a core, a
 * second inside the operation of one process is 1/f second of that core, the
 * other processes run meanwhile, and another job's load stretches the calls
 * of both runs (dividing only the growth by the processes per core charged
 * that load to the code).  Checked against the examples' defect-off
 * reruns (latency_collective: 0.13 s against a measured 0.13 s; growing
 * collective: 0.41 s against 0.42 s at 8 processes on 2 cores).  *base_s
 * receives the base scale (-1 when the site has none). */
static double saving_seconds(const struct an_analysis *a, const struct site *st, int *base_s)
{
    int s0 = first_scale(a, st, 2);
    if (s0 < 0) s0 = first_scale(a, st, 1);
    *base_s = s0;
    if (s0 < 0) return 0;
    struct site_sum m0 = site_sum(a, st, (uint32_t)s0), m1 = site_sum(a, st, a->nscales - 1);
    const struct an_run *r0 = a->scales[s0].rep, *r1 = a->scales[a->nscales - 1].rep;
    double c0 = m0.calls / fmax(1, r0->present_count), c1 = m1.calls / fmax(1, r1->present_count);
    if (c0 <= 0 || c1 <= 0) return 0;
    double q0 = fmax(1, r0->contention), q1 = fmax(1, r1->contention);
    double grow = c1 * (m1.mean / c1 / q1 - m0.mean / c0 / q0);
    return grow > 0 ? grow : 0;
}

/* The call sites of the graph's communicating MPI vertices present at the
 * largest count: sites[k].v[0] the member with the most time there.  Returns
 * the number of sites; *out is freed with free_sites. */
static uint32_t find_sites(const struct an_detect *d, struct site **out)
{
    const struct an_analysis *a = d->a;
    struct site *st = sc_xmalloc((d->N + 1) * sizeof *st);
    uint32_t ns = 0;
    uint8_t *done = calloc(d->N + 1, 1);
    if (!done) abort();
    for (uint32_t v = 0; v < d->N; v++) {
        const struct an_vertex *vx = &a->g.v[v];
        if (done[v] || vx->kind != PSG_MPI || an_mpi_is_init(vx->op) || an_mpi_role(vx->op) == AN_MPI_OTHER) continue;
        struct site *s = &st[ns];
        s->v = sc_xmalloc((d->N - v + 1) * sizeof *s->v), s->n = 0;
        for (uint32_t u = v; u < d->N; u++)
            if (!done[u] && a->g.v[u].kind == PSG_MPI && an_same_call_site(vx, &a->g.v[u])) done[u] = 1, s->v[s->n++] = u;
        /* representative: most time at the largest count */
        if (!an_most_time_first(a, s->v, s->n)) { free(s->v); continue; }
        ns++;
    }
    free(done);
    *out = st;
    return ns;
}

static void free_sites(struct site *st, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++) free(st[k].v);
    free(st);
}

/* Symptom rule: transfer, volume or latency growth (above) by scaling_ratio
 * and symptom_share of the minimum cost, with the saving at least that and above
 * the repetition spread; judged per call site (all its calling contexts
 * together).  The site's representative vertex is flagged. */
static void mark(struct an_detect *d)
{
    struct an_analysis *a = d->a;
    const struct an_thresholds *th = &a->opt->th;
    if (a->nscales < 2) return;
    const struct an_run *r = d->r;
    /* symptom_share of the minimum cost: a smaller saving becomes a candidate */
    const double lo = th->symptom_share * d->min_cost;
    struct site *sites;
    uint32_t nsites = find_sites(d, &sites);
    for (uint32_t k = 0; k < nsites; k++) {
        const struct site *st = &sites[k];
        uint32_t v = st->v[0];
        const struct an_vertex *vx = &a->g.v[v];
        enum an_mpi_role role = an_mpi_role(vx->op);
        int s0 = first_scale(a, st, 1);
        if (s0 < 0) continue;
        const struct an_run *r0 = a->scales[s0].rep;
        struct site_sum mb = site_sum(a, st, a->nscales - 1), m0 = site_sum(a, st, (uint32_t)s0);
        double x0 = transfer_seconds(a, r0, st), x1 = transfer_seconds(a, r, st);
        double b0 = bytes_per_call(r0, st), b1 = bytes_per_call(r, st);
        double f0 = fastest_seconds(r0, st), f1 = fastest_seconds(r, st);
        double spread = fmax(mb.spread, m0.spread);
        int transfer = x1 / fmax(x0, 1e-9) >= th->scaling_ratio && x1 - x0 >= lo;
        int grows = f1 / fmax(f0, 1e-9) >= th->scaling_ratio && f1 - f0 >= lo;
        int volume = b0 > 0 && b1 >= th->bandwidth_bytes && b1 / b0 >= th->scaling_ratio && grows;
        int latency = 0;
        int s2 = first_scale(a, st, 2);
        if (role == AN_MPI_COLLECTIVE && s2 >= 0) {
            /* the cheapest smaller count with two or more processes is the base */
            double g0 = INFINITY, o0 = INFINITY, o1 = back_to_back_seconds(r, st, th->back_to_back_share);
            for (uint32_t s = (uint32_t)s2; s + 1 < a->nscales; s++) {
                int present = 0;
                for (uint32_t j = 0; j < st->n; j++) present |= a->vm[(size_t)s * d->N + st->v[j]].present;
                if (!present) continue;
                g0 = fmin(g0, fastest_seconds(a->scales[s].rep, st));
                double o = back_to_back_seconds(a->scales[s].rep, st, th->back_to_back_share);
                if (o >= 0) o0 = fmin(o0, o);
            }
            int fastest_grows = f1 / fmax(g0, 1e-9) >= th->scaling_ratio && f1 - g0 >= lo;
            latency = fastest_grows;
            /* calls right after another MPI call, with (almost) no computation
             * between: no late arrival delayed by computation, so their time is the
             * operation's own even on a contended machine */
            if (r->contention > th->contention_max && o1 >= 0) {
                if (!isfinite(o0)) o0 = g0; /* no intervals at the smaller counts: the fastest process there */
                latency = o1 / fmax(o0, 1e-9) >= th->scaling_ratio && o1 - o0 >= lo;
            }
            /* on a contended run the fastest process's growth alone (a call after
             * computation, or no intervals) cannot be told from waiting for the
             * scheduler: no cause, a warning with the growth */
            if (fastest_grows && !latency && o1 >= 0 && r->contention > th->contention_max) latency = -1;
            if (latency && r->contention > th->contention_max && !transfer && !volume && (o1 < 0 || latency < 0)) {
                latency = 0;
                int sw;
                if (saving_seconds(a, st, &sw) >= lo && sw >= 0) {
                    a->vflags[v] |= AN_F_UNDECIDED; /* listed as an undecided candidate, never silenced */
                    an_warn(a, "%s (%s:%u%s): its time per process grows from %.3g s at %u to %.3g s at %u processes "
                               "(%.3g bytes per call, latency-bound), but the run at %u processes was %.2gx "
                               "contended%s: that cannot be told from waiting for the scheduler; rerun with a core "
                               "per process to judge it (listed as an undecided candidate)",
                            an_mpi_name(vx->op), vx->file, vx->line, st->n > 1 ? ", all its calling contexts" : "",
                            site_sum(a, st, (uint32_t)sw).mean, a->scales[sw].P, mb.mean, d->P, b1, d->P,
                            r->contention, o1 < 0 ? "" : " and its calls follow computation");
                }
            }
        }
        int sb;
        double save = saving_seconds(a, st, &sb);
        if ((transfer || volume || latency) && save >= lo && save > spread / fmax(1, r->oversub))
            a->vflags[v] |= AN_F_NON_SCALABLE;
    }
    free_sites(sites, nsites);
}

static void find(struct an_detect *d)
{
    struct an_analysis *a = d->a;
    const struct an_thresholds *th = &a->opt->th;
    if (a->nscales < 2) return;
    const struct an_run *r = d->r;
    struct site *sites;
    uint32_t nsites = find_sites(d, &sites);
    for (uint32_t k = 0; k < nsites; k++) {
        const struct site *st = &sites[k];
        uint32_t v = st->v[0];
        const struct an_vertex *vx = &a->g.v[v];
        int undecided = !(a->vflags[v] & AN_F_NON_SCALABLE) && (a->vflags[v] & AN_F_UNDECIDED);
        if (!(a->vflags[v] & AN_F_NON_SCALABLE) && !undecided) continue;
        /* the base: the smallest count with two or more processes where the
         * site exists (on one process a collective is a copy) */
        int s0;
        double cost = saving_seconds(a, st, &s0);
        if (s0 < 0) continue;
        struct site_sum mb = site_sum(a, st, a->nscales - 1), m0 = site_sum(a, st, (uint32_t)s0);
        const struct an_run *r0 = a->scales[s0].rep;
        uint32_t p0 = a->scales[s0].P;
        double f0 = fastest_seconds(r0, st), f1 = fastest_seconds(r, st);
        struct an_cause *c = an_cause_get(a, v);
        if (undecided && c->merged && !c->undecided) continue; /* a decided cause stays */
        if (!c->merged || cost > c->cost) {
            c->cat = AN_CAT_GROWING_COMM;
            c->cost = cost;
            c->undecided = undecided ? "the largest run was contended and the calls follow computation (or the run "
                                       "recorded no computation intervals): the growth cannot be told from waiting "
                                       "for the scheduler"
                                     : NULL;
            c->cost_rule = "calls per process at the largest count x the growth of the operation's mean wall time "
                           "per call from the smallest count with two or more processes, divided by the processes "
                           "per core";
            c->cost_noise = fmax(mb.spread, m0.spread) / fmax(1, r->oversub), c->noise_exact = 1;
            an_cause_root_path(c, 0);
        }
        an_cause_procs(c, sc_xmalloc(sizeof(uint32_t)), 0);
        double c0 = m0.calls / fmax(1, r0->present_count), c1 = mb.calls / fmax(1, r->present_count);
        an_cause_evidence(c, "%s: time of the fastest process grows from %.3g s at %u to %.3g s at %u "
                          "processes (%.3g to %.3g ms per call; model %s); bytes per call %.3g at %u, %.3g at %u "
                          "processes (%s)",
                          an_mpi_name(vx->op), f0 * fmax(1, r0->contention), p0, f1 * fmax(1, r->contention),
                          d->P, c0 > 0 ? f0 * fmax(1, r0->contention) / c0 * 1e3 : 0.0,
                          c1 > 0 ? f1 * fmax(1, r->contention) / c1 * 1e3 : 0.0,
                          st->n == 1 && a->model[v].valid ? a->model[v].formula : "n/a",
                          m0.calls > 0 ? m0.bytes / m0.calls : 0.0, p0, mb.calls > 0 ? mb.bytes / mb.calls : 0.0,
                          d->P, mb.calls > 0 && mb.bytes / mb.calls >= th->bandwidth_bytes ? "bandwidth-bound"
                                                                                           : "latency-bound");
        if (st->n > 1)
            an_cause_evidence(c, "summed over the call's %u calling contexts (%.3g s per process at %u processes, "
                              "%.3g at %u)", st->n, m0.mean, p0, mb.mean, d->P);
        if (r->contention > th->contention_max)
            an_cause_evidence(c, "caveat: the run at %u processes was %.2gx contended (oversubscribed or loaded); "
                              "times are divided by that factor, but part of the growth may still be the "
                              "scheduler's: confirm on a machine with a core per process", d->P, r->contention);
    }
    free_sites(sites, nsites);
}

const struct an_detector an_detector_growing_comm = {
    "growing_comm",
    "an MPI operation whose own time per process (fastest process, transfer cost or bandwidth-bound "
    "volume) grows by scaling_ratio and the minimum cost from the smallest to the largest count",
    mark, find};
