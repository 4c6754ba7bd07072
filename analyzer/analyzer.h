/* analyzer.h — internal types of scalana-analyze: the PPG vertex table (PSG
 * vertices, or dynamic call-path vertices, in their calling context), runs
 * with their per-rank metrics, options and thresholds.  Not a public API. */
#ifndef SCALANA_ANALYZER_H
#define SCALANA_ANALYZER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "scalana/profile_format.h"
#include "scalana/psg_format.h"
#include "scalana/run_info.h"
#include "sc_alloc.h"
#include "sc_fs.h"
#include "sc_hash.h"

#define AN_NONE UINT32_MAX

/* ---- Strings ---------------------------------------------------------------- */

/** Interning pool: equal strings share one copy for the pool's lifetime. */
struct an_strpool {
    char **str;          /* the copies, in order of first sight */
    size_t n, cap;
    struct sc_hash index; /* ids into str, by text */
};
/** Returns the pool's copy of s (NULL gives ""); never NULL: aborts on OOM. */
const char *an_intern(struct an_strpool *p, const char *s);
void an_strpool_free(struct an_strpool *p);

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

void an_graph_init(struct an_graph *g);
void an_graph_free(struct an_graph *g);
/** Vertex with (parent, key), or AN_NONE. */
uint32_t an_graph_find(const struct an_graph *g, uint32_t parent, uint64_t key);
/** Finds or appends the vertex (parent, key); *created says which.  The new
 *  vertex is zeroed but for parent, key, depth and links; the caller fills
 *  kind and names.  Aborts on allocation failure. */
uint32_t an_graph_get(struct an_graph *g, uint32_t parent, uint64_t key, int *created);
/** Re-links children so that siblings follow program order (order, line). */
void an_graph_sort_children(struct an_graph *g);
/** Whether a is b or an ancestor of b. */
int an_graph_is_ancestor(const struct an_graph *g, uint32_t a, uint32_t b);
/** Name of a vertex kind as report.json spells it. */
const char *an_kind_name(unsigned kind);
/** FNV-1a 64 of a string, mixed with seed. */
uint64_t an_hash_str(const char *s, uint64_t seed);

/* ---- MPI operations (from include/scalana/mpi_calls.def) ------------------- */

enum an_mpi_role { AN_MPI_OTHER = 0, AN_MPI_SEND, AN_MPI_RECV, AN_MPI_SENDRECV,
                   AN_MPI_COMPLETION, AN_MPI_COLLECTIVE, AN_MPI_PROBE };
/** "MPI_Allreduce", or "MPI_<unknown>" for an unknown code. Never NULL. */
const char *an_mpi_name(unsigned op);
/** Role of an op for waits and communication edges. */
enum an_mpi_role an_mpi_role(unsigned op);
/** 1 when the op starts a non-blocking operation (Isend, Irecv, Iallreduce ...). */
int an_mpi_nonblocking(unsigned op);
/** 1 for MPI_Init, MPI_Init_thread, MPI_Finalize, MPI_Abort, MPI_Pcontrol. */
int an_mpi_is_init(unsigned op);

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

/** Sets the defaults.  */
void an_options_defaults(struct an_options *o);
/** Parses argv.  Returns 0 to run, 1 when --help/--version was printed
 *  (exit 0), -1 on a usage error (message printed on stderr). */
int an_options_parse(struct an_options *o, int argc, char **argv);
void an_options_free(struct an_options *o);
/** Prints the one line of a usage error getopt_long reported (optstring
 *  starting with ':', opterr 0): c is what it returned ('?' unknown or
 *  ambiguous, ':' value missing); names the word of argv at fault. */
void an_bad_option(const char *prog, int c, char **argv);
/** Iterates the threshold table: name, value, source; returns 0 past the end. */
int an_threshold_at(const struct an_thresholds *t, size_t i, const char **name, double *value,
                    const char **source);
/** Source path as reports show it: "." and ".." components and repeated
 *  slashes folded lexically (symbolic links are never resolved), then
 *  --source-path remapping (first matching prefix).  The result is
 *  interned in pool. */
const char *an_remap_path(const struct an_options *o, struct an_strpool *pool, const char *file);

/* ---- Names (demangle.c) ------------------------------------------------------ */

/** The name a person reads for a linkage name: a C++ (Itanium ABI, "_Z")
 *  name demangled by libstdc++'s __cxa_demangle; flang's _QP<proc> as
 *  "proc", _QM<module>P<proc> as "module::proc", _QQmain as "main
 *  program"; gfortran's __<module>_MOD_<proc> as "module::proc"; other
 *  names (C, gfortran's external procedures, names that do not demangle)
 *  unchanged.  Interned in pool; never NULL. */
const char *an_demangle(struct an_strpool *pool, const char *name);
/** A demangled function name without its return type and argument list,
 *  template argument lists longer than 24 characters elided ("void
 *  ns::f<int>(int*, int) const" -> "ns::f<int>", "ns::cg<ns::Csr<double,
 *  int, int>, ...>" -> "ns::cg<...>"), for one-line locations.  Interned. */
const char *an_short_function(struct an_strpool *pool, const char *name);
/* omp.c: the names of OpenMP code (docs/analyzer.md "OpenMP") */
/** Whether name is a frame of an OpenMP runtime (libgomp's GOMP_ and gomp_,
 *  libomp's __kmpc_ and __kmp_, omp_ and ompt_ entries). */
