/* run_source.c — the local source of a run's per-rank data (run_source.h):
 * the arrays the run holds itself, for a serial analysis and every analyzer
 * process's slice; and the core's questions, asked of the run's source. */
#include "ppg/run_source.h"
#include "core/types.h"
#include "models/stats.h"
#include "ppg/intervals.h"
#include "ppg/vstat.h"
#include "sc_alloc.h"

#include <stdlib.h>
#include <string.h>

unsigned an_vrun_arrays(const struct an_vrun *x)
{
    return (x->cpu ? AN_HAS_CPU : 0) | (x->mpi ? AN_HAS_MPI : 0) | (x->ncalls ? AN_HAS_NCALLS : 0) |
           (x->gpu ? AN_HAS_GPU : 0) | (x->comm ? AN_HAS_COMM : 0) | (x->incl ? AN_HAS_INCL : 0) |
           (x->icpu ? AN_HAS_ICPU : 0) | (x->igpu ? AN_HAS_IGPU : 0);
}

/* ---- the local source ------------------------------------------------------- */

static const struct an_vrun *local_vertex(const struct an_run *r, uint32_t v) { return &r->vr[v]; }

static int local_has(const struct an_run *r, uint32_t v, unsigned has)
{
    return (an_vrun_arrays(&r->vr[v]) & has) != 0;
}

static const struct an_peer_rec *local_peers(const struct an_run *r, uint32_t rank, size_t *n)
{
    if (!r->peer_first) return NULL;
    *n = r->peer_first[rank + 1] - r->peer_first[rank];
    return r->peers + r->peer_first[rank];
}

static void local_outliers(const struct an_run *r, uint32_t nv, double threshold, uint32_t *out)
{
    double *x = sc_xmalloc((r->P + 1) * sizeof *x);
    size_t idx[16];
    for (uint32_t v = 0; v < nv; v++) {
        if (!an_vr_has(r, v, AN_HAS_INCL)) continue;
        const struct an_vrun *vr = an_vr(r, v);
        for (uint32_t i = 0; i < r->P; i++) x[i] = vr->incl[i];
        size_t no = scalana_robust_outliers(x, r->P, threshold, SCALANA_OUTLIER_HIGH, idx, 16, NULL);
        out[(size_t)v * 17] = (uint32_t)no;
        for (size_t k = 0; k < no && k < 16; k++) out[(size_t)v * 17 + 1 + k] = (uint32_t)idx[k];
    }
    free(x);
}

const struct an_run_source an_run_source_local = {
    .name = "local",
    .holds_ranks = 1,
    .vertex = local_vertex,
    .has = local_has,
    .release = NULL,
    .peers = local_peers,
    .interval_sum = an_interval_sum_slice,
    .outliers = local_outliers,
    .site_figures = an_site_figures_slice,
    .free = NULL,
};

/* ---- the core's questions --------------------------------------------------- */

static const struct an_run_source *source_of(const struct an_run *r)
{
    return r->source ? r->source : &an_run_source_local;
}

const struct an_vrun *an_vr(const struct an_run *r, uint32_t v)
{
    static const struct an_vrun none;
    if (v >= r->nvr) return &none;
    return source_of(r)->vertex(r, v);
}

int an_vr_has(const struct an_run *r, uint32_t v, unsigned has)
{
    if (v >= r->nvr) return 0;
    return source_of(r)->has(r, v, has);
}

void an_vr_release(const struct an_run *r)
{
    if (source_of(r)->release) source_of(r)->release(r);
}

const struct an_peer_rec *an_run_peers_of(const struct an_run *r, uint32_t rank, size_t *n)
{
    *n = 0;
    if (rank >= r->P) return NULL;
    return source_of(r)->peers(r, rank, n);
}

void an_run_interval_sums(const struct an_run *r, uint32_t v, int want_next, int want_cpu, double *out)
{
    source_of(r)->interval_sum(r, v, want_next, want_cpu, out);
}

/* Sums, per rank, the intervals whose `end` side (next when want_next, else
 * prev) is vertex v: the queries of intervals are asked of the run's source,
 * so they live beside it (ppg/intervals.c holds the records). */
static int interval_sum(const struct an_run *r, uint32_t v, int want_next, int want_cpu,
                        double *out)
{
    memset(out, 0, (size_t)r->P * sizeof *out);
    if (!r->has_intervals) return 0;
    an_run_interval_sums(r, v, want_next, want_cpu, out);
    return 1;
}

int an_interval_before(const struct an_run *r, uint32_t next_vertex, int want_cpu, double *out)
{
    return interval_sum(r, next_vertex, 1, want_cpu, out);
}

int an_interval_after(const struct an_run *r, uint32_t prev_vertex, int want_cpu, double *out)
{
    return interval_sum(r, prev_vertex, 0, want_cpu, out);
}

void an_run_outliers(const struct an_run *r, uint32_t nv, double threshold, uint32_t *out)
{
    source_of(r)->outliers(r, nv, threshold, out);
}

void an_site_figures(const struct an_run *r, const uint32_t *v, uint32_t nv, struct an_site_figures *f)
{
    source_of(r)->site_figures(r, v, nv, f);
}

int an_run_holds_ranks(const struct an_run *r) { return source_of(r)->holds_ranks; }

void an_run_source_free(struct an_run *r)
{
    if (r->source && r->source->free) r->source->free(r);
    r->source = NULL, r->source_state = NULL;
}
