/* types.h — the analyzer's shared core types: the PPG vertex table, options and
 * thresholds, a run with its per-rank metrics, and the analysis state with its
 * causes.  Declarations only (no functions): every room includes it.  Not a
 * public API. */
#ifndef SCALANA_AN_CORE_TYPES_H
#define SCALANA_AN_CORE_TYPES_H

#include <stddef.h>
#include <stdint.h>
#include "scalana/run_info.h"
#include "sc_hash.h"

#define AN_NONE UINT32_MAX
/* ---- Strings ---------------------------------------------------------------- */

/** Interning pool: equal strings share one copy for the pool's lifetime. */
struct an_strpool {
    char **str;          /* the copies, in order of first sight */
    size_t n, cap;
    struct sc_hash index; /* ids into str, by text */
};
/* ---- Vertices (the PPG's vertices, shared by every run) ---------------------- */

/** Kind of a vertex: the PSG kinds (enum psg_kind) and DYNAMIC for call-path
 *  vertices of code without a PSG. */
#define AN_KIND_DYNAMIC 10

enum an_vertex_flags {
    AN_V_DYNAMIC = 1u << 0,  /* not from the PSG (recovered from call paths) */
    AN_V_LIBRARY = 1u << 1,  /* library code outside the executable, folded */
    AN_V_ROOT = 1u << 2,     /* a thread root or "outside main" */
    AN_V_CALLSITE = 1u << 3, /* dynamic call site (a CALL-like vertex) */
    AN_V_ATTRIB_ONLY = 1u << 4, /* PSG vertex flagged PSG_V_ATTRIBUTION_ONLY: a loop or call
                                   inside a folded COMPUTE, or a function that cannot reach
                                   MPI; the backward walk treats the enclosing COMPUTE (or
                                   call) as one vertex */
    AN_V_CALL_INLINED = 1u << 5,   /* call-like vertex entered through a DWARF inline chain */
    AN_V_CALL_OUTOFLINE = 1u << 6, /* call-like vertex entered through a real call (a frame) */
    AN_V_NODEBUG = 1u << 7, /* the executable's code without debug information (no -g): named
                               from the symbol table, no file or lines, still the program's */
    AN_V_CONDITIONAL = 1u << 8,  /* PSG_V_CONDITIONAL: lifted out of a folded branch arm */
    AN_V_COND_UNKNOWN = 1u << 9, /* from a PSG unit that does not mark conditionals (an older
                                    pass, the structure recovered from machine code) */
    AN_V_OMP_REGION = 1u << 10   /* the function vertex of an OpenMP outlined region body
                                    (its `function` is the one holding the pragma) */
};

struct an_vertex {
    uint32_t parent;       /* AN_NONE for a root */
    uint32_t first_child, next_sibling; /* creation order; see an_graph_sort_children */
    uint16_t kind;         /* enum psg_kind or AN_KIND_DYNAMIC */
    uint16_t flags;        /* enum an_vertex_flags */
    uint32_t op;           /* MPI op (kind MPI or dynamic MPI call site), else 0 */
    uint32_t line, last_line, column;
    uint32_t depth;        /* 0 for roots */
    uint64_t key;          /* identity among its parent's children */
    uint64_t order;        /* program order among siblings */
    uint64_t psg_stable_id;/* 0 for dynamic vertices */
    int32_t psg_unit;      /* -1 for dynamic vertices */
    uint32_t psg_index;
    const char *name, *function, *file; /* interned; function: demangled, as a person reads it */
    const char *linkage;   /* linkage name of the enclosing function ("" when unknown), interned */
};

/** The vertex table: every (parent, key) once. */
struct an_graph {
    struct an_vertex *v;
    uint32_t n, cap;
    struct sc_hash index; /* vertex ids by (parent, key) */
    struct an_strpool strings;
};
/* ---- Options and thresholds ------------------------------------------------- */

/** Thresholds: every number that decides whether something is flagged.
 *  Defaults and their sources: options.c (the table) and docs/analyzer.md. */
