/* vstat.c — the statistics of a vertex over the ranks of a run that the
 * metrics need (struct an_vstat): computed over the ranks one process
 * holds and combined over processes, so that a parallel analysis computes
 * every vertex's mean, maximum (with its process) and minimum without any
 * process holding every rank's values.  The serial analysis uses the same
 * code over one slice that holds every rank. */
#include "ppg/vstat.h"
#include "core/types.h"
#include "ppg/vtime.h"

#include <math.h>
#include <string.h>

void an_vstat_init(struct an_vstat *s)
{
    memset(s, 0, sizeof *s);
    s->min_t = INFINITY, s->min_mpi_c = INFINITY;
}

void an_vstat_slice(const struct an_run *r, const struct an_vrun *x, struct an_vstat *s)
{
    an_vstat_init(s);
    for (uint32_t li = 0; li < r->slice_n; li++) {
        uint32_t i = r->slice_lo + li;
        if (!r->present[i]) continue;
        double t = an_vtime(x, li), in = x->incl ? x->incl[li] : 0;
        s->n++;
        s->sum_t += t, s->sum_incl += in;
        if (x->cpu) s->sum_cpu += x->cpu[li], s->max_cpu = fmax(s->max_cpu, x->cpu[li]);
        if (x->mpi) s->sum_mpi += x->mpi[li];
        if (x->gpu) s->sum_gpu += x->gpu[li];
        if (t > s->max_t) s->max_t = t;
        if (t < s->min_t) s->min_t = t;
        if (in > s->max_incl) s->max_incl = in, s->argmax_incl = i;
        if (x->mpi && x->ncalls && x->ncalls[li] > 0) {
            s->max_mpi_c = fmax(s->max_mpi_c, x->mpi[li]);
            s->min_mpi_c = fmin(s->min_mpi_c, x->mpi[li]);
        }
    }
}

void an_vstat_merge(struct an_vstat *a, const struct an_vstat *b)
{
    a->n += b->n;
    a->sum_t += b->sum_t, a->sum_incl += b->sum_incl, a->sum_cpu += b->sum_cpu;
    a->sum_mpi += b->sum_mpi, a->sum_gpu += b->sum_gpu;
    if (b->max_t > a->max_t) a->max_t = b->max_t;
    if (b->min_t < a->min_t) a->min_t = b->min_t;
    /* strictly greater: the lower rank (a's) keeps a tie, as a serial scan does */
    if (b->max_incl > a->max_incl) a->max_incl = b->max_incl, a->argmax_incl = b->argmax_incl;
    a->max_cpu = fmax(a->max_cpu, b->max_cpu);
    a->max_mpi_c = fmax(a->max_mpi_c, b->max_mpi_c);
    a->min_mpi_c = fmin(a->min_mpi_c, b->min_mpi_c);
}

static int in_list(const uint32_t *v, uint32_t n, uint32_t u)
{
    for (uint32_t k = 0; k < n; k++)
        if (v[k] == u) return 1;
    return 0;
}

void an_site_figures_slice(const struct an_run *r, const uint32_t *v, uint32_t nv, struct an_site_figures *f)
{
    f->fastest = INFINITY, f->share = 1, f->sum_t = 0, f->n = 0;
    for (uint32_t li = 0; li < r->slice_n; li++) {
        if (!r->present[r->slice_lo + li]) continue;
        double t = 0, calls = 0, b = 0;
        for (uint32_t k = 0; k < nv; k++) {
            if (v[k] >= r->nvr) continue;
            const struct an_vrun *x = &r->vr[v[k]];
            if (!x->mpi || !x->ncalls) continue;
            t += x->mpi[li], calls += x->ncalls[li];
        }
        if (calls <= 0) continue;
        f->fastest = fmin(f->fastest, t);
        for (uint32_t k = 0; k < r->nintervals; k++) {
            const struct an_interval *x = &r->intervals[k];
            if (!in_list(v, nv, x->next_vertex) || x->prev_vertex == AN_NONE || !x->count || !x->wall ||
                !x->wall_sq || x->count[li] <= 0)
                continue;
            double S = x->wall[li], Q = x->wall_sq[li], nlong = Q > 0 ? S * S / Q : 0;
            b += fmax(0, x->count[li] - nlong);
        }
        f->share = fmin(f->share, fmin(1, b / calls));
        f->sum_t += t, f->n++;
    }
}

