/* rt_options.c — the runtime's options as data: one typed entry per
 * SCALANA_* variable (name, kind, default, range or words, help, where the
 * value goes) that parses, checks and prints itself.  Read once when the
 * runtime activates (first MPI call). */
#include "rt_core.h"
#include "scalana/samplers.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Where the frequency limits come from: below 1/s a run of minutes has too
 * few samples; a sample costs 35-40 us of CPU on this VM (almost all of it
 * the timer and signal delivery: bench/overhead sample_cost), so 10 kHz
 * would take over a third of a core.  The cputime sampler cannot go above
 * the kernel tick rate anyway (250 Hz here; rt_rate.c); taskclock can. */
#define RT_FREQ_MIN 1
#define RT_FREQ_MAX 10000
#define RT_FREQ_DEFAULT 200
/* (the one place of the range: the help below and scalana-run's --freq check,
 * runtime/CMakeLists.txt, read these lines) */
#define RT_STR_(x) #x
#define RT_STR(x) RT_STR_(x)
/* calling-context nodes per thread: SCALANA_CCT_NODES's range */
#define RT_CCT_NODES_MIN 64
#define RT_CCT_NODES_MAX (1l << 24)

/* A whole decimal number (no sign, no trailing characters); -1 otherwise. */
static long rt_whole_number(const char *s)
{
    if (!*s || *s < '0' || *s > '9')
        return -1;
    char *end;
    long v = strtol(s, &end, 10);
    return *end == '\0' ? v : -1;
}

/* Signals that cannot drive a sampling timer: uncatchable, or raised by
 * faults and aborts the application must still see as such. */
static int rt_signal_unusable(int v)
{
    return v == SIGKILL || v == SIGSTOP || v == SIGSEGV || v == SIGBUS || v == SIGILL || v == SIGFPE ||
           v == SIGABRT || v == SIGTRAP || v == SIGSYS;
}

/** Parses SCALANA_SIGNAL: a name with or without "SIG" in any case (PROF,
 *  SIGPROF, sigalrm; the system's own list of names), SIGRTMIN, SIGRTMIN+n,
 *  SIGRTMAX, SIGRTMAX-n, or a number.  Returns the signal, -1 for anything
 *  else or a signal that cannot be used (rt_signal_unusable). */
static int rt_parse_signal(const char *s)
{
    int v = -1;
    const char *n = strncasecmp(s, "SIG", 3) == 0 ? s + 3 : s;
    if (strncasecmp(n, "RTMIN", 5) == 0 || strncasecmp(n, "RTMAX", 5) == 0) {
        int max = strncasecmp(n, "RTMAX", 5) == 0;
        const char *o = n + 5;
        long k = 0;
        if (*o) {
            if (*o != (max ? '-' : '+'))
                return -1;
            k = rt_whole_number(o + 1);
            if (k < 0)
                return -1;
        }
        long r = max ? (long)SIGRTMAX - k : (long)SIGRTMIN + k;
        if (r < SIGRTMIN || r > SIGRTMAX)
            return -1;
        v = (int)r;
    } else if (*n >= '0' && *n <= '9') {
        if (n != s)
            return -1; /* "SIG27" */
        long k = rt_whole_number(n);
        v = k > 0 && k < NSIG ? (int)k : -1;
    } else {
        for (int i = 1; i < NSIG && v < 0; i++) {
            const char *abbrev = sigabbrev_np(i);
            if (abbrev && strcasecmp(n, abbrev) == 0)
                v = i;
        }
    }
    return v < 0 || rt_signal_unusable(v) ? -1 : v;
}

uint32_t rt_options_cct_nodes(void)
{
    /* the same value rt_options_read takes (and warns about): clamped to its range */
    const char *s = getenv("SCALANA_CCT_NODES");
    long v = s && *s ? rt_whole_number(s) : -1;
    if (v < 0)
        return s && s[0] == '-' && rt_whole_number(s + 1) >= 0 ? (uint32_t)RT_CCT_NODES_MIN : RT_CCT_NODES_DEFAULT;
    return v < RT_CCT_NODES_MIN ? (uint32_t)RT_CCT_NODES_MIN : v > RT_CCT_NODES_MAX ? (uint32_t)RT_CCT_NODES_MAX : (uint32_t)v;
}

/* SCALANA_CALLPATH: how MPI calls take their call path (rt_fpwalk.c). */
int rt_callpath_mode;

