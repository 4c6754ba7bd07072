/* rt_core.h — the core room's interface (runtime/core/): what every other
 * room of the runtime uses — visibility and branch macros, the process-wide
 * state (rt_g), options, messages and failures, time.  It includes nothing
 * of the runtime: every other room sits on it (docs/runtime.md, "Architecture").
 * Everything here is hidden (not exported from the .so). */
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
    int gomp;               /* SCALANA_GOMP: libgomp's fork calls continue the region's path */
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
struct rt_error { char part[16]; char message[160]; };
RT_HIDDEN extern struct rt_error rt_errors[16];
RT_HIDDEN extern unsigned rt_error_count;
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
    pid_t init_tid;           /* the thread that called MPI_Init (its run delay is recorded) */
    uint64_t start_run_delay_ns; /* its run delay at MPI_Init (rt_run_delay_ns) */
    int run_delay_ok;         /* start_run_delay_ns was read */
    uint64_t mpi_time_ticks;  /* summed in rt_stats */
    uint32_t flags;           /* enum prf_rank_flags */
    char hostname[64];
    char run_dir[4096];
    const char *mpi_library;  /* "openmpi" / "mpich" */
    uintptr_t self_lo, self_hi; /* text of this library (frames to skip) */
    uintptr_t ldso_lo, ldso_hi; /* text of the dynamic loader (samples dropped) */
    uintptr_t omprt_lo, omprt_hi; /* text of the OpenMP runtime (libomp, libiomp5 or libgomp)
                                     loaded with the program, 0 0 when none: where a worker's
                                     stack leaves its region's body (threads/rt_omp_path.c) */
    uint64_t period_ns;
    int writer_off;           /* the run directory is unusable: nothing is written
                                 (decided by rank 0 at activation, one line) */
};
RT_HIDDEN extern struct rt_global rt_g;
RT_HIDDEN void rt_spin_lock(volatile int *l);
RT_HIDDEN void rt_spin_unlock(volatile int *l);

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
/** Thread tid's run delay: nanoseconds it spent runnable but waiting for a
 *  core since it started (the second field of /proc/self/task/<tid>/schedstat,
 *  exact, kept by the scheduler).  Time another process held the CPU; not
 *  sleep, I/O or blocking.  Returns 0 with *ns set, -1 where the kernel has no
 *  schedstat (CONFIG_SCHED_INFO off) or the thread is gone.  Uses open/read
 *  only (no stdio, no allocation). */
RT_HIDDEN int rt_run_delay_ns(pid_t tid, uint64_t *ns);
static inline uint64_t rt_ticks_to_ns(uint64_t t, double f) { return (uint64_t)((double)t * f + 0.5); }

#endif
