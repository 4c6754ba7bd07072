/* rt_options.c — the runtime's options as data: environment name, default,
 * help.  Read once when the runtime activates (first MPI call). */
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

static const struct {
    const char *name, *def, *help;
} rt_option_table[] = {
    {"SCALANA_SAMPLER", "cputime", "cputime | taskclock | realtime | papi:<EVENT> | none"},
    {"SCALANA_FREQ", RT_STR(RT_FREQ_DEFAULT), "samples per second per thread asked (" RT_STR(RT_FREQ_MIN) ".."
     RT_STR(RT_FREQ_MAX) "; cputime: at most the kernel tick rate)"},
    {"SCALANA_SIGNAL", "SIGPROF", "signal used by the sampling timers (name or number)"},
    {"SCALANA_WAITALL_SPLIT", "1", "complete MPI_Waitall through MPI_Waitsome to find the last peer"},
    {"SCALANA_CCT_NODES", "4194304", "calling-context nodes per thread before the overflow node (memory grows with use)"},
    {"SCALANA_OUTPUT", "scalana-<exe>-<p>p", "run directory"},
    {"SCALANA_QUIET", "0", "1: no informational lines (failures are still printed)"},
    {"SCALANA_KEEP_EXE", "on", "on: hard link (else copy) the executable into <run>/exe/ | all (+ own libraries) | copy | off"},
    {"SCALANA_INTERVALS", "auto", "computation between MPI calls, CPU time by: auto | clock | samples | off"},
    {"SCALANA_CALLPATH", "auto", "MPI call paths: auto (frame pointers + cached libunwind) | libunwind | nocache"},
    {"SCALANA_INTERVAL_LONG_US", "1000", "auto: intervals read with the thread CPU clock are >= this (us)"},
    {"SCALANA", "on", "off: no measurement at all, no run directory"},
    {"SCALANA_GPU", "1", "0: scalana-run does not load the GPU collector"},
    {"SCALANA_OMPT", "on", "off: no OMPT tool for LLVM's libomp (OpenMP regions, barrier waits)"},
};

void rt_options_help(void)
{
    for (size_t i = 0; i < sizeof rt_option_table / sizeof rt_option_table[0]; i++)
        fprintf(stderr, "  %-22s default %-20s %s\n", rt_option_table[i].name,
                rt_option_table[i].def, rt_option_table[i].help);
}

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
    /* the same value rt_options_read takes (and warns about): clamped to 64..2^24 */
    const char *s = getenv("SCALANA_CCT_NODES");
    long v = s && *s ? rt_whole_number(s) : -1;
    if (v < 0)
        return s && s[0] == '-' && rt_whole_number(s + 1) >= 0 ? 64u : RT_CCT_NODES_DEFAULT;
    return v < 64 ? 64u : v > (1l << 24) ? (uint32_t)(1l << 24) : (uint32_t)v;
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

void rt_options_read(void)
{
    const char *s;
    rt_opt.sampler = PRF_SAMPLER_CPUTIME;
    rt_opt.signo = SIGPROF;
    rt_opt.sampler_arg[0] = '\0';
    rt_env_bool("SCALANA", 1); /* off was taken at load (rt_options_off): here only the check */
    if ((s = rt_env("SCALANA_SAMPLER"))) {
        const char *arg;
        int k = scalana_sampler_of_word(s, &arg);
        char words[160];
        if (k >= 0) {
            rt_opt.sampler = k;
            snprintf(rt_opt.sampler_arg, sizeof rt_opt.sampler_arg, "%s", arg);
        } else
            rt_warn(0, "SCALANA_SAMPLER=%s is not %s: using cputime", s,
                    scalana_sampler_words(words, sizeof words, ", ", " or "));
    }
    rt_opt.freq = (unsigned)rt_env_range("SCALANA_FREQ", RT_FREQ_MIN, RT_FREQ_MAX, RT_FREQ_DEFAULT,
                                         "samples per second per thread");
    if ((s = rt_env("SCALANA_SIGNAL"))) {
        int v = rt_parse_signal(s);
        if (v < 0)
            rt_warn(0, "SCALANA_SIGNAL=%s is not a usable signal (a name such as SIGPROF, PROF or "
                    "SIGRTMIN+3, or a number): using SIGPROF (%d)", s, SIGPROF);
        else
            rt_opt.signo = v;
    }
    rt_opt.waitall_split = rt_env_bool("SCALANA_WAITALL_SPLIT", 1);
    rt_opt.cct_nodes = (uint32_t)rt_env_range("SCALANA_CCT_NODES", 64, 1l << 24, RT_CCT_NODES_DEFAULT,
                                              "calling-context nodes per thread");
    static const char *const ivs[] = {"auto", "clock", "samples", "off", "0", NULL};
    static const int iv_ids[] = {PRF_IV_CPU_AUTO, PRF_IV_CPU_CLOCK, PRF_IV_CPU_SAMPLES, -1, -1};
    rt_opt.intervals = PRF_IV_CPU_AUTO;
    if ((s = rt_env("SCALANA_INTERVALS"))) {
        int k = rt_word(s, ivs);
        if (k >= 0)
            rt_opt.intervals = iv_ids[k];
        else
            rt_warn(0, "SCALANA_INTERVALS=%s is not auto, clock, samples or off: using auto", s);
    }
    /* 1 ms: two CPU-clock reads (about 0.4 us each, a system call) per interval of at
     * least this long, plus at most one mispredicted pair per such interval, cost at
     * most 0.15 % of the time they measure (docs/runtime.md). */
    rt_opt.interval_long_ns =
        (uint64_t)rt_env_range("SCALANA_INTERVAL_LONG_US", 1, 10000000, 1000, "microseconds") * 1000u;
    static const char *const paths[] = {"auto", "libunwind", "nocache", NULL};
    static const int path_ids[] = {RT_CALLPATH_AUTO, RT_CALLPATH_UNWIND, RT_CALLPATH_NOCACHE};
    rt_callpath_mode = RT_CALLPATH_AUTO;
    if ((s = rt_env("SCALANA_CALLPATH"))) {
        int k = rt_word(s, paths);
        if (k >= 0)
            rt_callpath_mode = path_ids[k];
        else
            rt_warn(0, "SCALANA_CALLPATH=%s is not auto, libunwind or nocache: using auto", s);
    }
    /* read by rt_keepexe.c at MPI_Init (after this) and by scalana-run: checked here */
    static const char *const keeps[] = {"on", "1", "link", "all", "copy", "off", "0", "no", NULL};
    if ((s = rt_env("SCALANA_KEEP_EXE")) && rt_word(s, keeps) < 0)
        rt_warn(0, "SCALANA_KEEP_EXE=%s is not on, all, copy or off: using on", s);
    rt_env_bool("SCALANA_GPU", 1);
    rt_env_bool("SCALANA_OMPT", 1); /* read by ompt_start_tool (rt_ompt.c), maybe earlier: checked here */
    s = getenv("SCALANA_OUTPUT");
    rt_opt.output = (s && *s) ? s : NULL;
    rt_opt.quiet = rt_env_bool("SCALANA_QUIET", 0);
}
