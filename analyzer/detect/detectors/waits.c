/* waits.c — detector "waits": from MPI vertices where processes wait back to
 * the computation that makes them wait.  On the process that waits most the
 * PPG is walked backwards (across to the late sender or the last arrival,
 * then along control-flow predecessors, previous loop iterations and
 * callers); each computation vertex met is scored by the wait it explains,
 * sum_i min(wait_i, max_j V_j - V_i), if its spread over the processes is
 * evidence (an_split_values: sampled, or exact computation intervals).  The
 * best one, located by the location rule, is the root cause: load imbalance
 * or serial bottleneck (an_classify_computation), late sender or receiver
 * when the delaying code runs on the senders only, GPU-bound or transfers
 * when the culprits' extra work is device time.  What no computation
 * explains is the symptom's own cause (wait at collective, late sender,
 * rotating blame), or a "too thin" warning naming the likely code. */
#include "core/graph.h"
#include "core/mpi_table.h"
#include "core/types.h"
#include "core/warn.h"
#include "detect/detect.h"
#include "metrics/metrics.h"
#include "ppg/ppg.h"
#include "ppg/run_source.h"
#include "ppg/vtime.h"
#include "ppg/work.h"
#include "sc_alloc.h"
#include "sc_hash.h"
#include "scalana/profile_format.h"
#include "scalana/psg_format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where vertex v is for evidence text: "file:line", or "in FUNCTION" in a
 * build without -g (no lines). */
static const char *at_text(const struct an_vertex *v, char *buf, size_t n)
{
    if (v->file && *v->file && v->line) snprintf(buf, n, "%s:%u", v->file, v->line);
    else snprintf(buf, n, "in %s", v->function && *v->function ? v->function : "unknown code");
    return buf;
}

struct walk {
    struct an_detect *d;
    double *waits;               /* [P] of the current symptom */
    double *score_cache;         /* [N], NAN when not computed for this symptom */
    int unchecked;               /* explained(): score without the significance test */
    struct an_split last;        /* explained(): the split of the last candidate tested */
    /* exact computation intervals before the symptom (or the crossing) */
    int exact;                   /* the intervals there show an imbalance */
    int exact_avail;             /* the run measured those intervals' CPU exactly */
    double *exact_x;             /* [P] its exact CPU seconds per process */
    uint8_t *exact_heavy;        /* [P] its heavy processes */
    double sample_scale;         /* sample_scale(): NAN until computed */
    int by_work;                 /* explained(): the last candidate's evidence was its work counters */
    uint32_t posts[8], nposts;   /* non-blocking posts the interval was moved back over (posted_before) */
    struct wnode { uint32_t v, proc, from, hops; const char *edge; } *w;
    uint32_t nw, capw;
    uint64_t *seen; uint32_t nseen, capseen; /* visited (vertex, process) pairs */
    struct sc_hash seen_index;               /* indices into seen */
};

/* ---- visited set of (vertex, process) ---- */
static int seen_add(struct walk *b, uint32_t v, uint32_t p)
{
    uint64_t key = (uint64_t)v << 32 | p;
    struct sc_hash_it it;
    for (uint32_t k = sc_hash_first(&b->seen_index, key, &it); k != SC_HASH_NONE; k = sc_hash_next(&b->seen_index, &it))
        if (b->seen[k] == key) return 0;
    if (b->nseen == b->capseen) {
        b->capseen = b->capseen ? b->capseen * 2 : 64;
        b->seen = sc_xrealloc(b->seen, b->capseen * sizeof *b->seen);
    }
    if (sc_hash_add(&b->seen_index, key, b->nseen)) sc_oom();
    b->seen[b->nseen++] = key;
    return 1;
}

static void push(struct walk *b, uint32_t v, uint32_t proc, uint32_t from, const char *edge, uint32_t hops)
{
    if (v == AN_NONE || b->nw >= b->capw) return;
    if (!seen_add(b, v, proc)) return;
    b->w[b->nw++] = (struct wnode){v, proc, from, hops, edge};
}

static int is_mpi(const struct an_vertex *v) { return v->kind == PSG_MPI; }

/* Wait explained by candidate c: sum over processes of min(wait_i, max_j V_j -
 * V_i), V the work of c (an_work), when the spread of V is evidence:
 *  - device (GPU) time carries it: measured, so a spread of symptom_share of
 *    the minimum cost is enough;
 *  - the run recorded the exact computation intervals before the symptom and
 *    they show an imbalance (b->exact), and c lies in that interval (no MPI
 *    vertex between it and the symptom) with more work on the interval's
 *    heavy processes: the samples only say where inside the interval;
 *  - otherwise its sample counts split into a significantly heavier group
 *    (an_split_values: Poisson test at alpha / (n - 1), heavy mean / mean at
 *    least the imbalance threshold).
 * The wait itself is measured exactly by the MPI wrappers, so a short serial
 * section everyone waits for needs only the samples that tell it from noise.
 * b->unchecked skips the test (the "too thin" warning). */
/* Exact CPU seconds between MPI calls over sampled CPU seconds outside MPI,
 * all processes pooled (at least 1): how many CPU seconds one sampled second
 * stands for in this run.  About 1 on a quiet machine; beside two CPU hogs,
 * with 8 processes on 2 cores, 2-6: a CPU-time timer is checked at ticks that
 * land while its thread runs, and a thread that runs in short bursts between
 * waits gets its signals late and merged (short_imbalance's culprit once got
 * none for 0.23 s of its loop).  Computed once per run. */
static double sample_scale(struct walk *b)
{
    if (!isnan(b->sample_scale)) return b->sample_scale;
    struct an_detect *d = b->d;
    const struct an_run *r = d->r;
    const struct an_graph *g = &d->a->g;
    double *x = sc_xmalloc((d->P + 1) * sizeof *x), exact = 0, sampled = 0;
    for (uint32_t v = 0; v < d->N; v++) {
        if (g->v[v].kind == PSG_MPI && an_interval_before(r, v, 1, x))
            for (uint32_t i = 0; i < d->P; i++) exact += r->present[i] ? x[i] : 0;
        if (g->v[v].parent == AN_NONE && an_vr_has(r, v, AN_HAS_ICPU)) {
            const struct an_vrun *z = an_vr(r, v);
            for (uint32_t i = 0; i < d->P; i++) sampled += r->present[i] ? z->icpu[i] : 0;
        }
    }
    free(x);
    b->sample_scale = sampled > 0 && exact > sampled ? exact / sampled : 1;
    return b->sample_scale;
}

/* The work counters as evidence where the samples are too few: vertex c lies
 * in the interval before the symptom whose exact CPU times split into heavy
 * and light processes (b->exact), and c's loops counted more iterations on
 * the heavy ones (mean at least 5 % over the light mean, the margin of "more
 * work" in an_work_compare).  Counts are exact and no other job changes them,
 * so this holds on a busy machine whatever the sampler got.  t[P] = c's CPU
 * seconds per process modelled as its iterations times the pooled seconds
 * per iteration (all processes' samples at c over all their iterations,
 * scaled by sample_scale), each at most the process's exact CPU in the
 * interval.  Returns 1 when the work is the evidence (t filled), else 0. */
static int work_evidence(struct walk *b, uint32_t c, const double *cv, double *t)
{
    struct an_detect *d = b->d;
    const struct an_run *r = d->r;
    double *w = sc_xmalloc((d->P + 1) * sizeof *w);
    int ok = 0;
    if (an_work_at(&d->a->g, r, c, w)) {
        double wh = 0, wl = 0, ws = 0, cs = 0;
        uint32_t nh = 0, nl = 0;
        for (uint32_t i = 0; i < d->P; i++) {
            if (!r->present[i]) continue;
            if (b->exact_heavy[i]) wh += w[i], nh++;
            else wl += w[i], nl++;
            ws += w[i], cs += cv[i];
        }
        if (nh && nl && ws > 0 && cs > 0 && wh / nh >= 1.05 * (wl / nl) && wh / nh > 0) {
            double per = sample_scale(b) * cs / ws;
            for (uint32_t i = 0; i < d->P; i++)
                t[i] = r->present[i] ? fmin(w[i] * per, b->exact_x[i]) : 0;
            ok = 1;
        }
    }
    free(w);
    return ok;
}

