/* threads.c — CPU time per thread (issue 26): the sampled CPU seconds of
 * every thread of a process at every vertex, and what they say about an
 * OpenMP team where no loop counter does (a gcc -fopenmp build profiled
 * through LD_PRELOAD): the threads of a parallel loop that split its work
 * unevenly, the team size a region ran with, and the code between regions
 * that one thread runs while the others idle.  Samples inside the OpenMP
 * runtime (threads spinning at a barrier) are waits (ppg.c), never CPU time
 * here (docs/analyzer.md "OpenMP"). */
#include "ppg/threads.h"
#include "core/graph.h"
#include "core/types.h"
#include "models/stats.h"
#include "sc_alloc.h"
#include "scalana/profile_format.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

uint32_t *an_cct_thread_index(const struct prf_rank_data *d)
{
    uint32_t nn = d->cct_count;
    uint32_t *t = sc_xmalloc(((size_t)nn + 1) * sizeof *t);
    for (uint32_t i = 0; i < nn; i++) t[i] = AN_NONE - 1; /* not yet known */
    uint32_t *stack = sc_xmalloc(((size_t)nn + 1) * sizeof *stack);
    for (uint32_t i = 0; i < nn; i++) {
        uint32_t sp = 0, x = i, th = AN_NONE;
        while (x < nn && t[x] == AN_NONE - 1 && sp <= nn) {
            stack[sp++] = x;
            if (d->cct[x].kind == PRF_CCT_ROOT) break;
            x = d->cct[x].parent;
        }
        if (x < nn && t[x] != AN_NONE - 1) th = t[x];
        else if (x < nn && d->cct[x].kind == PRF_CCT_ROOT) th = (uint32_t)d->cct[x].address;
        while (sp) t[stack[--sp]] = th;
    }
    free(stack);
    return t;
}

void an_run_add_thread_cpu(struct an_run *r, uint32_t rank, uint32_t thread, uint32_t vertex, double cpu_s,
                           double signals)
{
    if (thread == AN_NONE || vertex == AN_NONE) return;
    if (r->ntcpu == r->tcpu_cap) {
        r->tcpu_cap = r->tcpu_cap ? 2 * r->tcpu_cap : 256;
        r->tcpu = sc_xrealloc(r->tcpu, r->tcpu_cap * sizeof *r->tcpu);
    }
    r->tcpu[r->ntcpu++] = (struct an_thread_cpu){vertex, rank, thread, 0, cpu_s, signals};
}

/* one rank's entries contiguous: a question about one rank reads its own */
static int by_rank_vertex_thread(const void *a, const void *b)
{
    const struct an_thread_cpu *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    if (x->vertex != y->vertex) return x->vertex < y->vertex ? -1 : 1;
    return x->thread < y->thread ? -1 : x->thread > y->thread;
}

void an_run_finish_thread_cpu(struct an_run *r)
{
    if (!r->ntcpu) return;
    qsort(r->tcpu, r->ntcpu, sizeof *r->tcpu, by_rank_vertex_thread);
    size_t n = 0;
    for (size_t i = 0; i < r->ntcpu; i++) {
        struct an_thread_cpu *x = &r->tcpu[i];
        if (n && !by_rank_vertex_thread(&r->tcpu[n - 1], x)) {
            r->tcpu[n - 1].cpu += x->cpu, r->tcpu[n - 1].signals += x->signals;
        } else {
            r->tcpu[n++] = *x;
        }
    }
    r->ntcpu = n;
}

void an_run_remap_thread_cpu(struct an_run *r, const uint32_t *map, uint32_t nmap)
{
    size_t n = 0;
    for (size_t i = 0; i < r->ntcpu; i++) {
        uint32_t v = r->tcpu[i].vertex;
        if (v >= nmap || map[v] == AN_NONE) continue;
        r->tcpu[n] = r->tcpu[i];
        r->tcpu[n++].vertex = map[v];
    }
    r->ntcpu = n;
    an_run_finish_thread_cpu(r);
}

