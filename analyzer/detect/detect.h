/* detect.h — the root-cause engine's detector interface.  A detector is one
 * kind of cause: its symptom rule (which vertices look wrong, flagged in
 * a->vflags), its test or backward walk (which code is to blame), and the
 * cause it adds with its evidence text.  detect/find.c runs every detector of
 * detectors/detectors.def in order, then merges causes that nest, moves the
 * ones under the thresholds to the candidates and ranks the rest.
 *
 * Adding a detector: write analyzer/detect/detectors/NAME.c defining
 *     const struct an_detector an_detector_NAME = {"NAME", "rule", mark, find};
 * and add the line AN_DETECTOR(NAME) to analyzer/detect/detectors/detectors.def.
 * (CMake picks up every file in detectors/.)  Use the helpers below for
 * culprits, costs, locations and causes, and take every number from the
 * thresholds table (core/options.c).  Not a public API. */
#ifndef SCALANA_ANALYZER_DETECT_H
#define SCALANA_ANALYZER_DETECT_H

#include "core/types.h"
#include <stdio.h>

/** State shared by the detectors of one analysis: the representative run at
 *  the largest process count and program-order neighbours of every vertex. */
struct an_detect {
    struct an_analysis *a;
    const struct an_run *r;      /* representative run at the largest count */
    const struct an_scale *big;  /* the largest count */
    uint32_t N, P;               /* vertices, processes of r */
    double min_cost;             /* an_min_cost(a), seconds */
    uint32_t *prev, *last_child; /* [N] previous sibling, last child (AN_NONE) */
};

/** One detector: name (report and docs), its symptom rule in one line, and
 *  two steps.  mark() flags symptoms in a->vflags (AN_F_*; may be NULL);
 *  find() adds causes with an_cause_get.  All marks run before all finds;
 *  finds run in table order, so a later detector sees earlier causes. */
struct an_detector {
    const char *name;
    const char *symptom;
    void (*mark)(struct an_detect *d);
    void (*find)(struct an_detect *d);
};

#define AN_DETECTOR(name) extern const struct an_detector an_detector_##name;
#include "detectors/detectors.def"
#undef AN_DETECTOR

/** The detectors in the order they run; an_detector_count of them. */
extern const struct an_detector *const an_detectors[];
extern const size_t an_detector_count;

/* ---- Per-process evidence --------------------------------------------------- */

/** Work of vertex c on process i: inclusive CPU seconds plus the GPU device
 *  seconds launched from its subtree (a process that launches more GPU work
 *  arrives later where it synchronises). */
double an_work(const struct an_vrun *x, uint32_t i);

/** Two groups of processes: the heavy ones and the rest. */
struct an_split {
    uint32_t *heavy; uint32_t nheavy;   /* world ranks, ascending (malloc'ed) */
    double heavy_mean, light_mean, mean, max, median; /* of the values, over present processes */
    double p_value;                     /* sampled: exact Poisson test; measured: 0 */
    double k_heavy, k_light;            /* sampled: sample counts per process of each group */
    int significant;                    /* passes the test (see an_split_values) */
};

/** Splits the present processes of run r by value x[i] into a heavy and a
 *  light group, at the split that best separates them (largest z of the
 *  difference of the group means of sample counts, or between-group variance
 *  for measured values), so that k heavy processes of p are all found.
 *  Sampled values (seconds, period > 0): significant when the heavy group's
 *  count per process exceeds the light group's at alpha / (n - 1) (exact
 *  conditional Poisson test, exposures nheavy : nlight; Bonferroni over the
 *  n - 1 possible splits) and heavy_mean / mean >= imbalance (POP load-balance
 *  efficiency below 0.8).  Measured values (period 0: exact times) need only
 *  the ratio and heavy_mean - mean >= symptom_share x min cost.  Always fills
 *  out; free out->heavy with an_split_free. */
void an_split_values(const struct an_detect *d, const double *x, double period, struct an_split *out);
void an_split_free(struct an_split *s);

/** The saving of balancing values x over the present processes: the mean of
 *  the critical (heavy) group minus the mean of all (seconds: balanced, every
 *  process would take the mean).  The group is the split of largest
 *  between-group variance (for one heavy process: max - mean); its mean, not
 *  the max, so that the noisiest of k heavy processes does not set the cost. */
