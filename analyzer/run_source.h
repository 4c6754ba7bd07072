/* run_source.h — the seam through which the analyzer core reads a run's
 * per-rank data: a vertex's per-rank arrays, the partner records of a rank,
 * the per-rank sums of the computation intervals at a vertex, a site's
 * figures and the robust outliers of the inclusive time.  A source is a
 * const table of functions; the core asks through an_vr, an_vr_has,
 * an_vr_release, an_run_peers_of, an_interval_before/after, an_site_figures
 * and an_run_outliers (analyzer.h), never a source by name.  The local
 * source (run_source.c) reads the run's own arrays: a serial analysis, and
 * every analyzer process's slice.  The parallel analyzer's process 0 gives
 * each whole run a source of its own (par/), whose per-rank arrays stay with
 * the processes that read the ranks and come on demand into a cache it owns
 * (docs/parallel-analysis.md).  Adding a member: append it, and fill it in
 * both sources. */
#ifndef SCALANA_RUN_SOURCE_H
#define SCALANA_RUN_SOURCE_H

#include "analyzer.h"

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

#endif
