/* rt_sampler.c — sampling: one POSIX timer per thread (CPU time or wall
 * clock, thread-directed) or PAPI overflow, a signal handler that charges
 * each sample (weight 1 + si_overrun) to the calling-context tree, and
 * chaining to the application's own handler for the same signal. */
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "rt_core.h"
#include "rt_perf.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <papi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

static int rt_timer_cookie;          /* sival_ptr of our timers */
static struct sigaction rt_app_action; /* the application's disposition of rt_opt.signo */
static volatile int rt_app_action_lock;
static volatile int rt_handler_installed;
static int rt_sampler_kind = PRF_SAMPLER_NONE;
static int rt_papi_code;
static long long rt_papi_threshold;

typedef int (*rt_sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef sighandler_t (*rt_signal_fn)(int, sighandler_t);

static rt_sigaction_fn rt_real_sigaction(void)
{
    static rt_sigaction_fn f;
    if (!f)
        f = (rt_sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
    return f;
}

const char *rt_sampler_name(void)
{
    static char buf[80];
    switch (rt_sampler_kind) {
    case PRF_SAMPLER_CPUTIME: return "cputime";
    case PRF_SAMPLER_REALTIME: return "realtime";
    case PRF_SAMPLER_TASKCLOCK: return "taskclock";
    case PRF_SAMPLER_PAPI: snprintf(buf, sizeof buf, "papi:%s", rt_opt.papi_event); return buf;
    default: return "none";
    }
}

/* ---- the sample ----------------------------------------------------------- */
static void rt_sample(struct rt_thread *t, uintptr_t pc, void *uc, uint64_t weight)
{
    t->samples_taken++;
    if (t->in_rt || rt_g.writing) {
        t->samples_dropped++;
        return;
    }
    uint32_t mpi_node = t->cur_mpi_node;
    if (mpi_node != PRF_NONE) {
        /* Inside MPI: the wrappers time the call; charge its context. */
        struct rt_cct_node *n = &t->cct.nodes[mpi_node];
        n->mpi_samples++;
        n->mpi_weight += weight;
        t->samples_weight += weight;
        return;
    }
    if (_r_debug.r_state != RT_CONSISTENT || (pc >= rt_g.ldso_lo && pc < rt_g.ldso_hi) ||
        (pc >= rt_g.self_lo && pc < rt_g.self_hi)) {
        t->samples_dropped++; /* in dlopen / the loader / the runtime */
        return;
    }
    t->in_rt = 1;
    /* The path of the interrupted code, unwound from the signal's context
     * (not from the handler through the kernel's trampoline). */
    void *buf[RT_MAX_DEPTH];
    int truncated = 0;
    int n = rt_unwind_signal_context(uc, buf, RT_MAX_DEPTH, &truncated);
    if (n <= 0) {
        buf[0] = (void *)pc; /* no unwind information: the PC alone */
        n = 1;
        truncated = 0;
    }
    uint32_t node = rt_cct_insert(&t->cct, buf, n, PRF_CCT_PC, truncated);
    struct rt_cct_node *nd = &t->cct.nodes[node];
    nd->samples++;
    nd->weight += weight;
    t->samples_weight += weight;
    t->in_rt = 0;
}

static void rt_chain(int sig, siginfo_t *si, void *uc)
{
    struct sigaction a;
    rt_spin_lock(&rt_app_action_lock);
    a = rt_app_action;
    rt_spin_unlock(&rt_app_action_lock);
    if (a.sa_flags & SA_SIGINFO) {
        if (a.sa_sigaction)
            a.sa_sigaction(sig, si, uc);
    } else if (a.sa_handler == SIG_DFL) {
        /* The application never handled this signal: its default action
         * (terminate for SIGPROF/SIGALRM) happens once we return. */
        struct sigaction d;
        memset(&d, 0, sizeof d);
        d.sa_handler = SIG_DFL;
        rt_real_sigaction()(sig, &d, NULL);
        raise(sig);
    } else if (a.sa_handler != SIG_IGN) {
        a.sa_handler(sig);
    }
}

/* The taskclock sampler's signal (rt_perf.c): charged like a timer's, its
 * weight the task-clock periods since the previous one. */
static int rt_handle_taskclock(siginfo_t *si, void *ucv)
{
    struct rt_thread *t = rt_self;
    if (!t && rt_g.sampling)
        t = rt_thread_self_slow(); /* started before the runtime activated */
    if (!rt_perf_signal_of(si, t))
        return rt_perf_signal_stale(si);
    if (rt_g.sampling && t->cct.nodes) {
        __atomic_add_fetch(&rt_g.in_flight, 1, __ATOMIC_ACQUIRE);
        ucontext_t *uc = ucv;
        uint64_t w = rt_perf_weight(t, rt_g.period_ns);
        t->samples_overrun += w - 1;
        t->cpu_signals += w;
        rt_sample(t, (uintptr_t)uc->uc_mcontext.gregs[REG_RIP], uc, w);
        __atomic_sub_fetch(&rt_g.in_flight, 1, __ATOMIC_RELEASE);
    }
    return 1;
}

static void rt_handler(int sig, siginfo_t *si, void *ucv)
{
    int saved_errno = errno;
    if (si->si_code != SI_TIMER || si->si_value.sival_ptr != &rt_timer_cookie) {
        if (rt_sampler_kind != PRF_SAMPLER_TASKCLOCK || !rt_handle_taskclock(si, ucv))
            rt_chain(sig, si, ucv);
        errno = saved_errno;
        return;
    }
    struct rt_thread *t = rt_self;
    if (!t && rt_g.sampling)
        t = rt_thread_self_slow(); /* started before the runtime activated */
    if (t && rt_g.sampling && t->cct.nodes) {
        __atomic_add_fetch(&rt_g.in_flight, 1, __ATOMIC_ACQUIRE);
        ucontext_t *uc = ucv;
        uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
        t->samples_overrun += (uint64_t)si->si_overrun;
        if (rt_sampler_kind == PRF_SAMPLER_CPUTIME) /* periods of this thread's CPU time */
            t->cpu_signals += 1 + (uint64_t)si->si_overrun;
        rt_sample(t, pc, uc, 1 + (uint64_t)si->si_overrun);
        __atomic_sub_fetch(&rt_g.in_flight, 1, __ATOMIC_RELEASE);
    }
    errno = saved_errno;
}

static void rt_papi_handler(int eventset, void *address, long long overflow_vector, void *context)
{
    /* On Linux PAPI passes the signal's ucontext_t as context. */
    (void)eventset; (void)overflow_vector;
    int saved_errno = errno;
    struct rt_thread *t = rt_self;
    if (t && rt_g.sampling && t->cct.nodes) {
        __atomic_add_fetch(&rt_g.in_flight, 1, __ATOMIC_ACQUIRE);
        rt_sample(t, (uintptr_t)address, context, 1);
        __atomic_sub_fetch(&rt_g.in_flight, 1, __ATOMIC_RELEASE);
    }
    errno = saved_errno;
}

/* ---- signal disposition interposition ---------------------------------------
 * While our handler owns rt_opt.signo, the application's sigaction/signal on
 * that signal change the chained disposition instead of replacing ours. */
RT_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    if (rt_handler_installed && sig == rt_opt.signo) {
        rt_spin_lock(&rt_app_action_lock);
        if (old)
            *old = rt_app_action;
        if (act)
            rt_app_action = *act;
        rt_spin_unlock(&rt_app_action_lock);
        return 0;
    }
    rt_sigaction_fn f = rt_real_sigaction();
    if (!f) {
        errno = ENOSYS;
        return -1;
    }
    return f(sig, act, old);
}

RT_EXPORT sighandler_t signal(int sig, sighandler_t h)
{
    if (rt_handler_installed && sig == rt_opt.signo) {
        sighandler_t prev;
        rt_spin_lock(&rt_app_action_lock);
        prev = (rt_app_action.sa_flags & SA_SIGINFO) ? (sighandler_t)(void *)rt_app_action.sa_sigaction
                                                     : rt_app_action.sa_handler;
        memset(&rt_app_action, 0, sizeof rt_app_action);
        rt_app_action.sa_handler = h;
        rt_app_action.sa_flags = SA_RESTART;
        rt_spin_unlock(&rt_app_action_lock);
        return prev;
    }
    static rt_signal_fn real;
    if (!real)
        real = (rt_signal_fn)dlsym(RTLD_NEXT, "signal");
    return real ? real(sig, h) : SIG_ERR;
}

/* ---- timers ------------------------------------------------------------------ */
static int rt_papi_setup(void)
{
    int rc = PAPI_library_init(PAPI_VER_CURRENT);
    if (rc != PAPI_VER_CURRENT) {
        rt_info("PAPI unavailable (%s): sampling with the cputime timer instead",
               rc > 0 ? "version mismatch" : PAPI_strerror(rc));
        return -1;
    }
    if (PAPI_thread_init((unsigned long (*)(void))pthread_self) != PAPI_OK ||
        PAPI_num_components() <= 0 || PAPI_num_cmp_hwctrs(0) <= 0) {
        rt_info("PAPI finds no hardware counters here: sampling with the cputime timer instead");
        return -1;
    }
    if (PAPI_event_name_to_code(rt_opt.papi_event, &rt_papi_code) != PAPI_OK) {
        rt_info("PAPI event %s unknown: sampling with the cputime timer instead", rt_opt.papi_event);
        return -1;
    }
    /* Threshold: events per sample for ~freq samples/s of a 2 GHz cycle count. */
    rt_papi_threshold = 2000000000ll / (long long)rt_opt.freq;
    return 0;
}

static int rt_papi_thread_start(struct rt_thread *t)
{
    int es = PAPI_NULL;
    if (PAPI_register_thread() != PAPI_OK || PAPI_create_eventset(&es) != PAPI_OK ||
        PAPI_add_event(es, rt_papi_code) != PAPI_OK ||
        PAPI_overflow(es, rt_papi_code, (int)rt_papi_threshold, 0, rt_papi_handler) != PAPI_OK ||
        PAPI_start(es) != PAPI_OK)
        return -1;
    t->papi_eventset = es;
    return 0;
}

/* Whether the calling thread blocks the sampling signal now. */
static int rt_sigmask_blocks_self(void)
{
    sigset_t cur;
    static int (*f)(int, const sigset_t *, sigset_t *);
    if (!f) /* the library's, not our interposer (rt_sigmask.c) */
        f = (int (*)(int, const sigset_t *, sigset_t *))dlsym(RTLD_NEXT, "pthread_sigmask");
    if (!f || f(SIG_BLOCK, NULL, &cur) != 0)
        return 0;
    return sigismember(&cur, rt_opt.signo) == 1;
}

/* Whether thread tid blocks it now (0 when its status cannot be read). */
static int rt_sigmask_blocks_tid(pid_t tid)
{
    char path[64], buf[2048];
    snprintf(path, sizeof path, "/proc/self/task/%d/status", (int)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    const char *p = strstr(buf, "\nSigBlk:");
    if (!p)
        return 0;
    unsigned long long mask = strtoull(p + 8, NULL, 16);
    return rt_opt.signo >= 1 && rt_opt.signo <= 64 && ((mask >> (rt_opt.signo - 1)) & 1ull);
}

/* A POSIX timer on clk delivering to thread t. */
static void rt_timer_arm(struct rt_thread *t, clockid_t clk, int quiet)
{
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = rt_opt.signo;
    sev._sigev_un._tid = t->tid;
    sev.sigev_value.sival_ptr = &rt_timer_cookie;
    if (timer_create(clk, &sev, &t->timer) != 0) {
        if (!quiet) /* quiet: another thread's clock, which may be exiting */
            rt_fail("sampler", "timer_create: %s", strerror(errno));
        return;
    }
    struct itimerspec its;
    uint64_t p = rt_g.period_ns;
    its.it_interval.tv_sec = (time_t)(p / 1000000000ull);
    its.it_interval.tv_nsec = (long)(p % 1000000000ull);
    /* Stagger the first expiry so wall-clock timers of threads and ranks do
     * not fire in lock step. */
    uint64_t first = p / 2 + (p / 2) * ((t->index * 7u + rt_g.world_rank * 13u) % 16u) / 16u;
    its.it_value.tv_sec = (time_t)(first / 1000000000ull);
    its.it_value.tv_nsec = (long)(first % 1000000000ull);
    if (timer_settime(t->timer, 0, &its, NULL) != 0) {
        if (!quiet)
            rt_fail("sampler", "timer_settime: %s", strerror(errno));
        timer_delete(t->timer);
        return;
    }
    t->timer_ok = 1;
    if (getenv("SCALANA_DEBUG"))
        rt_log("debug: thread %u (tid %d) timer armed, first %llu ns", t->index, (int)t->tid,
               (unsigned long long)first);
}

void rt_sampler_thread_start(struct rt_thread *t)
{
    if (rt_sampler_kind == PRF_SAMPLER_NONE || t->timer_ok)
        return;
    /* Never a thread that blocks the signal (it may wait for it with
     * sigwait): sampled once it unblocks it (rt_sigmask.c). */
    if (rt_sigmask_blocks_self()) {
        t->sig_parked = 1;
        return;
    }
    t->sig_parked = 0;
    /* Warm libunwind (its caches, lazy symbol binding) outside the handler:
     * the same calls the handler makes, from this thread's context (marked
     * as the runtime's: libunwind's own sigprocmask calls pass through). */
    void *warm[4];
    int in = t->in_rt;
    t->in_rt = 1;
    unw_backtrace(warm, 4);
    ucontext_t uc;
    int trunc;
    if (getcontext(&uc) == 0)
        rt_unwind_signal_context(&uc, warm, 4, &trunc);
    t->in_rt = in;
    if (rt_sampler_kind == PRF_SAMPLER_PAPI) {
        static int papi_counted; /* an event set started on some thread */
        if (rt_papi_thread_start(t) == 0) {
            papi_counted = 1;
            t->timer_ok = 2;
            return;
        }
        if (papi_counted) {
            rt_fail("sampler", "PAPI overflow could not start on thread %u", t->index);
            return;
        }
        /* The first thread cannot count (counters listed, none usable: a
         * virtual machine's PMU): the documented fallback, for every thread. */
        rt_sampler_kind = PRF_SAMPLER_CPUTIME;
        rt_info("PAPI cannot count %s here: sampling with the cputime timer instead", rt_opt.papi_event);
    }
    if (rt_sampler_kind == PRF_SAMPLER_TASKCLOCK) {
        if (rt_perf_thread_start(t, rt_g.period_ns, rt_opt.signo) != 0)
            rt_fail("sampler", "perf_event task clock on thread %u: %s", t->index, strerror(errno));
        return;
    }
    rt_timer_arm(t, rt_sampler_kind == PRF_SAMPLER_CPUTIME ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, 0);
}

void rt_sampler_thread_start_other(struct rt_thread *t, pthread_t th)
{
    if (rt_sampler_kind == PRF_SAMPLER_NONE || t->timer_ok)
        return;
    if (rt_sigmask_blocks_tid(t->tid)) {
        t->sig_parked = 1;
        return;
    }
    if (rt_sampler_kind == PRF_SAMPLER_TASKCLOCK) {
        (void)rt_perf_thread_start(t, rt_g.period_ns, rt_opt.signo); /* may be exiting */
        return;
    }
    clockid_t clk = CLOCK_MONOTONIC;
    /* PAPI event sets belong to their thread: such threads get the timer. */
    if (rt_sampler_kind != PRF_SAMPLER_REALTIME && pthread_getcpuclockid(th, &clk) != 0)
        return; /* the thread is exiting */
    rt_timer_arm(t, clk, 1);
}

void rt_sampler_thread_stop(struct rt_thread *t)
{
    if (t->timer_ok == 1)
        timer_delete(t->timer);
    else if (t->timer_ok == 3)
        rt_perf_thread_stop(t);
    else if (t->timer_ok == 2) {
        long long v;
        PAPI_stop(t->papi_eventset, &v);
        PAPI_cleanup_eventset(t->papi_eventset);
        PAPI_destroy_eventset(&t->papi_eventset);
        PAPI_unregister_thread();
    }
    t->timer_ok = 0;
}

void rt_sampler_thread_park(struct rt_thread *t)
{
    int in = t->in_rt;
    t->in_rt = 1;
    if (t->timer_ok)
        rt_sampler_thread_stop(t);
    t->sig_parked = 1;
    t->in_rt = in;
}

void rt_sampler_thread_unpark(struct rt_thread *t)
{
    if (!t->sig_parked || !rt_g.sampling)
        return;
    int in = t->in_rt;
    t->in_rt = 1;
    rt_sampler_thread_start(t);
    t->in_rt = in;
}

void rt_sampler_start(void)
{
    rt_sampler_kind = rt_opt.sampler;
    rt_g.period_ns = 1000000000ull / rt_opt.freq;
    if (rt_sampler_kind == PRF_SAMPLER_NONE)
        return;
    if (rt_sampler_kind == PRF_SAMPLER_PAPI && rt_papi_setup() != 0)
        rt_sampler_kind = PRF_SAMPLER_CPUTIME;
    if (rt_sampler_kind == PRF_SAMPLER_TASKCLOCK) {
        int e = rt_perf_available();
        if (e != 0) {
            rt_info("perf_event task clock unavailable (%s): sampling with the cputime timer instead",
                    strerror(-e));
            rt_sampler_kind = PRF_SAMPLER_CPUTIME;
        }
    }
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = rt_handler;
    sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK; /* the thread's alternate stack, when it has one */
    sigemptyset(&sa.sa_mask);
    rt_sigaction_fn f = rt_real_sigaction();
    if (!f || f(rt_opt.signo, &sa, &old) != 0) {
        rt_fail("sampler", "cannot install the handler for signal %d", rt_opt.signo);
        rt_sampler_kind = PRF_SAMPLER_NONE;
        return;
    }
    rt_spin_lock(&rt_app_action_lock);
    rt_app_action = old;
    rt_spin_unlock(&rt_app_action_lock);
    rt_handler_installed = 1;
    rt_g.sampling = 1;
    struct rt_thread *t = rt_thread_get();
    if (t)
        rt_sampler_thread_start(t);
    rt_thread_start_pending();
}

void rt_sampler_stop(void)
{
    rt_g.sampling = 0;
    rt_g.writing = 1;
    /* POSIX timers belong to the process: delete every thread's; PAPI event
     * sets can only be stopped by their own thread (their handlers drop). */
    for (struct rt_thread *t = rt_thread_list(); t; t = t->next)
        if (t->timer_ok == 1 || t->timer_ok == 3 || t == rt_self)
            rt_sampler_thread_stop(t);
    for (int i = 0; i < 100000 && __atomic_load_n(&rt_g.in_flight, __ATOMIC_ACQUIRE); i++)
        __builtin_ia32_pause();
}

/* The thread lifecycle hooks (rt_thread.c runs them). */
static void rt_sampler_hook_start(struct rt_thread *t, pthread_t th, int own)
{
    if (own)
        rt_sampler_thread_start(t);
    else
        rt_sampler_thread_start_other(t, th);
}

const struct rt_thread_hooks rt_sampler_thread_hooks = {rt_sampler_hook_start, rt_sampler_thread_stop};
