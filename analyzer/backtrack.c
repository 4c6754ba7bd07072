/* backtrack.c — from symptoms to root causes.  Symptoms are MPI vertices
 * where processes wait, vertices whose time fails to scale and imbalanced
 * computation.  From a wait, on the process that waits most, the PPG is
 * walked backwards (across to the late sender or the last arrivals, then
 * along control-flow predecessors, previous loop iterations and callers) and
 * each computation vertex met is scored by the wait it explains,
 * sum_i min(wait_i, max_j V_j - V_i); the best one, refined into the child
 * that explains most of it, is the root cause.  Then: classify and rank. */
#include "analyzer.h"
#include "model.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *an_category_name(enum an_category c)
{
    static const char *const n[] = {"load_imbalance", "non_scalable_computation", "serial_bottleneck",
                                    "growing_communication", "late_sender", "late_receiver",
                                    "wait_at_collective", "gpu_idle", "gpu_bound", "host_device_transfer",
                                    "resource_contention", "rotating_blame"};
    return (unsigned)c < sizeof n / sizeof *n ? n[c] : "load_imbalance";
}

struct bt {
    struct an_analysis *a;
    const struct an_run *r;
    uint32_t N, P;
    uint32_t *prev, *last_child; /* [N] program-order neighbours */
    double *waits;               /* [P] of the current symptom */
    double *score_cache;         /* [N], NAN when not computed for this symptom */
    int unchecked;               /* explained(): score without the significance test */
    double last_p;               /* explained(): p-value of the last sampled test */
    double last_k1, last_k2;     /* ... its culprit count and the others' mean count */
    double last_excess, last_excess_need; /* ... the excess count and the least it must be */
    double min_cost;
    /* walk */
    struct wnode { uint32_t v, proc, from; const char *edge; } *w;
    uint32_t nw, capw;
    uint64_t *seen; size_t seen_cap;
};

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) abort();
    return p;
}

/* ---- visited set of (vertex, process) ---- */
static int seen_add(struct bt *b, uint32_t v, uint32_t p)
{
    uint64_t key = ((uint64_t)v << 32 | p) + 1;
    size_t h = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 17) & (b->seen_cap - 1);
    while (b->seen[h]) {
        if (b->seen[h] == key) return 0;
        h = (h + 1) & (b->seen_cap - 1);
    }
    b->seen[h] = key;
    return 1;
}

static void push(struct bt *b, uint32_t v, uint32_t proc, uint32_t from, const char *edge)
{
    if (v == AN_NONE || b->nw >= b->capw) return;
    if (!seen_add(b, v, proc)) return;
    b->w[b->nw++] = (struct wnode){v, proc, from, edge};
}

static int is_mpi(const struct an_vertex *v) { return v->kind == PSG_MPI; }

/* Work of vertex c on process i: inclusive CPU seconds plus the GPU device
 * seconds launched from its subtree (a process that launches more GPU work
 * arrives later where it synchronises). */
static double work_of(const struct an_vrun *x, uint32_t i)
{
    return (x->icpu ? x->icpu[i] : 0.0) + (x->igpu ? x->igpu[i] : 0.0);
}

/* Sum over processes of min(wait_i, max_j V_j - V_i), V the work of c; 0
 * unless the spread of V is significant: the exact conditional Poisson test
 * (stats.h) of the culprit's sample count against the other processes' counts
 * (exposure 1 against n - 1, Bonferroni alpha/n for picking the maximum) —
 * the difference must be significant, not the vertex's own count large: the
 * wait it explains is measured exactly by the MPI wrappers, so a short serial
 * section everyone waits for needs only the samples that tell it from noise.
 * When GPU device time (measured, not sampled) carries the spread, at least
 * half the minimum cost.  b->unchecked skips the test (thin-evidence report). */
/* A culprit's excess sample count must be known to +-50 % at 95 % confidence
 * (1.96 / 0.5 standard deviations): the counterpart, for a difference, of
 * min_samples' 20 % for a time.  The Poisson test alone is not enough on a
 * crowded machine, where the CPU time of equal work differs between processes
 * by more than sampling noise (cache and memory contention, page faults): at
 * 8 processes on 2 busy cores a balanced loop showed 18 samples on one process
 * against 9 on the others, p below alpha/n, and was blamed for 1.6 % of the
 * run.  A short serial section (60 samples against none) passes easily. */
#define AN_EXCESS_Z 3.92

