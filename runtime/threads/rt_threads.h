/* rt_threads.h — the threads room's interface (runtime/threads/): each
 * measured thread's state and lifecycle hooks, its computation intervals,
 * loop work counters, OpenMP tables (OMPT) and alternate signal stack.  Uses
 * the call-path and core rooms. */
#ifndef SCALANA_RT_THREADS_H
#define SCALANA_RT_THREADS_H

#include "core/rt_core.h"
#include "callpath/rt_callpath.h"

/* ---- computation intervals (rt_interval.c) ---------------------------------
 * Per thread, the time from the exit of one MPI wrapper to the entry of the
 * next, aggregated per (previous context, next context) in a per-thread
 * table: no locks, bounded by the distinct pairs (RT_IV_MAX_PAIRS). */
struct rt_thread;
#define RT_IV_MAX_PAIRS 16384u  /* per thread; later pairs are counted in overflow */
#define RT_IV_LONG_SLOTS 256u   /* contexts remembered as "followed by a long interval" */
struct rt_iv_pair {
    uint32_t prev, next;      /* context ids (rt_ctx index), PRF_NONE: thread start/end */
    uint64_t count;           /* 0: empty slot */
    uint64_t ticks, min_ticks, max_ticks;
    double sq_ticks;          /* sum of squared ticks */
    uint64_t cpu_ns, cpu_count, cpu_ticks, cpu_samples;
};
enum rt_iv_state { RT_IV_IDLE = 0, RT_IV_OPEN = 1, RT_IV_LOST = 2 };
struct rt_iv_thread {
    uint32_t state;           /* enum rt_iv_state: IDLE inside a call, before activation, after
                                 MPI_Finalize; LOST after a call without context (OOM) */
    uint32_t prev;            /* context the open interval started after, PRF_NONE: thread start */
    uint64_t t0;              /* ticks when it started */
    uint64_t cpu0;            /* thread CPU clock (ns) then, UINT64_MAX when not read */
    uint64_t sig0;            /* cpu_signals then */
    struct rt_iv_pair *pairs; /* open addressing, mask + 1 slots (malloc'ed by the owner) */
    uint32_t mask, n;
    uint64_t overflow, dropped;
    uint32_t long_after[RT_IV_LONG_SLOTS]; /* ctx + 1 whose last following interval was long */
};
/** Options and the "long" threshold in ticks: at activation (after rt_options_read). */
RT_HIDDEN void rt_iv_init(void);
/** Opens thread t's first interval (registration; prev = PRF_NONE); own:
 *  called on t itself (else its CPU clock cannot be read). */
RT_HIDDEN void rt_iv_thread_start(struct rt_thread *t, int own);
/** Closes the open interval at the entry of an MPI call with context ctx
 *  (PRF_NONE: the thread's end);
 *  now: ticks read first thing in the wrapper, sig: cpu_signals then, cpu:
 *  the thread CPU clock then (only used when the interval start read it). */
RT_HIDDEN void rt_iv_end(struct rt_thread *t, uint32_t ctx, uint64_t now, uint64_t sig, uint64_t cpu);
/** At the entry of an MPI call whose context could not be recorded (out of
 *  memory): the open interval is counted as dropped. */
RT_HIDDEN void rt_iv_drop(struct rt_thread *t);
/** Opens the interval after the MPI call with context ctx (last thing in the wrapper). */
RT_HIDDEN void rt_iv_begin(struct rt_thread *t, uint32_t ctx);
/** Closes the open interval with next = PRF_NONE (thread exit, profile write without
 *  MPI_Finalize) and stops recording on t. */
RT_HIDDEN void rt_iv_thread_end(struct rt_thread *t);
/** The calling thread's CPU clock in ns (CLOCK_THREAD_CPUTIME_ID, a system call). */
RT_HIDDEN uint64_t rt_thread_cpu_ns(void);
/** Mode (enum prf_interval_cpu) and whether intervals are recorded at all. */
RT_HIDDEN extern int rt_iv_enabled;
RT_HIDDEN extern uint32_t rt_iv_cpu_mode;
RT_HIDDEN extern uint64_t rt_iv_long_ns;

