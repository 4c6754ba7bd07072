/* metrics.c — from runs to per-vertex evidence: runs grouped by process
 * count (repetitions -> median and spread), per-vertex metrics per count,
 * scaling models and scaling loss at the largest count, imbalance, and the
 * waits of each process at an MPI vertex. */
#include "metrics/metrics.h"
#include "core/graph.h"
#include "core/mpi_table.h"
#include "core/types.h"
#include "core/warn.h"
#include "models/model.h"
#include "models/stats.h"
#include "ppg/ppg.h"
#include "ppg/run_source.h"
#include "ppg/work.h"
#include "sc_alloc.h"
#include "scalana/psg_format.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_p(const void *x, const void *y)
{
    const struct an_run *a = *(struct an_run *const *)x, *b = *(struct an_run *const *)y;
    if (a->P != b->P) return a->P < b->P ? -1 : 1;
    if (a->wall_max != b->wall_max) return a->wall_max < b->wall_max ? -1 : 1;
    return 0;
}

void an_group_scales(struct an_analysis *a)
{
    struct an_run **order = malloc((a->nruns + 1) * sizeof *order);
    if (!order) abort();
    uint32_t n = 0;
    for (uint32_t i = 0; i < a->nruns; i++)
        if (!a->runs[i].bad && a->runs[i].present_count) order[n++] = &a->runs[i];
    qsort(order, n, sizeof *order, by_p);
    a->scales = calloc(n + 1, sizeof *a->scales);
    if (!a->scales) abort();
    a->nscales = 0;
    for (uint32_t i = 0; i < n;) {
        uint32_t j = i;
        while (j < n && order[j]->P == order[i]->P) j++;
        struct an_scale *s = &a->scales[a->nscales++];
        s->P = order[i]->P;
        s->nreps = j - i;
        s->reps = malloc(s->nreps * sizeof *s->reps);
        if (!s->reps) abort();
        memcpy(s->reps, order + i, s->nreps * sizeof *s->reps);
        s->rep = s->reps[(s->nreps - 1) / 2]; /* sorted by wall: the (lower) median */
        double w[256];
        uint32_t k = s->nreps < 256 ? s->nreps : 256;
        for (uint32_t q = 0; q < k; q++) w[q] = s->reps[q]->wall_max;
        struct scalana_spread sp;
        if (scalana_spread(w, k, &sp) == 0) s->wall = sp.median, s->wall_spread = sp.max - sp.min;
        else s->wall = s->rep->wall_max;
        i = j;
    }
    free(order);
}

/* Metrics of vertex v in one run, from its statistics over the ranks
 * (an_vstat: the same in a serial and a parallel analysis). */
static void run_metrics(const struct an_run *r, uint32_t v, struct an_vmetrics *m)
{
    memset(m, 0, sizeof *m);
    if (!an_vr_has(r, v, AN_HAS_INCL)) return;
    const struct an_vrun *x = &r->vr[v];
    const struct an_vstat *st = &x->st;
    if (!st->n) return;
    double n = st->n;
    m->present = 1;
    m->mean = st->sum_t / n, m->max = st->max_t, m->min = st->min_t == INFINITY ? 0 : st->min_t;
    m->incl_mean = st->sum_incl / n, m->incl_max = st->max_incl;
    m->cpu_mean = st->sum_cpu / n, m->mpi_mean = st->sum_mpi / n, m->gpu_mean = st->sum_gpu / n;
    m->samples = x->samples;
    m->calls = x->calls;
    m->bytes = x->bytes_sent + x->bytes_recv;
    m->imbalance = m->incl_mean > 0 ? st->max_incl / m->incl_mean : 1;
    m->argmax = st->argmax_incl;
}

static double median_of(double *v, uint32_t n) { return n ? scalana_median_inplace(v, n) : 0; }

static int is_mpi(const struct an_vertex *v) { return v->kind == PSG_MPI; }

/* CPU seconds of run r's busiest process (all its threads, inside MPI too). */
static double max_process_cpu(const struct an_run *r)
{
    double m = 0;
    for (uint32_t i = 0; i < r->P; i++)
        if (r->present[i]) m = fmax(m, r->cpu[i]);
    return m;
}

