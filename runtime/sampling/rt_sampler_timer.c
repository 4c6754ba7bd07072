/* rt_sampler_timer.c — the POSIX timers of the cputime and realtime samplers
 * (and of threads a PAPI event set cannot follow): one per thread,
 * thread-directed, with staggered first expiries. */
#include "core/rt_core.h"
#include "threads/rt_threads.h"
#include "rt_sampler_ops.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int rt_timer_cookie;

void rt_timer_arm(struct rt_thread *t, clockid_t clk, int quiet)
{
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = rt_opt.signo;
    sev._sigev_un._tid = t->tid;
    sev.sigev_value.sival_ptr = &rt_timer_cookie;
    if (timer_create(clk, &sev, &t->timer) != 0) {
        if (!quiet) /* quiet: another thread's clock, which may be exiting */
            rt_fail("sampler", "timer_create: %s", strerror(errno));
        return;
    }
    struct itimerspec its;
    uint64_t p = rt_g.period_ns;
    its.it_interval.tv_sec = (time_t)(p / 1000000000ull);
    its.it_interval.tv_nsec = (long)(p % 1000000000ull);
    /* Stagger the first expiry so wall-clock timers of threads and ranks do
     * not fire in lock step. */
    uint64_t first = p / 2 + (p / 2) * ((t->index * 7u + rt_g.world_rank * 13u) % 16u) / 16u;
    its.it_value.tv_sec = (time_t)(first / 1000000000ull);
    its.it_value.tv_nsec = (long)(first % 1000000000ull);
    if (timer_settime(t->timer, 0, &its, NULL) != 0) {
        if (!quiet)
            rt_fail("sampler", "timer_settime: %s", strerror(errno));
        timer_delete(t->timer);
        return;
    }
    t->timer_ok = 1;
    if (getenv("SCALANA_DEBUG"))
        rt_log("debug: thread %u (tid %d) timer armed, first %llu ns", t->index, (int)t->tid,
               (unsigned long long)first);
}

void rt_timer_arm_cpu_of(struct rt_thread *t, pthread_t th)
{
    clockid_t clk;
    if (pthread_getcpuclockid(th, &clk) != 0)
        return; /* the thread is exiting */
    rt_timer_arm(t, clk, 1);
}