/* ---- validation ----------------------------------------------------------------
 * Every SCALANA_* value is checked when the runtime activates; a value that
 * is not understood never stops the application: one warning (world rank 0,
 * kept in run.json "warnings") names the variable, the value and the value
 * used instead. */

/* The variable's value, or NULL when unset or empty (empty means "default"). */
static const char *rt_env(const char *name)
{
    const char *s = getenv(name);
    return s && *s ? s : NULL;
}

/* Index of s in the NULL-terminated list words, or -1. */
static int rt_word(const char *s, const char *const *words)
{
    for (int i = 0; words[i]; i++)
        if (strcmp(s, words[i]) == 0)
            return i;
    return -1;
}

/* A whole number of name in lo..hi: the value; a number outside: clamped to
 * the nearer end with a warning; anything else: def with a warning.  what
 * says what the number counts. */
static long rt_env_range(const char *name, long lo, long hi, long def, const char *what)
{
    const char *s = rt_env(name);
    if (!s)
        return def;
    long v = rt_whole_number(s);
    if (v < 0 && !(s[0] == '-' && rt_whole_number(s + 1) >= 0)) {
        rt_warn(0, "%s=%s is not a whole number (%s, %ld..%ld): using %ld", name, s, what, lo, hi, def);
        return def;
    }
    if (v < lo || v > hi) {
        long used = v < lo ? lo : hi;
        rt_warn(0, "%s=%s is outside %ld..%ld (%s): using %ld", name, s, lo, hi, what, used);
        return used;
    }
    return v;
}

/* On/off variables: 1, on, yes, true / 0, off, no, false (any case). */
static int rt_env_bool(const char *name, int def)
{
    const char *s = rt_env(name);
    if (!s)
        return def;
    if (!strcasecmp(s, "1") || !strcasecmp(s, "on") || !strcasecmp(s, "yes") || !strcasecmp(s, "true"))
        return 1;
    if (!strcasecmp(s, "0") || !strcasecmp(s, "off") || !strcasecmp(s, "no") || !strcasecmp(s, "false"))
        return 0;
    rt_warn(0, "%s=%s is not on or off (want 1, on, yes, true or 0, off, no, false): using %s", name, s,
            def ? "1 (on)" : "0 (off)");
    return def;
}

int rt_env_says_off(const char *name)
{
    const char *s = rt_env(name);
    return s && (!strcasecmp(s, "off") || !strcmp(s, "0") || !strcasecmp(s, "no") || !strcasecmp(s, "false"));
}

int rt_options_off(void) { return rt_env_says_off("SCALANA"); }

/* SCALANA=off: the runtime stays out of the program from load on (wrappers
 * pass every call through, no timer, no thread state, no directory).  The
 * other constructor (rt_init.c) never sets the state back. */
__attribute__((constructor)) static void rt_options_off_at_load(void)
{
    if (rt_options_off())
        rt_g.state = RT_REFUSED;
}

/* ---- the options ----------------------------------------------------------------
 * One entry per variable, in the order rt_options_read takes them (the order
 * of its warnings).  A new option is one entry (and its field in struct
 * rt_options, rt_core.h). */

/* What kind of value an option takes: how its entry parses, checks and prints it. */
enum rt_opt_kind {
    RT_OPT_BOOL,    /* 1, on, yes, true / 0, off, no, false, any case (rt_env_bool) */
    RT_OPT_RANGE,   /* a whole number in lo..hi, clamped (rt_env_range) */
    RT_OPT_WORD,    /* one of words (the value: its index) */
    RT_OPT_SAMPLER, /* a word of samplers.def, with what follows its "word:" */
    RT_OPT_SIGNAL,  /* a signal (rt_parse_signal) */
    RT_OPT_TEXT     /* any text (NULL when unset or empty) */
};

struct rt_option {
    const char *name;
    enum rt_opt_kind kind;
    const char *def;          /* the default as the help and the warnings say it (RANGE: def_n) */
    long lo, hi, def_n;       /* RANGE: the range; the default value (WORD: an index into words) */
    const char *what;         /* RANGE: what the number counts; WORD: the words a warning names */
    const char *const *words; /* WORD: the words understood, NULL-terminated */
    const char *help;
    /* where the value goes (NULL: only checked): the number, word index, sampler or
     * signal, and the text (the sampler's argument; TEXT's value) */
    void (*store)(long v, const char *text);
};