int an_omp_runtime_function(const char *name);
/** Which of rank d's modules (PRF_REC_MODULES) are an OpenMP runtime
 *  (libgomp.so*, libomp.so*, libiomp5.so by file name): a malloc'ed array of
 *  d->module_count flags (1: runtime) that the caller frees; aborts when
 *  out of memory. */
uint8_t *an_omp_runtime_modules(const struct prf_rank_data *d);
/** Which of rank d's calling-context nodes were in an OpenMP runtime when
 *  sampled: the node's module is one (an_omp_runtime_modules), or it is in
 *  libc, libpthread, librt, the dynamic loader or the vDSO and the first
 *  frame above it outside those is one (libomp's passive waits end in
 *  futex and sched_yield: at 1 process LULESH's OpenMP build had 43 % of its
 *  samples there, charged as computation of the code around the region).
 *  A malloc'ed array of d->cct_count flags (1: runtime) that the caller
 *  frees; aborts when out of memory; a parent chain that does not end is
 *  cut after d->cct_count steps. */
uint8_t *an_omp_runtime_nodes(const struct prf_rank_data *d);
/** Whether name is a runtime entry that forks a parallel region or teams
 *  (GOMP_parallel*, GOMP_teams*, __kmpc_fork_call, __kmpc_fork_teams). */
int an_omp_fork_entry(const char *name);
/** The function holding the pragma of an outlined region body (gcc's
 *  X._omp_fn.N, clang's X.omp_outlined*, flang's X..omp_par*): X copied
 *  into buf; "" for an outlined body that does not name it (clang's C
 *  `.omp_outlined.`); NULL when name is no outlined body (or buf is short). */
const char *an_omp_outlined_parent(const char *name, char *buf, size_t buflen);
/*  (Also: flang's internal procedures _QF<host>P<proc> as "host.proc" and
 *  _QM<module>F<host>P<proc> as "module::host.proc", gfortran's MAIN__ as
 *  "main program" and local inner.0 as "inner": demangle.c.) */
/** The main program's name as the source spells it, "program NAME" (lower
 *  case, as flang and gfortran fold it), read from the `program` statement at
 *  `line` of `file` (the subprogram's first line from DWARF); NULL when the
 *  source cannot be read or that line is no program statement.  flang names
 *  the program _QQmain and gfortran MAIN__ in the symbol table. */
const char *an_fortran_program(struct an_strpool *pool, const char *file, uint32_t line);

/* ---- Symbols (libdw) -------------------------------------------------------- */

/** The name frames and recovered structure give the DWARF function DIE die
 *  (a Dwarf_Die *; void * keeps libdw out of this header): its linkage name,
 *  through the abstract origin and specification; else its DW_AT_name
 *  qualified by the classes and namespaces that enclose its declaration
 *  ("Domain::relax", "RowSweep<double>::operator()": gcc gives no linkage
 *  name to a C++ member function that exists only inlined), written into
 *  buf (buflen bytes; a name that does not fit stays unqualified); NULL when
 *  the DIE has no name.  The result is valid while the DWARF and buf are. */
const char *an_die_function_name(void *die, char *buf, size_t buflen);

/** One logical frame of a physical frame's inline chain. */
struct an_frame {
    const char *function;  /* linkage name ("" when unknown), interned */
    const char *file;      /* source file ("" when unknown), interned */
    uint32_t line, column;
    uint32_t fn_first, fn_last; /* the function's own source lines (DWARF; 0 unknown) */
    uint8_t has_dwarf;     /* function known from DWARF (not just the symbol table) */
    uint8_t in_exe;        /* the frame lies in the application's code: the analysed executable
                              or one of its own shared libraries (symbolize.c) */
    uint8_t exe_nodebug;   /* in_exe, named from the symbol table of an executable
                              without any DWARF (built without -g) */
    uint32_t sym_offset;   /* exe_nodebug: the address's byte offset in its function
                              (tells call sites apart where there are no lines) */
    uint8_t main_program;  /* DWARF marks the function as the (Fortran) main program
                              (DW_AT_main_subprogram: gfortran names it by the program) */
};

/** Resolution of one address: logical frames outermost first (the real
 *  function, then each inlined call, the innermost last). */
struct an_resolved {
    uint32_t nframes;
    struct an_frame *frames;
    uint8_t unresolved;    /* no module or no symbol at all */
};

struct an_symbolizer;
struct an_symbolizer *an_sym_new(struct an_strpool *pool, const char *exe_path,
                                 const char *exe_build_id);
void an_sym_free(struct an_symbolizer *s);
/** Adds a directory where kept copies of shared libraries lie (a run's
 *  exe/lib/): a module whose file is gone or has another build-id than the
 *  profile names is looked up there by file name and build-id. */
void an_sym_add_library_dir(struct an_symbolizer *s, const char *dir);
/** Global id of a profile module (path, build-id).  The executable is
 *  recognised by build-id (or path) and read from the --exe/run.json path.
 *  A module whose file is missing or has another build-id resolves nothing
 *  (counted as unresolved frames); warn receives one line the first time. */
uint32_t an_sym_module(struct an_symbolizer *s, const char *path, const char *build_id,
                       char *warn, size_t warnlen);
/** Resolves a module-relative address (return addresses are looked up at
 *  address - 1).  Cached; never NULL. */
const struct an_resolved *an_sym_resolve(struct an_symbolizer *s, uint32_t module,
                                         uint64_t address, int is_return_address);
