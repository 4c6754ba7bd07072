/* omp_threads.c — detector "omp_threads": the OpenMP causes seen in the
 * sampled CPU time per thread (threads.c), in any build: (1) a loop of a
 * parallel region whose threads split its CPU time unevenly
 * (thread_imbalance), where no loop counter measured it (a gcc -fopenmp
 * build through LD_PRELOAD; thread_imbalance.c counts iterations where the
 * pass did); (2) a loop outside every region that one thread runs while
 * the others of its team idle (the OpenMP form of serial_bottleneck).  Both
 * are causes of their own: a process cause at the same loop (load
 * imbalance among processes) is never merged with them. */
#include "core/graph.h"
#include "core/types.h"
#include "detect/detect.h"
#include "ppg/threads.h"
#include "ppg/vtime.h"
#include "ppg/work.h"
#include "sc_alloc.h"
#include "scalana/psg_format.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const serial_remedy =
    "Parallelise this serial section: run it in the parallel region (an omp for or omp tasks over "
    "its iterations), or overlap it with the region's work (nowait, a task) instead of running it "
    "on one thread while the rest of the team idles.";

/* Whether a thread cause already sits at or above v. */
static int below_thread_cause(const struct an_analysis *a, uint32_t v)
{
    for (uint32_t k = 0; k < a->ncauses; k++)
        if (a->causes[k].nthreads && an_graph_is_ancestor(&a->g, a->causes[k].vertex, v)) return 1;
    return 0;
}

/* Whether the loop counters measured v's threads on some process (then
 * thread_imbalance.c judges it on iterations, which noise does not blur). */
static int counted(const struct an_detect *d, uint32_t v)
{
    for (uint32_t i = 0; i < d->P; i++) {
        uint64_t *tids;
        uint32_t *th, n;
        double *w;
        an_thread_work_at(&d->a->g, d->r, v, i, &tids, &th, &w, &n);
        free(tids), free(th), free(w);
        if (n >= 2) return 1;
    }
    return 0;
}

/* The thread cause at v of category cat with its culprits procs[np] and the
 * worst process root's threads[nthreads] (the lists are taken: freed when
 * no cause is made); cost the processes' savings summed (seconds), var its
 * sampling variance, both averaged over the present processes.  NULL when
 * there are no culprits or a cause of another kind sits at v: a thread cause
 * is never merged into a process cause. */
static struct an_cause *thread_cause(struct an_detect *d, uint32_t v, enum an_category cat, const char *rule,
                                     double saving, double var, uint32_t *procs, uint32_t np, uint32_t *threads,
                                     uint32_t nthreads, uint32_t root)
{
    struct an_cause *c = np ? an_cause_get(d->a, v) : NULL;
    if (!c || c->merged) {
        free(procs), free(threads);
        return NULL;
    }
    const struct an_run *r = d->r;
    c->cat = cat;
    c->cost = saving / r->present_count; /* every process saves its own */
    c->cost_noise = sqrt(var) / r->present_count;
    c->cost_rule = rule;
    an_cause_procs(c, procs, np);
    an_cause_root_path(c, root);
    c->threads = threads, c->nthreads = nthreads;
    return c;
}

