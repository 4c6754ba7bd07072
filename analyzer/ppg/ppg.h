/* ppg.h — a run's performance graph: ranks added, finished into inclusive
 * times, totals and communication edges (ppg/ppg.c). */
#ifndef SCALANA_AN_PPG_PPG_H
#define SCALANA_AN_PPG_PPG_H

#include <stddef.h>
#include <stdint.h>
#include "core/types.h"
#include "read/attribute.h"
#include "scalana/profile_format.h"

/** World rank i's wall time outside MPI (and GPU waits) over its CPU time
 *  there (>= 1): how much slower than with a core of its own it computed;
 *  at least (wall - MPI_Init) / (that - run delay) where the MPI_Init
 *  thread's run delay was measured (a process of several threads sums their
 *  CPU time); NAN when the rank is absent or has fewer than 20 sampling
 *  signals of CPU time there (ppg.c; the run's contention is the minimum
 *  over ranks). */
double an_rank_contention(const struct an_run *r, uint32_t i);
/** World rank i's wall seconds outside MPI (and GPU waits) in *wall_out and
 *  its CPU seconds there in *cpu_out, as an_rank_contention divides them.
 *  Returns 0, or -1 (outputs untouched) as an_rank_contention returns NAN. */
int an_rank_outside_mpi(const struct an_run *r, uint32_t i, double *wall_out, double *cpu_out);
/** Matches run r's partner records (r->peers, as read) into communication
 *  edges (r->edges) and counts the messages without a partner (r->unmatched):
 *  records of one (sender, receiver, communicator) must all be in r. */
void an_run_match_edges(struct an_run *r);
/** Adds edges (messages, bytes, rank pairs) to run r's, in order, as
 *  matching them in r would have (a parallel analysis's processes match
 *  their senders' records; process 0 adds their edges in process order). */
void an_run_add_edges(struct an_run *r, const struct an_edge *e, size_t n);
/** Sorts run r's partner records by rank (stably: each rank's keep their
 *  order) and indexes them (r->peer_first). */
void an_run_index_peers(struct an_run *r);
/** Frees the per-rank arrays of vertex record x; its totals stay. */
void an_vrun_free_arrays(struct an_vrun *x);
/** Creates an empty run for P ranks.  Aborts on allocation failure. */
void an_run_init(struct an_run *r, uint32_t P);
void an_run_free(struct an_run *r);
/** The vertex's record in run r, growing the table; arrays allocated on demand. */
struct an_vrun *an_run_vertex(struct an_run *r, uint32_t v);
/** Adds one decoded rank to run r: attribution, per-rank metrics, peers. */
int an_run_add_rank(struct an_run *r, struct an_attr_ctx *c, const struct prf_rank_data *d,
                    char *err, size_t errlen);
/** After all ranks: inclusive times, per-run totals, communication edges,
 *  oversubscription, missing ranks (an_run_finish_slice, then
 *  an_run_finish_totals). */
void an_run_finish(struct an_run *r, const struct an_graph *g);
/** The part of an_run_finish over the ranks the run holds (its slice): per
 *  rank inclusive times (incl, icpu, igpu), GPU busy and start-up seconds,
 *  the ranks that have each vertex, the vertex statistics (an_vstat) and
 *  array flags (has). */
void an_run_finish_slice(struct an_run *r, const struct an_graph *g);
/** The part of an_run_finish over every rank once the per-rank figures of
 *  the run are whole: signal seconds, totals, missing ranks,
 *  oversubscription, contention, edges and peers by rank. */
void an_run_finish_totals(struct an_run *r);
/** How to get more samples in run r, one clause for a warning: "run longer
 *  or raise SCALANA_FREQ (now N Hz)", or where the timer is capped "run
 *  longer or use SCALANA_SAMPLER=taskclock: the cputime timer is capped at
 *  N Hz here, a higher SCALANA_FREQ gives no more samples" (ppg.c). */
void an_more_samples_advice(const struct an_run *r, char *out, size_t n);
/** Rank x rank bytes and messages (sender-major, P*P doubles each, malloc'ed);
 *  returns 0 or -1. */
int an_run_matrix(const struct an_run *r, double **bytes, double **messages);

#endif
