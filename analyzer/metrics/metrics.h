/* metrics.h — per-vertex metrics and models over the process counts, waits,
 * costs and data-quality warnings (metrics/metrics.c). */
#ifndef SCALANA_AN_METRICS_METRICS_H
#define SCALANA_AN_METRICS_METRICS_H

#include <stdint.h>
#include "core/types.h"

/** The run time costs are measured against (seconds): the largest run's wall
 *  time with a core per process (an_run_base_seconds of the last scale).
 *  The costs (CPU model, detect.c) are savings on that same machine, so a
 *  cost and the minimum it is compared with are in one model. */
double an_base_seconds(const struct an_analysis *a);
/** Scale s's run time with a core per process (seconds; 0 without that
 *  scale): wall / contention (contention counts the processes per core and
 *  other load alike); for a run contended beyond contention_max at most
 *  (wall / contention / CPU seconds of the busiest process) of the study's
 *  least contended run times the CPU seconds of this run's busiest process,
 *  since other load also delays every message, which the contention
 *  (measured on computation) does not see.  report.json's runs[].base_seconds. */
double an_run_base_seconds(const struct an_analysis *a, uint32_t s);
/** The job's own load per core in run r (>= 1): its processes per core, or
 *  its threads per core when its processes run several (an OpenMP team of 2
 *  in each of 4 processes on 2 cores is 4, not 2: each thread gets a quarter
 *  core from the job alone).  The contention that this explains is the job's. */
double an_own_load(const struct an_run *r);
/** The share (0..1) of run r's wall time that its best-served process spent
 *  waiting for a core beyond what the job's own load explains (an_own_load):
 *  1 - own load / contention, 0 when the contention is the job's own
 *  (other jobs, OS noise; report.json runs[].other_load_share). */
double an_other_load_share(const struct an_run *r);
/** Run r's run delays (an_run.run_delay: wall seconds the MPI_Init thread
 *  was runnable but had no core, MPI_Init to the profile's write): the mean
 *  over the present processes that measured it, the largest and its world
 *  rank.  Exact (the scheduler's own account), unlike the contention: sleep,
 *  I/O and blocking are not in it.  Returns how many processes measured it;
 *  0 leaves the outputs untouched (older runtimes, kernels without
 *  schedstat).  report.json runs[].run_delay_seconds_mean/_max. */
uint32_t an_run_delay_stats(const struct an_run *r, double *mean, double *max, uint32_t *max_rank);
/** Warns for each process count whose representative run recorded no
 *  sample although its processes used CPU time (the program blocked or
 *  took the sampling signal): its computation is invisible (metrics.c). */
void an_warn_unsampled(struct an_analysis *a);
/** Warns (data quality) of shared cores: once for the process counts that are
 *  oversubscribed or contended (processes per core, slow-down), then of load
 *  from outside the job (other jobs, OS noise): the counts whose contention
 *  exceeds contention_max times their processes per core, with
 *  an_other_load_share of each. */
void an_warn_contention(struct an_analysis *a);
/** Share (0..1) of run r's CPU time (all threads, present processes)
 *  sampled inside the OpenMP runtime (an_run.omp_wait); *seconds (if not
 *  NULL): those CPU seconds, mean per process. */
double an_omp_runtime_share(const struct an_run *r, double *seconds);
/** Warns, per process count, when at least a tenth of the threads' CPU time
 *  was spent inside the OpenMP runtime (barrier and lock spinning,
 *  scheduling), with the wait policy that lets such threads sleep. */
void an_warn_omp_runtime(struct an_analysis *a);
/** The smallest cost that may be reported (seconds): max(min_cost_seconds,
 *  min_cost_percent of an_base_seconds). */
double an_min_cost(const struct an_analysis *a);
/** Groups runs by process count (ascending), picks the representatives. */
void an_group_scales(struct an_analysis *a);
/** Per-vertex metrics, models, scaling loss and flags. */
void an_compute_metrics(struct an_analysis *a);
/** Wait of each process at vertex v in run r, in seconds: collectives
 *  t_i - min_j t_j over the members of the same communicator; point-to-point
 *  and completions t_i - calls_i * (shortest single call over processes).
 *  Not discounted for oversubscription (callers that report a wait as its own
 *  cause divide by the run's factor).  out has P entries.  Returns the sum. */
double an_waits(const struct an_analysis *a, const struct an_run *r, uint32_t v, double *out);
/** An upper bound of the largest wait an_waits gives at vertex v in run r
 *  (seconds), from the vertex's statistics alone (no per-process values):
 *  collectives max - min of the callers' MPI time, point-to-point the
 *  largest MPI time.  The detectors skip a vertex whose bound is under their
 *  threshold, so that a parallel analysis fetches only the others. */
double an_waits_bound(const struct an_analysis *a, const struct an_run *r, uint32_t v);
void an_analysis_free(struct an_analysis *a);

#endif
