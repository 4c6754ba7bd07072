/* work.h — loop iterations per rank and thread, and what they say of
 * work against speed (ppg/work.c). */
#ifndef SCALANA_AN_PPG_WORK_H
#define SCALANA_AN_PPG_WORK_H

#include <stdint.h>
#include "core/types.h"
#include "scalana/profile_format.h"

/** Adds world rank `rank`'s work record (if any) to r. */
void an_run_add_work(struct an_run *r, uint32_t rank, const struct prf_rank_data *d);
/** Sorts r's work and sums a rank's threads: after the last rank is added. */
void an_run_finish_work(struct an_run *r);
/** report.json runs[].work_measure: "loop_iterations" when some rank
 *  counted loop iterations, else "none" (a binary built without the pass). */
const char *an_work_measure(const struct an_run *r);
/** w[P] (world ranks) = the iterations of the loops in v's subtree, each
 *  loop once.  Returns 1 when some loop there was counted, else 0 (w zero). */
int an_work_at(const struct an_graph *g, const struct an_run *r, uint32_t v, double *w);

/** The iterations of the loops in v's subtree (each loop once) per thread of
 *  world rank `rank`: *n threads (kernel tids in tids[], thread indexes in
 *  threads[], counts in w[]; malloc'ed, the caller frees all three), in tid
 *  order.  Returns *n (0: nothing counted there). */
uint32_t an_thread_work_at(const struct an_graph *g, const struct an_run *r, uint32_t v, uint32_t rank,
                           uint64_t **tids, uint32_t **threads, double **w, uint32_t *n);
/** *mean = the mean over r's present ranks of an_work_at.  Returns 1 when
 *  some loop below v was counted, else 0 (*mean 0). */
int an_work_mean(const struct an_graph *g, const struct an_run *r, uint32_t v, double *mean);
/** The innermost LOOP vertex that encloses v (its ancestors, through calls
 *  and functions), or AN_NONE when a branch or a conditional vertex lies
 *  between them, or none does: straight-line code with no loop below it
 *  runs once per iteration of that loop, so the loop's count is how often
 *  it ran (a COMPUTE block of a particle loop's body). */
uint32_t an_work_enclosing_loop(const struct an_graph *g, uint32_t v);

enum an_work_verdict {
    AN_WORK_UNKNOWN = 0, /* no counted loop at the vertex, or nothing to compare */
    AN_WORK_SAME,        /* the culprits ran the others' iterations, only slower */
    AN_WORK_MORE         /* the culprits ran more iterations */
};
/** Whether culprits procs[np] (world ranks) of vertex v did more work than
 *  the other present ranks or the same work more slowly.  *work_ratio: their
 *  mean iterations over the others' (NAN when unknown); *time_ratio: the same
 *  for inclusive CPU seconds (NAN when unknown, INFINITY when only the
 *  culprits had CPU time sampled there).  Same: iterations exceed
 *  the others' by under 5 % and under a quarter of the CPU-time excess
 *  (docs/analyzer.md, "Work and speed"). */
enum an_work_verdict an_work_compare(const struct an_graph *g, const struct an_run *r, uint32_t v,
                                     const uint32_t *procs, uint32_t np, double *work_ratio,
                                     double *time_ratio);

#endif