static double explained(struct walk *b, uint32_t c, uint32_t hops, double *per_proc)
{
    struct an_detect *d = b->d;
    const struct an_run *r = d->r;
    const struct an_thresholds *th = &d->a->opt->th;
    if (!an_vr_has(r, c, AN_HAS_ICPU | AN_HAS_IGPU) || is_mpi(&d->a->g.v[c])) return 0;
    /* a cause is application code with a source location, not library internals */
    if (!an_actionable(&d->a->g, c)) return 0;
    if (!per_proc && !b->unchecked && !isnan(b->score_cache[c])) return b->score_cache[c];
    const struct an_vrun *x = an_vr(r, c);
    double *v = sc_xmalloc((d->P + 1) * sizeof *v), *cv = sc_xmalloc((d->P + 1) * sizeof *cv);
    double mx = 0, gspread = 0, cspread = 0, gmin = INFINITY, cmin = INFINITY, cmx = 0;
    for (uint32_t i = 0; i < d->P; i++) {
        v[i] = r->present[i] ? an_work(x, i) : 0;
        cv[i] = r->present[i] && x->icpu ? x->icpu[i] : 0;
        if (!r->present[i]) continue;
        mx = fmax(mx, v[i]), gmin = fmin(gmin, v[i]), cmx = fmax(cmx, cv[i]), cmin = fmin(cmin, cv[i]);
    }
    gspread = mx - gmin, cspread = cmx - cmin;
    double s = 0;
    int ok = 0;
    an_split_free(&b->last);
    b->by_work = 0;
    if (mx > 0) {
        double per = an_signal_s(r); /* counts are signals */
        if (gspread > 2 * cspread) {
            ok = gspread >= th->symptom_share * d->min_cost; /* GPU time: measured exactly */
            an_split_values(d, v, 0, &b->last);
        } else {
            an_split_values(d, cv, per, &b->last);
            ok = b->unchecked || b->last.significant;
            /* inside an interval whose exact CPU times are balanced, a split
             * of its samples is the sampler's (CPU-time timers tick unevenly
             * for processes that run in short bursts: 0.105 against 0.043 s
             * sampled for the same 0.15 s of blocks in a pipeline) */
            if (ok && !b->unchecked && hops == 0 && b->exact_avail && !b->exact) ok = 0;
            if (!ok && b->exact && hops == 0) {
                /* inside the interval the exact times found imbalanced: more work
                 * on its heavy processes is where that time went */
                double h = 0, l = 0;
                uint32_t nh = 0, nl = 0;
                for (uint32_t i = 0; i < d->P; i++) {
                    if (!r->present[i]) continue;
                    if (b->exact_heavy[i]) h += cv[i], nh++;
                    else l += cv[i], nl++;
                }
                ok = nh && nl && h / nh - l / nl > 0;
                if (!ok && work_evidence(b, c, cv, v)) {
                    ok = 1, mx = 0, b->by_work = 1;
                    for (uint32_t i = 0; i < d->P; i++) mx = fmax(mx, v[i]);
                }
            }
        }
        if (ok) {
            for (uint32_t i = 0; i < d->P; i++) {
                double e = r->present[i] ? fmin(b->waits[i], mx - v[i]) : 0;
                if (e < 0) e = 0;
                if (per_proc) per_proc[i] = e;
                s += e;
            }
        }
    }
    free(v), free(cv);
    if (!per_proc && !b->unchecked) b->score_cache[c] = s;
    return s;
}

/* GPU device seconds (kernels, copies) launched from the subtree of v, all ranks. */
static void gpu_totals(const struct an_graph *g, const struct an_run *r, uint32_t v, double *kernel,
                       double *copy, int depth)
{
    if (v >= r->nvr || depth > 256) return;
    *kernel += r->vr[v].gpu_kernel_s, *copy += r->vr[v].gpu_copy_s;
    for (uint32_t c = g->v[v].first_child; c != AN_NONE; c = g->v[c].next_sibling)
        gpu_totals(g, r, c, kernel, copy, depth + 1);
}

/* Late peer of process w at receive/completion vertex s: the partner whose
 * message completed last most often (else the longest charged time).
 * *share: that peer's share of the "last" completions (1 when unknown). */
static int late_peer(struct walk *b, uint32_t s, uint32_t w, double *share)
{
    const struct an_run *r = b->d->r;
    const struct an_graph *g = &b->d->a->g;
    *share = 1;
    size_t np;
    const struct an_peer_rec *pw = an_run_peers_of(r, w, &np);
    if (!np) return -1;
    uint32_t fn = s;
    while (fn != AN_NONE && g->v[fn].kind != PSG_FUNCTION && !(g->v[fn].flags & AN_V_DYNAMIC && g->v[fn].kind == AN_KIND_DYNAMIC))
        fn = g->v[fn].parent;
    int best = -1;
    double bw = -1, tot_last = 0, best_last = 0;
    for (int pass = 0; pass < 3 && best < 0; pass++) {
        tot_last = 0;
        for (size_t k = 0; k < np; k++) {
            const struct an_peer_rec *p = &pw[k];
            if (!(p->flags & PRF_PEER_RECV) || p->peer < 0 || (uint32_t)p->peer >= b->d->P) continue;
            if (pass == 0 && p->vertex != s) continue;
            if (pass == 1 && (fn == AN_NONE || !an_graph_is_ancestor(g, fn, p->vertex))) continue;
            tot_last += (double)p->last_count;
            double key = p->last_wait_ns ? (double)p->last_wait_ns : (double)p->time_ns * 1e-3;
            if (key > bw) bw = key, best = p->peer, best_last = (double)p->last_count;
        }
    }
    if (best >= 0 && tot_last > 0) *share = best_last / tot_last;
    return best;
}

/* The send (want_send) or receive vertex on process q toward process w (the most messages). */
static uint32_t peer_vertex(const struct an_run *r, uint32_t q, uint32_t w, int want_send)
{
    uint32_t best = AN_NONE;
    uint64_t bc = 0;
    size_t np;
    const struct an_peer_rec *pq = an_run_peers_of(r, q, &np);
    for (size_t k = 0; k < np; k++) {
        const struct an_peer_rec *p = &pq[k];
        if (p->peer != (int32_t)w) continue;
        if (want_send ? !(p->flags & PRF_PEER_SEND) : !(p->flags & PRF_PEER_RECV)) continue;
        if (best == AN_NONE || p->count > bc) best = p->vertex, bc = p->count;
    }
    return best;
}

/* Whether v is a post that posted_before moved the interval back over. */
static int is_post_passed(const struct walk *b, uint32_t v)
{
    for (uint32_t k = 0; k < b->nposts; k++)
        if (b->posts[k] == v) return 1;
    return 0;
}

/* Walks predecessors from the start nodes already pushed; returns when the
 * step bound is reached or nothing is left.  hops counts the MPI vertices
 * passed since the start (0: inside the computation interval before it). */
static void walk(struct walk *b, uint32_t symptom)
{
    struct an_detect *d = b->d;
    const struct an_graph *g = &d->a->g;
    uint32_t bound = (uint32_t)d->a->opt->th.max_steps, nstart = b->nw;
    double *wt = sc_xmalloc((d->P + 1) * sizeof *wt);
    for (uint32_t head = 0; head < b->nw && b->nw < bound; head++) {
        struct wnode n = b->w[head];
        const struct an_vertex *v = &g->v[n.v];
        uint32_t hops = n.hops;
        if (head > 0 && is_mpi(v) && an_mpi_role(v->op) == AN_MPI_COLLECTIVE && n.v != symptom)
            continue; /* a point all processes passed */
        if (head > 0 && is_mpi(v)) {
            enum an_mpi_role role = an_mpi_role(v->op);
            /* beyond another MPI call: an earlier interval (not beyond a
             * post that posted_before moved the interval over) */
            if (head >= nstart && !is_post_passed(b, n.v)) hops++;
            if ((role == AN_MPI_RECV || role == AN_MPI_COMPLETION || role == AN_MPI_SENDRECV) && n.proc < d->P) {
                /* a chain of late senders: cross again when this process waited here */
                an_waits(d->a, d->r, n.v, wt);
                if (wt[n.proc] >= d->min_cost * d->a->opt->th.symptom_share) {
                    double share;
                    int q = late_peer(b, n.v, n.proc, &share);
                    if (q >= 0) {
                        uint32_t sv = peer_vertex(d->r, (uint32_t)q, n.proc, 1);
                        push(b, sv != AN_NONE ? sv : n.v, (uint32_t)q, head, "communication", hops);
                    }
                }
            }
        }
        /* control-flow predecessor */
        uint32_t u = n.v;
        const char *edge = "control";
        for (int up = 0; up < 64; up++) {
            if (d->prev[u] != AN_NONE) {
                push(b, d->prev[u], n.proc, head, edge, hops);
                break;
            }
            uint32_t p = g->v[u].parent;
            if (p == AN_NONE) break;
            /* the previous iteration ran the loop's last child: another interval */
            if (g->v[p].kind == PSG_LOOP && d->last_child[p] != AN_NONE && d->last_child[p] != u)
                push(b, d->last_child[p], n.proc, head, "loop_back", hops + 1);
            edge = g->v[p].kind == PSG_FUNCTION || (g->v[p].flags & AN_V_DYNAMIC && !(g->v[p].flags & AN_V_CALLSITE))
                       ? "call" : "control";
            u = p;
        }
    }
    free(wt);
}

/* The MPI vertex whose preceding interval holds the work that made the
 * call at m late.  A halo exchange posts its receives, then its sends
 * (MPI_Irecv, MPI_Irecv, MPI_Isend ...): the late sender's send is
 * preceded by an interval between two posts that holds no computation, and
 * the work is before the first post.  So while every interval that ends at
 * m starts at the same non-blocking post (or at m itself: one post per
 * neighbour from one call site) and holds less CPU per process
 * than symptom_share of the minimum cost, m moves back to that post; the
 * posts passed are kept in b->posts, and the walk does not count them as
 * MPI calls between intervals.  Beside two CPU hogs late_sender_chain's
 * culprit had 3 samples against 0 (too thin) while its exact interval,
 * before the first MPI_Irecv, held 1.0 s of CPU against 0.27 s. */