/** A source file name made absolute: name joined to dir (a CU's
 *  DW_AT_comp_dir; NULL or relative: not joined) with "." and ".."
 *  components folded lexically, without file-system access (the sources may
 *  live elsewhere now; --source-path remaps them).  Returns a string
 *  interned in pool; "" for a NULL or empty name; name itself (interned)
 *  when the result would not fit 4 KiB. */
const char *an_path_absolute(struct an_strpool *pool, const char *dir, const char *name);
/** Build-id (lowercase hex) of an ELF file into out; returns 0, or -1. */
int an_elf_build_id(const char *path, char *out, size_t outlen);
/** Whether the ELF file at path has DWARF debugging information (its own
 *  .debug_info or a separate debug file libdwfl finds): 1 yes, 0 no, -1 the
 *  file cannot be read as ELF. */
int an_elf_has_debug_info(const char *path);

/* ---- PSG index ----------------------------------------------------------------*/

struct an_psg {
    const struct psg_graph *g;
    uint32_t **child_first;      /* [unit][vertex] first child index or AN_NONE */
    uint32_t **child_next;       /* [unit][vertex] next sibling */
    struct { const char *name; uint32_t unit, index; } *fn; size_t fn_n; /* FUNCTION vertices */
    struct sc_hash fn_index;     /* indices into fn, by linkage name */
};
int an_psg_index(struct an_psg *x, const struct psg_graph *g);
void an_psg_free(struct an_psg *x);
/** FUNCTION vertex of a linkage name: returns 1 and sets unit/index, or 0. */
int an_psg_function(const struct an_psg *x, const char *name, uint32_t *unit, uint32_t *index);
/** Descends from vertex `from` to the deepest descendant whose source range
 *  contains (file, line, column): call-like vertices must match the line (and
 *  column when both are known; when is_call, a call-like vertex on the line is
 *  preferred); the descent goes on below a folded COMPUTE into its
 *  attribution-only loops and calls.  Writes the chain below `from` (outermost first) into chain
 *  and returns its length (0: the location stays on `from`). */
uint32_t an_psg_descend(const struct an_psg *x, uint32_t unit, uint32_t from, const char *file,
                        uint32_t line, uint32_t column, int is_call, uint32_t *chain,
                        uint32_t maxchain);
/** Whether FUNCTION vertex (unit, fn) is a thin MPI wrapper of the
 *  application: its PSG holds exactly one vertex besides the FUNCTION, an
 *  MPI vertex without children (no loop, no branch, no computation, no other
 *  call: `int hypre_MPI_Waitall(int n, MPI_Request *r, MPI_Status *s) {
 *  return MPI_Waitall(n, r, s); }`).  The program's entry (main, the Fortran
 *  main program) never is.  Attribution does not enter such a function from
 *  a caller: its MPI call is named at the wrapper's call site. */
int an_psg_thin_mpi_wrapper(const struct an_psg *x, uint32_t unit, uint32_t fn);

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

/** Adds world rank `rank`'s work record (if any) to r. */
void an_run_add_work(struct an_run *r, uint32_t rank, const struct prf_rank_data *d);
/** Sorts r's work and sums a rank's threads: after the last rank is added. */
void an_run_finish_work(struct an_run *r);
/** World rank i's wall time outside MPI (and GPU waits) over its CPU time
 *  there (>= 1): how much slower than with a core of its own it computed;
 *  NAN when the rank is absent or has fewer than 20 sampling signals of CPU
 *  time there (ppg.c; the run's contention is the minimum over ranks). */
double an_rank_contention(const struct an_run *r, uint32_t i);
/** report.json runs[].work_measure: "loop_iterations" when some rank
 *  counted loop iterations, else "none" (a binary built without the pass). */
const char *an_work_measure(const struct an_run *r);
/** w[P] (world ranks) = the iterations of the loops in v's subtree, each
 *  loop once.  Returns 1 when some loop there was counted, else 0 (w zero). */
int an_work_at(const struct an_graph *g, const struct an_run *r, uint32_t v, double *w);

/** The iterations of the loops in v's subtree (each loop once) per thread of
 *  world rank `rank`: *n threads (kernel tids in tids[], thread indexes in
 *  threads[], counts in w[]; malloc'ed, the caller frees all three), in tid
 *  order.  Returns *n (0: nothing counted there). */
uint32_t an_thread_work_at(const struct an_graph *g, const struct an_run *r, uint32_t v, uint32_t rank,
                           uint64_t **tids, uint32_t **threads, double **w, uint32_t *n);
/* ---- CPU time per thread (threads.c) ----------------------------------------- */

/** Sampled CPU seconds (not OpenMP-runtime or MPI samples) of one thread of
 *  world rank `rank` at one vertex (exclusive): thread is the prf_thread
 *  index (0: the main thread), signals the sampling signals behind cpu. */
struct an_thread_cpu { uint32_t vertex, rank, thread, pad; double cpu, signals; };

/** The thread index of every CCT node of d (its PRF_CCT_ROOT's address),
 *  AN_NONE where no root is reached: malloc'ed [d->cct_count]. */
uint32_t *an_cct_thread_index(const struct prf_rank_data *d);
/** Adds cpu_s seconds (signals signals) of thread `thread` of world rank
 *  `rank` at vertex to r; ignored for AN_NONE thread or vertex. */
void an_run_add_thread_cpu(struct an_run *r, uint32_t rank, uint32_t thread, uint32_t vertex, double cpu_s,
                           double signals);
/** Sorts r's per-thread CPU and merges equal (vertex, rank, thread). */
void an_run_finish_thread_cpu(struct an_run *r);
/** Renames the vertices of r's per-thread CPU by map (old -> new, nmap;
 *  AN_NONE drops the entry), then sorts (parallel analysis, par_combine.c). */
