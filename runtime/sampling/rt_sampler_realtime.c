/* rt_sampler_realtime.c — the realtime sampler: a POSIX timer on the
 * monotonic (wall) clock per thread, so blocked time is sampled too. */
#include "threads/rt_threads.h"
#include "rt_sampler_ops.h"

static int rt_realtime_thread_start(struct rt_thread *t)
{
    rt_timer_arm(t, CLOCK_MONOTONIC, 0);
    return 0;
}

static void rt_realtime_thread_start_other(struct rt_thread *t, pthread_t th)
{
    (void)th;
    rt_timer_arm(t, CLOCK_MONOTONIC, 1);
}

const struct rt_sampler_ops rt_sampler_ops_REALTIME = {.thread_start = rt_realtime_thread_start,
                                                       .thread_start_other = rt_realtime_thread_start_other};