static uint32_t posted_before(struct walk *b, uint32_t m)
{
    struct an_detect *d = b->d;
    const struct an_graph *g = &d->a->g;
    const struct an_run *r = d->r;
    double *x = sc_xmalloc((d->P + 1) * sizeof *x);
    b->nposts = 0;
    while (m != AN_NONE && b->nposts < sizeof b->posts / sizeof b->posts[0]) {
        (void)an_vr(r, m); /* the intervals that end at m (a source that keeps them elsewhere fetches them with m) */
        uint32_t from = AN_NONE;
        int unique = 1;
        for (uint32_t k = 0; k < r->nintervals && unique; k++) {
            if (r->intervals[k].next_vertex != m) continue;
            uint32_t pv = r->intervals[k].prev_vertex;
            if (pv == m) continue; /* the same post repeated (one per neighbour) */
            if (from == AN_NONE) from = pv;
            else if (pv != from) unique = 0;
        }
        if (!unique || from == AN_NONE || g->v[from].kind != PSG_MPI || !an_mpi_nonblocking(g->v[from].op))
            break;
        if (!an_interval_before(r, m, 1, x)) break;
        double cpu = 0;
        for (uint32_t i = 0; i < d->P; i++) cpu += r->present[i] ? x[i] : 0;
        if (!(cpu / fmax(1, r->present_count) < d->a->opt->th.symptom_share * d->min_cost)) break;
        b->posts[b->nposts++] = from;
        m = from;
    }
    free(x);
    return m;
}

/* Whether the exact computation intervals before MPI vertex m (on every
 * process) show an imbalance: sets b->exact, exact_saving, exact_heavy. */
static void exact_intervals(struct walk *b, uint32_t m)
{
    struct an_detect *d = b->d;
    b->exact = b->exact_avail = 0;
    if (m == AN_NONE) return;
    double *x = sc_xmalloc((d->P + 1) * sizeof *x);
    if (an_interval_before(d->r, m, 1, x)) {
        /* CPU seconds read from the thread clock are measured; where the
         * runtime estimated some from sampler periods, they are tested as
         * samples */
        int exact = 1;
        (void)an_vr(d->r, m); /* the intervals that end at m (a source that keeps them elsewhere fetches them with m) */
        for (uint32_t k = 0; k < d->r->nintervals; k++)
            if (d->r->intervals[k].next_vertex == m && !d->r->intervals[k].cpu_exact) exact = 0;
        struct an_split sp;
        an_split_values(d, x, exact ? 0 : an_signal_s(d->r), &sp);
        b->exact_avail = exact;
        if (sp.significant) {
            b->exact = 1;
            memcpy(b->exact_x, x, d->P * sizeof *x);
            memset(b->exact_heavy, 0, d->P);
            for (uint32_t k = 0; k < sp.nheavy; k++) b->exact_heavy[sp.heavy[k]] = 1;
        }
        an_split_free(&sp);
    }
    free(x);
}

/* After the walk of symptom s: the candidate that would explain the most
 * wait if its sample difference were significant (located like a cause).
 * When it explains at least the minimum cost per waiting process, a warning
 * names it, its samples and the test's p-value, and says how to get more
 * samples.  Returns 1 when it warned. */
static int thin_evidence(struct walk *b, uint32_t s, double rest_per_proc, uint32_t nw_ranks)
{
    struct an_detect *d = b->d;
    struct an_analysis *a = d->a;
    const struct an_graph *g = &a->g;
    const struct an_vertex *sv = &g->v[s];
    uint32_t best = AN_NONE;
    double bs = 0;
    b->unchecked = 1;
    for (uint32_t k = 0; k < b->nw; k++) {
        uint32_t v = b->w[k].v;
        if (!isnan(b->score_cache[v]) && b->score_cache[v] > 0) continue; /* significant */
        double sc = explained(b, v, b->w[k].hops, NULL);
        if (sc > bs) bs = sc, best = v;
    }
    while (best != AN_NONE) {
        uint32_t bc = AN_NONE;
        double bcs = 0;
        for (uint32_t ch = g->v[best].first_child; ch != AN_NONE; ch = g->v[ch].next_sibling) {
            double sc = explained(b, ch, 1, NULL);
            if (sc > bcs) bcs = sc, bc = ch;
        }
        if (bc == AN_NONE || !(bcs > a->opt->th.location_share * bs)) break;
        best = bc, bs = bcs;
    }
    if (best != AN_NONE) explained(b, best, 1, NULL); /* sets b->last */
    b->unchecked = 0;
    if (best == AN_NONE || !nw_ranks || bs / nw_ranks < d->min_cost) return 0;
    /* only a candidate that looks like a culprit (heavy mean / mean at least the
     * imbalance threshold): in a balanced run the largest of P noisy counts is no lead */
    if (!(b->last.mean > 0 && b->last.heavy_mean / b->last.mean >= a->opt->th.imbalance)) return 0;
    const struct an_vertex *v = &g->v[best];
    uint32_t n = d->r->present_count;
    char how[256];
    an_more_samples_advice(d->r, how, sizeof how);
    an_warn(a, "%u processes: %.3g s of wait per process at %s (%s:%u) points to %s (%s:%u), but the "
               "evidence is too thin to report it: the %u process%s that spend longest there have %.0f "
               "samples each in it against %.3g on the others (exact Poisson test p = %.2g, needs < %.2g); "
               "%s",
            d->P, rest_per_proc, an_mpi_name(sv->op), sv->file, sv->line,
            v->name && *v->name ? v->name : v->function, v->file, v->line, b->last.nheavy,
            b->last.nheavy == 1 ? "" : "es", b->last.k_heavy, b->last.k_light, b->last.p_value,
            a->opt->th.alpha / (n > 1 ? n - 1 : 1), how);
    return 1;
}

/* Whether the culprits' code at v also runs on the other processes (at least
 * serial_share of the culprits' time): the same code with unequal amounts. */
static int runs_everywhere(const struct an_detect *d, uint32_t v, const uint32_t *procs, uint32_t np)
{
    const struct an_run *r = d->r;
    if (!np || !an_vr_has(r, v, AN_HAS_ICPU)) return 0;
    const float *icpu = an_vr(r, v)->icpu;
    uint8_t *is = calloc(d->P + 1, 1);
    if (!is) abort();
    double cul = 0, oth = 0;
    uint32_t no = 0;
    for (uint32_t k = 0; k < np; k++) is[procs[k]] = 1, cul += icpu[procs[k]];
    for (uint32_t i = 0; i < d->P; i++)
        if (r->present[i] && !is[i]) oth += icpu[i], no++;
    free(is);
    return no && oth / no >= d->a->opt->th.serial_share * (cul / np);
}

/* Depth of the chain of late senders that ends at process w waiting at
 * receive vertex s: w waits for its late peer q1, which itself waits at a
 * receive of the same stage (the receives, Sendrecvs and completions under
 * s's iteration anchor, an_iteration_anchor: the loop that makes the sweep)
 * for its own late peer q2, and so on, until a peer that waits less than
 * mw / (2 P) at every receive of the stage (mw: the largest wait at s; in a
 * pipeline of d links the k-th link waits about k/d of the last one's) or
 * one met before.  A pipelined wavefront's fill and drain is such a chain,
 * whose first link (*head) starts the wave; the chain may pass another
 * receive of the stage (PRK Synch_p2p: rank 1 waits for rank 0, which waits
 * for the corner value from the last rank, which waits for its left
 * neighbour); a late sender's own extra work is a chain of one.  Returns the
 * number of links crossed. */
static uint32_t chain_depth(struct walk *b, uint32_t s, uint32_t w, double mw, uint32_t *head)
{
    struct an_detect *d = b->d;
    const struct an_graph *g = &d->a->g;
    uint32_t anchor = an_iteration_anchor(g, s), nst = 0, *st = sc_xmalloc(17 * sizeof *st);
    double *stw = sc_xmalloc((size_t)17 * (d->P + 1) * sizeof *stw);
    st[nst] = s, memcpy(stw, b->waits, d->P * sizeof *stw), nst++;
    for (uint32_t v = 0; v < d->N && nst < 16 && anchor != AN_NONE; v++) {
        enum an_mpi_role role = an_mpi_role(g->v[v].op);
        if (v == s || g->v[v].kind != PSG_MPI || !an_vr_has(d->r, v, AN_HAS_MPI) ||
            !(role == AN_MPI_RECV || role == AN_MPI_SENDRECV || role == AN_MPI_COMPLETION) ||
            an_iteration_anchor(g, v) != anchor)
            continue;
        an_waits(d->a, d->r, v, stw + (size_t)nst * (d->P + 1));
        st[nst++] = v;
    }
    uint8_t *met = calloc(d->P + 1, 1);
    if (!met) abort();
    uint32_t cur = w, at = s, depth = 0;
    *head = w;
    met[w] = 1;
    for (;;) {
        double share;
        int q = late_peer(b, at, cur, &share);
        if (q < 0 || (uint32_t)q >= d->P || met[q]) break;
        depth++, met[q] = 1, *head = (uint32_t)q;
        /* where q waited most in the stage */
        double qw = 0;
        for (uint32_t k = 0; k < nst; k++)
            if (stw[(size_t)k * (d->P + 1) + q] > qw) qw = stw[(size_t)k * (d->P + 1) + q], at = st[k];
        if (qw < mw / (2.0 * d->P)) break;
        cur = (uint32_t)q;
    }
    free(met), free(st), free(stw);
    return depth;
}