double an_run_base_seconds(const struct an_analysis *a, uint32_t s)
{
    if (s >= a->nscales) return 0;
    const struct an_scale *sc = &a->scales[s];
    const struct an_run *r = sc->rep;
    /* contention >= oversubscription: the slow-down from processes sharing
     * cores and from other load, both of which a core per process removes */
    double b = sc->wall / fmax(1, r->contention);
    if (!(r->contention > a->opt->th.contention_max)) return b;
    /* Contended: the contention is measured on computation, but on a busy
     * machine every message also waits for its receiver to get a core
     * again.  miniFE (load_imbalance=40, 4 processes on 2 cores beside two
     * CPU hogs) ran 6.03 s against 1.80 s quiet at the same contention 2,
     * its CPU time the same (0.82 s against 0.80 s a process), and a 5 %
     * threshold of 3.0 s instead of 0.9 s dropped a load imbalance of
     * 0.115 s (exactly as large in both studies).  So the base is at most
     * what the least contended run of the study spent per CPU second of its
     * busiest process, times this run's busiest process's CPU seconds:
     * CPU time, which the load does not inflate. */
    uint32_t ref = s;
    for (uint32_t k = 0; k < a->nscales; k++)
        if (a->scales[k].rep->contention < a->scales[ref].rep->contention) ref = k;
    if (ref == s) return b;
    const struct an_scale *rs = &a->scales[ref];
    double rcpu = max_process_cpu(rs->rep), cpu = max_process_cpu(r);
    if (!(rcpu > 0) || !(cpu > 0)) return b;
    double per_cpu = fmax(1, an_run_base_seconds(a, ref) / rcpu); /* ref's own: wall / contention */
    return fmin(b, per_cpu * cpu);
}

double an_base_seconds(const struct an_analysis *a)
{
    return a->nscales ? an_run_base_seconds(a, a->nscales - 1) : 0;
}

double an_own_load(const struct an_run *r)
{
    return fmax(1, fmax(r->oversub, r->threads_per_core));
}

double an_other_load_share(const struct an_run *r)
{
    double own = an_own_load(r);
    return r->contention > own ? 1 - own / r->contention : 0;
}

uint32_t an_run_delay_stats(const struct an_run *r, double *mean, double *max, uint32_t *max_rank)
{
    uint32_t n = 0, at = 0;
    double sum = 0, mx = -1;
    for (uint32_t i = 0; i < r->P; i++) {
        if (!r->present[i] || !isfinite(r->run_delay[i])) continue;
        n++, sum += r->run_delay[i];
        if (r->run_delay[i] > mx) mx = r->run_delay[i], at = i;
    }
    if (n) *mean = sum / n, *max = mx, *max_rank = at;
    return n;
}

void an_warn_unsampled(struct an_analysis *a)
{
    for (uint32_t s = 0; s < a->nscales; s++) {
        const struct an_run *r = a->scales[s].rep;
        /* 0.05 CPU s per process: 10 samples at the default rate */
        if (r->signals || !(r->cpu_mean > 0.05) || !r->rate_ranks || !r->sampler[0] ||
            strcmp(r->sampler, "none") == 0)
            continue;
        an_warn(a, "%s: no sample at all although its processes used %.2g CPU s each: the program blocks or "
                   "takes the sampling signal (SCALANA_SAMPLER's), so its computation is not seen; its MPI "
                   "times and messages still are",
                r->dir, r->cpu_mean);
    }
}

double an_omp_runtime_share(const struct an_run *r, double *seconds)
{
    double omp = 0, cpu = 0;
    for (uint32_t i = 0; i < r->P; i++)
        if (r->present[i]) omp += r->omp_wait[i], cpu += r->cpu[i];
    if (seconds) *seconds = r->present_count ? omp / r->present_count : 0;
    return cpu > 0 ? fmin(1, omp / cpu) : 0;
}