static double explained(struct bt *b, uint32_t c, double *per_proc)
{
    const struct an_run *r = b->r;
    if (c >= r->nvr || (!r->vr[c].icpu && !r->vr[c].igpu) || is_mpi(&b->a->g.v[c])) return 0;
    /* a cause is application code with a source location, not library internals */
    if ((b->a->g.v[c].flags & AN_V_LIBRARY) || !*b->a->g.v[c].file) return 0;
    if (!per_proc && !b->unchecked && !isnan(b->score_cache[c])) return b->score_cache[c];
    const struct an_vrun *x = &r->vr[c];
    double mx = 0, sum = 0, cmx = 0, csum = 0;
    uint32_t n = 0;
    for (uint32_t i = 0; i < b->P; i++)
        if (r->present[i]) {
            double v = work_of(x, i), cv = x->icpu ? x->icpu[i] : 0;
            mx = fmax(mx, v), sum += v, cmx = fmax(cmx, cv), csum += cv, n++;
        }
    double s = 0;
    if (n && mx > 0) {
        const struct an_thresholds *th = &b->a->opt->th;
        double per = r->period_s > 0 ? r->period_s : 0.01, mean = sum / n, cmean = csum / n;
        int ok;
        if (mx - mean > 2 * (cmx - cmean)) {
            ok = mx - mean >= 0.5 * b->min_cost; /* GPU time: measured exactly */
        } else {
            uint64_t kmax = (uint64_t)llround(cmx / per), koth = (uint64_t)llround((csum - cmx) / per);
            b->last_k1 = (double)kmax, b->last_k2 = n > 1 ? (double)koth / (n - 1) : 0;
            b->last_p = n > 1 ? scalana_poisson_test(kmax, 1, koth, n - 1, SCALANA_GREATER) : 1;
            /* and the excess itself measured: kmax - k2 at least AN_EXCESS_Z of its
             * standard deviation sqrt(kmax + k2 / (n - 1)) */
            double excess = b->last_k1 - b->last_k2, sd = n > 1 ? sqrt(b->last_k1 + b->last_k2 / (n - 1)) : 0;
            b->last_excess = excess, b->last_excess_need = AN_EXCESS_Z * sd;
            ok = b->unchecked || (n > 1 && b->last_p < th->alpha / n && excess >= AN_EXCESS_Z * sd);
        }
        if (ok) {
            for (uint32_t i = 0; i < b->P; i++) {
                double e = r->present[i] ? fmin(b->waits[i], mx - work_of(x, i)) : 0;
                if (e < 0) e = 0;
                if (per_proc) per_proc[i] = e;
                s += e;
            }
        }
    }
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
static int late_peer(struct bt *b, uint32_t s, uint32_t w, double *share, uint32_t *recv_vertex)
{
    const struct an_run *r = b->r;
    const struct an_graph *g = &b->a->g;
    *share = 1;
    if (!r->peer_first) return -1;
    uint32_t fn = s;
    while (fn != AN_NONE && g->v[fn].kind != PSG_FUNCTION && !(g->v[fn].flags & AN_V_DYNAMIC && g->v[fn].kind == AN_KIND_DYNAMIC))
        fn = g->v[fn].parent;
    int best = -1;
    double bw = -1, tot_last = 0, best_last = 0;
    for (int pass = 0; pass < 3 && best < 0; pass++) {
        tot_last = 0;
        for (size_t k = r->peer_first[w]; k < r->peer_first[w + 1]; k++) {
            const struct an_peer_rec *p = &r->peers[k];
            if (!(p->flags & PRF_PEER_RECV) || p->peer < 0 || (uint32_t)p->peer >= b->P) continue;
            if (pass == 0 && p->vertex != s) continue;
            if (pass == 1 && (fn == AN_NONE || !an_graph_is_ancestor(g, fn, p->vertex))) continue;
            tot_last += (double)p->last_count;
            double key = p->last_wait_ns ? (double)p->last_wait_ns : (double)p->time_ns * 1e-3;
            if (key > bw) bw = key, best = p->peer, best_last = (double)p->last_count, *recv_vertex = p->vertex;
        }
    }
    if (best >= 0 && tot_last > 0) *share = best_last / tot_last;
    return best;
}

/* The send vertex on process q toward process w (the most messages). */
static uint32_t send_vertex(struct bt *b, uint32_t q, uint32_t w, int want_send)
{
    const struct an_run *r = b->r;
    uint32_t best = AN_NONE;
    uint64_t bc = 0;
    for (size_t k = r->peer_first[q]; k < r->peer_first[q + 1]; k++) {
        const struct an_peer_rec *p = &r->peers[k];
        if (p->peer != (int32_t)w) continue;
        if (want_send ? !(p->flags & PRF_PEER_SEND) : !(p->flags & PRF_PEER_RECV)) continue;
        if (best == AN_NONE || p->count > bc) best = p->vertex, bc = p->count;
    }
    return best;
}

/* Walks predecessors from the start nodes already pushed; returns when the
 * step bound is reached or nothing is left. */
static void walk(struct bt *b, uint32_t symptom)
{
    const struct an_graph *g = &b->a->g;
    uint32_t bound = (uint32_t)b->a->opt->th.max_steps;
    for (uint32_t head = 0; head < b->nw && b->nw < bound; head++) {
        struct wnode n = b->w[head];
        const struct an_vertex *v = &g->v[n.v];
        if (head > 0 && is_mpi(v) && an_mpi_role(v->op) == AN_MPI_COLLECTIVE && n.v != symptom)
            continue; /* a point all processes passed */
        if (head > 0 && is_mpi(v)) {
            enum an_mpi_role role = an_mpi_role(v->op);
            if ((role == AN_MPI_RECV || role == AN_MPI_COMPLETION || role == AN_MPI_SENDRECV) &&
                n.proc < b->P) {
                /* a chain of late senders: cross again when this process waited here */
                double *wt = xmalloc(b->P * sizeof *wt);
                an_waits(b->a, b->r, n.v, wt);
                if (wt[n.proc] >= b->min_cost * 0.5) {
                    double share;
                    uint32_t rv = AN_NONE;
                    int q = late_peer(b, n.v, n.proc, &share, &rv);
                    if (q >= 0) {
                        uint32_t sv = send_vertex(b, (uint32_t)q, n.proc, 1);
                        push(b, sv != AN_NONE ? sv : n.v, (uint32_t)q, head, "communication");
                    }
                }
                free(wt);
            }
        }
        /* control-flow predecessor */
        uint32_t u = n.v;
        const char *edge = "control";
        for (int up = 0; up < 64; up++) {
            if (b->prev[u] != AN_NONE) {
                push(b, b->prev[u], n.proc, head, edge);
                break;
            }
            uint32_t p = g->v[u].parent;
            if (p == AN_NONE) break;
            if (g->v[p].kind == PSG_LOOP && b->last_child[p] != AN_NONE && b->last_child[p] != u)
                push(b, b->last_child[p], n.proc, head, "loop_back");
            edge = g->v[p].kind == PSG_FUNCTION || (g->v[p].flags & AN_V_DYNAMIC && !(g->v[p].flags & AN_V_CALLSITE))
                       ? "call" : "control";
            u = p;
        }
    }
}

/* Culprit processes of c: excess over the median at least culprit_fraction of the largest. */
static uint32_t culprits(struct bt *b, uint32_t c, uint32_t **out, int low)
{
    const struct an_run *r = b->r;
    *out = xmalloc((b->P + 1) * sizeof **out);
    if (c >= r->nvr || (low ? !r->vr[c].mpi : (!r->vr[c].icpu && !r->vr[c].igpu))) return 0;
    const struct an_vrun *xv = &r->vr[c];
    double *x = calloc(b->P + 1, sizeof *x);
    if (!x) abort();
    uint32_t n = 0;
    for (uint32_t i = 0; i < b->P; i++)
        if (r->present[i]) x[n++] = low ? -(double)xv->mpi[i] : work_of(xv, i);
    if (!n) {
        free(x);
        return 0;
    }
    double med = scalana_median(x, n), mx = -INFINITY;
    for (uint32_t i = 0; i < n; i++) mx = fmax(mx, x[i]);
    uint32_t k = 0;
    double cut = med + b->a->opt->th.culprit_fraction * (mx - med);
    for (uint32_t i = 0; i < b->P; i++) {
        if (!r->present[i]) continue;
        double xi = low ? -(double)xv->mpi[i] : work_of(xv, i);
        if (xi >= cut && xi > med) (*out)[k++] = i;
    }
    free(x);
    return k;
}

/* The nearest vertex at or above v that is application code with a source
 * location (library code is blamed at the application's call). */
static uint32_t actionable(const struct an_graph *g, uint32_t v)
{
    uint32_t x = v;
    while (x != AN_NONE && ((g->v[x].flags & AN_V_LIBRARY) || !*g->v[x].file)) x = g->v[x].parent;
    return x == AN_NONE ? v : x;
}

static struct an_cause *new_cause(struct an_analysis *a, uint32_t v)
{
    v = actionable(&a->g, v);
    for (uint32_t i = 0; i < a->ncauses; i++)
        if (a->causes[i].vertex == v) {
            a->causes[i].merged = 1;
            return &a->causes[i];
        }
    struct an_cause *c = realloc(a->causes, (a->ncauses + 1) * sizeof *c);
    if (!c) abort();
    a->causes = c;
    c = &a->causes[a->ncauses++];
    memset(c, 0, sizeof *c);
    c->vertex = v;
    c->symptom = AN_NONE;
    return c;
}

static void set_procs(struct an_cause *c, uint32_t *procs, uint32_t n)
{
    if (c->procs && c->nprocs >= n) {
        free(procs);
        return;
    }
    free(c->procs);
    c->procs = procs, c->nprocs = c->nprocs_total = n;
}

static void append_evidence(struct an_cause *c, const char *text)
{
    size_t len = strlen(c->evidence);
    /* whole sentences only: a further piece that does not fit is left out, never cut */
    if (len && len + 2 + strlen(text) >= sizeof c->evidence) return;
    if (len) strcat(c->evidence, "; "), len += 2;
    snprintf(c->evidence + len, sizeof c->evidence - len, "%s", text);
}

/* Whether the culprits' time at c fails to shrink with p (serial section). */
static int looks_serial(struct bt *b, uint32_t c, const uint32_t *procs, uint32_t nprocs)
{
    struct an_analysis *a = b->a;
    const struct an_run *r = b->r;
    if (a->nscales < 2 || !nprocs || c >= r->nvr || !r->vr[c].icpu) return 0;
    const struct an_model_out *m = &a->model[c];
    /* the max series' slope: take the culprit view from the metrics */
    double p[256], t[256];
    uint32_t n = 0;
    for (uint32_t s = 0; s < a->nscales && n < 256; s++) {
        const struct an_vmetrics *vm = &a->vm[(size_t)s * a->g.n + c];
        if (!vm->present) continue;
        p[n] = a->scales[s].P, t[n] = vm->incl_max, n++;
    }
    (void)m;
    struct scalana_model sm;
    if (n < 2 || scalana_model_fit(p, t, n, &sm) != 0 || !sm.has_slope) return 0;
    /* flat: neither shrinking like the rest nor growing */
    if (sm.loglog_slope <= a->opt->th.flat_slope || sm.loglog_slope >= -a->opt->th.flat_slope) return 0;
    /* done by the culprits alone (others spend little there), or redundantly by all */
    double cul = 0, oth = 0;
    uint32_t no = 0;
    uint8_t *is = calloc(b->P, 1);
    if (!is) return 0;
    for (uint32_t k = 0; k < nprocs; k++) is[procs[k]] = 1, cul += r->vr[c].icpu[procs[k]];
    for (uint32_t i = 0; i < b->P; i++)
        if (r->present[i] && !is[i]) oth += r->vr[c].icpu[i], no++;
    free(is);
    cul /= nprocs;
    oth = no ? oth / no : 0;
    return oth < a->opt->th.serial_share * cul;
}

/* After the walk of symptom s: the candidate that would explain the most
 * wait if its sample difference were significant (refined like a cause).
 * When it explains at least the minimum cost per waiting process, a warning
 * names it, its samples and the test's p-value, and says how to get more
 * samples.  Returns 1 when it warned. */
static int thin_evidence(struct bt *b, uint32_t s, double rest_per_proc)
{
    struct an_analysis *a = b->a;
    const struct an_graph *g = &a->g;
    const struct an_vertex *sv = &g->v[s];
    uint32_t best = AN_NONE;
    double bs = 0;
    b->unchecked = 1;
    for (uint32_t k = 0; k < b->nw; k++) {
        uint32_t v = b->w[k].v;
        if (!isnan(b->score_cache[v]) && b->score_cache[v] > 0) continue; /* significant */
        double sc = explained(b, v, NULL);
        if (sc > bs) bs = sc, best = v;
    }
    while (best != AN_NONE) {
        uint32_t bc = AN_NONE;
        double bcs = 0;
        for (uint32_t ch = g->v[best].first_child; ch != AN_NONE; ch = g->v[ch].next_sibling) {
            double sc = explained(b, ch, NULL);
            if (sc > bcs) bcs = sc, bc = ch;
        }
        if (bc == AN_NONE || bcs < 0.75 * bs) break;
        best = bc, bs = bcs;
    }
    if (best != AN_NONE) explained(b, best, NULL); /* sets last_k1, last_k2, last_p */
    b->unchecked = 0;
    uint32_t nw_ranks = 0;
    double mw = 0;
    for (uint32_t i = 0; i < b->P; i++) mw = fmax(mw, b->waits[i]);
    for (uint32_t i = 0; i < b->P; i++)
        if (b->waits[i] >= 0.1 * mw) nw_ranks++;
    if (best == AN_NONE || !nw_ranks || bs / nw_ranks < b->min_cost) return 0;
    /* only a candidate that looks like a culprit (max/others at least the imbalance
     * threshold): in a balanced run the largest of P noisy counts is no lead */
    if (b->last_k1 < a->opt->th.imbalance * b->last_k2) return 0;
    const struct an_vertex *v = &g->v[best];
    double hz = b->r->period_s > 0 ? 1.0 / b->r->period_s : 0;
    an_warn(a, "%u processes: %.3g s of wait per process at %s (%s:%u) points to %s (%s:%u), but the "
               "evidence is too thin to report it: the process that spends longest there has %.0f "
               "samples in it against %.3g on the others (exact Poisson test p = %.2g, needs < %.2g; an excess "
               "of %.3g samples, needs %.3g); run longer or raise SCALANA_FREQ (now %.0f Hz)",
            b->P, rest_per_proc, an_mpi_name(sv->op), sv->file, sv->line,
            v->name && *v->name ? v->name : v->function, v->file, v->line, b->last_k1, b->last_k2,
            b->last_p, a->opt->th.alpha / b->P, b->last_excess, b->last_excess_need, hz);
    return 1;
}

static void backtrack_symptom(struct bt *b, uint32_t s)
{
    struct an_analysis *a = b->a;
    const struct an_graph *g = &a->g;
    const struct an_run *r = b->r;
    const struct an_vertex *sv = &g->v[s];
    double total = an_waits(a, r, s, b->waits), mw = 0;
    uint32_t w = 0;
    for (uint32_t i = 0; i < b->P; i++)
        if (b->waits[i] > mw) mw = b->waits[i], w = i;
    if (mw < b->min_cost * 0.5 || total <= 0) return;
    for (uint32_t v = 0; v < b->N; v++) b->score_cache[v] = NAN;
    memset(b->seen, 0, b->seen_cap * sizeof *b->seen);
    b->nw = 0;
    enum an_mpi_role role = an_mpi_role(sv->op);
    enum an_category cat = AN_CAT_LOAD_IMBALANCE;
    double share = 1;
    int crossed = -1;
    push(b, s, w, AN_NONE, "symptom");
    if (role == AN_MPI_COLLECTIVE) {
        /* the last arrivals spent the least time inside */
        const float *t = r->vr[s].mpi;
        uint32_t late = w;
        double mn = INFINITY;
        for (uint32_t i = 0; i < b->P; i++)
            if (r->present[i] && r->vr[s].ncalls && r->vr[s].ncalls[i] > 0 && t[i] < mn &&
                (!r->vr[s].comm || r->vr[s].comm[i] == r->vr[s].comm[w]))
                mn = t[i], late = i;
        seen_add(b, s, late);
        b->w[b->nw++] = (struct wnode){s, late, 0, "collective"};
        crossed = (int)late;
        cat = AN_CAT_LOAD_IMBALANCE;
    } else if (role == AN_MPI_RECV || role == AN_MPI_COMPLETION || role == AN_MPI_SENDRECV ||
               role == AN_MPI_PROBE) {
        uint32_t rv = AN_NONE;
        int q = late_peer(b, s, w, &share, &rv);
        if (q >= 0) {
            uint32_t snd = send_vertex(b, (uint32_t)q, w, 1);
            push(b, snd != AN_NONE ? snd : s, (uint32_t)q, 0, "communication");
            crossed = q;
        }
        cat = AN_CAT_LATE_SENDER;
    } else if (role == AN_MPI_SEND) {
        int q = -1;
        uint64_t bt = 0;
        for (size_t k = r->peer_first[w]; k < r->peer_first[w + 1]; k++) {
            const struct an_peer_rec *p = &r->peers[k];
            if (p->vertex == s && (p->flags & PRF_PEER_SEND) && p->peer >= 0 && (uint32_t)p->peer < b->P &&
                p->time_ns >= bt)
                bt = p->time_ns, q = p->peer;
        }
        if (q >= 0) {
            uint32_t rcv = send_vertex(b, (uint32_t)q, w, 0);
            push(b, rcv != AN_NONE ? rcv : s, (uint32_t)q, 0, "communication");
            crossed = q;
        }
        cat = AN_CAT_LATE_RECEIVER;
    }
    walk(b, s);
    /* best candidate */
    uint32_t best = AN_NONE, best_node = 0;
    double bs = 0;
    for (uint32_t k = 0; k < b->nw; k++) {
        double sc = explained(b, b->w[k].v, NULL);
        if (sc > bs) bs = sc, best = b->w[k].v, best_node = k;
    }
    /* refine: into the child (or callee) that explains most of it */
    uint32_t root = best;
    while (root != AN_NONE) {
        uint32_t bc = AN_NONE;
        double bcs = 0;
        for (uint32_t ch = g->v[root].first_child; ch != AN_NONE; ch = g->v[ch].next_sibling) {
            double sc = explained(b, ch, NULL);
            if (sc > bcs) bcs = sc, bc = ch;
        }
        if (bc == AN_NONE || bcs < 0.75 * explained(b, root, NULL)) break;
        root = bc;
    }
    double *per = xmalloc(b->P * sizeof *per);
    char ev[768];
    uint32_t nw_ranks = 0;
    for (uint32_t i = 0; i < b->P; i++)
        if (b->waits[i] >= 0.1 * mw) nw_ranks++;
    double explained_total = 0;
    if (root != AN_NONE && bs > 0) {
        double ex = explained(b, root, per), sum = 0;
        for (uint32_t i = 0; i < b->P; i++) sum += per[i];
        explained_total = sum;
        double cost = nw_ranks ? sum / nw_ranks : 0;
        uint32_t *procs;
        uint32_t np = culprits(b, root, &procs, 0);
        if (cat == AN_CAT_LOAD_IMBALANCE && looks_serial(b, root, procs, np)) cat = AN_CAT_SERIAL;
        /* the culprits' extra work is GPU device time: GPU-bound (or transfers) */
        if (r->vr[root].igpu) {
            double gx = 0, cx = 0;
            for (uint32_t k = 0; k < np; k++)
                gx += r->vr[root].igpu[procs[k]], cx += r->vr[root].icpu ? r->vr[root].icpu[procs[k]] : 0;
            if (gx > cx) {
                double kern = 0, copy = 0;
                gpu_totals(g, r, root, &kern, &copy, 0);
                cat = copy > kern ? AN_CAT_H2D : AN_CAT_GPU_BOUND;
            }
        }
        struct an_cause *c = new_cause(a, root);
        if (!c->merged || cost > c->cost) {
            c->cat = cat;
            c->cost = cost;
            c->symptom = s;
            free(c->path);
            /* path: symptom, crossing, walk back to the candidate, then the refined root */
            uint32_t chain[512], nc = 0;
            for (uint32_t k = best_node; k != AN_NONE && nc < 512; k = b->w[k].from) {
                chain[nc++] = k;
                if (k == 0) break;
            }
            c->path = xmalloc((nc + 2) * sizeof *c->path);
            c->npath = 0;
            for (uint32_t k = nc; k-- > 0;) {
                const struct wnode *n = &b->w[chain[k]];
                /* the wait at the symptom, on the steps that are the symptom or cross to it */
                double wt = n->v == s && n->proc < b->P ? b->waits[n->proc] : 0;
                c->path[c->npath++] = (struct an_step){n->v, n->proc, n->edge, wt};
            }
            /* the root step names the culprit process */
            uint32_t rp = np ? procs[0] : w;
            if (c->npath && c->path[c->npath - 1].vertex == root) {
                c->path[c->npath - 1].edge = "root";
                c->path[c->npath - 1].process = rp;
            } else {
                c->path[c->npath++] = (struct an_step){root, rp, "root", 0};
            }
        }
        c->explained_wait = fmax(c->explained_wait, ex);
        uint32_t first = np ? procs[0] : w;
        double *vv = xmalloc((b->P + 1) * sizeof *vv), med;
        uint32_t nv = 0;
        for (uint32_t i = 0; i < b->P; i++)
            if (r->present[i]) vv[nv++] = work_of(&r->vr[root], i);
        med = nv ? scalana_median_inplace(vv, nv) : 0;
        free(vv);
        set_procs(c, procs, np);
        uint32_t *wp = xmalloc((b->P + 1) * sizeof *wp), nwp = 0;
        for (uint32_t i = 0; i < b->P; i++)
            if (b->waits[i] >= 0.1 * mw) wp[nwp++] = i;
        free(c->waiting);
        c->waiting = wp, c->nwaiting = nwp;
        snprintf(ev, sizeof ev,
                 "explains %.3g of %.3g process-seconds of wait at %s (%s:%u) on %u process%s; "
                 "%s time there %.3g s on process %u against a median of %.3g s; %u culprit process%s",
                 sum, total, an_mpi_name(sv->op), sv->file, sv->line, nw_ranks, nw_ranks == 1 ? "" : "es",
                 r->vr[root].igpu ? "CPU+GPU" : "CPU", work_of(&r->vr[root], first), first, med, np,
                 np == 1 ? "" : "es");
        append_evidence(c, ev);
        a->vflags[root] |= AN_F_ROOT_CAUSE;
    }
    {
        /* what no computation explains: the symptom is its own cause; with f
         * processes per core only 1/f of a wait is the program's own */
        double rest = total - explained_total;
        double cost = nw_ranks ? rest / nw_ranks / fmax(1, r->contention) : 0;
        /* a candidate that would explain the wait but whose sample difference
         * is not significant: say precisely that the evidence is thin */
        int thin = nw_ranks && rest / nw_ranks >= b->min_cost && thin_evidence(b, s, rest / nw_ranks);
        if (cost < 2 * b->min_cost) {
            free(per);
            return;
        }
        if (r->contention > 1.5 && thin) {
            free(per);
            return;
        }
        if (r->contention > 1.5) {
            /* the scheduler alone makes processes wait here: say so, blame nothing */
            an_warn(a, "%.3g s of wait per process at %s (%s:%u) that no computation explains is not "
                       "reported: the run was slowed %.2gx by oversubscription or other load",
                    rest / nw_ranks, an_mpi_name(sv->op), sv->file, sv->line, r->contention);
            free(per);
            return;
        }
        if (role != AN_MPI_COLLECTIVE && share < a->opt->th.rotation) cat = AN_CAT_ROTATING;
        else if (role == AN_MPI_COLLECTIVE) cat = AN_CAT_WAIT_COLLECTIVE;
        struct an_cause *c = new_cause(a, s);
        if (c->merged && c->cost >= cost) {
            free(per);
            return;
        }
        c->cat = cat;
        c->cost = cost;
        c->symptom = s;
        uint32_t *procs = xmalloc(2 * sizeof *procs), np = 0;
        if (crossed >= 0 && cat != AN_CAT_ROTATING) procs[np++] = (uint32_t)crossed;
        set_procs(c, procs, np);
        free(c->path);
        c->path = xmalloc(3 * sizeof *c->path);
        c->npath = 0;
        c->path[c->npath++] = (struct an_step){s, w, "symptom", mw};
        if (crossed >= 0) c->path[c->npath++] = (struct an_step){b->w[1 < b->nw ? 1 : 0].v, (uint32_t)crossed,
                                                               role == AN_MPI_COLLECTIVE ? "collective" : "communication", 0};
        if (cat == AN_CAT_ROTATING)
            snprintf(ev, sizeof ev, "%.3g process-seconds of wait at %s; blame rotates between processes: "
                     "no peer completes last in more than %.0f%% of the waits, no consistent culprit",
                     rest, an_mpi_name(sv->op), share * 100);
        else
            snprintf(ev, sizeof ev, "%.3g process-seconds of wait at %s on %u process%s that no measured "
                     "computation explains (the cause may be unsampled: I/O, sleep, another job)",
                     rest, an_mpi_name(sv->op), nw_ranks, nw_ranks == 1 ? "" : "es");
        append_evidence(c, ev);
        a->vflags[s] |= AN_F_ROOT_CAUSE;
    }
    free(per);
}

static int by_cost(const void *x, const void *y)
{
    const struct an_cause *a = x, *b = y;
    if (a->cost != b->cost) return a->cost > b->cost ? -1 : 1;
    return a->vertex < b->vertex ? -1 : 1;
}

static void free_cause(struct an_cause *c)
{
    free(c->procs), free(c->waiting), free(c->path);
    memset(c, 0, sizeof *c);
}

/* Whether vertex v (or a vertex inside it) launched GPU work on any process. */
static int launches_gpu(const struct an_run *r, uint32_t v)
{
    if (v >= r->nvr || !r->vr[v].igpu) return 0;
    for (uint32_t i = 0; i < r->P; i++)
        if (r->present[i] && r->vr[v].igpu[i] > 0) return 1;
    return 0;
}

/* Whether a cause already sits at, above or below v, or was found from v. */
static int covered_by_cause(const struct an_analysis *a, uint32_t v)
{
    for (uint32_t k = 0; k < a->ncauses; k++) {
        const struct an_cause *c = &a->causes[k];
        if (!c->path) continue;
        if (c->symptom == v || an_graph_is_ancestor(&a->g, c->vertex, v) || an_graph_is_ancestor(&a->g, v, c->vertex))
            return 1;
    }
    return 0;
}

/* GPU idle: in a program whose processes use the GPU, but whose GPUs were busy
 * less than gpu_busy_share of the run, the host code during which the GPU had
 * nothing to do.  Candidates are the host parts of GPU-driving code: an
 * application vertex that launches no GPU work itself, next to code that does
 * (its parent's subtree launches), i.e. the host computation or the MPI
 * operation between the launches.  Per GPU process i, with W_i its wall time
 * (less MPI_Init/Finalize), B_i its GPU device time and S_i its host time
 * blocked on the GPU (during which the device is busy), the device idled
 * W_i - B_i, and at most B_i - S_i of device work could have run
 * asynchronously under host code.  So at least
 *     idle_i(c) = min(T_i(c), W_i - B_i) - max(0, B_i - S_i)
 * of c's host time T_i(c) (inclusive CPU seconds; for MPI its wall seconds
 * divided by the contention) left the GPU idle.  The cost is the mean of
 * idle_i(c) over the GPU processes.  Host computation needs a significant
 * sample count; MPI operations count only from uncontended runs (contention
 * <= 1.5, as unexplained waits) and only when no cause explains their waits;
 * vertices already blamed (or found from) are skipped.  A candidate is refined
 * into the child that holds >= 75 % of its cost, like backtracking. */
static void gpu_idle_causes(struct bt *b)
{
    struct an_analysis *a = b->a;
    const struct an_run *r = b->r;
    const struct an_graph *g = &a->g;
    const struct an_thresholds *th = &a->opt->th;
    uint32_t ngpu = 0, npresent = 0;
    double busy = 0, wall = 0;
    for (uint32_t i = 0; i < b->P; i++) {
        if (!r->present[i]) continue;
        npresent++;
        if (r->gpu_busy[i] <= 0) continue;
        ngpu++;
        busy += r->gpu_busy[i];
        wall += fmax(0, r->wall[i] - (r->startup ? r->startup[i] : 0));
    }
    if (!ngpu || 2 * ngpu < npresent || wall <= 0 || busy / wall >= th->gpu_busy_share) return;
    double *idle = xmalloc((b->P + 1) * sizeof *idle), *async = xmalloc((b->P + 1) * sizeof *async);
    for (uint32_t i = 0; i < b->P; i++) {
        idle[i] = async[i] = 0;
        if (!r->present[i] || r->gpu_busy[i] <= 0) continue;
        idle[i] = fmax(0, r->wall[i] - (r->startup ? r->startup[i] : 0) - r->gpu_busy[i]);
        async[i] = fmax(0, r->gpu_busy[i] - r->gpu_sync[i]);
    }
    double f = fmax(1, r->contention);
    char ev[768];
    for (uint32_t v = 0; v < b->N && v < r->nvr; v++) {
        const struct an_vertex *vx = &g->v[v];
        uint32_t par = vx->parent;
        if (par == AN_NONE || launches_gpu(r, v) || !launches_gpu(r, par)) continue;
        if (vx->kind == PSG_GPU || (vx->flags & AN_V_LIBRARY) || !*vx->file) continue;
        int mpi = is_mpi(vx);
        if (mpi && (r->contention > 1.5 || an_mpi_is_init(vx->op))) continue;
        /* refine host computation into the child holding most of it */
        uint32_t c = v;
        for (int depth = 0; !mpi && depth < 64; depth++) {
            const struct an_vrun *x = &r->vr[c];
            double tot = 0, bt = 0;
            uint32_t bc = AN_NONE;
            if (!x->icpu) break;
            for (uint32_t i = 0; i < b->P; i++) tot += r->present[i] ? x->icpu[i] : 0;
            for (uint32_t ch = g->v[c].first_child; ch != AN_NONE; ch = g->v[ch].next_sibling) {
                if (ch >= r->nvr || !r->vr[ch].icpu || (g->v[ch].flags & AN_V_LIBRARY) || !*g->v[ch].file) continue;
                double t = 0;
                for (uint32_t i = 0; i < b->P; i++) t += r->present[i] ? r->vr[ch].icpu[i] : 0;
                if (t > bt) bt = t, bc = ch;
            }
            if (bc == AN_NONE || bt < 0.75 * tot) break;
            c = bc;
        }
        const struct an_vrun *x = &r->vr[c];
        if (mpi ? !x->mpi : !x->icpu) continue;
        if (!mpi && x->samples + x->samples_incl < th->min_samples) continue;
        if (covered_by_cause(a, c)) continue;
        double sum = 0, host = 0, asum = 0;
        for (uint32_t i = 0; i < b->P; i++) {
            if (!r->present[i] || r->gpu_busy[i] <= 0) continue;
            double t = mpi ? x->mpi[i] / f : x->icpu[i];
            host += t, asum += async[i];
            double e = fmin(t, idle[i]) - async[i];
            sum += e > 0 ? e : 0;
        }
        double cost = sum / ngpu;
        if (cost < b->min_cost) continue;
        struct an_cause *cause = new_cause(a, c);
        if (cause->merged) continue;
        cause->cat = AN_CAT_GPU_IDLE;
        cause->cost = cost;
        uint32_t *procs = xmalloc((b->P + 1) * sizeof *procs), np = 0;
        for (uint32_t i = 0; i < b->P; i++)
            if (r->present[i] && r->gpu_busy[i] > 0) procs[np++] = i;
        set_procs(cause, procs, np);
        cause->path = xmalloc(sizeof *cause->path);
        cause->path[0] = (struct an_step){cause->vertex, np ? procs[0] : 0, "root", 0};
        cause->npath = 1;
        snprintf(ev, sizeof ev,
                 "the GPUs were busy %.0f%% of the run (%.3g of %.3g s per process); %s here takes %.3g s per "
                 "GPU process while no GPU work is launched from it, at least %.3g s of it with the GPU idle "
                 "(beyond the %.3g s of device work that could run asynchronously)",
                 100 * busy / wall, busy / ngpu, wall / ngpu, mpi ? "MPI (wall / contention)" : "host computation",
                 host / ngpu, cost, asum / ngpu);
        append_evidence(cause, ev);
        a->vflags[cause->vertex] |= AN_F_ROOT_CAUSE;
    }
    free(idle), free(async);
}

void an_find_root_causes(struct an_analysis *a)
{
    if (!a->nscales) return;
    const struct an_scale *big = &a->scales[a->nscales - 1];
    struct bt b;
    memset(&b, 0, sizeof b);
    b.a = a, b.r = big->rep, b.N = a->g.n, b.P = big->P;
    const struct an_thresholds *th = &a->opt->th;
    b.min_cost = an_min_cost(a);
    b.prev = xmalloc((b.N + 1) * sizeof *b.prev);
    b.last_child = xmalloc((b.N + 1) * sizeof *b.last_child);
    memset(b.prev, 0xff, (b.N + 1) * sizeof *b.prev);
    memset(b.last_child, 0xff, (b.N + 1) * sizeof *b.last_child);
    for (uint32_t p = 0; p < b.N; p++) {
        uint32_t last = AN_NONE;
        for (uint32_t c = a->g.v[p].first_child; c != AN_NONE; c = a->g.v[c].next_sibling) {
            b.prev[c] = last;
            last = c;
        }
        b.last_child[p] = last;
    }
    b.waits = xmalloc((b.P + 1) * sizeof *b.waits);
    b.score_cache = xmalloc((b.N + 1) * sizeof *b.score_cache);
    b.capw = (uint32_t)fmax(16, th->max_steps + 8);
    b.w = xmalloc(b.capw * sizeof *b.w);
    b.seen_cap = 1;
    while (b.seen_cap < 4 * b.capw) b.seen_cap *= 2;
    b.seen = calloc(b.seen_cap, sizeof *b.seen);
    if (!b.seen) abort();

    /* 1. waits */
    for (uint32_t v = 0; v < b.N; v++)
        if (a->vflags[v] & AN_F_WAITING) backtrack_symptom(&b, v);

    /* 2. vertices that fail to scale are their own causes (or confirm one) */
    char ev[768];
    if (a->nscales >= 2) {
        for (uint32_t v = 0; v < b.N; v++) {
            if (!(a->vflags[v] & AN_F_NON_SCALABLE)) continue;
            const struct an_vertex *vx = &a->g.v[v];
            const struct an_vmetrics *mb = &a->vm[(size_t)(a->nscales - 1) * b.N + v];
            struct an_cause *c = new_cause(a, v);
            double cost = a->loss[v];
            uint32_t *procs;
            uint32_t np;
            if (is_mpi(vx)) {
                np = 0;
                procs = xmalloc(sizeof *procs);
                if (!c->merged || cost > c->cost) c->cat = AN_CAT_GROWING_COMM;
                const struct an_vmetrics *m0 = NULL;
                uint32_t p0 = big->P;
                for (uint32_t s = 0; s + 1 < a->nscales && !m0; s++)
                    if (a->vm[(size_t)s * b.N + v].present) m0 = &a->vm[(size_t)s * b.N + v], p0 = a->scales[s].P;
                snprintf(ev, sizeof ev, "%s: time of the fastest process grows from %.3g s at %u to %.3g s at %u "
                         "processes (model %s); bytes per call %.3g at %u, %.3g at %u processes; run %.2gx "
                         "contended at %u processes", an_mpi_name(vx->op),
                         m0 ? m0->min : 0.0, p0, mb->min, big->P,
                         a->model[v].valid ? a->model[v].formula : "n/a",
                         m0 && m0->calls > 0 ? m0->bytes / m0->calls : 0.0, p0,
                         mb->calls > 0 ? mb->bytes / mb->calls : 0.0, big->P, b.r->contention, big->P);
            } else {
                np = culprits(&b, v, &procs, 0);
                if (np == 0 || mb->imbalance < th->imbalance) {
                    /* balanced: every process causes it */
                    free(procs);
                    procs = xmalloc((b.P + 1) * sizeof *procs);
                    np = 0;
                    for (uint32_t i = 0; i < b.P; i++)
                        if (b.r->present[i]) procs[np++] = i;
                }
                /* replicated or growing work on the processes: non-scalable; a serial
                 * section (one process works, the others wait) is found from the waits */
                if (!c->merged || cost > c->cost)
                    c->cat = c->merged && c->cat == AN_CAT_SERIAL ? AN_CAT_SERIAL : AN_CAT_NON_SCALABLE;
                double ideal = mb->mean - a->loss[v];
                snprintf(ev, sizeof ev, "mean time per process %.3g s at %u processes against an ideal %.3g s "
                         "(%s scaling from %u processes); log-log slope %.2f; model %s",
                         mb->mean, big->P, ideal, a->opt->weak ? "weak" : "strong", a->scales[0].P,
                         a->model[v].has_slope ? a->model[v].loglog_slope : NAN,
                         a->model[v].valid ? a->model[v].formula : "n/a");
            }
            if (!c->merged || cost > c->cost) {
                c->cost = cost;
                if (!c->path) {
                    c->path = xmalloc(sizeof *c->path);
                    c->path[0] = (struct an_step){c->vertex, np ? procs[0] : 0, "root", 0};
                    c->npath = 1;
                }
            }
            set_procs(c, procs, np);
            append_evidence(c, ev);
        }
    }

    /* 3. imbalanced computation nobody was found waiting for */
    for (uint32_t v = 0; v < b.N; v++) {
        if (!(a->vflags[v] & AN_F_IMBALANCED)) continue;
        int covered = 0;
        for (uint32_t k = 0; k < a->ncauses && !covered; k++)
            covered = an_graph_is_ancestor(&a->g, a->causes[k].vertex, v) ||
                      an_graph_is_ancestor(&a->g, v, a->causes[k].vertex);
        if (covered) continue;
        const struct an_vmetrics *mb = &a->vm[(size_t)(a->nscales - 1) * b.N + v];
        struct an_cause *c = new_cause(a, v);
        c->cat = AN_CAT_LOAD_IMBALANCE;
        c->cost = mb->max - mb->mean;
        uint32_t *procs;
        uint32_t np = culprits(&b, v, &procs, 0);
        set_procs(c, procs, np);
        c->path = xmalloc(sizeof *c->path);
        c->path[0] = (struct an_step){c->vertex, np ? procs[0] : mb->argmax, "root", 0};
        c->npath = 1;
        snprintf(ev, sizeof ev, "max/mean %.2f over %u processes (max %.3g s, mean %.3g s); no wait found that it causes",
                 mb->max / (mb->mean > 0 ? mb->mean : 1), big->P, mb->max, mb->mean);
        append_evidence(c, ev);
    }

    /* 3b. host code or MPI that leaves the GPUs idle */
    gpu_idle_causes(&b);

    /* 4. one cause per subtree: a cause inside another cause's vertex wins */
    for (uint32_t i = 0; i < a->ncauses; i++) {
        for (uint32_t k = 0; k < a->ncauses; k++) {
            if (i == k || !a->causes[i].path || !a->causes[k].path) continue;
            struct an_cause *outer = &a->causes[i], *inner = &a->causes[k];
            if (!an_graph_is_ancestor(&a->g, outer->vertex, inner->vertex)) continue;
            if (inner->cost < outer->cost) {
                inner->cost = outer->cost;
                if (outer->nprocs > inner->nprocs) {
                    free(inner->procs);
                    inner->procs = outer->procs, inner->nprocs = outer->nprocs;
                    inner->nprocs_total = outer->nprocs_total;
                    outer->procs = NULL;
                }
            }
            append_evidence(inner, outer->evidence);
            free_cause(outer);
            break;
        }
    }
    /* 5. thresholds and ranking */
    uint32_t n = 0;
    for (uint32_t i = 0; i < a->ncauses; i++) {
        struct an_cause *c = &a->causes[i];
        if (!c->path || c->cost < b.min_cost || c->cost <= 0) {
            if (c->path) a->vflags[c->vertex] &= ~(uint32_t)AN_F_ROOT_CAUSE;
            free_cause(c);
            continue;
        }
        a->vflags[c->vertex] |= AN_F_ROOT_CAUSE;
        if (c->cost > big->wall && big->wall > 0) c->cost = big->wall;
        a->causes[n++] = *c;
    }
    a->ncauses = n;
    if (n) qsort(a->causes, n, sizeof *a->causes, by_cost);
    free(b.prev), free(b.last_child), free(b.waits), free(b.score_cache), free(b.w), free(b.seen);
}