/* Whether the messages received at vertex s (for a completion: by the
 * receives of its function) flow one way: no process receives there from a
 * process that itself receives there from it, and some message was seen
 * (LULESH waits in CommSBN for receives CommRecv started: no direction can
 * be shown there).  A
 * wavefront's receive takes the wave from one side (its forward and backward
 * sweeps are two contexts, two vertices); a halo exchange, a pairwise
 * reduction exchange or an all-to-all receives from the same partners it
 * sends to, and on a crowded machine the scheduler makes chains of late
 * senders through them too (PRK Stencil and Transpose, NPB CG, LULESH's
 * CommSBN were called pipelines without this test). */
static int one_way(const struct an_detect *d, uint32_t s)
{
    const struct an_run *r = d->r;
    const struct an_graph *g = &d->a->g;
    /* a completion's messages are those its function's receives started
     * (their records are at the MPI_Irecv), as for its late peer */
    uint32_t fn = AN_NONE;
    if (an_mpi_role(g->v[s].op) == AN_MPI_COMPLETION) {
        fn = s;
        while (fn != AN_NONE && g->v[fn].kind != PSG_FUNCTION &&
               !(g->v[fn].flags & AN_V_DYNAMIC && g->v[fn].kind == AN_KIND_DYNAMIC))
            fn = g->v[fn].parent;
    }
    struct sc_hash from;
    memset(&from, 0, sizeof from);
    uint64_t *keys = NULL;
    uint32_t nkeys = 0, cap = 0;
    int ok = 1;
    for (int pass = 0; pass < 2 && ok; pass++)
        for (uint32_t i = 0; i < d->P && ok; i++) {
            if (!r->present[i]) continue;
            size_t np;
            const struct an_peer_rec *pr = an_run_peers_of(r, i, &np);
            for (size_t k = 0; k < np && ok; k++) {
                int mine = pr[k].vertex == s || (fn != AN_NONE && an_graph_is_ancestor(g, fn, pr[k].vertex));
                if (!mine || !(pr[k].flags & PRF_PEER_RECV) || pr[k].peer < 0 || !pr[k].count) continue;
                uint64_t key = (uint64_t)i << 32 | (uint32_t)pr[k].peer, rev = (uint64_t)(uint32_t)pr[k].peer << 32 | i;
                if (pass == 0) {
                    if (nkeys == cap) keys = sc_xrealloc(keys, (cap = cap ? 2 * cap : 64) * sizeof *keys);
                    if (sc_hash_add(&from, key, nkeys)) sc_oom();
                    keys[nkeys++] = key;
                    continue;
                }
                struct sc_hash_it it;
                for (uint32_t id = sc_hash_first(&from, rev, &it); id != SC_HASH_NONE && ok;
                     id = sc_hash_next(&from, &it))
                    ok = keys[id] != rev;
            }
        }
    sc_hash_free(&from);
    free(keys);
    return ok && nkeys > 0; /* no message seen there: no direction shown */
}

/* The pipeline's waits at receive vertex s with a core per process, an upper
 * bound per process: the last of `depth` links waits `depth` hops for every
 * start of the wave, a hop being the CPU time a link computes between its
 * receive and its send (the exact computation intervals that end at the
 * senders' send vertex snd, per interval) plus the message's latency (the
 * shortest send and receive calls), a start being an interval that
 * ends at s coming from outside the loop around s (the first block of a
 * sweep).  On an oversubscribed machine every hop also waits for the next
 * link to be scheduled, so the measured wait divided by the contention can
 * still be many times this (a sweep of 32 small blocks, 8 processes on 2
 * cores: 0.9 s measured against 0.07 s).  INFINITY without intervals. */
static double pipeline_bound(const struct an_detect *d, uint32_t s, uint32_t snd, uint32_t depth)
{
    const struct an_run *r = d->r;
    const struct an_graph *g = &d->a->g;
    if (!r->has_intervals || snd == AN_NONE || snd == s) return INFINITY;
    (void)an_vr(r, s), (void)an_vr(r, snd); /* the intervals that end there (parallel analysis) */
    uint32_t loop = g->v[s].parent;
    while (loop != AN_NONE && g->v[loop].kind != PSG_LOOP && g->v[loop].kind != PSG_FUNCTION) loop = g->v[loop].parent;
    double cpu = 0, hops = 0, starts = 0;
    for (uint32_t k = 0; k < r->nintervals; k++) {
        const struct an_interval *iv = &r->intervals[k];
        int start = iv->next_vertex == s &&
                    (iv->prev_vertex == AN_NONE || loop == AN_NONE || g->v[loop].kind != PSG_LOOP ||
                     !an_graph_is_ancestor(g, loop, iv->prev_vertex));
        for (uint32_t i = 0; i < r->P; i++) {
            if (!r->present[i]) continue;
            if (iv->next_vertex == snd) cpu += iv->cpu[i], hops += iv->count[i];
            if (start) starts += iv->count[i];
        }
    }
    if (hops <= 0 || starts <= 0) return INFINITY;
    /* a hop is the block's computation and the message's own latency (the
     * shortest calls of the send and the receive, which waited for nobody) */
    double latency = (an_vr_has(r, s, AN_HAS_NCALLS) ? r->vr[s].min_call_s : 0) +
                     (an_vr_has(r, snd, AN_HAS_NCALLS) ? r->vr[snd].min_call_s : 0);
    return starts / fmax(1, r->present_count) * (cpu / hops + latency) * depth;
}

/* Whether a run with a core per process (contention <= contention_max, two or
 * more processes, below the largest count) shows a wait at the call site of
 * vertex s (same operation, file, line, column, any calling context) that its
 * processes' computation does not explain, of at least unexplained_factor x
 * min_cost_percent of that run's wall time, mean over its processes: the runs
 * that can tell waiting for a message from waiting for a core decide whether
 * an unexplained wait of a contended run is the program's.  Explained there
 * is what a process's CPU time (outside MPI) lacks against the busiest
 * process's, min(wait_i, max_j CPU_j - CPU_i): a rank that waits for the one
 * that holds all the particles is no unexplained wait.  Explained too is the
 * largest run delay of the other processes (an_run.run_delay: time runnable
 * without a core, which sleep and I/O are not): a partner that other load
 * descheduled makes its peers wait that long.  Such interference stays under
 * contention_max on a run whose other processes are served (a CI job beside
 * late_sender_chain's balanced 2-process run: 0.15 s of wait per process, out
 * of 1.5 s, made a false message_wait at 8 processes). */
/* The slow-down of the worst-served process of run r that computes outside
 * MPI (at least 20 sampling periods of CPU there): max over processes of
 * (wall - MPI) / (CPU - CPU sampled inside MPI).  The run's contention is the
 * best-served process's, which says how the machine ran; deciding that a run
 * had a core per process needs every computing process to have had one (a
 * loaded machine gave PRK PIC's rank 0, which holds every particle, a quarter
 * of a core at 2 processes while rank 1, waiting, looked well served). */
static double worst_contention(const struct an_run *r)
{
    double worst = 1;
    for (uint32_t i = 0; i < r->P; i++) {
        if (!r->present[i]) continue;
        double cpu = r->cpu[i] - (r->cpu_wait ? r->cpu_wait[i] : 0), out = r->wall[i] - r->mpi[i];
        if (cpu >= 20 * r->period_s && cpu > 0) worst = fmax(worst, out / cpu);
    }
    return worst;
}

static int waited_uncontended(const struct an_detect *d, uint32_t s)
{
    const struct an_analysis *a = d->a;
    const struct an_thresholds *th = &a->opt->th;
    const struct an_vertex *sv = &a->g.v[s];
    int found = 0;
    for (uint32_t sc = 0; sc + 1 < a->nscales && !found; sc++) {
        const struct an_run *r = a->scales[sc].rep;
        if (r->P < 2 || r->contention > th->contention_max || worst_contention(r) > th->contention_max) continue;
        double *w = sc_xmalloc((r->P + 1) * sizeof *w), *tot = calloc(r->P + 1, sizeof *tot), sum = 0, mx = 0;
        if (!tot) abort();
        for (uint32_t i = 0; i < r->P; i++)
            if (r->present[i]) mx = fmax(mx, r->cpu[i] - (r->cpu_wait ? r->cpu_wait[i] : 0));
        for (uint32_t v = 0; v < a->g.n; v++) {
            const struct an_vertex *x = &a->g.v[v];
            if (x->kind != PSG_MPI || !an_same_call_site(x, sv)) continue;
            if (!a->vm[(size_t)sc * a->g.n + v].present) continue;
            an_waits(a, r, v, w);
            for (uint32_t i = 0; i < r->P; i++) tot[i] += r->present[i] ? w[i] : 0;
        }
        /* the two largest run delays, so that each process subtracts the others' */
        double d1 = 0, d2 = 0;
        uint32_t i1 = UINT32_MAX;
        for (uint32_t i = 0; i < r->P; i++) {
            double q = r->present[i] && isfinite(r->run_delay[i]) ? r->run_delay[i] : 0;
            if (q > d1) d2 = d1, d1 = q, i1 = i;
            else if (q > d2) d2 = q;
        }
        for (uint32_t i = 0; i < r->P; i++)
            if (r->present[i])
                sum += fmax(0, tot[i] - fmax(0, mx - (r->cpu[i] - (r->cpu_wait ? r->cpu_wait[i] : 0))) -
                                   (i == i1 ? d2 : d1));
        free(w), free(tot);
        found = sum / fmax(1, r->present_count) >=
                th->unexplained_factor * th->min_cost_percent / 100.0 * a->scales[sc].wall;
    }
    return found;
}