/* ---- loop work counters (rt_work.c) ---------------------------------------- */
/** On a thread the application created, before its start routine: notes
 *  where the thread keeps the counters of every unit registered so far. */
RT_HIDDEN void rt_work_thread_begin(void);
/** On that thread as it ends (a pthread cleanup handler: arg unused): keeps a
 *  copy of its counters, whose thread-local storage goes with it. */
RT_HIDDEN void rt_work_thread_end(void *unused);
/** Fills d's PRF_REC_WORK (has_work, work_info, work: malloc'ed, the caller
 *  frees d->work) from every thread's counters; thread indexes come from
 *  byidx (nthreads states by index).  Leaves d alone when no unit
 *  registered.  Returns 0, or -1 when memory runs out. */
RT_HIDDEN int rt_work_encode(struct prf_rank_data *d, struct rt_thread *const *byidx,
                             uint32_t nthreads);

/* ---- OpenMP through OMPT (rt_ompt.c) ----------------------------------------- */
/** Fills d's PRF_REC_OMP (has_omp, omp_info, omp: malloc'ed, the caller frees
 *  d->omp) from every thread's OpenMP tables; base[i] is thread i's first
 *  node in the profile's tree (nthreads entries).  Leaves d alone when no
 *  OpenMP runtime with OMPT started the tool.  0, or -1 without memory. */
RT_HIDDEN int rt_omp_encode(struct prf_rank_data *d, const uint32_t *base, uint32_t nthreads);

/* ---- the region a thread of an OpenMP team works in (rt_omp_path.c) --------
 * A worker's own stack ends in the OpenMP runtime's thread start: it does not
 * say which fork started the body it runs, and a pooled worker runs the
 * bodies of every region.  The fork's call path is taken once per fork, on
 * the master (rt_gomp.c for libgomp, rt_ompt.c's parallel_begin for libomp),
 * and every path a thread of the team records (samples, MPI calls, nested
 * forks) continues it below the body (docs/runtime.md, "The region's
 * calling context"). */
struct rt_omp_fork {
    void *frames[RT_MAX_DEPTH]; /* the master's path at the fork, leaf first: the fork call's
                                   return address in the code holding the pragma */
    int n, truncated;           /* n = 0: not taken (the thread's paths stay as unwound) */
};
/** The fork of the region whose body the calling thread runs, or NULL
 *  (defined in rt_omp_path.c, which reads them; set by the side that knows):
 *  rt_gomp_fork by rt_gomp.c's body wrapper around the body (libgomp),
 *  rt_ompt_fork by rt_ompt.c's implicit_task begin (libomp). */
RT_HIDDEN extern RT_TLS const struct rt_omp_fork *rt_gomp_fork;
RT_HIDDEN extern RT_TLS const struct rt_omp_fork *rt_ompt_fork;
/** Rewrites a path (frames[0..n), leaf first, cap slots) the calling thread
 *  just unwound: below the body of its current region the frames of the
 *  OpenMP runtime's thread start (or of the master's fork call) are replaced
 *  by that region's fork path, and the frames of rt_gomp.c's wrappers are
 *  removed.  Returns the new length; *truncated is set when the fork path
 *  was truncated or did not fit.  Async-signal-safe, no allocation. */
RT_HIDDEN int rt_omp_path_fix(void **frames, int n, int cap, int *truncated);