void an_run_remap_thread_cpu(struct an_run *r, const uint32_t *map, uint32_t nmap);
/** The CPU seconds and signals per thread of world rank `rank` in v's
 *  subtree; with outside_regions, only at vertices outside OpenMP region
 *  bodies (the code a region's team does not share).  *n threads in index
 *  order (threads[], cpu[], signals[] malloc'ed, the caller frees all
 *  three); returns *n (0: no sample there). */
uint32_t an_thread_cpu_at(const struct an_graph *g, const struct an_run *r, uint32_t v, uint32_t rank,
                          int outside_regions, uint32_t **threads, double **cpu, double **signals);
/** The OpenMP region body (function vertex flagged AN_V_OMP_REGION) that
 *  holds v, or AN_NONE. */
uint32_t an_omp_region_of(const struct an_graph *g, uint32_t v);
/** Threads of world rank `rank` that computed (a CPU sample) in the OpenMP
 *  region body holding v: the team the region ran with; 1 outside regions
 *  or without samples.  v AN_NONE: the most over all region bodies. */
uint32_t an_omp_team(const struct an_graph *g, const struct an_run *r, uint32_t v, uint32_t rank);

/** One process's threads in one loop, from their sampled CPU seconds. */
struct an_thread_split {
    double max, mean, ratio;   /* seconds of the heaviest thread, mean over the team, max/mean */
    double saving;             /* max - mean: wall seconds balancing the team saves (the region
                                * ends with its slowest thread) */
    double noise;              /* standard deviation of saving from the samples' Poisson noise */
    double p_value;            /* exact Poisson test: heaviest thread against the rest */
    double p_adjusted;         /* min(1, n p_value): Bonferroni over the n threads that could
                                * be the heaviest (a valid p-value for an_fisher_combine) */
    double signals;            /* sampling signals of the team there (the caller asks for
                                * th->min_samples over the processes it names) */
    uint32_t heaviest;         /* index into the arrays given */
    int significant;           /* ratio >= th->imbalance and p_adjusted < th->alpha: this
                                * process alone shows it */
};
/** Splits a team of n threads by their CPU seconds cpu[] (signals[]
 *  sampling signals, signal_s CPU seconds per signal; a thread of the team
 *  that never computed here counts with 0).  Returns 0 when n < 2 or nothing
 *  was sampled (out zeroed, p_value 1), else 1. */
int an_thread_cpu_split(const double *cpu, const double *signals, uint32_t n, double signal_s,
                        const struct an_thresholds *th, struct an_thread_split *out);
/** Fisher's combination of m independent p-values p[] (each process's
 *  p_adjusted for one loop): the p-value of "none of them differs", from
 *  -2 sum ln p ~ chi-square(2m).  1 for m = 0.  A loop's schedule splits
 *  every process alike, so a loaded machine's few signals per process
 *  (51-67 in omp_thread_imbalance beside CPU hogs) add up to one test. */
double an_fisher_combine(const double *p, uint32_t m);
/** What running cpu seconds of one thread's serial code on a team of
 *  `team` threads saves: cpu (1 - 1/team) wall seconds; 0 for team <= 1. */
double an_serial_saving(double cpu, uint32_t team);

/** *mean = the mean over r's present ranks of an_work_at.  Returns 1 when
 *  some loop below v was counted, else 0 (*mean 0). */
int an_work_mean(const struct an_graph *g, const struct an_run *r, uint32_t v, double *mean);

enum an_work_verdict {
    AN_WORK_UNKNOWN = 0, /* no counted loop at the vertex, or nothing to compare */
    AN_WORK_SAME,        /* the culprits ran the others' iterations, only slower */
    AN_WORK_MORE         /* the culprits ran more iterations */
};
/** Whether culprits procs[np] (world ranks) of vertex v did more work than
 *  the other present ranks or the same work more slowly.  *work_ratio: their
 *  mean iterations over the others' (NAN when unknown); *time_ratio: the same
 *  for inclusive CPU seconds (NAN when unknown).  Same: iterations exceed
 *  the others' by under 5 % and under a quarter of the CPU-time excess
 *  (docs/analyzer.md, "Work and speed"). */
enum an_work_verdict an_work_compare(const struct an_graph *g, const struct an_run *r, uint32_t v,
                                     const uint32_t *procs, uint32_t np, double *work_ratio,
                                     double *time_ratio);

/** The point-to-point partner records of world rank `rank` in run r (*n of
 *  them; NULL when none), after an_run_finish: r's own, sorted by vertex; a
 *  source that keeps them elsewhere asks for them the first time and keeps
 *  them until an_vr_release (run_source.h). */
const struct an_peer_rec *an_run_peers_of(const struct an_run *r, uint32_t rank, size_t *n);
/** Matches run r's partner records (r->peers, as read) into communication
 *  edges (r->edges) and counts the messages without a partner (r->unmatched):
 *  records of one (sender, receiver, communicator) must all be in r. */
void an_run_match_edges(struct an_run *r);
/** Adds edges (messages, bytes, rank pairs) to run r's, in order, as
 *  matching them in r would have (a parallel analysis's processes match
 *  their senders' records; process 0 adds their edges in process order). */
void an_run_add_edges(struct an_run *r, const struct an_edge *e, size_t n);
/** Sorts run r's partner records by rank (stably: each rank's keep their
 *  order) and indexes them (r->peer_first). */