double an_balance_saving(const struct an_run *r, const double *x);

/* ---- What a fix saves: the CPU model ------------------------------------------ */

/** Run time of a phase whose processes have w[0..n) CPU seconds of work on
 *  `cores` cores under fair processor sharing (while a > cores processes are
 *  active each gets cores/a of a core; a waiting process uses none); seconds.
 *  Without oversubscription (cores >= n) this is max w.  Reorders w. */
double an_shared_time(double *w, uint32_t n, double cores);

/** The saving of removing delta[i] seconds of work from each process i of run
 *  r (negative: work added), in the CPU model: shared time of the phase with
 *  the work as measured minus with the fix, on the run's cores (processes /
 *  ranks per usable core).  The phase is the exact computation interval
 *  before MPI vertex phase_vertex when the run recorded intervals, else the
 *  whole run (its sampled computation per process).  With work (the cause's
 *  own seconds per process; may be NULL) each process's phase is work[i]
 *  plus the mean over processes of the rest of the phase: the cause's saving
 *  on its own, not hidden by the sampling noise or other causes of the rest. */
double an_model_saving(const struct an_analysis *a, const struct an_run *r, uint32_t phase_vertex,
                       const double *work, const double *delta);

/** What fixing a computation cause means for its work V at vertex v. */
enum an_fix {
    AN_FIX_EXCESS,  /* load imbalance, late sender: the culprits do no more than the others */
    AN_FIX_SPREAD   /* serial bottleneck: the work spread evenly over all processes */
};

/** How to fix an imbalance: compare the culprits' excess E (their values
 *  x[i] above the others' mean, summed; heavy[i] marks them) with how much
 *  the total of x grew from t0, the total at the smallest count p0, beyond
 *  the ideal (strong: the same total; weak: x P/p0), G.  Unless G is clearly
 *  below E/2 (G + 2 standard deviations of its sampling noise, period > 0 for
 *  sampled values, 0 for exact ones), the excess is work added on the
 *  culprits (2 of 8 ranks with 3x their share: G = E): remove it
 *  (AN_FIX_EXCESS).  Else the amount is fixed and only its distribution is
 *  wrong (rank 0 with 2 of p + 1 parts of a fixed total: G = 0): spread it
 *  evenly (AN_FIX_SPREAD).  t0 <= 0 (no smaller count): AN_FIX_EXCESS. */
enum an_fix an_fix_kind(const struct an_detect *d, const double *x, double t0, uint32_t p0, const uint8_t *heavy,
                        double period);
/** an_fix_kind on the work (an_work) of vertex v with culprits procs, its
 *  sampled totals; one count: AN_FIX_EXCESS. */
enum an_fix an_imbalance_fix(const struct an_detect *d, uint32_t v, const uint32_t *procs, uint32_t np);

/** The saving of fixing the work at vertex v (culprits procs) at the largest
 *  count in the CPU model (an_model_saving), the median over the repetitions
 *  there; *spread (may be NULL) gets max - min over them.  Inside an OpenMP
 *  region each process's work is divided by its team's threads (an_omp_team):
 *  CPU seconds of T threads are 1/T of them in wall time. */
double an_fix_saving(const struct an_detect *d, uint32_t v, uint32_t phase_vertex, const uint32_t *procs,
                     uint32_t np, enum an_fix fix, double *spread);

/* ---- Causes --------------------------------------------------------------------- */

/** The cause at vertex v (moved up to the nearest application vertex with a
 *  source location); a new zeroed one (symptom AN_NONE) or the existing one
 *  with merged set.  Aborts on allocation failure. */
struct an_cause *an_cause_get(struct an_analysis *a, uint32_t v);
/** Sets the culprit list (takes procs, frees the old list) unless the cause
 *  already names at least as many. */
void an_cause_procs(struct an_cause *c, uint32_t *procs, uint32_t n);
/** Appends a sentence to the evidence ("; " between); one that does not fit
 *  whole is left out. */
