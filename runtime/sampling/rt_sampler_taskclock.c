/* rt_sampler_taskclock.c — the taskclock sampler: a perf_event task clock per
 * thread (rt_perf.c), its CPU time at high resolution; each signal weighs
 * the task-clock periods since the previous one. */
#include "core/rt_core.h"
#include "threads/rt_threads.h"
#include "rt_perf.h"
#include "rt_sampler_ops.h"

#include <errno.h>
#include <string.h>
#include <ucontext.h>

static int rt_taskclock_setup(void)
{
    int e = rt_perf_available();
    if (e != 0) {
        rt_info("perf_event task clock unavailable (%s): sampling with the cputime timer instead", strerror(-e));
        return -1;
    }
    return 0;
}

static int rt_taskclock_thread_start(struct rt_thread *t)
{
    if (rt_perf_thread_start(t, rt_g.period_ns, rt_opt.signo) != 0)
        rt_fail("sampler", "perf_event task clock on thread %u: %s", t->index, strerror(errno));
    return 0;
}

static void rt_taskclock_thread_start_other(struct rt_thread *t, pthread_t th)
{
    (void)th;
    (void)rt_perf_thread_start(t, rt_g.period_ns, rt_opt.signo); /* may be exiting */
}

/* The task clock's signal: charged like a timer's, its weight the task-clock
 * periods since the previous one. */
static int rt_taskclock_signal(siginfo_t *si, void *ucv)
{
    struct rt_thread *t = rt_self;
    if (!t && rt_g.sampling)
        t = rt_thread_self_slow(); /* started before the runtime activated */
    if (!rt_perf_signal_of(si, t))
        return rt_perf_signal_stale(si);
    if (rt_g.sampling && t->cct.nodes) {
        __atomic_add_fetch(&rt_g.in_flight, 1, __ATOMIC_ACQUIRE);
        ucontext_t *uc = ucv;
        uint64_t w = rt_perf_weight(t, rt_g.period_ns);
        t->samples_overrun += w - 1;
        t->cpu_signals += w;
        rt_sample(t, (uintptr_t)uc->uc_mcontext.gregs[REG_RIP], uc, w);
        __atomic_sub_fetch(&rt_g.in_flight, 1, __ATOMIC_RELEASE);
    }
    return 1;
}

const struct rt_sampler_ops rt_sampler_ops_TASKCLOCK = {
    .setup = rt_taskclock_setup,
    .thread_start = rt_taskclock_thread_start,
    .thread_start_other = rt_taskclock_thread_start_other,
    .thread_stop = rt_perf_thread_stop,
    .signal = rt_taskclock_signal,
};
