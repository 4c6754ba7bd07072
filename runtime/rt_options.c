/* rt_options.c — the runtime's options as data: environment name, default,
 * help.  Read once when the runtime activates (first MPI call). */
#include "rt_core.h"
#include "rt_fpwalk.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct rt_options rt_opt;

/* Where the frequency limits come from: below 1/s a run of minutes has too
 * few samples; a sample costs 35-40 us of CPU on this VM (almost all of it
 * the timer and signal delivery: bench/overhead sample_cost), so 10 kHz
 * would take over a third of a core.  The cputime sampler cannot go above
 * the kernel tick rate anyway (250 Hz here; rt_rate.c); taskclock can. */
#define RT_FREQ_MIN 1u
#define RT_FREQ_MAX 10000u
#define RT_FREQ_DEFAULT 200u

static const struct {
    const char *name, *def, *help;
} rt_option_table[] = {
    {"SCALANA_SAMPLER", "cputime", "cputime | taskclock | realtime | papi:<EVENT> | none"},
    {"SCALANA_FREQ", "200", "samples per second per thread asked (1..10000; cputime: at most the kernel tick rate)"},
    {"SCALANA_SIGNAL", "SIGPROF", "signal used by the sampling timers (name or number)"},
    {"SCALANA_WAITALL_SPLIT", "1", "complete MPI_Waitall through MPI_Waitsome to find the last peer"},
    {"SCALANA_CCT_NODES", "4194304", "calling-context nodes per thread before the overflow node (memory grows with use)"},
    {"SCALANA_OUTPUT", "scalana-<exe>-<p>p", "run directory"},
    {"SCALANA_QUIET", "0", "1: no informational lines (failures are still printed)"},
    {"SCALANA_KEEP_EXE", "on", "on: hard link (else copy) the executable into <run>/exe/ | all (+ own libraries) | copy | off"},
    {"SCALANA_INTERVALS", "auto", "computation between MPI calls, CPU time by: auto | clock | samples | off"},
    {"SCALANA_CALLPATH", "auto", "MPI call paths: auto (frame pointers + cached libunwind) | libunwind | nocache"},
    {"SCALANA_INTERVAL_LONG_US", "1000", "auto: intervals read with the thread CPU clock are >= this (us)"},
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
    const char *s = getenv("SCALANA_CCT_NODES");
    char *end;
    long v = s && *s ? strtol(s, &end, 10) : 0;
    return s && *s && *end == '\0' && v >= 64 && v <= (1l << 24) ? (uint32_t)v : RT_CCT_NODES_DEFAULT;
}

/* SCALANA_CALLPATH: how MPI calls take their call path (rt_fpwalk.c). */
int rt_callpath_mode;

static void rt_options_read_callpath(void)
{
    const char *s = getenv("SCALANA_CALLPATH");
    rt_callpath_mode = RT_CALLPATH_AUTO;
    if (!s || !*s || strcmp(s, "auto") == 0)
        return;
    if (strcmp(s, "libunwind") == 0)
        rt_callpath_mode = RT_CALLPATH_UNWIND;
    else if (strcmp(s, "nocache") == 0)
        rt_callpath_mode = RT_CALLPATH_NOCACHE;
    else
        rt_info("SCALANA_CALLPATH=%s not understood (auto, libunwind, nocache): using auto", s);
}

