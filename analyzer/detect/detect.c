/* detect.c — the detectors' toolkit (detect.h): the split of the processes
 * into heavy and light ones, the saving of balancing and of a fix in the CPU
 * model, the location rule, the computation category and cause bookkeeping.
 * The engine that runs the detectors is detect/find.c. */
#include "detect/detect.h"
#include "core/graph.h"
#include "core/types.h"
#include "models/model.h"
#include "models/stats.h"
#include "ppg/run_source.h"
#include "ppg/threads.h"
#include "ppg/vtime.h"
#include "sc_alloc.h"
#include "scalana/psg_format.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

double an_work(const struct an_vrun *x, uint32_t i)
{
    return (x->icpu ? x->icpu[i] : 0.0) + (x->igpu ? x->igpu[i] : 0.0);
}

/* ---- heavy and light processes ------------------------------------------------- */

static const double *sort_x;
static int by_value_desc(const void *p, const void *q)
{
    double a = sort_x[*(const uint32_t *)p], b = sort_x[*(const uint32_t *)q];
    if (a != b) return a > b ? -1 : 1;
    return *(const uint32_t *)p < *(const uint32_t *)q ? -1 : 1;
}
static int by_rank(const void *p, const void *q)
{
    uint32_t a = *(const uint32_t *)p, b = *(const uint32_t *)q;
    return a < b ? -1 : a > b;
}

void an_split_values(const struct an_detect *d, const double *x, double period, struct an_split *out)
{
    const struct an_run *r = d->r;
    const struct an_thresholds *th = &d->a->opt->th;
    memset(out, 0, sizeof *out);
    out->p_value = 1;
    uint32_t *ix = sc_xmalloc((d->P + 1) * sizeof *ix), n = 0;
    for (uint32_t i = 0; i < d->P; i++)
        if (r->present[i]) ix[n++] = i;
    out->heavy = sc_xmalloc((n + 1) * sizeof *out->heavy);
    if (n == 0) {
        free(ix);
        return;
    }
    sort_x = x;
    qsort(ix, n, sizeof *ix, by_value_desc);
    double tot = 0;
    for (uint32_t k = 0; k < n; k++) tot += x[ix[k]];
    out->mean = tot / n, out->max = x[ix[0]];
    out->median = n % 2 ? x[ix[n / 2]] : 0.5 * (x[ix[n / 2 - 1]] + x[ix[n / 2]]);
    if (n < 2) {
        free(ix);
        return;
    }
    /* the best split: top j processes against the other n - j */
    double best = -INFINITY, hi = 0;
    uint32_t bj = 1;
    for (uint32_t j = 1; j < n; j++) {
        hi += x[ix[j - 1]];
        double mh = hi / j, ml = (tot - hi) / (n - j), score;
        if (period > 0) {
            /* z of the difference of two Poisson rates per process */
            double pooled = tot / period / n;
            score = pooled > 0 ? (mh - ml) / period / sqrt(pooled * (1.0 / j + 1.0 / (n - j))) : 0;
        } else {
            score = (double)j * (n - j) * (mh - ml) * (mh - ml); /* between-group variance */
        }
        if (score > best + 1e-12) best = score, bj = j;
    }
    double kh = 0;
    for (uint32_t k = 0; k < bj; k++) kh += x[ix[k]];
    out->heavy_mean = kh / bj, out->light_mean = (tot - kh) / (n - bj);
    out->nheavy = bj;
    for (uint32_t k = 0; k < bj; k++) out->heavy[k] = ix[k];
    qsort(out->heavy, bj, sizeof *out->heavy, by_rank);
    int ratio = out->mean > 0 && out->heavy_mean / out->mean >= th->imbalance;
    if (period > 0) {
        uint64_t k1 = (uint64_t)llround(kh / period), k2 = (uint64_t)llround((tot - kh) / period);
        out->k_heavy = (double)k1 / bj, out->k_light = (double)k2 / (n - bj);
        out->p_value = scalana_poisson_test(k1, bj, k2, n - bj, SCALANA_GREATER);
        out->significant = ratio && out->p_value < th->alpha / (n - 1);
        /* sorting by noisy counts pulls the luckiest light processes into the
         * heavy group: keep the members whose own count exceeds the light
         * group's at alpha / n (all of them when none does on its own: many
         * mildly heavy processes) */
        if (out->significant && bj > 1) {
            uint32_t keep = 0;
            for (uint32_t k = 0; k < bj; k++) {
                uint64_t ki = (uint64_t)llround(x[ix[k]] / period);
                if (scalana_poisson_test(ki, 1, k2, n - bj, SCALANA_GREATER) < th->alpha / n) ix[keep++] = ix[k];
            }
            if (keep && keep < bj) {
                double kk = 0;
                for (uint32_t k = 0; k < keep; k++) kk += x[ix[k]];
                out->heavy_mean = kk / keep, out->nheavy = keep;
                for (uint32_t k = 0; k < keep; k++) out->heavy[k] = ix[k];
                qsort(out->heavy, keep, sizeof *out->heavy, by_rank);
                out->k_heavy = kk / period / keep;
            }
        }
    } else {
        out->p_value = 0;
        out->significant = ratio && out->heavy_mean - out->mean >= th->symptom_share * d->min_cost;
    }
    free(ix);
}