static void store_sampler(long v, const char *arg)
{
    rt_opt.sampler = (int)v;
    snprintf(rt_opt.sampler_arg, sizeof rt_opt.sampler_arg, "%s", arg ? arg : "");
}
static void store_freq(long v, const char *t) { (void)t, rt_opt.freq = (unsigned)v; }
static void store_signal(long v, const char *t) { (void)t, rt_opt.signo = (int)v; }
static void store_waitall(long v, const char *t) { (void)t, rt_opt.waitall_split = (int)v; }
static void store_cct(long v, const char *t) { (void)t, rt_opt.cct_nodes = (uint32_t)v; }
static void store_intervals(long v, const char *t)
{
    static const int ids[] = {PRF_IV_CPU_AUTO, PRF_IV_CPU_CLOCK, PRF_IV_CPU_SAMPLES, -1, -1};
    (void)t, rt_opt.intervals = ids[v];
}
static void store_interval_long(long v, const char *t) { (void)t, rt_opt.interval_long_ns = (uint64_t)v * 1000u; }
static void store_callpath(long v, const char *t)
{
    static const int ids[] = {RT_CALLPATH_AUTO, RT_CALLPATH_UNWIND, RT_CALLPATH_NOCACHE};
    (void)t, rt_callpath_mode = ids[v];
}
static void store_output(long v, const char *t) { (void)v, rt_opt.output = t; }
static void store_quiet(long v, const char *t) { (void)t, rt_opt.quiet = (int)v; }
static void store_gomp(long v, const char *t) { (void)t, rt_opt.gomp = (int)v; }

static const char *const interval_words[] = {"auto", "clock", "samples", "off", "0", NULL};
static const char *const callpath_words[] = {"auto", "libunwind", "nocache", NULL};
/* read by rt_keepexe.c at MPI_Init (after rt_options_read) and by scalana-run: checked here */
static const char *const keep_words[] = {"on", "1", "link", "all", "copy", "off", "0", "no", NULL};

static const struct rt_option rt_option_table[] = {
    /* off was taken at load (rt_options_off): here only the check */
    {.name = "SCALANA", .kind = RT_OPT_BOOL, .def = "on", .def_n = 1,
     .help = "off: no measurement at all, no run directory"},
    /* taskclock by default: the cputime timer is checked only at ticks that
     * find its thread running, and ranks that run in short bursts on a shared
     * core (8 ranks on 2 cores beside 2 CPU hogs) got no signal at all for
     * 0.34 CPU s; the task clock counts their CPU time whenever they run
     * (26-50 signals there).  Where perf_event_open is refused it falls back
     * to cputime with one line (rt_sampler_taskclock.c). */
    {.name = "SCALANA_SAMPLER", .kind = RT_OPT_SAMPLER, .def = "taskclock", .def_n = PRF_SAMPLER_TASKCLOCK,
     .help = "taskclock | cputime | realtime | papi:<EVENT> | none", .store = store_sampler},
    {.name = "SCALANA_FREQ", .kind = RT_OPT_RANGE, .lo = RT_FREQ_MIN, .hi = RT_FREQ_MAX, .def_n = RT_FREQ_DEFAULT,
     .what = "samples per second per thread",
     .help = "samples per second per thread asked (" RT_STR(RT_FREQ_MIN) ".." RT_STR(RT_FREQ_MAX)
             "; cputime: at most the kernel tick rate)",
     .store = store_freq},
    {.name = "SCALANA_SIGNAL", .kind = RT_OPT_SIGNAL, .def = "SIGPROF", .def_n = SIGPROF,
     .help = "signal used by the sampling timers (name or number)", .store = store_signal},
    {.name = "SCALANA_WAITALL_SPLIT", .kind = RT_OPT_BOOL, .def = "1", .def_n = 1,
     .help = "complete MPI_Waitall through MPI_Waitsome to find the last peer", .store = store_waitall},
    {.name = "SCALANA_CCT_NODES", .kind = RT_OPT_RANGE, .lo = RT_CCT_NODES_MIN, .hi = RT_CCT_NODES_MAX,
     .def_n = RT_CCT_NODES_DEFAULT, .what = "calling-context nodes per thread",
     .help = "calling-context nodes per thread before the overflow node (memory grows with use)",
     .store = store_cct},
    {.name = "SCALANA_INTERVALS", .kind = RT_OPT_WORD, .def = "auto", .def_n = 0,
     .what = "auto, clock, samples or off", .words = interval_words,
     .help = "computation between MPI calls, CPU time by: auto | clock | samples | off", .store = store_intervals},
    /* 1 ms: two CPU-clock reads (about 0.4 us each, a system call) per interval of at
     * least this long, plus at most one mispredicted pair per such interval, cost at
     * most 0.15 % of the time they measure (docs/runtime.md). */
    {.name = "SCALANA_INTERVAL_LONG_US", .kind = RT_OPT_RANGE, .lo = 1, .hi = 10000000, .def_n = 1000,
     .what = "microseconds", .help = "auto: intervals read with the thread CPU clock are >= this (us)",
     .store = store_interval_long},
    {.name = "SCALANA_CALLPATH", .kind = RT_OPT_WORD, .def = "auto", .def_n = 0,
     .what = "auto, libunwind or nocache", .words = callpath_words,
     .help = "MPI call paths: auto (frame pointers + cached libunwind) | libunwind | nocache",
     .store = store_callpath},
    {.name = "SCALANA_KEEP_EXE", .kind = RT_OPT_WORD, .def = "on", .def_n = 0, .what = "on, all, copy or off",
     .words = keep_words,
     .help = "on: hard link (else copy) the executable into <run>/exe/ | all (+ own libraries) | copy | off"},
    {.name = "SCALANA_GPU", .kind = RT_OPT_BOOL, .def = "1", .def_n = 1,
     .help = "0: scalana-run does not load the GPU collector"},
    /* read by ompt_start_tool (rt_ompt.c), maybe before this table: checked here */
    {.name = "SCALANA_OMPT", .kind = RT_OPT_BOOL, .def = "on", .def_n = 1,
     .help = "off: no OMPT tool for LLVM's libomp (OpenMP regions, barrier waits)"},
    {.name = "SCALANA_GOMP", .kind = RT_OPT_BOOL, .def = "on", .def_n = 1,
     .help = "off: libgomp's fork calls pass through (worker threads' paths lose their region)",
     .store = store_gomp},
    {.name = "SCALANA_OUTPUT", .kind = RT_OPT_TEXT, .def = "scalana-<exe>-<p>p", .help = "run directory",
     .store = store_output},
    {.name = "SCALANA_QUIET", .kind = RT_OPT_BOOL, .def = "0", .def_n = 0,
     .help = "1: no informational lines (failures are still printed)", .store = store_quiet},
};
#define RT_NOPTIONS (sizeof rt_option_table / sizeof rt_option_table[0])

