/* threads.h — sampled CPU seconds per thread and the statistics of a
 * team's split (ppg/threads.c). */
#ifndef SCALANA_AN_PPG_THREADS_H
#define SCALANA_AN_PPG_THREADS_H

#include <stdint.h>
#include "core/types.h"
#include "scalana/profile_format.h"

/** The thread index of every CCT node of d (its PRF_CCT_ROOT's address),
 *  AN_NONE where no root is reached: malloc'ed [d->cct_count]. */
uint32_t *an_cct_thread_index(const struct prf_rank_data *d);
/** Adds cpu_s seconds (signals signals) of thread `thread` of world rank
 *  `rank` at vertex to r; ignored for AN_NONE thread or vertex. */
void an_run_add_thread_cpu(struct an_run *r, uint32_t rank, uint32_t thread, uint32_t vertex, double cpu_s,
                           double signals);
/** Sorts r's per-thread CPU and merges equal (vertex, rank, thread). */
void an_run_finish_thread_cpu(struct an_run *r);
/** Renames the vertices of r's per-thread CPU by map (old -> new, nmap;
 *  AN_NONE drops the entry), then sorts (parallel analysis, par_combine.c). */
void an_run_remap_thread_cpu(struct an_run *r, const uint32_t *map, uint32_t nmap);
/** The CPU seconds and signals per thread of world rank `rank` in v's
 *  subtree; with outside_regions, only at vertices outside OpenMP region
 *  bodies (the code a region's team does not share).  *n threads in index
 *  order (threads[], cpu[], signals[] malloc'ed, the caller frees all
 *  three); returns *n (0: no sample there). */
uint32_t an_thread_cpu_at(const struct an_graph *g, const struct an_run *r, uint32_t v, uint32_t rank,
                          int outside_regions, uint32_t **threads, double **cpu, double **signals);
/** The OpenMP region body (function vertex flagged AN_V_OMP_REGION) that
 *  holds v, or AN_NONE. */
uint32_t an_omp_region_of(const struct an_graph *g, uint32_t v);
/** Threads of world rank `rank` that computed (a CPU sample) in the OpenMP
 *  region body holding v: the team the region ran with; 1 outside regions
 *  or without samples.  v AN_NONE: the most over all region bodies. */
uint32_t an_omp_team(const struct an_graph *g, const struct an_run *r, uint32_t v, uint32_t rank);

/** One process's threads in one loop, from their sampled CPU seconds. */
struct an_thread_split {
    double max, mean, ratio;   /* seconds of the heaviest thread, mean over the team, max/mean */
    double saving;             /* max - mean: wall seconds balancing the team saves (the region
                                * ends with its slowest thread) */
    double noise;              /* standard deviation of saving from the samples' Poisson noise */
    double p_value;            /* exact Poisson test: heaviest thread against the rest */
    double p_adjusted;         /* min(1, n p_value): Bonferroni over the n threads that could
                                * be the heaviest (a valid p-value for an_fisher_combine) */
    double signals;            /* sampling signals of the team there (the caller asks for
                                * th->min_samples over the processes it names) */
    uint32_t heaviest;         /* index into the arrays given */
    int significant;           /* ratio >= th->imbalance and p_adjusted < th->alpha: this
                                * process alone shows it */
};
/** Splits a team of n threads by their CPU seconds cpu[] (signals[]
 *  sampling signals, signal_s CPU seconds per signal; a thread of the team
 *  that never computed here counts with 0).  Returns 0 when n < 2 or nothing
 *  was sampled (out zeroed, p_value 1), else 1. */
int an_thread_cpu_split(const double *cpu, const double *signals, uint32_t n, double signal_s,
                        const struct an_thresholds *th, struct an_thread_split *out);
/** Fisher's combination of m independent p-values p[] (each process's
 *  p_adjusted for one loop): the p-value of "none of them differs", from
 *  -2 sum ln p ~ chi-square(2m).  1 for m = 0.  A loop's schedule splits
 *  every process alike, so a loaded machine's few signals per process
 *  (51-67 in omp_thread_imbalance beside CPU hogs) add up to one test. */
double an_fisher_combine(const double *p, uint32_t m);
/** What running cpu seconds of one thread's serial code on a team of
 *  `team` threads saves: cpu (1 - 1/team) wall seconds; 0 for team <= 1. */
double an_serial_saving(double cpu, uint32_t team);

#endif