void an_warn_omp_runtime(struct an_analysis *a)
{
    char at_p[512] = "", at_share[512] = "", at_s[512] = "";
    uint32_t n = 0;
    for (uint32_t s = 0; s < a->nscales; s++) {
        const struct an_run *r = a->scales[s].rep;
        double sec, share = an_omp_runtime_share(r, &sec);
        /* a tenth of the CPU time: beyond the fork and join cost of regions
         * that are each long against a barrier */
        if (!(share >= 0.1)) continue;
        const char *sep = n++ ? ", " : "";
        size_t lp = strlen(at_p), ls = strlen(at_share), lt = strlen(at_s);
        snprintf(at_p + lp, sizeof at_p - lp, "%s%u", sep, r->P);
        snprintf(at_share + ls, sizeof at_share - ls, "%s%.0f %%", sep, 100 * share);
        snprintf(at_s + lt, sizeof at_s - lt, "%s%.3g s", sep, sec);
    }
    if (n)
        an_warn(a, "OpenMP runtime: at %s process%s the threads spent %s of their CPU time (%s per process) "
                   "inside the OpenMP runtime, spinning at barriers and locks while a thread of their team was "
                   "late, or scheduling; it is counted as waiting, not as computation of the code around it.  "
                   "Where threads outnumber cores, OMP_WAIT_POLICY=passive (LLVM's libomp: KMP_BLOCKTIME=0) "
                   "lets waiting threads sleep instead of taking the core from the late one",
                at_p, n == 1 && !strcmp(at_p, "1") ? "" : "es", at_share, at_s);
}

void an_warn_contention(struct an_analysis *a)
{
    /* the contention sentence once, with the figures of each process count */
    char cont_p[512] = "", cont_o[512] = "", cont_c[512] = "";
    uint32_t ncont = 0;
    for (uint32_t s = 0; s < a->nscales; s++) {
        const struct an_run *r = a->scales[s].rep;
        if (!(r->oversub > 1.0 || r->contention > a->opt->th.contention_max)) continue;
        const char *sep = ncont ? ", " : "";
        size_t lp = strlen(cont_p), lo = strlen(cont_o), lc = strlen(cont_c);
        snprintf(cont_p + lp, sizeof cont_p - lp, "%s%u", sep, r->P);
        snprintf(cont_o + lo, sizeof cont_o - lo, "%s%.2g", sep, r->oversub);
        snprintf(cont_c + lc, sizeof cont_c - lc, "%s%.2gx", sep, r->contention);
        ncont++;
    }
    if (ncont)
        an_warn(a, "%s %s: %s %s per usable core, %s slower than with a core per process (wall/CPU outside "
                    "MPI of the best-served process); computation is judged on CPU time, waits through the CPU "
                    "time that explains them, costs as savings with a core per process, thresholds against the "
                    "run's time with a core per process",
                cont_p, ncont == 1 && !strcmp(cont_p, "1") ? "process" : "processes", cont_o,
                ncont == 1 && !strcmp(cont_o, "1") ? "process" : "processes", cont_c);
    /* interference: load from outside the job, named with its size */
    char load_p[512] = "", load_s[512] = "";
    uint32_t nload = 0;
    for (uint32_t s = 0; s < a->nscales; s++) {
        const struct an_run *r = a->scales[s].rep;
        if (!(r->contention > a->opt->th.contention_max * an_own_load(r))) continue;
        const char *sep = nload ? ", " : "";
        size_t lp = strlen(load_p), ls = strlen(load_s);
        snprintf(load_p + lp, sizeof load_p - lp, "%s%u", sep, r->P);
        snprintf(load_s + ls, sizeof load_s - ls, "%s%.0f %%", sep, 100 * an_other_load_share(r));
        nload++;
    }
    if (nload)
        an_warn(a, "other load on the machine: at %s %s, %s of the wall time went to other processes than the "
                    "job's own (contention beyond its processes, or threads, per core): wall times are inflated; "
                    "verdicts rest on "
                    "CPU time and exact counts, which it does not inflate",
                load_p, nload == 1 && !strcmp(load_p, "1") ? "process" : "processes", load_s);
}

double an_min_cost(const struct an_analysis *a)
{
    const struct an_thresholds *th = &a->opt->th;
    if (!a->nscales) return th->min_cost_seconds;
    return fmax(th->min_cost_seconds, th->min_cost_percent / 100.0 * an_base_seconds(a));
}

