/* options.c — the command line of scalana-analyze and the threshold table
 * (name, default, where the default comes from), which --help, --threshold,
 * report.json and docs/analyzer.md all read. */
#include "core/options.h"
#include "core/graph.h"
#include "core/types.h"
#include "scalana/psg_format.h"
#include "scalana/outputs.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stdio.h>

#ifndef SCALANA_VERSION_STRING
#define SCALANA_VERSION_STRING "0.1.0"
#endif

/* A threshold: its name (-t NAME=VALUE), where it lives, its default, the
 * values that make sense (lo..hi, each end open or closed; what says it in
 * words) and where the default comes from (--list-thresholds, report.json,
 * docs/analyzer.md).  Each entry parses, checks and prints itself. */
struct threshold_def {
    const char *name;
    size_t offset;
    double def;
    double lo, hi;
    int lo_open, hi_open;
    const char *what;
    const char *source;
};

#define TH(field) offsetof(struct an_thresholds, field)
static const struct threshold_def thresholds[] = {
    {"min_cost_percent", TH(min_cost_percent), 5.0, 0, 100, 0, 0, "a percentage from 0 to 100",
     "run-to-run variation of wall time on shared machines is several percent "
     "(Hoefler & Belli, Scientific Benchmarking of Parallel Computing Systems, SC15); "
     "a smaller cost cannot be told from noise"},
    {"min_cost_seconds", TH(min_cost_seconds), 0.01, 0, INFINITY, 0, 1, "seconds, 0 or more",
     "a few sampling periods at the default 1-10 ms period"},
    {"imbalance", TH(imbalance), 1.25, 1, INFINITY, 1, 1, "a max/mean ratio above 1",
     "POP CoE efficiency metrics: load-balance efficiency mean/max below 0.8 needs attention (1/0.8)"},
    {"alpha", TH(alpha), 0.01, 0, 1, 1, 1, "a significance level between 0 and 1 (exclusive)",
     "significance level of sample-count tests (stats.h SCALANA_ALPHA)"},
    {"min_samples", TH(min_samples), 97, 0, INFINITY, 0, 1, "a sample count, 0 or more",
     "time known to 20 % at 95 % confidence, (1.96/0.2)^2 (stats.h SCALANA_MIN_SAMPLES)"},
    {"scaling_ratio", TH(scaling_ratio), 1.25, 1, INFINITY, 1, 1, "a measured/ideal ratio above 1",
     "POP CoE: parallel (scaling) efficiency below 0.8, i.e. measured/ideal above 1/0.8"},
    {"outlier_z", TH(outlier_z), 3.5, 0, INFINITY, 1, 1, "a z-score above 0",
     "modified z-score of an outlier (Iglewicz & Hoaglin 1993; stats.h SCALANA_OUTLIER_Z)"},
    {"max_steps", TH(max_steps), 256, 1, 1e6, 0, 0, "a step count from 1 to 1000000",
     "backtracking step bound (halo exchanges are cyclic)"},
    {"serial_share", TH(serial_share), 0.02, 0, 1, 0, 0, "a fraction from 0 to 1",
     "serial bottleneck: the other processes spend less than this share of the culprits' time there "
     "(code only the culprits run has no sample elsewhere; LULESH -b 4 -c 8's other ranks run rank 0's "
     "region loop with 3-15 % of its time: load imbalance)"},
    {"flat_slope", TH(flat_slope), -0.25, -INFINITY, 0, 1, 0, "a log-log slope, 0 or below",
     "a log-log slope between this and its negative is flat: constant in p, a serial section "
     "(ideal strong scaling is -1; 0.25 is under 16 % change per doubling)"},
    {"rotation", TH(rotation), 0.6, 0, 1, 0, 0, "a fraction from 0 to 1",
     "blame rotates when no peer completes last in this share of the waits (a consistent late "
     "sender completes last nearly always; two alternating neighbours give 0.5)"},
    {"gpu_busy_share", TH(gpu_busy_share), 0.5, 0, 1, 0, 0, "a fraction from 0 to 1",
     "gpu_idle: host code is blamed for the GPU's idle time only when the GPUs were busy less "
     "than this share of the run (engineering choice: the GPU idled more than it worked)"},
    {"matrix_max", TH(matrix_max), 256, 0, INFINITY, 0, 1, "a process count, 0 or more",
     "largest process count whose rank x rank matrix is written to report.json (P^2 numbers)"},
    {"location_share", TH(location_share), 0.5, 0, 1, 1, 0, "a fraction in (0, 1]",
     "location rule: a cause moves into the child (loop, call, block) that holds more than this "
     "share of its excess time, i.e. most of it"},
    {"waiting_share", TH(waiting_share), 0.1, 0, 1, 0, 0, "a fraction from 0 to 1",
     "a process counts as waiting at a symptom when its wait is at least this share of the "
     "largest (smaller waits are the noise of a balanced exchange)"},
    {"symptom_share", TH(symptom_share), 0.5, 0, INFINITY, 0, 1, "a factor, 0 or more",
     "a wait is a symptom, and a measured (not sampled) difference evidence, from this share of "
     "the minimum cost: half, so that two symptoms of one cause can add up to it"},
    {"unexplained_factor", TH(unexplained_factor), 2, 0, INFINITY, 0, 1, "a factor, 0 or more",
     "a wait no computation explains is its own cause from this many minimum costs: it has no "
     "culprit code, so it must stand clearly above noise"},
    {"contention_max", TH(contention_max), 1.5, 1, INFINITY, 0, 1, "a slowdown factor, 1 or more",
     "contention (wall/CPU of the best-served process) above which waits that no computation "
     "explains are left to the scheduler (a third of the time lost to other processes)"},
    {"bandwidth_bytes", TH(bandwidth_bytes), 65536, 0, INFINITY, 0, 1, "bytes, 0 or more",
     "bytes per call above which a transfer is bandwidth-bound: MPI eager limits are 4-64 KiB "
     "(Open MPI shared memory and TCP, MPICH 64 KiB)"},
    {"weak_slope", TH(weak_slope), 0.5, 0, 1, 1, 1, "a log-log slope between 0 and 1 (exclusive)",
     "scaling mode: total work (CPU seconds over processes) growing with a log-log slope above "
     "this is weak scaling (strong: slope 0, weak: slope 1; halfway)"},
    {"scaling_band", TH(scaling_band), 0.25, 0, 1, 0, 0, "a slope difference from 0 to 1",
     "the detected scaling mode is uncertain (a warning) when the total-work slope lies within "
     "this of weak_slope"},
    {"back_to_back_share", TH(back_to_back_share), 0.5, 0, 1, 1, 0, "a fraction in (0, 1]",
     "on a contended run a collective is judged on its calls made back to back (no computation "
     "since the previous MPI call) when they are most of its calls (more than half)"},
    {"noise_sigmas", TH(noise_sigmas), 2.5, 0, INFINITY, 0, 1, "a number of standard deviations, 0 or more",
     "a root cause's cost must stand this many standard deviations of its sampling noise "
     "(cost_noise_seconds) above zero: a one-sided normal test at 0.6 %, so that one of the "
     "tens of candidates of a run is not a root cause by chance (5 samples of 5 ms give 2)"},
    {"contended_imbalance", TH(contended_imbalance), 1.6, 1, INFINITY, 0, 1, "a CPU-time ratio, 1 or more",
     "without a work measure and without a run with a core per process, a load imbalance whose "
     "culprits spent under this ratio of the others' CPU time on a contended run is undecided: "
     "beside two CPU hogs miniFE's equal matvec rows took 1.44x the CPU time on one process; the "
     "planted imbalances are 2x and more"},
    {"speed_max", TH(speed_max), 3, 1, INFINITY, 0, 1, "a CPU-time ratio, 1 or more",
     "the same loop iterations in more than this many times the others' CPU time is not a slower "
     "core but work the counters do not see (memcpy of more bytes, straight-line code): judged "
     "by time; shared caches, memory bandwidth and a busy hyperthread sibling slow the same work "
     "up to about 2x (miniFE's matvec beside two CPU hogs: 1.44x), PRK PIC's particle attach "
     "loop ran 4 iterations everywhere and 0.84 s of memcpy on two processes against none"},
};
#define NTH (sizeof thresholds / sizeof *thresholds)