struct an_thresholds {
    double min_cost_percent;  /* a root cause must cost this % of the run */
    double min_cost_seconds;  /* ... and at least this many seconds */
    double imbalance;         /* max/mean over processes to call a vertex imbalanced */
    double alpha;             /* significance level of sample-count tests */
    double min_samples;       /* samples a sampled comparison needs */
    double scaling_ratio;     /* measured/ideal at the largest count to call it non-scalable */
    double outlier_z;         /* modified z-score of an outlying process */
    double max_steps;         /* backtracking step bound */
    double serial_share;      /* non-culprit ranks' share of the culprit time for "serial" */
    double flat_slope;        /* log-log slope above which a time "does not shrink" */
    double rotation;          /* latest-peer share under which blame "rotates" */
    double gpu_busy_share;    /* GPU busy share of the run under which its idle time is analysed */
    double matrix_max;        /* largest process count with a rank x rank matrix in report.json */
    double location_share;    /* a child holding this share of a cause's excess becomes its location */
    double waiting_share;     /* a process waits when its wait is this share of the largest */
    double symptom_share;     /* a wait (or measured difference) must reach this share of the min cost */
    double unexplained_factor;/* an unexplained wait is its own cause at this many min costs */
    double contention_max;    /* contention above which unexplained waits are the scheduler's */
    double bandwidth_bytes;   /* bytes per call above which a transfer is bandwidth-bound */
    double weak_slope;        /* total-work log-log slope above which the runs are weak scaling */
    double scaling_band;      /* |slope - weak_slope| under which the detected mode is uncertain */
    double back_to_back_share;/* share of a collective's calls made back to back to judge it on them */
    double noise_sigmas;      /* a root cause's cost must be this many of its noise's standard deviations */
    double contended_imbalance; /* culprits' CPU over the others' under which a load imbalance seen on
                                 * contended runs only, without a work measure, is undecided */
    double speed_max;         /* CPU time per loop iteration, culprits over the others, beyond which
                                 * equal iterations are not "speed": uncounted work (work_judge.c) */
};

struct an_options {
    char **run_dirs; int run_dir_count;
    char **before_dirs; int before_count; /* --before DIR (repeatable): a before/after comparison */
    char **after_dirs; int after_count;   /* --after DIR (repeatable) */
    const char *out_dir;
    const char *exe;          /* --exe, or NULL: from run.json */
    int weak;                 /* --weak (or detected: see an_analysis.scaling) */
    int scaling_flag;         /* 1 when --weak or --strong was given */
    const char **remap_from, **remap_to; int remap_count; /* --source-path OLD=NEW */
    int quiet, progress, color, no_viewer, json_stdout;
    int no_recover;           /* --no-recover: no structure from machine code (docs/binstruct.md) */
    const char *psg_cache;    /* --psg-cache DIR|off, or NULL: $SCALANA_PSG_CACHE, XDG default */
    int recover_libs;         /* --recover-libs: also the application's shared libraries */
    int force;                /* --force: write into an output directory that is not ours */
    unsigned no_outputs;      /* --no-<flag>: exports of outputs.def not written (SCALANA_OUT_BIT) */
    int gate;                 /* --gate: judge the comparison for CI (gate.c; exit 1 on failure) */
    const char *junit, *markdown; /* --junit FILE, --markdown FILE: the gate's verdict (gate.c) */
    double predict;           /* --predict P: each cause's cost extended to P processes (predict.c); 0: none */
    struct an_thresholds th;
};
/* ---- Runs and their PPG metrics ---------------------------------------------- */

/** Which per-rank arrays a vertex has in a run (struct an_vrun.has): what a
 *  parallel analysis's process 0 knows before it fetches them (an_vr). */
enum an_has { AN_HAS_CPU = 1, AN_HAS_MPI = 2, AN_HAS_NCALLS = 4, AN_HAS_GPU = 8, AN_HAS_COMM = 16,
              AN_HAS_INCL = 32, AN_HAS_ICPU = 64, AN_HAS_IGPU = 128 };

/** Statistics of one vertex over the present ranks of a run (or of the slice
 *  of it that one analyzer process holds: vstat.c), from which its metrics
 *  are computed; the slices' statistics combine exactly (sums up to the
 *  rounding of the order of additions, minima, maxima with the lowest rank
 *  that holds them).  Seconds; ranks are world ranks of the run.  A present
 *  rank without the vertex counts with zeros, as in its per-rank arrays. */