/* Whether a LOOP vertex holds another LOOP vertex: its work counter is its
 * inner loops' (the pass counts loops that hold no counted loop). */
static int holds_loop(const struct an_graph *g, uint32_t v)
{
    for (uint32_t c = g->v[v].first_child; c != AN_NONE; c = g->v[c].next_sibling)
        if (g->v[c].kind == PSG_LOOP || holds_loop(g, c)) return 1;
    return 0;
}

/* Seconds (mean over processes) at scale s in the MPI calls of v's subtree:
 * what a loop's inclusive time holds that is not its computation. */
static double mpi_below(const struct an_analysis *a, uint32_t s, uint32_t v)
{
    double t = 0;
    for (uint32_t c = a->g.v[v].first_child; c != AN_NONE; c = a->g.v[c].next_sibling) {
        const struct an_vmetrics *vm = &a->vm[(size_t)s * a->g.n + c];
        t += (is_mpi(&a->g.v[c]) && vm->present ? vm->incl_mean : 0) + mpi_below(a, s, c);
    }
    return t;
}

/* The total-work slope of counted loop v from its iterations (exact, not
 * moved by other load): the log-log regression of the iterations summed
 * over processes against p, over the counts where the loop ran.  *balanced:
 * at every count above 1 no process ran more than 1.1x the mean (a domain
 * decomposition's boundary processes differ by a few per cent; a planted or
 * data-driven imbalance by far more).  NAN when fewer than two counts ran it. */
static double iteration_slope(const struct an_analysis *a, uint32_t v, int *balanced)
{
    double ps[256], tot_at[256], slope;
    uint32_t k = 0;
    *balanced = 1;
    for (uint32_t s = 0; s < a->nscales && k < 256; s++) {
        const struct an_run *r = a->scales[s].rep;
        if (!r) continue;
        double *w = sc_xmalloc(((size_t)r->P + 1) * sizeof *w), tot = 0, max = 0;
        uint32_t n = 0;
        if (an_work_at(&a->g, r, v, w))
            for (uint32_t i = 0; i < r->P; i++)
                if (r->present[i]) tot += w[i], max = fmax(max, w[i]), n++;
        free(w);
        if (!(tot > 0)) continue;
        if (n > 1 && max > 1.1 * tot / n) *balanced = 0;
        ps[k] = a->scales[s].P, tot_at[k] = tot, k++;
    }
    return k >= 2 && scalana_loglog_slope(ps, tot_at, k, &slope) ? slope : NAN;
}

struct loop_id { uint64_t id; uint32_t v; };

static int by_id_then_vertex(const void *x, const void *y)
{
    const struct loop_id *a = x, *b = y;
    if (a->id != b->id) return a->id < b->id ? -1 : 1;
    return a->v < b->v ? -1 : a->v > b->v;
}

/* Flags [g->n]: 1 on the first LOOP vertex (in vertex order) of each PSG
 * stable id, the one that stands for a loop reached from several calling
 * contexts (its counter is one); malloc'ed, the caller frees. */
static uint8_t *first_of_each_loop(const struct an_graph *g)
{
    uint8_t *first = sc_xcalloc((size_t)g->n + 1, 1);
    struct loop_id *ids = sc_xmalloc(((size_t)g->n + 1) * sizeof *ids);
    uint32_t n = 0;
    for (uint32_t v = 0; v < g->n; v++)
        if (g->v[v].kind == PSG_LOOP && g->v[v].psg_stable_id) ids[n++] = (struct loop_id){g->v[v].psg_stable_id, v};
    qsort(ids, n, sizeof *ids, by_id_then_vertex);
    for (uint32_t i = 0; i < n; i++)
        if (!i || ids[i].id != ids[i - 1].id) first[ids[i].v] = 1;
    free(ids);
    return first;
}

/* Whether every run of the study counted its loops' iterations. */
static int all_runs_counted(const struct an_analysis *a)
{
    for (uint32_t s = 0; s < a->nscales; s++)
        if (!a->scales[s].rep || !a->scales[s].rep->nwork) return 0;
    return a->nscales > 0;
}

