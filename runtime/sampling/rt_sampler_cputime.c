/* rt_sampler_cputime.c — the cputime sampler (the default): a POSIX timer on
 * each thread's CPU-time clock, checked by the kernel at its ticks (rt_rate.c). */
#include "threads/rt_threads.h"
#include "rt_sampler_ops.h"

static int rt_cputime_thread_start(struct rt_thread *t)
{
    rt_timer_arm(t, CLOCK_THREAD_CPUTIME_ID, 0);
    return 0;
}

/* another thread: rt_sampler.c's default, a timer on that thread's CPU clock */
const struct rt_sampler_ops rt_sampler_ops_CPUTIME = {.thread_start = rt_cputime_thread_start};
