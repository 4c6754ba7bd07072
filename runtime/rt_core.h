/* rt_core.h — internal interfaces of the runtime that do not depend on mpi.h:
 * threads, calling-context trees, sampling, aggregated MPI statistics,
 * options, messages.  Everything here is hidden (not exported from the .so). */
#ifndef SCALANA_RT_CORE_H
#define SCALANA_RT_CORE_H

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "scalana/profile_format.h"

#define RT_HIDDEN __attribute__((visibility("hidden")))
#define RT_EXPORT __attribute__((visibility("default")))
#define RT_TLS __thread __attribute__((tls_model("initial-exec")))
#define RT_LIKELY(x) __builtin_expect(!!(x), 1)
#define RT_UNLIKELY(x) __builtin_expect(!!(x), 0)

#define RT_MAX_DEPTH 128 /* frames unwound per sample / per MPI call */

/* ---- options (rt_options.c) ---------------------------------------------- */
struct rt_options {
    int sampler;            /* enum prf_sampler */
    char sampler_arg[64];   /* what follows "word:" (papi:<EVENT>), else "" */
    unsigned freq;          /* samples per second, clamped */
    int signo;              /* sampling signal */
    int waitall_split;      /* complete Waitall through Waitsome */
    uint32_t cct_nodes;     /* per-thread node cap */
    const char *output;     /* SCALANA_OUTPUT or NULL */
    int quiet;              /* SCALANA_QUIET: no informational lines */
    int intervals;          /* SCALANA_INTERVALS: -1 off, else enum prf_interval_cpu */
    uint64_t interval_long_ns; /* SCALANA_INTERVAL_LONG_US in ns */
};
RT_HIDDEN extern struct rt_options rt_opt;
/* 4M nodes of 48 bytes: at most 192 MiB per thread, mapped as the tree grows
 * (rt_cct.c); the former fixed pool of 262144 nodes overflowed at about
 * 120,000 MPI contexts with 10-frame paths, merging their paths. */
#define RT_CCT_NODES_DEFAULT 4194304u
/** SCALANA_CCT_NODES without a message (threads registered before the
 *  options are read: the main thread at MPI_Init). */
RT_HIDDEN uint32_t rt_options_cct_nodes(void);
/** Reads the SCALANA_* environment into rt_opt (defaults, clamping, one line
 *  for each invalid value).  Called once at activation. */
RT_HIDDEN void rt_options_read(void);
/** Whether SCALANA is off (off, 0, no, false): the runtime then stays inert
 *  from load on and writes nothing. */
RT_HIDDEN int rt_options_off(void);
/** Whether on/off variable name says off (off, 0, no, false in any case),
 *  without a warning (rt_options_read checks the value). */
RT_HIDDEN int rt_env_says_off(const char *name);
/** Prints the options table (name, default, help) to stderr. */
RT_HIDDEN void rt_options_help(void);
/** Call-path method (SCALANA_CALLPATH): auto (frame pointers + cached
 *  libunwind, else unw_backtrace), libunwind (unw_backtrace on every call),
 *  nocache (frame pointers, else unw_backtrace; for measurements). */
enum rt_callpath_mode { RT_CALLPATH_AUTO = 0, RT_CALLPATH_UNWIND = 1, RT_CALLPATH_NOCACHE = 2 };
RT_HIDDEN extern int rt_callpath_mode; /* rt_options.c */

/** SCALANA_DEBUG (rt_path.c): one line with the calling thread's call paths by method. */
RT_HIDDEN void rt_callpath_debug(void);