/* How much longer than its CPU time the culprits' computation took on the
 * wall clock: the mean over the culprits of wall / CPU of the exact
 * computation intervals that end at MPI vertex m (1 without intervals, at
 * most the run's worst process slow-down).  A culprit descheduled inside its
 * extra work makes the others wait its wall time, not its CPU time: on a
 * lightly loaded machine (MPICH, 2 processes, contention 1.45) the wait at an
 * Allreduce was 0.73 s against 0.43 s of CPU excess, and the remainder came
 * out as a wait at collective above the load imbalance that causes it. */
static double culprit_slowdown(const struct an_detect *d, uint32_t m, const uint32_t *procs, uint32_t np)
{
    const struct an_run *r = d->r;
    if (!np || m == AN_NONE || !r->has_intervals) return 1;
    double *wall = sc_xmalloc((d->P + 1) * sizeof *wall), *cpu = sc_xmalloc((d->P + 1) * sizeof *cpu), k = 0;
    uint32_t n = 0;
    if (an_interval_before(r, m, 0, wall) && an_interval_before(r, m, 1, cpu))
        for (uint32_t j = 0; j < np; j++)
            if (procs[j] < d->P && cpu[procs[j]] > 0 && wall[procs[j]] >= cpu[procs[j]])
                k += wall[procs[j]] / cpu[procs[j]], n++;
    free(wall), free(cpu);
    return n ? fmin(k / n, fmax(1, worst_contention(r))) : 1;
}

/* One symptom's backward walk: what its parts share. */
struct symptom {
    uint32_t s, w;              /* the symptom (an MPI vertex), the process that waits most there */
    double total, mw;           /* process-seconds of wait there; w's wait */
    enum an_mpi_role role;      /* of the symptom's call */
    enum an_category cat;       /* what the crossing makes of it */
    double share;               /* the late peer's share of the waits (late_peer) */
    int crossed;                /* the process crossed to, -1: none */
    uint32_t interval_at;       /* the MPI vertex whose preceding interval is the late work */
    uint32_t nw_ranks;          /* processes waiting at least waiting_share of mw */
};

/* The first steps of the walk from symptom y->s where y->w waits: at a
 * collective to the last arrival, at a receive or completion to the late
 * sender, at a send to the late receiver; sets y's category, share,
 * crossing and interval. */
static void cross_from_symptom(struct walk *b, struct symptom *y)
{
    struct an_detect *d = b->d;
    const struct an_run *r = d->r;
    uint32_t s = y->s, w = y->w;
    enum an_mpi_role role = y->role;
    push(b, s, w, AN_NONE, "symptom", 0);
    if (role == AN_MPI_COLLECTIVE) {
        /* the last arrivals spent the least time inside */
        const struct an_vrun *xs = an_vr(r, s);
        const float *t = xs->mpi;
        uint32_t late = w;
        double mn = INFINITY;
        for (uint32_t i = 0; i < d->P; i++)
            if (r->present[i] && xs->ncalls && xs->ncalls[i] > 0 && t[i] < mn &&
                (!xs->comm || xs->comm[i] == xs->comm[w]))
                mn = t[i], late = i;
        seen_add(b, s, late);
        b->w[b->nw++] = (struct wnode){s, late, 0, 0, "collective"};
        y->crossed = (int)late;
    } else if (role == AN_MPI_RECV || role == AN_MPI_COMPLETION || role == AN_MPI_SENDRECV ||
               role == AN_MPI_PROBE) {
        int q = late_peer(b, s, w, &y->share);
        if (q >= 0) {
            uint32_t snd = peer_vertex(r, (uint32_t)q, w, 1);
            push(b, snd != AN_NONE ? snd : s, (uint32_t)q, 0, "communication", 0);
            y->crossed = q;
            y->interval_at = snd != AN_NONE ? snd : s;
        }
        y->cat = AN_CAT_LATE_SENDER;
    } else if (role == AN_MPI_SEND) {
        int q = -1;
        uint64_t bt = 0;
        size_t np;
        const struct an_peer_rec *pw = an_run_peers_of(r, w, &np);
        for (size_t k = 0; k < np; k++) {
            const struct an_peer_rec *p = &pw[k];
            if (p->vertex == s && (p->flags & PRF_PEER_SEND) && p->peer >= 0 && (uint32_t)p->peer < d->P &&
                p->time_ns >= bt)
                bt = p->time_ns, q = p->peer;
        }
        if (q >= 0) {
            uint32_t rcv = peer_vertex(r, (uint32_t)q, w, 0);
            push(b, rcv != AN_NONE ? rcv : s, (uint32_t)q, 0, "communication", 0);
            y->crossed = q;
            y->interval_at = rcv != AN_NONE ? rcv : s;
        }
        y->cat = AN_CAT_LATE_RECEIVER;
    }
}

/* The category of located root `root` with culprits procs[np]: from a
 * collective, the computation's; from a point-to-point wait, late sender or
 * receiver unless the code runs everywhere with unequal amounts (then it is
 * that computation's load imbalance); GPU-bound (or transfers) when the
 * culprits' extra work is GPU device time. */
static enum an_category candidate_category(const struct an_detect *d, enum an_category cat, uint32_t root,
                                           const uint32_t *procs, uint32_t np)
{
    const struct an_run *r = d->r;
    if (cat == AN_CAT_LOAD_IMBALANCE) cat = an_classify_computation(d, root, procs, np);
    else if (runs_everywhere(d, root, procs, np) || an_unconditional_loop(d->a, root))
        cat = an_classify_computation(d, root, procs, np);
    if (an_vr_has(r, root, AN_HAS_IGPU)) {
        const struct an_vrun *xr = an_vr(r, root);
        double gx = 0, cx = 0;
        for (uint32_t k = 0; k < np; k++)
            gx += xr->igpu[procs[k]], cx += xr->icpu ? xr->icpu[procs[k]] : 0;
        if (gx > cx) {
            double kern = 0, copy = 0;
            gpu_totals(&d->a->g, r, root, &kern, &copy, 0);
            cat = copy > kern ? AN_CAT_H2D : AN_CAT_GPU_BOUND;
        }
    }
    return cat;
}

/* The cost of root cause `root` of category cat with culprits procs[np]:
 * what fixing it saves at the largest count, in the CPU model; *noise its
 * noise, *exact_cost 1 when it is the interval's exact CPU times (not
 * samples), *rule the sentence that says how it was costed.  exact: the
 * candidate is the symptom's own exact computation interval. */
/* The saving of fix at vertex root by its work counters (work_evidence's
 * modelled CPU seconds per process, the heavy ones brought down to the light
 * mean, or all to the mean for a spread), in the CPU model of the interval
 * before interval_at; 0 when the counters are not the evidence there.  It
 * stands beside the sampled saving (an_fix_saving) where the culprits'
 * samples are too few to show their own excess. */
static double work_saving(struct walk *b, uint32_t root, uint32_t interval_at, enum an_fix fix)
{
    struct an_detect *d = b->d;
    const struct an_run *r = d->r;
    if (!b->exact || !an_vr_has(r, root, AN_HAS_ICPU)) return 0;
    const struct an_vrun *x = an_vr(r, root);
    double *cv = sc_xmalloc((d->P + 1) * sizeof *cv), *t = sc_xmalloc((d->P + 1) * sizeof *t);
    double saving = 0;
    for (uint32_t i = 0; i < d->P; i++) cv[i] = r->present[i] ? x->icpu[i] : 0;
    if (work_evidence(b, root, cv, t)) {
        double all = 0, light = 0;
        uint32_t na = 0, nl = 0;
        for (uint32_t i = 0; i < d->P; i++)
            if (r->present[i]) {
                all += t[i], na++;
                if (!b->exact_heavy[i]) light += t[i], nl++;
            }
        for (uint32_t i = 0; i < d->P; i++)
            cv[i] = !r->present[i] ? 0
                    : fix == AN_FIX_SPREAD ? t[i] - all / na
                    : b->exact_heavy[i] ? fmax(0, t[i] - light / fmax(1, nl)) : 0;
        saving = an_model_saving(d->a, r, interval_at, NULL, cv);
    }
    free(cv), free(t);
    return saving;
}

/* Whether v's subtree holds an MPI vertex (bounded depth). */
static int holds_mpi(const struct an_graph *g, uint32_t v, int depth)
{
    if (depth > 64) return 0;
    for (uint32_t c = g->v[v].first_child; c != AN_NONE; c = g->v[c].next_sibling)
        if (g->v[c].kind == PSG_MPI || holds_mpi(g, c, depth + 1)) return 1;
    return 0;
}

/* Whether loop v lies inside a loop that does not communicate: a nest the
 * work counters name by its outermost computation loop.  The pass counts
 * only innermost loops (WorkCounters.cpp), so their counts give a nest's
 * work but not which of its loops decides the distribution; a person
 * changes the nest's outer loop (short_imbalance's row loop, not the
 * busy-wait loops inside each row). */