struct an_vstat {
    uint32_t n;            /* present ranks counted */
    uint32_t argmax_incl;  /* lowest world rank with incl_max (0 when every value is 0) */
    double sum_t, sum_incl, sum_cpu, sum_mpi, sum_gpu; /* exclusive (cpu + mpi), inclusive, parts */
    double max_t, min_t;   /* exclusive seconds; min_t INFINITY while n == 0 */
    double max_incl;       /* inclusive seconds (0 at least) */
    double max_cpu;        /* exclusive CPU seconds (0 at least) */
    double max_mpi_c, min_mpi_c; /* MPI seconds over the ranks that called it (ncalls > 0); 0, INFINITY */
};

/** One vertex in one run: per-rank arrays (lazily allocated) and totals. */
struct an_vrun {
    float *cpu;   /* [P] exclusive CPU seconds from samples outside MPI */
    float *mpi;   /* [P] wall seconds inside MPI calls of this context */
    float *incl;  /* [P] inclusive seconds (cpu + mpi of the subtree), by an_run_finish */
    float *icpu;  /* [P] inclusive CPU seconds of the subtree (no MPI), by an_run_finish */
    float *ncalls;  /* [P] MPI calls per rank (MPI vertices only) */
    float *gpu;     /* [P] GPU device seconds (kernels, copies, memsets) launched here */
    float *igpu;    /* [P] inclusive GPU device seconds of the subtree, by an_run_finish */
    double gpu_kernel_s, gpu_copy_s, gpu_sync_s; /* all ranks: device kernel/copy time, host blocked */
    uint64_t *comm; /* [P] communicator id per rank (collectives only) */
    double samples;     /* sample weight outside MPI, all ranks */
    double samples_incl;/* sample weight of the descendants (samples_incl + samples: inclusive) */
    double mpi_samples; /* sample weight inside a wait: MPI, GPU synchronisation, the OpenMP runtime */
    double signals;     /* signals (independent observations) outside MPI, all ranks: what
                           statistical tests count (a signal of weight w stands for w periods) */
    double signals_incl;/* signals of the descendants */
    double calls, bytes_sent, bytes_recv;
    double min_call_s;  /* shortest single call over ranks */
    uint32_t ranks;     /* ranks that have the vertex */
    uint16_t has;       /* enum an_has: the arrays some rank has (set by an_run_finish; in a
                           run whose arrays stay with another source, before it fetched them) */
    struct an_vstat st; /* statistics over the ranks (an_run_finish) */
};

/** A point-to-point partner record, attributed to the vertex of its context. */
struct an_peer_rec {
    uint32_t rank, vertex;
    int32_t peer, tag;
    uint32_t flags;   /* PRF_PEER_SEND / PRF_PEER_RECV */
    uint32_t op;
    uint64_t comm;
    uint64_t count, bytes, time_ns, last_count, last_wait_ns;
};

/** An aggregated communication edge: send context -> receive context. */
struct an_edge {
    uint32_t send_vertex, recv_vertex;
    uint64_t messages, bytes;
    uint32_t pairs;      /* distinct (sender, receiver) rank pairs */
};

/** A user phase (scalana_phase_begin/end, MPI_Pcontrol level) in one run. */
struct an_phase_run {
    const char *name;           /* interned */
    uint32_t vertex;            /* vertex where it began (first rank that knew), AN_NONE if unknown */
    float *time, *count;        /* [P] seconds inside, times entered */
};

/** Exact computation time between two consecutive MPI calls of one thread
 *  (exit of the previous call to entry of the next), in one run, per world rank. */
/** The share of a series of intervals (one pair of calling contexts on one
 *  thread) that may lack the thread CPU clock for the series to count as
 *  exact, the unread ones taking the read ones' mean: the runtime never reads
 *  the first of a series (docs/analyzer.md, "Exact intervals"). */
#define AN_IV_COMPLETE_SHARE 0.1 /* also the estimated share of a vertex's intervals that keeps them exact */
struct an_interval {
    uint32_t prev_vertex;  /* MPI vertex of the previous call; AN_NONE: thread start */
    uint32_t next_vertex;  /* MPI vertex of the next call; AN_NONE: thread end */
    float *count;          /* [P] intervals seen */
    float *wall;           /* [P] sum of wall seconds */
    float *wall_min, *wall_max, *wall_sq; /* [P] seconds, seconds, seconds^2 */
    float *cpu;            /* [P] CPU seconds in the intervals (exact or estimated: see cpu_exact) */
    int cpu_exact;         /* 1 when cpu is from the thread CPU clock (a series read in all but
                              AN_IV_COMPLETE_SHARE of its intervals included), 0 when estimated */
};