/* ---- messages and failures (rt_log.c) ------------------------------------ */
/** One line "scalana: <msg>" on stderr (async-signal-safe write). */
RT_HIDDEN void rt_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** An informational line: printed by world rank 0 only, not with SCALANA_QUIET=1. */
RT_HIDDEN void rt_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** Records that part failed (PRF_REC_ERRORS) and prints one line, once per part. */
RT_HIDDEN void rt_fail(const char *part, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** Records a failure without printing (the caller printed its own line). */
RT_HIDDEN void rt_fail_record(const char *part, const char *message);
/** Whether part has failed in this process (recorded by rt_fail or
 *  rt_fail_record, printed or not). */
RT_HIDDEN int rt_failed(const char *part);
/** While set, rt_fail records without printing: a step that every rank
 *  performs prints its failures once for the run afterwards (the lowest
 *  failing world rank: rt_fail_once, rt_activate.c). */
RT_HIDDEN extern volatile int rt_fail_quiet;
/** A warning: the runtime works on, its numbers may be incomplete.  Printed
 *  once per distinct text ("scalana: warning: ..."; by world rank 0 only
 *  unless all_ranks) and listed in run.json's "warnings" (rt_warn.c). */
RT_HIDDEN void rt_warn(int all_ranks, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** The warnings so far (at most 8), for run.json. */
RT_HIDDEN const char *const *rt_warnings(uint32_t *count);
RT_HIDDEN void rt_modules_find_self(void);
struct rt_error { char part[16]; char message[160]; };
RT_HIDDEN extern struct rt_error rt_errors[16];
RT_HIDDEN extern unsigned rt_error_count;

/* ---- time ------------------------------------------------------------------ */
static inline uint64_t rt_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
static inline uint64_t rt_realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Durations measured inside the MPI wrappers are in ticks: the TSC where it
 * is invariant (about 25 ns to read here, against 75 ns for clock_gettime in
 * this VM), nanoseconds otherwise.  rt_profile.c converts them with
 * rt_ns_per_tick(), calibrated over the whole run (rt_time.c). */
RT_HIDDEN extern int rt_use_tsc;
static inline uint64_t rt_ticks(void)
{
    if (RT_LIKELY(rt_use_tsc)) {
        uint32_t lo, hi;
        __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
        return (uint64_t)hi << 32 | lo;
    }
    return rt_now_ns();
}
RT_HIDDEN double rt_ns_per_tick(void);
RT_HIDDEN void rt_ticks_init(void);
static inline uint64_t rt_ticks_to_ns(uint64_t t, double f) { return (uint64_t)((double)t * f + 0.5); }

/* ---- calling-context tree (rt_cct.c) --------------------------------------
 * One tree per thread, in memory mapped at thread registration (the signal
 * handler never allocates).  Node 0 is the thread's ROOT.  Addresses are
 * absolute here; rt_profile.c makes them module-relative when writing. */
struct rt_cct_node {
    uint64_t address;
    uint32_t parent;
    uint32_t kind;            /* enum prf_cct_kind */
    uint64_t samples, weight; /* samples that ended here (not in MPI) */
    uint64_t mpi_samples, mpi_weight; /* samples inside the MPI call of this call site */
};
struct rt_cct {
    struct rt_cct_node *nodes;
    uint32_t *slots;          /* open addressing: node index + 1, 0 = empty */
    uint32_t count, cap, slot_mask;
    uint32_t cap_max;         /* the pool and index grow (doubling) up to this many nodes */
    uint32_t overflow_node;   /* PRF_NONE until first needed */
    uint64_t overflow;        /* frames charged to the overflow node */
};
/** A tree holding up to cap nodes (SCALANA_CCT_NODES) before the overflow
 *  node: mapped small (at most RT_CCT_INITIAL nodes) and doubled on demand,
 *  by whichever inserter finds it full (a wrapper or the sampling handler of
 *  the owning thread: in_rt keeps them apart).  0, or -1 without memory. */
#define RT_CCT_INITIAL 65536u
RT_HIDDEN int rt_cct_init(struct rt_cct *c, uint32_t cap, uint32_t thread_index);
/** Inserts the path frames[n-1] (outermost) .. frames[0] (leaf) below the
 *  root; the leaf gets leaf_kind, the others PRF_CCT_CALLSITE.  truncated:
 *  the outermost frames were cut (an OVERFLOW node goes first).  Returns the
 *  leaf node.  Async-signal-safe; never allocates. */
RT_HIDDEN uint32_t rt_cct_insert(struct rt_cct *c, void *const *frames, int n, uint32_t leaf_kind,
                                 int truncated);

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

/* ---- global state (rt_log.c) ---------------------------------------------- */
enum rt_state_kind { RT_INERT = 0, RT_ON = 1, RT_WRITTEN = 2, RT_REFUSED = 3, RT_CHILD = 4 };
struct rt_global {
    volatile int state;       /* enum rt_state_kind */
    volatile int sampling;    /* the handler records */
    volatile int writing;     /* the writer runs: the handler drops */
    volatile int in_flight;   /* handlers running */
    int mt;                   /* MPI_THREAD_MULTIPLE: lock shared tables */
    int thread_level;
    uint32_t world_rank, world_size;
    uint32_t ranks_on_host;   /* world ranks on this host (MPI_Comm_split_type SHARED) */
    uint32_t usable_cores;    /* CPUs in the union of the affinity masks of this host's
                                 ranks, capped at the online CPUs (rt_host_usable_cores) */
    uint64_t start_realtime_ns, start_ns;
    uint64_t mpi_time_ticks;  /* summed in rt_stats */
    uint32_t flags;           /* enum prf_rank_flags */
    char hostname[64];
    char run_dir[4096];
    const char *mpi_library;  /* "openmpi" / "mpich" */
    uintptr_t self_lo, self_hi; /* text of this library (frames to skip) */
    uintptr_t ldso_lo, ldso_hi; /* text of the dynamic loader (samples dropped) */
    uint64_t period_ns;
    int writer_off;           /* the run directory is unusable: nothing is written
                                 (decided by rank 0 at activation, one line) */
};
RT_HIDDEN extern struct rt_global rt_g;
RT_HIDDEN void rt_spin_lock(volatile int *l);
RT_HIDDEN void rt_spin_unlock(volatile int *l);

/** Captures the calling thread's call path without the runtime's own frames
 *  (frames[0] is the innermost frame outside the runtime, a return address).
 *  Returns the number of frames; *truncated set when the cap was reached. */
RT_HIDDEN int rt_capture_path(void **frames, int cap, int *truncated);
/** Unwinds the path interrupted by a signal from the handler's ucontext
 *  (frames[0] = the interrupted PC, then return addresses outwards; no
 *  handler or trampoline frames).  Async-signal-safe (libunwind local
 *  unwinding, no malloc).  Returns the number of frames (0 when the context
 *  cannot be unwound); *truncated set when more than cap frames remained. */
RT_HIDDEN int rt_unwind_signal_context(void *ucontext, void **frames, int cap, int *truncated);
RT_HIDDEN uint64_t rt_path_hash(void *const *frames, int n);
struct dl_phdr_info;
/** The first ELF note of a loaded object (dl_iterate_phdr's info) with this
 *  type and name (namesz counts the NUL, as the note header does),
 *  bounds-checked against its PT_NOTE segment: its descriptor and
 *  *descsz, or NULL (rt_modules.c). */
RT_HIDDEN const unsigned char *rt_find_note(const struct dl_phdr_info *info, uint32_t type, const char *name,
                                            uint32_t namesz, uint32_t *descsz);

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

/* ---- aggregated MPI statistics (rt_stats.c) ------------------------------- */
struct rt_ctx {
    uint64_t key;             /* path hash mixed with op and comm */
    uint32_t thread, node;    /* CCT node in that thread's tree */
    uint32_t op, flags;
    uint64_t comm_id;
    uint64_t calls, bytes_sent, bytes_received, time_ns, max_time_ns, min_time_ns;
};
struct rt_peer {
    uint32_t ctx; int32_t peer; int32_t tag; uint32_t flags; uint64_t comm_id;
    uint64_t count, bytes, time_ns, last_count, last_wait_ns;
};
struct rt_comm_rec {
    uint64_t comm_id;
    uint32_t size, remote_size, local_rank, flags;
    uint32_t *world;          /* size local members then remote_size remote, world ranks */
    char name[32];
};
/** Finds or creates the context of (thread t, call path, op, comm_id).
 *  Returns its index or UINT32_MAX when memory is exhausted. */
RT_HIDDEN uint32_t rt_ctx_get(struct rt_thread *t, void *const *frames, int n, int truncated,
                              uint32_t op, uint64_t comm_id, uint32_t flags, uint32_t *node);
/** Adds bytes to a context without counting a call (persistent starts,
 *  receives completed later). */
RT_HIDDEN void rt_ctx_bytes(uint32_t ctx, uint64_t sent, uint64_t received);
RT_HIDDEN struct rt_ctx *rt_ctx_at(uint32_t i);
RT_HIDDEN void rt_ctx_add(uint32_t ctx, uint64_t time_ns, uint64_t sent, uint64_t received);
/** Adds time_ns (ns) of communication to a context without counting a call:
 *  the completion of a persistent collective, charged at its start's
 *  context.  The context's largest call time grows to at least time_ns. */
RT_HIDDEN void rt_ctx_time(uint32_t ctx, uint64_t time_ns);
RT_HIDDEN void rt_peer_add(uint32_t ctx, int32_t peer, int32_t tag, uint64_t comm_id,
                           uint32_t dir, uint64_t bytes, uint64_t time_ns, int last,
                           uint64_t last_wait_ns);
RT_HIDDEN void rt_stats_lock(void);
RT_HIDDEN void rt_stats_unlock(void);
RT_HIDDEN struct rt_ctx *rt_ctx_array(uint32_t *count);
RT_HIDDEN struct rt_peer *rt_peer_array(uint32_t *count);
/** Adds a communicator record (copied).  Returns it, or NULL when the table
 *  is full (counted, one line). */
RT_HIDDEN struct rt_comm_rec *rt_comm_rec_add(const struct rt_comm_rec *r);
RT_HIDDEN struct rt_comm_rec *rt_comm_rec_array(uint32_t *count);

/* ---- requests (rt_req.c) ---------------------------------------------------
 * Non-blocking operations remembered at start, charged at completion. */
enum rt_req_kind {
    RT_REQ_SEND = 1, RT_REQ_RECV = 2, RT_REQ_OTHER = 3, RT_REQ_MESSAGE = 4,
    RT_REQ_SENDRECV = 5, /* MPI_Isendrecv(_replace): a send (peer, tag, bytes) and a receive (rpeer, rtag) */
    RT_REQ_COLL = 6      /* a persistent collective: op, bytes sent and rbytes received per start */
};
#define RT_NO_PEER INT32_MIN /* MPI_PROC_NULL: nothing to charge */
struct rt_req {
    uintptr_t key;            /* request handle; 0 = empty slot */
    uint32_t ctx;
    uint32_t kind;            /* enum rt_req_kind */
    int32_t peer;             /* world rank, PRF_ANY_RANK when from the status */
    int32_t tag;
    uint64_t comm_id;
    const struct rt_comm_rec *comm; /* for ANY_SOURCE translation */
    uint64_t bytes;           /* send bytes, or receive capacity */
    uint64_t seq;             /* order of insertion (rt_req_seq) */
    uint64_t rbytes;          /* RT_REQ_COLL: bytes received per start; RT_REQ_SENDRECV: receive capacity */
    int32_t rpeer, rtag;      /* RT_REQ_SENDRECV: the receive's source (world rank) and tag */
    uint32_t op;              /* RT_REQ_COLL: the *_init call's code */
    uint8_t persistent, active, tombstone;
    uint8_t fixed;            /* a partitioned receive: peer, tag and bytes known at init */
};
/** A new entry for key, the newest of its key; an older live entry of the
 *  same key stays (the library freed that handle and gave it out again
 *  before the completion that freed it was charged, on another thread), at
 *  most RT_REQ_SAME_KEY of them.  NULL when out of memory.  Lock held. */
RT_HIDDEN struct rt_req *rt_req_insert(uintptr_t key);
#define RT_REQ_SAME_KEY 4
/** The newest live entry of key, or NULL.  Lock held. */
RT_HIDDEN struct rt_req *rt_req_find(uintptr_t key);
/** The newest live entry of key inserted at or before sequence number seq
 *  (rt_req_seq at the entry of the completing call: a handle given out
 *  again after that belongs to a later request), or NULL.  Lock held. */
RT_HIDDEN struct rt_req *rt_req_find_before(uintptr_t key, uint64_t seq);
/** The sequence number of the latest insertion (atomic; no lock). */
RT_HIDDEN uint64_t rt_req_seq(void);
RT_HIDDEN void rt_req_remove(struct rt_req *r);
RT_HIDDEN void rt_req_lock(void);
RT_HIDDEN void rt_req_unlock(void);

/* ---- phases (rt_phase.c) ----------------------------------------------------- */
struct rt_phase_rec { char name[64]; uint32_t thread, node; uint64_t count, time_ns; };
RT_HIDDEN struct rt_phase_rec *rt_phase_array(uint32_t *count);
RT_HIDDEN void rt_phase_event(const char *name, int begin);
/** Closes every phase still open on any thread (at the profile write: at is
 *  "MPI_Finalize", "exit" or "MPI_Abort"), counting each once with its time
 *  so far; one warning unless only MPI_Pcontrol levels were open. */
RT_HIDDEN void rt_phase_close_all(const char *at);

/* ---- collectors (rt_collector.c) ------------------------------------------ */
struct rt_gpu_rec { uint32_t thread, node, kind, device; char name[96];
                    uint64_t count, time_ns, bytes, max_time_ns; };
RT_HIDDEN struct rt_gpu_rec *rt_gpu_array(uint32_t *count);
RT_HIDDEN void rt_collectors_flush(void);

/* ---- modules and the profile (rt_profile.c, rt_modules.c) ------------------ */
struct rt_module { uintptr_t lo, hi, base; char path[512]; char build_id[41]; int used; uint32_t index; };
/** Snapshot of the loaded objects' executable segments (not async-signal-safe). */
RT_HIDDEN int rt_modules_load(struct rt_module **mods, uint32_t *count);
RT_HIDDEN const struct rt_module *rt_module_find(struct rt_module *mods, uint32_t count, uintptr_t a);
/** The running executable's build-id as hex into out (n bytes; "" when it
 *  has none). */
RT_HIDDEN void rt_build_id_of_self_exe(char *out, size_t n);
/** The executable's path, read at start-up (before the file can be removed)
 *  and without the kernel's " (deleted)" suffix. */
RT_HIDDEN void rt_exe_path(char *out, size_t n);
/** 1 when the executable file was removed or replaced while the process ran. */
RT_HIDDEN int rt_exe_deleted(void);

/** Builds this rank's profile section (malloc'ed) from the runtime state.
 *  flags: enum prf_rank_flags of how it is written. */
RT_HIDDEN int rt_profile_encode(uint32_t flags, unsigned char **out, size_t *bytes);

/* ---- alternate signal stacks (rt_altstack.c) ------------------------------------ */
/** Gives the calling thread an alternate signal stack for the sampler's
 *  handler (64 KiB and a guard page), unless it has one.  Returns the mapping
 *  for rt_altstack_end, or NULL (none made: the handler then runs on the
 *  thread's own stack). */
RT_HIDDEN void *rt_altstack_begin(void);
/** Removes the calling thread's stack from rt_altstack_begin (NULL: nothing);
 *  the mapping is kept for the next thread. */
RT_HIDDEN void rt_altstack_end(void *mem);

/* ---- run directory (rt_rundir.c) ------------------------------------------- */
/** Decides the run directory name into rt_g.run_dir (SCALANA_OUTPUT or
 *  scalana-<exe>-<p>p), absolute against the working directory now; -1 when
 *  the path is too long (prepare then refuses it).  prepare (rank 0): claims
 *  the directory for this process (owner file + flock, docs/runtime.md): an
 *  earlier run directory whose owner is gone is moved aside (one line), one
 *  owned by a running process is left alone and rt_g.run_dir becomes the
 *  next free <dir>.N (one line), an empty directory is used as is, anything
 *  else (a regular file, a user's directory) is not touched; a missing one
 *  is created.  Returns 0 or -1 (one line). */
RT_HIDDEN int rt_rundir_name(uint32_t world_size);
RT_HIDDEN int rt_rundir_prepare(void);
RT_HIDDEN int rt_rundir_ensure(void);
RT_HIDDEN uint64_t rt_exe_hash(void);
/** Writes this rank alone into profile-<r>-<r>.sclp (at exit, on abort). */
RT_HIDDEN int rt_write_single(uint32_t flags);
/** run.json from rank 0's view; hosts may be NULL (then this rank's host only). */
struct scalana_run_info;
RT_HIDDEN int rt_write_run_json(struct scalana_run_info *info);
RT_HIDDEN void rt_run_info_fill(struct scalana_run_info *info, const char *written_by);
/** Keeps a copy of the command line the program was started with (argc
 *  strings of argv), from the load-time constructor: run.json's command is
 *  this, not what the program later writes over its argv.  Once; on failure
 *  to allocate, run.json falls back to /proc/self/cmdline. */
RT_HIDDEN void rt_cmdline_save(int argc, char **argv);
/* ---- the run's own executable (rt_keepexe.c) ------------------------------ */
/** World rank 0 at MPI_Init, after the run directory exists: unless
 *  SCALANA_KEEP_EXE=off, hard-links the running executable (and the debug
 *  file its .gnu_debuglink names) into <run>/exe/, or holds it open to copy
 *  at the end.  Failures: one line, the application is not affected. */
RT_HIDDEN void rt_keep_exe_begin(void);
/** Copies what could not be linked (from the descriptors held since MPI_Init). */
RT_HIDDEN void rt_keep_exe_finish(void);
/** At the end of the run's write (after the writer's own line, if any): the
 *  line about a copy that failed on a full disk (ENOSPC, EDQUOT), held back
 *  until now, unless the writer failed too: then its line already said the
 *  disk is full, and a full disk is one line (docs/runtime.md). */
RT_HIDDEN void rt_keep_warn_flush(void);
/** Sets info's executable_copy, executable_copy_method and debug_copy
 *  (NULL when not kept, or not yet copied). */
RT_HIDDEN void rt_keep_exe_describe(struct scalana_run_info *info);
/* ---- host CPUs (rt_rundir.c) ---------------------------------------------- */
/** This process's CPU affinity mask as words (malloc'ed; *nwords words),
 *  every online CPU when sched_getaffinity fails; NULL without memory. */
RT_HIDDEN unsigned long *rt_affinity_mask(int *nwords);
/** CPUs in mask (a union of affinity masks), capped at the online CPUs
 *  (sysconf(_SC_NPROCESSORS_ONLN)); at least 1. */
RT_HIDDEN uint32_t rt_usable_cores_of_mask(const unsigned long *mask, int nwords);

#endif
