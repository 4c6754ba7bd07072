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
#include "../detect.h"

#include <math.h>
#include <stdlib.h>

static double transfer_seconds(const struct an_analysis *a, const struct an_run *r, uint32_t v)
{
    if (v >= r->nvr || !r->vr[v].ncalls || !r->present_count) return 0;
    enum an_mpi_role role = an_mpi_role(a->g.v[v].op);
    double base = INFINITY;
    for (uint32_t u = 0; u < r->nvr && u < a->g.n; u++) {
        if (u == v || !r->vr[u].ncalls || r->vr[u].min_call_s <= 0 || a->g.v[u].kind != PSG_MPI) continue;
        if (an_mpi_role(a->g.v[u].op) != role) continue;
        base = fmin(base, r->vr[u].min_call_s);
    }
    if (!isfinite(base)) base = 0;
    double per_call = r->vr[v].min_call_s - base;
    if (per_call < 0) per_call = 0;
    return r->vr[v].calls / r->present_count * per_call / fmax(1, r->contention);
}

/* Bytes (sent + received) per call of MPI vertex v, over all processes of run r. */
static double bytes_per_call(const struct an_run *r, uint32_t v)
{
    if (v >= r->nvr || r->vr[v].calls <= 0) return 0;
    return (r->vr[v].bytes_sent + r->vr[v].bytes_recv) / r->vr[v].calls;
}

/* Time inside MPI vertex v of the process that spent the least there, in
 * uncontended seconds (divided by the run's contention). */
static double fastest_seconds(const struct an_run *r, uint32_t v)
{
    if (v >= r->nvr || !r->vr[v].mpi || !r->vr[v].ncalls) return 0;
    double mn = INFINITY;
    for (uint32_t i = 0; i < r->P; i++)
        if (r->present[i] && r->vr[v].ncalls[i] > 0) mn = fmin(mn, r->vr[v].mpi[i]);
    return isfinite(mn) ? mn / fmax(1, r->contention) : 0;
}

/* Time per process in the calls of collective v made back to back: right
 * after another MPI call, with (almost) no computation in between, so with no
 * arrival skew from computation.  The computation intervals give, per pair of
 * MPI vertices, the count n, sum S and sum of squares Q of the interval
 * lengths; the long intervals among them number about S^2 / Q (the
 * participation ratio: exact for n_long equal intervals and the rest of
 * length 0, e.g. 19 relaxation phases among 2559 intervals between 128
 * Allreduces per iteration), the rest are back to back.  The share of v's
 * calls made back to back on every process (the least over processes) times
 * the mean time per process in v, where that share is at least min_share
 * (back_to_back_share), else 0; measured seconds.  -1 when the run recorded
 * no intervals. */
static double back_to_back_seconds(const struct an_run *r, uint32_t v, double min_share)
{
    if (!r->has_intervals || v >= r->nvr || !r->vr[v].mpi || !r->vr[v].ncalls) return -1;
    double sum = 0, share = 1;
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->P; i++) {
        if (!r->present[i] || r->vr[v].ncalls[i] <= 0) continue;
        double b = 0;
        for (uint32_t k = 0; k < r->nintervals; k++) {
            const struct an_interval *x = &r->intervals[k];
            if (x->next_vertex != v || x->prev_vertex == AN_NONE || !x->count || !x->wall || !x->wall_sq ||
                x->count[i] <= 0)
                continue;
            double S = x->wall[i], Q = x->wall_sq[i], nlong = Q > 0 ? S * S / Q : 0;
            b += fmax(0, x->count[i] - nlong);
        }
        share = fmin(share, fmin(1, b / r->vr[v].ncalls[i]));
        sum += r->vr[v].mpi[i], n++;
    }
    /* a call is back to back only where every process made it so: a process
     * that computed before it (rank 0 preparing what it broadcasts) delays
     * the others however directly they call it; and only where most calls
     * are, since the participation ratio of a few unequal phases would call
     * some of them short */
    if (!n) return -1;
    return share >= min_share ? share * sum / n : 0;
}

/* The smallest count below the largest where v exists, with at least
 * min_p processes (s0), or -1. */
static int first_scale(const struct an_analysis *a, uint32_t v, uint32_t min_p)
{
    for (uint32_t s = 0; s + 1 < a->nscales; s++)
        if (a->scales[s].P >= min_p && a->vm[(size_t)s * a->g.n + v].present) return (int)s;
    return -1;
}