/* Strong or weak scaling from the runs: per computation vertex, the log-log
 * slope of its total CPU time (mean x processes) against p, and the median of
 * those slopes weighted by the vertex's total at the smallest count.  Strong
 * scaling keeps the total work (slope 0), weak scaling multiplies it by p
 * (slope 1); a weighted median is not moved by a replicated part of a
 * strong-scaling program (it grows like p too) unless that part holds most of
 * the work.  When every run counted its loops, the counted loops' iterations
 * instead (iteration_slope), each loop once.  Code the processes share evenly
 * decides alone when it holds a quarter of the weight (docs/analyzer.md).
 * Above weak_slope: weak; within scaling_band of it: a warning.
 * --strong/--weak override. */
static void detect_scaling_mode(struct an_analysis *a)
{
    struct an_scaling_mode *m = &a->scaling;
    const struct an_thresholds *th = &a->opt->th;
    uint32_t S = a->nscales, N = a->g.n;
    m->weak = a->opt->weak, m->from_flag = a->opt->scaling_flag, m->counts = S, m->work_slope = NAN;
    if (S < 2) return;
    double *slope = malloc((N + 1) * sizeof *slope), *wt = malloc((N + 1) * sizeof *wt);
    int *balanced = calloc(N + 1, sizeof *balanced);
    if (!slope || !wt || !balanced) abort();
    uint32_t n = 0;
    double wsum = 0;
    m->iterations = all_runs_counted(a);
    uint8_t *first = m->iterations ? first_of_each_loop(&a->g) : NULL;
    for (uint32_t v = 0; v < N; v++) {
        if (is_mpi(&a->g.v[v])) continue;
        if (m->iterations) {
            /* each counted loop once (a loop reached from two call sites is
             * one counter), weighted by its CPU time at the smallest count */
            const struct an_vertex *x = &a->g.v[v];
            if (x->kind != PSG_LOOP || !x->psg_stable_id || !first[v] || holds_loop(&a->g, v)) continue;
            int bal = 0;
            double sl = iteration_slope(a, v, &bal), w0 = 0;
            for (uint32_t s = 0; s < S && !(w0 > 0); s++) {
                const struct an_vmetrics *vm = &a->vm[(size_t)s * N + v];
                w0 = vm->present ? (vm->incl_mean - mpi_below(a, s, v)) * a->scales[s].P : 0;
            }
            if (isfinite(sl) && w0 > 0) slope[n] = sl, wt[n] = w0, wsum += w0, balanced[n] = bal, n++;
            continue;
        }
        double ps[256], tot_at[256], w0 = 0, sl;
        uint32_t k = 0;
        int bal = 1;
        for (uint32_t s = 0; s < S && k < 256; s++) {
            const struct an_vmetrics *vm = &a->vm[(size_t)s * N + v];
            double tot = vm->present ? vm->cpu_mean * a->scales[s].P : 0;
            if (!(tot > 0)) continue;
            if (!k) w0 = tot;
            /* sampled times: 1.25x the mean, plus three standard deviations
             * of a process's Poisson sample count (n per process: 3/sqrt(n)),
             * so that sampling alone does not make small code look uneven */
            double per = vm->samples / a->scales[s].P;
            if (a->scales[s].P > 1 && vm->max > (1.25 + 3 / sqrt(fmax(1, per))) * vm->mean) bal = 0;
            ps[k] = a->scales[s].P, tot_at[k] = tot, k++;
        }
        if (k < 2 || !(w0 > 0) || !scalana_loglog_slope(ps, tot_at, k, &sl)) continue;
        slope[n] = sl, wt[n] = w0, wsum += w0, balanced[n] = bal, n++;
    }
    {
        /* Code the processes share evenly tells the mode without doubt: an
         * imbalanced loop's total can grow less than p in weak scaling (LULESH:
         * rank 0 alone owns the costly regions, at 1 process and at 8) or more
         * in strong scaling.  When such code holds a quarter of the weight at
         * the smallest count, it alone decides. */
        double bsum = 0;
        for (uint32_t i = 0; i < n; i++) bsum += balanced[i] ? wt[i] : 0;
        if (bsum >= 0.25 * wsum && bsum > 0) {
            uint32_t k = 0;
            for (uint32_t i = 0; i < n; i++)
                if (balanced[i]) slope[k] = slope[i], wt[k] = wt[i], k++;
            n = k, wsum = bsum;
        }
    }
    if (n) {
        /* weighted median: sort by slope, walk to half the weight */
        for (uint32_t i = 1; i < n; i++)
            for (uint32_t j = i; j > 0 && slope[j - 1] > slope[j]; j--) {
                double t = slope[j]; slope[j] = slope[j - 1], slope[j - 1] = t;
                t = wt[j], wt[j] = wt[j - 1], wt[j - 1] = t;
            }
        double acc = 0;
        uint32_t i = 0;
        for (; i < n; i++) {
            acc += wt[i];
            if (acc >= 0.5 * wsum) break;
        }
        m->work_slope = slope[i < n ? i : n - 1];
    }
    free(slope), free(wt), free(balanced), free(first);
    if (!isfinite(m->work_slope)) return;
    int weak = m->work_slope > th->weak_slope;
    m->uncertain = fabs(m->work_slope - th->weak_slope) < th->scaling_band;
    if (m->from_flag) {
        if (weak != a->opt->weak && !m->uncertain)
            an_warn(a, "analysed as %s scaling (--%s), but the total work grows with a log-log slope of %.2f "
                       "in p, which looks like %s scaling (strong: 0, weak: 1)",
                    a->opt->weak ? "weak" : "strong", a->opt->weak ? "weak" : "strong", m->work_slope,
                    weak ? "weak" : "strong");
        return;
    }
    a->opt->weak = m->weak = weak;
    if (m->uncertain)
        an_warn(a, "scaling mode uncertain: the total work (%s summed over processes) grows with a "
                   "log-log slope of %.2f in p (strong scaling: 0, weak: 1); analysed as %s scaling, give "
                   "--strong or --weak to decide", m->iterations ? "loop iterations" : "CPU seconds",
                m->work_slope, weak ? "weak" : "strong");
}