void an_run_index_peers(struct an_run *r);

/** Vertex v's record in run r with the per-rank arrays of every rank of the
 *  run (indexed by world rank) and the intervals that end at v: always
 *  r->vr[v] (a zeroed record for v >= nvr); a source that keeps the arrays
 *  elsewhere (the parallel analyzer's process 0) fetches them the first
 *  time and keeps them (run_source.h).  Never NULL. */
const struct an_vrun *an_vr(const struct an_run *r, uint32_t v);
/** Forgets the per-rank arrays an_vr fetched for run r (a no-op for the
 *  local source; a later an_vr fetches again): the backward walk of each
 *  symptom releases what it fetched, so process 0 of a parallel analysis
 *  holds one walk's vertices at a time.  Pointers from an_vr of r are
 *  invalid afterwards. */
void an_vr_release(const struct an_run *r);
/** Whether vertex v has the per-rank array `has` (enum an_has) in run r,
 *  without fetching it. */
int an_vr_has(const struct an_run *r, uint32_t v, unsigned has);
/** out[P] = the per-rank sums over run r's intervals whose next (want_next
 *  1) or previous (0) vertex is v, CPU (want_cpu 1) or wall seconds, asked
 *  of r's source; out is zeroed by the caller (an_interval_before/after). */
void an_run_interval_sums(const struct an_run *r, uint32_t v, int want_next, int want_cpu, double *out);
/** The robust outliers (modified z-score above threshold, high side) of the
 *  inclusive time over run r's P processes of every vertex v < nv into
 *  out[v * 17]: the number found, then the first 16 world ranks, ascending;
 *  vertices without inclusive time keep what out held (the caller zeroes it). */
void an_run_outliers(const struct an_run *r, uint32_t nv, double threshold, uint32_t *out);
/** Whether run r holds every rank's per-rank arrays, intervals and partner
 *  records itself (the local source), so that they may be read directly. */
int an_run_holds_ranks(const struct an_run *r);
/** Frees what run r's source keeps for it (an_run_free calls it). */
void an_run_source_free(struct an_run *r);
/** Frees the per-rank arrays of vertex record x; its totals stay. */
void an_vrun_free_arrays(struct an_vrun *x);
/** The arrays vertex record x holds (enum an_has bits); cannot fail. */
unsigned an_vrun_arrays(const struct an_vrun *x);

/** Per-rank attribution state, cached per CCT node. */
struct an_attr_ctx {
    struct an_graph *g;
    struct an_symbolizer *sym;
    const struct an_psg *psg;        /* may be NULL (no PSG) */
    const struct an_options *opt;
    uint32_t outside_root;           /* vertex for samples outside main, AN_NONE until used */
    /* every instance of each function entered from a call path: where a
     * thread that starts in that function (an OpenMP worker) is joined */
    struct { const char *name; uint32_t v; } *inst; size_t inst_n, inst_cap;
    struct sc_hash inst_index; /* indices into inst, by interned name */
    uint64_t *inst_weight; size_t inst_weight_n; /* the rank's main-thread samples per instance */
    /* memo of (state, frame) -> state across ranks: most ranks repeat the same paths */
    struct an_step_memo { uint64_t address; uint32_t v, module, nv; uint8_t mode, kind, flags, nmode, unres; } *memo;
    size_t memo_n, memo_cap;
    struct sc_hash memo_index; /* indices into memo, by (state, frame) */
    int no_memo; /* set by a step whose result depends on what was seen before */
};
void an_attr_ctx_init(struct an_attr_ctx *c, struct an_graph *g, struct an_symbolizer *sym,
                      const struct an_psg *psg, const struct an_options *opt);
void an_attr_ctx_free(struct an_attr_ctx *c);

/** Maps every CCT node of d to a vertex (node_vertex[i]); module_ids maps
 *  d's modules to symbolizer modules.  Creates vertices as needed.
 *  Returns 0, or -1 on allocation failure. */
int an_attribute_rank(struct an_attr_ctx *c, const struct prf_rank_data *d, uint32_t *node_vertex,
                      uint64_t *unresolved);

/** Creates an empty run for P ranks.  Aborts on allocation failure. */
void an_run_init(struct an_run *r, uint32_t P);
void an_run_free(struct an_run *r);
/** The vertex's record in run r, growing the table; arrays allocated on demand. */
struct an_vrun *an_run_vertex(struct an_run *r, uint32_t v);
/** Adds one decoded rank to run r: attribution, per-rank metrics, peers. */
int an_run_add_rank(struct an_run *r, struct an_attr_ctx *c, const struct prf_rank_data *d,
                    char *err, size_t errlen);
/** After all ranks: inclusive times, per-run totals, communication edges,
 *  oversubscription, missing ranks (an_run_finish_slice, then
 *  an_run_finish_totals). */
void an_run_finish(struct an_run *r, const struct an_graph *g);
/** The part of an_run_finish over the ranks the run holds (its slice): per
 *  rank inclusive times (incl, icpu, igpu), GPU busy and start-up seconds,
 *  the ranks that have each vertex, the vertex statistics (an_vstat) and
 *  array flags (has). */
void an_run_finish_slice(struct an_run *r, const struct an_graph *g);
/** The part of an_run_finish over every rank once the per-rank figures of
 *  the run are whole: signal seconds, totals, missing ranks,
 *  oversubscription, contention, edges and peers by rank. */
void an_run_finish_totals(struct an_run *r);
/** Statistics of vertex record x over the present ranks run r holds (its
 *  slice [slice_lo, slice_lo + slice_n), where x's arrays are) into s
 *  (vstat.c). */