uint32_t an_thread_cpu_at(const struct an_graph *g, const struct an_run *r, uint32_t v, uint32_t rank,
                          int outside_regions, uint32_t **threads, double **cpu, double **signals)
{
    *threads = NULL, *cpu = NULL, *signals = NULL;
    uint32_t n = 0, cap = 0;
    if (!r->ntcpu || v >= g->n) return 0;
    size_t lo = 0, hi = r->ntcpu;
    while (lo < hi) { /* the rank's first entry */
        size_t mid = (lo + hi) / 2;
        if (r->tcpu[mid].rank < rank) lo = mid + 1;
        else hi = mid;
    }
    for (size_t i = lo; i < r->ntcpu && r->tcpu[i].rank == rank; i++) {
        const struct an_thread_cpu *x = &r->tcpu[i];
        if (x->vertex >= g->n || !an_graph_is_ancestor(g, v, x->vertex)) continue;
        if (outside_regions && an_omp_region_of(g, x->vertex) != AN_NONE) continue;
        uint32_t k = 0;
        while (k < n && (*threads)[k] != x->thread) k++;
        if (k == n) {
            if (n == cap) {
                cap = cap ? 2 * cap : 8;
                *threads = sc_xrealloc(*threads, cap * sizeof **threads);
                *cpu = sc_xrealloc(*cpu, cap * sizeof **cpu);
                *signals = sc_xrealloc(*signals, cap * sizeof **signals);
            }
            (*threads)[k] = x->thread, (*cpu)[k] = 0, (*signals)[k] = 0;
            n++;
        }
        (*cpu)[k] += x->cpu, (*signals)[k] += x->signals;
    }
    /* in thread index order: the report lists them so */
    for (uint32_t i = 1; i < n; i++)
        for (uint32_t j = i; j > 0 && (*threads)[j] < (*threads)[j - 1]; j--) {
            uint32_t t = (*threads)[j];
            (*threads)[j] = (*threads)[j - 1], (*threads)[j - 1] = t;
            double c = (*cpu)[j];
            (*cpu)[j] = (*cpu)[j - 1], (*cpu)[j - 1] = c;
            double s = (*signals)[j];
            (*signals)[j] = (*signals)[j - 1], (*signals)[j - 1] = s;
        }
    return n;
}

uint32_t an_omp_region_of(const struct an_graph *g, uint32_t v)
{
    for (uint32_t u = v; u != AN_NONE && u < g->n; u = g->v[u].parent)
        if (g->v[u].flags & AN_V_OMP_REGION) return u;
    return AN_NONE;
}

/* Threads of rank `rank` with a CPU sample in region body reg. */
static uint32_t team_of(const struct an_graph *g, const struct an_run *r, uint32_t reg, uint32_t rank)
{
    uint32_t *th;
    double *cpu, *sig;
    uint32_t n = an_thread_cpu_at(g, r, reg, rank, 0, &th, &cpu, &sig);
    free(th), free(cpu), free(sig);
    return n;
}

uint32_t an_omp_team(const struct an_graph *g, const struct an_run *r, uint32_t v, uint32_t rank)
{
    uint32_t best = 1;
    if (v != AN_NONE) {
        uint32_t reg = an_omp_region_of(g, v);
        return reg == AN_NONE ? 1 : (best = team_of(g, r, reg, rank)) ? best : 1;
    }
    for (uint32_t u = 0; u < g->n; u++)
        if (g->v[u].flags & AN_V_OMP_REGION) {
            uint32_t n = team_of(g, r, u, rank);
            if (n > best) best = n;
        }
    return best;
}

int an_thread_cpu_split(const double *cpu, const double *signals, uint32_t n, double signal_s,
                        const struct an_thresholds *th, struct an_thread_split *out)
{
    memset(out, 0, sizeof *out);
    out->p_value = 1;
    if (n < 2) return 0;
    double sum = 0, ksum = 0;
    uint32_t h = 0;
    for (uint32_t k = 0; k < n; k++) {
        sum += cpu[k], ksum += signals[k];
        if (cpu[k] > cpu[h]) h = k;
    }
    if (!(sum > 0)) return 0;
    double mean = sum / n;
    out->heaviest = h;
    out->max = cpu[h], out->mean = mean;
    out->ratio = cpu[h] / mean;
    /* the region ends with its slowest thread; balanced, every thread takes the mean */
    out->saving = cpu[h] - mean;
    /* saving = (1 - 1/n) max - (rest)/n; Poisson variance of each term */
    if (signal_s > 0) {
        double a = 1.0 - 1.0 / n;
        out->noise = sqrt(signal_s * (cpu[h] * a * a + (sum - cpu[h]) / ((double)n * n)));
    }
    /* the heaviest thread against the rest of the team: exact Poisson test,
     * exposures 1 : n - 1, Bonferroni over the n threads that could be it */
    uint64_t k1 = (uint64_t)llround(signals[h]), k2 = (uint64_t)llround(ksum - signals[h]);
    out->p_value = scalana_poisson_test(k1, 1.0, k2, (double)(n - 1), SCALANA_GREATER);
    out->signals = ksum;
    out->p_adjusted = fmin(1.0, out->p_value * n);
    out->significant = out->ratio >= th->imbalance && out->p_adjusted < th->alpha;
    return 1;
}

double an_fisher_combine(const double *p, uint32_t m)
{
    if (!m) return 1;
    /* X = -2 sum ln p_i is chi-square with 2m degrees of freedom under H0;
     * for even degrees of freedom its survival function is
     * exp(-X/2) sum_{k<m} (X/2)^k / k! (summed in logs: X/2 reaches hundreds) */
    double h = 0;
    for (uint32_t i = 0; i < m; i++) h -= log(fmax(p[i], 1e-300));
    double lt = -h, sum = exp(lt);
    for (uint32_t k = 1; k < m; k++) {
        lt += log(h) - log((double)k);
        sum += exp(lt);
    }
    return fmin(1.0, sum);
}

double an_serial_saving(double cpu, uint32_t team)
{
    return team > 1 ? cpu * (1.0 - 1.0 / team) : 0;
}