struct an_run_source; /* run_source.h */

/** One thread's share of one OpenMP region in one calling context, as OMPT
 *  measured it (PRF_REC_OMP; ompt.c).  Seconds are wall time. */
struct an_omp_region {
    uint32_t vertex, rank, thread; /* the fork's vertex; world rank; the runtime's thread index */
    uint32_t team;                 /* largest team size it ran with */
    uint64_t regions, forks;       /* instances the thread took part in, started */
    double time_s;                 /* begin .. end on the master (forks > 0) */
    double end_wait_s, barrier_wait_s, sync_wait_s; /* waits: region's end, barriers inside, sync */
    const char *file, *function;   /* the fork call's own location (interned; "" unknown) */
    uint32_t line;
};

struct an_run {
    char *dir;
    struct scalana_run_info info;
    uint32_t P;                 /* world size */
    double period_s;            /* sample period (seconds) */
    /* per rank */
    double *wall, *cpu, *mpi;   /* [P] seconds */
    double *cpu_wait;           /* [P] CPU seconds sampled inside MPI or GPU synchronisation */
    double *omp_wait;           /* [P] CPU seconds sampled inside the OpenMP runtime (libgomp,
                                 * libomp: threads spinning at barriers, scheduling): no vertex's
                                 * computation, but not in cpu_wait (the thread held its core) */
    double *gpu_sync;           /* [P] host wall seconds blocked in GPU synchronisation */
    double *gpu_busy;           /* [P] GPU device seconds (kernels, copies, memsets) */
    double *startup;            /* [P] wall seconds in MPI_Init/Finalize, by an_run_finish */
    double *run_delay;          /* [P] wall seconds the MPI_Init thread was runnable but waited
                                 * for a core (other processes held it: PRF_RANK_RUN_DELAY);
                                 * NAN where not measured (older runtimes, no schedstat) */
    uint8_t *present;           /* [P] 1 when the rank's profile was read */
    uint32_t *ranks_on_host, *usable_cores; /* [P] */
    /* per vertex, indexed by vertex id */
    struct an_vrun *vr; uint32_t nvr;
    /* the ranks the per-vertex, per-interval and per-phase arrays hold: all
     * (0, P), except in an analyzer process other than 0 of a parallel
     * analysis, which holds its slice only (index rank - slice_lo; docs/parallel-analysis.md) */
    uint32_t slice_lo, slice_n;
    struct an_peer_rec *peers; size_t npeers, peers_cap; /* sorted by rank after finish */
    size_t *peer_first;         /* [P+1] offsets into peers by rank, after finish */
    struct an_edge *edges; size_t nedges, edges_cap;
    struct an_phase_run *phases; uint32_t nphases;
    /* exact computation between consecutive MPI calls (PRF_REC_INTERVALS) */
    struct an_interval *intervals; uint32_t nintervals;
    int has_intervals;          /* 1 when at least one rank's profile recorded intervals */
    struct sc_hash interval_index; /* indices into intervals by (prev, next) */
    uint64_t interval_overflow; /* intervals the runtime could not record (pair table full,
                                   no context), all ranks */
    /* work per loop (PRF_REC_WORK), sorted by (stable id, rank) after an_run_finish_work */
    struct an_work *work; size_t nwork, work_cap;
    uint32_t work_ranks;        /* ranks whose profile had a work record */
    /* the same per thread (tid), sorted by (stable id, rank, tid) after an_run_finish_work */
    struct an_thread_work *twork; size_t ntwork, twork_cap;
    /* OpenMP through OMPT (PRF_REC_OMP; ompt.c) */
    struct an_omp_region *ompr; size_t nompr, ompr_cap;
    uint32_t omp_ranks;         /* ranks whose profile had an OMP record */
    double ompt_wait_s;         /* OMPT wait seconds, all ranks and threads */
    uint32_t threads_per_process; /* max over ranks: largest OMPT team, else threads measured */
    double threads_per_core;    /* max over ranks of ranks on its host * its threads / usable cores */
    /* sampled CPU seconds per (vertex, rank, thread), sorted by (rank, vertex, thread) in
     * an_run_finish_thread_cpu (threads.c): the per-thread measure of a build without loop
     * counters */
    struct an_thread_cpu *tcpu; size_t ntcpu, tcpu_cap;
    /* data quality */
    uint64_t samples, dropped, overruns, unresolved, cct_overflow, unmatched;
    /* sampling rate: signals are what tests count, weights what times scale by */
    uint64_t signals, weight;   /* over all prf_sample records of the run */
    double signal_s;            /* CPU seconds one signal stands for: weight * period_s / signals
                                   (period_s when every weight is 1); by an_run_finish */
    double asked_hz, effective_hz, obtained_hz; /* per thread; obtained: mean over ranks with a
                                   PRF_REC_SAMPLING record (0: unknown) */
    double resolution_s;        /* timer granularity (kernel tick for cputime), 0: none */
    uint32_t rate_ranks;        /* ranks that said their rate */
    uint64_t vol_switches, invol_switches;
    uint32_t present_count;
    uint32_t *missing; uint32_t nmissing;
    uint8_t *unreadable;        /* [P] 1 when the rank's profile was there but truncated or corrupt */
    uint32_t nunreadable;       /* missing ranks that are unreadable (the rest did not write) */
    double oversub;             /* max over hosts of ranks per usable core */
    double contention;          /* max(oversub, min over ranks of the wall time outside MPI and
                                   GPU waits / the CPU time there): how much slower than with a
                                   core of its own the best-served process computed */
    double wall_max, cpu_mean, mpi_mean;
    char sampler[48];
    int bad;                    /* refused (other binary, unreadable) */
    /* where the per-rank data come from (run_source.h): NULL is the local source, the run's
     * own arrays; a source that keeps them elsewhere fetches them on demand (an_vr,
     * an_interval_*) into its state, which it frees (an_run_free) */
    const struct an_run_source *source;
    void *source_state;
};
/* ---- work and speed (work.c) ----------------------------------------------- */