/* (1) thread imbalance from CPU samples. */
static void imbalance(struct an_detect *d)
{
    struct an_analysis *a = d->a;
    const struct an_run *r = d->r;
    const struct an_thresholds *th = &a->opt->th;
    for (uint32_t v = 0; v < d->N && v < a->g.n; v++) {
        if (a->g.v[v].kind != PSG_LOOP || !an_actionable(&a->g, v) || an_omp_region_of(&a->g, v) == AN_NONE ||
            below_thread_cause(a, v) || counted(d, v))
            continue;
        double saving = 0, noise2 = 0, worst = -1, signals = 0;
        double *pv = sc_xmalloc(((size_t)d->P + 1) * sizeof *pv);
        uint32_t *procs = sc_xmalloc(((size_t)d->P + 1) * sizeof *procs), np = 0, npv = 0;
        uint32_t *best = NULL, nbest = 0, best_rank = 0;
        struct an_thread_split bs = {0};
        for (uint32_t i = 0; i < d->P; i++) {
            if (!r->present[i]) continue;
            uint32_t *tid, n;
            double *cpu, *sig;
            n = an_thread_cpu_at(&a->g, r, v, i, 0, &tid, &cpu, &sig);
            /* the team: a thread that computed in the region but never here
             * idled here while the others worked */
            uint32_t team = an_omp_team(&a->g, r, v, i);
            if (team > n) {
                cpu = sc_xrealloc(cpu, team * sizeof *cpu), sig = sc_xrealloc(sig, team * sizeof *sig);
                tid = sc_xrealloc(tid, team * sizeof *tid);
                for (uint32_t k = n; k < team; k++) cpu[k] = sig[k] = 0, tid[k] = AN_NONE;
                n = team;
            }
            struct an_thread_split s;
            int split = an_thread_cpu_split(cpu, sig, n, an_signal_s(r), th, &s);
            if (split) pv[npv++] = s.p_adjusted;
            /* a culprit by its ratio; whether the loop's threads differ at all is
             * the test of all processes together, below */
            if (split && s.ratio >= th->imbalance) {
                signals += s.signals;
                procs[np++] = i;
                saving += s.saving;
                noise2 += s.noise * s.noise;
                if (s.saving > worst) {
                    /* this process's threads, heaviest first */
                    free(best);
                    best = sc_xmalloc(n * sizeof *best), nbest = 0;
                    uint8_t *used = sc_xcalloc(n, 1);
                    for (uint32_t q = 0; q < n; q++) {
                        uint32_t h = AN_NONE;
                        for (uint32_t k = 0; k < n; k++)
                            if (!used[k] && tid[k] != AN_NONE && (h == AN_NONE || cpu[k] > cpu[h])) h = k;
                        if (h == AN_NONE) break;
                        used[h] = 1, best[nbest++] = tid[h];
                    }
                    free(used);
                    worst = s.saving, best_rank = i, bs = s;
                }
            }
            free(tid), free(cpu), free(sig);
        }
        /* the noise guard over the whole cause: the processes' exact tests
         * together, and enough samples in the culprits to time it (a loaded
         * machine delivers fewer signals, each of more weight) */
        double p_all = an_fisher_combine(pv, npv);
        free(pv);
        if (signals < th->min_samples || !(p_all < th->alpha)) np = 0;
        struct an_cause *c = thread_cause(d, v, AN_CAT_THREAD_IMBALANCE,
                                          "the loop's sampled CPU time per thread: the slowest thread's down to the "
                                          "team's mean (the region ends with its slowest thread), averaged over the "
                                          "processes",
                                          saving, noise2, procs, np, best, nbest, best_rank);
        if (!c) continue;
        an_cause_evidence(c, "on process %u its slowest thread computed %.3g CPU s in this loop against a team "
                          "mean of %.3g s (max/mean %.2f, exact Poisson test p = %.2g; no loop counters, from "
                          "the samples); %u of %u processes have threads out of balance here (all processes "
                          "together: p = %.2g)",
                          best_rank, bs.max, bs.mean, bs.ratio, bs.p_value, np, r->present_count, p_all);
    }
}

/* The serial CPU seconds of v on rank i (outside regions) and the threads
 * that ran it; *tid malloc'ed (may be NULL when n is 0). */
static double serial_cpu(const struct an_detect *d, uint32_t v, uint32_t i, uint32_t **tid, double **cpu,
                         double **sig, uint32_t *n)
{
    *n = an_thread_cpu_at(&d->a->g, d->r, v, i, 1, tid, cpu, sig);
    double s = 0;
    for (uint32_t k = 0; k < *n; k++) s += (*cpu)[k];
    return s;
}