void an_vstat_slice(const struct an_run *r, const struct an_vrun *x, struct an_vstat *s);
/** What the growing-communication detector needs of a site (MPI vertices
 *  judged together) over the ranks that called it: the smallest time in
 *  the site of a rank (fastest, seconds; INFINITY when none called it), the
 *  smallest share of a rank's calls made back to back after another MPI
 *  call (share, from the computation intervals; 1 without any), the sum of
 *  the callers' time there (sum_t) and their number (n).  Minima and sums:
 *  the slices of a parallel analysis combine exactly. */
struct an_site_figures { double fastest, share, sum_t; uint32_t n; };
/** The figures of the site v[0..nv) over the ranks run r holds itself. */
void an_site_figures_slice(const struct an_run *r, const uint32_t *v, uint32_t nv, struct an_site_figures *f);
/** The figures over every rank of run r (asked of r's source: of every
 *  process in a parallel analysis). */
void an_site_figures(const struct an_run *r, const uint32_t *v, uint32_t nv, struct an_site_figures *f);
/** Empty statistics (no rank). */
void an_vstat_init(struct an_vstat *s);
/** Adds the statistics b of ranks after those of a (a's ranks lower) to a. */
void an_vstat_merge(struct an_vstat *a, const struct an_vstat *b);
/** CPU seconds one sampling signal stands for in run r: the unit that turns
 *  sampled seconds into signal counts for every statistical test (Poisson
 *  counts are signals, not weights: 10 signals of weight 20 are 10
 *  observations).  r->signal_s, else the period, else 0.01 s. */
static inline double an_signal_s(const struct an_run *r)
{
    return r->signal_s > 0 ? r->signal_s : r->period_s > 0 ? r->period_s : 0.01;
}
/** How to get more samples in run r, one clause for a warning: "run longer
 *  or raise SCALANA_FREQ (now N Hz)", or where the timer is capped "run
 *  longer or use SCALANA_SAMPLER=taskclock: the cputime timer is capped at
 *  N Hz here, a higher SCALANA_FREQ gives no more samples" (ppg.c). */
void an_more_samples_advice(const struct an_run *r, char *out, size_t n);
/** 1 when run r obtained clearly fewer signals than asked because its timer
 *  is capped (a CPU-time timer at kernel ticks): raising SCALANA_FREQ does
 *  not help there. */
static inline int an_rate_capped(const struct an_run *r)
{
    return r->asked_hz > 0 && r->effective_hz > 0 && r->effective_hz < 0.8 * r->asked_hz;
}
/** Seconds of exclusive time of vertex v on rank i (cpu + mpi). */
static inline double an_vtime(const struct an_vrun *x, uint32_t i)
{
    double t = 0;
    if (x->cpu) t += x->cpu[i];
    if (x->mpi) t += x->mpi[i];
    return t;
}
/** Adds rank `rank`'s interval records to run r: each context is replaced by
 *  its MPI vertex (ctx_vertex[context], AN_NONE when unattributed: such
 *  records are skipped), records of several threads or contexts with the same
 *  vertex pair are merged (sums; min of minima, max of maxima).  CPU seconds
 *  are the thread CPU clock's where read, else the CPU-time sampler's periods
 *  times period_s, else (no CPU-time sampler) the wall time as an upper bound;
 *  cpu_exact stays 1 while every merged interval was read with the clock.
 *  Called by an_run_add_rank.  Aborts on allocation failure. */
void an_run_add_intervals(struct an_run *r, uint32_t rank, const struct prf_rank_data *d,
                          const uint32_t *ctx_vertex, double period_s);
/** The run's record of the computation between MPI vertices (prev, next),
 *  created with zeroed per-rank arrays when new (intervals.c; the parallel
 *  analyzer merges other processes' records through it). */
struct an_interval *an_run_interval(struct an_run *r, uint32_t prev, uint32_t next);
/** Per-rank seconds of computation immediately before MPI vertex `next_vertex`
 *  in run r: the sum over intervals ending there (wall seconds when want_cpu is 0,
 *  CPU seconds when 1), into out[P].  Returns 1 when the run recorded intervals,
 *  0 when it did not (older profiles; out is then zeroed). */
int an_interval_before(const struct an_run *r, uint32_t next_vertex, int want_cpu, double *out);
/** The same for the intervals starting right after MPI vertex `prev_vertex`. */
int an_interval_after(const struct an_run *r, uint32_t prev_vertex, int want_cpu, double *out);
/** The sums of an_interval_before (want_next 1) or an_interval_after
 *  (want_next 0) over the ranks run r holds itself (its slice): out has
 *  r->slice_n entries, added to (a parallel analysis's processes answer
 *  process 0 with it). */
void an_interval_sum_slice(const struct an_run *r, uint32_t v, int want_next, int want_cpu, double *out);
/** Renames the vertices of run r's intervals by map (old id -> new id, nmap
 *  entries; AN_NONE stays) and rebuilds their index (parallel analysis:
 *  the processes' vertex tables become one). */
void an_run_intervals_remap(struct an_run *r, const uint32_t *map, uint32_t nmap);
/** Rank x rank bytes and messages (sender-major, P*P doubles each, malloc'ed);
 *  returns 0 or -1. */
