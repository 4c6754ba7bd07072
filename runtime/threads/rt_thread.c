/* rt_thread.c — per-thread runtime state: registration, reuse after a
 * thread exits, and pthread_create interposition so that the threads the
 * application creates (pthreads, OpenMP) are sampled while threads the MPI
 * library creates (inside MPI calls) are not. */
#include "core/rt_core.h"
#include "callpath/rt_callpath.h"
#include "rt_threads.h"

#include <dlfcn.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

RT_TLS struct rt_thread *rt_self;

/* The lifecycle hooks of the parts with per-thread state (rt_threads.h). */
static const struct rt_thread_hooks *rt_hooks[RT_THREAD_HOOKS_MAX];
static unsigned rt_nhooks;

void rt_thread_hooks_add(const struct rt_thread_hooks *h)
{
    if (rt_nhooks == RT_THREAD_HOOKS_MAX) {
        rt_fail("threads", "more than %d thread hooks", RT_THREAD_HOOKS_MAX);
        return;
    }
    rt_hooks[rt_nhooks++] = h;
}

/* Thread t starts being measured (rt_threads.h, struct rt_thread_hooks). */
static void rt_thread_started(struct rt_thread *t, pthread_t th, int own)
{
    for (unsigned i = 0; i < rt_nhooks; i++)
        if (rt_hooks[i]->start)
            rt_hooks[i]->start(t, th, own);
}

static struct rt_thread *rt_threads;      /* every state, newest first */
static uint32_t rt_nthreads;
static pthread_mutex_t rt_threads_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t rt_thread_key;
static pthread_once_t rt_thread_once = PTHREAD_ONCE_INIT;

void rt_thread_lock(void) { pthread_mutex_lock(&rt_threads_mutex); }
void rt_thread_unlock(void) { pthread_mutex_unlock(&rt_threads_mutex); }
struct rt_thread *rt_thread_list(void) { return __atomic_load_n(&rt_threads, __ATOMIC_ACQUIRE); }
uint32_t rt_thread_count(void) { return rt_nthreads; }

static void rt_thread_exit(void *p)
{
    struct rt_thread *t = p;
    if (!t)
        return;
    t->in_rt = 1;
    for (unsigned i = 0; i < rt_nhooks; i++)
        if (rt_hooks[i]->exit)
            rt_hooks[i]->exit(t);
    rt_self = NULL;
    __atomic_store_n(&t->in_use, 0, __ATOMIC_RELEASE);
}

static void rt_thread_key_init(void)
{
    if (pthread_key_create(&rt_thread_key, rt_thread_exit) != 0)
        rt_fail("threads", "pthread_key_create failed: thread exits are not seen");
}

