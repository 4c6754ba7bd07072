/* rt_scratch.c — per-thread scratch memory of the wrappers: private status
 * arrays standing in for MPI_STATUSES_IGNORE, copies of request arrays taken
 * before a call, the Waitall split's bookkeeping.  Grown on demand, freed
 * when the thread exits. */
#include "core/rt_core.h"
#include "threads/rt_threads.h"
#include "rt_mpi.h"

#include <stdlib.h>

struct rt_scratch { void *p[4]; size_t n[4]; };
static RT_TLS struct rt_scratch rt_scr;

void *rt_scratch(int slot, size_t bytes)
{
    if (rt_scr.n[slot] < bytes) {
        size_t want = bytes < 4096 ? 4096 : bytes * 2;
        void *p = realloc(rt_scr.p[slot], want);
        if (!p)
            return NULL;
        rt_scr.p[slot] = p;
        rt_scr.n[slot] = want;
    }
    return rt_scr.p[slot];
}

/* A thread lifecycle hook: the exiting thread's buffers. */
static void rt_scratch_thread_exit(struct rt_thread *t)
{
    (void)t;
    for (int i = 0; i < 4; i++) {
        free(rt_scr.p[i]);
        rt_scr.p[i] = NULL;
        rt_scr.n[i] = 0;
    }
}

const struct rt_thread_hooks rt_scratch_thread_hooks = {NULL, rt_scratch_thread_exit};

MPI_Status *rt_scratch_statuses(struct rt_call *c, int n)
{
    (void)c;
    if (n <= 0)
        return MPI_STATUSES_IGNORE;
    MPI_Status *s = rt_scratch(0, (size_t)n * sizeof(MPI_Status));
    return s ? s : MPI_STATUSES_IGNORE;
}