int an_run_matrix(const struct an_run *r, double **bytes, double **messages);

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
/** report.json name of a category ("load_imbalance"); never NULL. */
const char *an_category_name(enum an_category c);
/** Label for a person ("load imbalance"); never NULL. */
const char *an_category_label(enum an_category c);
/** One-sentence remedy a person can act on; never NULL. */
const char *an_category_remedy(enum an_category c);

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

/** Writes the cause's culprit processes (world ranks) as "0, 3, 5" into
 *  buf (n bytes), ending ", ..." when the list was cut (nprocs_total >
 *  nprocs, or buf full); returns buf. */
char *an_cause_procs_text(const struct an_cause *c, char *buf, size_t n);

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

/** The run time costs are measured against (seconds): the largest run's wall
 *  time with a core per process, i.e. divided by its contention (wall /
 *  contention; contention counts the processes per core and other load
 *  alike).  The costs (CPU model, detect.c) are savings on that same machine,
 *  so a cost and the minimum it is compared with are in one model. */
double an_base_seconds(const struct an_analysis *a);
/** The share (0..1) of run r's wall time that its best-served process spent
 *  waiting for a core beyond what the job's own processes per core explain:
 *  1 - oversubscription / contention, 0 when the contention is the job's own
 *  (other jobs, OS noise; report.json runs[].other_load_share). */
double an_other_load_share(const struct an_run *r);
/** Warns for each process count whose representative run recorded no
 *  sample although its processes used CPU time (the program blocked or
 *  took the sampling signal): its computation is invisible (metrics.c). */
void an_warn_unsampled(struct an_analysis *a);
/** Warns (data quality) of shared cores: once for the process counts that are
 *  oversubscribed or contended (processes per core, slow-down), then of load
 *  from outside the job (other jobs, OS noise): the counts whose contention
 *  exceeds contention_max times their processes per core, with
 *  an_other_load_share of each. */
void an_warn_contention(struct an_analysis *a);
/** Share (0..1) of run r's CPU time (all threads, present processes)
 *  sampled inside the OpenMP runtime (an_run.omp_wait); *seconds (if not
 *  NULL): those CPU seconds, mean per process. */
double an_omp_runtime_share(const struct an_run *r, double *seconds);

/* ---- OpenMP through OMPT (ompt.c) ------------------------------------------ */
/** Adds rank's OMP record (if any) to r: its regions by vertex (nv: CCT node
 *  -> vertex; c resolves the fork's own line), the threads per process (the largest team; without OMPT the
 *  threads the runtime measured) and per core (ranks on the host times those
 *  threads over its usable cores).  Called by an_run_add_rank after
 *  ranks_on_host and usable_cores are set.  Aborts on allocation failure. */
struct an_attr_ctx;
void an_run_add_omp(struct an_run *r, struct an_attr_ctx *c, uint32_t rank, const struct prf_rank_data *d,
                    const uint32_t *nv);
/** The OMPT wait (barriers and sync, all threads) per process, in seconds
 *  into *seconds (may be NULL), and as a share of the threads' wall time
 *  (wall_max x threads per process); 0 without OMPT records. */
double an_ompt_wait_share(const struct an_run *r, double *seconds);
struct json_t;
/** runs[].openmp_regions: per region vertex its team size, instances and
 *  time per process, and each (rank, thread)'s waits in seconds (at most
 *  256 rows). */
struct json_t *an_ompt_regions_json(const struct an_run *r, const struct an_graph *g);
/** Warns, per process count, when at least a tenth of the threads' CPU time
 *  was spent inside the OpenMP runtime (barrier and lock spinning,
 *  scheduling), with the wait policy that lets such threads sleep. */
void an_warn_omp_runtime(struct an_analysis *a);
/** The smallest cost that may be reported (seconds): max(min_cost_seconds,
 *  min_cost_percent of an_base_seconds). */
double an_min_cost(const struct an_analysis *a);
/** Confronts a computation cause (culprits c->procs, not at an MPI call) of
 *  run r with the work counters: when the culprits did the others' work
 *  more slowly, c becomes undecided (a candidate) and a data-quality warning
 *  names the processes and the code; when they did more, c's evidence says
 *  by how much.  Returns the verdict (AN_WORK_SAME: c was judged speed, not work). */
enum an_work_verdict an_work_judge_cause(struct an_analysis *a, const struct an_run *r, struct an_cause *c);
/** Confronts a cause with culprits c->procs (not all present ranks) of run r
 *  with their contention: when the culprits computed at least 1.3x slower in
 *  wall time than in CPU time beyond the job's own processes per core, and
 *  1.3x the others, another job delayed them; c becomes undecided and a
 *  data-quality warning ("interference: ...") names the processes and the
 *  cause (interference.c).  Returns 1 then, else 0. */
int an_interference_judge_cause(struct an_analysis *a, const struct an_run *r, struct an_cause *c);