/* Allocates (or reuses) a state for thread tid.  Caller holds the mutex. */
static struct rt_thread *rt_thread_alloc(pid_t tid)
{
    struct rt_thread *t;
    /* Reuse the state of an exited thread: memory stays bounded by the
     * largest number of threads alive at once. */
    for (t = rt_threads; t; t = t->next)
        if (!t->in_use && t->kind != PRF_THREAD_MAIN)
            break;
    if (!t) {
        t = mmap(NULL, sizeof *t, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (t == MAP_FAILED)
            return NULL;
        memset(t, 0, sizeof *t);
        t->index = rt_nthreads;
        uint32_t cap = rt_opt.cct_nodes ? rt_opt.cct_nodes : rt_options_cct_nodes();
        if (rt_cct_init(&t->cct, cap, t->index) != 0) {
            munmap(t, sizeof *t);
            return NULL;
        }
        t->kind = tid == getpid() ? PRF_THREAD_MAIN : PRF_THREAD_APP;
        t->creator_node = PRF_NONE;
        t->creator_thread = PRF_NONE;
        t->next = rt_threads;
        rt_nthreads++;
        __atomic_store_n(&rt_threads, t, __ATOMIC_RELEASE);
    }
    t->tid = tid;
    t->cur_mpi_node = PRF_NONE;
    t->depth = 0;
    t->in_rt = 0;
    t->in_use = 1;
    rt_iv_thread_start(t, tid == (pid_t)syscall(SYS_gettid));
    return t;
}

/* ---- threads the application started before the runtime activated --------
 * Their start routine is wrapped anyway; each takes a slot (no allocation
 * while the process is inert).  At activation every live one gets a state
 * and a timer on its own CPU clock; its first sample or MPI call adopts it. */
#define RT_PENDING_MAX 256
struct rt_pending {
    volatile int used;
    volatile int owner; /* 0 none yet, 1 the activating thread, 2 the thread itself */
    pid_t tid;
    pthread_t th;
    struct rt_thread *volatile state;
};
static struct rt_pending rt_pending[RT_PENDING_MAX];

static struct rt_thread *rt_pending_adopt(pid_t tid)
{
    for (int i = 0; i < RT_PENDING_MAX; i++)
        if (rt_pending[i].used && rt_pending[i].tid == tid && rt_pending[i].state)
            return rt_pending[i].state;
    return NULL;
}

struct rt_thread *rt_thread_self_slow(void)
{
    pid_t tid = (pid_t)syscall(SYS_gettid); /* async-signal-safe */
    struct rt_thread *t = rt_pending_adopt(tid);
    if (t)
        rt_self = t;
    return t;
}

void rt_thread_start_pending(void)
{
    for (int i = 0; i < RT_PENDING_MAX; i++) {
        struct rt_pending *p = &rt_pending[i];
        int zero = 0;
        /* used: 0 free, 2 being filled in by its thread, 1 ready. */
        if (__atomic_load_n(&p->used, __ATOMIC_SEQ_CST) != 1 ||
            !__atomic_compare_exchange_n(&p->owner, &zero, 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
            continue;
        pthread_mutex_lock(&rt_threads_mutex);
        struct rt_thread *t = rt_thread_alloc(p->tid);
        pthread_mutex_unlock(&rt_threads_mutex);
        if (!t) {
            __atomic_store_n(&p->owner, 0, __ATOMIC_SEQ_CST);
            continue;
        }
        t->kind = PRF_THREAD_APP;
        p->state = t;
        rt_thread_started(t, p->th, 0);
    }
}

struct rt_thread *rt_thread_get(void)
{
    struct rt_thread *t = rt_self;
    if (t)
        return t;
    pthread_once(&rt_thread_once, rt_thread_key_init);
    pid_t tid = (pid_t)syscall(SYS_gettid);
    t = rt_pending_adopt(tid);
    if (!t) {
        pthread_mutex_lock(&rt_threads_mutex);
        t = rt_thread_alloc(tid);
        pthread_mutex_unlock(&rt_threads_mutex);
        if (!t)
            return NULL;
    }
    rt_self = t;
    pthread_setspecific(rt_thread_key, t);
    return t;
}

/* ---- pthread_create interposition ------------------------------------------ */
typedef int (*rt_pthread_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

struct rt_thread_start {
    void *(*fn)(void *);
    void *arg;
    uint32_t creator_thread, creator_node;
};

static void rt_pending_release(void *arg)
{
    struct rt_pending *p = arg;
    /* Wait for an activation that took this slot to finish with it. */
    while (__atomic_load_n(&p->owner, __ATOMIC_SEQ_CST) == 1 && !p->state)
        sched_yield();
    struct rt_thread *t = p->state;
    if (t) {
        /* Finish it here (not again from the key destructor). */
        pthread_once(&rt_thread_once, rt_thread_key_init);
        pthread_setspecific(rt_thread_key, NULL);
        rt_thread_exit(t);
    }
    p->state = NULL;
    __atomic_store_n(&p->owner, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&p->used, 0, __ATOMIC_SEQ_CST);
}

static void *rt_thread_run(void *p)
{
    struct rt_thread_start s = *(struct rt_thread_start *)p;
    free(p);
    if (rt_g.state == RT_ON) {
        struct rt_thread *t = rt_thread_get();
        if (t) {
            t->kind = PRF_THREAD_APP;
            t->creator_thread = s.creator_thread;
            t->creator_node = s.creator_node;
            rt_thread_started(t, pthread_self(), 1);
        }
        return s.fn(s.arg);
    }
    struct rt_pending *slot = NULL;
    if (rt_g.state == RT_INERT)
        for (int i = 0; i < RT_PENDING_MAX && !slot; i++) {
            int z = 0;
            if (rt_pending[i].used == 0 && rt_pending[i].owner == 0 &&
                __atomic_compare_exchange_n(&rt_pending[i].used, &z, 2, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
                slot = &rt_pending[i];
                slot->state = NULL;
                slot->tid = (pid_t)syscall(SYS_gettid);
                slot->th = pthread_self();
                __atomic_store_n(&slot->used, 1, __ATOMIC_SEQ_CST); /* visible to the activation */
            }
        }
    if (!slot)
        return s.fn(s.arg);
    /* Activation may have started between our first look and the claim:
     * whoever takes the slot's ownership first starts the sampling. */
    int zero = 0;
    if (__atomic_load_n(&rt_g.state, __ATOMIC_SEQ_CST) == RT_ON &&
        __atomic_compare_exchange_n(&slot->owner, &zero, 2, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
        __atomic_store_n(&slot->used, 0, __ATOMIC_SEQ_CST);
        __atomic_store_n(&slot->owner, 0, __ATOMIC_SEQ_CST);
        struct rt_thread *t = rt_thread_get();
        if (t) {
            t->kind = PRF_THREAD_APP;
            rt_thread_started(t, pthread_self(), 1);
        }
        return s.fn(s.arg);
    }
    void *ret;
    pthread_cleanup_push(rt_pending_release, slot);
    ret = s.fn(s.arg);
    pthread_cleanup_pop(1);
    return ret;
}

/* Every application thread runs with its own alternate signal stack for the
 * sampler (threads may have small stacks), removed when it ends, also by
 * pthread_exit or cancellation. */
static void *rt_thread_trampoline(void *p)
{
    void *alt = rt_altstack_begin();
    void *ret;
    pthread_cleanup_push(rt_altstack_end, alt);
    rt_work_thread_begin();
    pthread_cleanup_push(rt_work_thread_end, NULL);
    ret = rt_thread_run(p);
    pthread_cleanup_pop(1);
    pthread_cleanup_pop(1);
    return ret;
}

RT_EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
    static rt_pthread_create_fn real;
    if (RT_UNLIKELY(!real)) {
        real = (rt_pthread_create_fn)dlsym(RTLD_NEXT, "pthread_create");
        if (!real)
            return 11; /* EAGAIN: cannot happen with glibc */
    }
    struct rt_thread *me = rt_self;
    /* Threads started from inside MPI calls belong to the MPI library. */
    if ((rt_g.state != RT_ON && rt_g.state != RT_INERT) || (me && (me->depth > 0 || me->in_rt)))
        return real(th, attr, fn, arg);
    struct rt_thread_start *s = malloc(sizeof *s);
    if (!s)
        return real(th, attr, fn, arg);
    s->fn = fn;
    s->arg = arg;
    s->creator_thread = PRF_NONE;
    s->creator_node = PRF_NONE;
    if (me && me->cct.nodes && rt_g.state == RT_ON) {
        void *frames[RT_MAX_DEPTH];
        int truncated = 0;
        me->in_rt = 1;
        int n = rt_capture_path(frames, RT_MAX_DEPTH, &truncated);
        if (n > 0) /* inside an OpenMP region's body: its context; no wrapper frames */
            n = rt_omp_path_fix(frames, n, RT_MAX_DEPTH, &truncated);
        if (n > 0) {
            s->creator_node = rt_cct_insert(&me->cct, frames, n, PRF_CCT_CALLSITE, truncated);
            s->creator_thread = me->index;
        }
        me->in_rt = 0;
    }
    int rc = real(th, attr, rt_thread_trampoline, s);
    if (rc != 0)
        free(s);
    return rc;
}