/** Header executions of one LOOP vertex (by PSG stable id) on one world rank,
 *  summed over its calling contexts and the rank's threads. */
struct an_work { uint64_t stable_id; uint32_t rank; double count; };
/** The same for one thread of the rank: tid is the kernel thread id, thread
 *  its prf_thread.index (AN_NONE when it had none). */
struct an_thread_work { uint64_t stable_id; uint64_t tid; uint32_t rank, thread; double count; };
/* ---- CPU time per thread (threads.c) ----------------------------------------- */

/** Sampled CPU seconds (not OpenMP-runtime or MPI samples) of one thread of
 *  world rank `rank` at one vertex (exclusive): thread is the prf_thread
 *  index (0: the main thread), signals the sampling signals behind cpu. */
struct an_thread_cpu { uint32_t vertex, rank, thread, pad; double cpu, signals; };
/* ---- Analysis ------------------------------------------------------------------ */

/** Runs at one process count; the representative is the repetition with the
 *  median wall time (its per-rank arrays are used for imbalance and waits). */
struct an_scale {
    uint32_t P;
    struct an_run **reps; uint32_t nreps;
    struct an_run *rep;
    double wall, wall_spread;
};

/** Per vertex and scale: what report.json's metrics carry. */
struct an_vmetrics {
    double mean, max, min;     /* exclusive seconds over processes (median over reps) */
    double incl_mean, incl_max;
    double cpu_mean, mpi_mean; /* parts of mean */
    double gpu_mean;           /* GPU device seconds launched here, mean over processes */
    double samples, calls, bytes;
    double imbalance;          /* max/mean of inclusive time */
    double spread;             /* max - min over repetitions of mean */
    uint32_t argmax;
    int present;
};

struct an_model_out {
    int valid;
    double c0, c1, i; int j;
    double smape, loglog_slope; int has_slope;
    int quality;               /* enum scalana_model_quality */
    char formula[96];
    const char *metric;
};

/** One backtracking step. */
struct an_step { uint32_t vertex, process; const char *edge; double wait; };