int an_threshold_at(const struct an_thresholds *t, size_t i, const char **name, double *value,
                    const char **source)
{
    if (i >= NTH) return 0;
    *name = thresholds[i].name;
    *value = *(const double *)((const char *)t + thresholds[i].offset);
    if (source) *source = thresholds[i].source;
    return 1;
}

void an_options_defaults(struct an_options *o)
{
    memset(o, 0, sizeof *o);
    o->out_dir = "scalana-report";
    o->progress = isatty(2);
    o->color = isatty(1);
    for (size_t i = 0; i < NTH; i++)
        *(double *)((char *)&o->th + thresholds[i].offset) = thresholds[i].def;
}

void an_options_free(struct an_options *o)
{
    free(o->run_dirs);
    free(o->before_dirs);
    free(o->after_dirs);
    o->before_dirs = o->after_dirs = NULL;
    free(o->remap_from);
    free(o->remap_to);
    o->run_dirs = NULL, o->remap_from = o->remap_to = NULL;
}

/* Prints text wrapped at 78 columns, each line indented by indent spaces. */
static void print_wrapped(FILE *out, const char *text, int indent)
{
    int col = 0;
    while (*text) {
        while (*text == ' ') text++;
        int w = 0;
        while (text[w] && text[w] != ' ') w++;
        if (!w) break;
        if (col && col + 1 + w > 78) fputc('\n', out), col = 0;
        if (!col) col = fprintf(out, "%*s", indent, "");
        else fputc(' ', out), col++;
        col += fprintf(out, "%.*s", w, text);
        text += w;
    }
    if (col) fputc('\n', out);
}