/* (2) serial code between parallel regions. */
static void serial(struct an_detect *d)
{
    struct an_analysis *a = d->a;
    const struct an_run *r = d->r;
    const struct an_thresholds *th = &a->opt->th;
    uint32_t *team = sc_xmalloc(((size_t)d->P + 1) * sizeof *team), any = 0;
    for (uint32_t i = 0; i < d->P; i++) {
        team[i] = r->present[i] ? an_omp_team(&a->g, r, AN_NONE, i) : 1;
        any |= team[i] > 1;
    }
    double *tot = any ? sc_xcalloc((size_t)d->N + 1, sizeof *tot) : NULL;
    /* the serial CPU of every loop outside the regions, summed over the processes */
    for (uint32_t v = 0; any && v < d->N && v < a->g.n; v++) {
        if (a->g.v[v].kind != PSG_LOOP || !an_actionable(&a->g, v) || an_omp_region_of(&a->g, v) != AN_NONE)
            continue;
        for (uint32_t i = 0; i < d->P; i++) {
            if (!r->present[i] || team[i] < 2) continue;
            uint32_t *tid, n;
            double *cpu, *sig;
            tot[v] += serial_cpu(d, v, i, &tid, &cpu, &sig, &n);
            free(tid), free(cpu), free(sig);
        }
    }
    for (uint32_t v = 0; any && v < d->N && v < a->g.n; v++) {
        if (!(tot[v] > 0)) continue;
        /* the innermost loop holding most of it (the location rule) */
        int inner = 0;
        for (uint32_t u = 0; u < d->N && u < a->g.n && !inner; u++)
            inner = u != v && tot[u] > th->location_share * tot[v] && an_graph_is_ancestor(&a->g, v, u);
        if (inner || an_covered_by_cause(a, v)) continue;
        double saving = 0, var = 0, worst = -1;
        uint32_t *procs = sc_xmalloc(((size_t)d->P + 1) * sizeof *procs), np = 0;
        uint32_t *best = NULL, nbest = 0, best_rank = 0, best_team = 1;
        double best_cpu = 0;
        for (uint32_t i = 0; i < d->P; i++) {
            if (!r->present[i] || team[i] < 2) continue;
            uint32_t *tid, n;
            double *cpu, *sig;
            double s = serial_cpu(d, v, i, &tid, &cpu, &sig, &n), sv = an_serial_saving(s, team[i]);
            if (sv > 0) {
                procs[np++] = i, saving += sv;
                var += an_signal_s(r) * s * pow(1.0 - 1.0 / team[i], 2);
                if (sv > worst) {
                    free(best);
                    best = sc_xmalloc((n + 1) * sizeof *best), nbest = 0;
                    /* the threads that ran it: those with a tenth of it or more, heaviest first */
                    for (uint32_t q = 0; q < n; q++) {
                        uint32_t h = AN_NONE;
                        for (uint32_t k = 0; k < n; k++) {
                            int taken = 0;
                            for (uint32_t j = 0; j < nbest; j++) taken |= best[j] == tid[k];
                            if (!taken && cpu[k] >= 0.1 * s && (h == AN_NONE || cpu[k] > cpu[h])) h = k;
                        }
                        if (h == AN_NONE) break;
                        best[nbest++] = tid[h];
                    }
                    worst = sv, best_rank = i, best_team = team[i], best_cpu = s;
                }
            }
            free(tid), free(cpu), free(sig);
        }
        struct an_cause *c = thread_cause(d, v, AN_CAT_SERIAL,
                                          "the section's CPU time on its thread spread over the process's OpenMP "
                                          "team: cpu x (1 - 1/threads) per process, averaged over the processes",
                                          saving, var, procs, np, best, nbest, best_rank);
        if (!c) continue;
        c->remedy = serial_remedy;
        an_cause_evidence(c, "on process %u %u thread(s) of its team of %u computed %.3g CPU s in this loop "
                          "outside every parallel region while the other threads idled; spread over the team "
                          "it would end %.3g s sooner; %u of %u processes run it so",
                          best_rank, nbest, best_team, best_cpu, worst, np, r->present_count);
    }
    free(tot), free(team);
}

static void find(struct an_detect *d)
{
    if (!d->r->ntcpu) return;
    imbalance(d);
    serial(d);
}

const struct an_detector an_detector_omp_threads = {
    "omp_threads",
    "a loop of an OpenMP region whose threads' sampled CPU time splits with max/mean >= imbalance (exact "
    "Poisson tests of the processes combined by Fisher's method below alpha, min_samples signals; no loop "
    "counters there), or a loop outside every region that one thread runs while its team idles",
    NULL, find};
