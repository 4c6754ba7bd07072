/* intervals.h — a run's exact computation intervals between MPI calls:
 * ingestion, slice sums, renaming (ppg/intervals.c). */
#ifndef SCALANA_AN_PPG_INTERVALS_H
#define SCALANA_AN_PPG_INTERVALS_H

#include <stdint.h>
#include "core/types.h"
#include "scalana/profile_format.h"

/** Adds rank `rank`'s interval records to run r: each context is replaced by
 *  its MPI vertex (ctx_vertex[context], AN_NONE when unattributed: such
 *  records are skipped), records of several threads or contexts with the same
 *  vertex pair are merged (sums; min of minima, max of maxima).  CPU seconds
 *  are the thread CPU clock's where read, else the CPU-time sampler's periods
 *  times period_s, else (no CPU-time sampler) the wall time as an upper bound;
 *  cpu_exact stays 1 while every merged interval was read with the clock.
 *  Called by an_run_add_rank.  Aborts on allocation failure. */
void an_run_add_intervals(struct an_run *r, uint32_t rank, const struct prf_rank_data *d,
                          const uint32_t *ctx_vertex, double period_s);
/** The run's record of the computation between MPI vertices (prev, next),
 *  created with zeroed per-rank arrays when new (intervals.c; the parallel
 *  analyzer merges other processes' records through it). */
struct an_interval *an_run_interval(struct an_run *r, uint32_t prev, uint32_t next);
/** The sums of an_interval_before (want_next 1) or an_interval_after
 *  (want_next 0) over the ranks run r holds itself (its slice): out has
 *  r->slice_n entries, added to (a parallel analysis's processes answer
 *  process 0 with it). */
void an_interval_sum_slice(const struct an_run *r, uint32_t v, int want_next, int want_cpu, double *out);
/** Renames the vertices of run r's intervals by map (old id -> new id, nmap
 *  entries; AN_NONE stays) and rebuilds their index (parallel analysis:
 *  the processes' vertex tables become one). */
void an_run_intervals_remap(struct an_run *r, const uint32_t *map, uint32_t nmap);

#endif