void rt_options_read(void)
{
    const char *s;
    rt_opt.sampler = PRF_SAMPLER_CPUTIME;
    rt_opt.freq = RT_FREQ_DEFAULT;
    rt_opt.signo = SIGPROF;
    rt_opt.waitall_split = 1;
    rt_opt.cct_nodes = RT_CCT_NODES_DEFAULT;
    rt_opt.papi_event[0] = '\0';
    if ((s = getenv("SCALANA_SAMPLER")) && *s) {
        if (strcmp(s, "cputime") == 0)
            rt_opt.sampler = PRF_SAMPLER_CPUTIME;
        else if (strcmp(s, "realtime") == 0)
            rt_opt.sampler = PRF_SAMPLER_REALTIME;
        else if (strcmp(s, "taskclock") == 0)
            rt_opt.sampler = PRF_SAMPLER_TASKCLOCK;
        else if (strcmp(s, "none") == 0)
            rt_opt.sampler = PRF_SAMPLER_NONE;
        else if (strncmp(s, "papi:", 5) == 0 && s[5]) {
            rt_opt.sampler = PRF_SAMPLER_PAPI;
            snprintf(rt_opt.papi_event, sizeof rt_opt.papi_event, "%s", s + 5);
        } else
            rt_info("SCALANA_SAMPLER=%s not understood (cputime, taskclock, realtime, papi:<EVENT>, none): "
                    "using cputime", s);
    }
    if ((s = getenv("SCALANA_FREQ")) && *s) {
        char *end;
        long v = strtol(s, &end, 10);
        if (*end || v <= 0) {
            rt_info("SCALANA_FREQ=%s is not a positive integer: using %u", s, RT_FREQ_DEFAULT);
        } else if (v < (long)RT_FREQ_MIN || v > (long)RT_FREQ_MAX) {
            rt_opt.freq = v < (long)RT_FREQ_MIN ? RT_FREQ_MIN : RT_FREQ_MAX;
            rt_info("SCALANA_FREQ=%s clamped to %u", s, rt_opt.freq);
        } else
            rt_opt.freq = (unsigned)v;
    }
    if ((s = getenv("SCALANA_SIGNAL")) && *s) {
        int v = rt_parse_signal(s);
        if (v < 0)
            rt_warn(0, "SCALANA_SIGNAL=%s is not a usable signal (a name such as SIGPROF, PROF or "
                    "SIGRTMIN+3, or a number): using SIGPROF (%d)", s, SIGPROF);
        else
            rt_opt.signo = v;
    }
    if ((s = getenv("SCALANA_WAITALL_SPLIT")) && *s)
        rt_opt.waitall_split = strcmp(s, "0") != 0;
    if ((s = getenv("SCALANA_CCT_NODES")) && *s) {
        uint32_t v = rt_options_cct_nodes();
        if (v != RT_CCT_NODES_DEFAULT || atol(s) == RT_CCT_NODES_DEFAULT)
            rt_opt.cct_nodes = v;
        else
            rt_info("SCALANA_CCT_NODES=%s outside 64..16777216: using %u", s, rt_opt.cct_nodes);
    }
    rt_opt.intervals = PRF_IV_CPU_AUTO;
    if ((s = getenv("SCALANA_INTERVALS")) && *s) {
        if (strcmp(s, "auto") == 0)
            rt_opt.intervals = PRF_IV_CPU_AUTO;
        else if (strcmp(s, "clock") == 0)
            rt_opt.intervals = PRF_IV_CPU_CLOCK;
        else if (strcmp(s, "samples") == 0)
            rt_opt.intervals = PRF_IV_CPU_SAMPLES;
        else if (strcmp(s, "off") == 0 || strcmp(s, "0") == 0)
            rt_opt.intervals = -1;
        else
            rt_info("SCALANA_INTERVALS=%s not understood (auto, clock, samples, off): using auto", s);
    }
    /* 1 ms: two CPU-clock reads (about 0.4 us each, a system call) per interval of at
     * least this long, plus at most one mispredicted pair per such interval, cost at
     * most 0.15 % of the time they measure (docs/runtime.md). */
    rt_opt.interval_long_ns = 1000000;
    if ((s = getenv("SCALANA_INTERVAL_LONG_US")) && *s) {
        char *end;
        long v = strtol(s, &end, 10);
        if (*end || v < 1 || v > 10000000)
            rt_info("SCALANA_INTERVAL_LONG_US=%s outside 1..10000000: using 1000", s);
        else
            rt_opt.interval_long_ns = (uint64_t)v * 1000u;
    }
    rt_options_read_callpath();
    s = getenv("SCALANA_OUTPUT");
    rt_opt.output = (s && *s) ? s : NULL;
    s = getenv("SCALANA_QUIET");
    rt_opt.quiet = s && strcmp(s, "0") != 0;
}
