/* rt_sample.c — one sample, whatever its source: charged to the calling
 * context of the interrupted code, or to the MPI call in progress. */
#include "core/rt_core.h"
#include "callpath/rt_callpath.h"
#include "threads/rt_threads.h"
#include "rt_sampler_ops.h"

#include <link.h>

void rt_sample(struct rt_thread *t, uintptr_t pc, void *uc, uint64_t weight)
{
    t->samples_taken++;
    if (t->in_rt || rt_g.writing) {
        t->samples_dropped++;
        return;
    }
    uint32_t mpi_node = t->cur_mpi_node;
    if (mpi_node != PRF_NONE) {
        /* Inside MPI: the wrappers time the call; charge its context. */
        struct rt_cct_node *n = &t->cct.nodes[mpi_node];
        n->mpi_samples++;
        n->mpi_weight += weight;
        t->samples_weight += weight;
        return;
    }
    if (_r_debug.r_state != RT_CONSISTENT || (pc >= rt_g.ldso_lo && pc < rt_g.ldso_hi) ||
        (pc >= rt_g.self_lo && pc < rt_g.self_hi)) {
        t->samples_dropped++; /* in dlopen / the loader / the runtime */
        return;
    }
    t->in_rt = 1;
    /* The path of the interrupted code, unwound from the signal's context
     * (not from the handler through the kernel's trampoline). */
    void *buf[RT_MAX_DEPTH];
    int truncated = 0;
    int n = rt_unwind_signal_context(uc, buf, RT_MAX_DEPTH, &truncated);
    if (n <= 0) {
        buf[0] = (void *)pc; /* no unwind information: the PC alone */
        n = 1;
        truncated = 0;
    }
    n = rt_omp_path_fix(buf, n, RT_MAX_DEPTH, &truncated); /* an OpenMP team's thread: its region */
    uint32_t node = rt_cct_insert(&t->cct, buf, n, PRF_CCT_PC, truncated);
    struct rt_cct_node *nd = &t->cct.nodes[node];
    nd->samples++;
    nd->weight += weight;
    t->samples_weight += weight;
    t->in_rt = 0;
}