static void usage(FILE *out)
{
    fputs(
        "Usage: scalana-analyze [OPTIONS] RUN_DIR...\n"
        "       scalana-analyze [OPTIONS] --before DIR [--before DIR]... --after DIR [--after DIR]...\n"
        "Finds the root causes of scaling loss in runs of one MPI program at several\n"
        "process counts (runs in any order; runs at the same count are repetitions).\n"
        "Writes OUT_DIR/report.json, psg.dot, rootcause-N.dot, index.html and prints a\n"
        "summary of the top root causes.  A DIR may be a run directory or a directory\n"
        "holding run directories.  Runs of two builds (build-ids) are analysed apart\n"
        "and compared: which root causes went away, remain or are new, and what each\n"
        "change saved (report.json \"comparison\"; the earlier build's own report in\n"
        "OUT_DIR/before/).\n\n"
        "Options:\n"
        "  -o, --output DIR        output directory (default scalana-report/): absent, empty\n"
        "                          or holding an earlier report (else see --force)\n"
        "      --force             write into DIR even when it holds other files\n"
        "      --exe PATH          the executable (default: from each run.json, else the\n"
        "                          run's own copy in RUN_DIR/exe/)\n"
        "      --before DIR        runs of the build before a change (repeatable)\n"
        "      --after DIR         runs of the build after it (repeatable)\n"
        "      --gate              CI gate: exit 1 when the after build has a new root\n"
        "                          cause or one whose cost grew beyond its noise band\n"
        "      --junit FILE        with --gate: a JUnit XML test case per root cause\n"
        "      --markdown FILE     with --gate: a Markdown summary for the CI job page\n"
        "      --predict P         each root cause's cost extended to P processes by the\n"
        "                          scaling models, with a band; which one dominates there\n"
        "      --weak              weak scaling (work per process constant)\n"
        "      --strong            strong scaling (default)\n"
        "      --source-path OLD=NEW  remap source file prefixes (repeatable)\n"
        "  -t, --threshold NAME=VALUE  override a threshold (see --list-thresholds)\n"
        "      --min-cost PERCENT  same as -t min_cost_percent=PERCENT\n"
        "      --imbalance RATIO   same as -t imbalance=RATIO\n"
        "      --alpha A           same as -t alpha=A\n"
        "      --min-samples N     same as -t min_samples=N\n"
        "      --list-thresholds   print every threshold, its value and source\n"
        "      --json              also print report.json on stdout\n"
        "      --no-viewer         write report.json only (none of the files below)\n",
        out);
    scalana_outputs_help(out, 25);
    fputs(
        "      --no-recover        a binary without a PSG is not disassembled: call\n"
        "                          paths only, no loops (docs/binstruct.md)\n"
        "      --recover-libs      also the structure of the application's shared\n"
        "                          libraries the run loaded (not the system's)\n"
        "      --psg-cache DIR|off where PSGs recovered from machine code are kept\n"
        "                          (default $SCALANA_PSG_CACHE, else\n"
        "                          $XDG_CACHE_HOME/scalana/psg or ~/.cache/scalana/psg)\n"
        "      --color WHEN        auto, always or never (terminal summary)\n"
        "      --progress, --no-progress  progress on stderr (default: on a terminal)\n"
        "  -q, --quiet             no summary, no progress\n"
        "  -h, --help              this help\n"
        "  -V, --version           version\n\n"
        "Without --weak/--strong the scaling mode is detected from how the total work\n"
        "(CPU seconds summed over processes) changes with p; report.json scaling_mode.\n\n"
        "User phases (scalana_phase_begin/end) get per-phase figures in report.json.\n\n"
        "Exit status: 0 analysed (root causes or not), 1 nothing could be analysed,\n"
        "2 usage error.  With --gate: 0 pass, 1 fail, 2 usage or analysis error.\n"
        "See scalana-analyze(1) and docs/analyzer.md.\n\n",
        out);
    fputs("Root-cause categories (report.json name: what to do):\n", out);
#define SCALANA_CATEGORY(e, name, label, remedy) fprintf(out, "  %s\n", name), print_wrapped(out, remedy, 6);
#include "scalana/categories.def"
#undef SCALANA_CATEGORY
}