static int inherited_work(struct walk *b, uint32_t v)
{
    const struct an_graph *g = &b->d->a->g;
    if (g->v[v].kind != PSG_LOOP) return 0;
    for (uint32_t u = g->v[v].parent; u != AN_NONE; u = g->v[u].parent)
        if (g->v[u].kind == PSG_LOOP) return !holds_mpi(g, u, 0);
    return 0;
}

/* an_locate's score by the work counters: the heavy processes' mean modelled
 * CPU seconds at v minus the light ones' (work_evidence), 0 where the
 * counters are not the evidence. */
static double work_excess(void *ctx, uint32_t v)
{
    struct walk *b = ctx;
    struct an_detect *d = b->d;
    const struct an_run *r = d->r;
    if (!an_vr_has(r, v, AN_HAS_ICPU) || d->a->g.v[v].kind == PSG_MPI || inherited_work(b, v)) return 0;
    const struct an_vrun *x = an_vr(r, v);
    double *cv = sc_xmalloc((d->P + 1) * sizeof *cv), *t = sc_xmalloc((d->P + 1) * sizeof *t);
    double h = 0, l = 0;
    uint32_t nh = 0, nl = 0;
    for (uint32_t i = 0; i < d->P; i++) cv[i] = r->present[i] ? x->icpu[i] : 0;
    if (work_evidence(b, v, cv, t))
        for (uint32_t i = 0; i < d->P; i++) {
            if (!r->present[i]) continue;
            if (b->exact_heavy[i]) h += t[i], nh++;
            else l += t[i], nl++;
        }
    free(cv), free(t);
    return nh && nl ? h / nh - l / nl : 0;
}

static double candidate_cost(struct walk *b, const struct symptom *y, int exact, enum an_category cat, uint32_t root,
                             const uint32_t *procs, uint32_t np, double *noise, int *exact_cost, const char **rule)
{
    struct an_detect *d = b->d;
    struct an_analysis *a = d->a;
    const struct an_run *r = d->r;
    uint32_t interval_at = y->interval_at;
    double cost;
    enum an_fix fix = cat == AN_CAT_SERIAL                                  ? AN_FIX_SPREAD
                      : cat == AN_CAT_LATE_SENDER || cat == AN_CAT_LATE_RECEIVER ? AN_FIX_EXCESS
                                                                                 : an_imbalance_fix(d, root, procs, np);
    if (exact) {
        double *delta = calloc(d->P + 1, sizeof *delta), all = 0, light = 0;
        uint32_t na = 0, nl = 0;
        if (!delta) abort();
        if (fix != AN_FIX_SPREAD || cat != AN_CAT_SERIAL) {
            /* added work or a wrong distribution, judged on the exact interval
             * totals (the sampled ones are too noisy for a short imbalance) */
            double t0 = 0;
            uint32_t p0 = 0;
            for (uint32_t sc = 0; sc + 1 < a->nscales && !(t0 > 0); sc++) {
                const struct an_run *r0 = a->scales[sc].rep;
                double *x0 = sc_xmalloc((r0->P + 1) * sizeof *x0);
                if (an_interval_before(r0, interval_at, 1, x0))
                    for (uint32_t i = 0; i < r0->P; i++) t0 += r0->present[i] ? x0[i] : 0;
                p0 = r0->P;
                free(x0);
            }
            if (cat != AN_CAT_LATE_SENDER && cat != AN_CAT_LATE_RECEIVER && cat != AN_CAT_SERIAL)
                fix = a->nscales < 2 ? AN_FIX_EXCESS : an_fix_kind(d, b->exact_x, t0, p0, b->exact_heavy, 0);
        }
        for (uint32_t i = 0; i < d->P; i++)
            if (r->present[i]) {
                all += b->exact_x[i], na++;
                if (!b->exact_heavy[i]) light += b->exact_x[i], nl++;
            }
        for (uint32_t i = 0; i < d->P; i++)
            if (r->present[i])
                delta[i] = fix == AN_FIX_SPREAD ? b->exact_x[i] - all / na
                                                : b->exact_heavy[i] ? fmax(0, b->exact_x[i] - light / fmax(1, nl)) : 0;
        cost = an_model_saving(a, r, interval_at, NULL, delta);
        free(delta);
        /* The interval is exact but it is all the computation between two
         * MPI calls; the located code gets its excess only when its own
         * (sampled) saving holds at least location_share of it.  Else the
         * excess lies elsewhere in the interval, or is the machine's: on a
         * loaded host a group of processes can need 30 % more CPU for the
         * same work (balanced LULESH, 8 ranks on 2 cores: the interval's
         * excess 0.29 s, the located loop's 0.03 s). */
        double own = fmax(an_fix_saving(d, root, interval_at, procs, np, fix, noise),
                          work_saving(b, root, interval_at, fix));
        if (own < a->opt->th.location_share * cost) {
            cost = own;
            *rule = fix == AN_FIX_SPREAD
                        ? "the code's work spread evenly over the processes (its samples hold less than "
                          "location_share of the interval's exact excess): run time of the processes' computation "
                          "before minus after, a core per process"
                        : "the culprits' work in the code brought down to the others' (its samples hold less than "
                          "location_share of the interval's exact excess): run time of the processes' computation "
                          "before minus after, a core per process";
        } else
            *exact_cost = 1, *rule = fix == AN_FIX_SPREAD
                       ? "the computation interval's exact CPU times spread evenly over the processes: run time of the "
                         "interval before minus after, a core per process"
                       : "the culprits' exact CPU time in the interval brought down to the others': run time of the "
                         "interval before minus after, a core per process";
    } else {
        cost = an_fix_saving(d, root, r->has_intervals ? interval_at : AN_NONE, procs, np, fix, noise);
        *rule = fix == AN_FIX_SPREAD
                    ? "the code's work spread evenly over the processes: run time of the processes' "
                      "computation before minus after, a core per process"
                    : "the culprits' work in the code brought down to the others': run time of the processes' "
                      "computation before minus after, a core per process";
    }
    return cost;
}

/* Cause c's path: the symptom, the crossing, the walk back to the candidate
 * (walk node best_node), then the located root on its first culprit. */
static void candidate_path(struct an_cause *c, const struct walk *b, const struct symptom *y, uint32_t best_node,
                           const uint32_t *procs, uint32_t np)
{
    const struct an_detect *d = b->d;
    free(c->path);
    uint32_t chain[512], nc = 0;
    for (uint32_t k = best_node; k != AN_NONE && nc < 512; k = b->w[k].from) {
        chain[nc++] = k;
        if (k == 0) break;
    }
    c->path = sc_xmalloc((nc + 2) * sizeof *c->path);
    c->npath = 0;
    for (uint32_t k = nc; k-- > 0;) {
        const struct wnode *n = &b->w[chain[k]];
        /* the wait at the symptom, on the steps that are the symptom or cross to it */
        double wt = n->v == y->s && n->proc < d->P ? b->waits[n->proc] : 0;
        c->path[c->npath++] = (struct an_step){n->v, n->proc, n->edge, wt};
    }
    uint32_t rp = np ? procs[0] : y->w;
    if (c->npath && c->path[c->npath - 1].vertex == c->vertex) {
        c->path[c->npath - 1].edge = "root";
        c->path[c->npath - 1].process = rp;
    } else {
        c->path[c->npath++] = (struct an_step){c->vertex, rp, "root", 0};
    }
}

/* Cause c's evidence sentence for the wait it explains (sum process-seconds)
 * at symptom y: it uses the cause's own fields, the processes waiting at
 * this symptom (among its waiting_processes) and their wait, its culprits
 * against the mean of the other processes (with k of p heavy, a median lies
 * between the groups).  exact: costed on the exact computation intervals. */
static void candidate_evidence(struct walk *b, const struct symptom *y, struct an_cause *c, uint32_t root,
                               double sum, int exact)
{
    struct an_detect *d = b->d;
    const struct an_run *r = d->r;
    const struct an_vertex *sv = &d->a->g.v[y->s];
    double wsum = 0;
    uint32_t nhere = an_cause_waiting(d, c, b->waits, &wsum);
    uint32_t first = c->nprocs ? c->procs[0] : y->w, nlight = 0;
    double light = 0;
    uint8_t *cul = calloc(d->P + 1, 1);
    if (!cul) abort();
    for (uint32_t k = 0; k < c->nprocs; k++)
        if (c->procs[k] < d->P) cul[c->procs[k]] = 1;
    for (uint32_t i = 0; i < d->P; i++)
        if (r->present[i] && !cul[i]) light += an_work(an_vr(r, root), i), nlight++;
    free(cul);
    char at[600];
    an_cause_evidence(c,
             "explains %.3g of the %.3g process-seconds of wait at %s (%s) (%.3g on the %u "
             "process%s waiting there); %s time there %.3g s on process %u against a mean of %.3g s on the %u other "
             "process%s; %u culprit process%s%s",
             sum, y->total, an_mpi_name(sv->op), at_text(sv, at, sizeof at), wsum, nhere, nhere == 1 ? "" : "es",
             an_vr_has(r, root, AN_HAS_IGPU) ? "CPU+GPU" : "CPU", an_work(an_vr(r, root), first), first,
             nlight ? light / nlight : 0.0, nlight, nlight == 1 ? "" : "es", c->nprocs,
             c->nprocs == 1 ? "" : "es", exact ? " (exact computation intervals)" : "");
}

