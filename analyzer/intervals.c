/* intervals.c — queries over a run's exact computation intervals (the time
 * between two consecutive MPI calls of one thread, recorded by the runtime
 * per pair of calling contexts and attributed here to pairs of MPI vertices
 * by ppg.c). */
#include "analyzer.h"

#include <string.h>

/* Sums, per rank, the intervals whose `end` side (next when want_next, else
 * prev) is vertex v. */
static int interval_sum(const struct an_run *r, uint32_t v, int want_next, int want_cpu,
                        double *out)
{
    memset(out, 0, (size_t)r->P * sizeof *out);
    if (!r->has_intervals) return 0;
    for (uint32_t k = 0; k < r->nintervals; k++) {
        const struct an_interval *x = &r->intervals[k];
        if ((want_next ? x->next_vertex : x->prev_vertex) != v) continue;
        const float *a = want_cpu ? x->cpu : x->wall;
        if (!a) continue;
        for (uint32_t i = 0; i < r->P; i++) out[i] += a[i];
    }
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
