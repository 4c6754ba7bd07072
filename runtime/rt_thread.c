/* rt_thread.c — per-thread runtime state: registration, reuse after a
 * thread exits, and pthread_create interposition so that the threads the
 * application creates (pthreads, OpenMP) are sampled while threads the MPI
 * library creates (inside MPI calls) are not. */
#include "rt_core.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

RT_TLS struct rt_thread *rt_self;

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
    rt_sampler_thread_stop(t);
    t->in_rt = 1;
    rt_self = NULL;
    free(t->scratch);
    t->scratch = NULL;
    t->scratch_bytes = 0;
    __atomic_store_n(&t->in_use, 0, __ATOMIC_RELEASE);
}

static void rt_thread_key_init(void)
{
    if (pthread_key_create(&rt_thread_key, rt_thread_exit) != 0)
        rt_fail("threads", "pthread_key_create failed: thread exits are not seen");
}

struct rt_thread *rt_thread_get(void)
{
    struct rt_thread *t = rt_self;
    if (t)
        return t;
    pthread_once(&rt_thread_once, rt_thread_key_init);
    pid_t tid = (pid_t)syscall(SYS_gettid);
    pthread_mutex_lock(&rt_threads_mutex);
    /* Reuse the state of an exited thread: memory stays bounded by the
     * largest number of threads alive at once. */
    for (t = rt_threads; t; t = t->next)
        if (!t->in_use && t->kind != PRF_THREAD_MAIN)
            break;
    if (!t) {
        t = mmap(NULL, sizeof *t, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (t == MAP_FAILED) {
            pthread_mutex_unlock(&rt_threads_mutex);
            return NULL;
        }
        memset(t, 0, sizeof *t);
        t->index = rt_nthreads;
        uint32_t cap = rt_opt.cct_nodes ? rt_opt.cct_nodes : 262144;
        if (rt_cct_init(&t->cct, cap, t->index) != 0) {
            munmap(t, sizeof *t);
            pthread_mutex_unlock(&rt_threads_mutex);
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
    pthread_mutex_unlock(&rt_threads_mutex);
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

static void *rt_thread_trampoline(void *p)
{
    struct rt_thread_start s = *(struct rt_thread_start *)p;
    free(p);
    if (rt_g.state == RT_ON) {
        struct rt_thread *t = rt_thread_get();
        if (t) {
            t->kind = PRF_THREAD_APP;
            t->creator_thread = s.creator_thread;
            t->creator_node = s.creator_node;
            rt_sampler_thread_start(t);
        }
    }
    return s.fn(s.arg);
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
    if (rt_g.state != RT_ON || (me && (me->depth > 0 || me->in_rt)))
        return real(th, attr, fn, arg);
    struct rt_thread_start *s = malloc(sizeof *s);
    if (!s)
        return real(th, attr, fn, arg);
    s->fn = fn;
    s->arg = arg;
    s->creator_thread = PRF_NONE;
    s->creator_node = PRF_NONE;
    if (me && me->cct.nodes) {
        void *frames[RT_MAX_DEPTH];
        int truncated = 0;
        me->in_rt = 1;
        int n = rt_capture_path(frames, RT_MAX_DEPTH, &truncated);
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