/* ---- threads (rt_thread.c) ------------------------------------------------ */
struct rt_thread {
    uint32_t index;           /* ROOT address and prf_sample.thread */
    uint32_t kind;            /* enum prf_thread_kind */
    uint32_t creator_node;    /* PRF_NONE, or node in the creator's tree */
    uint32_t creator_thread;
    pid_t tid;
    volatile int in_rt;       /* inside runtime code: the sampler drops */
    int depth;                /* MPI wrapper nesting (tool and library calls pass through) */
    volatile uint32_t cur_mpi_node; /* node of the MPI call in progress or PRF_NONE */
    uint64_t req_seq0;        /* rt_req_seq() at the entry of the call in progress */
    struct rt_cct cct;
    /* sampling */
    timer_t timer; int timer_ok; /* 1 POSIX timer, 2 PAPI, 3 perf task clock (perf_fd) */
    int sig_parked;           /* not sampled: the thread blocks the sampling signal (rt_sigmask.c) */
    int perf_fd; uint64_t perf_last; /* taskclock sampler (rt_perf.c) */
    int64_t perf_carry; uint64_t perf_rng; /* its CPU ns not yet weighed; its jitter's state */
    uint64_t perf_period; uint32_t perf_signals; /* the period in force (ns); signals since the start */
    int papi_eventset;
    uint64_t samples_taken, samples_weight, samples_dropped, samples_overrun;
    volatile uint64_t cpu_signals; /* CPU-time sampler periods delivered (1 + overrun each,
                                      dropped ones too): read at each MPI call (rt_interval.c) */
    struct rt_iv_thread iv;   /* computation intervals (rt_interval.c) */
    int in_use;               /* 0 when the thread exited (state kept for writing / reuse) */
    struct rt_thread *next;
};
RT_HIDDEN extern RT_TLS struct rt_thread *rt_self;
/** The calling thread's state, registering it if needed (not from a signal
 *  handler).  NULL only when memory for it cannot be mapped. */
RT_HIDDEN struct rt_thread *rt_thread_get(void);
RT_HIDDEN struct rt_thread *rt_thread_list(void); /* all states ever created */
/** The state prepared at activation for a thread started before it, adopted
 *  by the calling thread (async-signal-safe); NULL when there is none. */
RT_HIDDEN struct rt_thread *rt_thread_self_slow(void);
/** At activation: states and timers for the application's threads started
 *  while the runtime was inert. */
RT_HIDDEN void rt_thread_start_pending(void);
/** What a part with per-thread state does when an application thread starts
 *  being measured and when it exits (either may be NULL).  start: on t
 *  itself (own 1), or from the activating thread for a thread that started
 *  while the runtime was inert (own 0, th its handle).  exit: on the exiting
 *  thread, t->in_rt set, before its state is released for reuse.  Each runs
 *  in the order the hooks were added. */
struct rt_thread_hooks {
    void (*start)(struct rt_thread *t, pthread_t th, int own);
    void (*exit)(struct rt_thread *t);
};
#define RT_THREAD_HOOKS_MAX 8
/** Adds h (kept by pointer) to the list: at load time, before any thread is
 *  measured (rt_load.c).  Beyond RT_THREAD_HOOKS_MAX (a programming error)
 *  h is dropped with one rt_fail line. */
RT_HIDDEN void rt_thread_hooks_add(const struct rt_thread_hooks *h);
/** The hooks of the sampler (rt_sampler.c: timer start and stop) and of the
 *  computation intervals (rt_interval.c: the thread's last interval). */
RT_HIDDEN extern const struct rt_thread_hooks rt_sampler_thread_hooks;
RT_HIDDEN extern const struct rt_thread_hooks rt_iv_thread_hooks;
RT_HIDDEN uint32_t rt_thread_count(void);
RT_HIDDEN void rt_thread_lock(void);
RT_HIDDEN void rt_thread_unlock(void);

/* ---- alternate signal stacks (rt_altstack.c) ------------------------------------ */
/** Gives the calling thread an alternate signal stack for the sampler's
 *  handler (64 KiB and a guard page), unless it has one.  Returns the mapping
 *  for rt_altstack_end, or NULL (none made: the handler then runs on the
 *  thread's own stack). */
RT_HIDDEN void *rt_altstack_begin(void);
/** Removes the calling thread's stack from rt_altstack_begin (NULL: nothing);
 *  the mapping is kept for the next thread. */
RT_HIDDEN void rt_altstack_end(void *mem);

#endif