void an_split_free(struct an_split *s)
{
    free(s->heavy);
    s->heavy = NULL;
}

double an_balance_saving(const struct an_run *r, const double *x)
{
    uint32_t *ix = sc_xmalloc((r->P + 1) * sizeof *ix), n = 0;
    for (uint32_t i = 0; i < r->P; i++)
        if (r->present[i]) ix[n++] = i;
    if (n < 2) {
        free(ix);
        return 0;
    }
    sort_x = x;
    qsort(ix, n, sizeof *ix, by_value_desc);
    double tot = 0, hi = 0, best = -1, saving = 0;
    for (uint32_t k = 0; k < n; k++) tot += x[ix[k]];
    /* the critical (heavy) group: the split with the largest between-group variance */
    for (uint32_t j = 1; j < n; j++) {
        hi += x[ix[j - 1]];
        double mh = hi / j, ml = (tot - hi) / (n - j), v = (double)j * (n - j) * (mh - ml) * (mh - ml);
        if (v > best) best = v, saving = mh - tot / n;
    }
    free(ix);
    return saving > 0 ? saving : 0;
}

double an_group_excess(void *ctx, uint32_t v)
{
    const struct an_groups *gr = ctx;
    const struct an_detect *d = gr->d;
    const struct an_run *r = d->r;
    if (!an_vr_has(r, v, AN_HAS_ICPU | AN_HAS_IGPU) || d->a->g.v[v].kind == PSG_MPI) return 0;
    const struct an_vrun *x = an_vr(r, v);
    double h = 0, l = 0;
    uint32_t nh = 0, nl = 0;
    for (uint32_t i = 0; i < d->P; i++) {
        if (!r->present[i]) continue;
        double w = an_work(x, i);
        if (gr->heavy[i]) h += w, nh++;
        else l += w, nl++;
    }
    if (!nh) return 0;
    return h / nh - (nl ? l / nl : 0);
}

uint32_t an_locate_culprits(const struct an_detect *d, uint32_t v, const uint32_t *procs, uint32_t np)
{
    uint8_t *heavy = calloc(d->P + 1, 1);
    if (!heavy) abort();
    for (uint32_t k = 0; k < np; k++) heavy[procs[k]] = 1;
    struct an_groups gr = {d, heavy};
    uint32_t loc = an_locate_from(d, v, an_group_excess, &gr);
    free(heavy);
    return loc;
}

/* ---- causes ------------------------------------------------------------------------ */

int an_actionable(const struct an_graph *g, uint32_t v)
{
    return v != AN_NONE && !(g->v[v].flags & AN_V_LIBRARY) && (*g->v[v].file || (g->v[v].flags & AN_V_NODEBUG));
}

/* The nearest vertex at or above v that is application code with a source
 * location, or the executable's code built without -g (library code is
 * blamed at the application's call). */