/* The walk's best candidate (walk node best_node, vertex best) as root cause
 * of symptom y's wait: its culprits (the heavy group of the candidate's
 * split), its location (the innermost child holding most of the culprits'
 * excess), category, cost, path and evidence.  *explained_total: the wait
 * it explains; *slow: how much longer than their CPU time the culprits'
 * computation took (culprit_slowdown).  per[P]: scratch. */
static void blame_candidate(struct walk *b, const struct symptom *y, uint32_t best, uint32_t best_node, double *per,
                            double *explained_total, double *slow)
{
    struct an_detect *d = b->d;
    struct an_analysis *a = d->a;
    int exact = b->exact && b->w[best_node].hops == 0;
    /* the culprits: the heavy group of the candidate's split */
    explained(b, best, b->w[best_node].hops, per);
    uint32_t np = b->last.nheavy;
    uint32_t *procs = sc_xmalloc((d->P + 1) * sizeof *procs); /* the exact heavy group may be larger */
    memcpy(procs, b->last.heavy, np * sizeof *procs);
    if (exact) {
        np = 0;
        for (uint32_t i = 0; i < d->P; i++)
            if (b->exact_heavy[i]) procs[np] = i, np++;
    }
    /* the location: the innermost child holding most of the culprits' excess
     * (from above: the score is capped by the waits, so a timer's call can
     * tie with the loop that calls it) */
    uint32_t root = exact && b->by_work ? an_locate_from(d, best, work_excess, b)
                                        : an_locate_culprits(d, best, procs, np);
    double ex = explained(b, best, b->w[best_node].hops, per), sum = 0;
    for (uint32_t i = 0; i < d->P; i++) sum += per[i];
    *explained_total = sum;
    (void)ex;
    enum an_category cat = candidate_category(d, y->cat, root, procs, np);
    double noise = 0;
    int exact_cost = 0; /* the interval's exact CPU times, not samples */
    const char *rule;
    double cost = candidate_cost(b, y, exact, cat, root, procs, np, &noise, &exact_cost, &rule);
    struct an_cause *c = an_cause_get(a, root);
    if (!c->merged || cost > c->cost) {
        c->cat = cat;
        c->cost = cost;
        c->cost_rule = rule;
        c->cost_noise = noise, c->noise_exact = exact_cost;
        c->symptom = y->s;
        candidate_path(c, b, y, best_node, procs, np);
    }
    c->explained_wait = fmax(c->explained_wait, sum);
    *slow = culprit_slowdown(d, y->interval_at, procs, np);
    an_cause_procs(c, procs, np);
    candidate_evidence(b, y, c, root, sum, exact);
    a->vflags[c->vertex] |= AN_F_ROOT_CAUSE;
}

/* The evidence of symptom y as its own cause of category cat: rest
 * process-seconds of wait that no computation explains; a pipeline's depth,
 * head and bound (its cost when they are equal), and the caveat of a
 * contended run (undecided: no run with a core per process shows it). */
static void symptom_evidence(const struct an_detect *d, const struct symptom *y, struct an_cause *c,
                             enum an_category cat, double rest, uint32_t depth, uint32_t head, double bound,
                             double cost, int contended, int pipeline, const char *undecided)
{
    const struct an_run *r = d->r;
    const struct an_vertex *sv = &d->a->g.v[y->s];
    if (cat == AN_CAT_PIPELINE)
        an_cause_evidence(c, "%.3g process-seconds of wait at %s: a pipeline of %u late senders, process %u "
                          "waits for %d, which waits there for its own predecessor, back to process %u where the "
                          "wave starts; no process computes more than the others (the fill and drain of the "
                          "pipeline)%s",
                          rest, an_mpi_name(sv->op), depth + 1, y->w, y->crossed, head,
                          isfinite(bound) && fabs(bound - cost) <= 1e-9 * fmax(1, cost)
                              ? "; costed by its hops: with a core per process the last link waits its depth times "
                                "the CPU time of one block for every start of the wave"
                              : "");
    else if (cat == AN_CAT_ROTATING)
        an_cause_evidence(c, "%.3g process-seconds of wait at %s; blame rotates between processes: "
                          "no peer completes last in more than %.0f%% of the waits, no consistent culprit",
                          rest, an_mpi_name(sv->op), y->share * 100);
    else
        an_cause_evidence(c, "%.3g process-seconds of wait at %s on %u process%s that no measured "
                          "computation explains (the cause may be unsampled: I/O, sleep, another job)",
                          rest, an_mpi_name(sv->op), y->nw_ranks, y->nw_ranks == 1 ? "" : "es");
    if (contended)
        an_cause_evidence(c, "caveat: the run at %u processes was %.2gx contended (oversubscribed or loaded); the "
                          "wait is divided by that factor%s", d->P, r->contention,
                          pipeline    ? ", the chain of late senders is in the partner records"
                          : undecided ? ", and no run with a core per process shows a wait at this call: it may "
                                        "be the scheduler's"
                                      : ", and a run with a core per process shows a wait at this call too");
}

/* What no computation explains of symptom y's wait (explained_total of it
 * explained, by culprits slow times slower on the wall clock): the symptom
 * is its own cause, a pipeline, rotating blame, a wait at collective or a
 * message wait, when it costs enough. */
static void blame_symptom(struct walk *b, const struct symptom *y, double explained_total, double slow)
{
    struct an_detect *d = b->d;
    struct an_analysis *a = d->a;
    const struct an_thresholds *th = &a->opt->th;
    const struct an_run *r = d->r;
    const struct an_vertex *sv = &a->g.v[y->s];
    uint32_t s = y->s, w = y->w, nw_ranks = y->nw_ranks;
    double total = y->total;
    /* with f processes per core only 1/f of a wait is the program's own;
     * the culprits' extra CPU time took longer on the wall clock when they
     * were descheduled inside it: that much of the wait is theirs too */
    double rest = total - fmin(total, explained_total * slow);
    double cost = nw_ranks ? rest / nw_ranks / fmax(1, r->contention) : 0;
    /* a candidate that would explain the wait but whose sample difference
     * is not significant: say precisely that the evidence is thin */
    int thin = nw_ranks && rest / nw_ranks >= d->min_cost && thin_evidence(b, s, rest / nw_ranks, nw_ranks);
    /* a pipeline: a chain of two or more late senders through this receive,
     * the same peer late in most waits; the chain is in the partner records,
     * which the scheduler does not change */
    uint32_t head = w, depth = 0;
    /* (not a Sendrecv, nor where the late peer's send is this very call: a
     * link sends after it received, so that its wait delays the next one;
     * a Sendrecv sends before it waits, and a shift through it ripples
     * waits without passing any on) */
    int pipeline = (y->role == AN_MPI_RECV || y->role == AN_MPI_COMPLETION) && y->interval_at != s &&
                   y->share >= th->rotation && explained_total < 0.5 * total &&
                   (depth = chain_depth(b, s, w, y->mw, &head)) >= 2 && one_way(d, s);
    int contended = r->contention > th->contention_max;
    /* a pipeline's fill and drain is spread over its contexts (forward and
     * backward sweeps: each process waits in one of them at a time): its
     * cost is the mean over all processes, summed over the contexts
     * (merge_pipeline_sites), judged on that sum like any cause */
    double bound = INFINITY;
    if (pipeline) {
        cost = rest / fmax(1, r->present_count) / fmax(1, r->contention);
        bound = pipeline_bound(d, s, y->interval_at, depth);
        /* contended: the hops' bound is the cost (exact CPU times and counts,
         * which the scheduler does not change; the measured waits are as
         * much the scheduler's as the pipeline's: 0.37 to 0.83 s per process
         * for the same 0.98 s of fill and drain); else the measured waits,
         * at most the bound */
        cost = isfinite(bound) && r->contention > th->contention_max ? bound : fmin(cost, bound);
    }
    if (pipeline ? cost < th->symptom_share * d->min_cost
                 : cost < th->unexplained_factor * d->min_cost || (contended && thin))
        return;
    /* contended, no pipeline, no run with a core per process that shows it:
     * the scheduler alone may have made processes wait; listed as an
     * undecided candidate with its size, and a warning, never silenced */
    const char *undecided = contended && !pipeline && !waited_uncontended(d, s)
                                ? "the largest run was contended and no run with a core per process shows a wait "
                                  "at this call: the wait cannot be told from waiting for the scheduler"
                                : NULL;
    if (undecided) {
        char at[600];
        an_warn(a, "%.3g s of wait per process at %s (%s) that no computation explains is not judged: the run was "
                   "slowed %.2gx by oversubscription or other load (listed as an undecided candidate)",
                rest / nw_ranks, an_mpi_name(sv->op), at_text(sv, at, sizeof at), r->contention);
    }
    enum an_category cat;
    if (pipeline) cat = AN_CAT_PIPELINE;
    else if (y->role != AN_MPI_COLLECTIVE && y->share < th->rotation) cat = AN_CAT_ROTATING;
    else if (y->role == AN_MPI_COLLECTIVE) cat = AN_CAT_WAIT_COLLECTIVE;
    else cat = AN_CAT_MESSAGE_WAIT; /* no work found: nothing to "send earlier" */
    struct an_cause *c = an_cause_get(a, s);
    if (c->merged && (c->cost >= cost || (undecided && !c->undecided))) return;
    c->cat = cat;
    c->cost = cost;
    c->noise_exact = 1; /* exact wall times of the calls, or the hops' exact CPU times and counts */
    c->undecided = undecided;
    c->cost_rule = pipeline ? "the pipeline's hops (links x CPU time per block x starts of the wave; on an uncontended run "
                              "the measured waits, mean over all processes, when smaller), "
                              "summed over its calling contexts"
                            : "unexplained wait, mean over the waiting processes, divided by the contention";
    c->symptom = s;
    uint32_t *procs = sc_xmalloc(2 * sizeof *procs), np = 0;
    if (y->crossed >= 0 && cat != AN_CAT_ROTATING && cat != AN_CAT_PIPELINE) procs[np++] = (uint32_t)y->crossed;
    an_cause_procs(c, procs, np);
    an_cause_waiting(d, c, b->waits, NULL);
    free(c->path);
    c->path = sc_xmalloc(3 * sizeof *c->path);
    c->npath = 0;
    c->path[c->npath++] = (struct an_step){s, w, "symptom", y->mw};
    if (y->crossed >= 0)
        c->path[c->npath++] = (struct an_step){b->w[1 < b->nw ? 1 : 0].v, (uint32_t)y->crossed,
                                               y->role == AN_MPI_COLLECTIVE ? "collective" : "communication", 0};
    symptom_evidence(d, y, c, cat, rest, depth, head, bound, cost, contended, pipeline, undecided);
    a->vflags[s] |= AN_F_ROOT_CAUSE;
}