/* The saving of fixing MPI vertex v (the growing operation's cost), seconds
 * per process at the largest count: its calls per process there times the
 * growth of its mean time per call from the base count, the smallest count
 * with two or more processes (on one process a collective is a copy and a
 * point-to-point call a local one, so growth from p = 1 would count the
 * operation's whole cost, which a fix cannot remove), divided by the
 * processes per core of the largest run: with f processes sharing a core, a
 * second inside the operation of one process is 1/f second of that core, the
 * other processes run meanwhile.  Checked against the examples' defect-off
 * reruns (latency_collective: 0.13 s against a measured 0.13 s; growing
 * collective: 0.41 s against 0.42 s at 8 processes on 2 cores).  *base_P
 * receives the base count (0 when v has no base). */
static double saving_seconds(const struct an_analysis *a, uint32_t v, uint32_t *base_P)
{
    int s0 = first_scale(a, v, 2);
    if (s0 < 0) s0 = first_scale(a, v, 1);
    *base_P = 0;
    if (s0 < 0) return 0;
    const struct an_vmetrics *m0 = &a->vm[(size_t)s0 * a->g.n + v];
    const struct an_vmetrics *m1 = &a->vm[(size_t)(a->nscales - 1) * a->g.n + v];
    const struct an_run *r0 = a->scales[s0].rep, *r1 = a->scales[a->nscales - 1].rep;
    double c0 = m0->calls / fmax(1, r0->present_count), c1 = m1->calls / fmax(1, r1->present_count);
    *base_P = a->scales[s0].P;
    if (c0 <= 0 || c1 <= 0) return 0;
    double grow = c1 * (m1->mean / c1 - m0->mean / c0);
    return grow > 0 ? grow / fmax(1, r1->oversub) : 0;
}

/* Symptom rule: transfer, volume or latency growth (above) by scaling_ratio
 * and the minimum cost, with the mean time's growth (the loss) at least the
 * minimum cost and above the repetition spread. */
static void mark(struct an_detect *d)
{
    struct an_analysis *a = d->a;
    const struct an_thresholds *th = &a->opt->th;
    if (a->nscales < 2) return;
    const struct an_run *r = d->r;
    for (uint32_t v = 0; v < d->N; v++) {
        const struct an_vertex *vx = &a->g.v[v];
        const struct an_vmetrics *mb = &a->vm[(size_t)(a->nscales - 1) * d->N + v];
        if (vx->kind != PSG_MPI || !mb->present || an_mpi_is_init(vx->op)) continue;
        enum an_mpi_role role = an_mpi_role(vx->op);
        int s0 = first_scale(a, v, 1);
        if (s0 < 0 || role == AN_MPI_OTHER) continue;
        const struct an_vmetrics *m0 = &a->vm[(size_t)s0 * d->N + v];
        const struct an_run *r0 = a->scales[s0].rep;
        double x0 = transfer_seconds(a, r0, v), x1 = transfer_seconds(a, r, v);
        double b0 = bytes_per_call(r0, v), b1 = bytes_per_call(r, v);
        double f0 = fastest_seconds(r0, v), f1 = fastest_seconds(r, v);
        double spread = fmax(mb->spread, m0->spread);
        int transfer = x1 / fmax(x0, 1e-9) >= th->scaling_ratio && x1 - x0 >= d->min_cost;
        int grows = f1 / fmax(f0, 1e-9) >= th->scaling_ratio && f1 - f0 >= d->min_cost;
        int volume = b0 > 0 && b1 >= th->bandwidth_bytes && b1 / b0 >= th->scaling_ratio && grows;
        int latency = 0;
        int s2 = first_scale(a, v, 2);
        if (role == AN_MPI_COLLECTIVE && s2 >= 0) {
            /* the cheapest smaller count with two or more processes is the base */
            double g0 = INFINITY, o0 = INFINITY, o1 = back_to_back_seconds(r, v, th->back_to_back_share);
            for (uint32_t s = (uint32_t)s2; s + 1 < a->nscales; s++)
                if (a->vm[(size_t)s * d->N + v].present) {
                    g0 = fmin(g0, fastest_seconds(a->scales[s].rep, v));
                    double o = back_to_back_seconds(a->scales[s].rep, v, th->back_to_back_share);
                    if (o >= 0) o0 = fmin(o0, o);
                }
            latency = f1 / fmax(g0, 1e-9) >= th->scaling_ratio && f1 - g0 >= d->min_cost;
            /* calls right after another MPI call, with (almost) no computation
             * between: no late arrival delayed by computation, so their time is the
             * operation's own even on a contended machine */
            if (r->contention > th->contention_max && o1 >= 0) {
                if (!isfinite(o0)) o0 = g0; /* no intervals at the smaller counts: the fastest process there */
                latency = o1 / fmax(o0, 1e-9) >= th->scaling_ratio && o1 - o0 >= d->min_cost;
            }
            if (latency && r->contention > th->contention_max && !transfer && !volume && o1 < 0) {
                latency = 0;
                if (a->loss[v] >= d->min_cost)
                    an_warn(a, "%s (%s:%u): its time per process grows from %.3g s at %u to %.3g s at %u processes "
                               "(%.3g bytes per call, latency-bound), but the run at %u processes was %.2gx "
                               "contended: that cannot be told from waiting for the scheduler; rerun with a core "
                               "per process to judge it",
                            an_mpi_name(vx->op), vx->file, vx->line, m0->mean, a->scales[s0].P, mb->mean, d->P,
                            b1, d->P, r->contention);
            }
        }
        uint32_t pb;
        double save = saving_seconds(a, v, &pb);
        if ((transfer || volume || latency) && save >= d->min_cost && save > spread / fmax(1, r->oversub))
            a->vflags[v] |= AN_F_NON_SCALABLE;
    }
}