/* Metrics of every vertex at every process count into a->vm: one run's
 * figures, or with repetitions the median of each figure over them and the
 * spread (max - min) of their means. */
static void scale_metrics(struct an_analysis *a)
{
    uint32_t N = a->g.n, S = a->nscales;
    double *tmp = malloc(6 * 256 * sizeof *tmp);
    if (!tmp) abort();
    for (uint32_t s = 0; s < S; s++) {
        const struct an_scale *sc = &a->scales[s];
        for (uint32_t v = 0; v < N; v++) {
            struct an_vmetrics *m = &a->vm[(size_t)s * N + v];
            if (sc->nreps == 1) {
                run_metrics(sc->rep, v, m);
                continue;
            }
            /* repetitions: the median of each figure, the spread of the mean */
            uint32_t k = 0;
            double *mean = tmp, *mx = tmp + 256, *mn = tmp + 512, *im = tmp + 768, *cm = tmp + 1024,
                   *mm = tmp + 1280;
            struct an_vmetrics one;
            for (uint32_t q = 0; q < sc->nreps && k < 256; q++) {
                run_metrics(sc->reps[q], v, &one);
                if (!one.present) continue;
                mean[k] = one.mean, mx[k] = one.max, mn[k] = one.min, im[k] = one.incl_mean;
                cm[k] = one.cpu_mean, mm[k] = one.mpi_mean;
                k++;
            }
            run_metrics(sc->rep, v, m);
            if (!k) continue;
            double lo = INFINITY, hi = 0;
            for (uint32_t q = 0; q < k; q++) lo = fmin(lo, mean[q]), hi = fmax(hi, mean[q]);
            m->present = 1;
            m->spread = hi - lo;
            m->mean = median_of(mean, k), m->max = median_of(mx, k), m->min = median_of(mn, k);
            m->incl_mean = median_of(im, k), m->cpu_mean = median_of(cm, k), m->mpi_mean = median_of(mm, k);
        }
    }
    free(tmp);
}