static int set_threshold(struct an_options *o, const char *name, const char *value)
{
    char *end;
    double v = strtod(value, &end);
    if (!*value || *end || !isfinite(v)) {
        fprintf(stderr, "scalana-analyze: threshold %s: '%s' is not a number\n", name, value);
        return -1;
    }
    for (size_t i = 0; i < NTH; i++) {
        const struct threshold_def *t = &thresholds[i];
        if (strcmp(t->name, name) != 0) continue;
        if (v < t->lo || (t->lo_open && v == t->lo) || v > t->hi || (t->hi_open && v == t->hi)) {
            fprintf(stderr, "scalana-analyze: threshold %s: %s makes no sense (wants %s)\n", name, value, t->what);
            return -1;
        }
        *(double *)((char *)&o->th + t->offset) = v;
        return 0;
    }
    fprintf(stderr, "scalana-analyze: unknown threshold '%s' (see --list-thresholds)\n", name);
    return -1;
}

void an_bad_option(const char *prog, int c, char **argv)
{
    const char *word = argv[optind - 1]; /* the word getopt stopped at */
    if (c == ':')
        fprintf(stderr, "%s: option '%s' needs a value (see %s --help)\n", prog, word, prog);
    else if (optopt && !(word[0] == '-' && word[1] == '-'))
        fprintf(stderr, "%s: unknown option '-%c' (see %s --help)\n", prog, optopt, prog);
    else
        fprintf(stderr, "%s: unknown option '%s' (see %s --help)\n", prog, word, prog);
}

/* The long options' codes past the short ones. */
enum { O_NORECOVER = 400, O_PSGCACHE, O_RECLIBS }; /* structure recovery (docs/binstruct.md) */
enum { O_FORCE = 450 };
enum { O_NO_OUTPUT = 420 }; /* + enum scalana_output: --no-<flag> of outputs.def */
enum { O_GATE = 480, O_JUNIT, O_MARKDOWN, O_PREDICT }; /* gate.c, predict.c */
enum { O_EXE = 256, O_WEAK, O_STRONG, O_SRC, O_MINCOST, O_IMB, O_ALPHA, O_MINS, O_LIST, O_JSON,
       O_NOVIEW, O_COLOR, O_PROG, O_NOPROG, O_BEFORE, O_AFTER };