/** Adds a warning line to the report (printf-style). */
void an_warn(struct an_analysis *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** Groups runs by process count (ascending), picks the representatives. */
void an_group_scales(struct an_analysis *a);
/** Per-vertex metrics, models, scaling loss and flags. */
void an_compute_metrics(struct an_analysis *a);
/** Symptoms, backtracking, classification, ranking (fills a->causes). */
void an_find_root_causes(struct an_analysis *a);
/** Wait of each process at vertex v in run r, in seconds: collectives
 *  t_i - min_j t_j over the members of the same communicator; point-to-point
 *  and completions t_i - calls_i * (shortest single call over processes).
 *  Not discounted for oversubscription (callers that report a wait as its own
 *  cause divide by the run's factor).  out has P entries.  Returns the sum. */
double an_waits(const struct an_analysis *a, const struct an_run *r, uint32_t v, double *out);
/** An upper bound of the largest wait an_waits gives at vertex v in run r
 *  (seconds), from the vertex's statistics alone (no per-process values):
 *  collectives max - min of the callers' MPI time, point-to-point the
 *  largest MPI time.  The detectors skip a vertex whose bound is under their
 *  threshold, so that a parallel analysis fetches only the others. */
double an_waits_bound(const struct an_analysis *a, const struct an_run *r, uint32_t v);
/** Phases: per phase name and process count, mean and max over processes of
 *  the time inside, max/mean, a scaling model of the mean and the scaling
 *  efficiency at the largest count; warnings for an imbalanced or
 *  non-scaling phase (thresholds imbalance, scaling_ratio, minimum cost).
 *  Returns the report.json array "phases" (json_t *, as void *). */
void *an_phases_json(struct an_analysis *a);
/** Builds report.json (jansson json_t *, returned as void * to keep jansson
 *  out of this header). */
void *an_report_build(const struct an_analysis *a);
/** Sets report's tool.analyzer_peak_rss_bytes from a->peak_rss (one value
 *  per analyzer process, bytes): the parallel analyzer knows the other
 *  processes' peaks only once the report is built (an_par_done). */
void an_report_set_peaks(void *report, const struct an_analysis *a);

/* ---- Run sets and before/after comparison (runsets.c, compare.c) ------------ */

/** Whether dir holds run.json or a profile-*.sclp (a run directory). */
int an_is_run_dir(const char *dir);
/** Appends to (*out, *n) the run directories path names (malloc'ed strings):
 *  path itself when it is a run directory or not a directory (read_run then
 *  says what is wrong), else the run directories below it, up to three levels
 *  deep, sorted by path (a study: one directory per run); repeated and
 *  trailing slashes of path are dropped ("run//" -> "run").  Returns how many
 *  were appended (at least 1). */
int an_expand_run_dirs(const char *path, char ***out, int *n);
/** The runs of one build: every run.json with this build-id. */
struct an_build {
    char *build_id, *executable; /* "" for the group of runs without run.json or build-id */
    char **dirs; int ndirs;      /* borrowed from the caller's list */
    uint64_t first_start_ns;     /* earliest start_realtime_ns of its runs */
    int available;               /* its binary can be read (its path or a run's copy) */
};
/** Groups dirs by the build-id of their run.json, the build whose first run
 *  started first first (before, then after).  Runs with no readable run.json
 *  or no build-id, and runs of a build whose binary is nowhere (neither at
 *  its path with its build-id nor as a run's copy), join the first build that
 *  can be read (the reader refuses them by name).  Returns the group count
 *  (>= 1). */
int an_group_builds(char **dirs, int n, struct an_build **out);
void an_builds_free(struct an_build *b, int n);
/** Line distance up to which a location counts as the same after a change
 *  (edits above a loop shift it; compare.c, docs/analyzer.md). */
#define AN_COMPARE_LINE_SHIFT 20
/** The "comparison" object of report.json from the reports (json_t *) of
 *  the build before and after a change: root causes matched by category and
 *  location (status gone, remains, changed, new, each with its cost before
 *  and after and the time of its location per process count), and the wall
 *  time per process count present in both.  Never NULL. */
void *an_compare_reports(const void *before, const void *after);
/** Predicted against measured (saving.c): adds to each gone or changed cause
 *  of comparison (json_t *, an_compare_reports' object of the reports
 *  before and after) the saving its before report predicted
 *  (predicted_saving_seconds: its saved_seconds, at cost_processes_before
 *  processes), the seconds the program saved with a core per process, as
 *  the costs are (each run's wall / contention; measured_saving_seconds at
 *  that count, or the largest common one when the before build's largest
 *  count is not common; measured_wall_saving_seconds the plain wall time's;
 *  measured_saving per common count, each with the larger repetition spread
 *  as noise_seconds)
 *  and prediction_error = (predicted - measured) / |measured| (null when
 *  nothing was measured); with several such causes their predictions are
 *  summed against the one measured saving (prediction_combined: how many).
 *  Also sets comparison.saving_check, the sum.  Cannot fail (aborts on
 *  allocation failure). */
void an_compare_savings(void *comparison, const void *before, const void *after);
void an_analysis_free(struct an_analysis *a);

/* ---- Progress ------------------------------------------------------------------ */
void an_progress(const struct an_options *o, const char *what, uint64_t done, uint64_t total);
void an_progress_end(const struct an_options *o);

/* ---- Structure from machine code (binstruct/recover.c) --------------------- */

/** For an executable without an embedded PSG: the PSG recovered from its
 *  machine code (docs/binstruct.md), through the cache unless --psg-cache
 *  off.  Returns 1 with out filled and a->psg_recovered set, 0 when there is
 *  none (--no-recover, or recovery failed); warns once either way. */
int an_recover_structure(struct an_analysis *a, const char *exe, const char *build_id, struct psg_graph *out);
/** --recover-libs: joins to g (the executable's PSG, possibly empty) the PSG
 *  of every shared library of the application that the run in run_dir
 *  loaded (from its first readable profile; system and ScalAna libraries
 *  excluded): its embedded section, else recovered from its machine code.
 *  Returns the number of libraries joined (g replaced), 0 when none (g
 *  untouched); warns about each library left out. */
int an_recover_libraries(struct an_analysis *a, const char *exe, const char *build_id, const char *run_dir,
                         struct psg_graph *g);

#endif