void rt_options_help(void)
{
    for (size_t i = 0; i < RT_NOPTIONS; i++) {
        const struct rt_option *o = &rt_option_table[i];
        char def[24];
        if (o->kind == RT_OPT_RANGE) snprintf(def, sizeof def, "%ld", o->def_n);
        fprintf(stderr, "  %-22s default %-20s %s\n", o->name, o->kind == RT_OPT_RANGE ? def : o->def, o->help);
    }
}

/* Option o's value from the environment, checked (a value not understood:
 * one warning and the default), into its place. */
static void rt_option_read(const struct rt_option *o)
{
    const char *s = rt_env(o->name), *text = NULL;
    long v = o->def_n;
    switch (o->kind) {
    case RT_OPT_BOOL: v = rt_env_bool(o->name, (int)o->def_n); break;
    case RT_OPT_RANGE: v = rt_env_range(o->name, o->lo, o->hi, o->def_n, o->what); break;
    case RT_OPT_WORD:
        if (s && (v = rt_word(s, o->words)) < 0) {
            rt_warn(0, "%s=%s is not %s: using %s", o->name, s, o->what, o->def);
            v = o->def_n;
        }
        break;
    case RT_OPT_SAMPLER:
        if (s) {
            const char *arg;
            int k = scalana_sampler_of_word(s, &arg);
            char words[160];
            if (k >= 0)
                v = k, text = arg;
            else
                rt_warn(0, "%s=%s is not %s: using %s", o->name, s,
                        scalana_sampler_words(words, sizeof words, ", ", " or "), o->def);
        }
        break;
    case RT_OPT_SIGNAL:
        if (s) {
            int k = rt_parse_signal(s);
            if (k < 0)
                rt_warn(0, "%s=%s is not a usable signal (a name such as SIGPROF, PROF or "
                        "SIGRTMIN+3, or a number): using %s (%ld)", o->name, s, o->def, o->def_n);
            else
                v = k;
        }
        break;
    case RT_OPT_TEXT: text = s; break;
    }
    if (o->store) o->store(v, text);
}

void rt_options_read(void)
{
    for (size_t i = 0; i < RT_NOPTIONS; i++) rt_option_read(&rt_option_table[i]);
}
