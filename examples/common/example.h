/* example.h — helpers shared by the planted C/C++ examples: CPU-time busy work,
 * the --defect switch, and the ground-truth lines each example prints at the end.
 * Header-only on purpose: each example is a single translation unit. */
#ifndef SCALANA_EXAMPLE_H
#define SCALANA_EXAMPLE_H

/* C++: the C API only (no deprecated C++ bindings, no libmpi_cxx). */
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Iterations of the innermost busy loop between two CPU-clock reads (~0.1 ms). */
#define EX_INNER 100000

/* One run of an example: who we are and what the command line asked for. */
struct ex_run {
    const char *name;   /* example name, e.g. "load_imbalance" */
    int rank, size;     /* world rank and process count */
    int defect;         /* 1: the planted defect is on (default), 0: off */
    double scale;       /* multiplies every amount of work (default 1) */
    double wall_start;  /* MPI_Wtime() after MPI_Init */
    int same_at_one;    /* 1 (default): at 1 process the defect switch changes nothing, the
                         * program runs the defect-off code; an example whose planted code
                         * differs even there (another collective) sets 0 */
};

/* CPU time of the calling thread, in seconds.  Thread, not process, CPU time:
 * MPI progress threads and the profiler's threads must not count as work. */
static inline double ex_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void ex_usage(const char *prog)
{
    fprintf(stderr, "usage: %s [--defect=on|off] [--no-defect] [--scale=FACTOR]\n"
                    "  --defect=on|off  turn the planted defect on (default) or off\n"
                    "  --no-defect      same as --defect=off\n"
                    "                   (environment: SCALANA_EXAMPLE_DEFECT=on|off)\n"
                    "  --scale=FACTOR   multiply every amount of work by FACTOR (default 1)\n"
                    "                   (environment: SCALANA_EXAMPLE_SCALE)\n", prog);
}

static int ex_parse_onoff(const char *s, int *out)
{
    if (!strcmp(s, "on") || !strcmp(s, "1") || !strcmp(s, "yes")) { *out = 1; return 0; }
    if (!strcmp(s, "off") || !strcmp(s, "0") || !strcmp(s, "no")) { *out = 0; return 0; }
    return -1;
}

/* The defect's default, fixed when the program is compiled: -DEX_DEFECT_DEFAULT=0
 * builds the program with the defect fixed (another binary, another build-id:
 * the before/after test, tests/e2e/before_after.py); the switch still overrides it. */
#ifndef EX_DEFECT_DEFAULT
#define EX_DEFECT_DEFAULT 1
#endif

/* MPI_Init, then the switch: environment first, then the command line.
 * Exits with status 2 (after MPI_Finalize) on a bad argument. */
static void ex_init(struct ex_run *run, int *argc, char ***argv, const char *name)
{
    MPI_Init(argc, argv);
    memset(run, 0, sizeof *run);
    run->name = name;
    run->defect = EX_DEFECT_DEFAULT;
    run->scale = 1.0;
    run->same_at_one = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &run->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &run->size);
    int bad = 0;
    const char *env = getenv("SCALANA_EXAMPLE_DEFECT");
    if (env && ex_parse_onoff(env, &run->defect)) bad = 1;
    env = getenv("SCALANA_EXAMPLE_SCALE");
    if (env) run->scale = atof(env);
    for (int i = 1; i < *argc; i++) {
        const char *a = (*argv)[i];
        if (!strncmp(a, "--defect=", 9)) { if (ex_parse_onoff(a + 9, &run->defect)) bad = 1; }
        else if (!strcmp(a, "--no-defect")) run->defect = 0;
        else if (!strcmp(a, "--defect")) run->defect = 1;
        else if (!strncmp(a, "--scale=", 8)) run->scale = atof(a + 8);
        else bad = 1;
    }
    if (!(run->scale > 0)) bad = 1;
    if (bad) {
        if (run->rank == 0) ex_usage((*argv)[0]);
        MPI_Finalize();
        exit(2);
    }
    run->wall_start = MPI_Wtime();
}

