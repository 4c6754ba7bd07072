/* rt_sampler_ops.h — the sample sources behind one small interface: each line of
 * samplers.def has one struct rt_sampler_ops, in its own file
 * (rt_sampler_<word>.c); rt_sampler.c owns the signal handler and asks them. */
#ifndef SCALANA_RT_SAMPLER_OPS_H
#define SCALANA_RT_SAMPLER_OPS_H

#include "core/rt_core.h"
#include "threads/rt_threads.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>

/** What rt_sampler.c asks a sample source; every member may be NULL (nothing
 *  to do, or the default its comment names). */
struct rt_sampler_ops {
    /** Process-wide set-up when sampling starts, before the handler is
     *  installed: 0, or -1 after one informational line (the run then
     *  samples with cputime). */
    int (*setup)(void);
    /** Starts sampling the calling thread t (sets t->timer_ok): 0 started
     *  (or failed, with one rt_fail line of the source); RT_SAMPLER_FALL_BACK: this
     *  source cannot count here at all, every thread samples with cputime
     *  (after one informational line of the source). */
    int (*thread_start)(struct rt_thread *t);
    /** Starts sampling thread t from another thread (th: its handle),
     *  quietly: t may be exiting.  NULL: a POSIX timer on t's CPU clock. */
    void (*thread_start_other)(struct rt_thread *t, pthread_t th);
    /** Stops thread t's source started by thread_start (t->timer_ok 2 or 3;
     *  a POSIX timer, timer_ok 1, is the caller's). */
    void (*thread_stop)(struct rt_thread *t);
    /** A signal rt_opt.signo that is not a POSIX timer's: 1 when it was this
     *  source's (charged or dropped), 0 to chain it to the application's
     *  disposition.  Async-signal-safe. */
    int (*signal)(siginfo_t *si, void *uc);
};
#define RT_SAMPLER_FALL_BACK 1

/* one object per line of samplers.def: rt_sampler_ops_CPUTIME, ... */
#define SCALANA_SAMPLER(id, NAME, word, clock, arg) RT_HIDDEN extern const struct rt_sampler_ops rt_sampler_ops_##NAME;
#include "scalana/samplers.def"
#undef SCALANA_SAMPLER

/* ---- the sample (rt_sample.c) ------------------------------------------- */
/** Charges one sample of weight periods, taken at pc with signal context uc,
 *  to thread t's calling-context tree (its MPI call's node while inside
 *  MPI).  Counts it taken, or dropped inside the runtime, the loader or
 *  while writing.  Async-signal-safe. */
RT_HIDDEN void rt_sample(struct rt_thread *t, uintptr_t pc, void *uc, uint64_t weight);

/* ---- POSIX timers (rt_sampler_timer.c) -------------------------------------- */
/** The sival_ptr of the runtime's timers: a timer signal carrying it is ours. */
RT_HIDDEN extern int rt_timer_cookie;
/** Arms a POSIX timer on clock clk delivering rt_opt.signo to thread t every
 *  rt_g.period_ns (staggered first expiry); sets t->timer_ok = 1.  A failure
 *  is one rt_fail line unless quiet (another thread's clock, which may be
 *  exiting). */
RT_HIDDEN void rt_timer_arm(struct rt_thread *t, clockid_t clk, int quiet);
/** A POSIX timer on the CPU clock of thread th (quiet); none when th is exiting. */
RT_HIDDEN void rt_timer_arm_cpu_of(struct rt_thread *t, pthread_t th);

#endif