static void find(struct an_detect *d)
{
    struct an_analysis *a = d->a;
    const struct an_thresholds *th = &a->opt->th;
    if (a->nscales < 2) return;
    const struct an_run *r = d->r;
    for (uint32_t v = 0; v < d->N; v++) {
        const struct an_vertex *vx = &a->g.v[v];
        if (!(a->vflags[v] & AN_F_NON_SCALABLE) || vx->kind != PSG_MPI) continue;
        /* the base: the smallest count with two or more processes where v
         * exists (on one process a collective is a copy) */
        int s0 = first_scale(a, v, 2);
        if (s0 < 0) s0 = first_scale(a, v, 1);
        if (s0 < 0) continue;
        const struct an_vmetrics *mb = &a->vm[(size_t)(a->nscales - 1) * d->N + v];
        const struct an_vmetrics *m0 = &a->vm[(size_t)s0 * d->N + v];
        const struct an_run *r0 = a->scales[s0].rep;
        uint32_t p0 = a->scales[s0].P, pb;
        double f0 = fastest_seconds(r0, v), f1 = fastest_seconds(r, v);
        double cost = saving_seconds(a, v, &pb);
        struct an_cause *c = an_cause_get(a, v);
        if (!c->merged || cost > c->cost) {
            c->cat = AN_CAT_GROWING_COMM;
            c->cost = cost;
            c->cost_rule = "calls per process at the largest count x the growth of the operation's mean wall time "
                           "per call from the smallest count with two or more processes, divided by the processes "
                           "per core";
            c->cost_noise = fmax(mb->spread, m0->spread) / fmax(1, r->oversub);
            an_cause_root_path(c, 0);
        }
        an_cause_procs(c, an_xmalloc(sizeof(uint32_t)), 0);
        double c0 = m0->calls / fmax(1, r0->present_count), c1 = mb->calls / fmax(1, r->present_count);
        an_cause_evidence(c, "%s: time of the fastest process grows from %.3g s at %u to %.3g s at %u "
                          "processes (%.3g to %.3g ms per call; model %s); bytes per call %.3g at %u, %.3g at %u "
                          "processes (%s)",
                          an_mpi_name(vx->op), f0 * fmax(1, r0->contention), p0, f1 * fmax(1, r->contention),
                          d->P, c0 > 0 ? f0 * fmax(1, r0->contention) / c0 * 1e3 : 0.0,
                          c1 > 0 ? f1 * fmax(1, r->contention) / c1 * 1e3 : 0.0,
                          a->model[v].valid ? a->model[v].formula : "n/a",
                          m0->calls > 0 ? m0->bytes / m0->calls : 0.0, p0, mb->calls > 0 ? mb->bytes / mb->calls : 0.0,
                          d->P, mb->calls > 0 && mb->bytes / mb->calls >= th->bandwidth_bytes ? "bandwidth-bound"
                                                                                              : "latency-bound");
        if (r->contention > th->contention_max)
            an_cause_evidence(c, "caveat: the run at %u processes was %.2gx contended (oversubscribed or loaded); "
                              "times are divided by that factor, but part of the growth may still be the "
                              "scheduler's: confirm on a machine with a core per process", d->P, r->contention);
    }
}

const struct an_detector an_detector_growing_comm = {
    "growing_comm",
    "an MPI operation whose own time per process (fastest process, transfer cost or bandwidth-bound "
    "volume) grows by scaling_ratio and the minimum cost from the smallest to the largest count",
    mark, find};
