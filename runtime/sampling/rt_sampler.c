/* rt_sampler.c — sampling: the sample source of SCALANA_SAMPLER (one struct
 * rt_sampler_ops per line of samplers.def, rt_sampler_<word>.c), the signal
 * handler that charges each timer sample (weight 1 + si_overrun, rt_sample.c),
 * and chaining to the application's own handler for the same signal. */
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "core/rt_core.h"
#include "callpath/rt_callpath.h"
#include "threads/rt_threads.h"
#include "rt_sampler_ops.h"
#include "rt_sampling.h"
#include "scalana/samplers.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

static struct sigaction rt_app_action; /* the application's disposition of rt_opt.signo */
static volatile int rt_app_action_lock;
static volatile int rt_handler_installed;
static int rt_sampler_kind = PRF_SAMPLER_NONE;

/* none: no samples (MPI calls and intervals are still recorded) */
const struct rt_sampler_ops rt_sampler_ops_NONE = {0};

/* The operations of sampler kind (enum prf_sampler), from samplers.def. */
static const struct rt_sampler_ops *rt_sampler_ops_of(int kind)
{
    switch (kind) {
#define SCALANA_SAMPLER(id, NAME, word, clock, arg) case id: return &rt_sampler_ops_##NAME;
#include "scalana/samplers.def"
#undef SCALANA_SAMPLER
    default: return &rt_sampler_ops_NONE;
    }
}

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
    const char *w = scalana_sampler_word((uint32_t)rt_sampler_kind);
    if (!w) return "none";
    if (!scalana_sampler_arg((uint32_t)rt_sampler_kind)) return w;
    snprintf(buf, sizeof buf, "%s:%s", w, rt_opt.sampler_arg);
    return buf;
}

int rt_sampler_kind_now(void) { return rt_sampler_kind; }

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

static void rt_handler(int sig, siginfo_t *si, void *ucv)
{
    int saved_errno = errno;
    if (si->si_code != SI_TIMER || si->si_value.sival_ptr != &rt_timer_cookie) {
        const struct rt_sampler_ops *ops = rt_sampler_ops_of(rt_sampler_kind);
        if (!ops->signal || !ops->signal(si, ucv))
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

/* ---- threads ------------------------------------------------------------------ */
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
    (void)rt_unwind_prepare_thread(); /* the handler's unwind cache: mapped here, never in the handler */
    t->in_rt = in;
    if (rt_sampler_ops_of(rt_sampler_kind)->thread_start(t) == RT_SAMPLER_FALL_BACK) {
        rt_sampler_kind = PRF_SAMPLER_CPUTIME; /* for every thread */
        rt_sampler_ops_of(rt_sampler_kind)->thread_start(t);
    }
}

void rt_sampler_thread_start_other(struct rt_thread *t, pthread_t th)
{
    if (rt_sampler_kind == PRF_SAMPLER_NONE || t->timer_ok)
        return;
    if (rt_sigmask_blocks_tid(t->tid)) {
        t->sig_parked = 1;
        return;
    }
    const struct rt_sampler_ops *ops = rt_sampler_ops_of(rt_sampler_kind);
    if (ops->thread_start_other)
        ops->thread_start_other(t, th);
    else
        rt_timer_arm_cpu_of(t, th);
}

void rt_sampler_thread_stop(struct rt_thread *t)
{
    if (t->timer_ok == 1)
        timer_delete(t->timer);
    else if (t->timer_ok) { /* 2 PAPI, 3 perf task clock: the source's own */
        const struct rt_sampler_ops *ops = rt_sampler_ops_of(rt_sampler_kind);
        if (ops->thread_stop)
            ops->thread_stop(t);
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
    const struct rt_sampler_ops *ops = rt_sampler_ops_of(rt_sampler_kind);
    if (ops->setup && ops->setup() != 0)
        rt_sampler_kind = PRF_SAMPLER_CPUTIME; /* the source said so in one line */
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
