/* rt_sampling.h — the sampling room's interface (runtime/sampling/): the
 * sampling signal, its sources (rt_sampler_ops.h) and the per-thread timers.
 * Uses the threads, call-path and core rooms. */
#ifndef SCALANA_RT_SAMPLING_H
#define SCALANA_RT_SAMPLING_H

#include "core/rt_core.h"
#include "threads/rt_threads.h"

/* ---- sampling (rt_sampler.c; the sources: rt_sampler_ops.h) ---------------- */
/** Installs the signal handler and starts the per-thread timers (sampler
 *  from rt_opt).  Failures disable sampling with one line. */
RT_HIDDEN void rt_sampler_start(void);
/** Starts sampling the calling thread (after rt_sampler_start). */
RT_HIDDEN void rt_sampler_thread_start(struct rt_thread *t);
/** Starts sampling thread t from another thread (th: its pthread handle). */
RT_HIDDEN void rt_sampler_thread_start_other(struct rt_thread *t, pthread_t th);
/** Stops this thread's timer (thread exit). */
RT_HIDDEN void rt_sampler_thread_stop(struct rt_thread *t);
/** The calling thread t blocks the sampling signal from now on: its
 *  sampling stops (before the block takes effect) until it unblocks it. */
RT_HIDDEN void rt_sampler_thread_park(struct rt_thread *t);
/** The calling thread t unblocked the sampling signal: sampling it starts
 *  again (when it was parked and sampling is on). */
RT_HIDDEN void rt_sampler_thread_unpark(struct rt_thread *t);

/** Stops all sampling and waits for handlers in flight. */
RT_HIDDEN void rt_sampler_stop(void);
RT_HIDDEN const char *rt_sampler_name(void); /* "cputime", "realtime", "taskclock", "papi:EV", "none" */
/** The sampler in use (enum prf_sampler, after fallbacks; NONE before sampling starts). */
RT_HIDDEN int rt_sampler_kind_now(void);

#endif
