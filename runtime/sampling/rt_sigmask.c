/* rt_sigmask.c — which threads the sampler may interrupt: only those that
 * run with its signal unblocked.  A thread that blocks the signal (to take
 * signals with sigwait/sigwaitinfo/signalfd, or to keep them away from it)
 * gets no timer: a thread-directed timer signal would stay pending on it
 * and be picked up by its sigwait.  The mask is checked when the thread's
 * timer is armed and whenever the thread changes it through
 * pthread_sigmask or sigprocmask (interposed here): blocking stops the
 * thread's timer first (an expiry already queued is then delivered to our
 * handler while the signal is still unblocked), unblocking starts it. */
#include "core/rt_core.h"
#include "threads/rt_threads.h"
#include "rt_sampling.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>

typedef int (*rt_mask_fn)(int, const sigset_t *, sigset_t *);
static rt_mask_fn rt_real_pthread_sigmask, rt_real_sigprocmask;

static rt_mask_fn rt_mask_real(rt_mask_fn *cache, const char *name)
{
    if (!*cache)
        *cache = (rt_mask_fn)dlsym(RTLD_NEXT, name);
    return *cache;
}

/* The mask change of the calling thread through f, stopping or starting its
 * sampling around it. */
static int rt_mask_change(rt_mask_fn f, int how, const sigset_t *set, sigset_t *old)
{
    if (!f) {
        errno = ENOSYS;
        return -1;
    }
    struct rt_thread *t = rt_self;
    if (!t && rt_g.sampling)
        t = rt_thread_self_slow(); /* started before the runtime activated */
    sigset_t cur;
    /* The runtime's own code (libunwind blocks signals while it unwinds) and
     * the MPI library's inside a call pass through: a signal they hold for
     * a moment reaches our handler when they unblock it. */
    if (!set || !t || t->in_rt || t->depth > 0 || !rt_g.sampling || f(SIG_BLOCK, NULL, &cur) != 0)
        return f(how, set, old);
    int signo = rt_opt.signo;
    int was = sigismember(&cur, signo) == 1, in = sigismember(set, signo) == 1;
    int will = how == SIG_BLOCK ? (was || in) : how == SIG_UNBLOCK ? (was && !in) : how == SIG_SETMASK ? in : was;
    int saved = errno;
    if (!was && will)
        rt_sampler_thread_park(t);
    errno = saved;
    int rc = f(how, set, old);
    saved = errno;
    if ((rc == 0 && was && !will) || (rc != 0 && !was && will))
        rt_sampler_thread_unpark(t);
    errno = saved;
    return rc;
}

RT_EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
    return rt_mask_change(rt_mask_real(&rt_real_pthread_sigmask, "pthread_sigmask"), how, set, old);
}

RT_EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
    return rt_mask_change(rt_mask_real(&rt_real_sigprocmask, "sigprocmask"), how, set, old);
}