/** Root-cause categories: include/scalana/categories.def, the one list. */
enum an_category {
#define SCALANA_CATEGORY(e, name, label, remedy) AN_CAT_##e,
#include "scalana/categories.def"
#undef SCALANA_CATEGORY
    AN_CAT_COUNT
};
struct an_cause {
    uint32_t vertex;
    enum an_category cat;
    double cost;               /* seconds at the largest count */
    double explained_wait;     /* process-seconds of wait explained */
    uint32_t *procs; uint32_t nprocs, nprocs_total;   /* culprits */
    uint32_t *waiting; uint32_t nwaiting;
    uint32_t symptom;          /* vertex, AN_NONE if itself */
    struct an_step *path; uint32_t npath;
    double cost_noise;         /* seconds: the cost's uncertainty (repetition spread, sampling) */
    int noise_exact;           /* the cost comes from exact times, bytes or counts, not samples:
                                * cost_noise is the detector's, no sampling noise is added */
    int nonzero_exact;         /* exact counts show the cost is there (loop iterations grown
                                * beyond the ideal): its size stays noisy (cost_noise), but
                                * the noise test that tells a cost from zero does not apply */
    uint32_t *threads; uint32_t nthreads; /* thread indexes (prf_thread.index) of the first culprit
                                * process involved (thread imbalance), heaviest first */
    char evidence[768];
    const char *cost_rule;     /* how cost was computed (report.json cost_rule), static text */
    const char *remedy;        /* static text: this cause's own remedy (report.json remedy), or
                                * NULL for its category's (an_category_remedy) */
    const char *undecided;     /* static text: why the runs cannot decide it (then a candidate
                                * whatever its cost, report.json undecided), or NULL */
    int merged;
};
/** How the scaling mode (strong or weak) was chosen: report.json scaling_mode. */
struct an_scaling_mode {
    int weak;                  /* the mode used */
    int from_flag;             /* 1: --strong/--weak; 0: detected from the runs */
    int uncertain;             /* detected with a slope inside the uncertain band */
    double work_slope;         /* log-log slope of the total work (CPU s over processes) vs p */
    int iterations;            /* work_slope is from the loops' iterations (every run counted
                                * them), not from CPU seconds */
    uint32_t counts;           /* process counts the slope was fitted on */
};

/** Whole analysis state. */
struct an_analysis {
    struct an_options *opt;
    struct an_graph g;
    struct an_scale *scales; uint32_t nscales;   /* ascending P */
    struct an_run *runs; uint32_t nruns;
    struct an_vmetrics *vm;    /* [nscales * g.n] */
    struct an_model_out *model;/* [g.n] inclusive mean over processes */
    struct an_model_out *model_max; /* [g.n] inclusive max over processes */
    double *loss;              /* [g.n] scaling loss seconds at the largest count */
    uint32_t *vflags;          /* [g.n] AN_F_* */
    struct an_cause *causes; uint32_t ncauses;
    struct an_cause *candidates; uint32_t ncandidates; /* found, but under the thresholds */
    struct an_scaling_mode scaling;
    char **warnings; uint32_t nwarnings;
    int has_psg;
    int psg_recovered;         /* the PSG was recovered from machine code (binstruct/) */
    int psg_from_cache;        /* ... and read from the cache of recovered PSGs */
    const char *psg_producer;  /* ... by these recovery rules (the unit's producer), interned */
    uint32_t psg_loops;        /* LOOP vertices of the PSG */
    uint32_t psg_libraries;    /* shared libraries whose PSG joined the executable's (--recover-libs) */
    int echo_warnings;         /* also print warnings on stderr as they happen (while reading) */
    const char *exe, *build_id;
    const char *exe_source;    /* where the executable came from: "run.json", "run copy", "--exe" */
    const char *program_path;  /* the program as it ran: --exe, else run.json's executable (never the
                                  run's copy: exe is that copy when it was used), interned */
    void *phases;              /* json_t * from an_phases_json, or NULL */
    uint32_t nprocs;           /* analyzer processes that shared the work (par.h; 1: serial) */
    uint64_t *peak_rss;        /* [nprocs] peak resident bytes of each, from an_par_combine */
};

/* AN_F_UNDECIDED: a symptom that the runs cannot decide (a contended largest
 * run, nothing with a core per process to confirm it): its cause is an
 * undecided candidate (an_cause.undecided); not in report.json's flags. */
enum { AN_F_NON_SCALABLE = 1, AN_F_IMBALANCED = 2, AN_F_WAITING = 4, AN_F_ROOT_CAUSE = 8, AN_F_UNDECIDED = 16 };

#endif
