/* run_source.h — the seam through which the analyzer core reads a run's
 * per-rank data: a vertex's per-rank arrays, the partner records of a rank,
 * the per-rank sums of the computation intervals at a vertex, a site's
 * figures and the robust outliers of the inclusive time.  A source is a
 * const table of functions; the core asks through an_vr, an_vr_has,
 * an_vr_release, an_run_peers_of, an_interval_before/after, an_site_figures
 * and an_run_outliers (below), never a source by name.  The local
 * source (run_source.c) reads the run's own arrays: a serial analysis, and
 * every analyzer process's slice.  The parallel analyzer's process 0 gives
 * each whole run a source of its own (par/), whose per-rank arrays stay with
 * the processes that read the ranks and come on demand into a cache it owns
 * (docs/parallel-analysis.md).  Adding a member: append it, and fill it in
 * both sources. */
#ifndef SCALANA_RUN_SOURCE_H
#define SCALANA_RUN_SOURCE_H

#include "core/types.h"
#include "ppg/vstat.h"

#include <stddef.h>
#include <stdint.h>

struct an_run_source {
    const char *name; /* "local", "parallel" */
    /* 1 when the run itself holds every rank's per-rank arrays, intervals and
     * partner records (a replay or a match may read them directly) */
    int holds_ranks;
    /** Vertex v's record with the per-rank arrays of every rank (v < r->nvr). */
    const struct an_vrun *(*vertex)(const struct an_run *r, uint32_t v);
    /** Whether v (< r->nvr) has the arrays `has` (enum an_has), without fetching. */
    int (*has)(const struct an_run *r, uint32_t v, unsigned has);
    /** Forgets what vertex fetched (NULL: nothing to forget). */
    void (*release)(const struct an_run *r);
    /** The partner records of world rank `rank` (< r->P): *n of them. */
    const struct an_peer_rec *(*peers)(const struct an_run *r, uint32_t rank, size_t *n);
    /** out[P] += the per-rank sums of the intervals whose next (want_next) or
     *  previous end is v, CPU (want_cpu) or wall seconds; out is zeroed. */
    void (*interval_sum)(const struct an_run *r, uint32_t v, int want_next, int want_cpu, double *out);
    /** The robust outliers of the inclusive time of every vertex v < nv into
     *  out[v * 17] (an_run_outliers). */
    void (*outliers)(const struct an_run *r, uint32_t nv, double threshold, uint32_t *out);
    /** The figures of the site v[0..nv) over every rank (an_site_figures). */
    void (*site_figures)(const struct an_run *r, const uint32_t *v, uint32_t nv, struct an_site_figures *f);
    /** Frees r->source_state (NULL: there is none). */
    void (*free)(struct an_run *r);
};

/** The run's own arrays (a run whose source is NULL). */
extern const struct an_run_source an_run_source_local;

/* ---- what the rooms ask (through the run's source) ---------------------------- */

/** The point-to-point partner records of world rank `rank` in run r (*n of
 *  them; NULL when none), after an_run_finish: r's own, sorted by vertex; a
 *  source that keeps them elsewhere asks for them the first time and keeps
 *  them until an_vr_release (run_source.h). */
const struct an_peer_rec *an_run_peers_of(const struct an_run *r, uint32_t rank, size_t *n);
/** Vertex v's record in run r with the per-rank arrays of every rank of the
 *  run (indexed by world rank) and the intervals that end at v: always
 *  r->vr[v] (a zeroed record for v >= nvr); a source that keeps the arrays
 *  elsewhere (the parallel analyzer's process 0) fetches them the first
 *  time and keeps them (run_source.h).  Never NULL. */
const struct an_vrun *an_vr(const struct an_run *r, uint32_t v);
/** Forgets the per-rank arrays an_vr fetched for run r (a no-op for the
 *  local source; a later an_vr fetches again): the backward walk of each
 *  symptom releases what it fetched, so process 0 of a parallel analysis
 *  holds one walk's vertices at a time.  Pointers from an_vr of r are
 *  invalid afterwards. */
void an_vr_release(const struct an_run *r);
/** Whether vertex v has the per-rank array `has` (enum an_has) in run r,
 *  without fetching it. */
int an_vr_has(const struct an_run *r, uint32_t v, unsigned has);
/** out[P] = the per-rank sums over run r's intervals whose next (want_next
 *  1) or previous (0) vertex is v, CPU (want_cpu 1) or wall seconds, asked
 *  of r's source; out is zeroed by the caller (an_interval_before/after). */
void an_run_interval_sums(const struct an_run *r, uint32_t v, int want_next, int want_cpu, double *out);
/** The robust outliers (modified z-score above threshold, high side) of the
 *  inclusive time over run r's P processes of every vertex v < nv into
 *  out[v * 17]: the number found, then the first 16 world ranks, ascending;
 *  vertices without inclusive time keep what out held (the caller zeroes it). */
void an_run_outliers(const struct an_run *r, uint32_t nv, double threshold, uint32_t *out);
/** Whether run r holds every rank's per-rank arrays, intervals and partner
 *  records itself (the local source), so that they may be read directly. */
int an_run_holds_ranks(const struct an_run *r);
/** Frees what run r's source keeps for it (an_run_free calls it). */
void an_run_source_free(struct an_run *r);
/** The arrays vertex record x holds (enum an_has bits); cannot fail. */
unsigned an_vrun_arrays(const struct an_vrun *x);
/** The figures over every rank of run r (asked of r's source: of every
 *  process in a parallel analysis). */
void an_site_figures(const struct an_run *r, const uint32_t *v, uint32_t nv, struct an_site_figures *f);
/** Per-rank seconds of computation immediately before MPI vertex `next_vertex`
 *  in run r: the sum over intervals ending there (wall seconds when want_cpu is 0,
 *  CPU seconds when 1), into out[P].  Returns 1 when the run recorded intervals,
 *  0 when it did not (older profiles; out is then zeroed). */
int an_interval_before(const struct an_run *r, uint32_t next_vertex, int want_cpu, double *out);
/** The same for the intervals starting right after MPI vertex `prev_vertex`. */
int an_interval_after(const struct an_run *r, uint32_t prev_vertex, int want_cpu, double *out);

#endif