/* Cores the run may use, for the CPU model below: SCALANA_EXAMPLE_CORES when set
 * (the end-to-end tests pass the cores they see), else the online CPUs.  Not the
 * affinity mask: mpirun may bind each rank to one core. */
static int ex_cores(void)
{
    const char *env = getenv("SCALANA_EXAMPLE_CORES");
    int n = env ? atoi(env) : 0;
    if (n <= 0) {
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        n = online > 0 ? (int)online : 1;
    }
    return n;
}

/* Wall seconds a phase of CPU-bound work takes on `cores` cores when every
 * process that still has work gets an equal share of them (processor sharing,
 * the kernel's fair scheduler on an otherwise idle machine) and a waiting process
 * uses no CPU.  work[0..n-1]: CPU seconds of each process in the phase; the phase
 * ends when the last one is done (the collective that closes it).  Reordered. */
static inline double ex_phase_seconds(double *work, int n, int cores)
{
    for (int i = 1; i < n; i++)   /* insertion sort: n is a process count */
        for (int j = i; j > 0 && work[j - 1] > work[j]; j--) {
            double t = work[j]; work[j] = work[j - 1]; work[j - 1] = t;
        }
    double t = 0.0, done = 0.0;
    for (int i = 0; i < n; i++) {
        int active = n - i;
        double rate = active > cores ? (double)cores / active : 1.0;
        t += (work[i] - done) / rate;
        done = work[i];
    }
    return t;
}

/* Load imbalance as extra work: with the defect on, a heavy rank owns heavy_parts
 * fair shares (1/p of the work each), every other rank one; with it off every
 * rank owns one.  The excess is work the heavy ranks need not do, so the
 * defect-off run is the fix "bring the heavy ranks down to the others", and the
 * defect costs wall time even where the ranks share a few cores (a fixed total
 * redistributed among 8 processes on 2 cores would cost next to nothing there).
 * heavy: this rank is heavy and the defect is on. */
static inline double ex_parts(int heavy, double heavy_parts)
{
    return heavy ? heavy_parts : 1.0;
}

/* CPU seconds that `rank` of `size` spends in `phase` of one iteration, with the
 * defect on (defect 1) or off (0).  ctx: the example's own parameters.  The
 * examples pass their work() by name to EX_MODEL_SAVINGS (no function pointers:
 * a call through one would make the structure graph keep the call). */
typedef double (*ex_work_fn)(int rank, int size, int defect, int phase, const void *ctx);

/* The run time the defect costs at `size` processes on `cores` cores, in the CPU
 * model: niter x the sum over phases of ex_phase_seconds(defect on) minus
 * ex_phase_seconds(defect off).  won/woff: CPU seconds of rank r in phase ph at
 * [ph * size + r], defect on and off.  This is the saving a rerun with the defect
 * off shows on an idle machine with those cores (cores >= size: a core per
 * process, where each phase takes as long as its busiest process). */
static inline double ex_model_saving(int size, int cores, int niter, int nphases,
                                     const double *won, const double *woff)
{
    double *w = (double *)malloc(sizeof(double) * (size_t)size), saving = 0.0;
    for (int ph = 0; ph < nphases; ph++) {
        memcpy(w, won + (size_t)ph * size, sizeof(double) * (size_t)size);
        double on = ex_phase_seconds(w, size, cores);
        memcpy(w, woff + (size_t)ph * size, sizeof(double) * (size_t)size);
        saving += on - ex_phase_seconds(w, size, cores);
    }
    free(w);
    return niter * saving;
}

/* What was planted, for the ground-truth report. */
struct ex_truth {
    const char *category;   /* report.schema.json category, or NULL for none */
    const char *file;       /* source file of the planted code (__FILE__) */
    int loop_first, loop_last;  /* the planted loop's own lines (a collective: its loop) */
    int stmt_first, stmt_last;  /* the statement in the iteration loop that runs it */
    const char *function;   /* the function whose body holds the loop, as spelled in the
                             * source ("relax_cells", "RowSweep<double>::operator()") */
    const char *inlined;    /* space-separated functions the compiler must inline at -O2
                             * and above (checked by the tests), or NULL */
};

