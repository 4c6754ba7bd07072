/* rt_omp_path.c — the calling context of an OpenMP team's threads: a path a
 * thread records inside a region's body continues below the body with the
 * master's path at the fork (struct rt_omp_fork, rt_threads.h), so that the
 * body's samples and MPI calls on every thread land in the instance of the
 * region that ran them, as the master's own do.  Without it a pooled worker's
 * stack ends in the OpenMP runtime's thread start, and the analyzer could
 * only guess which fork a body forked from several call sites came from. */
#include "core/rt_core.h"
#include "rt_threads.h"

/* The text of rt_gomp.c's wrappers (section scalana_omp_text): the frames
 * of the wrapper around a region's body and of the interposed fork call. */
extern const char __start_scalana_omp_text[] RT_HIDDEN;
extern const char __stop_scalana_omp_text[] RT_HIDDEN;

RT_TLS const struct rt_omp_fork *rt_gomp_fork;
RT_TLS const struct rt_omp_fork *rt_ompt_fork;

static inline int rt_in_wrappers(const void *a)
{
    return (const char *)a >= __start_scalana_omp_text && (const char *)a < __stop_scalana_omp_text;
}

static inline int rt_in_omprt(const void *a)
{
    return (uintptr_t)a >= rt_g.omprt_lo && (uintptr_t)a < rt_g.omprt_hi;
}

int rt_omp_path_fix(void **f, int n, int cap, int *truncated)
{
    int cut = -1;
    const struct rt_omp_fork *fk = rt_gomp_fork;
    if (fk) {
        /* libgomp: the body's caller is rt_gomp.c's wrapper, on the master
         * (under GOMP_parallel) as on the workers (under gomp_thread_start) */
        for (int k = 0; k < n && cut < 0; k++)
            if (rt_in_wrappers(f[k])) cut = k;
    } else if ((fk = rt_ompt_fork) != NULL) {
        /* libomp: the first frame of the runtime above code outside it is
         * the one that invoked the body (__kmp_invoke_microtask), kept as
         * the master's path has it; frames of the runtime at the leaf are
         * its own waits, which stay where they are when nothing of the
         * body is below them (an idle worker) */
        int outside = 0;
        for (int k = 0; k < n && cut < 0; k++) {
            if (!rt_in_omprt(f[k])) outside = 1;
            else if (outside) cut = k + 1;
        }
    }
    if (fk && fk->n > 0 && cut >= 0 && cut < cap) {
        int m = fk->n;
        if (cut + m > cap) {
            m = cap - cut;
            *truncated = 1;
        } else {
            *truncated = fk->truncated;
        }
        for (int i = 0; i < m; i++) /* no memcpy: this runs in the sampler's handler */
            f[cut + i] = fk->frames[i];
        n = cut + m;
    }
    /* the wrappers' frames that are left (a task run at the closing barrier
     * of a region, after its body): the path reads as without the runtime */
    int j = 0;
    for (int k = 0; k < n; k++)
        if (!rt_in_wrappers(f[k])) f[j++] = f[k];
    return j;
}