static const struct option longopts[] = {
    {"output", required_argument, 0, 'o'}, {"exe", required_argument, 0, O_EXE},
    {"weak", no_argument, 0, O_WEAK}, {"strong", no_argument, 0, O_STRONG},
    {"source-path", required_argument, 0, O_SRC}, {"threshold", required_argument, 0, 't'},
    {"min-cost", required_argument, 0, O_MINCOST}, {"imbalance", required_argument, 0, O_IMB},
    {"alpha", required_argument, 0, O_ALPHA}, {"min-samples", required_argument, 0, O_MINS},
    {"list-thresholds", no_argument, 0, O_LIST}, {"json", no_argument, 0, O_JSON},
    {"no-viewer", no_argument, 0, O_NOVIEW}, {"color", required_argument, 0, O_COLOR},
    {"no-recover", no_argument, 0, O_NORECOVER}, {"psg-cache", required_argument, 0, O_PSGCACHE},
    {"recover-libs", no_argument, 0, O_RECLIBS}, {"force", no_argument, 0, O_FORCE},
#define SCALANA_OUTPUT(NAME, flag, files, writer, what) {"no-" flag, no_argument, 0, O_NO_OUTPUT + SCALANA_OUT_##NAME},
#include "scalana/outputs.def"
#undef SCALANA_OUTPUT
    {"gate", no_argument, 0, O_GATE}, {"junit", required_argument, 0, O_JUNIT},
    {"markdown", required_argument, 0, O_MARKDOWN}, {"predict", required_argument, 0, O_PREDICT},
    {"colour", required_argument, 0, O_COLOR},
    {"progress", no_argument, 0, O_PROG}, {"no-progress", no_argument, 0, O_NOPROG},
    {"before", required_argument, 0, O_BEFORE}, {"after", required_argument, 0, O_AFTER},
    {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}, {"version", no_argument, 0, 'V'},
    {0, 0, 0, 0}};

/* --source-path OLD=NEW: one more remapping (arg is cut at its '='). */
static int add_remap(struct an_options *o, char *arg)
{
    char *eq = strchr(arg, '=');
    if (!eq || eq == arg) {
        fprintf(stderr, "scalana-analyze: --source-path wants OLD=NEW, got '%s'\n", arg);
        return -1;
    }
    o->remap_from = realloc(o->remap_from, (o->remap_count + 1) * sizeof *o->remap_from);
    o->remap_to = realloc(o->remap_to, (o->remap_count + 1) * sizeof *o->remap_to);
    if (!o->remap_from || !o->remap_to) return -1;
    *eq = 0;
    o->remap_from[o->remap_count] = arg;
    o->remap_to[o->remap_count++] = eq + 1;
    return 0;
}

/* --threshold NAME=VALUE (arg is cut at its '='). */
static int threshold_arg(struct an_options *o, char *arg)
{
    char *eq = strchr(arg, '=');
    if (!eq) {
        fprintf(stderr, "scalana-analyze: --threshold wants NAME=VALUE, got '%s'\n", arg);
        return -1;
    }
    *eq = 0;
    return set_threshold(o, arg, eq + 1) ? -1 : 0;
}

/* --predict P: a whole number of processes, 1 or more. */
static int predict_arg(struct an_options *o, const char *arg)
{
    char *end;
    /* decimal digits only: strtod alone takes 0x10, 1e3 and " 16" */
    double p = strtod(arg, &end);
    if (!*arg || *end || strspn(arg, "0123456789") != strlen(arg) || !isfinite(p) || p < 1 ||
        p != floor(p) || p > 1e9) {
        fprintf(stderr, "scalana-analyze: --predict '%s': want a process count (a whole number, 1 or "
                        "more)\n", arg);
        return -1;
    }
    o->predict = p;
    return 0;
}

/* --color auto|always|never. */
static int color_arg(struct an_options *o, const char *arg)
{
    if (strcmp(arg, "always") == 0) o->color = 1;
    else if (strcmp(arg, "never") == 0) o->color = 0;
    else if (strcmp(arg, "auto") == 0) o->color = isatty(1);
    else {
        fprintf(stderr, "scalana-analyze: --color '%s': want auto, always or never\n", arg);
        return -1;
    }
    return 0;
}

/* --before DIR or --after DIR (c says which): one more directory of that build. */
static int build_dir_arg(struct an_options *o, int c, char *arg)
{
    char ***v = c == O_BEFORE ? &o->before_dirs : &o->after_dirs;
    int *n = c == O_BEFORE ? &o->before_count : &o->after_count;
    char **g = realloc(*v, (size_t)(*n + 1) * sizeof **v);
    if (!g) return -1;
    *v = g;
    g[(*n)++] = arg;
    return 0;
}

/* One option getopt_long returned (c, its argument in optarg): 0 to go on,
 * 1 when it printed what was asked (--help, --version, --list-thresholds),
 * -1 on a usage error (message printed).  *scaling_set: --weak or --strong
 * seen. */
