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

/* Iterations of the innermost busy loop between two CPU-clock reads (~0.1 ms). */
#define EX_INNER 100000

/* One run of an example: who we are and what the command line asked for. */
struct ex_run {
    const char *name;   /* example name, e.g. "load_imbalance" */
    int rank, size;     /* world rank and process count */
    int defect;         /* 1: the planted defect is on (default), 0: off */
    double scale;       /* multiplies every amount of work (default 1) */
    double wall_start;  /* MPI_Wtime() after MPI_Init */
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

/* MPI_Init, then the switch: environment first, then the command line.
 * Exits with status 2 (after MPI_Finalize) on a bad argument. */
static void ex_init(struct ex_run *run, int *argc, char ***argv, const char *name)
{
    MPI_Init(argc, argv);
    memset(run, 0, sizeof *run);
    run->name = name;
    run->defect = 1;
    run->scale = 1.0;
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

/* What was planted, for the ground-truth report. */
struct ex_truth {
    const char *category;   /* report.schema.json category, or NULL for none */
    const char *file;       /* source file of the planted code (__FILE__) */
    int loop_first, loop_last;  /* the planted loop (or statement) */
    int stmt_first, stmt_last;  /* the statement that runs it, at its call site */
};

/* Gathers every rank's planted flag and extra CPU seconds (measured, relative to
 * the defect-off program) on rank 0 and prints the ground truth there: one line
 * for people, one "SCALANA_GROUND_TRUTH {json}" line for the end-to-end tests.
 * cost_seconds: run time the defect is expected to cost, as extra CPU seconds of
 * one planted rank.  Collective over MPI_COMM_WORLD. */
static void ex_report(const struct ex_run *run, const struct ex_truth *t,
                      int planted, double extra_cpu_seconds, double cost_seconds)
{
    double mine[2] = { planted ? 1.0 : 0.0, extra_cpu_seconds };
    double *all = NULL;
    if (run->rank == 0) all = (double *)malloc(sizeof(double) * 2 * (size_t)run->size);
    MPI_Gather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (run->rank != 0) return;
    double wall = MPI_Wtime() - run->wall_start;
    const char *base = strrchr(t->file, '/');
    base = base ? base + 1 : t->file;
    int nplanted = 0;
    for (int r = 0; r < run->size; r++) nplanted += all[2 * r] != 0.0;
    int on = run->defect && t->category && nplanted > 0;

    printf("ground truth: %s, %d processes, defect %s, run %.2f s\n", run->name, run->size,
           run->defect ? "on" : "off", wall);
    if (on) {
        printf("ground truth: planted %s at %s:%d-%d (run from %s:%d), on rank(s)", t->category,
               base, t->loop_first, t->loop_last, base, t->stmt_first);
        for (int r = 0; r < run->size; r++)
            if (all[2 * r] != 0.0) printf(" %d (+%.3f s)", r, all[2 * r + 1]);
        printf("; expected cost %.3f s\n", cost_seconds);
    } else {
        printf("ground truth: nothing planted in this run; expected: no root cause above 1%% of run time\n");
    }

    printf("SCALANA_GROUND_TRUTH {\"example\": \"%s\", \"processes\": %d, \"defect\": %s, "
           "\"run_seconds\": %.6f, \"category\": ", run->name, run->size,
           run->defect ? "true" : "false", wall);
    if (on) printf("\"%s\"", t->category); else printf("null");
    printf(", \"file\": \"%s\", \"loop\": [%d, %d], \"statement\": [%d, %d], \"ranks\": [",
           t->file, t->loop_first, t->loop_last, t->stmt_first, t->stmt_last);
    for (int r = 0, n = 0; on && r < run->size; r++)
        if (all[2 * r] != 0.0) printf("%s%d", n++ ? ", " : "", r);
    printf("], \"extra_cpu_seconds\": [");
    for (int r = 0, n = 0; on && r < run->size; r++)
        if (all[2 * r] != 0.0) printf("%s%.6f", n++ ? ", " : "", all[2 * r + 1]);
    printf("], \"cost_seconds\": %.6f}\n", on ? cost_seconds : 0.0);
    fflush(stdout);
    free(all);
}

#endif /* SCALANA_EXAMPLE_H */