/* A significant candidate inside walked vertex v, whose own split is not
 * significant (a call whose whole time is only mildly uneven: LULESH's
 * gcc OpenMP build, call LagrangeLeapFrog at 1.2x the mean, holds
 * CalcEnergyForElems at 221 samples against 38): descends, as
 * thin_evidence does, into the child that would explain most if it were
 * significant, while that child keeps more than location_share of its
 * parent's potential, and returns the first significant one (its score in
 * *score), or AN_NONE. */
static uint32_t significant_inside(struct walk *b, uint32_t v, uint32_t hops, double *score)
{
    const struct an_graph *g = &b->d->a->g;
    double share = b->d->a->opt->th.location_share;
    *score = 0;
    b->unchecked = 1;
    double cs = explained(b, v, hops, NULL);
    uint32_t found = AN_NONE;
    for (int depth = 0; depth < 64 && cs > 0 && found == AN_NONE; depth++) {
        uint32_t bc = AN_NONE;
        double bcs = 0;
        b->unchecked = 1;
        for (uint32_t ch = g->v[v].first_child; ch != AN_NONE; ch = g->v[ch].next_sibling) {
            double sc = explained(b, ch, hops, NULL);
            if (sc > bcs) bcs = sc, bc = ch;
        }
        b->unchecked = 0;
        if (bc == AN_NONE || !(bcs > share * cs)) break;
        double s = explained(b, bc, hops, NULL);
        if (s > 0) *score = s, found = bc;
        v = bc, cs = bcs;
    }
    b->unchecked = 0;
    return found;
}

/* Backtracking from symptom s: on the process that waits most, cross to the
 * process it waits for, walk back scoring candidates by the wait they
 * explain; the best one is a root cause, what it leaves unexplained the
 * symptom's own. */
static void backtrack_symptom(struct walk *b, uint32_t s)
{
    struct an_detect *d = b->d;
    struct an_analysis *a = d->a;
    const struct an_thresholds *th = &a->opt->th;
    const struct an_run *r = d->r;
    struct symptom y = {.s = s, .role = an_mpi_role(a->g.v[s].op), .cat = AN_CAT_LOAD_IMBALANCE,
                        .share = 1, .crossed = -1, .interval_at = s};
    y.total = an_waits(a, r, s, b->waits);
    for (uint32_t i = 0; i < d->P; i++)
        if (b->waits[i] > y.mw) y.mw = b->waits[i], y.w = i;
    if (y.mw < d->min_cost * th->symptom_share || y.total <= 0) return;
    for (uint32_t v = 0; v < d->N; v++) b->score_cache[v] = NAN;
    sc_hash_clear(&b->seen_index), b->nseen = 0;
    b->nw = 0;
    b->nposts = 0;
    cross_from_symptom(b, &y);
    if (y.crossed >= 0 && y.role != AN_MPI_COLLECTIVE) y.interval_at = posted_before(b, y.interval_at);
    exact_intervals(b, y.interval_at);
    walk(b, s);
    /* best candidate */
    uint32_t best = AN_NONE, best_node = 0;
    double bs = 0;
    for (uint32_t k = 0; k < b->nw; k++) {
        double sc = explained(b, b->w[k].v, b->w[k].hops, NULL);
        if (sc > bs) bs = sc, best = b->w[k].v, best_node = k;
    }
    if (best == AN_NONE) {
        /* no walked vertex is significant as a whole: one inside may be */
        for (uint32_t k = 0; k < b->nw; k++) {
            double sc;
            uint32_t in = significant_inside(b, b->w[k].v, b->w[k].hops, &sc);
            if (in != AN_NONE && sc > bs) bs = sc, best = in, best_node = k;
        }
    }
    double *per = sc_xmalloc((d->P + 1) * sizeof *per);
    for (uint32_t i = 0; i < d->P; i++)
        if (b->waits[i] >= th->waiting_share * y.mw) y.nw_ranks++;
    double explained_total = 0, slow = 1;
    if (best != AN_NONE && bs > 0) blame_candidate(b, &y, best, best_node, per, &explained_total, &slow);
    blame_symptom(b, &y, explained_total, slow);
    free(per);
}

/* A pipeline is one receive reached from several contexts (the forward and
 * the backward sweep call the same routine): their waits are different
 * seconds, so the site's cause is their sum, at the context that waits most;
 * the other contexts' causes are dropped (a cause without a path is freed by
 * detect.c). */
static void merge_pipeline_sites(struct an_analysis *a)
{
    for (uint32_t i = 0; i < a->ncauses; i++) {
        struct an_cause *c = &a->causes[i];
        if (c->cat != AN_CAT_PIPELINE || !c->path) continue;
        for (uint32_t k = i + 1; k < a->ncauses; k++) {
            struct an_cause *o = &a->causes[k];
            if (o->cat != AN_CAT_PIPELINE || !o->path || !an_same_call_site(&a->g.v[c->vertex], &a->g.v[o->vertex])) continue;
            struct an_cause *keep = o->cost > c->cost ? o : c, *drop = keep == o ? c : o;
            keep->cost += drop->cost, keep->cost_noise += drop->cost_noise;
            an_cause_evidence(keep, "summed with the same call's wait in another calling context");
            free(drop->path), drop->path = NULL, drop->npath = 0;
            if (drop == c) break;
        }
    }
}

/* Symptom rule: an MPI vertex where some process waits at least the minimum
 * cost (an_waits: collectives t_i - min_j t_j, point-to-point the time beyond
 * its fastest calls). */
static void mark(struct an_detect *d)
{
    double *waits = sc_xmalloc((d->P + 1) * sizeof *waits);
    for (uint32_t v = 0; v < d->N; v++) {
        if (d->a->g.v[v].kind != PSG_MPI || !d->a->vm[(size_t)(d->a->nscales - 1) * d->N + v].present) continue;
        if (an_waits_bound(d->a, d->r, v) < d->min_cost * (1 - 1e-9)) continue;
        an_waits(d->a, d->r, v, waits);
        double mw = 0;
        for (uint32_t i = 0; i < d->r->P; i++) mw = fmax(mw, waits[i]);
        if (mw >= d->min_cost) d->a->vflags[v] |= AN_F_WAITING;
    }
    free(waits);
}

static void find(struct an_detect *d)
{
    struct walk b;
    memset(&b, 0, sizeof b);
    b.d = d;
    b.waits = sc_xmalloc((d->P + 1) * sizeof *b.waits);
    b.score_cache = sc_xmalloc((d->N + 1) * sizeof *b.score_cache);
    b.exact_heavy = calloc(d->P + 1, 1);
    b.exact_x = calloc(d->P + 1, sizeof *b.exact_x);
    b.sample_scale = NAN;
    if (!b.exact_heavy || !b.exact_x) abort();
    b.capw = (uint32_t)fmax(16, d->a->opt->th.max_steps + 8);
    b.w = sc_xmalloc(b.capw * sizeof *b.w);
    /* flagged symptoms, and waits of symptom_share of the minimum cost whose
     * causes may become candidates (backtrack_symptom checks the size) */
    for (uint32_t v = 0; v < d->N; v++)
        if (d->a->g.v[v].kind == PSG_MPI && an_vr_has(d->r, v, AN_HAS_MPI) &&
            an_waits_bound(d->a, d->r, v) >= d->min_cost * d->a->opt->th.symptom_share * (1 - 1e-9)) {
            backtrack_symptom(&b, v);
            an_vr_release(d->r); /* a parallel analysis's process 0 holds one walk's vertices at a time */
        }
    merge_pipeline_sites(d->a);
    an_split_free(&b.last);
    free(b.waits), free(b.score_cache), free(b.exact_heavy), free(b.exact_x), free(b.w), free(b.seen);
    sc_hash_free(&b.seen_index);
}

const struct an_detector an_detector_waits = {
    "waits",
    "an MPI vertex where a process waits at least the minimum cost; walked back to the computation "
    "that explains the wait",
    mark, find};