static int one_option(struct an_options *o, int c, char **argv, int *scaling_set)
{
    switch (c) {
    case O_FORCE: o->force = 1; break;
    case 'o': o->out_dir = optarg; break;
    case O_EXE: o->exe = optarg; break;
    case O_WEAK:
    case O_STRONG:
        if (*scaling_set && o->weak != (c == O_WEAK)) {
            fputs("scalana-analyze: --weak and --strong exclude each other: give one\n", stderr);
            return -1;
        }
        o->weak = c == O_WEAK, *scaling_set = 1, o->scaling_flag = 1;
        break;
    case O_SRC: return add_remap(o, optarg);
    case 't': return threshold_arg(o, optarg);
    case O_MINCOST: return set_threshold(o, "min_cost_percent", optarg) ? -1 : 0;
    case O_IMB: return set_threshold(o, "imbalance", optarg) ? -1 : 0;
    case O_ALPHA: return set_threshold(o, "alpha", optarg) ? -1 : 0;
    case O_MINS: return set_threshold(o, "min_samples", optarg) ? -1 : 0;
    case O_LIST:
        for (size_t i = 0; i < NTH; i++)
            printf("%-18s %-8g %s\n", thresholds[i].name,
                   *(double *)((char *)&o->th + thresholds[i].offset), thresholds[i].source);
        return 1;
    case O_JSON: o->json_stdout = 1; break;
    case O_NOVIEW: o->no_viewer = 1; break;
    case O_GATE: o->gate = 1; break;
    case O_JUNIT: o->junit = optarg; break;
    case O_MARKDOWN: o->markdown = optarg; break;
    case O_PREDICT: return predict_arg(o, optarg);
    case O_NORECOVER: o->no_recover = 1; break;
    case O_PSGCACHE: o->psg_cache = optarg; break;
    case O_RECLIBS: o->recover_libs = 1; break;
    case O_COLOR: return color_arg(o, optarg);
    case O_BEFORE:
    case O_AFTER: return build_dir_arg(o, c, optarg);
    case O_PROG: o->progress = 1; break;
    case O_NOPROG: o->progress = 0; break;
    case 'q': o->quiet = 1, o->progress = 0; break;
    case 'h': usage(stdout); return 1;
    case 'V': printf("scalana-analyze (ScalAna) %s\n", SCALANA_VERSION_STRING); return 1;
    default:
        if (c >= O_NO_OUTPUT && c < O_NO_OUTPUT + SCALANA_OUT_COUNT) {
            o->no_outputs |= SCALANA_OUT_BIT(c - O_NO_OUTPUT);
            break;
        }
        an_bad_option("scalana-analyze", c, argv);
        return -1;
    }
    return 0;
}

/* A before/after comparison (--before and --after): both given, no run
 * directory of its own and no --exe.  Returns 0 or -1 (message printed). */
static int check_comparison(const struct an_options *o, int argc, char **argv)
{
    if (!o->before_count || !o->after_count) {
        fprintf(stderr, "scalana-analyze: --%s given without --%s: a comparison needs both (or give the "
                        "run directories of both builds without either)\n",
                o->before_count ? "before" : "after", o->before_count ? "after" : "before");
        return -1;
    }
    if (optind < argc) {
        fprintf(stderr, "scalana-analyze: '%s': with --before/--after each run directory needs its own "
                        "flag (--before a --before b ... --after c ...)\n", argv[optind]);
        return -1;
    }
    if (o->exe) {
        fputs("scalana-analyze: --exe names one binary, a comparison has two builds: leave it out (each "
              "run's run.json or its own copy in exe/ is used)\n", stderr);
        return -1;
    }
    return 0;
}