/* One fitted model (scalana_model) into the report's form, for metric. */
static void model_out(struct an_model_out *mo, const struct scalana_model *sm, const char *metric)
{
    mo->valid = 1;
    mo->c0 = sm->c0, mo->c1 = sm->c1, mo->i = sm->i, mo->j = sm->j;
    mo->smape = sm->smape, mo->quality = sm->quality;
    mo->loglog_slope = sm->loglog_slope, mo->has_slope = sm->has_slope;
    scalana_model_formula(sm, mo->formula, sizeof mo->formula);
    mo->metric = metric;
}

/* Models across process counts: per vertex, the inclusive mean (a->model)
 * and the inclusive max (a->model_max) over processes against p. */
static void fit_models(struct an_analysis *a)
{
    uint32_t N = a->g.n, S = a->nscales;
    double p[256], t[256], tx[256];
    for (uint32_t v = 0; v < N; v++) {
        uint32_t n = 0;
        for (uint32_t s = 0; s < S && n < 256; s++) {
            const struct an_vmetrics *m = &a->vm[(size_t)s * N + v];
            if (!m->present) continue;
            p[n] = a->scales[s].P, t[n] = m->incl_mean, tx[n] = m->incl_max;
            n++;
        }
        if (!n) continue;
        struct scalana_model sm;
        if (scalana_model_fit(p, t, n, &sm) == 0) model_out(&a->model[v], &sm, "inclusive_mean_seconds");
        if (scalana_model_fit(p, tx, n, &sm) == 0) model_out(&a->model_max[v], &sm, "inclusive_max_seconds");
    }
}

/* Scaling loss at the largest count (seconds, >= 0) per vertex: what its
 * mean exceeds the ideal by (strong: t0 p0 / P, weak: t0), its growth for
 * communication, all of it for a vertex that appears there only.  The
 * decisions are the detectors'. */
static void scaling_loss(struct an_analysis *a)
{
    uint32_t N = a->g.n, S = a->nscales;
    const struct an_scale *big = &a->scales[S - 1];
    for (uint32_t v = 0; v < N; v++) {
        const struct an_vertex *vx = &a->g.v[v];
        const struct an_vmetrics *mb = &a->vm[(size_t)(S - 1) * N + v];
        if (!mb->present || S < 2) continue;
        const struct an_vmetrics *m0 = NULL;
        uint32_t s0 = 0;
        for (uint32_t s = 0; s < S - 1; s++)
            if (a->vm[(size_t)s * N + v].present) { m0 = &a->vm[(size_t)s * N + v]; s0 = s; break; }
        double P = big->P, p0 = a->scales[s0].P;
        if (!m0) {
            /* appears only at the largest count: all of it is loss */
            a->loss[v] = mb->mean;
        } else if (is_mpi(vx)) {
            /* communication: its time should not grow with p */
            a->loss[v] = mb->mean - m0->mean;
        } else {
            double ideal = a->opt->weak ? scalana_ideal_weak(m0->mean, p0, P)
                                        : scalana_ideal_strong(m0->mean, p0, P);
            a->loss[v] = mb->mean - ideal;
        }
        if (a->loss[v] < 0) a->loss[v] = 0;
    }
}

void an_compute_metrics(struct an_analysis *a)
{
    uint32_t N = a->g.n, S = a->nscales;
    a->vm = calloc((size_t)S * N + 1, sizeof *a->vm);
    a->model = calloc(N + 1, sizeof *a->model);
    a->model_max = calloc(N + 1, sizeof *a->model_max);
    a->loss = calloc(N + 1, sizeof *a->loss);
    a->vflags = calloc(N + 1, sizeof *a->vflags);
    if (!a->vm || !a->model || !a->model_max || !a->loss || !a->vflags) abort();
    scale_metrics(a);
    if (!S) return;
    fit_models(a);
    detect_scaling_mode(a);
    scaling_loss(a);
}

static const uint64_t *sort_comm;
static int by_comm(const void *x, const void *y)
{
    uint64_t a = sort_comm[*(const uint32_t *)x], b = sort_comm[*(const uint32_t *)y];
    if (a != b) return a < b ? -1 : 1;
    return *(const uint32_t *)x < *(const uint32_t *)y ? -1 : 1;
}