void an_cause_evidence(struct an_cause *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** Gives c a one-step path (its vertex on process p, edge "root") if it has none. */
void an_cause_root_path(struct an_cause *c, uint32_t p);
/** Adds to the waiting processes of c (the union over its symptoms) those
 *  whose waits[i] (seconds, per world rank) are at least waiting_share of the
 *  largest, never one of its culprits.  Returns how many wait at this symptom
 *  and, in *wait_sum (may be NULL), their wait in process-seconds. */
uint32_t an_cause_waiting(const struct an_detect *d, struct an_cause *c, const double *waits, double *wait_sum);

/** Computation category of culprit code v (culprits procs): serial_bottleneck
 *  when the other processes spend less than serial_share of the culprits'
 *  time there and the culprits' time does not shrink with p (log-log slope of
 *  the max above flat_slope; unknown with one count), else load_imbalance.  See docs/analyzer.md, Categories. */
/** 1 when MPI vertices x and y are one call site: the same operation at the
 *  same file, line and column (one MPI call reached through several calling
 *  contexts). */
int an_same_call_site(const struct an_vertex *x, const struct an_vertex *y);

/** Puts first among the n vertices v the one with the most mean time per
 *  process at the largest count (where a cause judged over several calling
 *  contexts is reported).  Returns 0 when none is present there (the group
 *  is then no symptom), else 1. */
int an_most_time_first(const struct an_analysis *a, uint32_t *v, uint32_t n);

/** The iteration anchor of vertex v: the outermost LOOP above it inside its
 *  function, else that function (a dynamic function vertex counts); AN_NONE
 *  at the root.  The point-to-point calls of one anchor are one exchange
 *  (detectors/exchange.c) and one stage of a pipeline (detectors/waits.c). */
uint32_t an_iteration_anchor(const struct an_graph *g, uint32_t v);

/** 1 when v is a LOOP that every process reaches: the compiler pass's
 *  structure graph has no BRANCH between v and main, no vertex lifted out of
 *  a folded branch arm (PSG_V_CONDITIONAL) and no dynamic vertex on the way,
 *  and its units mark conditionals (PSG_UNIT_MARKS_CONDITIONAL).  Processes that spend nothing there ran
 *  it zero times (all particles on one rank): the same code with unequal
 *  amounts, load imbalance, not a serial section or a late sender's own work.
 *  0 for structure recovered from machine code, which has no branches. */
int an_unconditional_loop(const struct an_analysis *a, uint32_t v);
enum an_category an_classify_computation(const struct an_detect *d, uint32_t v, const uint32_t *procs,
                                         uint32_t nprocs);

/** Location rule: from vertex v, descends into the child that holds more than
 *  location_share of score(child), repeatedly (the innermost loop, call or
 *  block holding most of the excess); score(v) is the excess of v.  Library
 *  code and vertices without a source location are skipped. */
uint32_t an_locate(const struct an_detect *d, uint32_t v, double (*score)(void *ctx, uint32_t v), void *ctx);

/** The location rule from a vertex met anywhere in the tree (a flagged leaf,
 *  a walked candidate): climb while v holds more than location_share of its
 *  parent's score (the rule would descend back into it), then an_locate from
 *  there, so the result does not depend on where the vertex was met (a
 *  timer's call inside a loop gives the loop). */
uint32_t an_locate_from(const struct an_detect *d, uint32_t v, double (*score)(void *ctx, uint32_t v), void *ctx);

/** Fixed groups of processes for an_group_excess. */
struct an_groups {
    const struct an_detect *d;
    const uint8_t *heavy;        /* [P] 1 for a culprit */
};
/** Excess of v's work (an_work) on the heavy group: mean over the heavy
 *  processes minus mean over the others, seconds (score for an_locate, ctx an
 *  an_groups).  Additive over the children of a vertex, so "a child holds
 *  most of the excess" is well defined. */
double an_group_excess(void *ctx, uint32_t v);
/** an_locate_from v by an_group_excess with culprits procs[np] (world
 *  ranks < d->P) as the heavy group: where below v the culprits' excess is.
 *  Aborts on allocation failure. */
uint32_t an_locate_culprits(const struct an_detect *d, uint32_t v, const uint32_t *procs, uint32_t np);

/** Whether vertex v launched GPU work on any process of r. */
int an_launches_gpu(const struct an_run *r, uint32_t v);
/** Whether a cause already sits at, above or below v, or was found from v. */
int an_covered_by_cause(const struct an_analysis *a, uint32_t v);
/** Whether v is application code with a source location (may be a cause). */
int an_actionable(const struct an_graph *g, uint32_t v);

#endif