int an_options_parse(struct an_options *o, int argc, char **argv)
{
    int c, scaling_set = 0;
    optind = 1;
    opterr = 0; /* one line of ours (an_bad_option) instead of getopt's and the usage */
    while ((c = getopt_long(argc, argv, ":o:t:qhV", longopts, NULL)) != -1) {
        int r = one_option(o, c, argv, &scaling_set);
        if (r) return r;
    }
    if ((o->junit || o->markdown) && !o->gate) {
        fprintf(stderr, "scalana-analyze: --%s writes the gate's verdict: give --gate too\n",
                o->junit ? "junit" : "markdown");
        return -1;
    }
    if (o->before_count || o->after_count) return check_comparison(o, argc, argv);
    if (optind >= argc) {
        fputs("scalana-analyze: no run directory given (see scalana-analyze --help)\n", stderr);
        return -1;
    }
    o->run_dir_count = argc - optind;
    o->run_dirs = malloc((size_t)o->run_dir_count * sizeof *o->run_dirs);
    if (!o->run_dirs) return -1;
    for (int i = 0; i < o->run_dir_count; i++) o->run_dirs[i] = argv[optind + i];
    return 0;
}

/* "." and ".." components and repeated slashes folded lexically into out
 * (capacity cap): "/w/prk/PIC/../../common/./bail.c" -> "/w/common/bail.c"; a relative path keeps
 * the ".." it cannot fold ("../x.c").  No file system access: symbolic
 * links are not resolved (the sources may live elsewhere now), so a path
 * through a symlinked directory folds as written.  0 on success, -1 when
 * out is too small. */
static int fold_path(const char *file, char *out, size_t cap)
{
    int abs = file[0] == '/';
    size_t n = 0, keep = 0; /* keep: length of the leading "../" run of a relative path */
    if (cap < 2) return -1;
    if (abs) out[n++] = '/';
    out[n] = 0;
    for (const char *p = file; *p;) {
        while (*p == '/') p++;
        const char *e = p;
        while (*e && *e != '/') e++;
        size_t len = (size_t)(e - p);
        if (len == 0) break;
        if (len == 1 && p[0] == '.') {
            /* nothing */
        } else if (len == 2 && p[0] == '.' && p[1] == '.' && n > keep + (size_t)abs) {
            while (n > keep + (size_t)abs && out[n - 1] != '/') n--; /* drop the last component */
            if (n > keep + (size_t)abs) n--;                        /* and its slash */
            out[n] = 0;
        } else if (len == 2 && p[0] == '.' && p[1] == '.' && abs) {
            /* "/.." is "/" */
        } else {
            if (n + len + 2 > cap) return -1;
            if (n > (size_t)abs) out[n++] = '/';
            memcpy(out + n, p, len);
            n += len;
            out[n] = 0;
            if (!abs && len == 2 && p[0] == '.' && p[1] == '.') keep = n;
        }
        p = e;
    }
    if (n == 0) out[n++] = '.', out[n] = 0;
    return 0;
}

const char *an_remap_path(const struct an_options *o, struct an_strpool *pool, const char *file)
{
    if (!file) file = "";
    char folded[4096];
    if (*file && (strstr(file, "/.") || strstr(file, "//") || file[0] == '.') &&
        fold_path(file, folded, sizeof folded) == 0)
        file = folded;
    for (int k = 0; o && k < o->remap_count; k++) {
        size_t n = strlen(o->remap_from[k]);
        if (strncmp(file, o->remap_from[k], n) == 0) {
            size_t m = strlen(o->remap_to[k]) + strlen(file + n) + 1;
            char *buf = malloc(m);
            if (!buf) abort();
            snprintf(buf, m, "%s%s", o->remap_to[k], file + n);
            const char *r = an_intern(pool, buf);
            free(buf);
            return r;
        }
    }
    return an_intern(pool, file);
}

void an_progress(const struct an_options *o, const char *what, uint64_t done, uint64_t total)
{
    if (!o || !o->progress) return;
    static uint64_t last_pct = UINT64_MAX;
    uint64_t pct = total ? done * 100 / total : 0;
    if (pct == last_pct && done != total) return;
    last_pct = pct;
    if (isatty(2)) {
        int w = 30, fill = (int)(total ? done * (uint64_t)w / total : 0);
        fprintf(stderr, "\r%-28.28s [", what);
        for (int i = 0; i < w; i++) fputc(i < fill ? '#' : ' ', stderr);
        fprintf(stderr, "] %3u%%", (unsigned)pct);
    } else if (pct % 25 == 0) {
        fprintf(stderr, "scalana-analyze: %s %u%%\n", what, (unsigned)pct);
    }
    fflush(stderr);
}

void an_progress_end(const struct an_options *o)
{
    if (o && o->progress && isatty(2)) fputs("\n", stderr);
}