double an_waits(const struct an_analysis *a, const struct an_run *r, uint32_t v, double *out)
{
    for (uint32_t i = 0; i < r->P; i++) out[i] = 0;
    if (!an_vr_has(r, v, AN_HAS_MPI)) return 0;
    const struct an_vrun *x = an_vr(r, v);
    const struct an_vertex *vx = &a->g.v[v];
    enum an_mpi_role role = an_mpi_role(vx->op);
    double sum = 0;
    if (role == AN_MPI_COLLECTIVE) {
        /* t_i - min_j t_j over the members of the same communicator */
        uint32_t *ix = malloc((r->P + 1) * sizeof *ix), n = 0;
        if (!ix) return 0;
        for (uint32_t i = 0; i < r->P; i++)
            if (r->present[i] && x->ncalls && x->ncalls[i] > 0) ix[n++] = i;
        if (x->comm) {
            sort_comm = x->comm;
            qsort(ix, n, sizeof *ix, by_comm);
        }
        for (uint32_t a0 = 0; a0 < n;) {
            uint32_t b0 = a0 + 1;
            while (b0 < n && (!x->comm || x->comm[ix[b0]] == x->comm[ix[a0]])) b0++;
            double mn = INFINITY;
            for (uint32_t k = a0; k < b0; k++) mn = fmin(mn, x->mpi[ix[k]]);
            for (uint32_t k = a0; k < b0; k++) {
                out[ix[k]] = x->mpi[ix[k]] - mn;
                sum += out[ix[k]];
            }
            a0 = b0;
        }
        free(ix);
        return sum;
    }
    if (role == AN_MPI_OTHER) return 0;
    /* point-to-point and completions: time beyond the fastest possible calls */
    for (uint32_t i = 0; i < r->P; i++) {
        if (!r->present[i] || !x->ncalls || x->ncalls[i] <= 0) continue;
        double w = x->mpi[i] - x->ncalls[i] * x->min_call_s;
        out[i] = w > 0 ? w : 0;
        sum += out[i];
    }
    return sum;
}

double an_waits_bound(const struct an_analysis *a, const struct an_run *r, uint32_t v)
{
    if (!an_vr_has(r, v, AN_HAS_MPI) || !an_vr_has(r, v, AN_HAS_NCALLS)) return 0;
    const struct an_vstat *st = &r->vr[v].st;
    if (!(st->max_mpi_c > 0) || st->min_mpi_c == INFINITY) return 0;
    enum an_mpi_role role = an_mpi_role(a->g.v[v].op);
    if (role == AN_MPI_OTHER) return 0;
    /* a communicator's fastest member is no faster than the fastest caller of all */
    if (role == AN_MPI_COLLECTIVE) return st->max_mpi_c - st->min_mpi_c;
    return st->max_mpi_c; /* time beyond calls x the shortest call: at most the time */
}

void an_analysis_free(struct an_analysis *a)
{
    for (uint32_t i = 0; i < a->nruns; i++) an_run_free(&a->runs[i]);
    free(a->runs);
    for (uint32_t s = 0; s < a->nscales; s++) free(a->scales[s].reps);
    free(a->scales);
    free(a->vm), free(a->model), free(a->model_max), free(a->loss), free(a->vflags);
    for (uint32_t i = 0; i < a->ncauses; i++)
        free(a->causes[i].procs), free(a->causes[i].waiting), free(a->causes[i].path),
            free(a->causes[i].threads);
    free(a->causes);
    free(a->peak_rss);
    for (uint32_t i = 0; i < a->ncandidates; i++)
        free(a->candidates[i].procs), free(a->candidates[i].waiting), free(a->candidates[i].path),
            free(a->candidates[i].threads);
    free(a->candidates);
    for (uint32_t i = 0; i < a->nwarnings; i++) free(a->warnings[i]);
    free(a->warnings);
    if (a->phases) json_decref((json_t *)a->phases);
    an_graph_free(&a->g);
    memset(a, 0, sizeof *a);
}
