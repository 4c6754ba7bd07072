/* rt_perf.h — the taskclock sampler (perf_event task clock), rt_perf.c. */
#ifndef SCALANA_RT_PERF_H
#define SCALANA_RT_PERF_H

#include <signal.h>
#include <stdint.h>

struct rt_thread;
/** 0 when perf_event_open of a task clock works here, else -errno.  Also
 *  decides whether the task clocks rt_perf_thread_start opens sample in kernel
 *  mode too (where allowed: rt_perf.c says why); call it first. */
RT_HIDDEN int rt_perf_available(void);
/** Starts thread t's task-clock sampling (period in ns of its CPU time,
 *  signal signo to the thread).  Sets t->timer_ok = 3.  0, or -1 (errno). */
RT_HIDDEN int rt_perf_thread_start(struct rt_thread *t, uint64_t period_ns, int signo);
RT_HIDDEN void rt_perf_thread_stop(struct rt_thread *t);
/** 1 when si is thread t's task-clock notification. */
RT_HIDDEN int rt_perf_signal_of(const siginfo_t *si, const struct rt_thread *t);
/** 1 when si is a task-clock notification of ours whose thread no longer
 *  samples (pending when its fd closed): dropped, never chained. */
RT_HIDDEN int rt_perf_signal_stale(const siginfo_t *si);
/** Weight of this signal: task-clock periods (of period_ns, nanoseconds)
 *  since the previous one, rounded, at least 1, the remainder carried to
 *  the next, so that a thread's weights sum to its counted CPU time within
 *  a few periods.  Async-signal-safe (read(2), and an ioctl every 4th
 *  signal that sets the next block's period). */
RT_HIDDEN uint64_t rt_perf_weight(struct rt_thread *t, uint64_t period_ns);

#endif