/* What one rank measured.  Rank 0's cost and saving are the ones printed. */
struct ex_result {
    int planted;               /* this rank carries the defect */
    double extra_cpu_seconds;  /* CPU seconds in the planted loop beyond the defect-off program */
    double cost_seconds;       /* expected cost: extra CPU seconds of one planted rank
                                * (a collective: the mean wall seconds in it) */
    double saving_seconds;     /* ex_model_saving() with a core per process, or -1 */
    double saving_on_cores_seconds;  /* ex_model_saving() on ex_cores() cores, or -1 */
    double comm_seconds;       /* wall seconds in the planted collective, or in what replaces
                                * it with the defect off; -1 where nothing is communication */
};

/* Fills both model savings of res (a core per process, and ex_cores() cores)
 * from the per-phase works won/woff (layout as ex_model_saving). */
static inline void ex_fill_savings(struct ex_result *res, int size, int niter, int nphases,
                                   const double *won, const double *woff)
{
    res->saving_seconds = ex_model_saving(size, size, niter, nphases, won, woff);
    res->saving_on_cores_seconds = ex_model_saving(size, ex_cores(), niter, nphases, won, woff);
}

/* EX_MODEL_SAVINGS(res, size, niter, nphases, work, ctx): evaluates the example's
 * work(rank, size, defect, phase, ctx) (an ex_work_fn, named, not a pointer) for
 * every rank and phase and fills res's model savings. */
#define EX_MODEL_SAVINGS(res, size, niter, nphases, work, ctx)                               \
    do {                                                                                     \
        size_t ex_n_ = (size_t)(size) * (size_t)(nphases);                                   \
        double *ex_on_ = (double *)malloc(sizeof(double) * ex_n_);                           \
        double *ex_off_ = (double *)malloc(sizeof(double) * ex_n_);                          \
        for (int ex_ph_ = 0; ex_ph_ < (nphases); ex_ph_++)                                   \
            for (int ex_r_ = 0; ex_r_ < (size); ex_r_++) {                                   \
                ex_on_[ex_ph_ * (size) + ex_r_] = work(ex_r_, (size), 1, ex_ph_, (ctx));     \
                ex_off_[ex_ph_ * (size) + ex_r_] = work(ex_r_, (size), 0, ex_ph_, (ctx));    \
            }                                                                                \
        ex_fill_savings((res), (size), (niter), (nphases), ex_on_, ex_off_);                 \
        free(ex_on_);                                                                        \
        free(ex_off_);                                                                       \
    } while (0)

/* Gathers every rank's planted flag, extra CPU seconds and collective seconds on
 * rank 0 and prints the ground truth there: one line for people, one
 * "SCALANA_GROUND_TRUTH {json}" line for the end-to-end tests (fields in
 * docs/examples.md).  Collective over MPI_COMM_WORLD. */