static uint32_t actionable_above(const struct an_graph *g, uint32_t v)
{
    uint32_t x = v;
    while (x != AN_NONE && !an_actionable(g, x)) x = g->v[x].parent;
    return x == AN_NONE ? v : x;
}

struct an_cause *an_cause_get(struct an_analysis *a, uint32_t v)
{
    v = actionable_above(&a->g, v);
    for (uint32_t i = 0; i < a->ncauses; i++)
        if (a->causes[i].vertex == v && a->causes[i].path) {
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

void an_cause_procs(struct an_cause *c, uint32_t *procs, uint32_t n)
{
    if (c->procs && c->nprocs >= n) {
        free(procs);
        return;
    }
    free(c->procs);
    c->procs = procs, c->nprocs = c->nprocs_total = n;
}

void an_cause_evidence(struct an_cause *c, const char *fmt, ...)
{
    char text[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    size_t len = strlen(c->evidence);
    /* whole sentences only: a further piece that does not fit is left out, never cut */
    if (len && len + 2 + strlen(text) >= sizeof c->evidence) return;
    if (len) strcat(c->evidence, "; "), len += 2;
    snprintf(c->evidence + len, sizeof c->evidence - len, "%s", text);
}

void an_cause_root_path(struct an_cause *c, uint32_t p)
{
    if (c->path) return;
    c->path = sc_xmalloc(sizeof *c->path);
    c->path[0] = (struct an_step){c->vertex, p, "root", 0};
    c->npath = 1;
}

uint32_t an_cause_waiting(const struct an_detect *d, struct an_cause *c, const double *waits, double *wait_sum)
{
    double mw = 0, sum = 0;
    for (uint32_t i = 0; i < d->P; i++) mw = fmax(mw, waits[i]);
    uint8_t *cul = calloc(d->P + 1, 1), *in = calloc(d->P + 1, 1);
    if (!cul || !in) abort();
    for (uint32_t k = 0; k < c->nprocs; k++)
        if (c->procs[k] < d->P) cul[c->procs[k]] = 1;
    /* the cause's waiting processes over all its symptoms */
    for (uint32_t k = 0; k < c->nwaiting; k++)
        if (c->waiting[k] < d->P) in[c->waiting[k]] = 1;
    uint32_t here = 0;
    for (uint32_t i = 0; i < d->P; i++)
        if (mw > 0 && waits[i] >= d->a->opt->th.waiting_share * mw && !cul[i]) in[i] = 1, here++, sum += waits[i];
    uint32_t *wp = sc_xmalloc((d->P + 1) * sizeof *wp), n = 0;
    for (uint32_t i = 0; i < d->P; i++)
        if (in[i] && !cul[i]) wp[n++] = i;
    free(cul), free(in);
    free(c->waiting);
    c->waiting = wp, c->nwaiting = n;
    if (wait_sum) *wait_sum = sum;
    return here;
}

int an_same_call_site(const struct an_vertex *x, const struct an_vertex *y)
{
    return x->op == y->op && x->line == y->line && x->column == y->column &&
           (x->file == y->file || (x->file && y->file && !strcmp(x->file, y->file)));
}

int an_most_time_first(const struct an_analysis *a, uint32_t *v, uint32_t n)
{
    uint32_t best = 0;
    double bt = -1;
    int any = 0;
    for (uint32_t k = 0; k < n; k++) {
        const struct an_vmetrics *m = &a->vm[(size_t)(a->nscales - 1) * a->g.n + v[k]];
        if (m->present) any = 1;
        if (m->present && m->mean > bt) bt = m->mean, best = k;
    }
    if (!any) return 0;
    uint32_t t = v[0];
    v[0] = v[best], v[best] = t;
    return 1;
}

uint32_t an_iteration_anchor(const struct an_graph *g, uint32_t v)
{
    uint32_t a = AN_NONE;
    for (uint32_t u = g->v[v].parent; u != AN_NONE; u = g->v[u].parent) {
        if (g->v[u].kind == PSG_LOOP) a = u;
        if (g->v[u].kind == PSG_FUNCTION || (g->v[u].flags & AN_V_DYNAMIC && !(g->v[u].flags & AN_V_CALLSITE)))
            return a != AN_NONE ? a : u;
    }
    return a;
}

int an_unconditional_loop(const struct an_analysis *a, uint32_t v)
{
    const struct an_graph *g = &a->g;
    if (!a->has_psg || a->psg_recovered || v == AN_NONE || g->v[v].kind != PSG_LOOP) return 0;
    for (uint32_t u = v; u != AN_NONE; u = g->v[u].parent) {
        if (g->v[u].flags & (AN_V_CONDITIONAL | AN_V_COND_UNKNOWN)) return 0;
        if (u != v && (g->v[u].kind == PSG_BRANCH || (g->v[u].flags & AN_V_DYNAMIC))) return 0;
    }
    return 1;
}

enum an_category an_classify_computation(const struct an_detect *d, uint32_t v, const uint32_t *procs,
                                         uint32_t nprocs)
{
    struct an_analysis *a = d->a;
    const struct an_run *r = d->r;
    const struct an_thresholds *th = &a->opt->th;
    if (!nprocs || !an_vr_has(r, v, AN_HAS_ICPU)) return AN_CAT_LOAD_IMBALANCE;
    if (an_unconditional_loop(a, v)) return AN_CAT_LOAD_IMBALANCE;
    const float *icpu = an_vr(r, v)->icpu;
    /* done by the culprits alone (the others spend little there)? */
    double cul = 0, oth = 0;
    uint32_t no = 0;
    uint8_t *is = calloc(d->P + 1, 1);
    if (!is) abort();
    for (uint32_t k = 0; k < nprocs; k++) is[procs[k]] = 1, cul += icpu[procs[k]];
    for (uint32_t i = 0; i < d->P; i++)
        if (r->present[i] && !is[i]) oth += icpu[i], no++;
    free(is);
    cul /= nprocs;
    oth = no ? oth / no : 0;
    if (!(oth < th->serial_share * cul)) return AN_CAT_LOAD_IMBALANCE;
    /* with one count, whether it shrinks is unknown: balancing is the safer advice */
    if (a->nscales < 2) return AN_CAT_LOAD_IMBALANCE;
    /* ... and their time does not shrink with p: the max series' log-log slope */
    double p[256], t[256];
    uint32_t n = 0;
    for (uint32_t s = 0; s < a->nscales && n < 256; s++) {
        const struct an_vmetrics *vm = &a->vm[(size_t)s * a->g.n + v];
        if (!vm->present || vm->incl_max <= 0) continue;
        p[n] = a->scales[s].P, t[n] = vm->incl_max, n++;
    }
    struct scalana_model sm;
    if (n < 2 || scalana_model_fit(p, t, n, &sm) != 0 || !sm.has_slope) return AN_CAT_LOAD_IMBALANCE;
    return sm.loglog_slope > th->flat_slope ? AN_CAT_SERIAL : AN_CAT_LOAD_IMBALANCE;
}

/* Whether v enters another function: a call, a function, a dynamic call site
 * or function (no PSG). */
static int enters_function(const struct an_vertex *x)
{
    return x->kind == PSG_CALL || x->kind == PSG_CALL_INDIRECT || x->kind == PSG_CALL_RECURSIVE ||
           x->kind == PSG_FUNCTION || x->kind == AN_KIND_DYNAMIC;
}

/* Whether the subtree of v holds a loop (bounded depth). */
static int has_loop(const struct an_graph *g, uint32_t v, int depth)
{
    if (depth > 64) return 0;
    for (uint32_t c = g->v[v].first_child; c != AN_NONE; c = g->v[c].next_sibling)
        if (g->v[c].kind == PSG_LOOP || has_loop(g, c, depth + 1)) return 1;
    return 0;
}

/* Whether v's subtree holds an MPI vertex (an iteration loop that
 * communicates, whose straight-line blocks are distinct phases). */
static int has_mpi(const struct an_graph *g, uint32_t v, int depth)
{
    if (depth > 64) return 0;
    for (uint32_t c = g->v[v].first_child; c != AN_NONE; c = g->v[c].next_sibling)
        if (g->v[c].kind == PSG_MPI || has_mpi(g, c, depth + 1)) return 1;
    return 0;
}

uint32_t an_locate(const struct an_detect *d, uint32_t v, double (*score)(void *ctx, uint32_t v), void *ctx)
{
    const struct an_graph *g = &d->a->g;
    int in_loop = 0;
    for (uint32_t u = v; u != AN_NONE && !in_loop; u = g->v[u].parent) in_loop = g->v[u].kind == PSG_LOOP;
    for (int depth = 0; v != AN_NONE && depth < 256; depth++) {
        double here = score(ctx, v), bs = 0;
        uint32_t bc = AN_NONE;
        if (!(here > 0)) break;
        for (uint32_t ch = g->v[v].first_child; ch != AN_NONE; ch = g->v[ch].next_sibling) {
            if (!an_actionable(g, ch)) continue;
            /* inside a loop, a call into code without loops (a timer, a small
             * helper) is not where to change anything: the loop is */
            if (in_loop && enters_function(&g->v[ch]) && !has_loop(g, ch, 0)) continue;
            double s = score(ctx, ch);
            if (s > bs) bs = s, bc = ch;
        }
        if (bc == AN_NONE || !(bs > d->a->opt->th.location_share * here)) break;
        /* a computation loop's straight-line body is that loop's work: a
         * person changes the loop (its trip counts, its distribution), not a
         * block of its statements (PRK PIC's particle loop was named by lines
         * 965-976 of its body); in a loop that communicates the blocks are
         * phases of their own */
        if (g->v[v].kind == PSG_LOOP && g->v[bc].kind == PSG_COMPUTE && !has_loop(g, bc, 0) && !has_mpi(g, v, 0))
            break;
        v = bc;
        in_loop |= g->v[v].kind == PSG_LOOP;
    }
    return v;
}

uint32_t an_locate_from(const struct an_detect *d, uint32_t v, double (*score)(void *ctx, uint32_t v), void *ctx)
{
    const struct an_graph *g = &d->a->g;
    for (int k = 0; v != AN_NONE && k < 256; k++) {
        uint32_t up = g->v[v].parent;
        if (up == AN_NONE || !an_actionable(g, up) || g->v[up].kind == PSG_MPI) break;
        double su = score(ctx, up), sv = score(ctx, v);
        if (!(su > 0) || !(sv > d->a->opt->th.location_share * su)) break;
        v = up;
    }
    return an_locate(d, v, score, ctx);
}

int an_launches_gpu(const struct an_run *r, uint32_t v)
{
    if (!an_vr_has(r, v, AN_HAS_IGPU)) return 0;
    const float *igpu = an_vr(r, v)->igpu;
    for (uint32_t i = 0; i < r->P; i++)
        if (r->present[i] && igpu[i] > 0) return 1;
    return 0;
}

int an_covered_by_cause(const struct an_analysis *a, uint32_t v)
{
    for (uint32_t k = 0; k < a->ncauses; k++) {
        const struct an_cause *c = &a->causes[k];
        if (!c->path) continue;
        if (c->symptom == v || an_graph_is_ancestor(&a->g, c->vertex, v) || an_graph_is_ancestor(&a->g, v, c->vertex))
            return 1;
    }
    return 0;
}

/* ---- the saving of a fix in the CPU model ---------------------------------------- */

double an_shared_time(double *w, uint32_t n, double cores)
{
    for (uint32_t i = 1; i < n; i++) /* insertion sort of a process count's values */
        for (uint32_t j = i; j > 0 && w[j - 1] > w[j]; j--) {
            double t = w[j];
            w[j] = w[j - 1], w[j - 1] = t;
        }
    double t = 0, done = 0;
    for (uint32_t i = 0; i < n; i++) {
        double active = n - i, rate = active > cores ? cores / active : 1.0;
        if (w[i] > done) t += (w[i] - done) / rate, done = w[i];
    }
    return t;
}

/* Cores of the CPU model: one per process.  A fix is costed on the machine
 * the program is meant for, not on the one that measured it: with 8 ranks
 * on 2 cores the cores stay busy whatever the distribution, so an imbalance
 * of 4 heavy ranks with 3x the work would "save" 0.002 s there (a user's
 * trial run) and a real imbalance would never be reported from an
 * oversubscribed test run.  Below the oversubscription this is exact; above
 * it the report says that a rerun on the same cores saves less. */
static double run_cores(const struct an_run *r)
{
    return r->present_count ? r->present_count : r->P;
}

/* Work of process i in run r: the sampled CPU time of all vertices (the
 * roots' inclusive CPU) plus the GPU device time it launched, what the
 * analyzer sees as work (an_work of the roots). */
static double process_work(const struct an_analysis *a, const struct an_run *r, uint32_t i)
{
    double s = 0;
    for (uint32_t v = 0; v < r->nvr && v < a->g.n; v++)
        if (a->g.v[v].parent == AN_NONE && an_vr_has(r, v, AN_HAS_ICPU | AN_HAS_IGPU)) s += an_work(an_vr(r, v), i);
    return s;
}

double an_model_saving(const struct an_analysis *a, const struct an_run *r, uint32_t phase_vertex,
                       const double *work, const double *delta)
{
    uint32_t n = 0;
    double *on = sc_xmalloc((r->P + 1) * sizeof *on), *off = sc_xmalloc((r->P + 1) * sizeof *off);
    double *x = sc_xmalloc((r->P + 1) * sizeof *x);
    int phase = phase_vertex != AN_NONE && an_interval_before(r, phase_vertex, 1, x);
    if (!phase)
        for (uint32_t i = 0; i < r->P; i++) x[i] = r->present[i] ? process_work(a, r, i) : 0;
    /* the rest of the phase's work as its mean: a sampled total of 0.7 s at
     * 200 Hz is +-0.06 s per process, and the max of 32 such values would
     * hide a 0.1 s cause; other imbalances are causes of their own */
    double rest = 0;
    uint32_t np = 0;
    if (work) {
        for (uint32_t i = 0; i < r->P; i++)
            if (r->present[i]) rest += fmax(0, x[i] - work[i]), np++;
        rest = np ? rest / np : 0;
    }
    for (uint32_t i = 0; i < r->P; i++) {
        if (!r->present[i]) continue;
        double w = work ? work[i] + rest : x[i], dl = delta[i];
        if (dl > 0 && w < dl) w = dl; /* the fixed work lies in this phase */
        on[n] = w, off[n] = fmax(0, w - dl), n++;
    }
    double cores = run_cores(r);
    double s = n ? an_shared_time(on, n, cores) - an_shared_time(off, n, cores) : 0;
    free(on), free(off), free(x);
    return s;
}

double an_fix_saving(const struct an_detect *d, uint32_t v, uint32_t phase_vertex, const uint32_t *procs,
                     uint32_t np, enum an_fix fix, double *spread)
{
    const struct an_scale *big = d->big;
    double s[256], lo = INFINITY, hi = -INFINITY;
    uint32_t n = 0;
    for (uint32_t q = 0; q < big->nreps && n < 256; q++) {
        const struct an_run *r = big->reps[q];
        if (!an_vr_has(r, v, AN_HAS_ICPU | AN_HAS_IGPU)) continue;
        const struct an_vrun *xv = an_vr(r, v);
        double *V = sc_xmalloc((r->P + 1) * sizeof *V), *delta = calloc(r->P + 1, sizeof *delta);
        uint8_t *cul = calloc(r->P + 1, 1);
        if (!delta || !cul) abort();
        double all = 0, light = 0;
        uint32_t na = 0, nl = 0;
        for (uint32_t k = 0; k < np; k++)
            if (procs[k] < r->P) cul[procs[k]] = 1;
        /* inside an OpenMP region a process's CPU seconds are its team's: T
         * threads that share a loop's work take 1/T of its CPU time in wall time */
        int in_region = r->ntcpu && an_omp_region_of(&d->a->g, v) != AN_NONE;
        for (uint32_t i = 0; i < r->P; i++) {
            V[i] = r->present[i] ? an_work(xv, i) : 0;
            if (!r->present[i]) continue;
            if (in_region) V[i] /= an_omp_team(&d->a->g, r, v, i);
            all += V[i], na++;
            if (!cul[i]) light += V[i], nl++;
        }
        double mean = na ? all / na : 0, lmean = nl ? light / nl : 0;
        /* the processes that are not culprits work alike (the split found no
         * difference between them): their mean, not their sampling noise, whose
         * maximum over many processes would hide part of the saving */
        for (uint32_t i = 0; i < r->P; i++) {
            if (!r->present[i]) continue;
            if (!cul[i] && np) V[i] = lmean;
            if (fix == AN_FIX_SPREAD) delta[i] = V[i] - mean;
            else if (fix == AN_FIX_EXCESS) delta[i] = cul[i] ? fmax(0, V[i] - lmean) : 0;
        }
        s[n] = an_model_saving(d->a, r, phase_vertex, V, delta);
        lo = fmin(lo, s[n]), hi = fmax(hi, s[n]);
        n++;
        free(V), free(delta), free(cul);
    }
    if (spread) *spread = n > 1 ? hi - lo : 0;
    return n ? scalana_median(s, n) : 0;
}

/* Sum over the present processes of vertex v's work in run r. */
static double total_work(const struct an_run *r, uint32_t v)
{
    double t = 0;
    if (!an_vr_has(r, v, AN_HAS_ICPU | AN_HAS_IGPU)) return 0;
    const struct an_vrun *x = an_vr(r, v);
    for (uint32_t i = 0; i < r->P; i++)
        if (r->present[i]) t += an_work(x, i);
    return t;
}

enum an_fix an_fix_kind(const struct an_detect *d, const double *x, double t0, uint32_t p0, const uint8_t *heavy,
                        double period)
{
    const struct an_analysis *a = d->a;
    const struct an_run *r = d->r;
    if (!(t0 > 0) || !p0) return AN_FIX_EXCESS;
    double t1 = 0, light = 0, excess = 0;
    uint32_t nl = 0;
    for (uint32_t i = 0; i < d->P; i++)
        if (r->present[i]) {
            t1 += x[i];
            if (!heavy[i]) light += x[i], nl++;
        }
    light = nl ? light / nl : 0;
    for (uint32_t i = 0; i < d->P; i++)
        if (r->present[i] && heavy[i]) excess += fmax(0, x[i] - light);
    double scale = a->opt->weak ? (double)d->P / p0 : 1, ideal = t0 * scale, growth = t1 - ideal;
    /* one standard deviation of the growth when the totals are sampled */
    double sd = period > 0 ? sqrt(t1 / period + t0 * scale * scale / period) * period : 0;
    return growth + 2 * sd < 0.5 * excess ? AN_FIX_SPREAD : AN_FIX_EXCESS;
}

enum an_fix an_imbalance_fix(const struct an_detect *d, uint32_t v, const uint32_t *procs, uint32_t np)
{
    const struct an_analysis *a = d->a;
    const struct an_run *r = d->r;
    if (a->nscales < 2 || !np || v >= r->nvr) return AN_FIX_EXCESS;
    double t0 = 0;
    uint32_t p0 = 0;
    for (uint32_t s = 0; s + 1 < a->nscales && !(t0 > 0); s++) t0 = total_work(a->scales[s].rep, v), p0 = a->scales[s].P;
    double *x = sc_xmalloc((d->P + 1) * sizeof *x);
    uint8_t *heavy = calloc(d->P + 1, 1);
    if (!heavy) abort();
    for (uint32_t k = 0; k < np; k++)
        if (procs[k] < d->P) heavy[procs[k]] = 1;
    const struct an_vrun *xv = an_vr(r, v);
    for (uint32_t i = 0; i < d->P; i++) x[i] = r->present[i] ? an_work(xv, i) : 0;
    enum an_fix f = an_fix_kind(d, x, t0, p0, heavy, an_signal_s(r));
    free(x), free(heavy);
    return f;
}