static void ex_report(const struct ex_run *run, const struct ex_truth *t, const struct ex_result *res)
{
    double mine[3] = { res->planted ? 1.0 : 0.0, res->extra_cpu_seconds, res->comm_seconds };
    double *all = NULL;
    if (run->rank == 0) all = (double *)malloc(sizeof(double) * 3 * (size_t)run->size);
    MPI_Gather(mine, 3, MPI_DOUBLE, all, 3, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (run->rank != 0) return;
    double wall = MPI_Wtime() - run->wall_start;
    const char *base = strrchr(t->file, '/');
    base = base ? base + 1 : t->file;
    int nplanted = 0;
    double comm = 0.0;
    for (int r = 0; r < run->size; r++) {
        nplanted += all[3 * r] != 0.0;
        comm += all[3 * r + 2] / run->size;
    }
    int on = run->defect && t->category && nplanted > 0;

    printf("ground truth: %s, %d processes, defect %s, run %.2f s\n", run->name, run->size,
           run->defect ? "on" : "off", wall);
    if (on) {
        printf("ground truth: planted %s at %s:%d-%d in %s (run from %s:%d), on rank(s)",
               t->category, base, t->loop_first, t->loop_last, t->function, base, t->stmt_first);
        for (int r = 0; r < run->size; r++)
            if (all[3 * r] != 0.0) printf(" %d (+%.3f s)", r, all[3 * r + 1]);
        printf("; expected cost %.3f s", res->cost_seconds);
        if (res->saving_seconds >= 0)
            printf(", saving %.3f s (%.3f s on %d cores)", res->saving_seconds,
                   res->saving_on_cores_seconds, ex_cores());
        printf("\n");
    } else {
        printf("ground truth: nothing planted in this run; expected: no root cause above 1%% of run time\n");
    }

    printf("SCALANA_GROUND_TRUTH {\"example\": \"%s\", \"processes\": %d, \"defect\": %s, "
           "\"run_seconds\": %.6f, \"category\": ", run->name, run->size,
           run->defect ? "true" : "false", wall);
    if (on) printf("\"%s\"", t->category); else printf("null");
    printf(", \"file\": \"%s\", \"loop\": [%d, %d], \"statement\": [%d, %d], \"function\": \"%s\", "
           "\"inlined\": [", t->file, t->loop_first, t->loop_last, t->stmt_first, t->stmt_last,
           t->function ? t->function : "");
    if (t->inlined) {   /* space-separated names -> JSON strings */
        const char *s = t->inlined;
        for (int n = 0; *s; n++) {
            while (*s == ' ') s++;
            size_t len = strcspn(s, " ");
            if (!len) break;
            printf("%s\"%.*s\"", n ? ", " : "", (int)len, s);
            s += len;
        }
    }
    printf("], \"ranks\": [");
    for (int r = 0, n = 0; on && r < run->size; r++)
        if (all[3 * r] != 0.0) printf("%s%d", n++ ? ", " : "", r);
    printf("], \"extra_cpu_seconds\": [");
    for (int r = 0, n = 0; on && r < run->size; r++)
        if (all[3 * r] != 0.0) printf("%s%.6f", n++ ? ", " : "", all[3 * r + 1]);
    printf("], \"cost_seconds\": %.6f, \"cores\": %d, \"saving_seconds\": ",
           on ? res->cost_seconds : 0.0, ex_cores());
    if (res->saving_seconds >= 0) printf("%.6f", on ? res->saving_seconds : 0.0);
    else printf("null");
    printf(", \"saving_on_cores_seconds\": ");
    if (res->saving_on_cores_seconds >= 0) printf("%.6f", on ? res->saving_on_cores_seconds : 0.0);
    else printf("null");
    printf(", \"comm_seconds\": ");
    if (res->comm_seconds >= 0) printf("%.6f", comm); else printf("null");
    /* inert: this run is the defect-off program (the tests reuse it for both series) */
    printf(", \"inert\": %s}\n", !run->defect || (run->size == 1 && run->same_at_one) ? "true" : "false");
    fflush(stdout);
    free(all);
}

/* The report of an example whose planted defect is communication: in_comm is
 * the wall seconds this rank spent in the planted calls (or, with the defect
 * off, in what replaces them); every rank with p > 1 carries the defect, and
 * the expected cost is the mean of in_comm over the ranks (the saving is
 * measured, defect on minus off: docs/examples.md).  Collective over
 * MPI_COMM_WORLD, like ex_report. */
static inline void ex_report_comm(const struct ex_run *run, const struct ex_truth *t, double in_comm)
{
    double mean = 0.0;
    MPI_Allreduce(&in_comm, &mean, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    mean /= run->size;
    int planted = run->defect && run->size > 1;
    struct ex_result res = { planted, planted ? in_comm : 0.0, mean, -1.0, -1.0, in_comm };
    ex_report(run, t, &res);
}

#endif /* SCALANA_EXAMPLE_H */
